// Test matrices of the LU experiments (issue 8): seeded, the same matrix on every machine (no
// libm calls whose last bit may differ between systems; see lu_matrices.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
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

// fasihigham2021 (Fasi & Higham, SIMAX 42(1), 2021; not fasi2021, the tensor-core paper), the
// generator of lopez2022 section 6.1: A = L U with L = I - alpha (strictly lower
// ones) and U = I - beta (strictly upper ones), alpha = min(beta / 2, 1), beta solved so that
// kappa_inf(L U) = cond. Guarantees (exact arithmetic): LU without pivoting gives these L, U;
// |l_ij| <= 1, so partial pivoting makes no interchange; every Schur complement is bounded by
// max |a_ij| (growth factor 1); A^-1 >= 0 entrywise. kappa_inf of L U, evaluated in O(n),
// is solved for by bisection to adjacent doubles (a miss above 1e-9 cond throws); the stored
// binary64 A is L U rounded entrywise, so its kappa_inf is cond to about kappa n 2^-53
// (measured: 5e-12 relative or better for n <= 100, cond <= 1e6). n = 1 only takes cond = 1.
std::vector<double> matrix_fasi_higham(std::size_t n, double cond);
// D_r A D_c with the fasihigham2021 A above and seeded random signs d = +-1: the same magnitudes,
// condition number, growth and pivoting (L -> D_r L D_r, U -> D_r U D_c), so with round-to-
// nearest the LU errors only change sign; A * ones, and thus a solve's errors, does depend on
// the seed.
std::vector<double> matrix_tunable(std::size_t n, double cond, std::uint64_t seed);

// Two-sided scaling for a low-precision LU (lopez2022 section 6.2 following higham2019:
// Higham, Pranesh & Zounon, SISC 41(4), 2019):
// A_scaled = mu * diag(row) A diag(col); solve A x = b as A_scaled y = scale_rhs(b), x = C y.
struct MatrixScaling {
  std::vector<double> row, col;  // powers of two; 1 for a zero row or column
  double mu = 1;                 // power of two
  int sweeps = 0;                // row-then-column passes made (1: the result is already a fixed point)
};
// higham2019's row-then-column equilibration (rows by their max, then columns of the
// result by theirs; not their symmetry-preserving Knight-Ruiz-Ucar iteration), each factor
// rounded to a power of two, then mu = the largest power of two with max |entry| <= theta x_max
// (x_max 65504 for "fp16", 2^128 (1 - 2^-24) for "fp32"). A is scaled in place, in binary64.
// Guarantees: every nonzero row and column of diag(row) A diag(col) has its max |entry| in
// [1/2, 1), so the scaled A has them in [mu / 2, mu) and its largest entry in
// (theta x_max / 2, theta x_max]; each entry is the original times mu row_i col_j exactly. Both
// hold while no scaled entry falls below 2^-1022 (binary64's normal range) and no row or column
// max is below 2^-1024 (its factor would overflow: it is capped at 2^1023). Throws
// std::invalid_argument for A.size() != n * n, a non-finite entry (named A[i][j]), an unknown
// target or theta outside (0, 1].
MatrixScaling scale_matrix(std::size_t n, std::vector<double>& A, const std::string& target, double theta = 0.1);
std::vector<double> scale_rhs(const MatrixScaling& s, std::span<const double> b);          // mu R b
std::vector<double> unscale_solution(const MatrixScaling& s, std::span<const double> y);  // C y

}  // namespace tcsim::models
