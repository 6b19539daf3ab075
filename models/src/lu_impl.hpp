// Private helpers of the LU files: the precisions their scalar operations round to.
#pragma once
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

}  // namespace tcsim::models::lu_detail
