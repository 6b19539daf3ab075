// Simulated LU factorization and solution of Ax = b on a tensor-core unit (issue 8).
//
// rl: the blocked right-looking LU of blanchard2020 Algorithm 4.1 (= lopez2022 Algorithm
// 3.1): per block column of r columns, the panel is factorized and the block row of U solved
// in the storage precision (every operation correctly rounded: a product, then a difference,
// then a quotient, never fused), then the trailing matrix is updated by
// A22 <- A22 - L21 U12 through simulate_gemm (the unit, with L21 and U12 rounded to the
// unit's input format: Algorithm 4.1 line 8) in the chosen variant of blanchard2020 Table 4.1,
// and the result is stored back in the storage precision.
//
// Storage: fp16 (u = u16) or fp32 (u = u32); by default fp16 for the fp16 and tc16 variants
// and fp32 for tc32 and fp32, as blanchard2020 Table 4.1 takes u. No pivoting by default (as
// in the papers); a zero, subnormal or non-finite pivot, and an overflow of the storage
// format, stop the factorization with LuBreakdown naming the step, the block and the value.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "tcsim/models/gemm.hpp"
#include "tcsim/models/unit.hpp"

namespace tcsim::models {

struct LuOptions {
  GemmVariant variant = GemmVariant::Tc32;  // the update GEMMs (fp16, tc16, tc32, fp32)
  std::string storage;                       // "fp16" | "fp32" | "" (from the variant)
  std::size_t block = 64;                    // r: columns per block column (>= 1)
  bool pivot = false;                        // partial pivoting (rows of the whole matrix)
  std::string instruction;                   // unit row of the update GEMMs
  unsigned threads = 0;                      // 0: all cores; the bits do not depend on it
};

struct LuResult {
  std::size_t n = 0;
  // n x n row-major values of the storage format: U on and above the diagonal, L's
  // multipliers below it (L has a unit diagonal).
  std::vector<double> LU;
  std::vector<std::size_t> perm;  // row i of LU is row perm[i] of A (identity without pivoting)
  std::string storage;            // format name
  std::string variant;            // variant_name of the updates
  std::string path;               // simulate_gemm's path of the updates ("kernel", "ieee", ...)
  std::size_t unit_calls = 0;     // update GEMMs run
};

// A factorization that cannot continue: what() names the step (column), the block and the value.
struct LuBreakdown : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A (n x n, row-major binary64 values) rounded to the storage format (RNE), then factorized.
// Throws std::invalid_argument naming the option (block 0, a variant the unit cannot run,
// storage not fp16/fp32, A of the wrong size), LuBreakdown as above.
LuResult simulate_lu(const Unit& unit, const Format& in, std::size_t n, std::span<const double> A,
                     const LuOptions& options = {});

// x solving L U x = P b by forward and back substitution in the storage precision of `lu`
// (each operation correctly rounded); b is rounded to that format first.
std::vector<double> lu_solve(const LuResult& lu, std::span<const double> b);

// Backward errors of a computed solution x of Ax = b with factors `lu`, in binary64:
// componentwise max_i |A x - b|_i / ((|A| + |L||U|) |x|)_i (blanchard2020 section 4.2; rows
// permuted as the factors are) and normwise ||A x - b||_inf / (||A||_inf ||x||_inf + ||b||_inf).
struct LuBackwardErrors {
  double componentwise = 0;
  double normwise = 0;
};
LuBackwardErrors lu_backward_errors(const LuResult& lu, std::span<const double> A, std::span<const double> x,
                                    std::span<const double> b);

// ---- Test matrices (seeded: the same matrix on every machine; no libm calls whose last bit
// may differ between systems).
// q1dq2 (blanchard2020 section 4.2): Q1 D Q2 with Haar-random orthogonal Q1, Q2 (Householder QR
// of Gaussian matrices, signs fixed by R's diagonal) and d_ii = cond^(-(i-1)/(n-1)).
std::vector<double> matrix_q1dq2(std::size_t n, double cond, std::uint64_t seed);
// hpl-ai (lopez2022 section 2.3): off-diagonal entries uniform in [0, 1), diagonal n.
std::vector<double> matrix_hpl_ai(std::size_t n, std::uint64_t seed);
// Entries uniform in [lo, hi) or standard normal.
std::vector<double> matrix_uniform(std::size_t n, double lo, double hi, std::uint64_t seed);
std::vector<double> matrix_normal(std::size_t n, std::uint64_t seed);

}  // namespace tcsim::models
