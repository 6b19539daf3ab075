// Memory need checked up front (memory_need.hpp).
#include "memory_need.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>

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

}  // namespace tcsim::cli
