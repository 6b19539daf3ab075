// Reading KM25's data files (km25_data.hpp).
#include "km25_data.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tcsim::cli::experiments {

namespace {

const char* const kDataPath = "experiments/data/matmul_test_";

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

// The text of a file in the HEAD commit of a git directory; nullopt when git or the file is missing.
std::optional<std::string> git_show(const std::string& git_dir, const std::string& path) {
  const std::string command = "git --git-dir=" + quoted(git_dir) + " show " + quoted("HEAD:" + path) + " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return std::nullopt;
  std::string text;
  std::array<char, 4096> buf{};
  for (std::size_t got; (got = std::fread(buf.data(), 1, buf.size(), pipe)) > 0;) text.append(buf.data(), got);
  return pclose(pipe) == 0 ? std::optional<std::string>(text) : std::nullopt;
}

}  // namespace

Km25Data find_km25_data() {
  namespace fs = std::filesystem;
  Km25Data d;
  const char* env = std::getenv("TCSIM_KM25_DIR");
  d.dir = env && *env ? env : "../shared/MATLAB-tensor-core";
  std::error_code ec;
  if (fs::is_directory(fs::path(d.dir) / "experiments" / "data", ec)) return d;
  if (fs::is_regular_file(fs::path(d.dir) / "HEAD", ec) && fs::is_directory(fs::path(d.dir) / "objects", ec) &&
      git_show(d.dir, "experiments/experiments.m")) {
    d.git = true;
    return d;
  }
  d.absent = "KM25's data files were not found in '" + d.dir +
             "' (set TCSIM_KM25_DIR to a clone of north-numerical-computing/MATLAB-tensor-core, a work tree or a "
             "git directory): the comparison with them is skipped";
  return d;
}

std::optional<std::vector<Km25Point>> read_km25_file(const Km25Data& data, const std::string& file) {
  if (!data.absent.empty()) return std::nullopt;
  const std::string path = kDataPath + file + ".dat";
  std::string text;
  if (data.git) {
    const auto shown = git_show(data.dir, path);
    if (!shown) return std::nullopt;
    text = *shown;
  } else {
    std::ifstream in(std::filesystem::path(data.dir) / path);
    if (!in) return std::nullopt;
    std::ostringstream s;
    s << in.rdbuf();
    text = s.str();
  }
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);  // "n error bound"
  std::vector<Km25Point> points;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    Km25Point p;
    std::string n;
    if (!(fields >> n >> p.printed)) continue;
    char* end = nullptr;
    p.n = std::strtod(n.c_str(), &end);
    p.error = std::strtod(p.printed.c_str(), nullptr);
    points.push_back(p);
  }
  return points;
}

int agreeing_digits(const std::string& a, const std::string& b) {
  const auto ea = a.find('e'), eb = b.find('e');
  if (ea == std::string::npos || eb == std::string::npos || a.substr(ea) != b.substr(eb)) return 0;
  int digits = 0;
  for (std::size_t i = 0; i < ea && i < eb; ++i) {
    if (a[i] != b[i]) break;
    if (a[i] >= '0' && a[i] <= '9') ++digits;
  }
  return digits;
}

}  // namespace tcsim::cli::experiments
