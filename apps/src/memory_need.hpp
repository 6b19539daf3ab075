// Refuses a run whose memory need is beyond what the machine has, before it allocates (a
// std::bad_alloc halfway through a long run helps nobody).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace tcsim::cli {

// Bytes available: TCSIM_MEMORY_LIMIT (bytes, for tests) if set, else MemAvailable from
// /proc/meminfo; 0 when unknown (then nothing is refused).
double memory_available();

// Throws std::invalid_argument "<option> needs about 25.8 GB of memory; 22.1 GB available"
// when `bytes` exceeds memory_available().
void require_memory(const std::string& option, double bytes);

// Under mpirun (docs/scale.md "Memory per rank"): `bytes` is each rank's need, in rank order,
// the same list on every rank; ranks on one node (host name) share its memory_available().
// Throws on every rank std::invalid_argument "<option> needs about 1.1 GB of memory on rank 0
// and up to 0.4 GB on each other rank (grid 2x1); rank 0's node (2 ranks) needs 1.5 GB; 1.0 GB
// available" for the first node, by its lowest rank, whose ranks need more than it has
// (`grid` "": no grid named). Alone (one rank, `grid` ""): require_memory(option, bytes[0]).
void require_memory_per_rank(const std::string& option, const std::vector<double>& bytes, const std::string& grid);

// Byte counts as whole numbers, for JSON.
inline std::vector<std::uint64_t> whole_bytes(const std::vector<double>& bytes) {
  std::vector<std::uint64_t> out;
  for (double b : bytes) out.push_back(static_cast<std::uint64_t>(std::llround(b)));
  return out;
}

}  // namespace tcsim::cli
