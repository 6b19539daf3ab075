// Exact values: construction, normalization, exact sum/product, hex text.
#include "tcsim/sim/exact.hpp"

#include <algorithm>
#include <stdexcept>

namespace tcsim {

std::int64_t msb(const BigInt& n) {
  if (n <= 0) throw std::invalid_argument("msb: argument must be > 0");
  return static_cast<std::int64_t>(boost::multiprecision::msb(n));
}

ExactValue ExactValue::finite(bool negative, BigInt sig, std::int64_t exp) {
  if (sig == 0) return zero(negative);
  if (sig < 0) {  // a negative significand flips the sign, so callers may pass signed sums
    sig = -sig;
    negative = !negative;
  }
  return {ValueKind::Finite, negative, std::move(sig), exp};
}

std::int64_t ExactValue::lead_exponent() const {
  if (!is_finite()) throw std::invalid_argument("lead_exponent: value is not finite");
  return msb(significand) + exponent;
}

ExactValue ExactValue::normalized() const {
  if (!is_finite()) return {kind, negative, 0, 0};
  const auto tz = static_cast<std::int64_t>(boost::multiprecision::lsb(significand));
  return {kind, negative, significand >> tz, exponent + tz};
}

std::string ExactValue::to_hex() const {
  const std::string sign = negative ? "-" : "";
  switch (kind) {
    case ValueKind::NaN: return "nan";
    case ValueKind::Infinity: return sign + "inf";
    case ValueKind::Zero: return sign + "0x0p+0";
    case ValueKind::Finite: break;
  }
  const ExactValue n = normalized();
  const std::int64_t top = msb(n.significand);
  // Fraction below the leading 1, padded to whole hex digits.
  const std::int64_t digits = (top + 3) / 4;
  BigInt frac = n.significand - (BigInt(1) << top);
  frac <<= static_cast<unsigned>(digits * 4 - top);
  std::string text = sign + "0x1";
  if (digits > 0) {
    std::string hex;
    for (std::int64_t i = 0; i < digits; ++i) {
      hex.insert(hex.begin(), "0123456789abcdef"[static_cast<int>(frac & 15)]);
      frac >>= 4;
    }
    while (!hex.empty() && hex.back() == '0') hex.pop_back();
    if (!hex.empty()) text += "." + hex;
  }
  const std::int64_t e = n.exponent + top;
  return text + "p" + (e >= 0 ? "+" : "") + std::to_string(e);
}

bool ExactValue::equals(const ExactValue& o) const {
  if (is_nan() || o.is_nan()) return false;
  if (kind != o.kind) return false;
  if (is_zero()) return true;
  if (negative != o.negative) return false;
  if (is_inf()) return true;
  const ExactValue a = normalized(), b = o.normalized();
  return a.exponent == b.exponent && a.significand == b.significand;
}

ExactValue exact_add(const ExactValue& x, const ExactValue& y) {
  if (x.is_nan() || y.is_nan()) return ExactValue::nan();
  if (x.is_inf() && y.is_inf()) return x.negative == y.negative ? x : ExactValue::nan();
  if (x.is_inf()) return x;
  if (y.is_inf()) return y;
  // IEEE sign of an exact zero sum (round to nearest): -0 only for (-0) + (-0).
  if (x.is_zero() && y.is_zero()) return ExactValue::zero(x.negative && y.negative);
  if (x.is_zero()) return y;
  if (y.is_zero()) return x;
  const std::int64_t e = std::min(x.exponent, y.exponent);
  BigInt a = x.significand << static_cast<unsigned>(x.exponent - e);
  BigInt b = y.significand << static_cast<unsigned>(y.exponent - e);
  if (x.negative) a = -a;
  if (y.negative) b = -b;
  BigInt s = a + b;
  if (s == 0) return ExactValue::zero(false);
  return ExactValue::finite(false, std::move(s), e);
}

ExactValue exact_mul(const ExactValue& x, const ExactValue& y) {
  if (x.is_nan() || y.is_nan()) return ExactValue::nan();
  const bool neg = x.negative != y.negative;
  if ((x.is_inf() && y.is_zero()) || (x.is_zero() && y.is_inf())) return ExactValue::nan();
  if (x.is_inf() || y.is_inf()) return ExactValue::infinity(neg);
  if (x.is_zero() || y.is_zero()) return ExactValue::zero(neg);
  return ExactValue::finite(neg, x.significand * y.significand, x.exponent + y.exponent);
}

int compare_magnitude(const ExactValue& x, const ExactValue& y) {
  if (!(x.is_finite() || x.is_zero()) || !(y.is_finite() || y.is_zero()))
    throw std::invalid_argument("compare_magnitude: operands must be finite or zero");
  if (x.is_zero() || y.is_zero()) return (x.is_zero() ? 0 : 1) - (y.is_zero() ? 0 : 1);
  const std::int64_t lx = x.lead_exponent(), ly = y.lead_exponent();
  if (lx != ly) return lx < ly ? -1 : 1;
  const std::int64_t e = std::min(x.exponent, y.exponent);
  const BigInt a = x.significand << static_cast<unsigned>(x.exponent - e);
  const BigInt b = y.significand << static_cast<unsigned>(y.exponent - e);
  return a < b ? -1 : (a > b ? 1 : 0);
}

}  // namespace tcsim
