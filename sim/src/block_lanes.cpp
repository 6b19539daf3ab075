// The SIMD core of the block kernel (see block_lanes.hpp), compiled once per SIMD target by
// Google Highway and chosen at run time (AVX-512, AVX2, SSE4, scalar, ...).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "block_lanes.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>

#include "block_lanes-inl.h"

#include <algorithm>
#include <cmath>
#include <limits>

HWY_BEFORE_NAMESPACE();
namespace tcsim::lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

std::size_t LaneCount() { return hn::Lanes(hn::ScalableTag<double>()); }


void BlockFma(const LaneParams& p, std::size_t n, std::size_t len, const double* a_value, const double* a_eref,
              bool a_broadcast, const double* b_value, const double* b_eref, std::size_t ld, const double* c_value,
              const double* c_eref, std::uint64_t* d_out, double* d_value, double* d_eref, std::uint8_t* fixup) {
  const hn::ScalableTag<double> d;
  using VD = hn::Vec<decltype(d)>;
  const std::size_t N = hn::Lanes(d);
  const OutRounding rounding(p, p.final_rounding);
  const BlockEnd end(p);

  for (std::size_t i = 0; i < n; i += N) {
    // E over the nonzero terms (zeros carry kZeroExponent), then the clamp.
    VD E = hn::LoadU(d, c_eref + i);
    for (std::size_t t = 0; t < len; ++t) {
      const VD ea = a_broadcast ? hn::Set(d, a_eref[t]) : hn::LoadU(d, a_eref + t * ld + i);
      E = hn::Max(E, hn::Add(ea, hn::LoadU(d, b_eref + t * ld + i)));
    }
    auto bad = end.ClampE(E);
    VD shift, scale;
    bad = hn::Or(bad, end.Scale(E, shift, scale));
    VD s = end.Term(hn::LoadU(d, c_value + i), scale);
    for (std::size_t t = 0; t < len; ++t) {
      const VD va = a_broadcast ? hn::Set(d, a_value[t]) : hn::LoadU(d, a_value + t * ld + i);
      s = hn::Add(s, end.Term(hn::Mul(va, hn::LoadU(d, b_value + t * ld + i)), scale));
    }
    // NaN/Inf operands make s non-finite; zero sums, wraps go to the exact path.
    FinishLane(end, rounding, s, shift, bad, d_out + i, d_value ? d_value + i : nullptr, d_eref ? d_eref + i : nullptr,
               fixup + i);
  }
}

void BlockFmaGroups(const LaneParams& p, std::size_t n, std::size_t len, std::size_t group, const double* a_value,
                    bool a_broadcast, const double* b_value, std::size_t ld, const double* c_value, const double* c_eref,
                    std::uint64_t* d_out, double* d_value, double* d_eref, std::uint8_t* fixup) {
  const hn::ScalableTag<double> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const hn::RebindToSigned<decltype(d)> di;
  using VD = hn::Vec<decltype(d)>;
  using VU = hn::Vec<decltype(du)>;
  const std::size_t N = hn::Lanes(d);
  constexpr std::size_t kMaxGroups = kMaxPatternLen;
  const VD zero_e = hn::Set(d, kZeroExponent), bias = hn::Set(d, 1023.0);
  const VU field_mask = hn::Set(du, 0x7ff);
  const OutRounding rounding(p, p.final_rounding);
  const BlockEnd end(p);
  const std::size_t groups = (len + group - 1) / group;
  VD G[kMaxGroups];

  for (std::size_t i = 0; i < n; i += N) {
    // The exact group sums, and E over the nonzero ones (each on its own leading bit) and c.
    VD E = hn::LoadU(d, c_eref + i);
    for (std::size_t g = 0; g < groups; ++g) {
      VD sum = hn::Zero(d);
      for (std::size_t t = g * group; t < std::min(len, (g + 1) * group); ++t)
        sum = hn::MulAdd(a_broadcast ? hn::Set(d, a_value[t]) : hn::LoadU(d, a_value + t * ld + i),
                         hn::LoadU(d, b_value + t * ld + i), sum);
      G[g] = sum;
      const VU field = hn::And(hn::ShiftRight<52>(hn::BitCast(du, sum)), field_mask);
      const VD lead = hn::Sub(hn::ConvertTo(d, hn::BitCast(di, field)), bias);
      E = hn::Max(E, hn::IfThenElse(hn::Eq(sum, hn::Zero(d)), zero_e, lead));
    }
    auto bad = end.ClampE(E);
    VD shift, scale;
    bad = hn::Or(bad, end.Scale(E, shift, scale));
    VD s = end.Term(hn::LoadU(d, c_value + i), scale);
    for (std::size_t g = 0; g < groups; ++g) s = hn::Add(s, end.Term(G[g], scale));
    // NaN/Inf operands make s non-finite; zero sums, wraps go to the exact path.
    FinishLane(end, rounding, s, shift, bad, d_out + i, d_value ? d_value + i : nullptr, d_eref ? d_eref + i : nullptr,
               fixup + i);
  }
}

void AddRound(const LaneParams& p, int rounding_mode, std::size_t n, const double* x, const double* y,
              std::uint64_t* d_out, double* d_value, double* d_eref, std::uint8_t* fixup) {
  const hn::ScalableTag<double> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  using VD = hn::Vec<decltype(d)>;
  using VU = hn::Vec<decltype(du)>;
  const std::size_t N = hn::Lanes(d);
  const OutRounding rounding(p, rounding_mode);
  for (std::size_t i = 0; i < n; i += N) {
    const VD sum = hn::Add(hn::LoadU(d, x + i), hn::LoadU(d, y + i));
    auto bad = hn::Or(hn::Not(hn::IsFinite(sum)), hn::Eq(sum, hn::Zero(d)));
    VU out;
    VD value, eref;
    bad = hn::Or(bad, rounding.Round(sum, out, value, eref));
    hn::StoreU(out, du, d_out + i);
    hn::StoreU(value, d, d_value + i);
    hn::StoreU(eref, d, d_eref + i);
    StoreFlags(d, bad, fixup + i);
  }
}

}  // namespace tcsim::lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();


#if HWY_ONCE
namespace tcsim::lanes {

HWY_EXPORT(LaneCount);
HWY_EXPORT(BlockFma);
HWY_EXPORT(AddRound);
HWY_EXPORT(BlockFmaGroups);

std::size_t lane_count() { return HWY_DYNAMIC_DISPATCH(LaneCount)(); }

void block_fma(const LaneParams& p, std::size_t n, std::size_t len, const double* a_value, const double* a_eref,
               bool a_broadcast, const double* b_value, const double* b_eref, std::size_t ld,
               const double* c_value, const double* c_eref, std::uint64_t* d, double* d_value, double* d_eref,
               std::uint8_t* fixup) {
  HWY_DYNAMIC_DISPATCH(BlockFma)(p, n, len, a_value, a_eref, a_broadcast, b_value, b_eref, ld, c_value, c_eref, d,
                                 d_value, d_eref, fixup);
}

void block_fma_groups(const LaneParams& p, std::size_t n, std::size_t len, std::size_t group, const double* a_value,
                      bool a_broadcast, const double* b_value, std::size_t ld, const double* c_value, const double* c_eref,
                      std::uint64_t* d, double* d_value, double* d_eref, std::uint8_t* fixup) {
  HWY_DYNAMIC_DISPATCH(BlockFmaGroups)(p, n, len, group, a_value, a_broadcast, b_value, ld, c_value, c_eref, d, d_value, d_eref,
                                       fixup);
}

void add_round(const LaneParams& p, int rounding, std::size_t n, const double* x, const double* y, std::uint64_t* d,
               double* d_value, double* d_eref, std::uint8_t* fixup) {
  HWY_DYNAMIC_DISPATCH(AddRound)(p, rounding, n, x, y, d, d_value, d_eref, fixup);
}

}  // namespace tcsim::lanes
#endif

