// Operands aimed at the flushing rules of AMD CDNA2's binary32 trees (units.md 3b; issue 25):
// products and partial sums just below and above 2^-126 (a bf16 product reaches 2^-266), pairs
// of products that cancel to a few ulps or exactly (tiny or zero sums, -0 when both are -0), c
// cancelling the tree's sum, subnormal operands and c (flushed to +0), zeros of both signs,
// products at or beyond 2^128 (bf16) and NaN/Inf. Shared by sim/tests/test_ieee_tree.cpp and
// models/tests/test_kernel_differential.cpp.
#pragma once
#include <algorithm>
#include <cstdint>

#include "operand_gen.hpp"

namespace tcsim::reftest {

inline void fill_flush_edges(const Format& in, const Format& out, Rng& r, std::uint64_t* a, std::uint64_t* b,
                             std::size_t K, std::uint64_t& c) {
  const int lo = lowest_lead(in), hi = in.emax;
  int top = 0;  // the products' leading exponent
  switch (r.below(5)) {
    case 0: top = r.range(-130, -120); break;            // around 2^-126 (reachable by bf16)
    case 1: top = r.range(2 * hi - 4, 2 * hi + 1); break;  // near or beyond 2^128 (bf16)
    case 2: top = r.range(2 * in.emin, 2 * in.emin + 6); break;  // the smallest normal products
    default: top = r.range(2 * lo, 2 * hi); break;
  }
  const int spread = 1 + static_cast<int>(r.below(r.below(2) ? 3 : 30));
  for (std::size_t t = 0; t < K; ++t) {
    const int s = top - static_cast<int>(r.below(static_cast<std::uint64_t>(spread)));
    const int ea_lo = std::max(lo, s - hi), ea_hi = std::min(hi, s - lo);
    switch (ea_lo > ea_hi ? 0 : r.below(12)) {
      case 0: a[t] = zero_pattern(in, r); b[t] = r.below(2) ? zero_pattern(in, r) : random_finite(in, r); break;
      case 1: a[t] = random_subnormal_or_tiny(in, r); b[t] = random_finite(in, r); break;
      case 2: a[t] = random_special(in, r); b[t] = random_finite(in, r); break;
      default: {
        const int ea = r.range(ea_lo, ea_hi);
        a[t] = value_with_lead(in, r, ea);
        b[t] = value_with_lead(in, r, s - ea);
      }
    }
  }
  // Pairs that cancel: exactly (a zero sum: +0, or -0 from two -0 products elsewhere), or to
  // a few ulps of the products (a tiny sum, flushed below 2^-126).
  if (r.below(2))
    for (std::size_t t = 0; t + 1 < K; t += 2) {
      a[t + 1] = negate(in, a[t]);
      b[t + 1] = b[t];
      if (r.below(2)) a[t + 1] ^= 1 + r.below(3);
    }
  switch (r.below(6)) {
    case 0: c = zero_pattern(out, r); break;
    case 1: c = random_subnormal_or_tiny(out, r); break;
    case 2: c = random_finite(out, r); break;
    case 3: c = r.below(4) ? value_with_lead(out, r, std::clamp(-126 + r.range(-2, 2), lowest_lead(out), out.emax))
                           : random_special(out, r);
      break;
    default:  // near the products: the last addition may cancel
      c = value_with_lead(out, r, std::clamp(top + r.range(-2, 1), lowest_lead(out), out.emax));
      break;
  }
}

}  // namespace tcsim::reftest
