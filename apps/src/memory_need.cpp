// Memory need checked up front (memory_need.hpp).
#include "memory_need.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "distributed_items.hpp"
#include "item_bytes.hpp"

namespace tcsim::cli {

double memory_available() {
  if (const char* text = std::getenv("TCSIM_MEMORY_LIMIT"); text && *text) {
    char* end = nullptr;
    const double v = std::strtod(text, &end);
    if (end && *end == '\0' && v > 0) return v;
  }
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return 0;
}

namespace {

std::string size_text(double bytes) {
  char text[64];
  if (bytes >= 1e9) std::snprintf(text, sizeof text, "%.1f GB", bytes * 1e-9);
  else std::snprintf(text, sizeof text, "%.1f MB", bytes * 1e-6);
  return text;
}

}  // namespace

void require_memory(const std::string& option, double bytes) {
  const double available = memory_available();
  if (available <= 0 || bytes <= available) return;
  throw std::invalid_argument(option + " needs about " + size_text(bytes) + " of memory; " + size_text(available) +
                              " available");
}

void require_memory_per_rank(const std::string& option, const std::vector<double>& bytes, const std::string& grid) {
  if (job_ranks() == 1 && bytes.size() == 1 && grid.empty()) return require_memory(option, bytes[0]);
  // Every rank's node and the memory available there.
  const std::vector<std::string> parts = map_parts([](int, int) {
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    ItemWriter w;
    w.put(std::string(host)).put(memory_available());
    return w.take();
  });
  std::vector<std::string> hosts;
  std::vector<double> available;
  for (const std::string& p : parts) {
    ItemReader r(p);
    hosts.push_back(r.get_string());
    available.push_back(r.get<double>());
  }
  for (std::size_t first = 0; first < hosts.size() && first < bytes.size(); ++first) {
    bool seen = false;
    for (std::size_t i = 0; i < first; ++i) seen = seen || hosts[i] == hosts[first];
    if (seen) continue;
    double need = 0, have = available[first];
    int ranks = 0;
    for (std::size_t i = first; i < hosts.size() && i < bytes.size(); ++i)
      if (hosts[i] == hosts[first]) {
        need += bytes[i], ++ranks;
        if (available[i] > 0 && (have <= 0 || available[i] < have)) have = available[i];
      }
    if (have <= 0 || need <= have) continue;
    double others = 0;
    for (std::size_t i = 1; i < bytes.size(); ++i) others = others > bytes[i] ? others : bytes[i];
    throw std::invalid_argument(option + " needs about " + size_text(bytes[0]) + " of memory on rank 0" +
                                (bytes.size() > 1 ? " and up to " + size_text(others) + " on each other rank" : "") +
                                (grid.empty() ? "" : " (grid " + grid + ")") + "; rank " + std::to_string(first) + "'s node (" +
                                std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks") + ") needs " +
                                size_text(need) + "; " + size_text(have) + " available");
  }
}

}  // namespace tcsim::cli
