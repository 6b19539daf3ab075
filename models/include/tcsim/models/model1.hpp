// mary2024's Model 1: a mixed precision matrix multiply-accumulate unit as that paper's
// experiments simulate it (section 5.1, with CPFloat): inputs rounded to an input format,
// each inner product computed in an accumulation format with every product and every
// addition rounded to nearest (eq. (2.3), (2.4)), in k order. Formats are narrow (their own
// exponent range, subnormals on or off) or have an unbounded exponent range (the paper's
// twin that tells range errors from precision errors).
//
// This is not a tensor-core unit (those are models::Unit); it is the model the paper's
// error analysis assumes. It runs on binary64 host arithmetic: a product of two inputs
// (at most 2 x 24 significant bits) is exact in binary64, and a binary64 sum rounded once
// more to at most 24 bits is the correctly rounded sum (double rounding is innocuous when
// 53 >= 2T + 2, Figueroa 1995), so every step is the correctly rounded one.
// models/tests/test_model1.cpp checks model1_round against sim's exact rounding step.
#pragma once
#include <cstddef>
#include <span>
#include <vector>

#include "tcsim/sim/format.hpp"

namespace tcsim::models {

// A format as Model 1 rounds into it.
struct Model1Format {
  int precision = 0;        // t (with the implicit bit), 2..24
  int emin = 0;             // smallest normal 2^emin
  double fmax = 0;          // largest finite value (448 for OCP E4M3)
  bool subnormals = true;   // false: results below 2^emin round to 0 or 2^emin
  bool bounded = true;      // false: unbounded exponent range (no underflow, no overflow)
};

// `fmt`'s precision and range; `subnormals` overrides the format's flag (mary2024 section 5
// switches subnormals off for any format). Throws std::invalid_argument naming `field` for a
// precision outside 2..24 (the binary64 emulation is exact only there).
Model1Format model1_format(const Format& fmt, bool subnormals, bool bounded, const char* field = "format");

// x rounded to nearest, ties to even, into f. Finite x only. Beyond fmax (after rounding,
// IEEE 754 7.4): +-Inf, which Model 1's scaling rules out.
double model1_round(double x, const Model1Format& f);

struct Model1Options {
  int words = 1;            // p: A and B split into p words (mary2024 eq. (4.29)-(4.31))
  bool subnormals = true;   // both formats
  bool bounded = true;      // false: both formats with unbounded exponent range
  unsigned threads = 0;     // 0: all cores; the result does not depend on it
};

// C = A B (A m x k, B k x n, row-major binary64) on Model 1 with the power-of-two scaling of
// mary2024 eq. (3.1)-(3.4) (theta = min(f_max, sqrt(F_max / k)), theta from the bounded
// formats in both cases, so narrow and unbounded runs see the same scaled inputs). With p
// words, A^(i) = fl((Lambda A - sum_{l<i} u^l A^(l)) / u^i) and likewise for B; each product
// P_ij = A^(i) B^(j) with i + j < p is an inner product in the accumulation format from 0,
// then D = sum u^(i+j) P_ij is summed in the accumulation format, smallest i + j first
// (eq. (4.31)), and C = Lambda^-1 D M^-1 in binary64. Throws std::invalid_argument naming
// the field (sizes, words outside 1..3, formats).
std::vector<double> model1_gemm(const Format& in, const Format& acc, std::size_t m, std::size_t n, std::size_t k,
                                std::span<const double> A, std::span<const double> B, const Model1Options& options);

// The same for p = 1 .. max_words at once (they share the words and the products P_ij):
// result[p - 1] is model1_gemm with words = p.
std::vector<std::vector<double>> model1_gemm_words(const Format& in, const Format& acc, std::size_t m, std::size_t n,
                                                   std::size_t k, std::span<const double> A, std::span<const double> B,
                                                   int max_words, const Model1Options& options);

}  // namespace tcsim::models
