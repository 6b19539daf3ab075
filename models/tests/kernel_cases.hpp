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

}  // namespace tcsim::reftest
