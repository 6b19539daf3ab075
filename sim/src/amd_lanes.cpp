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

// after_sum from the product sum s (units of 2^(e_dot - F); e_dot below -500 without a nonzero
// product) and c: the floors, c, the renormalization and the value, exact in binary64 (rounded
// once by the caller's DemoteTo). bad collects the lanes the scalar block must redo.
// 2^(M - sum_bits) and 2^(M - c_bits), M = max(sum_bits, c_bits): computed once per call.
struct AfterUnits {
  double s_unit, c_unit;
  explicit AfterUnits(const AfterParams& p)
      : s_unit(std::ldexp(1.0, std::max(p.sum_bits, p.c_bits) - p.sum_bits)),
        c_unit(std::ldexp(1.0, std::max(p.sum_bits, p.c_bits) - p.c_bits)) {}
};

HWY_INLINE VD AfterSum(const AfterParams& p, const AfterUnits& u, VD s, VI e_dot, VD cv, hn::Mask<D>& bad) {
  const D d;
  const DI di;
  const int M = std::max(p.sum_bits, p.c_bits);
  const VD s_unit = hn::Set(d, u.s_unit), c_unit = hn::Set(d, u.c_unit);
  const VD zero = hn::Zero(d);
  const VI emin_c = hn::Set(di, -126), sfb_F = hn::Set(di, p.sum_bits - p.fraction_bits), cfb = hn::Set(di, p.c_bits);
  const VI Mi = hn::Set(di, M), R = hn::Set(di, p.renormalize_bits), zero_i = hn::Zero(di);
  const VI big_dot = hn::Set(di, 126), drop = hn::Set(di, p.drop_c_below);
  const VI e_c = hn::Max(Exponent(cv), emin_c);
  const VI E = hn::Max(e_dot, e_c);
  // The sum floored at sum_fraction_bits below E, c at c_fraction_bits (after_sum).
  const VD s_f = hn::Floor(hn::Mul(s, Pow2(hn::Sub(hn::Add(e_dot, sfb_F), E))));
  VD c_f = hn::Floor(hn::Mul(cv, Pow2(hn::Sub(cfb, E))));
  if (p.drop_c_below >= 0) c_f = hn::IfThenZeroElse(hn::RebindMask(d, hn::Lt(e_c, hn::Sub(E, drop))), c_f);
  VD total = hn::Add(hn::Mul(s_f, s_unit), hn::Mul(c_f, c_unit));  // units of 2^lsb, lsb = E - M
  VI lsb = hn::Sub(E, Mi);
  bad = hn::Or(bad, hn::Not(hn::IsFinite(total)));
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
  return v;
}

bool AfterAddBlock(const AfterParams& p, const Block& b) {
  if (TooWide(b)) return true;
  const D d;
  const DF df;
  const std::size_t N = hn::Lanes(d);
  const std::size_t G = static_cast<std::size_t>(p.groups);
  const VD inv_cap = hn::Set(d, 0x1p600), two_F = hn::Set(d, std::ldexp(1.0, p.fraction_bits));
  const VD zero = hn::Zero(d);
  const AfterUnits units(p);
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
      auto bad = hn::Not(hn::IsFinite(cv));
      const VD v = AfterSum(p, units, s, e_dot, cv, bad);
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


// ---- The GEMM register tiles (amd_lanes.hpp: TileBlock) ----

using DF32 = hn::ScalableTag<float>;
using DI32 = hn::RebindToSigned<DF32>;
using DH32 = hn::Rebind<std::int32_t, D>;  // int32 lanes as many as binary64 lanes
using DHF = hn::Rebind<float, D>;

// Truncating binary32 -> int32 conversion without Highway's overflow fix-up (as block_lanes-inl.h's
// TruncToInt32: three operations per vector fewer). Only lanes below 2^31 count; the others are
// flagged. NaN lanes become 0 first where the conversion is C++ (undefined for NaN).
template <class DI, class VF>
HWY_INLINE hn::Vec<DI> TruncInt32(DI di, VF v) {
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
  return hn::ConvertTo(di, hn::IfThenZeroElse(hn::IsNaN(v), v));
}

// Marks the lanes of mask `bad` (n lanes from fix index `at`) in b.fix; the first flag of a
// call clears b.fix, so that every lane is written once the call returns true.
template <class DM, class M>
HWY_INLINE void MarkFix(DM dm, M bad, const TileBlock& b, std::size_t at, bool& any) {
  if (HWY_LIKELY(hn::AllFalse(dm, bad))) return;
  if (!any) std::fill_n(b.fix, b.rows * b.ldc, std::uint8_t{0});
  any = true;
  HWY_ALIGN std::uint8_t bits[HWY_MAX_BYTES / 8 + 8] = {};
  hn::StoreMaskBits(dm, bad, bits);
  for (std::size_t l = 0; l < hn::Lanes(dm); ++l)
    if ((bits[l / 8] >> (l % 8)) & 1) b.fix[at + l] = 1;
}

// MR rows x NV vectors of binary32 lanes: pass 1 the largest e_ref(a) + e_ref(b) of each group
// in int32 lanes; pass 2 each product a b (exact in binary32) times 2^(F - e_g) (exact),
// truncated by the conversion to int32 (trunc_units) and summed (below 2^30); the groups
// floored to units of 2^(e_dot - F) by arithmetic shifts; then AfterSum in binary64 lanes.
// Groups with e_g > 126 (a product may reach 2^128; NaN/Inf sentinels) or e_g < F - 120 (a
// counted product may leave binary32's normal range) are flagged.
template <std::size_t MR, std::size_t NV, std::size_t G>
void AfterMicro(const AfterParams& p, const AfterUnits& units, const TileBlock& b, std::size_t r0, std::size_t j0,
                bool& any) {
  const DF32 df;
  const DI32 di;
  using VF = hn::Vec<DF32>;
  using VI32 = hn::Vec<DI32>;
  const std::size_t NF = hn::Lanes(df);
  const float* a = b.a_f + r0 * b.lda;
  const std::int32_t* ae = b.a_hi + r0 * b.lda;
  VI32 Eg[G][MR][NV];
  for (std::size_t g = 0; g < G; ++g)
    for (std::size_t r = 0; r < MR; ++r)
      for (std::size_t v = 0; v < NV; ++v) Eg[g][r][v] = hn::Set(di, 4 * kTileZeroHi);
  for (std::size_t t = 0; t < b.len; ++t) {
    const std::size_t g = t % G;
    VI32 eb[NV];
    for (std::size_t v = 0; v < NV; ++v) eb[v] = hn::LoadU(di, b.b_hi + t * b.ldb + j0 + v * NF);
    for (std::size_t r = 0; r < MR; ++r) {
      const VI32 ea = hn::Set(di, ae[r * b.lda + t]);
      for (std::size_t v = 0; v < NV; ++v) Eg[g][r][v] = hn::Max(Eg[g][r][v], hn::Add(ea, eb[v]));
    }
  }
  const VI32 F = hn::Set(di, p.fraction_bits), bias = hn::Set(di, 127), lo = hn::Set(di, -126), hi = hn::Set(di, 127);
  const VI32 max_e = hn::Set(di, 126), min_e = hn::Set(di, p.fraction_bits - 120), used = hn::Set(di, kTileZeroHi / 2);
  VF scale[G][MR][NV];
  VI32 bad[MR][NV];
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t v = 0; v < NV; ++v) bad[r][v] = hn::Zero(di);
  for (std::size_t g = 0; g < G; ++g)
    for (std::size_t r = 0; r < MR; ++r)
      for (std::size_t v = 0; v < NV; ++v) {
        const VI32 e = Eg[g][r][v];
        const auto out_of_range = hn::Or(hn::Gt(e, max_e), hn::And(hn::Gt(e, used), hn::Lt(e, min_e)));
        bad[r][v] = hn::Or(bad[r][v], hn::VecFromMask(di, out_of_range));
        const VI32 sh = hn::Min(hn::Max(hn::Sub(F, e), lo), hi);
        scale[g][r][v] = hn::BitCast(df, hn::ShiftLeft<23>(hn::Add(sh, bias)));
      }
  VI32 S[G][MR][NV];
  for (std::size_t g = 0; g < G; ++g)
    for (std::size_t r = 0; r < MR; ++r)
      for (std::size_t v = 0; v < NV; ++v) S[g][r][v] = hn::Zero(di);
  for (std::size_t t = 0; t < b.len; ++t) {
    const std::size_t g = t % G;
    VF vb[NV];
    for (std::size_t v = 0; v < NV; ++v) vb[v] = hn::LoadU(df, b.b_f + t * b.ldb + j0 + v * NF);
    for (std::size_t r = 0; r < MR; ++r) {
      const VF va = hn::Set(df, a[r * b.lda + t]);
      for (std::size_t v = 0; v < NV; ++v)
        S[g][r][v] = hn::Add(S[g][r][v], TruncInt32(di, hn::Mul(hn::Mul(va, vb[v]), scale[g][r][v])));
    }
  }
  // Per output: the product sum in units of 2^(e_dot - F), e_dot, the flags; then binary64.
  constexpr std::size_t kMaxF = HWY_MAX_BYTES / 4;
  HWY_ALIGN std::int32_t sums[MR * NV * kMaxF], edots[MR * NV * kMaxF], flags[MR * NV * kMaxF];
  const VI32 max_shift = hn::Set(di, 31);
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t v = 0; v < NV; ++v) {
      VI32 e_dot = Eg[0][r][v], s = S[0][r][v];
      if constexpr (G > 1) {
        for (std::size_t g = 1; g < G; ++g) e_dot = hn::Max(e_dot, Eg[g][r][v]);
        s = hn::Zero(di);  // floor(S_g / 2^(e_dot - e_g)); unused groups sum to 0
        for (std::size_t g = 0; g < G; ++g)
          s = hn::Add(s, S[g][r][v] >> hn::Min(hn::Sub(e_dot, Eg[g][r][v]), max_shift));
      }
      const std::size_t at = (r * NV + v) * NF;
      hn::Store(s, di, sums + at);
      hn::Store(e_dot, di, edots + at);
      hn::Store(bad[r][v], di, flags + at);
    }
  const D d;
  const DI di64;
  const DH32 dh;
  const DHF dhf;
  const std::size_t N = hn::Lanes(d);
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t j = 0; j < NV * NF; j += N) {
      const std::size_t at = r * NV * NF + j, out = (r0 + r) * b.ldc + j0 + j;
      const VD s = hn::PromoteTo(d, hn::LoadU(dh, sums + at));
      const VI e_dot = hn::PromoteTo(di64, hn::LoadU(dh, edots + at));
      const VD cv = hn::PromoteTo(d, hn::LoadU(dhf, b.c + out));
      auto flag = hn::Or(hn::Not(hn::IsFinite(cv)),
                         hn::RebindMask(d, hn::Ne(hn::PromoteTo(di64, hn::LoadU(dh, flags + at)), hn::Zero(di64))));
      const VD value = AfterSum(p, units, s, e_dot, cv, flag);
      hn::StoreU(hn::DemoteTo(dhf, value), dhf, b.out + out);
      MarkFix(d, flag, b, out, any);
    }
}

template <std::size_t G>
bool AfterTileG(const AfterParams& p, const TileBlock& b) {
  const std::size_t NF = hn::Lanes(DF32());
  const AfterUnits units(p);
  bool any = false;
  for (std::size_t r0 = 0; r0 < b.rows; r0 += 4) {
    const std::size_t mr = std::min<std::size_t>(4, b.rows - r0);
    std::size_t j0 = 0;
    for (; j0 + 2 * NF <= b.w; j0 += 2 * NF) switch (mr) {
        case 4: AfterMicro<4, 2, G>(p, units, b, r0, j0, any); break;
        case 3: AfterMicro<3, 2, G>(p, units, b, r0, j0, any); break;
        case 2: AfterMicro<2, 2, G>(p, units, b, r0, j0, any); break;
        default: AfterMicro<1, 2, G>(p, units, b, r0, j0, any); break;
      }
    for (; j0 < b.w; j0 += NF) switch (mr) {
        case 4: AfterMicro<4, 1, G>(p, units, b, r0, j0, any); break;
        case 3: AfterMicro<3, 1, G>(p, units, b, r0, j0, any); break;
        case 2: AfterMicro<2, 1, G>(p, units, b, r0, j0, any); break;
        default: AfterMicro<1, 1, G>(p, units, b, r0, j0, any); break;
      }
  }
  return any;
}

bool AfterAddTile(const AfterParams& p, const TileBlock& b) {
  if (hn::Lanes(DF32()) > kPad) {
    std::fill_n(b.fix, b.rows * b.ldc, std::uint8_t{1});
    return true;
  }
  return p.groups == 1 ? AfterTileG<1>(p, b) : AfterTileG<2>(p, b);
}

}  // namespace tcsim::amd_lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tcsim::amd_lanes {

HWY_EXPORT(AfterAddBlock);
HWY_EXPORT(ExactBlockBlock);
HWY_EXPORT(AfterAddTile);

bool after_add_block(const AfterParams& p, const Block& b) { return HWY_DYNAMIC_DISPATCH(AfterAddBlock)(p, b); }
bool exact_block_block(bool positive_zero, const Block& b) {
  return HWY_DYNAMIC_DISPATCH(ExactBlockBlock)(positive_zero, b);
}
bool after_add_tile(const AfterParams& p, const TileBlock& b) { return HWY_DYNAMIC_DISPATCH(AfterAddTile)(p, b); }

}  // namespace tcsim::amd_lanes
#endif
