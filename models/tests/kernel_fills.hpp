// The element fills of the kernel differential tests (test_kernel_differential.cpp) beyond
// kernel_cases.hpp's fill_element: the bf16/tf32 range edges, the block-scaled group sums, and
// half-and-half mixes with fill_element. Each fill draws one element's K operand pairs and
// its c from r (the same stream for the same seed).
#pragma once
#include <algorithm>
#include <cstdint>

#include "kernel_cases.hpp"
#include "operand_gen.hpp"
#include "tcsim/sim/format.hpp"

namespace tcsim::reftest {

// The signature of every fill: operands a[0..K), b[0..K) in `in`, c in `out`.
using Fill = void (*)(const Format& in, const Format& out, Rng& r, std::uint64_t* a, std::uint64_t* b, std::size_t K,
                      std::uint64_t& c);

// bf16 and tf32 products reach 2^-266 .. 2^256, beyond binary32's range, and the tile and planar
// paths compute them in binary32 lanes: they flag outputs with E above 126 (a product could
// overflow) or F - E above 120 (a term that counts could be subnormal). Elements here put
// their largest product at those bounds (give or take a few binades), at the bottom of the
// range or anywhere, spread products below it by 1 to 300 binades, and put c near E.
inline void fill_range_edges(const Format& in, const Format& out, Rng& r, std::uint64_t* a, std::uint64_t* b,
                             std::size_t K, std::uint64_t& c) {
  const int lo = lowest_lead(in), hi = in.emax;
  int top = 0;
  switch (r.below(4)) {
    case 0: top = r.range(2 * hi - 10, 2 * hi); break;  // products near 2^256: beyond binary32
    case 1: top = r.range(118, 130); break;             // E around the overflow flag (126)
    case 2: top = r.range(-130, -80); break;            // E - F around -120 (F = 23..26)
    default: top = r.range(2 * lo, 2 * hi); break;
  }
  const int spreads[] = {1, 4, 12, 40, 300};
  const int spread = spreads[r.below(5)];
  for (std::size_t t = 0; t < K; ++t) {
    const int s = top - static_cast<int>(r.below(static_cast<std::uint64_t>(spread)));
    const int ea_lo = std::max(lo, s - hi), ea_hi = std::min(hi, s - lo);
    if (ea_lo > ea_hi || r.below(8) == 0) {
      a[t] = zero_pattern(in, r);
      b[t] = random_finite(in, r);
      continue;
    }
    const int ea = r.range(ea_lo, ea_hi);
    a[t] = value_with_lead(in, r, ea);
    b[t] = value_with_lead(in, r, s - ea);
  }
  switch (r.below(4)) {
    case 0: c = zero_pattern(out, r); break;
    case 1: c = random_finite(out, r); break;
    default: c = value_with_lead(out, r, std::clamp(top + r.range(-30, 2), lowest_lead(out), out.emax)); break;
  }
}

// Half of the elements from F, half from fill_element (one draw of r decides).
template <Fill F>
void half_with_elements(const Format& in, const Format& out, Rng& r, std::uint64_t* a, std::uint64_t* b, std::size_t K,
                        std::uint64_t& c) {
  if (r.below(2)) F(in, out, r, a, b, K, c);
  else fill_element(in, out, r, a, b, K, c);
}

// Block-scaled rows without scales (every scale 1: dot_batch and gemm): elements of
// kernel_cases.hpp, and on purpose groups of 16 products that cancel exactly beside groups
// that do not (a zero group sum sets no E), c = +-1 or a power of two with tiny products
// (subnormal elements: truncated or kept by the alignment), and zero blocks.
inline void fill_groups(const Format& in, const Format& out, Rng& r, std::uint64_t* a, std::uint64_t* b, std::size_t K,
                        std::uint64_t& c) {
  fill_element(in, out, r, a, b, K, c);
  switch (r.below(4)) {
    case 0:  // some groups of 16 cancel exactly
      for (std::size_t g = 0; g < K; g += 16)
        if (r.below(2))
          for (std::size_t t = g; t + 1 < std::min(K, g + 16); t += 2) {
            a[t + 1] = negate(in, a[t]);
            b[t + 1] = b[t];
          }
      break;
    case 1: {  // c = +-2^e (often +-1), products of subnormal or tiny elements
      const int e = r.below(2) ? 0 : r.range(-40, 40);
      std::uint64_t p = 0;
      if (power_of_two(out, e, r.next() & 1, p)) c = p;
      for (std::size_t t = 0; t < K; ++t) {
        a[t] = r.below(4) ? random_subnormal_or_tiny(in, r) : zero_pattern(in, r);
        b[t] = r.below(2) ? random_subnormal_or_tiny(in, r) : random_finite(in, r);
      }
      break;
    }
    case 2:  // a zero block: every product has a zero factor
      for (std::size_t t = 0; t < K; ++t) a[t] = zero_pattern(in, r);
      break;
    default: break;
  }
}

}  // namespace tcsim::reftest
