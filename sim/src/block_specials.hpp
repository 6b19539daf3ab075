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

// True for every NaN and Inf pattern of f (its top exponent field; FNUZ's NaN is -0's
// pattern); also for some finite patterns, which the caller then decodes in full.
inline bool maybe_special(const Format& f, std::uint64_t bits) {
  if (f.nan == NanEncoding::NegativeZero) return bits == f.sign_mask();
  const std::uint64_t top = (std::uint64_t{1} << f.exponent_bits) - 1;
  return ((bits >> f.fraction_bits) & top) == top;
}

// The result of a block whose c is NaN or Inf (a chain's accumulator after a special block),
// for kernels in which no finite product becomes Inf (product_overflow_inf unset): NaN for a
// NaN c; for an infinite c, Inf of its sign unless a product is NaN, Inf x 0 or an Inf of the
// other sign. Only the pairs holding a possible special pattern are decoded (`decode_a`,
// `decode_b`: the kernel's own decoding, as its block() reads them); the GEMMs' chains send
// every block after a special here, so the finite products are not decoded at all.
template <class BitsA, class BitsB, class DecodeA, class DecodeB>
std::uint64_t special_accumulator(bool c_nan, bool c_negative, std::size_t len, const Format& fa, const Format& fb,
                                  BitsA a_bits, BitsB b_bits, DecodeA decode_a, DecodeB decode_b,
                                  std::uint64_t nan_bits, const Format& out) {
  if (c_nan) return nan_bits;
  Facts facts;
  for (std::size_t t = 0; t < len; ++t) {
    const std::uint64_t x = a_bits(t), y = b_bits(t);
    if (maybe_special(fa, x) || maybe_special(fb, y)) facts.product(decode_a(x), decode_b(y));
  }
  facts.addend(FpClass::Infinity, c_negative);
  return *facts.special_result(nan_bits, out);
}

// adder.cpp zero_result() for binary32 outputs rounded to nearest (both kernels refuse other
// final roundings): an exact zero sum is -0 only when every term is -0 and zeros keep IEEE signs.
inline std::uint64_t zero_fp32_rne(const AdderConfig& cfg, bool all_negative) {
  return cfg.zero_sign != ZeroSign::Positive && all_negative ? 0x80000000u : 0u;
}

}  // namespace tcsim::block_specials
