// Biased random operands for the reference tests: patterns by exponent class (zero,
// subnormal, normal in a window of lead exponents, extremes, specials), in the style of
// TestFloat's structured generators. Deterministic given the Rng.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/format.hpp"
#include "test_support.hpp"

namespace tcsim::reftest {

using tcsim::test::Rng;

inline std::uint64_t frac_mask(const Format& f) {
  return f.fraction_bits == 0 ? 0 : (std::uint64_t{1} << f.fraction_bits) - 1;
}
inline std::uint64_t random_bits(Rng& r, int n) {
  if (n <= 0) return 0;
  const std::uint64_t v = r.next();
  return n >= 64 ? v : v & ((std::uint64_t{1} << n) - 1);
}
// Lead exponents of the finite nonzero values of f: [lowest, emax].
inline int lowest_lead(const Format& f) { return f.subnormals ? f.emin - (f.precision - 1) : f.emin; }

// A finite nonzero pattern whose value has leading-bit exponent `lead`
// (lowest_lead(f) <= lead <= emax), random lower bits, random sign (if signed).
inline std::uint64_t value_with_lead(const Format& f, Rng& r, int lead) {
  lead = std::clamp(lead, lowest_lead(f), f.emax);
  const std::uint64_t sign = (f.is_signed && (r.next() & 1)) ? f.sign_mask() : 0;
  if (lead >= f.emin) {
    const std::uint64_t field = static_cast<std::uint64_t>(lead + f.bias);
    std::uint64_t frac = random_bits(r, f.fraction_bits);
    if (static_cast<int>(field) == f.max_finite_field()) {
      const std::uint64_t implicit = std::uint64_t{1} << f.fraction_bits;
      const std::uint64_t max_frac = f.max_finite_significand() - (f.precision == 64 ? 0 : implicit);
      if (frac > max_frac) frac = max_frac;
    }
    return sign | (field << f.fraction_bits) | frac;
  }
  // Subnormal: the fraction's top set bit sits emin - lead positions below the implicit bit.
  const int pos = f.fraction_bits - (f.emin - lead);  // 0 .. fraction_bits-1
  const std::uint64_t frac = (std::uint64_t{1} << pos) | random_bits(r, pos);
  return sign | frac;
}

// Any finite nonzero value, lead exponent uniform over the whole range.
inline std::uint64_t random_finite(const Format& f, Rng& r) {
  return value_with_lead(f, r, r.range(lowest_lead(f), f.emax));
}
inline std::uint64_t random_subnormal_or_tiny(const Format& f, Rng& r) {
  return value_with_lead(f, r, r.range(lowest_lead(f), f.emin + 1));
}
inline std::uint64_t random_huge(const Format& f, Rng& r) { return value_with_lead(f, r, r.range(f.emax - 2, f.emax)); }
// Uniformly random pattern (any class, NaN and Inf included).
inline std::uint64_t random_pattern(const Format& f, Rng& r) { return random_bits(r, f.width); }
inline std::uint64_t zero_pattern(const Format& f, Rng& r) { return f.zero(f.is_signed && (r.next() & 1)); }

// Special operand: NaN, +-Inf (where they exist) or a zero.
inline std::uint64_t random_special(const Format& f, Rng& r) {
  switch (r.below(3)) {
    case 0:
      if (f.has_nan()) return f.canonical_nan();
      break;
    case 1:
      if (f.infinities) return f.infinity(r.next() & 1);
      break;
    default: break;
  }
  return zero_pattern(f, r);
}

// The negated pattern of a nonzero finite value (sign-magnitude).
inline std::uint64_t negate(const Format& f, std::uint64_t bits) { return bits ^ f.sign_mask(); }

// A power of two 2^e as a pattern of f, if representable.
inline bool power_of_two(const Format& f, int e, bool negative, std::uint64_t& out) {
  if (e > f.emax || e < lowest_lead(f)) return false;
  const std::uint64_t sign = negative && f.is_signed ? f.sign_mask() : 0;
  if (e >= f.emin) {
    out = sign | (static_cast<std::uint64_t>(e + f.bias) << f.fraction_bits);
  } else {
    out = sign | (std::uint64_t{1} << (f.fraction_bits - (f.emin - e)));
  }
  return true;
}

// Hex list of patterns, for failure messages.
inline std::string hex_list(const Format& f, const std::uint64_t* v, std::size_t n) {
  std::string s = "[";
  for (std::size_t i = 0; i < n; ++i) {
    if (i) s += ", ";
    s += bits_to_hex(f, v[i]);
  }
  return s + "]";
}

}  // namespace tcsim::reftest
