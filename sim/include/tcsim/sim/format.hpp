// Floating-point format descriptors: named fields, derived bit encoding, validation.
//
// A format is described by its value set (precision, exponent range, which special
// values exist) and the encoding follows from it: a sign bit (unless unsigned), the
// fewest exponent bits that hold every exponent field, precision-1 fraction bits.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tcsim {

// Where NaN lives in the encoding.
enum class NanEncoding {
  None,          // no NaN at all (OCP fp6, fp4)
  Ieee,          // top exponent field with a nonzero fraction (binary*, bf16, tf32, E5M2)
  AllOnes,       // only exponent and fraction all ones (OCP E4M3: S.1111.111; ue8m0: 0xFF)
  NegativeZero,  // the single NaN is the pattern of -0 (AMD FNUZ formats: 0x80)
};

struct Format {
  std::string name;            // canonical lower-case name, e.g. "fp16"
  int precision = 0;           // t: significand digits including the implicit bit (1..64)
  int emin = 0;                // exponent of the smallest normal number 2^emin
  int emax = 0;                // exponent of the largest finite numbers
  bool subnormals = true;      // values below 2^emin exist (exponent field 0)
  bool infinities = true;      // +-Inf exist (top exponent field, zero fraction)
  NanEncoding nan = NanEncoding::Ieee;
  bool saturate = false;       // default overflow of conversions: largest finite (true) or Inf/NaN
  bool is_signed = true;       // false for the unsigned scale formats ue8m0, ue4m3
  bool has_zero = true;        // false for ue8m0, whose field 0 is 2^emin

  // Derived encoding (filled by finalize()).
  int exponent_bits = 0;
  int fraction_bits = 0;       // precision - 1
  int bias = 0;                // exponent field = exponent + bias
  int width = 0;               // total bits

  // Checks the fields and derives the encoding; throws std::invalid_argument naming the
  // offending field and what is allowed.
  void finalize();

  std::uint64_t sign_mask() const { return is_signed ? (std::uint64_t{1} << (width - 1)) : 0; }
  std::uint64_t width_mask() const { return width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1; }
  bool has_nan() const { return nan != NanEncoding::None; }
  // Exponent field of the largest finite numbers.
  int max_finite_field() const;
  // Largest finite integer significand in the top exponent field (NaN may take the last one).
  std::uint64_t max_finite_significand() const;

  // Unsigned formats ignore `negative` below.
  std::uint64_t canonical_nan() const;      // positive quiet NaN; format without NaN: throws
  std::uint64_t max_finite(bool negative) const;
  std::uint64_t infinity(bool negative) const;  // format without infinities: throws
  std::uint64_t zero(bool negative) const;      // -0 where it exists, else +0; no zero: throws

  bool operator==(const Format& o) const;
};

// User-defined format from its value-set fields; validated.
Format make_format(std::string name, int precision, int emin, int emax, bool subnormals,
                   bool infinities, NanEncoding nan, bool saturate = false,
                   bool is_signed = true);

// The built-in formats.
namespace formats {
const Format& fp64();
const Format& fp32();
const Format& fp16();
const Format& bf16();
const Format& tf32();
const Format& e4m3();
const Format& e5m2();
const Format& e4m3fnuz();
const Format& e5m2fnuz();
const Format& e2m3();
const Format& e3m2();
const Format& e2m1();
const Format& ue8m0();
const Format& ue4m3();
}  // namespace formats

// All built-in formats in a fixed order.
const std::vector<Format>& builtin_formats();
// Names accepted by parse_format, comma separated (for error messages).
std::string builtin_format_names();
// Look a format up by name, case-insensitively; also accepts the aliases binary64,
// binary32, binary16, bfloat16, fp8e4m3, fp6e2m3, fp4e2m1, ... Throws
// std::invalid_argument naming `field` and the allowed names.
const Format& parse_format(std::string_view name, std::string_view field = "format");

std::string to_string(NanEncoding n);
NanEncoding parse_nan_encoding(std::string_view s, std::string_view field = "nan");

}  // namespace tcsim
