// Progress reporter (progress.hpp).
#include "progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace tcsim::cli {

namespace {

// A non-negative number of seconds from the environment (test knobs), else `fallback`.
double seconds_from_env(const char* name, double fallback) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  return end && *end == '\0' && v >= 0 && v < 1e9 ? v : fallback;
}

}  // namespace

Progress::Progress(std::string name, bool enabled)
    : name_(std::move(name)),
      on_(enabled),
      terminal_(isatty(STDERR_FILENO) != 0),
      after_(seconds_from_env("TCSIM_PROGRESS_AFTER", 2.0)),
      interval_(seconds_from_env("TCSIM_PROGRESS_INTERVAL", 5.0)) {
  if (on_) beat_ = std::thread([this] { heartbeat(); });
}

void Progress::update(const std::string& what, double fraction) { show(what, fraction, ""); }

void Progress::update(const std::string& what, std::size_t done, std::size_t total) {
  if (total == 0) return;
  show(what, static_cast<double>(done) / static_cast<double>(total),
       std::to_string(done) + "/" + std::to_string(total));
}

std::function<void(std::size_t, std::size_t)> Progress::hook(const std::string& what) {
  if (!on_) return {};
  return [this, what](std::size_t done, std::size_t total) { update(what, done, total); };
}

void Progress::show(const std::string& what, double fraction, const std::string& count) {
  if (!on_) return;
  {
    // Always kept, so that the heartbeat shows the latest phase.
    const std::lock_guard state(state_mutex_);
    what_ = what;
    fraction_ = std::clamp(fraction, 0.0, 1.0);
    count_ = count;
  }
  const std::unique_lock lock(mutex_, std::try_to_lock);  // another thread is drawing: skip
  if (!lock.owns_lock()) return;
  print_locked(Clock::now(), false);
}

void Progress::print_locked(Clock::time_point now, bool beat) {
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < after_) return;
  const double since = std::chrono::duration<double>(now - last_).count();
  std::string what, count;
  double fraction = 0;
  {
    const std::lock_guard state(state_mutex_);
    what = what_, count = count_, fraction = fraction_;
  }
  const int percent = static_cast<int>(std::max(fraction, 0.0) * 100);
  if (terminal_) {
    if (drawn_ && since < (beat ? 0.5 : 0.1)) return;
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(std::max(fraction, 0.0) * kWidth);
    std::fprintf(stderr, "\r%-32.32s [%s%s] %3d%% %s %.1f s \x1b[K", what.c_str(), std::string(filled, '#').c_str(),
                 std::string(kWidth - filled, ' ').c_str(), percent, count.c_str(), elapsed);
    drawn_ = true;
  } else {
    // The heartbeat waits at least a second between lines, whatever the interval.
    if (printed_ && since < (beat ? std::max(interval_, 1.0) : interval_)) return;
    if (fraction < 0)
      std::fprintf(stderr, "%s: %s after %.1f s\n", name_.c_str(), what.c_str(), elapsed);
    else
      std::fprintf(stderr, "%s: %s: %d%%%s after %.1f s\n", name_.c_str(), what.c_str(), percent,
                   count.empty() ? "" : (" (" + count + ")").c_str(), elapsed);
    printed_ = true;
  }
  std::fflush(stderr);
  last_ = now;
}

void Progress::heartbeat() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, std::chrono::milliseconds(250));
    if (!stopping_) print_locked(Clock::now(), true);
  }
}

void Progress::done() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (beat_.joinable() && beat_.get_id() != std::this_thread::get_id()) beat_.join();
  const std::lock_guard lock(mutex_);
  if (!drawn_) return;
  std::fprintf(stderr, "\r\x1b[K");
  std::fflush(stderr);
  drawn_ = false;
}

bool progress_enabled(ProgressMode mode) {
  return mode == ProgressMode::On || (mode == ProgressMode::Auto && isatty(STDERR_FILENO));
}

}  // namespace tcsim::cli
