// The planar path for 32-bit patterns (block_planar32.hpp: tf32), compiled once per SIMD target
// by Google Highway and chosen at run time. The structure of block_planar.cpp's 16-bit path: per
// chunk of 128 elements the operand rows copied to a padded stride, E and the scales in int32
// lanes, the truncated scaled products a_t b_t 2^(F - E) as exact binary32 products summed in
// int32 lanes, then c, the sum and the rounding in binary64 lanes (RoundTailLanes).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "block_planar32.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>

#include "block_lanes-inl.h"
#include "block_planar32.hpp"

HWY_BEFORE_NAMESPACE();
namespace tcsim::lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
// Sums of two e_refs beyond +-kPlanar32Flag: a special operand or no nonzero product (the tile
// sentinels kTileSpecial16 / kTileZero16 in int32 lanes). Real sums of two fields are at most 508.
constexpr std::int32_t kPlanar32Flag = 4096;

// One operand format in int32 lanes: e_refs from the exponent field, values by a shift into
// binary32's places.
struct Planar32Lanes {
  using DI = hn::ScalableTag<std::int32_t>;
  using VI = hn::Vec<DI>;
  DI di;
  VI abs_mask, one, zero, zero_sentinel, special_sentinel, special_from, invalid;
  int fraction_bits, to_binary32;

  explicit Planar32Lanes(const PatternCodec& f)
      : abs_mask(hn::Set(di, static_cast<std::int32_t>((std::uint32_t{1} << (f.width - 1)) - 1))), one(hn::Set(di, 1)),
        zero(hn::Zero(di)), zero_sentinel(hn::Set(di, kTileZero16)), special_sentinel(hn::Set(di, kTileSpecial16)),
        special_from(hn::Set(di, static_cast<std::int32_t>(f.top_field << (f.precision - 1)))),
        invalid(hn::Set(di, static_cast<std::int32_t>(f.width >= 32 ? 0u : ~((std::uint32_t{1} << f.width) - 1)))),
        fraction_bits(f.precision - 1), to_binary32(32 - f.width) {}

  // The e_ref plus the bias: the exponent field (1 for subnormals), kTileZero16 for zeros,
  // kTileSpecial16 for NaN/Inf and for patterns with bits above the format's width.
  VI Eref(VI x) const {
    const VI mag = hn::And(x, abs_mask);
    VI e = hn::Max(hn::ShiftRightSame(mag, fraction_bits), one);
    e = hn::IfThenElse(hn::Eq(mag, zero), zero_sentinel, e);
    const auto special = hn::Or(hn::Gt(mag, hn::Sub(special_from, one)), hn::Ne(hn::And(x, invalid), zero));
    return hn::IfThenElse(special, special_sentinel, e);
  }

  // The binary32 value of Lanes(df) patterns (exact: the pattern is binary32's top bits).
  template <class DF>
  hn::Vec<DF> Value(DF df, const std::uint32_t* p) const {
    const hn::RebindToUnsigned<DF> du;
    return hn::BitCast(df, hn::ShiftLeftSame(hn::Load(du, p), to_binary32));
  }
};
#endif

std::size_t Planar32LaneCount() {
#if HWY_TARGET == HWY_SCALAR
  return 0;  // no planar path: callers take the element-major one
#else
  return hn::Lanes(hn::ScalableTag<std::int32_t>());
#endif
}

void BlockFmaPlanar32(const LaneParams& p, const PatternCodec& ca, const PatternCodec& cb, const PatternCodec& cc,
                      std::size_t n, std::size_t len, const std::uint32_t* a, std::size_t lda, const std::uint32_t* b,
                      std::size_t ldb, const std::uint64_t* c_bits, std::uint64_t* d_out, std::uint8_t* fixup) {
#if HWY_TARGET == HWY_SCALAR
  (void)p, (void)ca, (void)cb, (void)cc, (void)n, (void)len, (void)a, (void)lda, (void)b, (void)ldb, (void)c_bits;
  (void)d_out, (void)fixup;
#else
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::RebindToUnsigned<decltype(df)> du;
  const hn::ScalableTag<double> d;
  const hn::Rebind<std::int32_t, decltype(d)> di_d;
  using VF = hn::Vec<decltype(df)>;
  using VI = hn::Vec<decltype(di)>;
  const std::size_t NF = hn::Lanes(df), ND = hn::Lanes(d);
  const Planar32Lanes la(ca), lb(cb);
  const PatternLanes lc(cc, true);
  const OutRounding rounding(p, p.final_rounding);
  const VI flag = hn::Set(di, kPlanar32Flag), no_term = hn::Set(di, kTileZero);
  const VI biases = hn::Set(di, ca.bias + cb.bias);
  const VI min_e = hn::Set(di, static_cast<std::int32_t>(std::max(p.min_exponent, -1.0e8)));
  const VI shift_base = hn::Set(di, static_cast<std::int32_t>(p.fraction_bits));
  const VI lo = hn::Set(di, -126), hi = hn::Set(di, 127), f32_bias = hn::Set(di, 127);
  // Products reach 2^256 and 2^-272: flagged where a product could overflow (E above kTileMaxE)
  // or a term that counts could be below binary32's normal range (F - E above 120).
  const VI max_e = hn::Set(di, kTileMaxE), max_shift = hn::Set(di, 120);
  // Chunks of kChunk elements, their operand rows copied to a padded stride first (rows of a
  // large batch lie a power of two apart and would share cache sets).
  constexpr std::size_t kChunk = 128, kStride = kChunk + 16;  // 9 cache lines: vectors stay aligned
  HWY_ALIGN std::uint32_t pa[kMaxPatternLen * kStride], pb[kMaxPatternLen * kStride];
  HWY_ALIGN double c_value[kChunk], sums[kChunk], exps[kChunk];
  HWY_ALIGN std::int64_t c_eref[kChunk];
  HWY_ALIGN std::int32_t e32[kChunk], s32[kChunk], bad32[kChunk];
  HWY_ALIGN float scales[kChunk];
  for (std::size_t i0 = 0; i0 < n; i0 += kChunk) {
    const std::size_t m = std::min(kChunk, n - i0);
    DecodeCLanes(lc, cc, m, c_bits + i0, c_value, c_eref);
    const bool next = i0 + kChunk < n;
    for (std::size_t t = 0; t < len; ++t) {
      const std::uint32_t *ra = a + t * lda + i0, *rb = b + t * ldb + i0;
      for (std::size_t i = 0; i < m; i += NF) {
        hn::Store(hn::LoadU(du, ra + i), du, pa + t * kStride + i);
        hn::Store(hn::LoadU(du, rb + i), du, pb + t * kStride + i);
      }
      if (next)
        for (std::size_t line = 0; line < kChunk * 4; line += 64) {
          hwy::Prefetch(ra + kChunk + line / 4);
          hwy::Prefetch(rb + kChunk + line / 4);
        }
    }
    // E (the largest sum of exponent fields over the nonzero products, with c and the clamp),
    // the flags and the scales, in int32 lanes.
    for (std::size_t i = 0; i < m; i += NF) {
      VI raw = hn::Set(di, 2 * kTileZero16);
      for (std::size_t t = 0; t < len; ++t) {
        const VI xa = hn::BitCast(di, hn::Load(du, pa + t * kStride + i));
        const VI xb = hn::BitCast(di, hn::Load(du, pb + t * kStride + i));
        raw = hn::Max(raw, hn::Add(la.Eref(xa), lb.Eref(xb)));
      }
      VI c_e = no_term;
      {
        HWY_ALIGN std::int32_t ce[HWY_MAX_BYTES / 4];
        for (std::size_t l = 0; l < NF; ++l)
          ce[l] = c_eref[i + l] == kNoTerm ? kTileZero
                                           : static_cast<std::int32_t>(std::clamp<std::int64_t>(c_eref[i + l], -(1 << 20), 1 << 20));
        c_e = hn::Load(di, ce);
      }
      const VI prod_e = hn::IfThenElse(hn::Lt(raw, hn::Neg(flag)), no_term, hn::Sub(raw, biases));
      const VI e_raw = hn::Max(prod_e, c_e);
      const VI E = hn::Max(e_raw, min_e);
      const VI shift = hn::Sub(shift_base, E);
      auto bad = hn::Or(hn::Or(hn::Gt(raw, flag), hn::Lt(e_raw, hn::Set(di, -(1 << 25)))),
                        hn::Or(hn::Gt(shift, hi), hn::Lt(shift, lo)));
      bad = hn::Or(bad, hn::Or(hn::Gt(e_raw, max_e), hn::Gt(shift, max_shift)));
      hn::Store(hn::BitCast(df, hn::ShiftLeft<23>(hn::Add(hn::Min(hn::Max(shift, lo), hi), f32_bias))), df, scales + i);
      hn::Store(E, di, e32 + i);
      hn::Store(hn::VecFromMask(di, bad), di, bad32 + i);
    }
    // Sum pass: one element per lane.
    for (std::size_t i = 0; i < m; i += NF) {
      const VF scale = hn::Load(df, scales + i);
      VI sum = hn::Zero(di);
      for (std::size_t t = 0; t < len; ++t) {
        const VF va = la.Value(df, pa + t * kStride + i), vb = lb.Value(df, pb + t * kStride + i);
        sum = hn::Add(sum, TruncToInt32(di, hn::Mul(hn::Mul(va, vb), scale)));
      }
      hn::Store(sum, di, s32 + i);
    }
    for (std::size_t i = 0; i < m; i += ND) {
      hn::Store(hn::PromoteTo(d, hn::Load(di_d, s32 + i)), d, sums + i);
      hn::Store(hn::PromoteTo(d, hn::Load(di_d, e32 + i)), d, exps + i);
    }
    for (std::size_t i = 0; i < m; ++i) fixup[i0 + i] = bad32[i] != 0 || !std::isfinite(c_value[i]);
    RoundTailLanes(p, rounding, m, sums, exps, c_value, d_out + i0, fixup + i0);
  }
#endif
}

}  // namespace tcsim::lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tcsim::lanes {

HWY_EXPORT(BlockFmaPlanar32);
HWY_EXPORT(Planar32LaneCount);

std::size_t planar32_lane_count() { return HWY_DYNAMIC_DISPATCH(Planar32LaneCount)(); }

bool planar32_supported(const LaneParams& p, const PatternCodec& a, const PatternCodec& b, const PatternCodec& c,
                        bool keep_subnormals, std::size_t max_len) {
  auto fits = [](const PatternCodec& f) {  // binary32's top bits: sign, 8-bit field (bias 127), <= 11 fraction bits
    const int fraction = f.precision - 1;
    return f.width > 16 && f.width <= 32 && f.width == 1 + 8 + fraction && fraction <= 11 && f.bias == 127 &&
           f.emin == -126 && f.top_field == 255 && f.nan == 0;
  };
  if (!keep_subnormals || p.alignment != 0 || !fits(a) || !fits(b) || max_len > kMaxPatternLen) return false;
  int len_bits = 0;
  while ((std::size_t{1} << len_bits) < max_len) ++len_bits;
  if (p.fraction_bits + 2 + len_bits > 31) return false;  // the int32 sum of the block stays exact
  return c.precision <= 53 && c.emin - (c.precision - 1) >= -1022 && c.bias < 1023 && p.fraction_bits + 3 + len_bits <= 53;
}

void block_fma_planar32(const LaneParams& p, const PatternCodec& a, const PatternCodec& b, const PatternCodec& c,
                        std::size_t n, std::size_t len, const std::uint32_t* a_bits, std::size_t lda,
                        const std::uint32_t* b_bits, std::size_t ldb, const std::uint64_t* c_bits, std::uint64_t* d,
                        std::uint8_t* fixup) {
  HWY_DYNAMIC_DISPATCH(BlockFmaPlanar32)(p, a, b, c, n, len, a_bits, lda, b_bits, ldb, c_bits, d, fixup);
}

}  // namespace tcsim::lanes
#endif
