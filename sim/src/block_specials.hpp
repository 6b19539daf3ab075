// The special-value and zero-sign facts of one block, as adder.cpp's gather() and zero_result()
// keep them, shared by the scalar blocks of AfterAddKernel and ExactBlockKernel (their operands
// carry one of the kinds below).
#pragma once
#include <cstdint>
#include <optional>

#include "tcsim/sim/adder.hpp"
#include "tcsim/sim/codec.hpp"

namespace tcsim::block_specials {

constexpr std::uint8_t kZero = 0, kFinite = 1, kInf = 2, kNaN = 3;

struct Facts {
  bool nan = false, pos_inf = false, neg_inf = false;
  bool all_neg = true;  // every term so far is -0

  // Notes x y's class; true when the product is finite and nonzero (the caller adds it).
  template <class Operand>
  bool product(const Operand& x, const Operand& y) {
    const bool neg = x.negative != y.negative;
    if (x.kind == kNaN || y.kind == kNaN) {
      nan = true;
      return false;
    }
    if (x.kind == kInf || y.kind == kInf) {
      if (x.kind == kZero || y.kind == kZero) nan = true;  // Inf x 0
      else (neg ? neg_inf : pos_inf) = true;
      all_neg = false;
      return false;
    }
    if (x.kind == kZero || y.kind == kZero) {
      if (!neg) all_neg = false;
      return false;
    }
    all_neg = false;
    return true;
  }

  // Notes c's class (a flushed subnormal c passed as a zero of its flushed sign); true when c
  // is finite and nonzero (the caller adds it).
  bool addend(FpClass cls, bool negative) {
    switch (cls) {
      case FpClass::NaN: nan = true; return false;
      case FpClass::Infinity:
        (negative ? neg_inf : pos_inf) = true;
        all_neg = false;
        return false;
      case FpClass::Zero:
        if (!negative) all_neg = false;
        return false;
      default: all_neg = false; return true;
    }
  }

  // The result when NaN or an infinity decides it: NaN for a NaN term or Inf - Inf, else the
  // signed infinity; nullopt when the sum decides.
  std::optional<std::uint64_t> special_result(std::uint64_t nan_bits, const Format& out) const {
    if (nan || (pos_inf && neg_inf)) return nan_bits;
    if (pos_inf || neg_inf) return out.infinity(neg_inf);
    return std::nullopt;
  }
};

// adder.cpp zero_result() for binary32 outputs rounded to nearest (both kernels refuse other
// final roundings): an exact zero sum is -0 only when every term is -0 and zeros keep IEEE signs.
inline std::uint64_t zero_fp32_rne(const AdderConfig& cfg, bool all_negative) {
  return cfg.zero_sign != ZeroSign::Positive && all_negative ? 0x80000000u : 0u;
}

}  // namespace tcsim::block_specials
