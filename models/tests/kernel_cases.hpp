// Operands for the kernel differential tests (models/tests/test_unit_kernel.cpp,
// test_kernel_differential.cpp): one element of K products and its c, drawn from kinds that
// each aim at a path of the kernels: common exponent windows, specials, huge values (carry
// overflow), subnormals, exact cancellation, ties at the final rounding, and products at the
// bottom of the range (the min-exponent clamp); and the NVIDIA corner classes (issue 22):
// overflow of the output near its largest value (also in a middle block of a chain), zero
// terms of both signs (every term -0), and zero c with a few tiny products (the binary16
// alignment floor).
#pragma once
#include <algorithm>
#include <cstdint>

#include "operand_gen.hpp"
#include "tcsim/sim/format.hpp"

namespace tcsim::reftest {

// One element's operands: products around a common exponent window, sometimes anywhere,
// with zeros, subnormals and specials; c of any kind.
inline void fill_element(const Format& in, const Format& out, Rng& r, std::uint64_t* a, std::uint64_t* b, std::size_t K,
                  std::uint64_t& c) {
  const int kind = static_cast<int>(r.below(11));
  const int center = r.range(lowest_lead(in), in.emax), width = 1 + static_cast<int>(r.below(20));
  for (std::size_t t = 0; t < K; ++t) {
    switch (kind) {
      case 0: a[t] = random_finite(in, r); b[t] = random_finite(in, r); break;
      case 1: a[t] = r.below(8) ? random_finite(in, r) : random_special(in, r); b[t] = random_finite(in, r); break;
      case 2: a[t] = random_huge(in, r); b[t] = random_huge(in, r); break;
      case 3: a[t] = random_subnormal_or_tiny(in, r); b[t] = random_finite(in, r); break;
      default:
        a[t] = value_with_lead(in, r, center - static_cast<int>(r.below(static_cast<std::uint64_t>(width))));
        b[t] = value_with_lead(in, r, center - static_cast<int>(r.below(static_cast<std::uint64_t>(width))));
        break;
    }
  }
  if (kind == 5)
    for (std::size_t t = 0; t + 1 < K; t += 2) a[t + 1] = negate(in, a[t]);  // exact cancellation
  if (kind == 6 && K > 0) {
    // A tie at the final rounding: c has a random significand, one product is half an ulp of
    // c's binade (a power of two), the others zero or far below (sticky bits or none).
    const int lo = std::max(lowest_lead(out), 2 * lowest_lead(in) + out.precision);
    const int lead = r.range(lo, std::max(lo, std::min(out.emax, 2 * in.emax - 1)));
    c = value_with_lead(out, r, lead);
    const int half = lead - out.precision;  // exponent of half an ulp
    for (std::size_t t = 0; t < K; ++t) a[t] = b[t] = 0;
    const int ea = std::clamp(half / 2, lowest_lead(in), in.emax);
    std::uint64_t pa = 0, pb = 0;
    if (power_of_two(in, ea, r.next() & 1, pa) && power_of_two(in, half - ea, false, pb)) {
      a[0] = pa;
      b[0] = pb;
    }
    if (K > 1 && r.below(2)) {  // a tiny extra term: above or below the tie
      a[1] = value_with_lead(in, r, lowest_lead(in) + static_cast<int>(r.below(3)));
      b[1] = value_with_lead(in, r, lowest_lead(in) + static_cast<int>(r.below(3)));
    }
    return;
  }
  if (kind == 8) {
    // Overflow: c and products near the output's largest value, random signs; half the
    // products small, so a chain of blocks may overflow in any block.
    const int top = std::min(in.emax, out.emax);
    for (std::size_t t = 0; t < K; ++t) {
      if (r.below(2)) {
        a[t] = value_with_lead(in, r, top - static_cast<int>(r.below(2)));
        b[t] = value_with_lead(in, r, out.emax - top + static_cast<int>(r.below(2)));
      } else {
        a[t] = random_finite(in, r);
        b[t] = r.below(4) ? value_with_lead(in, r, 0) : random_special(in, r);
      }
    }
    c = r.below(4) ? value_with_lead(out, r, out.emax - static_cast<int>(r.below(2))) : random_finite(out, r);
    return;
  }
  if (kind == 9) {
    // Zero terms only: products with a zero factor and a zero c, signs random or all -0.
    const bool all_negative = r.below(2);
    for (std::size_t t = 0; t < K; ++t) {
      a[t] = all_negative ? in.zero(true) : zero_pattern(in, r);
      b[t] = r.below(2) ? value_with_lead(in, r, r.range(lowest_lead(in), in.emax)) : zero_pattern(in, r);
      if (all_negative) b[t] &= ~in.sign_mask();  // -0 * positive = -0
    }
    c = all_negative ? out.zero(true) : zero_pattern(out, r);
    return;
  }
  if (kind == 10) {
    // Zero c and a few tiny products among zeros: E below the min-exponent clamp, results
    // decided by the floor (and by ties of binary16's subnormal grid).
    for (std::size_t t = 0; t < K; ++t) {
      const bool tiny = r.below(3) == 0;
      a[t] = tiny ? random_subnormal_or_tiny(in, r) : zero_pattern(in, r);
      b[t] = tiny ? value_with_lead(in, r, r.range(lowest_lead(in), 0)) : random_finite(in, r);
    }
    c = zero_pattern(out, r);
    return;
  }
  if (kind == 7) {
    // Products at the bottom of the range: E at or below the row's min-exponent clamp.
    for (std::size_t t = 0; t < K; ++t) {
      a[t] = random_subnormal_or_tiny(in, r);
      b[t] = random_subnormal_or_tiny(in, r);
    }
    c = r.below(2) ? zero_pattern(out, r) : random_subnormal_or_tiny(out, r);
    return;
  }
  switch (r.below(4)) {
    case 0: c = zero_pattern(out, r); break;
    case 1: c = r.below(4) ? random_finite(out, r) : random_special(out, r); break;
    default: c = value_with_lead(out, r, std::clamp(2 * center + r.range(-20, 3), lowest_lead(out), out.emax)); break;
  }
}

// A finite pattern of f (field clamped below the top).
inline std::uint64_t finite_pattern(const Format& f, bool negative, std::uint64_t field, std::uint64_t frac) {
  const std::uint64_t top = (std::uint64_t{1} << f.exponent_bits) - 1;
  field = std::min(field, top - 1);  // finite
  return (negative ? f.sign_mask() : 0) | (field << (f.precision - 1)) | (frac & ((std::uint64_t{1} << (f.precision - 1)) - 1));
}

// A c aimed at the final addition u + c of the first instruction of a final-add row (u: its
// sum from +0; issue 25, test_pairs_mod4.cpp, test_tile_chain.cpp): -u (exact cancellation,
// zero signs), -u a few ulps off, a value whose last places meet u's rounding (ties of the
// binary16 final rounding), near the largest finite (overflow), subnormal; else c0.
inline std::uint64_t final_add_edge_c(const Format& out, Rng& r, std::uint64_t u, std::uint64_t c0) {
  const std::uint64_t sign = out.sign_mask(), top = (std::uint64_t{1} << out.exponent_bits) - 1;
  const std::uint64_t field = (u >> (out.precision - 1)) & top, frac_bits = static_cast<std::uint64_t>(out.precision - 1);
  if (field == top) return c0;  // u is Inf or NaN
  switch (r.below(6)) {
    case 0: return u ^ sign;  // exact cancellation
    case 1: {                 // -u a few ulps off (stays finite: the field is below top)
      const std::uint64_t mag = u & ~sign, off = 1 + r.below(3);
      const std::uint64_t m = r.below(2) && mag > off ? mag - off : std::min(mag + off, (top << frac_bits) - 1);
      return ((u & sign) ^ sign) | m;
    }
    case 2: {  // c's places meet u's last place: ties and near-ties of the final rounding
      const std::int64_t f = static_cast<std::int64_t>(field) - static_cast<std::int64_t>(frac_bits) - 1 + r.range(-1, 2);
      const std::uint64_t bits = r.next();  // named draws: argument order is unspecified
      return finite_pattern(out, r.below(2), f <= 0 ? 0 : static_cast<std::uint64_t>(f), bits);
    }
    case 3: {  // near the largest finite
      const std::uint64_t bits = r.next();
      const std::uint64_t field = top - 1 - r.below(2);
      return finite_pattern(out, r.below(2), field, bits);
    }
    case 4: {  // subnormal (or zero)
      const std::uint64_t bits = r.next();
      return finite_pattern(out, r.below(2), 0, bits);
    }
    default: return c0;
  }
}

}  // namespace tcsim::reftest
