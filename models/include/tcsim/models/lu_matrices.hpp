// Test matrices of the LU experiments (issue 8): seeded, the same matrix on every machine (no
// libm calls whose last bit may differ between systems; see lu_matrices.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tcsim::models {

// q1dq2 (blanchard2020 section 4.2): Q1 D Q2 with Haar-random orthogonal Q1, Q2 (Householder QR
// of Gaussian matrices, signs fixed by R's diagonal) and d_ii = cond^(-(i-1)/(n-1)).
std::vector<double> matrix_q1dq2(std::size_t n, double cond, std::uint64_t seed);
// hpl-ai (lopez2022 section 2.3): off-diagonal entries uniform in [0, 1), diagonal n.
std::vector<double> matrix_hpl_ai(std::size_t n, std::uint64_t seed);
// Entries uniform in [lo, hi) or standard normal.
std::vector<double> matrix_uniform(std::size_t n, double lo, double hi, std::uint64_t seed);
std::vector<double> matrix_normal(std::size_t n, std::uint64_t seed);

}  // namespace tcsim::models
