// The backward-error bound printed beside a simulated LU's error (tcsim lu, tcsim experiment).
#pragma once
#include <string>

#include "tcsim/models/lu.hpp"

namespace tcsim::cli {

struct LuBound {
  double value = 0;
  std::string source;  // theorem and equation
};

// The constant c with (A + dA) x^ = b, |dA| <= c (|A| + |L^||U^|): the factorization's theorem
// (blanchard2020 Thm 4.3 for rl, lopez2022 Thms 2-4, gamma_n for the uniform references) plus
// 2 g_n + g_n^2 for substitutions in `solve` (fp16, fp32 or fp64). Reads lu's algorithm,
// variant, storage, panel, n, block and inner_block.
LuBound lu_bound(const models::LuResult& lu, const models::Unit& unit, const Format& in, const std::string& instruction,
                 const std::string& solve);

}  // namespace tcsim::cli
