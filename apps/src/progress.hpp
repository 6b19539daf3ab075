// Progress of long runs, on standard error, the same for every command and for the Python
// package (docs/design.md, "Outputs, JSON numbers and progress").
//
// Nothing is printed before the run has taken TCSIM_PROGRESS_AFTER seconds (default 2), so
// short runs print exactly what they printed before. After that: on a terminal, one bar
// redrawn in place at most 10 times a second and cleared at the end; otherwise (a pipe, a
// file, a CI log) a plain line "tcsim gemm: exact errors (MPFR): 40% after 12.3 s" at most
// every TCSIM_PROGRESS_INTERVAL seconds (default 5). A disabled reporter (--quiet,
// progress=False) prints nothing. update() may be called from any thread.
#pragma once
#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>

namespace tcsim::cli {

class Progress {
 public:
  // `name` leads the plain lines ("tcsim gemm"); `enabled` false: silent.
  Progress(std::string name, bool enabled);
  ~Progress() { done(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Phase `what`, `fraction` of it done (0..1).
  void update(const std::string& what, double fraction);
  // Phase `what`, `done` of `total` steps (shown as "done/total" beside the percentage).
  void update(const std::string& what, std::size_t done, std::size_t total);
  // A callback for the models' hooks (GemmOptions::progress, gemm_errors): update(what, done, total).
  std::function<void(std::size_t, std::size_t)> hook(const std::string& what);
  // Clears the bar (the plain lines stay).
  void done();

 private:
  using Clock = std::chrono::steady_clock;
  void show(const std::string& what, double fraction, const std::string& count);
  std::string name_;
  bool on_, terminal_;
  double after_, interval_;  // seconds
  bool drawn_ = false, printed_ = false;
  Clock::time_point start_ = Clock::now(), last_ = start_;
  std::mutex mutex_;
};

// The Python package's progress= argument: None (on when stderr is a terminal), True, False.
enum class ProgressMode { Auto, On, Off };
bool progress_enabled(ProgressMode mode);

}  // namespace tcsim::cli
