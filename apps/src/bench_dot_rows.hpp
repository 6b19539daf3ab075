// tcsim bench dot --all-rows (cmd_bench.cpp dispatches here).
#pragma once
#include <cstddef>
#include <cstdint>

#include "args.hpp"
#include "tcsim/models/unit.hpp"

namespace tcsim::cli {

// Every built-in datapath row (or `only`'s rows) through Unit::dot_batch and, for operands of
// at most 16 bits, dot_batch_planar: `elements` elements of one instruction's K per call, each
// call repeated for `min_seconds`; elements per second of the faster layout beside the target
// (issue 25: 1e8, 3e8 for h100 fp16), a sample checked against Unit::dot. Exit 1 on a mismatch.
int bench_dot_all_rows(const ParsedArgs& a, const models::Unit* only, std::size_t elements, unsigned threads,
                       double min_seconds, std::uint64_t seed);

}  // namespace tcsim::cli
