// The product sums of dot_batch's after-add blocks in binary32/int32 lanes (after_dot_lanes.hpp;
// issue 25), compiled once per SIMD target by Google Highway and chosen at run time. One
// element per lane: its patterns decoded by integer operations (no table), the products exact
// in binary32, each group's largest e_ref(a) + e_ref(b) in int32 lanes, the products times
// 2^(F - e_g) truncated by the conversion to int32 and summed, the groups floored at e_dot by
// arithmetic shifts: the steps of after_add_tile (amd_lanes.cpp) with per-lane operands.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "after_dot_lanes.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>

#include "after_dot_lanes.hpp"

#ifndef TCSIM_SIM_AFTER_DOT_LANES_ONCE
#define TCSIM_SIM_AFTER_DOT_LANES_ONCE
namespace tcsim::after_dot {
constexpr std::int32_t kZeroE = -(1 << 20);  // e_ref of a zero: a product with it stays below kUsed
constexpr std::int32_t kUsed = kZeroE / 2;   // a group's e_g above this has a nonzero product
constexpr std::size_t kMaxLen = 64;
}  // namespace tcsim::after_dot
#endif

HWY_BEFORE_NAMESPACE();
namespace tcsim::after_dot::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using DU = hn::RebindToUnsigned<DF>;
using DI = hn::RebindToSigned<DF>;
using VF = hn::Vec<DF>;
using VU = hn::Vec<DU>;
using VI = hn::Vec<DI>;

// Patterns in uint32 lanes to binary32 values and e_ref (Fields); flagged lanes (Inf/NaN,
// bits beyond the width) get the value 0 and a nonzero `bad`.
struct Decoder {
  VU keep, emask, fmask, rebias, nan_pattern, magnitude, all_ones;
  VI top, bias, one, zero_e;
  VF sub_scale;
  int width, fb, to32;
  bool check_wide, nan_negative_zero, nan_all_ones, move_subnormals;
  Decoder(const Fields& f, int pattern_bits)
      : keep(hn::Set(DU(), f.keep)),
        emask(hn::Set(DU(), (1u << f.exp_bits) - 1)),
        fmask(hn::Set(DU(), (1u << f.frac_bits) - 1)),
        rebias(hn::Set(DU(), static_cast<std::uint32_t>(127 - f.bias))),
        nan_pattern(hn::Set(DU(), 1u << (f.width - 1))),
        magnitude(hn::Set(DU(), (1u << (f.width - 1)) - 1)),
        all_ones(hn::Set(DU(), (static_cast<std::uint32_t>(f.top) << f.frac_bits) | ((1u << f.frac_bits) - 1))),
        top(hn::Set(DI(), f.top)),
        bias(hn::Set(DI(), f.bias)),
        one(hn::Set(DI(), 1)),
        zero_e(hn::Set(DI(), kZeroE)),
        sub_scale(hn::Set(DF(), std::ldexp(1.0f, f.emin - f.frac_bits))),
        width(f.width),
        fb(f.frac_bits),
        to32(23 - f.frac_bits),
        check_wide(f.width < pattern_bits),
        nan_negative_zero(f.nan_negative_zero),
        nan_all_ones(f.nan_all_ones),
        move_subnormals(f.move_subnormals) {}

  HWY_INLINE VF operator()(VU u, VI& e, VU& bad) const {
    const DU du;
    const DI di;
    const DF df;
    if (check_wide) bad = hn::Or(bad, hn::ShiftRightSame(u, width));
    u = hn::And(u, keep);  // input_fraction_bits
    const VU field = hn::And(hn::ShiftRightSame(u, fb), emask);
    const VU frac = hn::And(u, fmask);
    const VU sign = hn::ShiftLeft<31>(hn::ShiftRightSame(u, width - 1));
    auto special = hn::RebindMask(du, hn::Gt(hn::BitCast(di, field), top));
    if (nan_negative_zero) special = hn::Or(special, hn::Eq(u, nan_pattern));
    if (nan_all_ones) special = hn::Or(special, hn::Eq(hn::And(u, magnitude), all_ones));
    bad = hn::Or(bad, hn::VecFromMask(du, special));
    VU bits = hn::Or(hn::Or(sign, hn::ShiftLeft<23>(hn::Add(field, rebias))), hn::ShiftLeftSame(frac, to32));
    if (!move_subnormals) {  // frac 2^(emin - fb): a normal binary32 number (or 0)
      const VU sub = hn::Or(hn::BitCast(du, hn::Mul(hn::ConvertTo(df, hn::BitCast(di, frac)), sub_scale)), sign);
      bits = hn::IfThenElse(hn::Eq(field, hn::Zero(du)), sub, bits);
    }
    const auto zero = hn::RebindMask(di, hn::Eq(hn::Or(field, frac), hn::Zero(du)));
    e = hn::IfThenElse(zero, zero_e, hn::Sub(hn::Max(hn::BitCast(di, field), one), bias));
    return hn::BitCast(df, hn::IfThenZeroElse(special, bits));
  }
};

HWY_INLINE VU Load(const std::uint32_t* p) { return hn::LoadU(DU(), p); }
HWY_INLINE VU Load(const std::uint16_t* p) { return hn::PromoteTo(DU(), hn::LoadU(hn::Rebind<std::uint16_t, DU>(), p)); }

template <class T, std::size_t G>
void BlockSumsG(const Params& p, std::size_t w, std::size_t len, const T* a, const T* b, std::size_t ld, double* val,
                double* inv) {
  const DF df;
  const DU du;
  const DI di;
  constexpr std::size_t kMaxF = HWY_MAX_BYTES / 4;
  const std::size_t NF = hn::Lanes(df);
  const Decoder da(p.a, 8 * sizeof(T)), db(p.b, 8 * sizeof(T));
  const VI F = hn::Set(di, p.fraction_bits), lo = hn::Set(di, -126), hi = hn::Set(di, 127), b127 = hn::Set(di, 127);
  const VI max_e = hn::Set(di, 126), min_e = hn::Set(di, p.fraction_bits - 120), used = hn::Set(di, kUsed);
  const VI max_shift = hn::Set(di, 31);
  HWY_ALIGN float prods[kMaxLen * kMaxF];
  HWY_ALIGN std::int32_t sums[kMaxF], edots[kMaxF], flags[kMaxF];
  // The binary64 side: e_dot as 2^-e_dot and s as s 2^(e_dot - F).
  const hn::ScalableTag<double> d;
  const hn::RebindToSigned<decltype(d)> d64;
  const hn::Rebind<std::int32_t, decltype(d)> dh;
  const std::size_t N = hn::Lanes(d);
  auto pow2 = [&](hn::Vec<decltype(d64)> e) {  // e within binary64's normal exponents
    return hn::BitCast(d, hn::ShiftLeft<52>(hn::Add(e, hn::Set(d64, 1023))));
  };
  if (NF > amd_lanes::kPad) {  // vectors wider than the planes' padding (none on x86): every lane flagged
    std::fill_n(val, w, std::nan("")), std::fill_n(inv, w, 1.0);
    return;
  }
  for (std::size_t j = 0; j < w; j += NF) {
    VI Eg[G];
    for (std::size_t g = 0; g < G; ++g) Eg[g] = hn::Set(di, 4 * kZeroE);
    VU bad = hn::Zero(du);
    for (std::size_t t = 0; t < len; ++t) {
      VI ea, eb;
      const VF va = da(Load(a + t * ld + j), ea, bad);
      const VF vb = db(Load(b + t * ld + j), eb, bad);
      hn::Store(hn::Mul(va, vb), df, prods + t * NF);  // exact: at most 12 x 12 significand bits
      Eg[t % G] = hn::Max(Eg[t % G], hn::Add(ea, eb));
    }
    VF scale[G];
    VI S[G];
    for (std::size_t g = 0; g < G; ++g) {
      const VI e = Eg[g];
      const auto out_of_range = hn::Or(hn::Gt(e, max_e), hn::And(hn::Gt(e, used), hn::Lt(e, min_e)));
      bad = hn::Or(bad, hn::BitCast(du, hn::VecFromMask(di, out_of_range)));
      scale[g] = hn::BitCast(df, hn::ShiftLeft<23>(hn::Add(hn::Min(hn::Max(hn::Sub(F, e), lo), hi), b127)));
      S[g] = hn::Zero(di);
    }
    for (std::size_t t = 0; t < len; ++t)
      S[t % G] = hn::Add(S[t % G], hn::ConvertTo(di, hn::Mul(hn::Load(df, prods + t * NF), scale[t % G])));
    VI e_dot = Eg[0], s = S[0];
    if constexpr (G > 1) {
      for (std::size_t g = 1; g < G; ++g) e_dot = hn::Max(e_dot, Eg[g]);
      s = hn::Zero(di);  // floor(S_g / 2^(e_dot - e_g)); unused groups sum to 0
      for (std::size_t g = 0; g < G; ++g) s = hn::Add(s, S[g] >> hn::Min(hn::Sub(e_dot, Eg[g]), max_shift));
    }
    hn::Store(s, di, sums);
    hn::Store(hn::Min(hn::Max(e_dot, hn::Set(di, -600)), hn::Set(di, 600)), di, edots);
    hn::Store(hn::BitCast(di, bad), di, flags);
    for (std::size_t h = 0; h < NF; h += N) {
      const auto sd = hn::PromoteTo(d, hn::LoadU(dh, sums + h));
      const auto ed = hn::PromoteTo(d64, hn::LoadU(dh, edots + h));
      const auto any = hn::RebindMask(d, hn::Gt(ed, hn::Set(d64, kUsed)));
      const auto flagged = hn::RebindMask(d, hn::Ne(hn::PromoteTo(d64, hn::LoadU(dh, flags + h)), hn::Zero(d64)));
      auto v = hn::IfThenElseZero(any, hn::Mul(sd, pow2(hn::Sub(ed, hn::Set(d64, p.fraction_bits)))));
      v = hn::IfThenElse(flagged, hn::Set(d, std::nan("")), v);
      hn::StoreU(v, d, val + j + h);
      hn::StoreU(hn::IfThenElse(any, pow2(hn::Neg(ed)), hn::Set(d, HUGE_VAL)), d, inv + j + h);
    }
  }
}

void BlockSums16(const Params& p, std::size_t w, std::size_t len, const std::uint16_t* a, const std::uint16_t* b,
                 std::size_t ld, double* val, double* inv) {
  if (p.groups == 1) return BlockSumsG<std::uint16_t, 1>(p, w, len, a, b, ld, val, inv);
  return BlockSumsG<std::uint16_t, 2>(p, w, len, a, b, ld, val, inv);
}

void BlockSums32(const Params& p, std::size_t w, std::size_t len, const std::uint32_t* a, const std::uint32_t* b,
                 std::size_t ld, double* val, double* inv) {
  if (p.groups == 1) return BlockSumsG<std::uint32_t, 1>(p, w, len, a, b, ld, val, inv);
  return BlockSumsG<std::uint32_t, 2>(p, w, len, a, b, ld, val, inv);
}

}  // namespace tcsim::after_dot::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tcsim::after_dot {

HWY_EXPORT(BlockSums16);
HWY_EXPORT(BlockSums32);

std::optional<Fields> fields_of(const Format& f, std::optional<int> input_fraction_bits) {
  const int kept = input_fraction_bits ? std::min(f.fraction_bits, *input_fraction_bits) : f.fraction_bits;
  if (!f.is_signed || !f.has_zero || !f.subnormals || f.width > 32 || f.width < 2 || f.exponent_bits < 1 ||
      kept + 1 > 12 || f.emax > 127 || f.emin < -126 || f.fraction_bits > 23)
    return std::nullopt;
  Fields x;
  x.width = f.width, x.frac_bits = f.fraction_bits, x.exp_bits = f.exponent_bits, x.bias = f.bias, x.emin = f.emin;
  x.keep = ~((1u << (f.fraction_bits - kept)) - 1);
  x.top = f.max_finite_field();
  x.nan_negative_zero = f.nan == NanEncoding::NegativeZero;
  x.nan_all_ones = f.nan == NanEncoding::AllOnes;
  x.move_subnormals = f.bias == 127;
  if (!x.move_subnormals && f.emin - f.fraction_bits < -126) return std::nullopt;  // binary32 subnormals
  return x;
}

void block_sums(const Params& p, std::size_t w, std::size_t len, const std::uint16_t* a, const std::uint16_t* b,
                std::size_t ld, double* val, double* inv) {
  HWY_DYNAMIC_DISPATCH(BlockSums16)(p, w, len, a, b, ld, val, inv);
}

void block_sums(const Params& p, std::size_t w, std::size_t len, const std::uint32_t* a, const std::uint32_t* b,
                std::size_t ld, double* val, double* inv) {
  HWY_DYNAMIC_DISPATCH(BlockSums32)(p, w, len, a, b, ld, val, inv);
}

}  // namespace tcsim::after_dot
#endif
