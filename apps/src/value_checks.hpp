// The validation layer shared by the CLI and the Python package (issue 22): whether a value a
// user gave fits a format, and the one message that refuses it. The caller passes the name to
// print ("--a[0]" in the CLI, "a[0, 1]" in Python) and how patterns are written there, so that
// the same bad value gets the same text with the name as the user wrote it.
//
// Refused, as `tcsim dot` refuses them (docs/reliability.md B15-B17): a finite value that
// rounds to Inf or NaN (beyond the largest finite value), inf where the format has no
// infinities, nan where it has no NaN, zero where it has no zero (ue8m0), a negative value
// into an unsigned format (ue8m0, ue4m3). In-range inexact values are not refused (they are
// rounded, as the hardware's conversion would).
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "tcsim/sim/format.hpp"
#include "tcsim/sim/rounding.hpp"

namespace tcsim::checks {

// What the user's value is, before rounding.
struct GivenValue {
  bool nan = false, inf = false, zero = false, negative = false;
  double magnitude = 0;  // |value| (rounded toward zero into binary64), for saturating formats
};
GivenValue given_value(double x);

// How patterns are written where the value came from: the CLI's literal, Python's arrays.
inline constexpr std::string_view kCliPatterns = "a pattern bits:0x...";
inline constexpr std::string_view kPythonPatterns = "unsigned-integer arrays of bit patterns";

// "; allowed: finite values up to 0x1.cp+8 in magnitude, nan, or <patterns>" (no "or" part
// when `patterns` is empty: where no patterns are taken).
std::string allowed_values(const Format& fmt, std::string_view patterns);

// True when `v`, rounded to the pattern `rounded` of `fmt`, is accepted (see the header).
bool value_fits(const Format& fmt, const GivenValue& v, std::uint64_t rounded);

// The refusal of a value for which value_fits is false: `field` names it, `text` is the value
// as given ("1000", "-inf"). Empty when the value fits.
std::string value_refusal(const Format& fmt, const GivenValue& v, std::uint64_t rounded, std::string_view field,
                          std::string_view text, std::string_view patterns);

// A rounding mode among `allowed` (the "allowed" list names only those, so that no listed
// word is then refused): "<field>: 'sr' is not allowed; allowed: rne, rz, ru, rd, ro".
// rn is read as rne. kConversionRoundings: what a conversion into a format takes.
inline constexpr std::initializer_list<Rounding> kConversionRoundings = {
    Rounding::NearestEven, Rounding::TowardZero, Rounding::Up, Rounding::Down, Rounding::ToOdd};
Rounding rounding_word(std::string_view text, std::string_view field,
                       std::initializer_list<Rounding> allowed = kConversionRoundings);

// Matrix entries (GEMM and LU inputs, from files, generators or arrays): `entry` names one
// ("entry (2, 1)" in the CLI, "A[1, 0]" in Python).
// "<entry> is nan; allowed: finite values"; empty when x is finite.
std::string nonfinite_refusal(std::string_view entry, double x);
// "<entry> = 1000000 is out of the range of <what>; allowed: |value| <= 65504"; empty when
// |x| <= largest. `what` says where the value goes ("fp16, the format A is converted into").
std::string magnitude_refusal(std::string_view entry, double x, double largest, std::string_view what);

// A message or a value as one printable line: control characters escaped ("\n", "\t", "\r",
// others "\x1b"), so that a value the user typed with a newline cannot split a one-line error.
// The CLI's and Python's error boundaries pass every message through it (main.cpp, module.cpp).
std::string one_line(std::string_view text);
// A user's value in quotes, on one line: 'q1dq2\n'.
std::string quoted(std::string_view text);

// The shortest decimal text of a double that reads back to it ("1000", "0.1", "1e+39", "-inf",
// "nan"), for messages about values that came as doubles.
std::string value_text(double x);

}  // namespace tcsim::checks
