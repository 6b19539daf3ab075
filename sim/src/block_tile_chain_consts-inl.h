// Private to sim/src: the tile chains' constants and the helpers of their epilogue
// (block_tile_chain.cpp), included once per Highway target: the chunk of K a strip's loop runs,
// binary32 outputs' top E, the fused epilogue's constants (ChainConsts), int32 -> binary32
// rounded toward zero and the stores of d's patterns.
#if defined(TCSIM_SIM_BLOCK_TILE_CHAIN_CONSTS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TCSIM_SIM_BLOCK_TILE_CHAIN_CONSTS_INL_H_
#undef TCSIM_SIM_BLOCK_TILE_CHAIN_CONSTS_INL_H_
#else
#define TCSIM_SIM_BLOCK_TILE_CHAIN_CONSTS_INL_H_
#endif

#include <hwy/highway.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "block_lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tcsim::lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
// Products per chunk of K in BlockTileChain's loop (rounded down to whole blocks or instructions).
constexpr std::size_t kChainChunk = 256;

// Binary32 outputs of the plain chains: raw E above F + kB32TopE is flagged (see MicroChain).
constexpr int kB32TopE = 97;

// The constants of the fused epilogue (block_tile.cpp's MicroTile), built once per call.
template <class DF>
struct ChainConsts {
  using DI = hn::RebindToSigned<DF>;
  using VI = hn::Vec<DI>;
  VI limit, neg_limit, min_e, F, lo, hi, bias, wrap_below, pow2_sum;
  VI n_rem_mask, n_lsb, n_half, n_min_bits, n_max_bits, n_rebias;
  VI one, abs_mask, sign_mask, normal_lo, h_lo, h_lo_sub, bias23, low7, two24;
  hn::Vec<hn::RebindToUnsigned<DF>> h_span, h_span_sub;
  hn::Vec<hn::Repartition<std::int16_t, DF>> raw_lo, min_e16, f_bias16, field16, bias16, h_emin16;
  hn::Vec<hn::Repartition<std::uint16_t, DF>> raw_span, raw_span32;
  hn::Vec<hn::RebindToUnsigned<DF>> wrap_u, normal_span, half_range, range_max;
  std::size_t chunk = 0;  // products per int32 chunk (tile_chunk_len)
  hn::Vec<DF> min_normal;
  bool rz = false, narrow = false;
  int n_drop = 0, n_sign_shift = 0, rounding = 0;
  ChainConsts(DF df, const LaneParams& p) {
    const DI di;
    (void)df;
    limit = hn::Set(di, kTileMaxE);
    neg_limit = hn::Set(di, -kTileFlagLimit);
    min_e = hn::Set(di, static_cast<std::int32_t>(std::max(p.min_exponent, -1.0e8)));
    F = hn::Set(di, static_cast<std::int32_t>(p.fraction_bits));
    lo = hn::Set(di, -120);
    hi = hn::Set(di, 120);
    bias = hn::Set(di, 127);
    wrap_below = hn::Set(di, static_cast<std::int32_t>(std::min(p.wrap_limit, 0x1p30)) - 1);
    // 2^(E - F) from the scale 2^(F - E): the exponent fields add up to 2 * 127.
    pow2_sum = hn::Set(di, 254 << 23);
    const hn::RebindToUnsigned<DF> du;
    const hn::Repartition<std::int16_t, DF> d16;
    const hn::Repartition<std::uint16_t, DF> du16;
    // Raw E (the largest e_ref sum, c's) valid in [lo, hi]: block_tile's flags (raw E within
    // +-kTileFlagLimit and at most kTileMaxE; F - max(raw E, min_e) within +-120), for a
    // min_e <= F + 120 (BlockTileChain refuses others).
    const int F_int = static_cast<int>(p.fraction_bits);
    const int min_e_int = static_cast<int>(std::max(p.min_exponent, -30000.0));
    const int raw_hi = std::min(kTileMaxE, F_int + 120);
    const int raw_lo_int = min_e_int >= F_int - 120 ? -kTileFlagLimit : std::max(-kTileFlagLimit, F_int - 120);
    raw_lo = hn::Set(d16, static_cast<std::int16_t>(raw_lo_int));
    raw_span = hn::Set(du16, static_cast<std::uint16_t>(raw_hi - raw_lo_int));
    // Binary32 outputs of the plain chains (kChainB32Rz/Rne, issue 25, h100h): raw E at most
    // F + kB32TopE too, which makes the result's range check redundant (MicroChain).
    raw_span32 = hn::Set(du16, static_cast<std::uint16_t>(std::min(raw_hi, F_int + kB32TopE) - raw_lo_int));
    min_e16 = hn::Set(d16, static_cast<std::int16_t>(min_e_int));
    f_bias16 = hn::Set(d16, static_cast<std::int16_t>(F_int + 127));
    field16 = hn::Set(d16, static_cast<std::int16_t>(0x7f80));  // binary32's exponent field in the upper half
    bias16 = hn::Set(d16, static_cast<std::int16_t>(127));
    one = hn::Set(di, 1);
    low7 = hn::Set(di, 0x7f);
    two24 = hn::Set(di, 1 << 24);
    bias23 = hn::Set(di, 127 << 23);
    h_lo = hn::Set(di, (127 - 14) << 23);                          // 2^-14
    // Binary16 outputs: |x| (x rounded to odd at 24 bits) flagged outside [2^-14, T), T where
    // the row's rounding could reach Inf (issue 25, i25v100: one check before the rounding
    // instead of one after it): rz below 2^16 never does; rne from 65520 (the midpoint between
    // 65504 and 2^16) on; rd and ru above 65504 (either sign: a few more lanes take the exact path).
    const std::uint32_t h_top = p.final_rounding == 0 ? (127u + 16u) << 23
                                : p.final_rounding == 3 ? 0x477ff000u  // 65520
                                                        : 0x477fe001u;  // just above 65504
    h_span = hn::Set(du, h_top - 1u - ((127u - 14u) << 23));
    // The plain binary16 chains with subnormal outputs kept (p.out_subnormals, issue 25, h100k):
    // |x| flagged below 2^-24 only (x rounds to a nonzero binary16 value in every mode: no zero
    // result, whose sign the chain does not track); c's e_ref then max(exponent, -14), the
    // e_ref of a subnormal c (block_lanes-inl.h: PatternLanes::Decode).
    const std::uint32_t h_low_bits = (p.out_subnormals ? 127u - 24u : 127u - 14u) << 23;
    h_lo_sub = hn::Set(di, static_cast<std::int32_t>(h_low_bits));
    h_span_sub = hn::Set(du, h_top - 1u - h_low_bits);
    h_emin16 = hn::Set(d16, static_cast<std::int16_t>(-14));
    abs_mask = hn::Set(di, 0x7fffffff);
    sign_mask = hn::Set(di, std::numeric_limits<std::int32_t>::min());
    wrap_u = hn::Set(du, static_cast<std::uint32_t>(std::min(p.wrap_limit, 0x1p30)) - 2u);  // wrap_below - 1
    normal_lo = hn::Set(di, 0x00800001);               // just above 2^-126
    normal_span = hn::Set(du, 0x7f7fffffu - 0x00800001u);  // up to the largest finite binary32
    min_normal = hn::Set(df, 0x1p-126f);
    chunk = tile_chunk_len(p.fraction_bits);
    half_range = hn::Set(du, 1u << 30);           // s + 2^30 as unsigned above 2^31 - 1:
    range_max = hn::Set(du, (1u << 31) - 1u);     // s outside [-2^30, 2^30)
    rounding = p.final_rounding;
    rz = p.final_rounding == 0;
    narrow = p.out_precision < 24;
    n_drop = narrow ? 24 - p.out_precision : 0;
    n_rem_mask = hn::Set(di, (1 << n_drop) - 1);
    n_lsb = hn::Set(di, 1 << n_drop);
    n_half = hn::Set(di, narrow ? 1 << (n_drop - 1) : 0);
    n_min_bits = hn::Set(di, (p.out_emin + 127) << 23);
    n_max_bits = hn::Set(di, static_cast<std::int32_t>(
                                 (static_cast<std::uint32_t>(p.out_emax + 127) << 23) |
                                 ((static_cast<std::uint32_t>(p.out_max_finite_significand) << n_drop) & 0x7fffffu)));
    n_rebias = hn::Set(di, (127 - p.out_bias) << (p.out_precision - 1));
    n_sign_shift = 32 - p.out_width;
  }
};

// int32 -> binary32 rounded toward zero (|x| < 2^31 and mag = |x|, or x = mag >= 0): AVX-512's
// conversion with embedded rounding; elsewhere the nearest conversion of mag, one ulp back
// where it went up (block_tile's way), and x's sign.
template <class DF, class DI>
HWY_INLINE hn::Vec<DF> ConvertRz(DF df, DI di, hn::Vec<DI> x, hn::Vec<DI> mag) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3 && HWY_TARGET != HWY_EMU128
  if constexpr (hn::MaxLanes(DI()) * sizeof(std::int32_t) == 64) {
    (void)df, (void)di, (void)mag;
    return hn::Vec<DF>{_mm512_cvt_roundepi32_ps(x.raw, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)};
  }
#endif
  hn::Vec<DF> m = hn::ConvertTo(df, mag);
  const auto up = hn::Gt(TruncToInt32(di, m), mag);
  m = hn::BitCast(df, hn::Add(hn::BitCast(di, m), hn::VecFromMask(di, up)));
  return hn::BitCast(df, hn::Or(hn::BitCast(di, m), hn::And(x, hn::Set(di, std::numeric_limits<std::int32_t>::min()))));
}

// c's state as output bits (binary32's, or the narrow pattern) into d_bits.
template <class DF>
HWY_INLINE void StoreChainBits(DF df, const ChainConsts<DF>& k, hn::Vec<DF> value, std::uint64_t* d_bits) {
  const hn::RebindToSigned<DF> di;
  const hn::RebindToUnsigned<DF> du;
  const hn::Repartition<std::uint64_t, DF> du64;
  const hn::Half<decltype(du)> du_half;
  auto bits = hn::BitCast(du, value);
  if (k.narrow) {
    const auto sign = hn::And(bits, hn::Set(du, 0x80000000u));
    const auto mag = hn::AndNot(hn::BitCast(di, sign), hn::BitCast(di, value));
    const auto pattern = hn::Sub(hn::ShiftRightSame(mag, k.n_drop), k.n_rebias);
    bits = hn::Or(hn::BitCast(du, pattern), hn::ShiftRightSame(sign, k.n_sign_shift));
  }
  hn::StoreU(hn::PromoteTo(du64, hn::LowerHalf(du_half, bits)), du64, d_bits);
  hn::StoreU(hn::PromoteTo(du64, hn::UpperHalf(du_half, bits)), du64, d_bits + hn::Lanes(df) / 2);
}
#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace tcsim::lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // include guard
