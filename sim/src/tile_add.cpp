// tile_add_rne (tile_add.hpp), compiled once per SIMD target by Google Highway.
// binary32: the host's IEEE addition is the operation wherever operands and sum are normal or
// zero (no FTZ/DAZ question) and the sum is finite. binary16: x + c is rounded to binary32
// (RNE) and its error taken by TwoSum (exact: every binary16 number is a multiple of 2^-24,
// so nothing reaches binary32's subnormals, and no sum of two overflows binary32); the binary32
// sum made round-to-odd from the error's sign keeps 24 >= 11 + 2 bits, so its rounding to
// binary16 (to nearest even, in integers) is the one correct rounding of the exact sum.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tile_add.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>

#include <algorithm>
#include <limits>

#include "tcsim/sim/tile_add.hpp"
#include "tile_add-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tcsim::lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <bool kBinary16>
std::size_t AddLanes(std::size_t n, const float* xs, const float* cs, std::uint64_t* d_bits, float* d_value,
                     std::int32_t* d_eref, std::uint32_t* flagged) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::RebindToUnsigned<decltype(df)> du;
  const std::size_t NF = hn::Lanes(df);
  HWY_ALIGN std::uint8_t lane_flags[HWY_MAX_BYTES / 4 + 8];
  std::size_t count = 0;
  for (std::size_t i = 0; i < n; i += NF) {
    const std::size_t lanes = std::min(NF, n - i);
    HWY_ALIGN float xt[HWY_MAX_BYTES / 4] = {}, ct[HWY_MAX_BYTES / 4] = {};
    if (lanes < NF) {  // the tail through one padded vector
      std::copy_n(xs + i, lanes, xt);
      std::copy_n(cs + i, lanes, ct);
    }
    const auto x = lanes == NF ? hn::LoadU(df, xs + i) : hn::Load(df, xt);
    const auto c = lanes == NF ? hn::LoadU(df, cs + i) : hn::Load(df, ct);
    hn::Vec<decltype(du)> bits;
    hn::Vec<decltype(df)> value;
    hn::Vec<decltype(di)> eref;
    const auto bad = AddVec<kBinary16>(df, x, c, bits, value, eref);
#if HWY_TARGET != HWY_SCALAR
    if (lanes == NF) {
      const hn::Half<decltype(du)> du_half;
      const hn::Repartition<std::uint64_t, decltype(df)> du64;
      hn::StoreU(hn::PromoteTo(du64, hn::LowerHalf(du_half, bits)), du64, d_bits + i);
      hn::StoreU(hn::PromoteTo(du64, hn::UpperHalf(du_half, bits)), du64, d_bits + i + NF / 2);
      hn::StoreU(value, df, d_value + i);
      hn::StoreU(eref, di, d_eref + i);
    } else
#endif
    {
      HWY_ALIGN std::uint32_t b32[HWY_MAX_BYTES / 4];
      HWY_ALIGN float v32[HWY_MAX_BYTES / 4];
      HWY_ALIGN std::int32_t e32[HWY_MAX_BYTES / 4];
      hn::Store(bits, du, b32);
      hn::Store(value, df, v32);
      hn::Store(eref, di, e32);
      for (std::size_t l = 0; l < lanes; ++l) d_bits[i + l] = b32[l], d_value[i + l] = v32[l], d_eref[i + l] = e32[l];
    }
    if (HWY_UNLIKELY(!hn::AllFalse(df, bad))) {
      hn::StoreMaskBits(df, bad, lane_flags);
      for (std::size_t l = 0; l < lanes; ++l)
        if ((lane_flags[l / 8] >> (l % 8)) & 1) flagged[count++] = static_cast<std::uint32_t>(i + l);
    }
  }
  return count;
}

std::size_t TileAddRne(bool binary16, std::size_t n, const float* x, const float* c, std::uint64_t* d_bits,
                       float* d_value, std::int32_t* d_eref, std::uint32_t* flagged) {
  return binary16 ? AddLanes<true>(n, x, c, d_bits, d_value, d_eref, flagged)
                  : AddLanes<false>(n, x, c, d_bits, d_value, d_eref, flagged);
}

// Patterns (binary16 or binary32 in the low bits) as their exact binary32 values; NaN for NaN,
// Inf and patterns with bits above the width, so that AddLanes flags them for the exact
// addition. m entries of bits into out, padded with +0 to whole vectors (out holds kBlock).
template <std::size_t kBlock>
void PatternValues(bool binary16, std::size_t m, const std::uint64_t* bits, float* out) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const std::size_t NF = hn::Lanes(df);
  std::uint32_t* u = reinterpret_cast<std::uint32_t*>(out);
#if HWY_TARGET == HWY_SCALAR
  for (std::size_t l = 0; l < m; ++l)
    u[l] = bits[l] >> (binary16 ? 16 : 32) ? (binary16 ? 0x7e00u : 0x7fc00000u) : static_cast<std::uint32_t>(bits[l]);
#else
  // Stage 1: 64-bit patterns truncated to 32 bits, stray high bits made NaN patterns.
  const hn::ScalableTag<std::uint64_t> d64;
  const hn::Rebind<std::uint32_t, decltype(d64)> d32;
  const std::size_t N64 = hn::Lanes(d64);
  const auto nan64 = hn::Set(d64, binary16 ? 0x7e00u : 0x7fc00000u);
  std::size_t l = 0;
  for (; l + N64 <= m; l += N64) {
    const auto v = hn::LoadU(d64, bits + l);
    const auto high = binary16 ? hn::ShiftRight<16>(v) : hn::ShiftRight<32>(v);
    hn::StoreU(hn::TruncateTo(d32, hn::IfThenElse(hn::Eq(high, hn::Zero(d64)), v, nan64)), d32, u + l);
  }
  for (; l < m; ++l)
    u[l] = bits[l] >> (binary16 ? 16 : 32) ? (binary16 ? 0x7e00u : 0x7fc00000u) : static_cast<std::uint32_t>(bits[l]);
#endif
  const std::size_t padded = (m + NF - 1) / NF * NF;
  std::fill(u + m, u + std::min(padded, kBlock), 0u);
  if (!binary16) return;  // binary32 patterns are their values
  // Stage 2: binary16 fields rebiased (normal), or the significand times 2^-24 (subnormal).
  const auto mag_mask = hn::Set(di, 0x7fff), first_normal = hn::Set(di, 0x400), top = hn::Set(di, 0x7c00);
  const auto rebias = hn::Set(di, 112 << 23);
  const auto nan = hn::Set(df, std::numeric_limits<float>::quiet_NaN());
  for (std::size_t i = 0; i < padded; i += NF) {
    const auto p = hn::LoadU(di, reinterpret_cast<const std::int32_t*>(u) + i);
    const auto mag = hn::And(p, mag_mask);
    const auto normal = hn::BitCast(df, hn::Add(hn::ShiftLeft<13>(mag), rebias));
    const auto subnormal = hn::Mul(hn::ConvertTo(df, mag), hn::Set(df, 0x1p-24f));
    auto v = hn::IfThenElse(hn::RebindMask(df, hn::Lt(mag, first_normal)), subnormal, normal);
    v = hn::BitCast(df, hn::Or(hn::BitCast(di, v), hn::ShiftLeft<16>(hn::And(p, hn::Set(di, 0x8000)))));
    v = hn::IfThenElse(hn::RebindMask(df, hn::Lt(mag, top)), v, nan);
    hn::StoreU(v, df, out + i);
  }
}

std::size_t PatternAddRne(bool binary16, std::size_t n, const std::uint64_t* x_bits, const std::uint64_t* c_bits,
                          std::uint64_t* d_bits, std::uint32_t* flagged) {
  constexpr std::size_t kBlock = 256;
  HWY_ALIGN float xs[kBlock], cs[kBlock], value[kBlock];
  HWY_ALIGN std::int32_t eref[kBlock];
  std::size_t count = 0;
  for (std::size_t i0 = 0; i0 < n; i0 += kBlock) {
    const std::size_t m = std::min(kBlock, n - i0);
    PatternValues<kBlock>(binary16, m, x_bits + i0, xs);
    PatternValues<kBlock>(binary16, m, c_bits + i0, cs);
    const std::size_t got = binary16 ? AddLanes<true>(m, xs, cs, d_bits + i0, value, eref, flagged + count)
                                     : AddLanes<false>(m, xs, cs, d_bits + i0, value, eref, flagged + count);
    for (std::size_t f = count; f < count + got; ++f) flagged[f] += static_cast<std::uint32_t>(i0);
    count += got;
  }
  return count;
}

}  // namespace tcsim::lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tcsim::lanes {

HWY_EXPORT(TileAddRne);
HWY_EXPORT(PatternAddRne);

std::size_t pattern_add_rne(bool binary16, std::size_t n, const std::uint64_t* x_bits, const std::uint64_t* c_bits,
                            std::uint64_t* d_bits, std::uint32_t* flagged) {
  return HWY_DYNAMIC_DISPATCH(PatternAddRne)(binary16, n, x_bits, c_bits, d_bits, flagged);
}

std::size_t tile_add_rne(bool binary16, std::size_t n, const float* x, const float* c, std::uint64_t* d_bits,
                         float* d_value, std::int32_t* d_eref, std::uint32_t* flagged) {
  return HWY_DYNAMIC_DISPATCH(TileAddRne)(binary16, n, x, c, d_bits, d_value, d_eref, flagged);
}

}  // namespace tcsim::lanes
#endif
