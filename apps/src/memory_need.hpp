// Refuses a run whose memory need is beyond what the machine has, before it allocates (a
// std::bad_alloc halfway through a long run helps nobody).
#pragma once

#include <string>

namespace tcsim::cli {

// Bytes available: TCSIM_MEMORY_LIMIT (bytes, for tests) if set, else MemAvailable from
// /proc/meminfo; 0 when unknown (then nothing is refused).
double memory_available();

// Throws std::invalid_argument "<option> needs about 25.8 GB of memory; 22.1 GB available"
// when `bytes` exceeds memory_available().
void require_memory(const std::string& option, double bytes);

}  // namespace tcsim::cli
