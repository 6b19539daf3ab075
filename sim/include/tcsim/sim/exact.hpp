// Exact values: (-1)^negative * significand * 2^exponent with an unbounded integer
// significand, plus zero, infinity and NaN. The currency of every exact path in tcsim.
#pragma once
#include <boost/multiprecision/cpp_int.hpp>
#include <cstdint>
#include <string>

namespace tcsim {

using BigInt = boost::multiprecision::cpp_int;

enum class ValueKind { Zero, Finite, Infinity, NaN };

struct ExactValue {
  ValueKind kind = ValueKind::Zero;
  bool negative = false;
  BigInt significand = 0;     // > 0 when Finite (not necessarily odd or normalized)
  std::int64_t exponent = 0;  // value = significand * 2^exponent

  static ExactValue zero(bool negative = false) { return {ValueKind::Zero, negative, 0, 0}; }
  static ExactValue infinity(bool negative) { return {ValueKind::Infinity, negative, 0, 0}; }
  static ExactValue nan() { return {ValueKind::NaN, false, 0, 0}; }
  // Finite value sig * 2^exp (zero when sig == 0).
  static ExactValue finite(bool negative, BigInt sig, std::int64_t exp);

  bool is_zero() const { return kind == ValueKind::Zero; }
  bool is_finite() const { return kind == ValueKind::Finite; }
  bool is_inf() const { return kind == ValueKind::Infinity; }
  bool is_nan() const { return kind == ValueKind::NaN; }

  // Exponent of the leading bit: 2^lead <= |x| < 2^(lead+1). Finite only.
  std::int64_t lead_exponent() const;
  // Strips trailing zero bits from the significand (canonical form for comparisons).
  ExactValue normalized() const;
  // Exact C99 hex-float text, e.g. "-0x1.8p-3", "inf", "nan".
  std::string to_hex() const;
  // Exact equality of values (+0 == -0; NaN != NaN).
  bool equals(const ExactValue& o) const;
};

// Exact sum and product (no rounding).
ExactValue exact_add(const ExactValue& x, const ExactValue& y);
ExactValue exact_mul(const ExactValue& x, const ExactValue& y);
// Compares |x| and |y| for finite or zero values: -1, 0, 1.
int compare_magnitude(const ExactValue& x, const ExactValue& y);
// Index of the most significant set bit of n > 0.
std::int64_t msb(const BigInt& n);

}  // namespace tcsim
