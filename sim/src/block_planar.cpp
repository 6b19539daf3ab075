// The planar path of the block kernel (block_lanes.hpp: block_fma_planar16): 16-bit patterns
// stored product-major, one element per lane, no reductions and no shuffles; compiled once per
// SIMD target by Google Highway and chosen at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "block_planar.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>

#include "block_lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tcsim::lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
// Sums of two int16 e_refs beyond +-kPlanarFlag: a special operand (kTileSpecial16 in it) or
// no nonzero product (kTileZero16 in it). Real sums of two exponent fields are at most 62.
constexpr std::int16_t kPlanarFlag = 4096;

// One operand format in 16-bit lanes. Exponent fields of at most 5 bits and fractions of at
// most 10 bits moved to binary16's places make a binary16 pattern whose value is the
// pattern's value times 2^(15 - bias), normal and subnormal alike; the F16C conversion
// decodes it exactly into binary32.
struct Planar16Lanes {
  using D16 = hn::ScalableTag<std::int16_t>;
  using V16 = hn::Vec<D16>;
  D16 d16;
  V16 abs_mask, one, zero, zero_sentinel, special_sentinel, special_from, invalid;
  int fraction_bits, sign_shift, to_binary16;
  bool has_special, check_invalid;
  bool direct;  // bf16: the upper half of a binary32 pattern, decoded by a shift (no relocation)

  explicit Planar16Lanes(const PatternCodec& f)
      : abs_mask(hn::Set(d16, static_cast<std::int16_t>((1u << (f.width - 1)) - 1))), one(hn::Set(d16, 1)),
        zero(hn::Zero(d16)), zero_sentinel(hn::Set(d16, kTileZero16)), special_sentinel(hn::Set(d16, kTileSpecial16)),
        // IEEE: the top exponent field (Inf, NaN); e4m3-like: the all-ones magnitude (NaN).
        special_from(hn::Set(d16, static_cast<std::int16_t>(
                                      f.nan == 0 ? (f.top_field << (f.precision - 1)) : (1u << (f.width - 1)) - 1))),
        invalid(hn::Set(d16, static_cast<std::int16_t>(f.width >= 16 ? 0 : ~((1u << f.width) - 1)))),
        fraction_bits(f.precision - 1), sign_shift(f.width - 1), to_binary16(10 - (f.precision - 1)),
        has_special(f.nan != 2), check_invalid(f.width < 16), direct(is_bf16(f)) {}

  // Whether Value() moves the fields (formats narrower than binary16's layout).
  bool relocates() const { return !direct && (to_binary16 != 0 || sign_shift != 15); }

  // Full int16 vectors of patterns moved to binary16's places, once per operand (issue 25):
  // the value times 2^(15 - bias) as a binary16 pattern, the exponent field unchanged. Bits
  // above the format's width are dropped: callers check them on the patterns as given.
  V16 Relocate(V16 x) const {
    const V16 mag = hn::And(x, hn::Set(d16, static_cast<std::int16_t>((1u << sign_shift) - 1)));
    const V16 sign = hn::And(hn::ShiftLeftSame(x, 15 - sign_shift), hn::Set(d16, static_cast<std::int16_t>(0x8000)));
    return hn::Or(hn::ShiftLeftSame(mag, to_binary16), sign);
  }

  // The lanes of Relocate()d patterns: binary16's layout, the same fields and specials.
  Planar16Lanes AsBinary16() const {
    Planar16Lanes r = *this;
    r.abs_mask = hn::Set(d16, static_cast<std::int16_t>(0x7fff));
    r.special_from = hn::ShiftLeftSame(special_from, to_binary16);
    r.invalid = zero;
    r.check_invalid = false;
    r.fraction_bits = 10, r.sign_shift = 15, r.to_binary16 = 0;
    return r;
  }

  static bool is_bf16(const PatternCodec& f) {
    return f.width == 16 && f.precision == 8 && f.bias == 127 && f.emin == -126 && f.top_field == 255 && f.nan == 0;
  }

  // The e_ref of 16-bit patterns plus the bias: the exponent field (1 for subnormals),
  // kTileZero16 for zeros, kTileSpecial16 for NaN/Inf.
  V16 Eref(V16 x) const {
    const V16 mag = hn::And(x, abs_mask);
    V16 e = hn::Max(hn::ShiftRightSame(mag, fraction_bits), one);
    e = hn::IfThenElse(hn::Eq(mag, zero), zero_sentinel, e);
    if (has_special) e = hn::IfThenElse(hn::Gt(mag, hn::Sub(special_from, one)), special_sentinel, e);
    return e;
  }

  // The binary32 value times 2^(15 - bias) of Lanes(df) patterns.
  template <class DF>
  hn::Vec<DF> Value(DF df, const std::uint16_t* p) const {
    const hn::Rebind<std::uint16_t, DF> du;
    auto x = hn::LoadU(du, p);
    if (direct) {
      const hn::RebindToUnsigned<DF> du32;
      return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du32, x)));
    }
    if (to_binary16 != 0 || sign_shift != 15) {
      const auto mag = hn::And(x, hn::Set(du, static_cast<std::uint16_t>((1u << sign_shift) - 1)));
      const auto sign = hn::And(hn::ShiftLeftSame(x, 15 - sign_shift), hn::Set(du, 0x8000));
      x = hn::Or(hn::ShiftLeftSame(mag, to_binary16), sign);
    }
    return hn::PromoteTo(df, hn::BitCast(hn::Rebind<hwy::float16_t, DF>(), x));
  }
};
#endif

std::size_t Planar16LaneCount() {
#if HWY_TARGET == HWY_SCALAR
  return 0;  // no planar path: callers take the element-major one
#else
  return hn::Lanes(hn::ScalableTag<std::int16_t>());
#endif
}

// n elements (a multiple of Planar16LaneCount()) in chunks: c across binary64 lanes; E in
// int16 lanes (max over t of the exponent-field sums); the scales 2^(F - E) times the binary16
// relocation in int32 lanes; the truncated scaled products a_t b_t 2^(F - E) and their int32
// sum in binary32/int32 lanes, one element per lane; then c, the sum and the rounding in
// binary64 lanes (RoundTailLanes). Exactness as block_fma_patterns' binary32 form: products of
// two binary16 values are exact in binary32, the scaling is exact or the term is below 1 and
// truncates to 0, every term is below 2^(F+2) and the sum of each chunk below 2^31.
// Operand t of element i at a_rows[t][offset + i] (issue 25: the pairs-mod4 rows hand each
// instruction's rows in the hardware's order without copying them first).
void BlockFmaPlanar16Rows(const LaneParams& p, const PatternCodec& ca, const PatternCodec& cb, const PatternCodec& cc,
                          std::size_t n, std::size_t len, const std::uint16_t* const* a_rows,
                          const std::uint16_t* const* b_rows, std::size_t offset, const std::uint64_t* c_bits,
                          std::uint64_t* d_out, std::uint8_t* fixup) {
#if HWY_TARGET == HWY_SCALAR
  (void)p, (void)ca, (void)cb, (void)cc, (void)n, (void)len, (void)a_rows, (void)b_rows, (void)offset, (void)c_bits;
  (void)d_out, (void)fixup;
#else
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::ScalableTag<std::int16_t> d16;
  const hn::RebindToUnsigned<decltype(d16)> du16;
  const hn::Rebind<std::int16_t, decltype(di)> d16_half;
  const hn::ScalableTag<double> d;
  const hn::Rebind<std::int32_t, decltype(d)> di_d;
  const hn::RebindToSigned<decltype(d)> d64;
  using VF = hn::Vec<decltype(df)>;
  using VI = hn::Vec<decltype(di)>;
  using V16 = hn::Vec<decltype(d16)>;
  const std::size_t NF = hn::Lanes(df), N16 = hn::Lanes(d16), ND = hn::Lanes(d);
  // Narrow formats (fp8, fp6, fp4) are moved to binary16's places once, when their rows are
  // copied (issue 25); the E and sum passes then read binary16 layouts (la, lb).
  const Planar16Lanes la_given(ca), lb_given(cb);
  const bool relocate_a = la_given.relocates(), relocate_b = lb_given.relocates();
  const Planar16Lanes la = relocate_a ? la_given.AsBinary16() : la_given;
  const Planar16Lanes lb = relocate_b ? lb_given.AsBinary16() : lb_given;
  const PatternLanes lc(cc, true);
  const OutRounding rounding(p, p.final_rounding);
  const bool check_invalid = la_given.check_invalid || lb_given.check_invalid;
  const V16 invalid_a = la_given.invalid, invalid_b = lb_given.invalid;
  const VI flag = hn::Set(di, kPlanarFlag), no_term = hn::Set(di, kTileZero);
  const VI biases = hn::Set(di, ca.bias + cb.bias);
  const VI min_e = hn::Set(di, static_cast<std::int32_t>(std::max(p.min_exponent, -1.0e8)));
  // 2^(F - E) times 2^(15 - bias_a) 2^(15 - bias_b): the binary16 relocation of both operands
  // (bf16: none, both operands are bf16).
  const VI shift_base = hn::Set(di, static_cast<std::int32_t>(p.fraction_bits) + (la.direct ? 0 : 30 - ca.bias - cb.bias));
  const VI lo = hn::Set(di, -126), hi = hn::Set(di, 127), f32_bias = hn::Set(di, 127);
  // bf16 products leave binary32's range: flagged where a product could overflow (E above
  // kTileMaxE) or a term that counts could be below the normal range (F - E above 120);
  // products below it truncate to 0 as their exact values do.
  const VI max_e = hn::Set(di, la.direct ? kTileMaxE : (1 << 26)), max_shift = hn::Set(di, la.direct ? 120 : 127);
  // Chunks of kChunk elements, their operand rows first copied to a padded stride: rows of a
  // large batch lie a power of two apart (t * lda), so that the same column of every row
  // falls into one cache set, and 2 len rows thrash it between the E and the sum pass.
  constexpr std::size_t kChunk = 128, kStride = kChunk + 32;  // 5 cache lines: vectors stay aligned
  HWY_ALIGN std::uint16_t pa[kMaxPatternLen * kStride], pb[kMaxPatternLen * kStride];
  HWY_ALIGN double c_value[kChunk], sums[kChunk], exps[kChunk];
  HWY_ALIGN std::int64_t c_eref[kChunk];
  HWY_ALIGN std::int16_t raw16[kChunk];
  HWY_ALIGN std::int32_t e32[kChunk], s32[kTileMaxChunks * kChunk], bad32[kChunk];
  // Blocks longer than tile_chunk_len(F) products (fp8/fp6/fp4 at F = 25, k = 32; issue 25).
  const std::size_t chunk = std::max<std::size_t>(1, tile_chunk_len(p.fraction_bits));
  const std::size_t chunks = std::max<std::size_t>(1, (len + chunk - 1) / chunk);
  HWY_ALIGN float scales[kChunk];
  for (std::size_t i0 = 0; i0 < n; i0 += kChunk) {
    const std::size_t m = std::min(kChunk, n - i0);
    DecodeCLanes(lc, cc, m, c_bits + i0, c_value, c_eref);
    // The copy by vectors (a string move's start-up is long against 256 bytes), and the next
    // chunk's rows fetched meanwhile: 2 len streams are too many for the hardware prefetcher.
    const bool next = i0 + kChunk < n;
    // Bits above the format's width, on the patterns as given: OR-ed over the whole chunk in
    // one register (issue 25, i25v100: no load and store per row and vector); only a chunk
    // that has any is checked element by element below.
    V16 wide = hn::Zero(d16);
    for (std::size_t t = 0; t < len; ++t) {
      const std::uint16_t *ra = a_rows[t] + offset + i0, *rb = b_rows[t] + offset + i0;
      for (std::size_t i = 0; i < m; i += N16) {
        const V16 xa = hn::BitCast(d16, hn::LoadU(du16, ra + i)), xb = hn::BitCast(d16, hn::LoadU(du16, rb + i));
        if (check_invalid) wide = hn::Or(wide, hn::Or(hn::And(xa, invalid_a), hn::And(xb, invalid_b)));
        hn::Store(hn::BitCast(du16, relocate_a ? la_given.Relocate(xa) : xa), du16, pa + t * kStride + i);
        hn::Store(hn::BitCast(du16, relocate_b ? lb_given.Relocate(xb) : xb), du16, pb + t * kStride + i);
      }
      if (next)
        for (std::size_t line = 0; line < kChunk * 2; line += 64) {
          hwy::Prefetch(ra + kChunk + line / 2);
          hwy::Prefetch(rb + kChunk + line / 2);
        }
    }
    const bool wide_chunk = check_invalid && !hn::AllTrue(d16, hn::Eq(wide, hn::Zero(d16)));
    // E pass: the largest sum of exponent fields over the nonzero products, in int16 lanes.
    for (std::size_t i = 0; i < m; i += N16) {
      V16 e = hn::Set(d16, static_cast<std::int16_t>(2 * kTileZero16));
      for (std::size_t t = 0; t < len; ++t) {
        const V16 xa = hn::BitCast(d16, hn::Load(du16, pa + t * kStride + i));
        const V16 xb = hn::BitCast(d16, hn::Load(du16, pb + t * kStride + i));
        e = hn::Max(e, hn::Add(la.Eref(xa), lb.Eref(xb)));
      }
      // Patterns with bits above the format's width count as special operands.
      if (wide_chunk) {
        V16 bits = hn::Zero(d16);
        for (std::size_t t = 0; t < len; ++t) {
          const V16 xa = hn::BitCast(d16, hn::LoadU(du16, a_rows[t] + offset + i0 + i));
          const V16 xb = hn::BitCast(d16, hn::LoadU(du16, b_rows[t] + offset + i0 + i));
          bits = hn::Or(bits, hn::Or(hn::And(xa, invalid_a), hn::And(xb, invalid_b)));
        }
        e = hn::IfThenElse(hn::Ne(bits, hn::Zero(d16)), hn::Set(d16, kTileSpecial16), e);
      }
      hn::Store(e, d16, raw16 + i);
    }
    // E with c and the clamp, the flags, and the scales, in int32 lanes.
    for (std::size_t i = 0; i < m; i += NF) {
      const VI raw = hn::PromoteTo(di, hn::Load(d16_half, raw16 + i));
      // c's e_ref clamped to +-2^20 (kNoTerm: kTileZero) in int64 lanes, its low halves taken
      // (issue 25, i25v100: not element by element).
      VI c_e;
      {
        auto clamp = [&](std::size_t at) {
          const auto x = hn::Load(d64, c_eref + at);
          const auto y = hn::Min(hn::Max(x, hn::Set(d64, -(std::int64_t{1} << 20))), hn::Set(d64, std::int64_t{1} << 20));
          return hn::BitCast(di, hn::IfThenElse(hn::Eq(x, hn::Set(d64, kNoTerm)), hn::Set(d64, kTileZero), y));
        };
        c_e = hn::ConcatEven(di, clamp(i + ND), clamp(i));
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
    // Sum pass: one element per lane, an int32 sum per chunk of products (tile_chunk_len).
    for (std::size_t i = 0; i < m; i += NF) {
      const VF scale = hn::Load(df, scales + i);
      for (std::size_t ci = 0; ci < chunks; ++ci) {
        VI sum = hn::Zero(di);
        for (std::size_t t = ci * chunk; t < std::min(len, (ci + 1) * chunk); ++t) {
          const VF va = la.Value(df, pa + t * kStride + i), vb = lb.Value(df, pb + t * kStride + i);
          sum = hn::Add(sum, TruncToInt32(di, hn::Mul(hn::Mul(va, vb), scale)));
        }
        hn::Store(sum, di, s32 + ci * kChunk + i);
      }
    }
    for (std::size_t i = 0; i < m; i += ND) {
      auto s = hn::PromoteTo(d, hn::Load(di_d, s32 + i));  // the chunks' sums: exact in binary64
      for (std::size_t ci = 1; ci < chunks; ++ci) s = hn::Add(s, hn::PromoteTo(d, hn::Load(di_d, s32 + ci * kChunk + i)));
      hn::Store(s, d, sums + i);
      hn::Store(hn::PromoteTo(d, hn::Load(di_d, e32 + i)), d, exps + i);
    }
    for (std::size_t i = 0; i < m; ++i) fixup[i0 + i] = bad32[i] != 0 || !std::isfinite(c_value[i]);
    RoundTailLanes(p, rounding, m, sums, exps, c_value, d_out + i0, fixup + i0);
  }
#endif
}

void BlockFmaPlanar16(const LaneParams& p, const PatternCodec& ca, const PatternCodec& cb, const PatternCodec& cc,
                      std::size_t n, std::size_t len, const std::uint16_t* a, std::size_t lda, const std::uint16_t* b,
                      std::size_t ldb, const std::uint64_t* c_bits, std::uint64_t* d_out, std::uint8_t* fixup) {
  const std::uint16_t* a_rows[kMaxPatternLen];
  const std::uint16_t* b_rows[kMaxPatternLen];
  for (std::size_t t = 0; t < len && t < kMaxPatternLen; ++t) a_rows[t] = a + t * lda, b_rows[t] = b + t * ldb;
  BlockFmaPlanar16Rows(p, ca, cb, cc, n, len, a_rows, b_rows, 0, c_bits, d_out, fixup);
}

}  // namespace tcsim::lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tcsim::lanes {

HWY_EXPORT(BlockFmaPlanar16);
HWY_EXPORT(BlockFmaPlanar16Rows);
HWY_EXPORT(Planar16LaneCount);

std::size_t planar16_lane_count() { return HWY_DYNAMIC_DISPATCH(Planar16LaneCount)(); }

bool planar16_supported(const LaneParams& p, const PatternCodec& a, const PatternCodec& b, const PatternCodec& c,
                        bool keep_subnormals, std::size_t max_len) {
  auto fits = [](const PatternCodec& f) {
    const int fraction = f.precision - 1, field = f.width - 1 - fraction;
    return f.width <= 16 && fraction <= 10 && field >= 1 && field <= 5 && f.emin == 1 - f.bias &&
           f.top_field == (1u << field) - 1;
  };
  auto bf16 = [](const PatternCodec& f) {
    return f.width == 16 && f.precision == 8 && f.bias == 127 && f.emin == -126 && f.top_field == 255 && f.nan == 0;
  };
  if (bf16(a) && bf16(b)) {  // bf16 x bf16 (a bf16 operand with another format: not planar)
    if (!keep_subnormals || p.alignment != 0 || max_len > kMaxPatternLen) return false;
  } else if (!keep_subnormals || p.alignment != 0 || !fits(a) || !fits(b) || max_len > kMaxPatternLen) return false;
  int len_bits = 0;
  while ((std::size_t{1} << len_bits) < max_len) ++len_bits;
  // The int32 sum of each chunk of tile_chunk_len(F) products stays exact (issue 25: blocks
  // of several chunks, added in binary64).
  const std::size_t chunk = tile_chunk_len(p.fraction_bits);
  if (chunk == 0 || (max_len + chunk - 1) / chunk > kTileMaxChunks) return false;
  // c decoded into binary64 exactly (as patterns_supported); c's term and the sum exact there.
  return c.precision <= 53 && c.emin - (c.precision - 1) >= -1022 && c.bias < 1023 && p.fraction_bits + 3 + len_bits <= 53;
}

void block_fma_planar16_rows(const LaneParams& p, const PatternCodec& a, const PatternCodec& b, const PatternCodec& c,
                             std::size_t n, std::size_t len, const std::uint16_t* const* a_rows,
                             const std::uint16_t* const* b_rows, std::size_t offset, const std::uint64_t* c_bits,
                             std::uint64_t* d, std::uint8_t* fixup) {
  HWY_DYNAMIC_DISPATCH(BlockFmaPlanar16Rows)(p, a, b, c, n, len, a_rows, b_rows, offset, c_bits, d, fixup);
}

void block_fma_planar16(const LaneParams& p, const PatternCodec& a, const PatternCodec& b, const PatternCodec& c,
                        std::size_t n, std::size_t len, const std::uint16_t* a_bits, std::size_t lda,
                        const std::uint16_t* b_bits, std::size_t ldb, const std::uint64_t* c_bits, std::uint64_t* d,
                        std::uint8_t* fixup) {
  HWY_DYNAMIC_DISPATCH(BlockFmaPlanar16)(p, a, b, c, n, len, a_bits, lda, b_bits, ldb, c_bits, d, fixup);
}

}  // namespace tcsim::lanes
#endif
