// Private to sim/src: the product sums of the after-add (CDNA3) blocks of dot_batch in binary32
// and int32 lanes (issue 25; sim/src/after_dot_lanes.cpp, compiled once per Highway target).
// Each lane is one element with its own operands, decoded in the lanes from their bit patterns
// (product-major planes of 16- or 32-bit patterns); the result per lane is what the binary64
// lanes (amd_lanes.cpp, after_add_block) need to finish the block: the product sum s in units
// of 2^(e_dot - F) as the value s 2^(e_dot - F) and 2^-e_dot, so that after_add_block with one
// "product" of that value and 2^-e_dot (and operand 1) runs the very same floors, c, the
// renormalization and the rounding (one implementation of after_sum's binary64 steps).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>

#include "amd_lanes.hpp"
#include "tcsim/sim/adder.hpp"

namespace tcsim {

// The lanes' parameters of an after-add configuration (after_add.cpp's run(), gemm_tile() and
// amd_dot_batch.cpp's dot_chain share them).
inline amd_lanes::AfterParams after_lane_params(const AdderConfig& cfg) {
  amd_lanes::AfterParams p;
  p.fraction_bits = cfg.fraction_bits;
  p.groups = cfg.product_groups;
  p.sum_bits = cfg.after.sum_fraction_bits;
  p.c_bits = cfg.after.c_fraction_bits;
  p.renormalize_bits = cfg.after.renormalize_fraction_bits.value_or(0);
  p.drop_c_below = cfg.after.drop_c_below.value_or(-1);
  p.positive_zero = cfg.zero_sign == ZeroSign::Positive;
  return p;
}

namespace after_dot {

// An operand format's fields for decoding in uint32 lanes as AfterAddKernel::decode does:
// the low fraction bits input_fraction_bits drops cleared first (keep), then normal numbers
// moved to binary32's places, subnormals either moved too (bias 127: they are binary32
// subnormals of the same bits) or converted (frac 2^(emin - frac_bits), normal in binary32).
// Special patterns (NaN, Inf) and bits beyond the width are flagged, never decoded.
struct Fields {
  int width = 16, frac_bits = 10, exp_bits = 5, bias = 15, emin = -14;
  std::uint32_t keep = ~0u;
  int top = 30;                 // the largest exponent field of finite numbers: larger fields are Inf/NaN
  bool nan_negative_zero = false, nan_all_ones = false;  // FNUZ's NaN 0x80; OCP E4M3's S.1111.111
  bool move_subnormals = false;
};

// Fields of f (after input_fraction_bits), or nullopt where the lanes cannot decode it exactly:
// unsigned or zero-less formats, more than 12 significand bits (products not exact in
// binary32), subnormals that would be binary32 subnormals without bias 127, wider than 32 bits.
std::optional<Fields> fields_of(const Format& f, std::optional<int> input_fraction_bits);

struct Params {
  Fields a, b;
  int fraction_bits = 24, groups = 1;  // groups 1 or 2 (AfterAddKernel::tiles_supported)
};

// One block of len products (len <= 64) for lanes [0, w), w a multiple of amd_lanes::kPad:
// element j's operand t at a[t * ld + j], b[t * ld + j]. Writes val[j] = s 2^(e_dot - F),
// inv[j] = 2^-e_dot (val 0 and inv +Inf without a nonzero product), and val[j] = NaN for lanes
// the binary64 lanes must flag (NaN/Inf or wide patterns, a group's e_g above 126 or, with a
// product that counts, below F - 120: amd_lanes.cpp's tile bounds). Each group's sum: the
// products (exact in binary32) times 2^(F - e_g) truncated to int32 and summed (below 2^30 by
// tiles_supported), combined at e_dot by arithmetic shifts (floors), as after_add_tile.
void block_sums(const Params& p, std::size_t w, std::size_t len, const std::uint16_t* a, const std::uint16_t* b,
                std::size_t ld, double* val, double* inv);
void block_sums(const Params& p, std::size_t w, std::size_t len, const std::uint32_t* a, const std::uint32_t* b,
                std::size_t ld, double* val, double* inv);

}  // namespace after_dot
}  // namespace tcsim
