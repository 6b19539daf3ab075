// The SIMD lanes of the AMD kernels (see amd_lanes.hpp), compiled once per SIMD target by
// Google Highway and chosen at run time. Every lane is one output element; every operation of
// the element is the scalar kernel's, in exact binary64 arithmetic:
// - after-add (after_add.cpp): products of <= 24-bit significands are exact in binary64; a
//   product times 2^(F - e_g) (a power of two: exact) truncated toward zero is trunc_units; the
//   group sums (< 2^38 units) and the floors at sum_fraction_bits / c_fraction_bits below E
//   (< 2^50 units) are exact integers; the value total * 2^lsb is exact and one DemoteTo rounds
//   it (RNE, subnormals) into binary32. Exponents are powers of two 2^-e_ref (min = the largest
//   e_ref; +Inf for zero operands, which then raise no group) and int64 lanes.
// - exact-block (exact_block.cpp): the exact sum of the products and c as a double-double by
//   TwoSum chains (error-free); the chain of the errors must itself be exact (each of its
//   TwoSum errors zero), else the lane is flagged. hi + lo rounded to odd at 53 bits is exact
//   in binary64 and DemoteTo rounds it once to binary32, as the scalar kernel's round to odd.
// Flagged (scalar kernel): NaN/Inf anywhere, e_dot >= 127 (a product may reach 2^128), results
// that round to binary32 Inf (EMU128's DemoteTo saturates), zero results without the +0 rule.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "amd_lanes.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>

#include "amd_lanes.hpp"

#include <cmath>

HWY_BEFORE_NAMESPACE();
namespace tcsim::amd_lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D = hn::ScalableTag<double>;
using DF = hn::Rebind<float, D>;
using DU = hn::RebindToUnsigned<D>;
using DI = hn::RebindToSigned<D>;
using VD = hn::Vec<D>;
using VI = hn::Vec<DI>;

constexpr int kMaxGroups = 4;
constexpr double kRoundsToInf = 0x1.ffffffp127;  // |v| >= this rounds (RNE) to binary32 Inf

// The unbiased exponent of a finite nonzero binary64 (of +-0: -1023).
HWY_INLINE VI Exponent(VD x) {
  const DU du;
  const DI di;
  const auto field = hn::ShiftRight<52>(hn::And(hn::BitCast(du, x), hn::Set(du, 0x7ff0000000000000ull)));
  return hn::Sub(hn::BitCast(di, field), hn::Set(di, 1023));
}

// 2^e (e clamped into binary64's normal exponents: lanes beyond them are flagged by the callers).
HWY_INLINE VD Pow2(VI e) {
  const D d;
  const DU du;
  const DI di;
  const VI biased = hn::Add(hn::Min(hn::Max(e, hn::Set(di, -1022)), hn::Set(di, 1023)), hn::Set(di, 1023));
  return hn::BitCast(d, hn::ShiftLeft<52>(hn::BitCast(du, biased)));
}

// Vectors wider than the planes' padding (none on x86): every lane to the scalar block.
HWY_INLINE bool TooWide(const Block& b) {
  if (hn::Lanes(D()) <= kPad) return false;
  for (std::size_t r = 0; r < b.rows; ++r) std::fill_n(b.fix + r * b.ldc, b.w, std::uint8_t{1});
  return true;
}

HWY_INLINE void StoreFix(hn::Mask<D> bad, std::uint8_t* fix) {
  const D d;
  const DU du;
  HWY_ALIGN std::uint64_t flags[HWY_MAX_BYTES / sizeof(double)];
  hn::Store(hn::BitCast(du, hn::VecFromMask(d, bad)), du, flags);
  for (std::size_t l = 0; l < hn::Lanes(d); ++l) fix[l] = flags[l] != 0;
}

// A's operand t for the lanes at column j: broadcast from its row, or its own per lane.
HWY_INLINE VD LoadA(const Block& b, const double* plane, const double* row, std::size_t t, std::size_t j) {
  const D d;
  return b.a_per_lane ? hn::LoadU(d, plane + t * b.ldb + j) : hn::Set(d, row[t]);
}

bool AfterAddBlock(const AfterParams& p, const Block& b) {
  if (TooWide(b)) return true;
  const D d;
  const DF df;
  const DI di;
  const std::size_t N = hn::Lanes(d);
  const std::size_t G = static_cast<std::size_t>(p.groups);
  const int M = std::max(p.sum_bits, p.c_bits);
  const VD inv_cap = hn::Set(d, 0x1p600), two_F = hn::Set(d, std::ldexp(1.0, p.fraction_bits));
  const VD s_unit = hn::Set(d, std::ldexp(1.0, M - p.sum_bits)), c_unit = hn::Set(d, std::ldexp(1.0, M - p.c_bits));
  const VD zero = hn::Zero(d);
  const VI emin_c = hn::Set(di, -126), sfb_F = hn::Set(di, p.sum_bits - p.fraction_bits), cfb = hn::Set(di, p.c_bits);
  const VI Mi = hn::Set(di, M), R = hn::Set(di, p.renormalize_bits), zero_i = hn::Zero(di);
  const VI big_dot = hn::Set(di, 126), drop = hn::Set(di, p.drop_c_below);
  bool any = false;
  for (std::size_t r = 0; r < b.rows; ++r) {
    const double* av = b.a_val + r * b.lda;
    const double* ai = b.a_inv + r * b.lda;
    for (std::size_t j = 0; j < b.w; j += N) {
      // The largest e_ref of each group's nonzero products: the least 2^-e_ref.
      VD inv[kMaxGroups], sum[kMaxGroups];
      for (int g = 0; g < kMaxGroups; ++g) inv[g] = inv_cap, sum[g] = zero;
      for (std::size_t t = 0; t < b.len; ++t) {
        const VD pi = hn::Mul(LoadA(b, b.a_inv, ai, t, j), hn::LoadU(d, b.b_inv + t * b.ldb + j));
        inv[t % G] = hn::Min(inv[t % G], pi);
      }
      VD scale[kMaxGroups];
      for (std::size_t g = 0; g < G; ++g) scale[g] = hn::Mul(inv[g], two_F);
      // Each product truncated at F below its group's largest exponent (trunc_units), summed.
      for (std::size_t t = 0; t < b.len; ++t) {
        const VD prod = hn::Mul(LoadA(b, b.a_val, av, t, j), hn::LoadU(d, b.b_val + t * b.ldb + j));
        sum[t % G] = hn::Add(sum[t % G], hn::Trunc(hn::Mul(prod, scale[t % G])));
      }
      VD inv_dot = inv[0], s = sum[0];
      if (G > 1) {
        for (std::size_t g = 1; g < G; ++g) inv_dot = hn::Min(inv_dot, inv[g]);
        s = zero;  // the group sums floored to units of 2^(e_dot - F)
        for (std::size_t g = 0; g < G; ++g) s = hn::Add(s, hn::Floor(hn::Mul(sum[g], hn::Div(inv_dot, inv[g]))));
      }
      const VI e_dot = hn::Neg(Exponent(inv_dot));  // -600 without a nonzero product
      const VD cv = hn::PromoteTo(d, hn::LoadU(df, b.c + r * b.ldc + j));
      const VI e_c = hn::Max(Exponent(cv), emin_c);
      const VI E = hn::Max(e_dot, e_c);
      // The sum floored at sum_fraction_bits below E, c at c_fraction_bits (after_sum).
      const VD s_f = hn::Floor(hn::Mul(s, Pow2(hn::Sub(hn::Add(e_dot, sfb_F), E))));
      VD c_f = hn::Floor(hn::Mul(cv, Pow2(hn::Sub(cfb, E))));
      if (p.drop_c_below >= 0) c_f = hn::IfThenZeroElse(hn::RebindMask(d, hn::Lt(e_c, hn::Sub(E, drop))), c_f);
      VD total = hn::Add(hn::Mul(s_f, s_unit), hn::Mul(c_f, c_unit));  // units of 2^lsb, lsb = E - M
      VI lsb = hn::Sub(E, Mi);
      auto bad = hn::Or(hn::Not(hn::IsFinite(cv)), hn::Not(hn::IsFinite(total)));
      bad = hn::Or(bad, hn::RebindMask(d, hn::Gt(e_dot, big_dot)));  // e_dot >= 127
      if (!p.positive_zero) bad = hn::Or(bad, hn::Eq(total, zero));
      if (p.renormalize_bits > 0) {  // floored again at R bits below the leading bit (or emin)
        const VI lead = Exponent(hn::Abs(total));
        VI shift = hn::Sub(hn::Max(lead, hn::Sub(emin_c, lsb)), R);
        shift = hn::Max(shift, zero_i);
        total = hn::Floor(hn::Mul(total, Pow2(hn::Neg(shift))));
        lsb = hn::Add(lsb, shift);
        if (!p.positive_zero) bad = hn::Or(bad, hn::Eq(total, zero));
      }
      // Exact zeros give +0 (positive_zero); the value, exact, rounds once into binary32.
      const VD v = hn::IfThenZeroElse(hn::Eq(total, zero), hn::Mul(total, Pow2(lsb)));
      bad = hn::Or(bad, hn::Ge(hn::Abs(v), hn::Set(d, kRoundsToInf)));
      hn::StoreU(hn::DemoteTo(df, v), df, b.out + r * b.ldc + j);
      StoreFix(bad, b.fix + r * b.ldc + j);
      any = any || !hn::AllFalse(d, bad);
    }
  }
  return any;
}

// Error-free sum: s + e == a + b exactly (Knuth's TwoSum, any order of magnitudes).
HWY_INLINE void TwoSum(VD a, VD b, VD& s, VD& e) {
  s = hn::Add(a, b);
  const VD bp = hn::Sub(s, a);
  const VD ap = hn::Sub(s, bp);
  e = hn::Add(hn::Sub(a, ap), hn::Sub(b, bp));
}

bool ExactBlockBlock(bool positive_zero, const Block& b) {
  if (TooWide(b)) return true;
  const D d;
  const DF df;
  const DU du;
  const std::size_t N = hn::Lanes(d);
  const VD zero = hn::Zero(d);
  bool any = false;
  for (std::size_t r = 0; r < b.rows; ++r) {
    const double* av = b.a_val + r * b.lda;
    for (std::size_t j = 0; j < b.w; j += N) {
      const VD cv = hn::PromoteTo(d, hn::LoadU(df, b.c + r * b.ldc + j));
      // s + u + (the errors of u's chain) is the exact sum of c and the products.
      VD s = cv, u = zero;
      auto bad = hn::Not(hn::IsFinite(cv));
      for (std::size_t t = 0; t < b.len; ++t) {
        const VD prod = hn::Mul(LoadA(b, b.a_val, av, t, j), hn::LoadU(d, b.b_val + t * b.ldb + j));
        VD e, f;
        TwoSum(s, prod, s, e);
        TwoSum(u, e, u, f);
        bad = hn::Or(bad, hn::Ne(f, zero));  // NaN too
      }
      VD hi, lo;
      TwoSum(s, u, hi, lo);
      bad = hn::Or(bad, hn::Not(hn::IsFinite(hi)));
      const auto is_zero = hn::Eq(hi, zero);
      if (!positive_zero) bad = hn::Or(bad, is_zero);
      // Round to odd at 53 bits: truncate hi + lo toward zero, set the last bit if inexact.
      const auto opposite = hn::Lt(hn::BitCast(hn::RebindToSigned<D>(), hn::Xor(hi, lo)), hn::Zero(hn::RebindToSigned<D>()));
      auto mag = hn::BitCast(du, hn::Abs(hi));
      mag = hn::Sub(mag, hn::IfThenElseZero(hn::RebindMask(du, opposite), hn::Set(du, 1)));
      mag = hn::Or(mag, hn::Set(du, 1));
      VD v = hn::IfThenElse(hn::Ne(lo, zero), hn::CopySign(hn::BitCast(d, mag), hi), hi);
      v = hn::IfThenZeroElse(is_zero, v);  // an exact zero sum: +0
      bad = hn::Or(bad, hn::Ge(hn::Abs(v), hn::Set(d, kRoundsToInf)));
      hn::StoreU(hn::DemoteTo(df, v), df, b.out + r * b.ldc + j);
      StoreFix(bad, b.fix + r * b.ldc + j);
      any = any || !hn::AllFalse(d, bad);
    }
  }
  return any;
}

}  // namespace tcsim::amd_lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tcsim::amd_lanes {

HWY_EXPORT(AfterAddBlock);
HWY_EXPORT(ExactBlockBlock);

bool after_add_block(const AfterParams& p, const Block& b) { return HWY_DYNAMIC_DISPATCH(AfterAddBlock)(p, b); }
bool exact_block_block(bool positive_zero, const Block& b) {
  return HWY_DYNAMIC_DISPATCH(ExactBlockBlock)(positive_zero, b);
}

}  // namespace tcsim::amd_lanes
#endif
