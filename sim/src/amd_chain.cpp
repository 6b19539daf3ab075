// The after-add GEMM chain with c in registers (see amd_chain.hpp), compiled once per SIMD
// target by Google Highway and chosen at run time.
//
// Per block of an output: s, the product sum in units of 2^(e_dot - 24) (|s| < 2^30), as the
// tiles of amd_lanes.cpp (per-group e_g in int16 lanes, each product a b, exact in binary32,
// times 2^(24 - e_g) truncated by the int32 conversion, groups floored to e_dot by shifts).
// Then c, E = max(e_dot, e_c), D = E - e_dot, and the exact after_sum total X (the sum floored
// at sum_bits and c at 24 fraction bits below E) in units of U = 2^(E - 24 - g), g = min(D, 4):
// (c_f << g below is formed as floor(c 2^(24 - E + g)) by one scaling, argued in Epilogue.)
// - D <= 4: X = (c_f << D) + s exactly, c_f = floor(c 2^(24 - E)) (|c_f| <= 2^25): below 2^31;
// - D > 4: X = (c_f << 4) + s / 2^(D - 4), whose floor T0 = (c_f << 4) + (s >> (D - 4)); the
//   bits of s between the sum's floor (sum_bits below E, raised by the renormalization's floor:
//   one or two bits when |X| >= 2^28 or 2^29 units) and U make the sticky bit, T = T0 | sticky
//   is X rounded to odd at U. The renormalization (at R >= 30 bits) floors nothing else.
// The int32 to binary32 conversion rounds T to nearest even (exact for D <= 4; for an odd T at
// least 2 bits below the rounding position when |T| >= 2^26: else flagged), and the product
// with 2^(E - 24 - g) is exact for E >= -90; E <= 120 keeps every result finite (|X| < 2^(E+7)).
// Flagged: E outside [-90, 120] unless T = 0 and c = 0 (+0; NaN/Inf c too), the tiles' range
// flags (e_g > 126: products near 2^128 and the NaN/Inf sentinels; e_g < -96), a nonzero c more
// than 26 binades below E that is not dropped, zero results without the +0 rule.
// Before it, on one-group rows with sum_bits >= 31 and no dropped c, ShortEpilogue (mi300d): the
// same T from c 2^(24 - e_dot) without E, D or lo, for vectors whose every lane it serves.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "amd_chain.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>

#include "amd_chain.hpp"

#include <algorithm>
#include <bit>
#include <type_traits>
#include <utility>

HWY_BEFORE_NAMESPACE();
namespace tcsim::amd_lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using DI = hn::RebindToSigned<DF>;
using DU = hn::RebindToUnsigned<DF>;
using VF = hn::Vec<DF>;
using VI = hn::Vec<DI>;
using VU = hn::Vec<DU>;

// Truncating binary32 -> int32 conversion (amd_lanes.cpp's TruncInt32): lanes beyond 2^31 are
// flagged by the callers; NaN lanes become 0 first where the conversion is C++.
template <class DI_, class V>
HWY_INLINE hn::Vec<DI_> Trunc32(DI_ di, V v) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  constexpr std::size_t kBytes = hn::MaxLanes(DI_()) * sizeof(std::int32_t);
#if HWY_TARGET <= HWY_AVX3
  if constexpr (kBytes == 64) return hn::Vec<DI_>{_mm512_cvttps_epi32(v.raw)};
#endif
#if HWY_TARGET <= HWY_AVX2
  if constexpr (kBytes == 32) return hn::Vec<DI_>{_mm256_cvttps_epi32(v.raw)};
#endif
  if constexpr (kBytes <= 16) return hn::Vec<DI_>{_mm_cvttps_epi32(v.raw)};
#endif
  return hn::ConvertTo(di, hn::IfThenZeroElse(hn::IsNaN(v), v));
}

// floor(v) as int32 (the callers flag lanes beyond 2^31 and NaN): one conversion with embedded
// rounding on AVX-512.
template <class DI_, class V>
HWY_INLINE hn::Vec<DI_> FloorInt32(DI_ di, V v) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  if constexpr (hn::MaxLanes(DI_()) * sizeof(std::int32_t) == 64)
    return hn::Vec<DI_>{_mm512_cvt_roundps_epi32(v.raw, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)};
#endif
  return Trunc32(di, hn::Floor(v));
}

// x86 AVX2/AVX-512 variable shifts (Highway's int32/uint32 operator>> and operator<< there are
// vpsravd, vpsrlvd, vpsllvd) take a count >= 32 to the sign (arithmetic) or 0 (logical), so the
// epilogue leaves its shift counts unclamped above there (argued in Epilogue); elsewhere the
// counts are clamped to 31.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
inline constexpr bool kWideShifts = true;
#else
inline constexpr bool kWideShifts = false;
#endif

// The 16-lane AVX-512 forms of three epilogue steps (one instruction each instead of two).
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
inline constexpr bool kAvx512Lanes = hn::MaxLanes(DI()) * sizeof(std::int32_t) == 64;
#else
inline constexpr bool kAvx512Lanes = false;
#endif

// (v & m) == 0 per lane.
HWY_INLINE hn::Mask<DI> NoBitsOf(VI v, VI m) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  if constexpr (kAvx512Lanes) return hn::Mask<DI>{_mm512_testn_epi32_mask(v.raw, m.raw)};
#endif
  return hn::Eq(hn::And(v, m), hn::Zero(DI()));
}

// v | 1 where m, v elsewhere.
HWY_INLINE VI OrOneIf(hn::Mask<DI> m, VI v, VI one) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  if constexpr (kAvx512Lanes) return VI{_mm512_mask_or_epi32(v.raw, m.raw, v.raw, one.raw)};
#endif
  return hn::Or(v, hn::IfThenElseZero(m, one));
}

// m && a < b per lane (signed).
HWY_INLINE hn::Mask<DI> AndLt(hn::Mask<DI> m, VI a, VI b) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  if constexpr (kAvx512Lanes) return hn::Mask<DI>{_mm512_mask_cmplt_epi32_mask(m.raw, a.raw, b.raw)};
#endif
  return hn::And(m, hn::Lt(a, b));
}

// v, which the compiler cannot fold into the code.
HWY_INLINE std::int32_t Opaque(std::int32_t v) {
#if defined(__GNUC__)
  asm("" : "+r"(v));
#endif
  return v;
}

// The epilogue's constants, built once per micro tile (kept in registers or reloaded).
struct Consts {
  VI zero, one, two, four, b31, ff, ones, bias_c, bias_r, far, lim_lo, lim_span, floor_at, two26, drop, abs_mask;
  int t_renorm;
  Consts(const AfterParams& p) {
    const DI di;
    zero = hn::Zero(di), one = hn::Set(di, 1), four = hn::Set(di, 4), b31 = hn::Set(di, 31), ff = hn::Set(di, 0xff);
    ones = hn::Set(di, -1);
    bias_c = hn::Set(di, 151 + 127), bias_r = hn::Set(di, 24);  // biased E: 2^(24 - E), 2^(E - 24 - g)
    // E (biased) in [-90, 120] + 127 by one unsigned compare; 120 keeps every result finite
    // (|X| < 2^(E+1) + 2^(e_dot+6) <= 2^127), so no Inf test on the result.
    far = hn::Set(di, 26), lim_lo = hn::Set(di, -90 + 127), lim_span = hn::Set(di, 120 - -90);
    floor_at = hn::Set(di, p.sum_bits - 24), two26 = hn::Set(di, 1 << 26);
    // |X| >= 2^t units: the renormalization floors 1 bit more (2 bits from 2^(t + 1)). t >= 28
    // for the rows after_add_chain_supported takes (renormalize_bits >= max(30, sum_bits - 1));
    // unused without renormalization. Capped at 31: |T0| < 2^31.
    t_renorm = std::clamp(p.renormalize_bits + 29 - p.sum_bits, 28, 31);
    two = hn::Set(di, 2);
    drop = hn::Set(di, p.drop_c_below), abs_mask = hn::Set(di, 0x7fffffff);
    // ShortEpilogue's: |c 2^(24 - e_dot)| normal and below 2^59 (its exponent field 1..185), the
    // field at D = 4 (24 + 4 + 127), the sticky window's floor 60 - sum_bits bits up (+ r <= 2:
    // <= 31 for sum_bits >= 31) and 2^(e_dot - 24) from the scale's bits.
    // Opaque: kept in registers or spilled once and read as memory operands, not rebuilt from
    // immediates (mov + vpbroadcastd) per vector where the micro tile fills the registers.
    near_lo = hn::Set(di, Opaque(0x00800000)), near_span = hn::Set(di, Opaque((186 - 1) << 23));
    e_sh = hn::Set(di, Opaque(24 + 4 + 127)), b32 = hn::Set(di, Opaque(32)), rbias = hn::Set(di, Opaque(254 << 23));
    sub_max = hn::Set(di, Opaque(0x007fffff)), s_abs = hn::Set(di, Opaque(0x7fffffff)), s_one = hn::Set(di, Opaque(1));
    s_two = hn::Set(di, Opaque(2)), s_two26 = hn::Set(di, Opaque(1 << 26)), s_t_renorm = hn::Set(di, Opaque(t_renorm));
    short_ok = p.sum_bits >= 31 && p.drop_c_below < 0 && p.groups == 1;
    win = hn::Set(di, short_ok ? static_cast<std::int32_t>(~0u << (60 - p.sum_bits)) : 0);
    // mi300f, AVX-512 with the renormalization: the sticky window's edge as a limit, 2^(60 -
    // sum_bits + r) - 1, looked up by T0's top 4 bits n (ShortEpilogue): m = n for T0 >= 0,
    // 15 - n = (~T0) >> 28 = (|T0| - 1) >> 28 for T0 < 0, r = min(m >> (t - 28), 2).
    lim_tab = zero;
    if constexpr (kAvx512Lanes) {
      if (short_ok) {
        HWY_ALIGN std::int32_t tab[16];
        for (int n = 0; n < 16; ++n) {
          const int m = n < 8 ? n : 15 - n, r = std::min(m >> (t_renorm - 28), 2);
          tab[n] = static_cast<std::int32_t>((std::uint32_t{1} << (60 - p.sum_bits + r)) - 1);  // <= 2^31 - 1
        }
        lim_tab = hn::Load(di, tab);
      }
    }
  }
  VI near_lo, near_span, e_sh, b32, rbias, sub_max, s_abs, s_one, s_two, s_two26, s_t_renorm, win, lim_tab;
  bool short_ok;
};

// The epilogue of one vector: c (binary32) and s, e_dot (biased by 127, int32) to the new
// accumulator; bad collects the lanes the scalar block must redo.
template <bool kRenorm, bool kDrop, bool kPositiveZero>
HWY_INLINE VF Epilogue(const Consts& k, VF c, VI s, VI e_dot, hn::Mask<DI>& bad) {
  const DF df;
  const DI di;
  const DU du;
  const VI cbits = hn::BitCast(di, c);
  const VI e_c = hn::Max(hn::And(hn::ShiftRight<23>(cbits), k.ff), k.one);  // biased; zero, subnormal: -126
  const VI E = hn::Max(e_dot, e_c);
  const VI D = hn::Sub(E, e_dot);
  // sh = max(D - 4, 0), the shift of s to U; E - g = e_dot + sh (g = min(D, 4)).
  VI sh = hn::Max(hn::Sub(D, k.four), k.zero);
  const VI E_g = hn::Add(e_dot, sh);
  // c floored at 24 fraction bits below E, times 2^g: floor(c 2^(24 - E + g)). Where g > 0, D > 0,
  // so E = e_c: c is normal with 23 fraction bits (or a subnormal or zero c with E = -126:
  // flagged below unless c = 0 and T = 0, when c_f is 0 either way), so c 2^(24 - E) is an
  // integer and the floor at 2^(E - 24) then the shift by g equal the floor at 2^(E - 24 - g).
  // c 2^(24 - E) is exact (normal) for E - e_c <= 26.
  const VF c_scale = hn::BitCast(df, hn::ShiftLeft<23>(hn::Sub(k.bias_c, E_g)));
  VI c_f = FloorInt32(di, hn::Mul(c, c_scale));
  const auto c_zero = NoBitsOf(cbits, k.abs_mask);
  const auto far_c = hn::AndNot(c_zero, hn::Gt(hn::Sub(E, e_c), k.far));
  if constexpr (kDrop) {
    const auto dropped = hn::Lt(e_c, hn::Sub(E, k.drop));
    c_f = hn::IfThenZeroElse(dropped, c_f);
    bad = hn::Or(bad, hn::AndNot(dropped, far_c));
  } else {
    bad = hn::Or(bad, far_c);
  }
  // X rounded to odd at U (module comment). sh = D - 4 >= 32 (kWideShifts): s >> sh is s's sign,
  // as s >> 31 (|s| < 2^30), so T0 is unchanged; low below is then all of s, which for s < 0 adds
  // bit 31 to the bits 0..30 of s mod 2^31: the sticky bit differs only for lo = 31 (below),
  // where T0 = c_f - 1 is odd (g = 4: c_f a multiple of 16), so T = T0 | sticky is the same.
  if constexpr (!kWideShifts) sh = hn::Min(sh, k.b31);
  const VI t0 = hn::Add(c_f, s >> sh);
  // The bits of s below U (s mod 2^sh; none for D <= 4), of which those at or above the sum's
  // floor make the sticky bit.
  const auto low = hn::AndNot(hn::BitCast(du, k.ones) << hn::BitCast(du, sh), hn::BitCast(du, s));
  const VI mag = hn::Abs(t0);
  VI lo = hn::Sub(D, k.floor_at);
  if constexpr (kRenorm) {
    // |X| >= 2^t, 2^(t + 1) units: the renormalization's floor moves up by that many bits,
    // min(|T0| >> t, 2) (|T0| < 2^30 where the window is not empty: D > 4). |T0| = |floor(X / U)|
    // decides it except for X in (-2^b, -2^b + 1) units (b = t or t + 1), where |T0| counts one
    // bit too many; such an X rounds to -2^b in binary32 whatever its sticky bit (the binade
    // below has an ulp of 2^(b - 24) >= 16 units), so the result is the same.
    lo = hn::Add(lo, hn::Min(hn::ShiftRightSame(mag, k.t_renorm), k.two));
  }
  // lo >= 32 (kWideShifts, not clamped to 31) gives no sticky bit; so does lo = 31 where sh <= 31
  // (low < 2^31); where sh >= 32 and s < 0, T0 is odd (above). So T is as with the clamps; the
  // sticky bit can only be set in more lanes, which can only flag more lanes (below).
  lo = hn::Max(lo, k.zero);
  if constexpr (!kWideShifts) lo = hn::Min(lo, k.b31);
  const auto sticky = hn::Ne(hn::BitCast(di, low >> hn::BitCast(du, lo)), k.zero);
  const VI t = OrOneIf(sticky, t0, k.one);
  // An inexact total must lie 2 bits above the conversion's rounding: |X| >= 2^26 - 1 units
  // (|T0| = 2^26 with T0 < 0 has |t| = 2^26 - 1, which rounds to -2^26 as X does).
  bad = hn::Or(bad, AndLt(sticky, mag, k.two26));
  const VF v = hn::ConvertTo(df, t);  // rounds to nearest even
  const VF result = hn::Mul(v, hn::BitCast(df, hn::ShiftLeft<23>(hn::Sub(E_g, k.bias_r))));
  const auto t_zero = hn::Eq(t, k.zero);
  // E outside [-90, 120] (NaN/Inf c too): flagged, unless c = 0 and T = 0 (the result +0).
  const auto out = hn::RebindMask(di, hn::Gt(hn::BitCast(du, hn::Sub(E, k.lim_lo)), hn::BitCast(du, k.lim_span)));
  bad = hn::Or(bad, hn::AndNot(hn::And(t_zero, c_zero), out));
  if constexpr (!kPositiveZero) bad = hn::Or(bad, t_zero);
  return result;
}

// (v & m) != 0 per lane.
HWY_INLINE hn::Mask<DI> AnyBitsOf(VI v, VI m) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  if constexpr (kAvx512Lanes) return hn::Mask<DI>{_mm512_test_epi32_mask(v.raw, m.raw)};
#endif
  return hn::Ne(hn::And(v, m), hn::Zero(DI()));
}

// The short epilogue (mi300d) of one vector of a one-group block, for rows with sum_bits >= 31
// and no dropped c: the same result as Epilogue where `ok` holds; the caller takes Epilogue for
// the whole vector where a lane fails. From c, s and the block's scale 2^(24 - e_dot) alone:
// cs = c 2^(24 - e_dot), ok needs cs normal (so exact; c nonzero and finite, the scale no NaN
// mark) and below 2^59. Then |cs| lies in [2^(24 + D'), 2^(25 + D')) with D' = e_c - e_dot (a
// subnormal c: e_c < e_dot, as the datapath's c at emin; D' in [-inf, 34]), read from cs's
// exponent field, and sh = max(D' - 4, 0) = Epilogue's (E = max(e_dot, e_c), D = max(D', 0)).
// - c_f = floor(cs 2^-sh) is Epilogue's floor(c 2^(24 - E + g)), g = D - sh: for D' >= 0 the
//   same power of two; for D' < 0 (E = e_dot, sh = 0) floor(cs) itself. cs 2^-sh by lowering the
//   field by sh stays normal (field >= 155 where sh > 0), so exact.
// - |T0| = |c_f + (s >> sh)| < 2^29 + 2^30 (sh = 0, |cs| < 2^29) or 2^29 + 2^29: as Epilogue.
// - The sticky bit: Epilogue's bits lo..sh-1 of s with lo = max(D - (sum_bits - 24) + r, 0)
//   (r = min(|T0| >> t, 2) with the renormalization, else 0). s << (32 - sh) puts bit j of s at
//   32 - sh + j (bits >= sh leave), so those bits are the ones at positions >= 32 - sh + lo; for
//   lo >= 0 that is 60 - sum_bits + r (D cancels), the window `win << r`. Where lo < 0 (no floor
//   inside the window) 32 - sh > 60 - sum_bits + r, so the same mask keeps every bit below sh;
//   sh = 0 shifts by 32 (0 on AVX2/AVX-512, two shifts elsewhere): no sticky bit, as Epilogue.
// - T = T0 | sticky, its RNE conversion and the scale 2^(e_dot - 24 + sh) = 2^(E - 24 - g) (bits
//   254 * 2^23 - scale + sh * 2^23) as Epilogue. The scale must be normal: a lane without products
//   reads e_dot = -103 (Scales' clamp), when ok needs sh >= 1. Then every nonzero result is at
//   least the scale (normal, exact); a zero T gives +0 (ok needs kPositiveZero or T != 0); E <= 127
//   (c finite) bounds the result below 2^(E + 3): it may overflow to Inf, as RNE(X) does.
// Not ok, as in Epilogue's flags: a sticky bit with |T0| < 2^26 (cancellation against c). Epilogue's
// E range flags are not needed: E >= e_dot >= -96 for lanes with products (Scales' NaN marks
// otherwise), the scale check above for those without, and overflow as argued.
// kSmallK (mi300e): blocks of at most 4 products, where that check cannot fire, so it is left
// out. A sticky bit needs sh >= 1, so D' >= 5 and |cs| >= 2^(24 + D'): c_f = cs 2^-sh exactly
// (c has 24 bits, U = 2^(e_c - 28)) with |c_f| >= 2^28. Each product is below 2^26 units of
// 2^(e_dot - 24), so |s| <= k (2^26 - 1) and |s >> sh| <= k 2^25 (sh >= 1): |T0| >= 2^28 - 4 2^25
// = 2^27 for k <= 4, whatever the formats (for k = 5..8 it is not: 8 xf32 products near their
// largest, truncated at F = 24 bits, cancel c = -2^(e_dot + 5) down to a few units).
template <bool kRenorm, bool kPositiveZero, bool kSmallK>
HWY_INLINE VF ShortEpilogue(const Consts& k, VF c, VI s, VF scale, hn::Mask<DI>& ok) {
  const DF df;
  const DI di;
  const DU du;
  const VF cs = hn::Mul(c, scale);
  const VI acs = hn::And(hn::BitCast(di, cs), k.s_abs);
  ok = hn::RebindMask(di, hn::Lt(hn::BitCast(du, hn::Sub(acs, k.near_lo)), hn::BitCast(du, k.near_span)));
  VI sh = hn::Max(hn::Sub(hn::ShiftRight<23>(acs), k.e_sh), k.zero);
  if constexpr (!kWideShifts) sh = hn::Min(sh, k.b31);  // lanes not ok only
  const VI sh23 = hn::ShiftLeft<23>(sh);
  const VI c_f = FloorInt32(di, hn::BitCast(df, hn::Sub(hn::BitCast(di, cs), sh23)));
  const VI t0 = hn::Add(c_f, s >> sh);
  VU aligned;
  if constexpr (kWideShifts) {
    aligned = hn::BitCast(du, s) << hn::BitCast(du, hn::Sub(k.b32, sh));
  } else {
    aligned = hn::ShiftLeft<1>(hn::BitCast(du, s) << hn::BitCast(du, hn::Sub(k.b31, sh)));
  }
  hn::Mask<DI> sticky;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  if constexpr (kAvx512Lanes && kRenorm) {
    // mi300f: aligned & (win << r) != 0 is aligned > 2^(60 - sum_bits + r) - 1 (unsigned; the
    // edge <= 31), the limit looked up by n = T0 >> 28 (logical; Consts' lim_tab): r = min((|T0|
    // - 1) >> t, 2) for T0 < 0, one less than the form below only at T0 = -2^b (b = t, t + 1),
    // where T is -2^b or -2^b + 1 and both convert to -2^b (b >= 28: the ulp below 2^b is >= 16
    // units), so the result is the same. No |T0|: 3 instructions instead of 5.
    const __m512i lim = _mm512_permutexvar_epi32(_mm512_srli_epi32(t0.raw, 28), k.lim_tab.raw);
    sticky = hn::Mask<DI>{_mm512_cmpgt_epu32_mask(aligned.raw, lim)};
  } else
#endif
  {
    VI win = k.win;
    if constexpr (kRenorm) {
      // mi300e: on AVX2/AVX-512 by a vector count (a memory operand), not a count reloaded into an
      // xmm register per vector; the same shift (t_renorm in [28, 31]). Logical shifts: a lane not
      // ok may hold T0 = -2^31 (|T0| = -2^31 as int32), whose arithmetic shift would give a
      // negative count below (undefined on the scalar targets); unsigned it gives 8 -> 2.
      VI r;
      const VU umag = hn::BitCast(du, hn::Abs(t0));
      if constexpr (kWideShifts) r = hn::Min(hn::BitCast(di, umag >> hn::BitCast(du, k.s_t_renorm)), k.s_two);
      else r = hn::Min(hn::BitCast(di, hn::ShiftRightSame(umag, k.t_renorm)), k.s_two);
      win = hn::BitCast(di, hn::BitCast(du, win) << hn::BitCast(du, r));
    }
    sticky = AnyBitsOf(hn::BitCast(di, aligned), win);
  }
  const VI t = OrOneIf(sticky, t0, k.s_one);
  if constexpr (!kSmallK) ok = hn::AndNot(AndLt(sticky, hn::Abs(t0), k.s_two26), ok);
  const VI rscale = hn::Add(hn::Sub(k.rbias, hn::BitCast(di, scale)), sh23);
  ok = AndLt(ok, k.sub_max, rscale);  // one masked compare on AVX-512 (mi300f)
  if constexpr (!kPositiveZero) ok = hn::AndNot(hn::Eq(t, k.zero), ok);
  return hn::Mul(hn::ConvertTo(df, t), hn::BitCast(df, rscale));
}

template <std::size_t... I, class F>
HWY_INLINE void Unrolled(std::index_sequence<I...>, const F& f) {
  (f(std::integral_constant<std::size_t, I>()), ...);
}

// The int16 layout of a block's E pass: where an int16 vector holds 2 NF lanes (AVX2, AVX-512),
// one vector serves both of a row's NV = 2 vectors.
template <std::size_t NV>
struct E16Layout {
  using DH = hn::Rebind<std::int16_t, DF>;  // NF lanes
  using DW = hn::Repartition<std::int16_t, DF>;  // 2 NF lanes
  static constexpr bool kWide = NV == 2 && HWY_TARGET != HWY_SCALAR && hn::MaxLanes(DW()) == 2 * hn::MaxLanes(DF());
  using D16 = std::conditional_t<kWide, DW, DH>;
  static constexpr std::size_t NE = kWide ? 1 : NV;  // int16 vectors per row
};

// E16[g][r][.] = the largest e_ref(a) + e_ref(b) of group g's products, in int16 lanes (the
// e_refs and the chain's sentinels fit with their sums, amd_chain.hpp), so one addition and one
// maximum serve both vectors of a row in the wide layout; -32768 where a lane has no product.
template <std::size_t MR, std::size_t NV, std::size_t G, class L = E16Layout<NV>>
HWY_INLINE void GroupMaxima(const ChainTile& T, const std::int16_t* ae, std::size_t pos, std::size_t len,
                            const std::size_t (&bo)[NV], hn::Vec<typename L::D16> (&E16)[G][MR][L::NE]) {
  const typename L::D16 d16;
  for (std::size_t g = 0; g < G; ++g)
    for (std::size_t r = 0; r < MR; ++r)
      for (std::size_t v = 0; v < L::NE; ++v) E16[g][r][v] = hn::Set(d16, std::int16_t{-32768});
  for (std::size_t t = 0; t < len; ++t) {
    const std::size_t g = t % G;
    hn::Vec<typename L::D16> eb[L::NE];  // wide: bo[1] = bo[0] + NF (a strip or a row holds both vectors)
    for (std::size_t v = 0; v < L::NE; ++v) eb[v] = hn::LoadU(d16, T.b_hi + (pos + t) * T.ldb + bo[v]);
    for (std::size_t r = 0; r < MR; ++r) {
      const auto ea = hn::Set(d16, ae[r * T.lda + pos + t]);
      for (std::size_t v = 0; v < L::NE; ++v) E16[g][r][v] = hn::Max(E16[g][r][v], hn::Add(ea, eb[v]));
    }
  }
}

// The E pass as int32 lanes: Eg[g][r][v] = GroupMaxima's e_g promoted (the pair chain's, mi300g).
template <std::size_t MR, std::size_t NV, std::size_t G>
HWY_INLINE void EPass(const ChainTile& T, const std::int16_t* ae, std::size_t pos, std::size_t len,
                      const std::size_t (&bo)[NV], VI (&Eg)[G][MR][NV]) {
  using L = E16Layout<NV>;
  const DI di;
  hn::Vec<typename L::D16> E16[G][MR][L::NE];
  GroupMaxima<MR, NV, G>(T, ae, pos, len, bo, E16);
  for (std::size_t g = 0; g < G; ++g)
    for (std::size_t r = 0; r < MR; ++r) {
#if HWY_TARGET != HWY_SCALAR
      if constexpr (L::kWide) {
        const typename L::DH dh;
        Eg[g][r][0] = hn::PromoteTo(di, hn::LowerHalf(dh, E16[g][r][0]));
        Eg[g][r][1] = hn::PromoteTo(di, hn::UpperHalf(dh, E16[g][r][0]));
      }
#endif
      if constexpr (!L::kWide)
        for (std::size_t v = 0; v < L::NE; ++v) Eg[g][r][v] = hn::PromoteTo(di, E16[g][r][v]);
    }
}

// Pass 1 of a block: the scales 2^(24 - e_g) per group, row and vector, e_g from GroupMaxima.
// A lane is flagged (its scale a NaN, 0x7fc00000) where e_g > 126 (products near 2^128, the
// NaN/Inf sentinels) or a used group lies below -96 (-4095 <= e_g < -96); otherwise the scale's
// field is 151 - e_g clamped to [1, 254] (the clamped values of unused groups lie below -96,
// where they change no unflagged lane). With both vectors in one int16 vector the field and the
// flags are formed there too, once per row, as twice the field (0x1ff where flagged) shifted by
// 22 after the promotion.
template <std::size_t MR, std::size_t NV, std::size_t G>
HWY_INLINE void Scales(const ChainTile& T, const std::int16_t* ae, std::size_t pos, std::size_t len,
                       const std::size_t (&bo)[NV], VF (&scale)[G][MR][NV]) {
  using L = E16Layout<NV>;
  using D16 = typename L::D16;
  using DH = typename L::DH;
  constexpr bool kWide = L::kWide;
  const DF df;
  const DI di;
  const D16 d16;
  hn::Vec<D16> E16[G][MR][L::NE];
  GroupMaxima<MR, NV, G>(T, ae, pos, len, bo, E16);
  constexpr int kUsed = kChainZeroHi / 2 + 1, kLow = 24 - 120;  // flagged: kUsed <= e_g < kLow
#if HWY_TARGET != HWY_SCALAR
  if constexpr (kWide) {
    // In int16: 151 - e_g saturates (e_g >= -32768) before the clamp; e_g - kUsed is taken modulo
    // 2^16 (e_g in [-32768, 32000]: it is below kLow - kUsed exactly for kUsed <= e_g < kLow).
    const DH dh;
    const hn::RebindToUnsigned<D16> du16;
    const auto bias = hn::Set(d16, std::int16_t{24 + 127});
    const auto hi_f = hn::Set(d16, std::int16_t{254}), max_e = hn::Set(d16, std::int16_t{126});
    const auto nan2 = hn::Set(d16, std::int16_t{0x1ff});
    const auto used = hn::Set(du16, static_cast<std::uint16_t>(-kUsed));
    const auto span = hn::Set(du16, static_cast<std::uint16_t>(kLow - kUsed));
    for (std::size_t g = 0; g < G; ++g)
      for (std::size_t r = 0; r < MR; ++r) {
        const auto e = E16[g][r][0];
        // No lower clamp (mi300f): 151 - e < 1 only where e > 150, flagged (nan2) below; the
        // doubling saturates there instead of wrapping.
        const auto field = hn::Min(hn::SaturatedSub(bias, e), hi_f);
        const auto low = hn::Lt(hn::Add(hn::BitCast(du16, e), used), span);
        const auto out = hn::Or(hn::Gt(e, max_e), hn::RebindMask(d16, low));
        const auto f2 = hn::IfThenElse(out, nan2, hn::SaturatedAdd(field, field));
        scale[g][r][0] = hn::BitCast(df, hn::ShiftLeft<22>(hn::PromoteTo(di, hn::LowerHalf(dh, f2))));
        scale[g][r][1] = hn::BitCast(df, hn::ShiftLeft<22>(hn::PromoteTo(di, hn::UpperHalf(dh, f2))));
      }
  }
#endif
  if constexpr (!kWide) {
    const DU du;
    const VI F_bias = hn::Set(di, 24 + 127), lo_field = hn::Set(di, 1), hi_field = hn::Set(di, 254);
    const VI max_e = hn::Set(di, 126), used1 = hn::Set(di, kUsed);
    const VU low_span = hn::Set(du, static_cast<std::uint32_t>(kLow - kUsed));
    const VF flagged = hn::BitCast(df, hn::Set(di, 0x7fc00000));
    for (std::size_t g = 0; g < G; ++g)
      for (std::size_t r = 0; r < MR; ++r)
        for (std::size_t v = 0; v < NV; ++v) {
          const VI e = hn::PromoteTo(di, E16[g][r][v]);
          // e > 126, or used <= e < 24 - 120 (one unsigned compare: e - used below the span)
          const auto out_of_range = hn::Or(hn::Gt(e, max_e), hn::RebindMask(di, hn::Lt(hn::BitCast(du, hn::Sub(e, used1)), low_span)));
          const VI field = hn::Min(hn::Max(hn::Sub(F_bias, e), lo_field), hi_field);  // 2^(24 - e), clamped
          scale[g][r][v] = hn::IfThenElse(hn::RebindMask(df, out_of_range), flagged, hn::BitCast(df, hn::ShiftLeft<23>(field)));
        }
  }
}

// MR rows x NV vectors of outputs, c in registers over the whole chain.
// kSmallK: blocks of at most 4 products (min(T.k, T.group) <= 4), ShortEpilogue without its
// cancellation check.
template <std::size_t MR, std::size_t NV, std::size_t G, bool kRenorm, bool kDrop, bool kPositiveZero, bool kSmallK>
void ChainMicro(const AfterParams& p, const ChainTile& T, std::size_t r0, std::size_t j0) {
  const DF df;
  const DI di;
  const std::size_t NF = hn::Lanes(df);
  const Consts k(p);
  VF C[MR][NV];
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t v = 0; v < NV; ++v) C[r][v] = hn::LoadU(df, T.acc + (r0 + r) * T.ldc + j0 + v * NF);
#if HWY_ARCH_X86
  static_assert(2 * HWY_MAX_BYTES / sizeof(float) <= 32, "chain_strip_width: a strip holds a tile's vectors");
#endif
  // B's column offsets of the tile's vectors (strip-major: within one strip, amd_chain.hpp).
  std::size_t bo[NV];
  for (std::size_t v = 0; v < NV; ++v) {
    const std::size_t j = T.b_j0 + j0 + v * NF;
    bo[v] = T.b_strip ? j / T.b_strip * T.b_strip_stride + j % T.b_strip : j;
  }
  const float* a = T.a_f + r0 * T.lda;
  const std::int16_t* ae = T.a_hi + r0 * T.lda;
  const VI max_shift = hn::Set(di, 31), eg_from = hn::Set(di, 24 + 127 + 127);
  std::size_t start = 0;
  do {
    const std::size_t end = std::min(T.K, start + T.group);
    std::size_t pos = start;
    do {
      const std::size_t len = std::min(T.k, end - pos);
      // Pass 1: the scales 2^(24 - e_g) of each group (NaN where flagged).
      VF scale[G][MR][NV];
      Scales<MR, NV, G>(T, ae, pos, len, bo, scale);
      // Pass 2: trunc(a b 2^(24 - e_g)) summed per group in int32 lanes.
      VI S[G][MR][NV];
      for (std::size_t g = 0; g < G; ++g)
        for (std::size_t r = 0; r < MR; ++r)
          for (std::size_t v = 0; v < NV; ++v) S[g][r][v] = hn::Zero(di);
      for (std::size_t t = 0; t < len; ++t) {
        const std::size_t g = t % G;
        VF vb[NV];
        for (std::size_t v = 0; v < NV; ++v) vb[v] = hn::LoadU(df, T.b_f + (pos + t) * T.ldb + bo[v]);
        for (std::size_t r = 0; r < MR; ++r) {
          const VF va = hn::Set(df, a[r * T.lda + pos + t]);
          for (std::size_t v = 0; v < NV; ++v)
            S[g][r][v] = hn::Add(S[g][r][v], Trunc32(di, hn::Mul(hn::Mul(va, vb[v]), scale[g][r][v])));
        }
      }
      // The epilogue per vector (unrolled: every array index a constant, the arrays in
      // registers); flagged lanes keep their old c and are redone below by the scalar block.
      std::uint8_t bits[MR * NV][HWY_MAX_BYTES / 32 + 8];
      std::uint32_t flagged_vectors = 0;  // bit I: vector I has flagged lanes (their bits in bits[I])
      Unrolled(std::make_index_sequence<MR * NV>(), [&](auto I) {
        constexpr std::size_t r = I / NV, v = I % NV;
        if constexpr (G == 1 && !kDrop) {
          if (k.short_ok) {
            hn::Mask<DI> ok;
            const VF res = ShortEpilogue<kRenorm, kPositiveZero, kSmallK>(k, C[r][v], S[0][r][v], scale[0][r][v], ok);
            if (HWY_LIKELY(hn::AllTrue(di, ok))) {
              C[r][v] = res;
              return;
            }
          }
        }
        // e_g (biased) back from the scale's exponent field (exact in range; the clamped values
        // of unused groups lie below -96, where they change no unflagged lane).
        VI eg[G];
        hn::Mask<DI> bad = hn::RebindMask(di, hn::IsNaN(scale[0][r][v]));
        for (std::size_t g = 0; g < G; ++g) {
          eg[g] = hn::Sub(eg_from, hn::ShiftRight<23>(hn::BitCast(di, scale[g][r][v])));
          if (g > 0) bad = hn::Or(bad, hn::RebindMask(di, hn::IsNaN(scale[g][r][v])));
        }
        VI e_dot = eg[0], s = S[0][r][v];
        if constexpr (G > 1) {
          for (std::size_t g = 1; g < G; ++g) e_dot = hn::Max(e_dot, eg[g]);
          s = hn::Zero(di);  // floor(S_g / 2^(e_dot - e_g))
          for (std::size_t g = 0; g < G; ++g) s = hn::Add(s, S[g][r][v] >> hn::Min(hn::Sub(e_dot, eg[g]), max_shift));
        }
        const VF res = Epilogue<kRenorm, kDrop, kPositiveZero>(k, C[r][v], s, e_dot, bad);
        if (HWY_UNLIKELY(!hn::AllFalse(di, bad))) {
          flagged_vectors |= std::uint32_t{1} << I;
          hn::StoreMaskBits(di, bad, bits[I]);
          C[r][v] = hn::IfThenElse(hn::RebindMask(df, bad), C[r][v], res);
        } else {
          C[r][v] = res;
        }
      });
      if (HWY_UNLIKELY(flagged_vectors != 0)) {  // the scalar block from the old c of each flagged lane
        HWY_ALIGN float buf[MR * NV * (HWY_MAX_BYTES / 4)];
        for (std::size_t r = 0; r < MR; ++r)
          for (std::size_t v = 0; v < NV; ++v) hn::Store(C[r][v], df, buf + (r * NV + v) * NF);
        for (std::size_t i = 0; i < MR * NV; ++i) {
          if (!((flagged_vectors >> i) & 1)) continue;
          const std::size_t r = i / NV, j = j0 + (i % NV) * NF;
          for (std::size_t l = 0; l < NF; ++l)
            if ((bits[i][l / 8] >> (l % 8)) & 1 && j + l < T.valid)
              buf[i * NF + l] = std::bit_cast<float>(
                  T.fallback(T.ctx, r0 + r, j + l, pos, len, std::bit_cast<std::uint32_t>(buf[i * NF + l])));
        }
        for (std::size_t r = 0; r < MR; ++r)
          for (std::size_t v = 0; v < NV; ++v) C[r][v] = hn::Load(df, buf + (r * NV + v) * NF);
      }
      pos += len;
    } while (pos < end);
    start = end;
  } while (start < T.K);
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t v = 0; v < NV; ++v) hn::StoreU(C[r][v], df, T.acc + (r0 + r) * T.ldc + j0 + v * NF);
}

template <std::size_t MR, std::size_t NV, std::size_t G, bool... kFlags>
HWY_INLINE void Rows(const AfterParams& p, const ChainTile& T, std::size_t r0, std::size_t j0) {
#ifdef TCSIM_CHAIN_ROW_TAILS_BY_ONE
  // Every build since session 45 (sim/CMakeLists.txt): the last 2 or 3 rows one by one. ChainMicro's rows
  // are independent (each its own c, sums, scales and fallback), so the bits are the same, and
  // the MR = 2 and 3 tiles (each a quarter of the ChainMicro instantiations) are not compiled.
  const std::size_t rows = std::min(MR, T.rows - r0);
  if (rows == MR) ChainMicro<MR, NV, G, kFlags...>(p, T, r0, j0);
  else
    for (std::size_t r = 0; r < rows; ++r) ChainMicro<1, NV, G, kFlags...>(p, T, r0 + r, j0);
#else
  switch (std::min(MR, T.rows - r0)) {
    case 4: if constexpr (MR >= 4) ChainMicro<4, NV, G, kFlags...>(p, T, r0, j0); break;
    case 3: if constexpr (MR >= 3) ChainMicro<3, NV, G, kFlags...>(p, T, r0, j0); break;
    case 2: if constexpr (MR >= 2) ChainMicro<2, NV, G, kFlags...>(p, T, r0, j0); break;
    default: ChainMicro<1, NV, G, kFlags...>(p, T, r0, j0); break;
  }
#endif
}

template <std::size_t MR, std::size_t NV, std::size_t G, bool... kFlags>
void ChainG(const AfterParams& p, const ChainTile& T) {
  const std::size_t NF = hn::Lanes(DF());
  std::size_t j0 = 0;
  if constexpr (NV == 2)
    for (; j0 + 2 * NF <= T.w; j0 += 2 * NF)  // columns outermost: B's strip stays in cache over the rows
    for (std::size_t r0 = 0; r0 < T.rows; r0 += MR) Rows<MR, 2, G, kFlags...>(p, T, r0, j0);
  for (; j0 < T.w; j0 += NF)
    for (std::size_t r0 = 0; r0 < T.rows; r0 += MR) Rows<MR, 1, G, kFlags...>(p, T, r0, j0);
}

template <bool kRenorm, bool kDrop>
void ChainFlags(const AfterParams& p, const ChainTile& T) {
  // 1 group: 4 x 2 vectors; 2 groups: 4 x 1 (the two groups' scales and sums fit the registers).
  // Blocks of at most 4 products (len <= min(k, group): the `_2b` instructions, xf32) take ShortEpilogue's
  // kSmallK form; it serves only one-group rows without dropped c.
  if (p.groups == 1) {
    if (!kDrop && std::min(T.k, T.group) <= 4) {
      if (p.positive_zero) ChainG<4, 2, 1, kRenorm, kDrop, true, true>(p, T);
      else ChainG<4, 2, 1, kRenorm, kDrop, false, true>(p, T);
    } else {
      if (p.positive_zero) ChainG<4, 2, 1, kRenorm, kDrop, true, false>(p, T);
      else ChainG<4, 2, 1, kRenorm, kDrop, false, false>(p, T);
    }
  } else {
    if (p.positive_zero) ChainG<4, 1, 2, kRenorm, kDrop, true, false>(p, T);
    else ChainG<4, 1, 2, kRenorm, kDrop, false, false>(p, T);
  }
}

void AfterAddChain(const AfterParams& p, const ChainTile& T) {
  const bool renorm = p.renormalize_bits > 0, drop = p.drop_c_below >= 0;
  if (renorm) drop ? ChainFlags<true, true>(p, T) : ChainFlags<true, false>(p, T);
  else drop ? ChainFlags<false, true>(p, T) : ChainFlags<false, false>(p, T);
}

}  // namespace tcsim::amd_lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#include "amd_pair_chain-inl.h"  // the two-group rows' pair chain (mi300g): shares Epilogue, EPass

#if HWY_ONCE
namespace tcsim::amd_lanes {

HWY_EXPORT(AfterAddChain);

std::size_t chain_strip_width() {
#if HWY_ARCH_X86
  return 32;  // 2 x 16 lanes of AVX-512 (static_assert in ChainMicro)
#else
  return 0;  // scalable vectors: B row-major
#endif
}

bool after_add_chain_supported(const AfterParams& p, std::size_t k) {
  if (k == 0 || p.groups < 1 || p.groups > 2 || p.fraction_bits != 24 || p.c_bits != 24) return false;
  if (p.sum_bits < 28 || p.sum_bits > 40) return false;
  if (p.renormalize_bits != 0 && p.renormalize_bits < std::max(30, p.sum_bits - 1)) return false;
  const std::size_t G = static_cast<std::size_t>(p.groups), per_group = (k + G - 1) / G;
  return G * per_group <= 16;  // G * per_group * 2^26 <= 2^30
}

void after_add_chain(const AfterParams& p, const ChainTile& t) { HWY_DYNAMIC_DISPATCH(AfterAddChain)(p, t); }

}  // namespace tcsim::amd_lanes
#endif
