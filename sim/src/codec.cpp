// Decoding bit patterns into exact values and classes.
//
// Conventions beyond IEEE 754:
//  - FNUZ (NanEncoding::NegativeZero): the -0 pattern is the only NaN; there is no -0;
//  - ue8m0 (no zero): field 0 is the normal number 2^emin;
//  - a format without subnormals reads field 0 with a nonzero fraction as a signed zero
//    (denormals-are-zero); rounding never produces such patterns;
//  - fields above the ones the encoding uses (only in user formats whose exponent range
//    does not fill the exponent field) read as NaN; rounding never produces them.
#include "tcsim/sim/codec.hpp"

#include <bit>
#include <cstdio>
#include <stdexcept>

#include "tcsim/sim/rounding.hpp"

namespace tcsim {

void check_pattern(const Format& fmt, std::uint64_t bits, std::string_view field) {
  if ((bits & ~fmt.width_mask()) != 0) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(bits));
    throw std::invalid_argument(std::string(field) + " " + buf + " has bits set above the " +
                                std::to_string(fmt.width) + "-bit width of format '" + fmt.name + "'");
  }
}

Decoded decode_parts(const Format& fmt, std::uint64_t bits) {
  check_pattern(fmt, bits);
  Decoded d;
  d.negative = fmt.is_signed && (bits & fmt.sign_mask()) != 0;
  const int fb = fmt.fraction_bits;
  const std::uint64_t frac = fb == 0 ? 0 : bits & ((std::uint64_t{1} << fb) - 1);
  const std::uint64_t field_mask = (std::uint64_t{1} << fmt.exponent_bits) - 1;
  const auto field = static_cast<std::int64_t>(fb == 64 ? 0 : (bits >> fb) & field_mask);
  const std::int64_t top = fmt.max_finite_field();
  const std::uint64_t implicit = std::uint64_t{1} << fb;

  auto nan = [&] {
    d.cls = FpClass::NaN;
    return d;
  };
  if (fmt.nan == NanEncoding::NegativeZero && bits == fmt.sign_mask()) return nan();
  if (field > top) {
    if (fmt.nan == NanEncoding::Ieee && field == top + 1 && frac == 0 && fmt.infinities) {
      d.cls = FpClass::Infinity;
      return d;
    }
    return nan();
  }
  if (fmt.nan == NanEncoding::AllOnes && fb > 0 && field == top && frac == implicit - 1) return nan();
  if (field == 0 && fmt.has_zero) {
    if (frac == 0 || !fmt.subnormals) {
      d.cls = FpClass::Zero;
      if (fmt.nan == NanEncoding::NegativeZero) d.negative = false;
      return d;
    }
    d.cls = FpClass::Subnormal;
    d.significand = frac;
    d.exponent = fmt.emin - fb;
    return d;
  }
  d.cls = FpClass::Normal;
  d.significand = implicit | frac;
  d.exponent = static_cast<int>(field - fmt.bias - fb);
  return d;
}

FpClass classify(const Format& fmt, std::uint64_t bits) { return decode_parts(fmt, bits).cls; }

ExactValue decode(const Format& fmt, std::uint64_t bits) {
  const Decoded d = decode_parts(fmt, bits);
  switch (d.cls) {
    case FpClass::Zero: return ExactValue::zero(d.negative);
    case FpClass::Infinity: return ExactValue::infinity(d.negative);
    case FpClass::NaN: return ExactValue::nan();
    case FpClass::Subnormal:
    case FpClass::Normal: break;
  }
  return ExactValue::finite(d.negative, BigInt(d.significand), d.exponent);
}

std::string to_string(FpClass c) {
  switch (c) {
    case FpClass::Zero: return "zero";
    case FpClass::Subnormal: return "subnormal";
    case FpClass::Normal: return "normal";
    case FpClass::Infinity: return "infinity";
    case FpClass::NaN: return "nan";
  }
  return "?";
}

std::string bits_to_hex(const Format& fmt, std::uint64_t bits) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "0x%0*llx", (fmt.width + 3) / 4, static_cast<unsigned long long>(bits));
  return buf;
}

double to_double(const ExactValue& v) {
  RoundingOptions o;  // RNE, IEEE overflow to Inf
  return double_of_bits(round_to_format(v, formats::fp64(), o).bits);
}
std::uint64_t bits_of_double(double d) { return std::bit_cast<std::uint64_t>(d); }
std::uint32_t bits_of_float(float f) { return std::bit_cast<std::uint32_t>(f); }
float float_of_bits(std::uint32_t b) { return std::bit_cast<float>(b); }
double double_of_bits(std::uint64_t b) { return std::bit_cast<double>(b); }

}  // namespace tcsim
