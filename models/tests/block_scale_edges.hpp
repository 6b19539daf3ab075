// Scale patterns drawn from the edges for the block-scaled tests (test_block_scaled_gemm.cpp,
// test_gemm_scaled_groups.cpp): NaN (ue8m0 0xff, ue4m3 0x7f), the extremes (2^-127, 2^127;
// ue4m3 subnormals, 448 and zero), any pattern, and around 1.
#pragma once
#include <cstdint>

#include "tcsim/sim/format.hpp"
#include "test_support.hpp"

inline std::uint64_t edge_scale(const tcsim::Format& sf, tcsim::test::Rng& r) {
  const bool ue8 = sf.name == "ue8m0";
  switch (r.below(8)) {
    case 0: return ue8 ? 0xff : 0x7f;                                  // NaN
    case 1: return ue8 ? (r.below(2) ? 0x00 : 0x01) : 1 + r.below(7);  // 2^-127, 2^-126; ue4m3 subnormals
    case 2: return ue8 ? (r.below(2) ? 0xfe : 0xfd) : (r.below(2) ? 0x7e : 0x00);  // 2^127; 448 or 0
    case 3: return r.below(sf.width_mask() + 1);                       // anything
    default: return ue8 ? 0x7f - 6 + r.below(13) : 0x38 - 12 + r.below(25);  // around 1
  }
}
