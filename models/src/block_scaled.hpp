// Block-scaled (MX) block FMA: the fused multi-operand sum with per-product scale factors.
//
// FixedPointAdder (sim/adder.hpp) takes operands as bit patterns of fixed formats and has
// no way to pass scale factors, so models builds the scaled exact terms here and runs the
// same datapath as the adder's deferred path (units.md section 1 steps 1-5): E = max
// reference exponent (clamped by min_exponent), F bits below 2^E, alignment rounding and
// sticky bit as configured, exact sum with carry-bit wrap, one rounding to the output.
// A hook in FixedPointAdder taking per-product exponent offsets would let this reuse the
// adder (requested from the sim owner).
#pragma once
#include <cstdint>
#include <span>

#include "tcsim/sim/adder.hpp"

namespace tcsim::models::detail {

// One block FMA of k = a.size() products with per-product scale patterns sa[i], sb[i] of
// `scale_format` (the caller expands per-block scales to per-product ones).
// group_size 0: every scaled product a_i b_i sa_i sb_i is a term with reference exponent
// e_a + e_b (unnormalised, as the adder) + the scales' exponents.
// group_size g > 0: products [jg, jg+g) are summed exactly, multiplied by the group's
// scales (those of its first product) and form one term whose reference exponent is its
// leading bit.
// c and the result are patterns of cfg.out_format; a, b of cfg.a_format / cfg.b_format.
std::uint64_t scaled_block_fma(const AdderConfig& cfg, int group_size, const Format& scale_format,
                               std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                               std::span<const std::uint64_t> sa, std::span<const std::uint64_t> sb,
                               std::uint64_t c);

}  // namespace tcsim::models::detail
