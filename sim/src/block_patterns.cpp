// The pattern path of the block kernel (block_lanes.hpp: block_fma_patterns): operands decoded
// from their bit patterns in integer lanes, one element's products at a time; compiled once
// per SIMD target by Google Highway and chosen at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "block_patterns.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "block_lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tcsim::lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;


constexpr std::int64_t kNoTerm = -(std::int64_t{1} << 40);  // E of a block without nonzero terms


// Up to N patterns from p (count of them; the rest +0), without reading past p + count.
HWY_INLINE hn::Vec<PatternLanes::DU> LoadPatterns(PatternLanes::DU du, const std::uint64_t* p, std::size_t count) {
  const std::size_t N = hn::Lanes(du);
  if (count >= N) return hn::LoadU(du, p);
  HWY_ALIGN std::uint64_t buf[HWY_MAX_BYTES / sizeof(std::uint64_t)] = {};
  for (std::size_t i = 0; i < count; ++i) buf[i] = p[i];
  return hn::Load(du, buf);
}

// One element: E over the nonzero products and c (clamped), and the integer sum of the
// aligned products in units of 2^(E - F). Returns false where the lane path cannot decide.
HWY_INLINE bool PatternElement(const LaneParams& p, const PatternLanes& la, const PatternLanes& lb, int shift_base_ab,
                               std::size_t len, const std::uint64_t* a, const std::uint64_t* b, std::int64_t e_c,
                               std::int64_t& sum_out, std::int64_t& e_out) {
  using DU = PatternLanes::DU;
  const DU du;
  const hn::RebindToSigned<DU> di;
  using VU = hn::Vec<DU>;
  using VI = hn::Vec<decltype(di)>;
  const std::size_t N = hn::Lanes(du);
  HWY_ALIGN std::uint64_t prods[kMaxPatternLen + HWY_MAX_BYTES / 8], negs[kMaxPatternLen + HWY_MAX_BYTES / 8];
  HWY_ALIGN std::int64_t exps[kMaxPatternLen + HWY_MAX_BYTES / 8];
  const VI no_term = hn::Set(di, kNoTerm);
  VI e_max = no_term;
  auto bad = hn::FirstN(du, 0);
  for (std::size_t t = 0; t < len; t += N) {
    VU sa, sb, ga, gb;
    VI ea, eb;
    hn::Mask<DU> ba, bb;
    la.Decode(LoadPatterns(du, a + t, len - t), sa, ea, ga, ba);
    lb.Decode(LoadPatterns(du, b + t, len - t), sb, eb, gb, bb);
    bad = hn::Or(bad, hn::Or(ba, bb));
    const VU prod = hn::Mul(sa, sb);
    const VI e = hn::IfThenElse(hn::RebindMask(di, hn::Eq(prod, hn::Zero(du))), no_term, hn::Add(ea, eb));
    e_max = hn::Max(e_max, e);
    hn::Store(prod, du, prods + t);
    hn::Store(hn::Xor(ga, gb), du, negs + t);
    hn::Store(e, di, exps + t);
  }
  if (!hn::AllFalse(du, bad)) return false;
  std::int64_t E = std::max<std::int64_t>(hn::GetLane(hn::MaxOfLanes(di, e_max)), e_c);
  if (E == kNoTerm) return false;  // zeros only: the sign rules of zero_result
  E = std::max<std::int64_t>(E, static_cast<std::int64_t>(p.min_exponent));
  // Product t's lsb is e_a + e_b - (p_a - 1) - (p_b - 1); the register's lsb is E - F.
  const VI shift_base = hn::Set(di, shift_base_ab - E);
  const VI zero_i = hn::Zero(di), max_shift = hn::Set(di, 63);
  VI sum = zero_i;
  for (std::size_t t = 0; t < len; t += N) {
    const VI shift = hn::Add(hn::Load(di, exps + t), shift_base);
    const VU left = hn::BitCast(du, hn::Max(shift, zero_i));
    const VI right = hn::Min(hn::Max(hn::Neg(shift), zero_i), max_shift);
    const VI mag = hn::BitCast(di, hn::Load(du, prods + t) << left);
    const auto neg = hn::RebindMask(di, hn::Ne(hn::Load(du, negs + t), hn::Zero(du)));
    VI term;
    switch (p.alignment) {
      case 1:  // rd: floor of the signed term (arithmetic shift)
        term = hn::IfThenElse(neg, hn::Neg(mag), mag) >> right;
        break;
      case 2:  // ru: -floor(-x)
        term = hn::Neg(hn::IfThenElse(neg, mag, hn::Neg(mag)) >> right);
        break;
      default: {  // rz: truncate the magnitude
        const VI m = hn::BitCast(di, hn::BitCast(du, mag) >> hn::BitCast(du, right));
        term = hn::IfThenElse(neg, hn::Neg(m), m);
      }
    }
    sum = hn::Add(sum, term);
  }
  sum_out = hn::GetLane(hn::SumOfLanes(di, sum));
  e_out = E;
  return true;
}

void BlockFmaPatterns(const LaneParams& p, const PatternCodec& ca, const PatternCodec& cb, const PatternCodec& cc,
                      bool keep_subnormals, std::size_t n, std::size_t len, const std::uint64_t* a_bits,
                      std::size_t lda, const std::uint64_t* b_bits, std::size_t ldb, const std::uint64_t* c_bits,
                      std::uint64_t* d_out, std::uint8_t* fixup) {
  const hn::ScalableTag<double> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const hn::RebindToSigned<decltype(d)> di;
  using VD = hn::Vec<decltype(d)>;
  using VU = hn::Vec<decltype(du)>;
  const std::size_t N = hn::Lanes(d);
  const PatternLanes la(ca, keep_subnormals), lb(cb, keep_subnormals), lc(cc, keep_subnormals);
  const int shift_base_ab = static_cast<int>(p.fraction_bits) - (ca.precision - 1) - (cb.precision - 1);
  const bool directed = p.alignment == 1 || p.alignment == 2;
  const VD F = hn::Set(d, p.fraction_bits), wrap = hn::Set(d, p.wrap_limit);
  const VD lo_scale = hn::Set(d, -1000.0), hi_scale = hn::Set(d, 1000.0);
  const VD c_lsb_scale = PowerOfTwo(d, hn::Set(d, static_cast<double>(cc.emin - (cc.precision - 1))));
  const OutRounding rounding(p, p.final_rounding);
  constexpr std::size_t kChunk = 64;
  HWY_ALIGN double c_value[kChunk], sums[kChunk], exps[kChunk];
  HWY_ALIGN std::int64_t c_eref[kChunk];
  for (std::size_t i0 = 0; i0 < n; i0 += kChunk) {
    const std::size_t m = std::min(kChunk, n - i0);  // a multiple of N (the caller's contract)
    // c across elements: exact binary64 value and e_ref (kNoTerm for zeros).
    for (std::size_t i = 0; i < m; i += N) {
      VU sig, sign;
      hn::Vec<decltype(di)> eref;
      hn::Mask<decltype(du)> bad;
      const VU x = hn::LoadU(du, c_bits + i0 + i);
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
    // The products of each element.
    for (std::size_t i = 0; i < m; ++i) {
      std::int64_t sum = 0, E = 0;
      const bool ok = std::isfinite(c_value[i]) &&
                      PatternElement(p, la, lb, shift_base_ab, len, a_bits + (i0 + i) * lda, b_bits + (i0 + i) * ldb,
                                     c_eref[i], sum, E);
      fixup[i0 + i] = !ok;
      sums[i] = static_cast<double>(sum);
      exps[i] = ok ? static_cast<double>(E) : 0.0;
    }
    // c aligned, the sum, and the rounding across elements (as BlockFma).
    for (std::size_t i = 0; i < m; i += N) {
      const VD E = hn::Load(d, exps + i);
      const VD shift = hn::Sub(F, E);
      auto bad = hn::Or(hn::Lt(shift, lo_scale), hn::Gt(shift, hi_scale));
      const VD scale = PowerOfTwo(d, hn::Min(hn::Max(shift, lo_scale), hi_scale));
      const VD cv = hn::Load(d, c_value + i);
      const VD c_term = Align(d, Scaled(d, hn::IfThenElseZero(hn::IsFinite(cv), cv), scale, directed), p.alignment);
      const VD s = hn::Add(hn::Load(d, sums + i), c_term);
      bad = hn::Or(bad, hn::Eq(s, hn::Zero(d)));
      bad = hn::Or(bad, hn::Ge(hn::Abs(s), wrap));
      const VD v = hn::Mul(s, PowerOfTwo(d, hn::Min(hn::Max(hn::Neg(shift), lo_scale), hi_scale)));
      VU out;
      VD value, eref;
      bad = hn::Or(bad, rounding.Round(v, out, value, eref));
      hn::StoreU(out, du, d_out + i0 + i);
      HWY_ALIGN std::uint8_t flags[HWY_MAX_BYTES / sizeof(double)];
      StoreFlags(d, bad, flags);
      for (std::size_t l = 0; l < N; ++l) fixup[i0 + i + l] |= flags[l];
    }
  }
}

}  // namespace tcsim::lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tcsim::lanes {

HWY_EXPORT(BlockFmaPatterns);

bool patterns_supported(const LaneParams& p, const PatternCodec& a, const PatternCodec& b, const PatternCodec& c,
                        bool keep_subnormals, std::size_t max_len) {
  (void)keep_subnormals;
  if (p.alignment == 3 || a.precision > 12 || b.precision > 12 || max_len > kMaxPatternLen) return false;
  int len_bits = 0;
  while ((std::size_t{1} << len_bits) < max_len + 1) ++len_bits;
  // Integer sum below 2^62; with c's term the binary64 sum stays exact (below 2^53).
  if (p.fraction_bits + 3 + len_bits > 53) return false;
  // c decoded into binary64 exactly: subnormals above 2^-1022, the exponent field in range.
  return c.precision <= 53 && c.emin - (c.precision - 1) >= -1022 && c.bias < 1023;
}

void block_fma_patterns(const LaneParams& p, const PatternCodec& a, const PatternCodec& b, const PatternCodec& c,
                        bool keep_subnormals, std::size_t n, std::size_t len, const std::uint64_t* a_bits,
                        std::size_t lda, const std::uint64_t* b_bits, std::size_t ldb, const std::uint64_t* c_bits,
                        std::uint64_t* d, std::uint8_t* fixup) {
  HWY_DYNAMIC_DISPATCH(BlockFmaPatterns)(p, a, b, c, keep_subnormals, n, len, a_bits, lda, b_bits, ldb, c_bits, d,
                                         fixup);
}

}  // namespace tcsim::lanes
#endif
