// The SIMD core of the block kernel (see block_lanes.hpp), compiled once per SIMD target by
// Google Highway and chosen at run time (AVX-512, AVX2, SSE4, scalar, ...).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "block_lanes.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>

#include "block_lanes.hpp"

HWY_BEFORE_NAMESPACE();
namespace tcsim::lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

std::size_t LaneCount() { return hn::Lanes(hn::ScalableTag<double>()); }

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

void StoreFlags(hn::ScalableTag<double> d, hn::Mask<hn::ScalableTag<double>> bad, std::uint8_t* fixup) {
  const hn::RebindToUnsigned<decltype(d)> du;
  HWY_ALIGN std::uint64_t flags[HWY_MAX_BYTES / sizeof(double)];
  hn::Store(hn::BitCast(du, hn::VecFromMask(d, bad)), du, flags);
  for (std::size_t l = 0; l < hn::Lanes(d); ++l) fixup[l] = flags[l] != 0;
}

void BlockFma(const LaneParams& p, std::size_t n, std::size_t len, const double* a_value, const double* a_eref,
              bool a_broadcast, const double* b_value, const double* b_eref, std::size_t ld, const double* c_value,
              const double* c_eref, std::uint64_t* d_out, double* d_value, double* d_eref, std::uint8_t* fixup) {
  const hn::ScalableTag<double> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  using VD = hn::Vec<decltype(d)>;
  using VU = hn::Vec<decltype(du)>;
  const std::size_t N = hn::Lanes(d);
  const bool directed = p.alignment == 1 || p.alignment == 2;
  const VD F = hn::Set(d, p.fraction_bits), min_e = hn::Set(d, p.min_exponent);
  const VD wrap = hn::Set(d, p.wrap_limit), no_term = hn::Set(d, -1.0e8);
  const VD lo_scale = hn::Set(d, -1000.0), hi_scale = hn::Set(d, 1000.0);
  const OutRounding rounding(p, p.final_rounding);

  for (std::size_t i = 0; i < n; i += N) {
    // E over the nonzero terms (zeros carry kZeroExponent), then the clamp.
    VD E = hn::LoadU(d, c_eref + i);
    for (std::size_t t = 0; t < len; ++t) {
      const VD ea = a_broadcast ? hn::Set(d, a_eref[t]) : hn::LoadU(d, a_eref + t * ld + i);
      E = hn::Max(E, hn::Add(ea, hn::LoadU(d, b_eref + t * ld + i)));
    }
    auto bad = hn::Lt(E, no_term);  // no nonzero term: a zero and its sign rules
    E = hn::Max(E, min_e);
    const VD shift = hn::Sub(F, E);
    bad = hn::Or(bad, hn::Or(hn::Lt(shift, lo_scale), hn::Gt(shift, hi_scale)));
    const VD scale = PowerOfTwo(d, hn::Min(hn::Max(shift, lo_scale), hi_scale));
    VD s = Align(d, Scaled(d, hn::LoadU(d, c_value + i), scale, directed), p.alignment);
    for (std::size_t t = 0; t < len; ++t) {
      const VD va = a_broadcast ? hn::Set(d, a_value[t]) : hn::LoadU(d, a_value + t * ld + i);
      s = hn::Add(s, Align(d, Scaled(d, hn::Mul(va, hn::LoadU(d, b_value + t * ld + i)), scale, directed), p.alignment));
    }
    // NaN/Inf operands make s non-finite; zero sums, wraps go to the exact path.
    bad = hn::Or(bad, hn::Not(hn::IsFinite(s)));
    bad = hn::Or(bad, hn::Eq(s, hn::Zero(d)));
    bad = hn::Or(bad, hn::Ge(hn::Abs(s), wrap));
    // The value s * 2^(E - F), exact in binary64, rounded into the output format.
    const VD v = hn::Mul(s, PowerOfTwo(d, hn::Min(hn::Max(hn::Neg(shift), lo_scale), hi_scale)));
    VU out;
    VD value, eref;
    bad = hn::Or(bad, rounding.Round(v, out, value, eref));
    hn::StoreU(out, du, d_out + i);
    if (d_value) hn::StoreU(value, d, d_value + i);
    if (d_eref) hn::StoreU(eref, d, d_eref + i);
    StoreFlags(d, bad, fixup + i);
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

std::size_t lane_count() { return HWY_DYNAMIC_DISPATCH(LaneCount)(); }

void block_fma(const LaneParams& p, std::size_t n, std::size_t len, const double* a_value, const double* a_eref,
               bool a_broadcast, const double* b_value, const double* b_eref, std::size_t ld,
               const double* c_value, const double* c_eref, std::uint64_t* d, double* d_value, double* d_eref,
               std::uint8_t* fixup) {
  HWY_DYNAMIC_DISPATCH(BlockFma)(p, n, len, a_value, a_eref, a_broadcast, b_value, b_eref, ld, c_value, c_eref, d,
                                 d_value, d_eref, fixup);
}

void add_round(const LaneParams& p, int rounding, std::size_t n, const double* x, const double* y, std::uint64_t* d,
               double* d_value, double* d_eref, std::uint8_t* fixup) {
  HWY_DYNAMIC_DISPATCH(AddRound)(p, rounding, n, x, y, d, d_value, d_eref, fixup);
}

}  // namespace tcsim::lanes
#endif
