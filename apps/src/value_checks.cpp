// The validation layer shared by the CLI and the Python package (value_checks.hpp).
#include "value_checks.hpp"

#include <charconv>
#include <cctype>
#include <cmath>
#include <stdexcept>
#include <cstdio>

#include "tcsim/sim/codec.hpp"

namespace tcsim::checks {

GivenValue given_value(double x) {
  GivenValue v;
  v.nan = std::isnan(x);
  v.inf = std::isinf(x);
  v.zero = x == 0;
  v.negative = !v.nan && std::signbit(x) && !v.zero;
  v.magnitude = std::fabs(x);
  return v;
}

std::string allowed_values(const Format& fmt, std::string_view patterns) {
  const std::string largest = decode(fmt, fmt.max_finite(false)).to_hex();
  std::string range;
  if (fmt.is_signed) range = "finite values up to " + largest + " in magnitude";
  else if (fmt.has_zero) range = "non-negative finite values up to " + largest;
  else range = "positive finite values from " + decode(fmt, 0).to_hex() + " up to " + largest;
  return "; allowed: " + range + (fmt.infinities ? ", inf" : "") + (fmt.has_nan() ? ", nan" : "") +
         (patterns.empty() ? std::string() : ", or " + std::string(patterns));
}

namespace {

// A saturating format (the OCP fp6/fp4 formats) rounds every value beyond its range to the
// largest finite one; what a non-saturating format would overflow (half an ulp above the
// largest, and more) is out of its range all the same.
bool saturated(const Format& fmt, const GivenValue& v) {
  if (!fmt.saturate || v.nan || v.inf || v.zero) return false;
  const double threshold =
      std::ldexp(static_cast<double>(fmt.max_finite_significand()) + 0.5, fmt.emax - fmt.fraction_bits);
  return v.magnitude >= threshold;
}

}  // namespace

bool value_fits(const Format& fmt, const GivenValue& v, std::uint64_t rounded) {
  if (saturated(fmt, v)) return false;
  if (v.nan) return fmt.has_nan();
  if (v.inf) return fmt.infinities && (fmt.is_signed || !v.negative);
  if (v.zero) return fmt.has_zero;
  if (v.negative && !fmt.is_signed) return false;
  const FpClass c = classify(fmt, rounded);
  return c != FpClass::Infinity && c != FpClass::NaN;
}

std::string value_refusal(const Format& fmt, const GivenValue& v, std::uint64_t rounded, std::string_view field,
                          std::string_view text, std::string_view patterns) {
  if (value_fits(fmt, v, rounded)) return "";
  const std::string head = std::string(field) + " = " + std::string(text);
  const std::string allowed = allowed_values(fmt, patterns);
  if (v.nan) return head + ": " + fmt.name + " has no NaN" + allowed;
  if (v.inf && !fmt.infinities) return head + ": " + fmt.name + " has no infinities" + allowed;
  if (v.zero) return head + ": " + fmt.name + " has no zero" + allowed;
  if (v.negative && !fmt.is_signed) return head + ": " + fmt.name + " is unsigned (no negative values)" + allowed;
  if (saturated(fmt, v))
    return head + " is out of the range of " + fmt.name + " (it would saturate to " +
           decode(fmt, fmt.max_finite(false)).to_hex() + ")" + allowed;
  return head + " is out of the range of " + fmt.name + " (it would become " +
         (classify(fmt, rounded) == FpClass::NaN ? "NaN" : "Inf") + ")" + allowed;
}

Rounding rounding_word(std::string_view text, std::string_view field, std::initializer_list<Rounding> allowed) {
  std::string list;
  for (Rounding r : allowed) list += (list.empty() ? "" : ", ") + to_string(r);
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool known = lower == "rne" || lower == "rn" || lower == "rz" || lower == "ru" || lower == "rd" ||
                     lower == "ro" || lower == "sr";
  if (known) {
    const Rounding r = parse_rounding(lower, field);
    for (Rounding a : allowed)
      if (a == r) return r;
  }
  throw std::invalid_argument(std::string(field) + ": '" + std::string(text) + "' is not allowed" +
                              (lower == "sr" && allowed.size() == kConversionRoundings.size()
                                   ? " (stochastic rounding needs random bits a conversion does not have)"
                                   : "") +
                              "; allowed: " + list);
}

std::string nonfinite_refusal(std::string_view entry, double x) {
  if (std::isfinite(x)) return "";
  return std::string(entry) + " is " + (std::isnan(x) ? "nan" : x > 0 ? "inf" : "-inf") + "; allowed: finite values";
}

std::string magnitude_refusal(std::string_view entry, double x, double largest, std::string_view what) {
  if (!(std::fabs(x) > largest)) return "";
  char text[64], limit[64];
  std::snprintf(text, sizeof text, "%.17g", x);
  std::snprintf(limit, sizeof limit, "%.17g", largest);
  return std::string(entry) + " = " + text + " is out of the range of " + std::string(what) + "; allowed: |value| <= " +
         limit;
}

std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out;
}

std::string quoted(std::string_view text) { return "'" + one_line(text) + "'"; }

std::string value_text(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

}  // namespace tcsim::checks
