// tcsim bench lu (cmd_bench.cpp dispatches here).
#pragma once
#include <cstddef>
#include <cstdint>

#include "args.hpp"
#include "tcsim/models/unit.hpp"

namespace tcsim::cli {

// The simulated right-looking TC32 LU (blanchard2020 Algorithm 4.1, fp32 storage, blocks of r)
// of an n x n hpl-ai matrix beside Eigen's binary32 LU of the same matrix on all cores.
int bench_lu(const ParsedArgs& a, const models::Unit& unit, std::size_t n, std::size_t r, unsigned threads,
             std::uint64_t seed);

}  // namespace tcsim::cli
