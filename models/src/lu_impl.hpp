// Private helpers of the LU files: the precisions their scalar operations round to, the
// rounded axpy and the breakdown texts. Shared with the distributed LU (apps/dist/src), which
// must give the same bits and messages; every file that includes this one is compiled with
// -ffp-contract=off.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

#include "gemm_impl.hpp"

namespace tcsim::models::lu_detail {

// A precision of the LU algorithms: every scalar result rounded to it (RNE). Operands are
// values of the format held in binary64; a product, difference or quotient of two of them is
// computed in binary64 and rounded once more: innocuous double rounding, since 53 >= 2p + 2
// for p = 11 and p = 24 (Figueroa's condition for +, -, *, /); fp64 is binary64 itself (the LU
// sources are compiled with -ffp-contract=off: no fused operations).
struct Precision {
  int bits = 32;  // 16, 32 or 64
  double operator()(double x) const {
    return bits == 16 ? gemm_detail::round_binary16(x) : bits == 32 ? static_cast<double>(static_cast<float>(x)) : x;
  }
  double min_normal() const { return bits == 16 ? 0x1p-14 : bits == 32 ? 0x1p-126 : 0x1p-1022; }
  const char* name() const { return bits == 16 ? "fp16" : bits == 32 ? "fp32" : "fp64"; }
  double bytes() const { return bits / 8.0; }
};

inline Precision precision_named(std::string_view name, std::string_view field) {
  if (name == "fp16") return {16};
  if (name == "fp32") return {32};
  if (name == "fp64") return {64};
  throw std::invalid_argument(std::string(field) + ": '" + std::string(name) + "' is not allowed; allowed: fp16, fp32, fp64");
}

// Numbers in messages as %.9g, entries as A[i][j].
inline std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}
inline std::string at(std::size_t i, std::size_t c) { return "A[" + std::to_string(i) + "][" + std::to_string(c) + "]"; }

// row[c] <- fl(row[c] - fl(l * prow[c])) for c in [c0, c1): the rounding chosen outside the
// loop, so that the compiler vectorizes it (the same operations, element by element).
inline void axpy_rounded(Precision p, double* __restrict row, const double* __restrict prow, double l, std::size_t c0,
                         std::size_t c1) {
  auto run = [&](auto round) {
    for (std::size_t c = c0; c < c1; ++c) row[c] = round(row[c] - round(l * prow[c]));
  };
  if (p.bits == 16) run([](double x) { return gemm_detail::round_binary16(x); });
  else if (p.bits == 32) run([](double x) { return static_cast<double>(static_cast<float>(x)); });
  else run([](double x) { return x; });
}

// The message of a breakdown at step `step` (from 0) with blocks of r: "LU breakdown at step
// 3 (block 1): <what>".
inline std::string breakdown_message(std::size_t step, std::size_t r, const std::string& what) {
  return "LU breakdown at step " + std::to_string(step + 1) + " (block " + std::to_string(step / r + 1) + "): " + what;
}

// What is wrong with pivot U[j][j] = piv, zero, subnormal or not finite in p.
inline std::string pivot_problem(std::size_t j, double piv, Precision p, bool pivoting) {
  return "pivot U[" + std::to_string(j) + "][" + std::to_string(j) + "] = " + number(piv) +
         (piv == 0 ? " is zero"
                   : (std::isfinite(piv) ? " is below the normal range of " + std::string(p.name()) : " is not finite")) +
         (pivoting ? "" : " (no pivoting: try --pivot)");
}

}  // namespace tcsim::models::lu_detail
