// Private to sim/src: the block kernel's integer field decoding (block_kernel.cpp,
// block_kernel_impl.cpp): the decoded operand and the alignment rounding of one term, as
// gather() and align() of adder.cpp do them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "tcsim/sim/format.hpp"
#include "tcsim/sim/rounding.hpp"

namespace tcsim::block_fields {

// Integer decoding of a format whose encoding is the standard one (sign bit, exponent
// field with bias, precision-1 fraction bits; the top field holds Inf/NaN for IEEE NaNs).
struct FieldCodec {
  std::uint64_t width_mask = 0, sign_mask = 0, frac_mask = 0;
  int precision = 0, exp_bits = 0, bias = 0, emin = 0, emax = 0;
  unsigned top_field = 0;
  NanEncoding nan = NanEncoding::Ieee;
  std::uint64_t max_finite_significand = 0;  // at emax, implicit bit included
};

// Why `f` (`role` names it: a, b, c, output) cannot take the int64 kernel's decoding, or nothing.
std::optional<std::string> codec_unsupported(const Format& f, const char* role);
FieldCodec make_codec(const Format& f);

enum class Kind : std::uint8_t { Zero, Finite, Special };

// value = (-1)^negative * sig * 2^lsb; eref = the exponent the adder aligns on (emin for
// subnormals, as gather() does).
struct Operand {
  std::uint64_t sig = 0;
  int lsb = 0;
  int eref = 0;
  bool negative = false;
  Kind kind = Kind::Zero;
};

inline Operand decode_fields(const FieldCodec& f, std::uint64_t bits, bool keep_subnormals) {
  Operand o;
  o.negative = (bits & f.sign_mask) != 0;
  const unsigned field = static_cast<unsigned>(bits >> (f.precision - 1)) & f.top_field;
  const std::uint64_t frac = bits & f.frac_mask;
  if (field == 0) {
    if (frac == 0 || !keep_subnormals) return o;  // zero, or a flushed subnormal: a signed zero
    o.kind = Kind::Finite;
    o.sig = frac;
    o.lsb = f.emin - (f.precision - 1);
    o.eref = f.emin;
    return o;
  }
  if (field == f.top_field &&
      (f.nan == NanEncoding::Ieee || (f.nan == NanEncoding::AllOnes && frac == f.frac_mask))) {
    o.kind = Kind::Special;
    return o;
  }
  o.kind = Kind::Finite;
  o.sig = frac | (std::uint64_t{1} << (f.precision - 1));
  o.eref = static_cast<int>(field) - f.bias;
  o.lsb = o.eref - (f.precision - 1);
  return o;
}

// A term's magnitude in units of 2^lsb with the alignment rounding (align() in adder.cpp);
// `shift` = term lsb - register lsb.
inline std::uint64_t align_magnitude(std::uint64_t sig, std::int64_t shift, bool negative, Rounding mode) {
  if (shift >= 0) return sig << shift;
  const std::int64_t s = -shift;
  std::uint64_t kept, rem;
  int half_cmp;  // dropped part vs half a unit: -1, 0, 1
  if (s >= 64) {
    kept = 0;
    rem = sig;
    half_cmp = -1;  // sig < 2^63 <= 2^(s-1)
  } else {
    kept = sig >> s;
    rem = sig & ((std::uint64_t{1} << s) - 1);
    const std::uint64_t half = std::uint64_t{1} << (s - 1);
    half_cmp = rem < half ? -1 : (rem == half ? 0 : 1);
  }
  if (rem == 0) return kept;
  switch (mode) {
    case Rounding::Down: return kept + (negative ? 1 : 0);
    case Rounding::Up: return kept + (negative ? 0 : 1);
    case Rounding::NearestEven: return kept + ((half_cmp > 0 || (half_cmp == 0 && (kept & 1))) ? 1 : 0);
    default: return kept;  // TowardZero
  }
}

}  // namespace tcsim::block_fields
