// Progress of long runs, on standard error, the same for every command and for the Python
// package (docs/design.md, "Outputs, JSON numbers and progress").
//
// Nothing is printed before the run has taken TCSIM_PROGRESS_AFTER seconds (default 2), so
// short runs print exactly what they printed before. After that: on a terminal, one bar
// redrawn in place at most 10 times a second and cleared at the end; otherwise (a pipe, a
// file, a CI log) a plain line "tcsim gemm: exact errors (MPFR): 40% after 12.3 s" at most
// every TCSIM_PROGRESS_INTERVAL seconds (default 5). A phase that gives no update for that long
// (a search step, one format pair's check) is shown again with the time so far by a heartbeat
// thread, so a long run is never silent. A disabled reporter (--quiet, progress=False) prints
// nothing and starts no thread. update() may be called from any thread.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

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
  // Stops the heartbeat and clears the bar (the plain lines stay).
  void done();

 private:
  using Clock = std::chrono::steady_clock;
  void show(const std::string& what, double fraction, const std::string& count);
  // With mutex_ held: the line or bar of the phase, printed when due (`beat`: the heartbeat's).
  void print_locked(Clock::time_point now, bool beat);
  void heartbeat();
  std::string name_;
  bool on_, terminal_;
  double after_, interval_;  // seconds
  bool drawn_ = false, printed_ = false;
  Clock::time_point start_ = Clock::now(), last_ = start_;
  // The latest phase given (shown again by the heartbeat); fraction_ < 0: none yet.
  std::string what_ = "running", count_;
  double fraction_ = -1;
  std::mutex state_mutex_;  // what_, count_, fraction_
  std::mutex mutex_;        // printing, and the rest

  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread beat_;  // declared last: started once the members above exist
};

// The Python package's progress= argument: None (on when stderr is a terminal), True, False.
enum class ProgressMode { Auto, On, Off };
bool progress_enabled(ProgressMode mode);

}  // namespace tcsim::cli
