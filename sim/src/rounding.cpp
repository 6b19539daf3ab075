// round_to_format: the one rounding step of tcsim. Exact integer arithmetic only.
//
// A finite x = (-1)^s * m * 2^e with lead exponent L is cut at the quantum exponent
//   q = max(L, emin) - (precision-1)     (formats with subnormals: the subnormal grid),
//   q = L - (precision-1)                (no subnormals, L >= emin),
//   q = emin                             (no subnormals, L < emin: candidates 0 and 2^emin,
//                                         a tie goes to 0, the even one).
// The kept integer k = floor(|x| / 2^q) and the discarded fraction D in [0,1) (first 64
// bits plus a sticky bit: enough for every mode, stochastic included) pick the result;
// k + 1 = 2^precision renormalizes. A result above the largest finite value overflows
// and the overflow mode decides (see resolve_overflow).
//
// Conventions where formats lack values (summarized in rounding.hpp):
//  - zero into a format without zero (ue8m0): its smallest value, invalid flag; a finite
//    value that rounds to zero there also becomes the smallest value;
//  - NaN into a format without NaN: bits 0, invalid flag;
//  - Inf into a format without Inf: per overflow mode (Saturate: max finite; ToNaN/Ieee:
//    NaN, or max finite where no NaN exists), invalid flag;
//  - a negative nonzero value (or -Inf) into an unsigned format: NaN (bits 0 where no
//    NaN exists), invalid flag.
#include "tcsim/sim/rounding.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <stdexcept>

#include "ascii_lower.hpp"

namespace tcsim {
namespace {

// |x| = m * 2^e cut at the quantum 2^q (s = q - e bits of m lie below it): the kept
// integer (< 2^precision, so it fits), the first 64 discarded bits as a 0.64 fixed-point
// fraction D, and whether any bit below those is set. 64 bits of D serve every mode:
// nearest needs D's first bit plus a sticky, stochastic floor(D * 2^random_bits).
struct Split {
  std::uint64_t kept = 0, frac = 0;
  bool sticky = false;
};

std::uint64_t mask64(int bits) { return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1; }

Split split_small(std::uint64_t m, std::int64_t s) {
  Split r;
  if (s <= 0) r.kept = m << -s;
  else if (s < 64) r.kept = m >> s, r.frac = m << (64 - s);
  else if (s == 64) r.frac = m;
  else if (s < 128) r.frac = m >> (s - 64), r.sticky = (m & mask64(static_cast<int>(s - 64))) != 0;
  else r.sticky = m != 0;
  return r;
}

// Significands of more than 64 bits (sums from the adder, decimal literals).
Split split_big(const BigInt& m, std::int64_t s) {
  Split r;
  if (s <= 0) {
    r.kept = static_cast<std::uint64_t>(m << static_cast<unsigned>(-s));
    return r;
  }
  // Everything below the 64 bits of D: only the sticky bit is left. (Also keeps `s` within
  // unsigned range: a literal like 0x1.8p-700000000000000000 has s near 2^59, which cast to
  // unsigned wrapped to a small shift and kept garbage bits; found by fuzz_literal.)
  if (m == 0 || s - 64 > static_cast<std::int64_t>(boost::multiprecision::msb(m))) {
    r.sticky = m != 0;
    return r;
  }
  const auto us = static_cast<unsigned>(s);
  r.kept = static_cast<std::uint64_t>(m >> us);
  static const BigInt low64 = BigInt(~std::uint64_t{0});
  BigInt t = s >= 64 ? BigInt(m >> (us - 64)) : BigInt(m << (64 - us));
  t &= low64;
  r.frac = static_cast<std::uint64_t>(t);
  r.sticky = s > 64 && static_cast<std::int64_t>(boost::multiprecision::lsb(m)) < s - 64;
  return r;
}

RoundResult special(std::uint64_t bits) {
  RoundResult r;
  r.bits = bits;
  return r;
}

std::uint64_t nan_or_zero(const Format& fmt) { return fmt.has_nan() ? fmt.canonical_nan() : 0; }

bool rounds_toward_zero(Rounding mode, bool negative) {
  switch (mode) {
    case Rounding::TowardZero:
    case Rounding::ToOdd: return true;
    case Rounding::Down: return !negative;
    case Rounding::Up: return negative;
    default: return false;
  }
}

// Result of a finite value beyond the largest finite one.
std::uint64_t resolve_overflow(const Format& fmt, const RoundingOptions& opt, bool negative) {
  OverflowMode m = opt.overflow;
  if (m == OverflowMode::FormatDefault) m = fmt.saturate ? OverflowMode::Saturate : OverflowMode::Ieee;
  switch (m) {
    case OverflowMode::Saturate: return fmt.max_finite(negative);
    case OverflowMode::ToNaN:
      if (fmt.has_nan()) return fmt.canonical_nan();
      if (fmt.infinities) return fmt.infinity(negative);
      return fmt.max_finite(negative);
    case OverflowMode::Infinity:
      if (fmt.infinities) return fmt.infinity(negative);
      if (fmt.has_nan()) return fmt.canonical_nan();
      return fmt.max_finite(negative);
    default:
      if (rounds_toward_zero(opt.mode, negative)) return fmt.max_finite(negative);
      if (fmt.infinities) return fmt.infinity(negative);
      if (fmt.has_nan()) return fmt.canonical_nan();
      return fmt.max_finite(negative);
  }
}

}  // namespace

RoundResult round_to_format(const ExactValue& x, const Format& fmt, const RoundingOptions& opt) {
  if (opt.mode == Rounding::Stochastic && (opt.random_bits < 1 || opt.random_bits > 64))
    throw std::invalid_argument("random_bits must be 1..64, got " + std::to_string(opt.random_bits));
  RoundResult r;
  const bool neg = x.negative && fmt.is_signed;
  switch (x.kind) {
    case ValueKind::NaN:
      r = special(nan_or_zero(fmt));
      r.invalid = !fmt.has_nan();
      return r;
    case ValueKind::Zero:
      if (fmt.has_zero) return special(fmt.zero(neg));
      r = special(0);  // smallest value of a format without zero
      r.invalid = true;
      return r;
    case ValueKind::Infinity:
      if (x.negative && !fmt.is_signed) break;
      if (fmt.infinities) return special(fmt.infinity(neg));
      {
        RoundingOptions ieee = opt;
        ieee.mode = Rounding::NearestEven;  // an infinite input is never "rounded toward zero"
        r = special(resolve_overflow(fmt, ieee, neg));
      }
      r.invalid = true;
      return r;
    case ValueKind::Finite: break;
  }
  if (x.negative && !fmt.is_signed) {
    r = special(nan_or_zero(fmt));
    r.invalid = true;
    return r;
  }

  const int p = fmt.precision;
  const std::int64_t lead = x.lead_exponent();
  const bool tiny = lead < fmt.emin;

  if (tiny && opt.subnormals == SubnormalMode::Flush && fmt.has_zero) {
    r = special(fmt.zero(neg));
    r.inexact = r.underflow = true;
    return r;
  }

  std::int64_t q;
  if (fmt.subnormals) q = std::max<std::int64_t>(lead, fmt.emin) - (p - 1);
  else q = tiny ? fmt.emin : lead - (p - 1);

  const std::int64_t s = q - x.exponent;
  const bool small = lead - x.exponent < 64;
  Split cut = small ? split_small(static_cast<std::uint64_t>(x.significand), s) : split_big(x.significand, s);
  std::uint64_t kept = cut.kept;
  const std::uint64_t frac = cut.frac;
  const bool sticky = cut.sticky;
  const std::uint64_t half = std::uint64_t{1} << 63;
  const bool inexact = frac != 0 || sticky;

  bool up = false;
  switch (opt.mode) {
    case Rounding::NearestEven:
      up = frac > half || (frac == half && (sticky || (kept & 1)));
      break;
    case Rounding::TowardZero: break;
    case Rounding::Up: up = inexact && !neg; break;
    case Rounding::Down: up = inexact && neg; break;
    case Rounding::ToOdd:
      if (inexact) kept |= 1;
      break;
    case Rounding::Stochastic: {
      const int rb = opt.random_bits;
      const std::uint64_t threshold = rb == 64 ? frac : frac >> (64 - rb);  // floor(D * 2^rb)
      up = (opt.random & mask64(rb)) < threshold;
      break;
    }
  }
  const std::uint64_t max_sig = mask64(p);
  if (up) {
    if (kept == max_sig) {  // carry out of the significand: renormalize
      kept = std::uint64_t{1} << (p - 1);
      ++q;
    } else {
      ++kept;
    }
  }
  r.inexact = inexact;
  r.underflow = tiny && inexact;

  if (kept == 0) {
    if (fmt.has_zero) {
      r.bits = fmt.zero(neg);
    } else {
      r.bits = 0;  // smallest value of a format without zero
    }
    return r;
  }
  // Normalize to p bits (only the no-subnormal 2^emin case and subnormals are short).
  const int n = std::bit_width(kept) - 1;
  const std::int64_t e_lead = q + n;
  const std::uint64_t sign = neg ? fmt.sign_mask() : 0;
  if (e_lead > fmt.emax ||
      (e_lead == fmt.emax && (kept << (p - 1 - n)) > fmt.max_finite_significand())) {
    r.bits = resolve_overflow(fmt, opt, neg);
    r.overflow = true;
    r.inexact = true;
    return r;
  }
  const std::uint64_t frac_mask = mask64(p - 1);
  if (e_lead < fmt.emin) {  // subnormal: q = emin - (p-1), field 0
    r.bits = sign | kept;
    return r;
  }
  const auto field = static_cast<std::uint64_t>(e_lead + fmt.bias);
  r.bits = sign | (field << (p - 1)) | ((kept << (p - 1 - n)) & frac_mask);
  return r;
}

std::string to_string(Rounding r) {
  switch (r) {
    case Rounding::NearestEven: return "rne";
    case Rounding::TowardZero: return "rz";
    case Rounding::Up: return "ru";
    case Rounding::Down: return "rd";
    case Rounding::ToOdd: return "ro";
    case Rounding::Stochastic: return "sr";
  }
  return "?";
}

Rounding parse_rounding(std::string_view s, std::string_view field) {
  const std::string k = detail::ascii_lower(s);
  if (k == "rne" || k == "rn") return Rounding::NearestEven;
  if (k == "rz") return Rounding::TowardZero;
  if (k == "ru") return Rounding::Up;
  if (k == "rd") return Rounding::Down;
  if (k == "ro") return Rounding::ToOdd;
  if (k == "sr") return Rounding::Stochastic;
  throw std::invalid_argument("unknown " + std::string(field) + " '" + std::string(s) +
                              "'; allowed: rne, rn, rz, ru, rd, ro, sr");
}

std::string to_string(OverflowMode m) {
  switch (m) {
    case OverflowMode::FormatDefault: return "default";
    case OverflowMode::Ieee: return "ieee";
    case OverflowMode::Saturate: return "saturate";
    case OverflowMode::ToNaN: return "nan";
    case OverflowMode::Infinity: return "inf";
  }
  return "?";
}

OverflowMode parse_overflow(std::string_view s, std::string_view field) {
  const std::string k = detail::ascii_lower(s);
  if (k == "default") return OverflowMode::FormatDefault;
  if (k == "ieee") return OverflowMode::Ieee;
  if (k == "saturate" || k == "sat") return OverflowMode::Saturate;
  if (k == "nan") return OverflowMode::ToNaN;
  if (k == "inf") return OverflowMode::Infinity;
  throw std::invalid_argument("unknown " + std::string(field) + " '" + std::string(s) +
                              "'; allowed: default, ieee, saturate, nan, inf");
}

}  // namespace tcsim
