// Rounding an exact value into a format: the one named rounding step of tcsim.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "tcsim/sim/exact.hpp"
#include "tcsim/sim/format.hpp"

namespace tcsim {

enum class Rounding {
  NearestEven,  // "rne"
  TowardZero,   // "rz"
  Up,           // "ru", toward +inf
  Down,         // "rd", toward -inf
  ToOdd,        // "ro": truncate, then set the last bit if inexact
  Stochastic,   // "sr": up with probability given by the discarded bits (RoundingOptions)
};

enum class OverflowMode {
  FormatDefault,  // the format's `saturate` flag picks Saturate or Ieee
  Ieee,           // IEEE 754: Inf (or NaN where no Inf exists) unless the mode rounds toward zero
  Saturate,       // largest finite value of the right sign
  ToNaN,          // NaN whatever the mode (OCP non-saturating E4M3 style)
  Infinity,       // Inf whatever the mode, RZ included (NVIDIA binary32 output: X25's
                  // hardware tests assert Inf for 2^127 + 2^127); NaN, then largest
                  // finite, in formats without Inf
};

enum class SubnormalMode {
  Keep,   // gradual underflow
  Flush,  // a result whose exact value is below 2^emin (tininess before rounding) becomes +-0
};

struct RoundingOptions {
  Rounding mode = Rounding::NearestEven;
  OverflowMode overflow = OverflowMode::FormatDefault;
  SubnormalMode subnormals = SubnormalMode::Keep;
  // Stochastic rounding: `random` holds `random_bits` uniform bits (1..64). With the
  // discarded part D in [0,1) ulp, the result rounds away from zero iff
  // random < floor(D * 2^random_bits). Deterministic given the bits.
  std::uint64_t random = 0;
  int random_bits = 32;
};

struct RoundResult {
  std::uint64_t bits = 0;
  bool inexact = false;
  bool overflow = false;
  bool underflow = false;  // tiny (before rounding) and inexact, or flushed
  bool invalid = false;    // NaN into a format without NaN, zero into a format without zero
                           // (result: its smallest value), Inf into a format without Inf,
                           // a negative nonzero value into an unsigned format (result: NaN)
};

// Rounds x into `fmt`. NaN becomes the format's canonical NaN (bits 0 where it has none);
// infinities become infinities, or per the overflow mode where the format has none.
// Formats without subnormals round values below 2^emin to 0 or 2^emin (a tie to 0).
// Precision 1 (ue8m0): a tie between 2^k and 2^(k+1) goes to 2^(k+1), whose significand
// at the quantum 2^k is the even one.
RoundResult round_to_format(const ExactValue& x, const Format& fmt, const RoundingOptions& opt);
inline std::uint64_t round_bits(const ExactValue& x, const Format& fmt, Rounding mode) {
  RoundingOptions o;
  o.mode = mode;
  return round_to_format(x, fmt, o).bits;
}

std::string to_string(Rounding r);
// Accepts rne|rn|rz|ru|rd|ro|sr (case-insensitive); throws naming `field`.
Rounding parse_rounding(std::string_view s, std::string_view field = "rounding");
std::string to_string(OverflowMode m);
OverflowMode parse_overflow(std::string_view s, std::string_view field = "overflow");

}  // namespace tcsim
