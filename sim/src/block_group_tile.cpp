// The block-scaled GEMM tile with group sums (block_lanes.hpp: block_group_tile), compiled once
// per SIMD target by Google Highway and chosen at run time. A micro-tile of kTileRows rows of A
// against kGroupTileVectors binary32 vectors of B's columns keeps each group's sums in
// registers: the products and their sums are exact binary32 operations (BlockKernel::
// group_tile_supported: every product and partial sum a multiple of one power of two with at
// most 24 significant bits); each sum then times the group's scales in binary64 (exact: at
// most 24 + 2 * 8 bits, range checked by the caller), aligned on its leading bit, and the end
// of the block FMA (c, E, alignment, sum, rounding, flags) runs as BlockFmaGroups.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "block_group_tile.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>

#include <algorithm>

#include "block_lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tcsim::lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr std::size_t kGroupTileVectors = 2;
constexpr std::size_t kMaxW = kGroupTileVectors * HWY_MAX_BYTES / 4;  // columns of a micro-tile, at most

std::size_t GroupTileColumns() { return kGroupTileVectors * hn::Lanes(hn::ScalableTag<float>()); }

template <std::size_t MR>
void GroupMicroTile(const LaneParams& p, const OutRounding& rounding, std::size_t len, std::size_t group,
                    const float* a, std::size_t lda, const double* a_scale, std::size_t ldas, const float* b,
                    std::size_t ldb, const double* b_scale, const double* c_value, const double* c_eref,
                    std::size_t ldc, std::uint64_t* d_bits, double* d_value, double* d_eref, std::uint8_t* fixup) {
  const hn::ScalableTag<float> df;
  const hn::ScalableTag<double> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const hn::RebindToSigned<decltype(d)> di;
  const hn::Rebind<float, decltype(d)> df_half;
  using VF = hn::Vec<decltype(df)>;
  using VD = hn::Vec<decltype(d)>;
  using VU = hn::Vec<decltype(du)>;
  constexpr std::size_t NV = kGroupTileVectors;
  const std::size_t NF = hn::Lanes(df), ND = hn::Lanes(d), W = NV * NF;
  const VD zero_e = hn::Set(d, kZeroExponent), bias = hn::Set(d, 1023.0);
  const VU field_mask = hn::Set(du, 0x7ff);
  const BlockEnd end(p);
  const std::size_t groups = (len + group - 1) / group;
  HWY_ALIGN float S[MR * kMaxW];
  HWY_ALIGN double G[kMaxTileGroups * MR * kMaxW];
  HWY_ALIGN double E[MR * kMaxW];
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t j = 0; j < W; j += ND) hn::Store(hn::LoadU(d, c_eref + r * ldc + j), d, E + r * W + j);
  for (std::size_t g = 0; g < groups; ++g) {
    // The group's sums: exact in binary32 (group_tile_supported).
    VF acc[MR][NV];
    for (std::size_t r = 0; r < MR; ++r)
      for (std::size_t v = 0; v < NV; ++v) acc[r][v] = hn::Zero(df);
    for (std::size_t t = g * group; t < std::min(len, (g + 1) * group); ++t) {
      VF bv[NV];
      for (std::size_t v = 0; v < NV; ++v) bv[v] = hn::LoadU(df, b + t * ldb + v * NF);
      for (std::size_t r = 0; r < MR; ++r) {
        const VF av = hn::Set(df, a[r * lda + t]);
        for (std::size_t v = 0; v < NV; ++v) acc[r][v] = hn::MulAdd(av, bv[v], acc[r][v]);
      }
    }
    for (std::size_t r = 0; r < MR; ++r)
      for (std::size_t v = 0; v < NV; ++v) hn::Store(acc[r][v], df, S + r * W + v * NF);
    // Times the scales in binary64 (exact), each term's leading bit into E.
    for (std::size_t r = 0; r < MR; ++r) {
      const VD sa = hn::Set(d, a_scale[r * ldas + g]);
      for (std::size_t j = 0; j < W; j += ND) {
        const VD sum = hn::PromoteTo(d, hn::LoadU(df_half, S + r * W + j));
        const VD term = hn::Mul(hn::Mul(sum, sa), hn::LoadU(d, b_scale + g * ldb + j));
        hn::Store(term, d, G + (g * MR + r) * W + j);
        const VU field = hn::And(hn::ShiftRight<52>(hn::BitCast(du, term)), field_mask);
        const VD lead = hn::Sub(hn::ConvertTo(d, hn::BitCast(di, field)), bias);
        const VD e = hn::Load(d, E + r * W + j);
        hn::Store(hn::Max(e, hn::IfThenElse(hn::Eq(term, hn::Zero(d)), zero_e, lead)), d, E + r * W + j);
      }
    }
  }
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t j = 0; j < W; j += ND) {
      VD e = hn::Load(d, E + r * W + j);
      auto bad = end.ClampE(e);
      VD shift, scale;
      bad = hn::Or(bad, end.Scale(e, shift, scale));
      const std::size_t at = r * ldc + j;
      VD s = end.Term(hn::LoadU(d, c_value + at), scale);
      for (std::size_t g = 0; g < groups; ++g) s = hn::Add(s, end.Term(hn::Load(d, G + (g * MR + r) * W + j), scale));
      // NaN scales or c make s non-finite; zero sums, wraps go to the exact path.
      FinishLane(end, rounding, s, shift, bad, d_bits + at, d_value + at, d_eref + at, fixup + at);
    }
}

void BlockGroupTile(const LaneParams& p, std::size_t rows, std::size_t cols, std::size_t len, std::size_t group,
                    const float* a, std::size_t lda, const double* a_scale, std::size_t ldas, const float* b,
                    std::size_t ldb, const double* b_scale, const double* c_value, const double* c_eref,
                    std::size_t ldc, std::uint64_t* d_bits, double* d_value, double* d_eref, std::uint8_t* fixup) {
  const OutRounding rounding(p, p.final_rounding);
  const std::size_t W = GroupTileColumns();
  for (std::size_t r0 = 0; r0 < rows; r0 += kTileRows) {
    const std::size_t mr = std::min(kTileRows, rows - r0);
    for (std::size_t j0 = 0; j0 < cols; j0 += W) {
      const float* ar = a + r0 * lda;
      const double* sr = a_scale + r0 * ldas;
      const std::size_t out = r0 * ldc + j0;
#define TCSIM_GROUP_TILE(MR)                                                                                     \
  GroupMicroTile<MR>(p, rounding, len, group, ar, lda, sr, ldas, b + j0, ldb, b_scale + j0, c_value + out,       \
                     c_eref + out, ldc, d_bits + out, d_value + out, d_eref + out, fixup + out)
      switch (mr) {
        case 4: TCSIM_GROUP_TILE(4); break;
        case 3: TCSIM_GROUP_TILE(3); break;
        case 2: TCSIM_GROUP_TILE(2); break;
        default: TCSIM_GROUP_TILE(1); break;
      }
#undef TCSIM_GROUP_TILE
    }
  }
}

}  // namespace tcsim::lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tcsim::lanes {

HWY_EXPORT(GroupTileColumns);
HWY_EXPORT(BlockGroupTile);

std::size_t group_tile_columns() { return HWY_DYNAMIC_DISPATCH(GroupTileColumns)(); }

void block_group_tile(const LaneParams& p, std::size_t rows, std::size_t cols, std::size_t len, std::size_t group,
                      const float* a, std::size_t lda, const double* a_scale, std::size_t ldas, const float* b,
                      std::size_t ldb, const double* b_scale, const double* c_value, const double* c_eref,
                      std::size_t ldc, std::uint64_t* d_bits, double* d_value, double* d_eref, std::uint8_t* fixup) {
  HWY_DYNAMIC_DISPATCH(BlockGroupTile)(p, rows, cols, len, group, a, lda, a_scale, ldas, b, ldb, b_scale, c_value,
                                       c_eref, ldc, d_bits, d_value, d_eref, fixup);
}

}  // namespace tcsim::lanes
#endif
