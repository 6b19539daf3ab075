// tcsim bench gemm --all-rows (cmd_bench.cpp dispatches here).
#pragma once
#include <cstddef>
#include <cstdint>

#include "args.hpp"
#include "tcsim/models/unit.hpp"

namespace tcsim::cli {

// Every built-in row (or `only`'s rows) as an n x n GEMM beside Eigen's native GEMM (binary64
// for fp64 rows, binary32 otherwise): ratio, path, native GFLOP/s, peak bytes (--json).
// Reference-path rows run at a smaller n. Exit 1 if a sampled entry differs from Unit::dot.
int bench_gemm_all_rows(const ParsedArgs& a, const models::Unit* only, std::size_t n, unsigned threads,
                        std::uint64_t seed);

}  // namespace tcsim::cli
