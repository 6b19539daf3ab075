// The GEMM tile kernel (block_lanes.hpp: block_tile), compiled once per SIMD target by Google
// Highway and chosen at run time. A micro-tile of kTileRows rows of A against kTileVectors
// vectors of B's columns stays in registers over one block FMA: pass 1 takes E per output
// (the largest e_ref(a) + e_ref(b) in int16 lanes, then c's), pass 2 sums trunc(a b 2^(F - E))
// in int32 lanes (a b and its scaling are exact binary32 operations, the conversion
// truncates: the rz alignment), then c, the normalization and the rounding: in the same
// registers for binary32 outputs rounded rz or rne (MicroTile's fused epilogue), else in
// binary64 lanes as in BlockFma.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "block_tile.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>

#include <type_traits>

#include <algorithm>
#include <limits>

#include "block_lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tcsim::lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr std::size_t kTileVectors = 2;
constexpr std::int32_t kFlagLimit = kTileFlagLimit;

std::size_t TileColumns() { return kTileVectors * hn::Lanes(hn::ScalableTag<float>()); }

// Entries of one chunk's sums (and of exps, eflags) in BlockTile's buffers.
constexpr std::size_t kTileSlots = kTileRows * kTileVectors * HWY_MAX_BYTES / 4;

// Where MicroTile's outputs go. Fused (binary32 output rounded rz or rne): c's term, the
// sum, the normalization and the rounding in the int32/binary32 lanes, straight into d;
// `flagged` collects the outputs (index out0 + r * ldc + column) the exact path must redo.
// Otherwise sums, E and flags per output for BlockTile's binary64 epilogue.
struct TileOut {
  bool fused = false;
  const float* c_value = nullptr;  // at the tile's first output; row stride ldc
  std::uint64_t* d_bits = nullptr;
  float* d_value = nullptr;
  std::int32_t* d_eref = nullptr;
  std::size_t out0 = 0;
  std::size_t chunk = 0;  // products per int32 partial sum (tile_chunk_len)
  std::uint32_t* flagged = nullptr;
  std::size_t* flagged_count = nullptr;
  std::int32_t* sums = nullptr;
  std::int32_t* exps = nullptr;
  std::int32_t* eflags = nullptr;
};

template <std::size_t MR>
void MicroTile(const LaneParams& p, std::size_t len, const float* a_value, const std::int16_t* a_eref,
               std::size_t lda, const float* b_value, const std::int16_t* b_eref, std::size_t ldb,
               const std::int32_t* c_eref, std::size_t ldc, const TileOut& o) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  using VF = hn::Vec<decltype(df)>;
  using VI = hn::Vec<decltype(di)>;
  constexpr std::size_t NV = kTileVectors;
  const std::size_t NF = hn::Lanes(df);
  VI E[MR][NV];
#if HWY_TARGET != HWY_SCALAR
  // E of the products in int16 lanes: one vector holds the tile's NV * NF columns.
  static_assert(NV == 2, "one int16 vector spans the two binary32 vectors of a tile row");
  const hn::Repartition<std::int16_t, decltype(df)> d16;
  const hn::Half<decltype(d16)> d16h;
  hn::Vec<decltype(d16)> E16[MR];
  for (std::size_t r = 0; r < MR; ++r) E16[r] = hn::Set(d16, std::numeric_limits<std::int16_t>::min());
  for (std::size_t t = 0; t < len; ++t) {
    const auto eb = hn::LoadU(d16, b_eref + t * ldb);
    for (std::size_t r = 0; r < MR; ++r) E16[r] = hn::Max(E16[r], hn::Add(hn::Set(d16, a_eref[r * lda + t]), eb));
  }
  for (std::size_t r = 0; r < MR; ++r) {
    E[r][0] = hn::Max(hn::PromoteTo(di, hn::LowerHalf(d16h, E16[r])), hn::LoadU(di, c_eref + r * ldc));
    E[r][1] = hn::Max(hn::PromoteTo(di, hn::UpperHalf(d16h, E16[r])), hn::LoadU(di, c_eref + r * ldc + NF));
  }
#else
  const hn::Rebind<std::int16_t, decltype(di)> d16;
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t v = 0; v < NV; ++v) E[r][v] = hn::LoadU(di, c_eref + r * ldc + v * NF);
  for (std::size_t t = 0; t < len; ++t) {
    VI eb[NV];
    for (std::size_t v = 0; v < NV; ++v) eb[v] = hn::PromoteTo(di, hn::LoadU(d16, b_eref + t * ldb + v * NF));
    for (std::size_t r = 0; r < MR; ++r) {
      const VI ea = hn::Set(di, a_eref[r * lda + t]);
      for (std::size_t v = 0; v < NV; ++v) E[r][v] = hn::Max(E[r][v], hn::Add(ea, eb[v]));
    }
  }
#endif
  // Flags, the clamp and the scales 2^(F - E) (binary32 normal range only: others flagged).
  const VI limit = hn::Set(di, kTileMaxE), neg_limit = hn::Set(di, -kFlagLimit);
  const VI min_e = hn::Set(di, static_cast<std::int32_t>(std::max(p.min_exponent, -1.0e8)));
  const VI F = hn::Set(di, static_cast<std::int32_t>(p.fraction_bits));
  const VI lo = hn::Set(di, -120), hi = hn::Set(di, 120), bias = hn::Set(di, 127);
  VF scale[MR][NV];
  VI bad_e[MR][NV];
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t v = 0; v < NV; ++v) {
      const VI raw = E[r][v];
      const VI e = hn::Max(raw, min_e);
      const VI shift = hn::Sub(F, e);
      const auto bad = hn::Or(hn::Or(hn::Gt(raw, limit), hn::Lt(raw, neg_limit)),
                              hn::Or(hn::Gt(shift, hi), hn::Lt(shift, lo)));
      const VI clamped = hn::Min(hn::Max(shift, lo), hi);
      scale[r][v] = hn::BitCast(df, hn::ShiftLeft<23>(hn::Add(clamped, bias)));
      if (o.fused) {
        E[r][v] = e;
        bad_e[r][v] = hn::VecFromMask(di, bad);
      } else {
        hn::StoreU(e, di, o.exps + r * NV * NF + v * NF);
        hn::StoreU(hn::VecFromMask(di, bad), di, o.eflags + r * NV * NF + v * NF);
      }
    }
  // The sum in chunks of o.chunk products, each exact in int32 (F + 2 + log2(chunk) <= 31);
  // the chunks' sums are added in binary64 by BlockTile (fused: one chunk, len <= chunk).
  VI S[MR][NV];
  std::size_t t0 = 0;
  for (std::size_t ci = 0;; ++ci) {
    const std::size_t t1 = std::min(len, t0 + o.chunk);
    for (std::size_t r = 0; r < MR; ++r)
      for (std::size_t v = 0; v < NV; ++v) S[r][v] = hn::Zero(di);
    for (std::size_t t = t0; t < t1; ++t) {
      VF vb[NV];
      for (std::size_t v = 0; v < NV; ++v) vb[v] = hn::LoadU(df, b_value + t * ldb + v * NF);
      for (std::size_t r = 0; r < MR; ++r) {
        const VF va = hn::Set(df, a_value[r * lda + t]);
        for (std::size_t v = 0; v < NV; ++v)
          S[r][v] = hn::Add(S[r][v], TruncToInt32(di, hn::Mul(hn::Mul(va, vb[v]), scale[r][v])));
      }
    }
    if (!o.fused)
      for (std::size_t r = 0; r < MR; ++r)
        for (std::size_t v = 0; v < NV; ++v)
          hn::StoreU(S[r][v], di, o.sums + ci * kTileSlots + r * NV * NF + v * NF);
    t0 = t1;
    if (t0 >= len) break;
  }
  if (!o.fused) return;
#if HWY_TARGET != HWY_SCALAR
  // Fused binary32 epilogue. c's term trunc(c 2^(F - E)) is exact in int32 (|c| < 2^(E+1):
  // below 2^(F+1); a product that leaves the normal range is below 1 and truncates to 0 as
  // the exact value would). |s| >= 2^30 (this also catches an int32 wrap: the true sum is
  // below 2^31 + 2^26) or >= the row's wrap limit, s = 0 (the sign of zero), E or E - F out
  // of range and results below 2^-126 or above the largest binary32 go to the exact path.
  const hn::RebindToUnsigned<decltype(df)> du;
  const hn::Repartition<std::uint64_t, decltype(df)> du64;
  const hn::Half<decltype(du)> du_half;
  const VI wrap_below = hn::Set(di, static_cast<std::int32_t>(std::min(p.wrap_limit, 0x1p30)) - 1);
  const auto sign_bit = hn::Set(du, 0x80000000u);
  const auto exp_mask = hn::Set(di, 0xff);
  const VF min_normal = hn::Set(df, 0x1p-126f);
  const bool rz = p.final_rounding == 0;
  // Narrow outputs (p.out_precision < 24): drop = 24 - p bits of binary32 below the output's last
  // place; the smallest normal and largest finite output as binary32 bits; the pattern is
  // binary32's bits shifted right by drop, the exponent field rebiased, the sign moved down.
  const bool narrow = p.out_precision < 24;
  const int n_drop = narrow ? 24 - p.out_precision : 0;
  const VI n_rem_mask = hn::Set(di, (1 << n_drop) - 1), n_lsb = hn::Set(di, 1 << n_drop);
  const VI n_half = hn::Set(di, narrow ? 1 << (n_drop - 1) : 0);
  const VI n_min_bits = hn::Set(di, (p.out_emin + 127) << 23);
  const VI n_max_bits = hn::Set(di, static_cast<std::int32_t>(
                                        (static_cast<std::uint32_t>(p.out_emax + 127) << 23) |
                                        ((static_cast<std::uint32_t>(p.out_max_finite_significand) << n_drop) & 0x7fffffu)));
  const VI n_rebias = hn::Set(di, (127 - p.out_bias) << (p.out_precision - 1));
  const int n_sign_shift = 32 - p.out_width;
  HWY_ALIGN std::uint8_t lane_flags[HWY_MAX_BYTES / 4];
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t v = 0; v < NV; ++v) {
      const std::size_t at = r * ldc + v * NF;
      const VF cv = hn::LoadU(df, o.c_value + at);
      const VI c_term = TruncToInt32(di, hn::Mul(hn::IfThenElseZero(hn::IsFinite(cv), cv), scale[r][v]));
      const VI s = hn::Add(S[r][v], c_term);
      const VI mag = hn::Abs(s);
      // Abs(INT32_MIN) stays negative: flagged with the big ones.
      auto bad = hn::Or(hn::RebindMask(df, hn::Ne(bad_e[r][v], hn::Zero(di))),
                        hn::RebindMask(df, hn::Or(hn::Gt(mag, wrap_below), hn::Lt(mag, hn::Zero(di)))));
      bad = hn::Or(bad, hn::RebindMask(df, hn::Eq(s, hn::Zero(di))));
      // |s| rounded to 24 bits: the conversion rounds to nearest; rz steps back one ulp where
      // that went up (|s| < 2^30: the conversion back is exact). Narrow outputs need the
      // truncation (and whether it dropped anything: `sticky`) before their own rounding.
      VF m = hn::ConvertTo(df, mag);
      if (rz || narrow) {
        const auto up = hn::Gt(TruncToInt32(di, m), mag);
        m = hn::BitCast(df, hn::Add(hn::BitCast(di, m), hn::VecFromMask(di, up)));
      }
      // times 2^(E - F): exact inside the normal range (E - F itself a normal exponent).
      const VI unshift = hn::Sub(E[r][v], F);
      bad = hn::Or(bad, hn::RebindMask(df, hn::Or(hn::Lt(unshift, lo), hn::Gt(unshift, hi))));
      const VF pow2 = hn::BitCast(df, hn::ShiftLeft<23>(hn::Add(hn::Min(hn::Max(unshift, lo), hi), bias)));
      VF x = hn::Mul(m, pow2);
      bad = hn::Or(bad, hn::Or(hn::Le(x, min_normal), hn::Not(hn::IsFinite(x))));
      const auto sign = hn::And(hn::BitCast(du, s), sign_bit);
      if (narrow) {
        // Narrow output (p < 24 significant bits, exponents inside binary32's normal range):
        // the truncated binary32 bits of |x| hold its `drop` = 24 - p bits below the output's
        // last place; with the sticky bit they decide the rounding, and a carry runs into the
        // exponent field as IEEE's layout allows. Results below 2^out_emin (tiny before
        // rounding) or above the largest finite output go to the exact path.
        const VI xb = hn::BitCast(di, x);
        const VI rem = hn::And(xb, n_rem_mask);
        const auto sticky = hn::Ne(TruncToInt32(di, m), mag);
        const auto inexact = hn::Or(hn::Ne(rem, hn::Zero(di)), sticky);
        const auto negative = hn::Lt(s, hn::Zero(di));
        hn::Mask<decltype(di)> up;
        switch (p.final_rounding) {
          case 3:
            up = hn::Or(hn::Gt(rem, n_half), hn::And(hn::Eq(rem, n_half),
                                                     hn::Or(sticky, hn::Ne(hn::And(xb, n_lsb), hn::Zero(di)))));
            break;
          case 1: up = hn::And(inexact, negative); break;
          case 2: up = hn::AndNot(negative, inexact); break;
          default: up = hn::And(inexact, hn::Not(inexact)); break;  // rz: never
        }
        const VI yb = hn::Add(hn::AndNot(n_rem_mask, xb), hn::IfThenElseZero(up, n_lsb));
        bad = hn::Or(bad, hn::RebindMask(df, hn::Or(hn::Lt(xb, n_min_bits), hn::Gt(yb, n_max_bits))));
        const VI pattern = hn::Sub(hn::ShiftRightSame(yb, n_drop), n_rebias);
        const auto out_bits = hn::Or(hn::BitCast(du, pattern), hn::ShiftRightSame(sign, n_sign_shift));
        hn::StoreU(hn::PromoteTo(du64, hn::LowerHalf(du_half, out_bits)), du64, o.d_bits + at);
        hn::StoreU(hn::PromoteTo(du64, hn::UpperHalf(du_half, out_bits)), du64, o.d_bits + at + NF / 2);
        x = hn::BitCast(df, yb);
      } else {
        const auto bits = hn::Or(hn::BitCast(du, x), sign);
        hn::StoreU(hn::PromoteTo(du64, hn::LowerHalf(du_half, bits)), du64, o.d_bits + at);
        hn::StoreU(hn::PromoteTo(du64, hn::UpperHalf(du_half, bits)), du64, o.d_bits + at + NF / 2);
      }
      hn::StoreU(hn::BitCast(df, hn::Or(hn::BitCast(du, x), sign)), df, o.d_value + at);
      hn::StoreU(hn::Sub(hn::And(hn::ShiftRight<23>(hn::BitCast(di, x)), exp_mask), bias), di, o.d_eref + at);
      if (HWY_UNLIKELY(!hn::AllFalse(df, bad))) {
        hn::StoreMaskBits(df, bad, lane_flags);
        for (std::size_t l = 0; l < NF; ++l)
          if ((lane_flags[l / 8] >> (l % 8)) & 1) o.flagged[(*o.flagged_count)++] = static_cast<std::uint32_t>(o.out0 + at + l);
      }
    }
#endif
}

std::size_t BlockTile(const LaneParams& p, std::size_t rows, std::size_t cols, std::size_t len, const float* a_value,
               const std::int16_t* a_eref, std::size_t lda, const float* b_value, const std::int16_t* b_eref,
               std::size_t ldb, const float* c_value, const std::int32_t* c_eref, std::uint64_t* d_bits,
               float* d_value, std::int32_t* d_eref, std::size_t ldc, std::uint32_t* flagged) {
  const hn::ScalableTag<float> df;
  const hn::ScalableTag<double> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const hn::Rebind<std::int32_t, decltype(d)> di_half;
  const hn::Rebind<float, decltype(d)> df_half;
  using VD = hn::Vec<decltype(d)>;
  using VU = hn::Vec<decltype(du)>;
  const std::size_t NF = hn::Lanes(df), N = hn::Lanes(d), W = kTileVectors * NF;
  const VD F = hn::Set(d, p.fraction_bits), wrap = hn::Set(d, p.wrap_limit);
  const OutRounding rounding(p, p.final_rounding);
  // IEEE binary32 output rounded rz or rne: the conversion to binary32 does the rounding.
  const bool binary32_out = p.out_precision == 24 && p.out_emin == -126 && p.out_emax == 127 && p.out_width == 32 &&
                            p.out_bias == 127 && p.out_max_finite_significand == 0xffffff &&
                            (p.final_rounding == 0 || p.final_rounding == 3);
  // Narrower outputs in binary32's normal range (fp16, the 13-bit results of Ada and Hopper
  // fp8, fp8 outputs), standard layout, rounded rz/rd/ru/rne: rounded from the binary32 bits.
  const bool narrow_out = p.out_precision >= 2 && p.out_precision < 24 && p.out_emin >= -126 && p.out_emax <= 127 &&
                          p.out_emin <= p.out_emax && p.out_width <= 32 && p.final_rounding >= 0 &&
                          p.final_rounding <= 3 && p.out_max_finite_significand < (std::uint64_t{1} << p.out_precision) &&
                          p.out_max_finite_significand >= (std::uint64_t{1} << (p.out_precision - 1));
  // Either rounded in the binary32 lanes inside MicroTile (not on the scalar target). Blocks
  // longer than one int32 chunk (fp8/fp6/fp4 at F = 25, k = 32: issue 25) add their chunk
  // sums in the binary64 epilogue: the fused epilogue takes one int32 sum.
  const std::size_t chunk = tile_chunk_len(p.fraction_bits);
  const std::size_t chunks = len == 0 ? 1 : (len + chunk - 1) / chunk;
  const bool fused = (binary32_out || narrow_out) && HWY_TARGET != HWY_SCALAR && chunks == 1;
  const hn::Rebind<std::uint32_t, decltype(d)> du_half;
  const VU rz_mask = hn::Set(du, ~((std::uint64_t{1} << 29) - 1));
  const VD min_normal = hn::Set(d, 0x1p-126), max_finite = hn::Set(d, 0x1.fffffep127);
  const auto exp_mask = hn::Set(du_half, 0xffu);
  const auto bias32 = hn::Set(di_half, 127);
  HWY_ALIGN std::int32_t sums[kTileMaxChunks * kTileSlots];
  HWY_ALIGN std::int32_t exps[kTileSlots];
  HWY_ALIGN std::int32_t eflags[kTileSlots];
  HWY_ALIGN std::uint8_t lane_flags[HWY_MAX_BYTES / sizeof(double)];
  const hn::RebindToSigned<decltype(d)> di64;
  std::size_t flagged_count = 0;
  for (std::size_t r0 = 0; r0 < rows; r0 += kTileRows) {
    const std::size_t mr = std::min(kTileRows, rows - r0);
    for (std::size_t j0 = 0; j0 < cols; j0 += W) {
      const float* a = a_value + r0 * lda;
      const std::int16_t* ae = a_eref + r0 * lda;
      const std::int32_t* ce = c_eref + r0 * ldc + j0;
      TileOut o;
      o.fused = fused;
      o.out0 = r0 * ldc + j0;
      o.chunk = chunk;
      o.c_value = c_value + o.out0;
      o.d_bits = d_bits + o.out0;
      o.d_value = d_value + o.out0;
      o.d_eref = d_eref + o.out0;
      o.flagged = flagged;
      o.flagged_count = &flagged_count;
      o.sums = sums;
      o.exps = exps;
      o.eflags = eflags;
      switch (mr) {
        case 4: MicroTile<4>(p, len, a, ae, lda, b_value + j0, b_eref + j0, ldb, ce, ldc, o); break;
        case 3: MicroTile<3>(p, len, a, ae, lda, b_value + j0, b_eref + j0, ldb, ce, ldc, o); break;
        case 2: MicroTile<2>(p, len, a, ae, lda, b_value + j0, b_eref + j0, ldb, ce, ldc, o); break;
        default: MicroTile<1>(p, len, a, ae, lda, b_value + j0, b_eref + j0, ldb, ce, ldc, o); break;
      }
      if (fused) continue;
      // c aligned (truncated: rz), the sum, the rounding: binary64 lanes.
      for (std::size_t r = 0; r < mr; ++r)
        for (std::size_t j = 0; j < W; j += N) {
          const std::size_t tile = r * W + j, out = (r0 + r) * ldc + j0 + j;
          const VD E = hn::PromoteTo(d, hn::LoadU(di_half, exps + tile));
          const VD shift = hn::Sub(F, E);
          const VD cv = hn::PromoteTo(d, hn::LoadU(df_half, c_value + out));
          const VD c_term = hn::Trunc(hn::Mul(hn::IfThenElseZero(hn::IsFinite(cv), cv), PowerOfTwo(d, shift)));
          VD s = c_term;  // + the chunk sums: exact integers below 2^53 (tile_conditions)
          for (std::size_t ci = 0; ci < chunks; ++ci)
            s = hn::Add(s, hn::PromoteTo(d, hn::LoadU(di_half, sums + ci * kTileSlots + tile)));
          auto bad = hn::Or(hn::Eq(s, hn::Zero(d)), hn::Ge(hn::Abs(s), wrap));
          bad = hn::Or(bad, hn::RebindMask(d, hn::Ne(hn::PromoteTo(di64, hn::LoadU(di_half, eflags + tile)),
                                                     hn::Zero(di64))));
          const VD v = hn::Mul(s, PowerOfTwo(d, hn::Neg(shift)));
          if (binary32_out) {
            // rz: the binary64 value cut to 24 significant bits; rne: the conversion's own
            // (correct, single) rounding. Below 2^-126 (tininess before rounding, as
            // round_to_format) and overflow go to the exact path.
            const VD cut = p.final_rounding == 0 ? hn::BitCast(d, hn::And(hn::BitCast(du, v), rz_mask)) : v;
            const auto f = hn::DemoteTo(df_half, cut);
            bad = hn::Or(bad, hn::Lt(hn::Abs(v), min_normal));
            // Overflow tested before the demotion too: EMU128/SCALAR's DemoteTo saturates to
            // the largest finite value instead of giving Inf.
            bad = hn::Or(bad, hn::Gt(hn::Abs(cut), max_finite));
            bad = hn::Or(bad, hn::Gt(hn::Abs(hn::PromoteTo(d, f)), max_finite));
            const auto fbits = hn::BitCast(du_half, f);
            hn::StoreU(hn::PromoteTo(du, fbits), du, d_bits + out);
            hn::StoreU(f, df_half, d_value + out);
            hn::StoreU(hn::Sub(hn::BitCast(di_half, hn::And(hn::ShiftRight<23>(fbits), exp_mask)), bias32), di_half,
                       d_eref + out);
          } else {
            VU bits;
            VD value, eref;
            bad = hn::Or(bad, rounding.Round(v, bits, value, eref));
            hn::StoreU(bits, du, d_bits + out);
            hn::StoreU(hn::DemoteTo(df_half, value), df_half, d_value + out);
            hn::StoreU(hn::DemoteTo(di_half, eref), di_half, d_eref + out);
          }
          if (HWY_UNLIKELY(!hn::AllFalse(d, bad))) {
            StoreFlags(d, bad, lane_flags);
            for (std::size_t l = 0; l < N; ++l)
              if (lane_flags[l]) flagged[flagged_count++] = static_cast<std::uint32_t>(out + l);
          }
        }
    }
  }
  return flagged_count;
}

// Patterns into binary32 values and e_refs (block_lanes.hpp: decode_tile_lanes): int32 e_refs
// with kTileZero / kTileSpecial, or int16 ones with kTileZero16 / kTileSpecial16 (tile_eref16's
// values, in the lanes: the scalar narrowing after an int32 decode was a third of the GEMM's
// decode time, session 39).
template <class TE>
void DecodeTileT(const PatternCodec& f, bool keep_subnormals, std::size_t count, const std::uint64_t* bits,
                 float* value, TE* eref) {
  static_assert(std::is_same_v<TE, std::int32_t> || std::is_same_v<TE, std::int16_t>);
  constexpr bool k16 = std::is_same_v<TE, std::int16_t>;
  const hn::ScalableTag<double> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const hn::RebindToSigned<decltype(d)> di;
  const hn::Rebind<std::int32_t, decltype(d)> di_half;
  const hn::Rebind<std::int16_t, decltype(d)> di_quarter;
  const hn::Rebind<float, decltype(d)> df_half;
  using VD = hn::Vec<decltype(d)>;
  const std::size_t N = hn::Lanes(d);
  const PatternLanes lanes(f, keep_subnormals);
  const auto lsb_shift = hn::Set(di, -(f.precision - 1));
  const double zero_e = k16 ? kTileZero16 : kTileZero, special_e = k16 ? kTileSpecial16 : kTileSpecial;
  std::size_t i = 0;
  for (; i + N <= count; i += N) {
    hn::Vec<decltype(du)> sig, sign;
    hn::Vec<decltype(di)> e;
    hn::Mask<decltype(du)> bad;
    lanes.Decode(hn::LoadU(du, bits + i), sig, e, sign, bad);
    // sig * 2^(e_ref - (p - 1)): exact in binary64, then in binary32 (tile conditions).
    VD v = hn::Mul(hn::ConvertTo(d, hn::BitCast(di, sig)), PowerOfTwo(d, hn::ConvertTo(d, hn::Add(e, lsb_shift))));
    v = hn::IfThenElse(hn::RebindMask(d, hn::Ne(sign, hn::Zero(du))), hn::Neg(v), v);
    const auto bad_d = hn::RebindMask(d, bad);
    v = hn::IfThenElse(bad_d, hn::Set(d, std::numeric_limits<double>::quiet_NaN()), v);
    VD ev = hn::ConvertTo(d, e);
    ev = hn::IfThenElse(hn::RebindMask(d, hn::Eq(sig, hn::Zero(du))), hn::Set(d, zero_e), ev);
    ev = hn::IfThenElse(bad_d, hn::Set(d, special_e), ev);
    hn::StoreU(hn::DemoteTo(df_half, v), df_half, value + i);
    if constexpr (k16)  // saturating, as the int16 cast of an e_ref in range (tile formats: |e| < 2^15)
      hn::StoreU(hn::DemoteTo(di_quarter, hn::DemoteTo(di_half, ev)), di_quarter, eref + i);
    else
      hn::StoreU(hn::DemoteTo(di_half, ev), di_half, eref + i);
  }
  for (; i < count; ++i) {  // the tail through one padded vector
    HWY_ALIGN std::uint64_t buf[HWY_MAX_BYTES / 8] = {};
    HWY_ALIGN float v[HWY_MAX_BYTES / 8];
    HWY_ALIGN TE e[HWY_MAX_BYTES / 8];
    buf[0] = bits[i];
    DecodeTileT(f, keep_subnormals, N, buf, v, e);
    value[i] = v[0];
    eref[i] = e[0];
  }
}

void DecodeTile(const PatternCodec& f, bool keep_subnormals, std::size_t count, const std::uint64_t* bits,
                float* value, std::int32_t* eref) {
  DecodeTileT(f, keep_subnormals, count, bits, value, eref);
}

// rows x cols patterns (row r at bits + r * ld_bits) into int16 e_refs and values at
// [r * ld_out + j]: A and B of the GEMM's tiles, and B's strips (a strip's rows, one call).
void DecodeTile16(const PatternCodec& f, bool keep_subnormals, std::size_t rows, std::size_t cols,
                  const std::uint64_t* bits, std::size_t ld_bits, float* value, std::int16_t* eref,
                  std::size_t ld_out) {
  for (std::size_t r = 0; r < rows; ++r)
    DecodeTileT(f, keep_subnormals, cols, bits + r * ld_bits, value + r * ld_out, eref + r * ld_out);
}

}  // namespace tcsim::lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tcsim::lanes {

HWY_EXPORT(TileColumns);
HWY_EXPORT(BlockTile);
HWY_EXPORT(DecodeTile);
HWY_EXPORT(DecodeTile16);

void decode_tile_lanes(const PatternCodec& f, bool keep_subnormals, std::size_t count, const std::uint64_t* bits,
                       float* value, std::int32_t* eref) {
  HWY_DYNAMIC_DISPATCH(DecodeTile)(f, keep_subnormals, count, bits, value, eref);
}

void decode_tile16_lanes(const PatternCodec& f, bool keep_subnormals, std::size_t rows, std::size_t cols,
                         const std::uint64_t* bits, std::size_t ld_bits, float* value, std::int16_t* eref,
                         std::size_t ld_out) {
  HWY_DYNAMIC_DISPATCH(DecodeTile16)(f, keep_subnormals, rows, cols, bits, ld_bits, value, eref, ld_out);
}

std::size_t tile_columns() { return HWY_DYNAMIC_DISPATCH(TileColumns)(); }

std::size_t block_tile(const LaneParams& p, std::size_t rows, std::size_t cols, std::size_t len, const float* a_value,
                       const std::int16_t* a_eref, std::size_t lda, const float* b_value, const std::int16_t* b_eref,
                       std::size_t ldb, const float* c_value, const std::int32_t* c_eref, std::uint64_t* d_bits,
                       float* d_value, std::int32_t* d_eref, std::size_t ldc, std::uint32_t* flagged) {
  return HWY_DYNAMIC_DISPATCH(BlockTile)(p, rows, cols, len, a_value, a_eref, lda, b_value, b_eref, ldb, c_value, c_eref,
                                  d_bits, d_value, d_eref, ldc, flagged);
}

}  // namespace tcsim::lanes
#endif
