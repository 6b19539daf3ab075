// Private to sim/src: SIMD helpers shared by the block kernels (block_lanes.cpp,
// block_patterns.cpp, block_tile.cpp), included once per Highway target.
#if defined(TCSIM_SIM_BLOCK_LANES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TCSIM_SIM_BLOCK_LANES_INL_H_
#undef TCSIM_SIM_BLOCK_LANES_INL_H_
#else
#define TCSIM_SIM_BLOCK_LANES_INL_H_
#endif

#include <hwy/highway.h>

#include <cstdint>
#include <limits>

#include "block_lanes.hpp"

HWY_BEFORE_NAMESPACE();
namespace tcsim::lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// A nonzero term whose scaled value underflows binary64 must still round away from zero
// under directed alignment (rd for negative, ru for positive terms): such terms are lifted
// to +-2^-100, which every alignment rounding treats as the tiny nonzero it is.
template <class D, class V>
V Scaled(D d, V term, V scale, bool directed) {
  const V x = hn::Mul(term, scale);
  if (!directed) return x;  // rz and rne take any |x| < 1/2 to 0, underflowed or not
  const V tiny = hn::Set(d, 0x1p-100);
  return hn::IfThenElse(hn::And(hn::Lt(hn::Abs(x), tiny), hn::Ne(term, hn::Zero(d))), hn::CopySign(tiny, term), x);
}

template <class D, class V>
V Align(D, V x, int mode) {
  switch (mode) {
    case 1: return hn::Floor(x);
    case 2: return hn::Ceil(x);
    case 3: return hn::Round(x);  // ties to even
    default: return hn::Trunc(x);
  }
}

// 2^e for integral e in [-1022, 1023], from the exponent field.
template <class D, class V>
V PowerOfTwo(D d, V e) {
  const hn::RebindToSigned<D> di;
  const auto field = hn::ConvertTo(di, hn::Add(e, hn::Set(d, 1023.0)));
  return hn::BitCast(d, hn::ShiftLeft<52>(field));
}

// Truncating binary32 -> int32 conversion without Highway's overflow fix-up (ConvertTo adds
// three operations per vector to saturate +huge to INT32_MAX; the sum passes spend about as
// much on it as on the products). Callers use lanes whose |x| < 2^31 only, or flag the
// others: out-of-range lanes give INT32_MIN here (x86) or the saturated value (elsewhere).
template <class DI, class VF>
HWY_INLINE hn::Vec<DI> TruncToInt32(DI di, VF v) {
// Not on EMU128 (Highway's portable 128-bit target, which clang builds): its vectors are
// arrays, not __m128.
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  constexpr std::size_t kBytes = hn::MaxLanes(DI()) * sizeof(std::int32_t);
#if HWY_TARGET <= HWY_AVX3
  if constexpr (kBytes == 64) return hn::Vec<DI>{_mm512_cvttps_epi32(v.raw)};
#endif
#if HWY_TARGET <= HWY_AVX2
  if constexpr (kBytes == 32) return hn::Vec<DI>{_mm256_cvttps_epi32(v.raw)};
#endif
  if constexpr (kBytes <= 16) return hn::Vec<DI>{_mm_cvttps_epi32(v.raw)};
#endif
  // NaN lanes (flagged by the callers) become 0 first: converting NaN is undefined in C++ (UBSan, EMU128).
  return hn::ConvertTo(di, hn::IfThenZeroElse(hn::IsNaN(v), v));
}

// Rounding a binary64 value (an exact result) into the output format, in integer lanes:
// the pattern, the rounded value as a binary64 and its e_ref, and the lanes that need the
// exact path (below 2^emin, decided before rounding as round_to_format does; overflow).
struct OutRounding {
  using D = hn::ScalableTag<double>;
  using DI = hn::RebindToSigned<D>;
  using DU = hn::RebindToUnsigned<D>;
  using VD = hn::Vec<D>;
  using VU = hn::Vec<DU>;
  using VI = hn::Vec<DI>;
  D d;
  DI di;
  DU du;
  int mode, drop, precision, width;
  VU mant_mask, implicit, rem_mask, half, one, zero_u, top, frac_mask, max_sig;
  VI emin, emax, bias, i1023;

  explicit OutRounding(const LaneParams& p, int rounding)
      : mode(rounding), drop(52 - (p.out_precision - 1)), precision(p.out_precision), width(p.out_width),
        mant_mask(hn::Set(du, (std::uint64_t{1} << 52) - 1)), implicit(hn::Set(du, std::uint64_t{1} << 52)),
        rem_mask(hn::Set(du, drop == 0 ? 0 : (std::uint64_t{1} << drop) - 1)),
        half(hn::Set(du, drop == 0 ? 0 : std::uint64_t{1} << (drop - 1))), one(hn::Set(du, 1)), zero_u(hn::Zero(du)),
        top(hn::Set(du, std::uint64_t{1} << p.out_precision)),
        frac_mask(hn::Set(du, (std::uint64_t{1} << (p.out_precision - 1)) - 1)),
        max_sig(hn::Set(du, p.out_max_finite_significand)), emin(hn::Set(di, p.out_emin)),
        emax(hn::Set(di, p.out_emax)), bias(hn::Set(di, p.out_bias)), i1023(hn::Set(di, 1023)) {}

  // v nonzero and finite (other lanes are flagged by the caller).
  hn::Mask<D> Round(VD v, VU& out, VD& value, VD& eref) const {
    const VU bits = hn::BitCast(du, v);
    const VU sign = hn::ShiftRight<63>(bits);
    VI e = hn::Sub(hn::BitCast(di, hn::ShiftRight<52>(hn::And(bits, hn::Set(du, 0x7ff0000000000000ull)))), i1023);
    const auto tiny = hn::Lt(e, emin);
    const VU mant = hn::Or(hn::And(bits, mant_mask), implicit);
    VU kept = hn::ShiftRightSame(mant, drop);
    const VU rem = hn::And(mant, rem_mask);
    const auto inexact = hn::Ne(rem, zero_u);
    const auto is_neg = hn::Ne(sign, zero_u);
    switch (mode) {
      case 1: kept = hn::Add(kept, hn::IfThenElseZero(hn::And(inexact, is_neg), one)); break;
      case 2: kept = hn::Add(kept, hn::IfThenElseZero(hn::AndNot(is_neg, inexact), one)); break;
      case 3: {
        // Signed compares: every quantity here is below 2^53.
        const auto up = hn::Or(hn::RebindMask(du, hn::Gt(hn::BitCast(di, rem), hn::BitCast(di, half))),
                               hn::And(hn::Eq(rem, half), hn::Ne(hn::And(kept, one), zero_u)));
        kept = hn::Add(kept, hn::IfThenElseZero(up, one));
        break;
      }
      case 4: kept = hn::Or(kept, hn::IfThenElseZero(inexact, one)); break;
      default: break;
    }
    const auto carried = hn::Eq(kept, top);  // rounded up into the next binade
    kept = hn::IfThenElse(carried, hn::ShiftRight<1>(kept), kept);
    e = hn::Add(e, hn::IfThenElseZero(hn::RebindMask(di, carried), hn::Set(di, 1)));
    const auto over_max = hn::And(hn::Eq(e, emax), hn::Gt(hn::BitCast(di, kept), hn::BitCast(di, max_sig)));
    const auto bad = hn::Or(hn::Or(tiny, hn::Gt(e, emax)), over_max);
    const VU fraction = hn::And(kept, frac_mask);
    out = hn::Or(hn::Or(hn::ShiftLeftSame(sign, width - 1),
                        hn::ShiftLeftSame(hn::BitCast(du, hn::Add(e, bias)), precision - 1)),
                 fraction);
    value = hn::BitCast(d, hn::Or(hn::Or(hn::ShiftLeft<63>(sign), hn::ShiftLeft<52>(hn::BitCast(du, hn::Add(e, i1023)))),
                                  hn::ShiftLeftSame(fraction, drop)));
    eref = hn::ConvertTo(d, e);
    return hn::RebindMask(d, bad);
  }
};

// The steps of a block FMA after its largest exponent E, in binary64 lanes: one
// implementation for BlockFma, BlockFmaGroups (block_lanes.cpp) and RoundTailLanes below.
struct BlockEnd {
  using D = hn::ScalableTag<double>;
  using VD = hn::Vec<D>;
  using VU = hn::Vec<hn::RebindToUnsigned<D>>;
  using M = hn::Mask<D>;
  D d;
  VD F, min_e, wrap, no_term, lo_scale, hi_scale;
  bool directed;
  int alignment;

  explicit BlockEnd(const LaneParams& p)
      : F(hn::Set(d, p.fraction_bits)), min_e(hn::Set(d, p.min_exponent)), wrap(hn::Set(d, p.wrap_limit)),
        no_term(hn::Set(d, -1.0e8)), lo_scale(hn::Set(d, -1000.0)), hi_scale(hn::Set(d, 1000.0)),
        directed(p.alignment == 1 || p.alignment == 2), alignment(p.alignment) {}

  // E over the terms (kZeroExponent where none is nonzero) clamped to the row's minimum
  // exponent; returns the lanes without a nonzero term (a zero and its sign rules).
  M ClampE(VD& E) const {
    const M none = hn::Lt(E, no_term);
    E = hn::Max(E, min_e);
    return none;
  }
  // shift = F - E and scale = 2^shift, which aligns the terms at E with F fraction bits;
  // returns the lanes whose shift is beyond +-1000 (the exact path).
  M Scale(VD E, VD& shift, VD& scale) const {
    shift = hn::Sub(F, E);
    scale = PowerOfTwo(d, hn::Min(hn::Max(shift, lo_scale), hi_scale));
    return hn::Or(hn::Lt(shift, lo_scale), hn::Gt(shift, hi_scale));
  }
  // A term (a product, a group sum or c) scaled and aligned to an integer in the row's mode.
  VD Term(VD term, VD scale) const { return Align(d, Scaled(d, term, scale, directed), alignment); }
  // The aligned sum s (an integer) times 2^-shift, exact in binary64, rounded into the
  // output format; returns bad | the lanes the exact path must take (zero sums, wraps,
  // results outside the normal range).
  M Round(const OutRounding& rounding, VD s, VD shift, M bad, VU& out, VD& value, VD& eref) const {
    bad = hn::Or(bad, hn::Eq(s, hn::Zero(d)));
    bad = hn::Or(bad, hn::Ge(hn::Abs(s), wrap));
    const VD v = hn::Mul(s, PowerOfTwo(d, hn::Min(hn::Max(hn::Neg(shift), lo_scale), hi_scale)));
    return hn::Or(bad, rounding.Round(v, out, value, eref));
  }
};

inline void StoreFlags(hn::ScalableTag<double> d, hn::Mask<hn::ScalableTag<double>> bad, std::uint8_t* fixup) {
  const hn::RebindToUnsigned<decltype(d)> du;
  HWY_ALIGN std::uint64_t flags[HWY_MAX_BYTES / sizeof(double)];
  hn::Store(hn::BitCast(du, hn::VecFromMask(d, bad)), du, flags);
  for (std::size_t l = 0; l < hn::Lanes(d); ++l) fixup[l] = flags[l] != 0;
}

// The last steps of a lane of BlockFma, BlockFmaGroups and BlockGroupTile: NaN/Inf operands
// (a non-finite s) flagged with `bad`, s rounded (BlockEnd::Round), the pattern and, where not
// null, the value and e_ref stored, the flags into fixup.
HWY_INLINE void FinishLane(const BlockEnd& end, const OutRounding& rounding, hn::Vec<hn::ScalableTag<double>> s,
                           hn::Vec<hn::ScalableTag<double>> shift, hn::Mask<hn::ScalableTag<double>> bad,
                           std::uint64_t* d_out, double* d_value, double* d_eref, std::uint8_t* fixup) {
  const hn::ScalableTag<double> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  bad = hn::Or(bad, hn::Not(hn::IsFinite(s)));
  hn::Vec<decltype(du)> out;
  hn::Vec<decltype(d)> value, eref;
  bad = end.Round(rounding, s, shift, bad, out, value, eref);
  hn::StoreU(out, du, d_out);
  if (d_value) hn::StoreU(value, d, d_value);
  if (d_eref) hn::StoreU(eref, d, d_eref);
  StoreFlags(d, bad, fixup);
}

// Decoding of patterns in 64-bit integer lanes.
struct PatternLanes {
  using DU = hn::ScalableTag<std::uint64_t>;
  using DI = hn::RebindToSigned<DU>;
  using VU = hn::Vec<DU>;
  using VI = hn::Vec<DI>;
  DU du;
  DI di;
  VU field_top, frac_mask, implicit, zero, one, invalid_bits;
  VI bias;
  int fraction_bits, sign_shift, nan;
  bool keep_subnormals;

  PatternLanes(const PatternCodec& f, bool keep_sub)
      : field_top(hn::Set(du, f.top_field)), frac_mask(hn::Set(du, (std::uint64_t{1} << (f.precision - 1)) - 1)),
        implicit(hn::Set(du, std::uint64_t{1} << (f.precision - 1))), zero(hn::Zero(du)), one(hn::Set(du, 1)),
        invalid_bits(hn::Set(du, ~f.width_mask)), bias(hn::Set(di, f.bias)), fraction_bits(f.precision - 1),
        sign_shift(f.width - 1), nan(f.nan), keep_subnormals(keep_sub) {}

  // Significand (integer), e_ref (emin for subnormals), sign bit, and the lanes that are
  // NaN/Inf or not patterns of the format.
  void Decode(VU x, VU& sig, VI& eref, VU& sign, hn::Mask<DU>& bad) const {
    const VU field = hn::And(hn::ShiftRightSame(x, fraction_bits), field_top);
    const VU frac = hn::And(x, frac_mask);
    const auto subnormal = hn::Eq(field, zero);
    sig = hn::IfThenElse(subnormal, keep_subnormals ? frac : zero, hn::Or(frac, implicit));
    eref = hn::Sub(hn::BitCast(di, hn::Max(field, one)), bias);
    sign = hn::And(hn::ShiftRightSame(x, sign_shift), one);
    bad = hn::Ne(hn::And(x, invalid_bits), zero);
    if (nan == 0) bad = hn::Or(bad, hn::Eq(field, field_top));
    if (nan == 1) bad = hn::Or(bad, hn::And(hn::Eq(field, field_top), hn::Eq(frac, frac_mask)));
  }
};

inline constexpr std::int64_t kNoTerm = -(std::int64_t{1} << 40);  // E of a block without nonzero terms

// c of m elements (m a multiple of the binary64 lanes) for the pattern paths: its exact
// binary64 value (NaN for NaN/Inf and patterns out of range) and e_ref (kNoTerm for zeros).
HWY_INLINE void DecodeCLanes(const PatternLanes& lc, const PatternCodec& cc, std::size_t m, const std::uint64_t* c_bits,
                             double* c_value, std::int64_t* c_eref) {
  const hn::ScalableTag<double> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const hn::RebindToSigned<decltype(d)> di;
  using VD = hn::Vec<decltype(d)>;
  using VU = hn::Vec<decltype(du)>;
  const VD c_lsb_scale = PowerOfTwo(d, hn::Set(d, static_cast<double>(cc.emin - (cc.precision - 1))));
  for (std::size_t i = 0; i < m; i += hn::Lanes(d)) {
    VU sig, sign;
    hn::Vec<decltype(di)> eref;
    hn::Mask<decltype(du)> bad;
    const VU x = hn::LoadU(du, c_bits + i);
    lc.Decode(x, sig, eref, sign, bad);
    const VU field = hn::And(hn::ShiftRightSame(x, cc.precision - 1), lc.field_top);
    const auto normal = hn::Ne(field, hn::Zero(du));
    // Normal: the binary64 fields directly; subnormal: sig * 2^(emin - (p - 1)), exact.
    const VU normal_bits = hn::Or(hn::ShiftLeftSame(hn::BitCast(du, hn::Add(eref, hn::Set(di, 1023))), 52),
                                  hn::ShiftLeftSame(hn::And(x, lc.frac_mask), 52 - (cc.precision - 1)));
    const VD sub_value = hn::Mul(hn::ConvertTo(d, hn::BitCast(di, sig)), c_lsb_scale);
    VD value = hn::IfThenElse(hn::RebindMask(d, normal), hn::BitCast(d, normal_bits), sub_value);
    value = hn::IfThenElse(hn::RebindMask(d, hn::Ne(sign, hn::Zero(du))), hn::Neg(value), value);
    value = hn::IfThenElse(hn::RebindMask(d, bad), hn::Set(d, std::numeric_limits<double>::quiet_NaN()), value);
    const auto zero = hn::And(hn::Eq(sig, hn::Zero(du)), hn::Not(bad));
    hn::Store(value, d, c_value + i);
    hn::Store(hn::IfThenElse(hn::RebindMask(di, zero), hn::Set(di, kNoTerm), eref), di, c_eref + i);
  }
}

// The end of a block FMA across m elements (a multiple of the binary64 lanes), as BlockFma:
// c aligned at E, added to the integer sum of the aligned products, the result rounded into
// the output format. sums and exps (E) are exact integers in binary64; fixup[i] |= the lanes
// the exact path must take (E out of range, zero sums, wraps, results outside the normal range).
HWY_INLINE void RoundTailLanes(const LaneParams& p, const OutRounding& rounding, std::size_t m, const double* sums,
                               const double* exps, const double* c_value, std::uint64_t* d_out, std::uint8_t* fixup) {
  const hn::ScalableTag<double> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  using VD = hn::Vec<decltype(d)>;
  using VU = hn::Vec<decltype(du)>;
  const std::size_t N = hn::Lanes(d);
  const BlockEnd end(p);
  for (std::size_t i = 0; i < m; i += N) {
    VD shift, scale;
    auto bad = end.Scale(hn::Load(d, exps + i), shift, scale);
    const VD cv = hn::Load(d, c_value + i);
    const VD s = hn::Add(hn::Load(d, sums + i), end.Term(hn::IfThenElseZero(hn::IsFinite(cv), cv), scale));
    VU out;
    VD value, eref;
    bad = end.Round(rounding, s, shift, bad, out, value, eref);
    hn::StoreU(out, du, d_out + i);
    HWY_ALIGN std::uint8_t flags[HWY_MAX_BYTES / sizeof(double)];
    StoreFlags(d, bad, flags);
    for (std::size_t l = 0; l < N; ++l) fixup[i + l] |= flags[l];
  }
}

}  // namespace tcsim::lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // include guard
