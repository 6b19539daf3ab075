// A progress line for long runs: drawn on standard error only when it is a terminal (and the
// caller did not ask for JSON), so that pipes and files receive nothing extra.
#pragma once
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace tcsim::cli {

class Progress {
 public:
  explicit Progress(bool enabled) : on_(enabled && isatty(STDERR_FILENO)) {}
  ~Progress() { done(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Phase `what`, `fraction` of it done (0..1); redrawn at most 10 times a second.
  void update(const std::string& what, double fraction) {
    if (!on_) return;
    const auto now = Clock::now();
    if (drawn_ && fraction < 1 && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    drawn_ = true;
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(fraction * kWidth + 0.5);
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr, "\r%-28s [%s%s] %3d%%  %.1f s ", what.c_str(), std::string(filled, '#').c_str(),
                 std::string(kWidth - filled, ' ').c_str(), static_cast<int>(fraction * 100 + 0.5), elapsed);
    std::fflush(stderr);
  }
  // Clears the line.
  void done() {
    if (!on_ || !drawn_) return;
    std::fprintf(stderr, "\r%80s\r", "");
    std::fflush(stderr);
    drawn_ = false;
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool on_;
  bool drawn_ = false;
  Clock::time_point start_ = Clock::now(), last_ = start_;
};

}  // namespace tcsim::cli
