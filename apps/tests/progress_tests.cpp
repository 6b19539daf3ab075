// Unit tests of the progress reporter (apps/src/progress.hpp): its plain lines off a terminal and
// the heartbeat that shows a phase again while it gives no update. stderr is redirected to a file
// for each test; the knobs TCSIM_PROGRESS_AFTER / TCSIM_PROGRESS_INTERVAL are set per test.
// ctest names "apps: progress: ...".
#include <catch2/catch.hpp>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "progress.hpp"

using tcsim::cli::Progress;

namespace {

// stderr goes to a temporary file while it lives; lines() reads what was written.
class CapturedStderr {
 public:
  CapturedStderr() {
    std::fflush(stderr);
    saved_ = dup(STDERR_FILENO);
    file_ = std::tmpfile();
    REQUIRE(file_ != nullptr);
    dup2(fileno(file_), STDERR_FILENO);
  }
  ~CapturedStderr() {
    restore();
    std::fclose(file_);
  }
  std::vector<std::string> lines() {
    restore();
    std::rewind(file_);
    std::vector<std::string> out;
    std::string line;
    for (int ch; (ch = std::fgetc(file_)) != EOF;) {
      if (ch == '\n') {
        out.push_back(line);
        line.clear();
      } else {
        line += static_cast<char>(ch);
      }
    }
    if (!line.empty()) out.push_back(line);
    return out;
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(saved_, STDERR_FILENO);
    close(saved_);
    saved_ = -1;
  }
  int saved_ = -1;
  std::FILE* file_ = nullptr;
};

void knobs(const char* after, const char* interval) {
  setenv("TCSIM_PROGRESS_AFTER", after, 1);
  setenv("TCSIM_PROGRESS_INTERVAL", interval, 1);
}

// The seconds of a line "... after S s".
double seconds_of(const std::string& line) {
  std::smatch m;
  REQUIRE(std::regex_search(line, m, std::regex(" after ([0-9.]+) s$")));
  return std::stod(m[1].str());
}

void sleep_seconds(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

}  // namespace

TEST_CASE("progress: a phase without updates is shown again by the heartbeat, a second apart") {
  knobs("0", "0");
  CapturedStderr err;
  {
    Progress p("tcsim test", true);
    p.update("one long step", 1, 4);
    sleep_seconds(2.8);
    p.done();
  }
  const auto lines = err.lines();
  INFO(Catch::Detail::stringify(lines));
  // The update's own line, then the heartbeat's (at least one second apart, interval 0).
  REQUIRE(lines.size() >= 2);
  for (const auto& line : lines) CHECK(std::regex_match(line, std::regex("tcsim test: one long step: 25% \\(1/4\\) after [0-9.]+ s")));
  CHECK(seconds_of(lines.front()) < 0.5);
  for (std::size_t i = 1; i < lines.size(); ++i) CHECK(seconds_of(lines[i]) - seconds_of(lines[i - 1]) >= 0.95);
  CHECK(lines.size() <= 4);
}

TEST_CASE("progress: the heartbeat names no phase before the first update") {
  knobs("0", "0");
  CapturedStderr err;
  {
    Progress p("tcsim test", true);
    sleep_seconds(0.8);  // the heartbeat wakes every 0.25 s; its first line is due at once
  }  // the destructor stops the heartbeat
  const auto lines = err.lines();
  INFO(Catch::Detail::stringify(lines));
  REQUIRE(!lines.empty());
  CHECK(std::regex_match(lines.front(), std::regex("tcsim test: running after [0-9.]+ s")));
}

TEST_CASE("progress: nothing before TCSIM_PROGRESS_AFTER, nothing when disabled, nothing after done()") {
  knobs("100", "0");
  CapturedStderr err;
  {
    Progress p("tcsim test", true);
    p.update("step", 0, 1);
    sleep_seconds(0.6);  // with TCSIM_PROGRESS_AFTER 0 the heartbeat would print within 0.25 s
  }
  knobs("0", "0");
  {
    Progress quiet("tcsim test", false);
    quiet.update("step", 0, 1);
    sleep_seconds(0.6);
  }
  {
    Progress p("tcsim test", true);
    p.done();
    sleep_seconds(0.6);  // the heartbeat has stopped
  }
  CHECK(err.lines().empty());
}

TEST_CASE("progress: updates off a terminal wait TCSIM_PROGRESS_INTERVAL between lines") {
  knobs("0", "100");
  CapturedStderr err;
  {
    Progress p("tcsim test", true);
    for (std::size_t i = 0; i <= 10; ++i) p.update("steps", i, 10);
    sleep_seconds(1.3);  // the heartbeat waits the interval too
  }
  const auto lines = err.lines();
  INFO(Catch::Detail::stringify(lines));
  REQUIRE(lines.size() == 1);
  CHECK(std::regex_match(lines.front(), std::regex("tcsim test: steps: 0% \\(0/10\\) after [0-9.]+ s")));
}
