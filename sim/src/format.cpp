// Format validation, derived encoding and the built-in formats.
//
// Encoding rules (derived from the value set, never stored by hand):
//  - fraction_bits = precision - 1;
//  - bias = 1 - emin when the format has a zero (exponent field 0 holds zero and the
//    subnormals), bias = -emin when it has none (ue8m0: field 0 is 2^emin);
//  - the finite numbers use fields up to emax + bias; IEEE NaN encoding reserves the next
//    field for Inf/NaN; AllOnes with precision 1 (no fraction to spare) reserves it too,
//    otherwise AllOnes only takes the all-ones fraction of the top field (E4M3: 0x7F);
//  - exponent_bits = bits needed for the largest field; width = sign + exponent + fraction.
// Patterns whose field lies beyond the used range (possible only in user formats whose
// range does not fill the exponent field) decode as NaN and are never produced.
#include "tcsim/sim/format.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <stdexcept>
#include <utility>

#include "ascii_lower.hpp"

namespace tcsim {
namespace {

[[noreturn]] void fail(const Format& f, const std::string& what) {
  throw std::invalid_argument("format '" + f.name + "': " + what);
}

// Exponent fields above emax + bias that the encoding reserves for specials.
int reserved_fields(const Format& f) {
  if (f.nan == NanEncoding::Ieee) return 1;
  if (f.nan == NanEncoding::AllOnes && f.precision == 1) return 1;
  return 0;
}

}  // namespace

void Format::finalize() {
  if (name.empty()) fail(*this, "name must not be empty");
  if (precision < 1 || precision > 64)
    fail(*this, "precision must be 1..64, got " + std::to_string(precision));
  // Bounded so that exponent arithmetic on int64 never overflows anywhere in tcsim.
  constexpr int kLimit = 1 << 24;
  if (emin < -kLimit || emin > kLimit)
    fail(*this, "emin must be in -2^24..2^24, got " + std::to_string(emin));
  if (emax < -kLimit || emax > kLimit)
    fail(*this, "emax must be in -2^24..2^24, got " + std::to_string(emax));
  if (emin > emax)
    fail(*this, "emin must be <= emax, got emin " + std::to_string(emin) + " > emax " + std::to_string(emax));
  if (infinities && nan != NanEncoding::Ieee)
    fail(*this, "infinities require nan 'ieee' (Inf and NaN share the top exponent field), got nan '" +
                    to_string(nan) + "'");
  if (nan == NanEncoding::Ieee && precision < 2)
    fail(*this, "nan 'ieee' requires precision >= 2 (a NaN needs a nonzero fraction), got " +
                    std::to_string(precision));
  if (nan == NanEncoding::NegativeZero) {
    if (!is_signed) fail(*this, "nan 'negative_zero' requires a signed format (it is the pattern of -0)");
    if (infinities) fail(*this, "nan 'negative_zero' allows no infinities (FNUZ formats have none)");
    if (!has_zero) fail(*this, "nan 'negative_zero' requires has_zero (it is the pattern of -0)");
  }
  if (!has_zero && subnormals)
    fail(*this, "subnormals require has_zero (they share exponent field 0 with zero)");

  fraction_bits = precision - 1;
  bias = has_zero ? 1 - emin : -emin;
  const long long top = static_cast<long long>(emax) + bias + reserved_fields(*this);
  exponent_bits = static_cast<int>(std::bit_width(static_cast<unsigned long long>(top)));
  width = (is_signed ? 1 : 0) + exponent_bits + fraction_bits;
  if (width > 64)
    fail(*this, "width must be <= 64 bits, got " + std::to_string(width) + " (sign " +
                    std::to_string(is_signed ? 1 : 0) + " + exponent " + std::to_string(exponent_bits) +
                    " + fraction " + std::to_string(fraction_bits) + "); narrow emin..emax or precision");
  if (width < 1) fail(*this, "width must be >= 1 bit; widen emin..emax");
}

int Format::max_finite_field() const { return emax + bias; }

std::uint64_t Format::max_finite_significand() const {
  const std::uint64_t all = precision == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << precision) - 1;
  // AllOnes NaN takes the last significand of the top field unless a whole field is reserved.
  if (nan == NanEncoding::AllOnes && precision > 1) return all - 1;
  return all;
}

std::uint64_t Format::canonical_nan() const {
  const std::uint64_t frac_mask = fraction_bits == 0 ? 0 : (std::uint64_t{1} << fraction_bits) - 1;
  switch (nan) {
    case NanEncoding::None:
      throw std::invalid_argument("format '" + name + "' has no NaN");
    case NanEncoding::Ieee:  // quiet: fraction MSB set
      return (static_cast<std::uint64_t>(max_finite_field() + 1) << fraction_bits) |
             (std::uint64_t{1} << (fraction_bits - 1));
    case NanEncoding::AllOnes:
      if (precision == 1) return static_cast<std::uint64_t>(max_finite_field() + 1);
      return (static_cast<std::uint64_t>(max_finite_field()) << fraction_bits) | frac_mask;
    case NanEncoding::NegativeZero:
      return sign_mask();
  }
  return 0;
}

// Unsigned formats ignore `negative` in max_finite, infinity and zero.
std::uint64_t Format::max_finite(bool negative) const {
  const std::uint64_t frac_mask = fraction_bits == 0 ? 0 : (std::uint64_t{1} << fraction_bits) - 1;
  const std::uint64_t bits =
      (static_cast<std::uint64_t>(max_finite_field()) << fraction_bits) | (max_finite_significand() & frac_mask);
  return bits | (negative ? sign_mask() : 0);
}

std::uint64_t Format::infinity(bool negative) const {
  if (!infinities) throw std::invalid_argument("format '" + name + "' has no infinities");
  return (static_cast<std::uint64_t>(max_finite_field() + 1) << fraction_bits) | (negative ? sign_mask() : 0);
}

std::uint64_t Format::zero(bool negative) const {
  if (!has_zero) throw std::invalid_argument("format '" + name + "' has no zero");
  const bool has_negative_zero = is_signed && nan != NanEncoding::NegativeZero;
  return negative && has_negative_zero ? sign_mask() : 0;
}

bool Format::operator==(const Format& o) const {
  return name == o.name && precision == o.precision && emin == o.emin && emax == o.emax &&
         subnormals == o.subnormals && infinities == o.infinities && nan == o.nan &&
         saturate == o.saturate && is_signed == o.is_signed && has_zero == o.has_zero;
}

Format make_format(std::string name, int precision, int emin, int emax, bool subnormals, bool infinities,
                   NanEncoding nan, bool saturate, bool is_signed) {
  Format f;
  f.name = std::move(name);
  f.precision = precision;
  f.emin = emin;
  f.emax = emax;
  f.subnormals = subnormals;
  f.infinities = infinities;
  f.nan = nan;
  f.saturate = saturate;
  f.is_signed = is_signed;
  f.finalize();
  return f;
}

namespace formats {
namespace {
Format std_format(std::string name, int p, int emin, int emax, bool inf, NanEncoding nan, bool sat) {
  return make_format(std::move(name), p, emin, emax, true, inf, nan, sat);
}
Format ue8m0_format() {
  Format f;
  f.name = "ue8m0";
  f.precision = 1;
  f.emin = -127;
  f.emax = 127;
  f.subnormals = false;
  f.infinities = false;
  f.nan = NanEncoding::AllOnes;
  f.is_signed = false;
  f.has_zero = false;
  f.finalize();
  return f;
}
}  // namespace

const Format& fp64() { static const Format f = std_format("fp64", 53, -1022, 1023, true, NanEncoding::Ieee, false); return f; }
const Format& fp32() { static const Format f = std_format("fp32", 24, -126, 127, true, NanEncoding::Ieee, false); return f; }
const Format& fp16() { static const Format f = std_format("fp16", 11, -14, 15, true, NanEncoding::Ieee, false); return f; }
const Format& bf16() { static const Format f = std_format("bf16", 8, -126, 127, true, NanEncoding::Ieee, false); return f; }
const Format& tf32() { static const Format f = std_format("tf32", 11, -126, 127, true, NanEncoding::Ieee, false); return f; }
// OCP E4M3: no infinities, S.1111.111 is NaN, max 448; non-saturating by default.
const Format& e4m3() { static const Format f = std_format("e4m3", 4, -6, 8, false, NanEncoding::AllOnes, false); return f; }
const Format& e5m2() { static const Format f = std_format("e5m2", 3, -14, 15, true, NanEncoding::Ieee, false); return f; }
// AMD FNUZ: bias one larger than OCP, 0x80 is the only NaN, no -0, no infinities.
const Format& e4m3fnuz() { static const Format f = std_format("e4m3fnuz", 4, -7, 7, false, NanEncoding::NegativeZero, false); return f; }
const Format& e5m2fnuz() { static const Format f = std_format("e5m2fnuz", 3, -15, 15, false, NanEncoding::NegativeZero, false); return f; }
// OCP MX fp6/fp4: no Inf/NaN; conversions saturate.
const Format& e2m3() { static const Format f = std_format("e2m3", 4, 0, 2, false, NanEncoding::None, true); return f; }
const Format& e3m2() { static const Format f = std_format("e3m2", 3, -2, 4, false, NanEncoding::None, true); return f; }
const Format& e2m1() { static const Format f = std_format("e2m1", 2, 0, 2, false, NanEncoding::None, true); return f; }
const Format& ue8m0() { static const Format f = ue8m0_format(); return f; }
const Format& ue4m3() {
  static const Format f = make_format("ue4m3", 4, -6, 8, true, false, NanEncoding::AllOnes, false, false);
  return f;
}
}  // namespace formats

const std::vector<Format>& builtin_formats() {
  static const std::vector<Format> all = {
      formats::fp64(),     formats::fp32(),     formats::fp16(), formats::bf16(), formats::tf32(),
      formats::e4m3(),     formats::e5m2(),     formats::e4m3fnuz(), formats::e5m2fnuz(),
      formats::e2m3(),     formats::e3m2(),     formats::e2m1(), formats::ue8m0(), formats::ue4m3()};
  return all;
}

namespace {
const std::vector<std::pair<std::string, std::string>>& aliases() {
  static const std::vector<std::pair<std::string, std::string>> a = {
      {"binary64", "fp64"},       {"double", "fp64"},         {"binary32", "fp32"},
      {"float", "fp32"},          {"binary16", "fp16"},       {"half", "fp16"},
      {"bfloat16", "bf16"},       {"fp8e4m3", "e4m3"},        {"e4m3fn", "e4m3"},
      {"fp8e5m2", "e5m2"},        {"fp8e4m3fnuz", "e4m3fnuz"}, {"fp8e5m2fnuz", "e5m2fnuz"},
      {"fp6e2m3", "e2m3"},        {"fp6e3m2", "e3m2"},        {"fp4e2m1", "e2m1"},
      {"e8m0", "ue8m0"}};
  return a;
}
}  // namespace

std::string builtin_format_names() {
  std::string s;
  for (const auto& f : builtin_formats()) s += (s.empty() ? "" : ", ") + f.name;
  for (const auto& [alias, name] : aliases()) s += ", " + alias;
  return s;
}

const Format& parse_format(std::string_view name, std::string_view field) {
  std::string key = detail::ascii_lower(name);
  for (const auto& [alias, canonical] : aliases())
    if (key == alias) key = canonical;
  for (const auto& f : builtin_formats())
    if (f.name == key) return f;
  throw std::invalid_argument("unknown " + std::string(field) + " '" + std::string(name) +
                              "'; allowed: " + builtin_format_names());
}

std::string to_string(NanEncoding n) {
  switch (n) {
    case NanEncoding::None: return "none";
    case NanEncoding::Ieee: return "ieee";
    case NanEncoding::AllOnes: return "all_ones";
    case NanEncoding::NegativeZero: return "negative_zero";
  }
  return "?";
}

NanEncoding parse_nan_encoding(std::string_view s, std::string_view field) {
  std::string k = detail::ascii_lower(s);
  std::replace(k.begin(), k.end(), '-', '_');
  if (k == "none") return NanEncoding::None;
  if (k == "ieee") return NanEncoding::Ieee;
  if (k == "all_ones" || k == "allones") return NanEncoding::AllOnes;
  if (k == "negative_zero" || k == "negativezero" || k == "fnuz") return NanEncoding::NegativeZero;
  throw std::invalid_argument("unknown " + std::string(field) + " '" + std::string(s) +
                              "'; allowed: none, ieee, all_ones, negative_zero");
}

}  // namespace tcsim
