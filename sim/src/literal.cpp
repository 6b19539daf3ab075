// Numeric literals: parsed exactly, then rounded once by round_to_format.
//
// Decimal N * 10^-m is not a dyadic value, so it is replaced by a dyadic stand-in that
// rounds identically in every mode: Q = floor(N * 2^s / 10^m) with far more bits than
// the format keeps, plus a sticky half-unit when the division is inexact (round to odd).
// With >= 66 extra bits below any quantum the stand-in lies in the same open interval
// between rounding boundaries as the true value, stochastic thresholds included.
// Values far outside a format's range are replaced by a power of two that is equally far
// outside, so "1e999999999" does not build a billion-digit integer.
#include "tcsim/sim/literal.hpp"

#include <cctype>
#include <optional>
#include <stdexcept>

#include "tcsim/sim/exact.hpp"

namespace tcsim {
namespace {

constexpr std::int64_t kExponentClamp = std::int64_t{1} << 40;  // beyond any format's range

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

int digit_value(char c, int base) {
  int v = -1;
  if (c >= '0' && c <= '9') v = c - '0';
  else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
  else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
  return v < base ? v : -1;
}

// Digits with an optional point: the integer they spell and the count after the point.
struct Mantissa {
  BigInt value = 0;
  std::int64_t fraction_digits = 0;
  std::int64_t significant_digits = 0;  // digits from the first nonzero one on
};

std::optional<Mantissa> parse_mantissa(std::string_view& s, int base) {
  Mantissa m;
  bool point = false, any = false;
  while (!s.empty()) {
    const char c = s.front();
    if (c == '.') {
      if (point) return std::nullopt;
      point = true;
    } else {
      const int d = digit_value(c, base);
      if (d < 0) break;
      any = true;
      m.value = m.value * base + d;
      if (m.value != 0) ++m.significant_digits;
      if (point) ++m.fraction_digits;
    }
    s.remove_prefix(1);
  }
  if (!any) return std::nullopt;
  return m;
}

// Optional sign and decimal digits, clamped (the value is out of every range anyway).
std::optional<std::int64_t> parse_exponent(std::string_view s) {
  bool neg = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    neg = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  std::int64_t e = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    e = std::min<std::int64_t>(e * 10 + (c - '0'), kExponentClamp);
  }
  return neg ? -e : e;
}

// What follows the digits: nothing (exponent 0) or `letter` (either case) and an exponent.
std::optional<std::int64_t> parse_exponent_suffix(std::string_view s, char letter) {
  if (s.empty()) return 0;
  if (s.front() != letter && s.front() != letter - 'a' + 'A') return std::nullopt;
  return parse_exponent(s.substr(1));
}

std::optional<ExactValue> parse_hex(std::string_view s, bool neg) {
  auto m = parse_mantissa(s, 16);
  if (!m) return std::nullopt;
  const auto e = parse_exponent_suffix(s, 'p');
  if (!e) return std::nullopt;
  return ExactValue::finite(neg, m->value, *e - 4 * m->fraction_digits);
}

std::optional<ExactValue> parse_decimal(std::string_view s, bool neg, const Format& fmt) {
  auto m = parse_mantissa(s, 10);
  if (!m) return std::nullopt;
  const auto pe = parse_exponent_suffix(s, 'e');
  if (!pe) return std::nullopt;
  std::int64_t e10 = *pe;
  if (m->value == 0) return ExactValue::zero(neg);
  e10 -= m->fraction_digits;
  // 10^d10 <= |x| < 10^(d10+1), and 2^(3k) <= 10^k for k >= 0, 10^k <= 2^(3k) for k <= 0.
  const std::int64_t d10 = e10 + m->significant_digits - 1;
  if (3 * d10 > fmt.emax + 8) return ExactValue::finite(neg, 1, fmt.emax + 8);
  const std::int64_t far_below = static_cast<std::int64_t>(fmt.emin) - fmt.precision - 200;
  if (3 * (d10 + 1) < far_below) return ExactValue::finite(neg, 1, far_below);
  if (e10 >= 0) {
    const BigInt p10 = boost::multiprecision::pow(BigInt(10), static_cast<unsigned>(e10));
    return ExactValue::finite(neg, m->value * p10, 0);
  }
  const BigInt den = boost::multiprecision::pow(BigInt(10), static_cast<unsigned>(-e10));
  // Enough quotient bits: precision + 66 extra (stochastic rounding reads 64 of them).
  const std::int64_t want = fmt.precision + 70;
  std::int64_t shift = msb(den) - msb(m->value) + want;
  if (shift < 0) shift = 0;
  const BigInt num = m->value << static_cast<unsigned>(shift);
  BigInt q, r;
  boost::multiprecision::divide_qr(num, den, q, r);
  const BigInt sig = (q << 1) | BigInt(r != 0 ? 1 : 0);
  return ExactValue::finite(neg, sig, -shift - 1);
}

[[noreturn]] void not_a_number(std::string_view field, std::string_view text) {
  throw std::invalid_argument(std::string(field) + " '" + std::string(text) +
                              "' is not a number (decimal, C99 hex-float such as 0x1p-24, inf or nan)");
}

std::uint64_t parse_bits(std::string_view body, std::string_view text, const Format& fmt, std::string_view field) {
  int base = 10;
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) base = 16, body.remove_prefix(2);
  else if (body.size() > 2 && body[0] == '0' && (body[1] == 'b' || body[1] == 'B')) base = 2, body.remove_prefix(2);
  std::uint64_t v = 0;
  bool ok = !body.empty();
  for (char c : body) {
    const int d = digit_value(c, base);
    if (d < 0 || v > (~std::uint64_t{0} - static_cast<std::uint64_t>(d)) / static_cast<std::uint64_t>(base)) {
      ok = false;
      break;
    }
    v = v * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(d);
  }
  if (!ok)
    throw std::invalid_argument(std::string(field) + " '" + std::string(text) +
                                "' is not a bit pattern (bits:0x<hex>, bits:0b<binary> or bits:<decimal>)");
  if ((v & ~fmt.width_mask()) != 0)
    throw std::invalid_argument(std::string(field) + " '" + std::string(text) + "' has bits set above the " +
                                std::to_string(fmt.width) + "-bit width of format '" + fmt.name + "'");
  return v;
}

// The exact value of a literal, or nullopt when malformed. Raw bit patterns are handled
// by the callers.
std::optional<ExactValue> parse_value(std::string_view s, const Format& fmt) {
  bool neg = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    neg = s.front() == '-';
    s.remove_prefix(1);
  }
  if (iequals(s, "inf") || iequals(s, "infinity")) return ExactValue::infinity(neg);
  if (iequals(s, "nan")) return ExactValue::nan();
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) return parse_hex(s.substr(2), neg);
  return parse_decimal(s, neg, fmt);
}

bool is_bits_literal(std::string_view s) { return s.size() >= 5 && iequals(s.substr(0, 5), "bits:"); }

}  // namespace

std::uint64_t parse_literal(std::string_view text, const Format& fmt, Rounding mode, std::string_view field) {
  const std::string_view s = trim(text);
  if (is_bits_literal(s)) return parse_bits(trim(s.substr(5)), text, fmt, field);
  const auto v = parse_value(s, fmt);
  if (!v) not_a_number(field, text);
  RoundingOptions o;
  o.mode = mode;
  return round_to_format(*v, fmt, o).bits;
}

std::vector<std::uint64_t> parse_literal_list(std::string_view text, const Format& fmt, Rounding mode,
                                              std::string_view field) {
  std::vector<std::uint64_t> out;
  std::size_t start = 0;
  for (std::size_t i = 0;; ++i) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    out.push_back(parse_literal(item, fmt, mode, std::string(field) + "[" + std::to_string(i) + "]"));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

bool literal_is_exact(std::string_view text, const Format& fmt) {
  const std::string_view s = trim(text);
  if (is_bits_literal(s)) {
    try {
      parse_bits(trim(s.substr(5)), text, fmt, "value");
      return true;
    } catch (const std::invalid_argument&) {
      return false;
    }
  }
  const auto v = parse_value(s, fmt);
  if (!v) return false;
  if (v->is_nan()) return fmt.has_nan();
  RoundingOptions o;
  const RoundResult r = round_to_format(*v, fmt, o);
  return !r.inexact && !r.overflow && !r.invalid;
}

}  // namespace tcsim
