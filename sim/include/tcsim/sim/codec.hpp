// Decoding bit patterns to exact values, classification, pattern validity.
#pragma once
#include <cstdint>
#include <string>

#include "tcsim/sim/exact.hpp"
#include "tcsim/sim/format.hpp"

namespace tcsim {

enum class FpClass { Zero, Subnormal, Normal, Infinity, NaN };

// Sign, integer significand and exponent of a finite pattern: value = (-1)^s * m * 2^e
// with m < 2^precision. For subnormals e = emin - (precision-1) and m < 2^(precision-1).
struct Decoded {
  FpClass cls = FpClass::Zero;
  bool negative = false;
  std::uint64_t significand = 0;
  int exponent = 0;
};

// Throws std::invalid_argument when `bits` has bits set above the format's width.
void check_pattern(const Format& fmt, std::uint64_t bits, std::string_view field = "bits");
Decoded decode_parts(const Format& fmt, std::uint64_t bits);
FpClass classify(const Format& fmt, std::uint64_t bits);
ExactValue decode(const Format& fmt, std::uint64_t bits);
std::string to_string(FpClass c);

// Hex text of a pattern padded to the format's width, e.g. "0x3f800000".
std::string bits_to_hex(const Format& fmt, std::uint64_t bits);

// Host conversions for display and for differential tests only (never on the exact path).
double to_double(const ExactValue& v);  // RNE into binary64 through round_to_format
std::uint64_t bits_of_double(double d);
std::uint32_t bits_of_float(float f);
float float_of_bits(std::uint32_t b);
double double_of_bits(std::uint64_t b);

}  // namespace tcsim
