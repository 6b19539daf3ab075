// tcsim bench verify: the differential campaign (docs/reliability.md). Random cases through
// the fast paths (Unit::dot_batch, dot_batch_planar, gemm), the reference path (Unit::dot:
// the fixed-point adder and chaining) and MPFR (the exact-configured adder against the
// correctly rounded sum), reporting every mismatch with the seed and case that reproduce it.
#pragma once
#include "args.hpp"

namespace tcsim::cli {

// Runs `tcsim bench verify` with the parsed options of `tcsim bench`; returns the exit code
// (0: no mismatch, 1: mismatches).
int bench_verify(const ParsedArgs& a);

}  // namespace tcsim::cli
