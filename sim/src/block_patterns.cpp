// The pattern path of the block kernel (block_lanes.hpp: block_fma_patterns): operands decoded
// from their bit patterns in integer lanes, one element's products at a time; compiled once
// per SIMD target by Google Highway and chosen at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "block_patterns.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "block_lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tcsim::lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;


constexpr std::size_t kChunkElements = 64;                  // elements per pass of BlockFmaPatterns


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

// Formats whose patterns are the top bits of binary32 ones (bf16, tf32): the left shift that
// makes the binary32 pattern, else 0.
inline int DirectShift(const PatternCodec& f) {
  const bool upper = f.bias == 127 && f.emin == -126 && f.top_field == 255 && f.nan == 0 &&
                     f.width == f.precision + 8 && (f.precision == 8 || f.precision == 11);
  return upper ? 32 - f.width : 0;
}

// Products per int32 sum in FloatPatternChunk: the whole block where F + 2 + log2(len) <= 31,
// else tile_chunk_len(F) if that is a whole number of vectors (each lane then sums at most
// chunk / NF terms, the fold at most chunk); 0: no chunking fits.
inline std::size_t FloatChunkLen(const LaneParams& p, std::size_t len) {
  const std::size_t chunk = tile_chunk_len(p.fraction_bits), NF = hn::Lanes(hn::ScalableTag<float>());
  if (chunk != 0 && len <= chunk) return len;
  return chunk >= NF && chunk % NF == 0 ? chunk : 0;
}

#if HWY_TARGET != HWY_SCALAR
// The binary32 form of the pattern path, for rz alignment and operands whose products are
// exact binary32 numbers (FloatElementSupported): 32-bit lanes, twice as many per vector as
// the 64-bit ones. Decoded values are exact in binary32, a_t b_t is exact, the scaling by
// 2^(F - E) is exact (a power of two, the result normal or truncated to 0 anyway) and the
// conversion to int32 truncates toward zero: the rz alignment of the magnitude. Every term is
// below 2^(F+2) and the block sum below 2^31 (checked), so the int32 sum is exact.
struct FloatPatternLanes {
  using DF = hn::ScalableTag<float>;
  using DI = hn::RebindToSigned<DF>;
  using DU = hn::RebindToUnsigned<DF>;
  using VF = hn::Vec<DF>;
  using VI = hn::Vec<DI>;
  using VU = hn::Vec<DU>;
  DF df;
  DI di;
  DU du;
  VU field_top, frac_mask, implicit, zero, one, invalid_bits;
  VI bias, lsb_bias;
  int fraction_bits, sign_shift, nan;
  bool keep_subnormals, f16c;
  int direct;  // bf16 (16), tf32 (13): the pattern shifted left by this is its binary32 pattern; else 0

  FloatPatternLanes(const PatternCodec& f, bool keep_sub)
      : field_top(hn::Set(du, static_cast<std::uint32_t>(f.top_field))),
        frac_mask(hn::Set(du, (1u << (f.precision - 1)) - 1)), implicit(hn::Set(du, 1u << (f.precision - 1))),
        zero(hn::Zero(du)), one(hn::Set(du, 1)),
        invalid_bits(hn::Set(du, static_cast<std::uint32_t>(~f.width_mask))), bias(hn::Set(di, f.bias)),
        lsb_bias(hn::Set(di, 127 - (f.precision - 1))), fraction_bits(f.precision - 1), sign_shift(f.width - 1),
        nan(f.nan), keep_subnormals(keep_sub),
        f16c(keep_sub && f.precision == 11 && f.width == 16 && f.bias == 15 && f.nan == 0),
        direct(keep_sub ? DirectShift(f) : 0) {}


  // x: the low 32 bits of patterns (bits above 32 are the caller's). The value (exact; NaN/Inf
  // as they come) and e_ref: emin for subnormals, kTileZero for zeros, kTileSpecial for
  // NaN/Inf and patterns out of range, so that a product's e_a + e_b is far below every real
  // E when one factor is zero and far above when one is special (even times zero).
  void Decode(VU x, VF& value, VI& eref) const {
    const VU field = hn::And(hn::ShiftRightSame(x, fraction_bits), field_top);
    const VU frac = hn::And(x, frac_mask);
    const VU sig = hn::IfThenElse(hn::Eq(field, zero), keep_subnormals ? frac : zero, hn::Or(frac, implicit));
    const VI e = hn::Sub(hn::BitCast(di, hn::Max(field, one)), bias);
    if (direct) {  // bf16, tf32: the binary32 pattern itself (bits above the width are flagged)
      value = hn::BitCast(df, hn::ShiftLeftSame(x, direct));
    } else if (f16c) {  // IEEE binary16 with subnormals: the hardware conversion
      value = hn::PromoteTo(df, hn::BitCast(hn::Rebind<hwy::float16_t, DF>(),
                                            hn::DemoteTo(hn::Rebind<std::uint16_t, DF>(), hn::BitCast(di, x))));
    } else {
      // sig * 2^(e_ref - (p - 1)); the power of two is a normal binary32 (FloatElementSupported).
      const VF scale = hn::BitCast(df, hn::ShiftLeft<23>(hn::Add(e, lsb_bias)));
      const VU sign = hn::ShiftLeft<31>(hn::And(hn::ShiftRightSame(x, sign_shift), one));
      value = hn::BitCast(df, hn::Or(hn::BitCast(du, hn::Mul(hn::ConvertTo(df, hn::BitCast(di, sig)), scale)), sign));
    }
    auto bad = hn::Ne(hn::And(x, invalid_bits), zero);
    if (nan == 0) bad = hn::Or(bad, hn::Eq(field, field_top));
    if (nan == 1) bad = hn::Or(bad, hn::And(hn::Eq(field, field_top), hn::Eq(frac, frac_mask)));
    eref = hn::IfThenElse(hn::RebindMask(di, hn::Eq(sig, zero)), hn::Set(di, kTileZero), e);
    eref = hn::IfThenElse(hn::RebindMask(di, bad), hn::Set(di, kTileSpecial), eref);
  }
};

// Patterns t .. t + Lanes(du32) - 1 of p (count of them available; the rest +0) in 32-bit
// lanes; `high` collects the raw patterns (their bits above 32 must be 0).
HWY_INLINE hn::Vec<FloatPatternLanes::DU> LoadPatterns32(const std::uint64_t* p, std::size_t count,
                                                        hn::Vec<PatternLanes::DU>& high) {
  const PatternLanes::DU du64;
  const FloatPatternLanes::DU du32;
  const std::size_t N = hn::Lanes(du64);
  const auto lo = LoadPatterns(du64, p, count);
  const auto hi = count > N ? LoadPatterns(du64, p + N, count - N) : hn::Zero(du64);
  high = hn::Or(high, hn::Or(lo, hi));
  return hn::ConcatEven(du32, hn::BitCast(du32, hi), hn::BitCast(du32, lo));
}

// Reduces Lanes(d) vectors at once (v[0 .. Lanes(d)), overwritten) with `op`: lane l of the
// result is the reduction of all lanes of one input vector, which one given by FoldOrder.
// Each level halves the vectors and the lanes they carry per input: 256-bit halves, 128-bit
// blocks within halves, 64-bit pairs within blocks, then single lanes: about 3 operations
// per vector instead of a full reduction each.
template <class D, class Op>
HWY_INLINE hn::Vec<D> FoldLanes(D d, hn::Vec<D>* v, Op op) {
  using T = hn::TFromD<D>;
  std::size_t count = hn::Lanes(d);
  if constexpr (HWY_MAX_BYTES >= 32 && hn::MaxLanes(D()) * sizeof(T) >= 32) {
    for (std::size_t i = 0; 2 * i < count; ++i)
      v[i] = op(hn::ConcatLowerLower(d, v[2 * i + 1], v[2 * i]), hn::ConcatUpperUpper(d, v[2 * i + 1], v[2 * i]));
    count /= 2;
  }
  if constexpr (HWY_MAX_BYTES >= 64 && hn::MaxLanes(D()) * sizeof(T) >= 64) {
    for (std::size_t i = 0; 2 * i < count; ++i) {
      const auto x = v[2 * i], y = v[2 * i + 1];
      v[i] = op(hn::OddEvenBlocks(hn::SwapAdjacentBlocks(y), x), hn::OddEvenBlocks(y, hn::SwapAdjacentBlocks(x)));
    }
    count /= 2;
  }
  const hn::Repartition<std::uint64_t, D> d64;
  for (std::size_t i = 0; 2 * i < count; ++i) {
    const auto x = hn::BitCast(d64, v[2 * i]), y = hn::BitCast(d64, v[2 * i + 1]);
    v[i] = op(hn::BitCast(d, hn::InterleaveLower(d64, x, y)), hn::BitCast(d, hn::InterleaveUpper(d64, x, y)));
  }
  count /= 2;
  for (std::size_t i = 0; 2 * i < count; ++i) {
    const auto x = v[2 * i], y = v[2 * i + 1];
    v[i] = op(hn::OddEven(y, x), hn::OddEven(hn::Shuffle2301(y), hn::Shuffle2301(x)));
  }
  return v[0];
}

// slot[l]: the input vector whose reduction FoldLanes puts in lane l (found by folding
// vectors of their own index).
template <class D>
void FoldOrder(D d, std::size_t* slot) {
  const std::size_t n = hn::Lanes(d);
  hn::Vec<D> v[HWY_MAX_BYTES / 4];
  for (std::size_t i = 0; i < n; ++i) v[i] = hn::Set(d, static_cast<hn::TFromD<D>>(i));
  HWY_ALIGN hn::TFromD<D> lanes[HWY_MAX_BYTES / 4];
  hn::Store(FoldLanes(d, v, [](auto a, auto b) { return hn::Max(a, b); }), d, lanes);
  for (std::size_t l = 0; l < n; ++l) slot[l] = static_cast<std::size_t>(lanes[l]);
}

// m elements (FloatElementSupported; e_c readable up to a whole group), in groups of Lanes(df): the
// products of each element and the e_a + e_b of its lanes, E of the group by one FoldLanes,
// the scales 2^(F - E) across elements, the truncated scaled terms of each element and their
// int32 sums by another FoldLanes. Writes sums[i], exps[i] (E) and ok[i] (false: the exact
// path: a special operand, no nonzero term, 2^(F - E) not a normal binary32).
HWY_NOINLINE void FloatPatternChunk(const LaneParams& p, const FloatPatternLanes& la, const FloatPatternLanes& lb,
                                    std::size_t m, std::size_t len, const std::uint64_t* a, std::size_t lda,
                                    const std::uint64_t* b, std::size_t ldb, const std::int32_t* e_c, double* sums,
                                    double* exps, bool* ok) {
  using L = FloatPatternLanes;
  const L::DF df;
  const L::DI di;
  const PatternLanes::DU du64;
  const std::size_t NF = hn::Lanes(df), stride = (len + NF - 1) / NF * NF;
  const std::size_t chunk = FloatChunkLen(p, len);
  constexpr std::size_t kMaxNF = HWY_MAX_BYTES / 4;
  HWY_ALIGN float prods[kMaxNF * (kMaxPatternLen + kMaxNF)];
  HWY_ALIGN float scales[kMaxNF];
  HWY_ALIGN std::int32_t lane_out[kMaxNF];
  hn::Vec<L::DI> fold[kMaxNF];
  std::size_t slot[kMaxNF];
  FoldOrder(di, slot);
  // |raw E| beyond 2^25: no nonzero term (zeros' kTileZero) or a special operand (kTileSpecial).
  const L::VI special_limit = hn::Set(di, 1 << 25), zero_limit = hn::Set(di, -(1 << 25));
  const L::VI min_e = hn::Set(di, static_cast<std::int32_t>(std::max(p.min_exponent, -1.0e8)));
  const L::VI F = hn::Set(di, static_cast<std::int32_t>(p.fraction_bits));
  const L::VI lo = hn::Set(di, -126), hi = hn::Set(di, 127), bias = hn::Set(di, 127);
  // bf16/tf32 products may leave binary32's range: flagged where one could overflow (E above
  // kTileMaxE) or a term that counts could be subnormal (F - E above 120); products below the
  // normal range are then below 2^(E - F - 6) and truncate to 0 as their exact values do.
  const bool direct = la.direct || lb.direct;
  const L::VI max_e = hn::Set(di, direct ? kTileMaxE : (1 << 25)), max_shift = hn::Set(di, direct ? 120 : 127);
  for (std::size_t g = 0; g < m; g += NF) {
    const std::size_t count = std::min(NF, m - g);  // the last group may be short
    auto high = hn::Zero(du64);
    for (std::size_t l = count; l < NF; ++l) fold[slot[l]] = hn::Set(di, kTileZero);
    for (std::size_t l = 0; l < count; ++l) {
      const std::uint64_t *ai = a + (g + l) * lda, *bi = b + (g + l) * ldb;
      float* pr = prods + l * stride;
      L::VI e = hn::Set(di, kTileZero);
      for (std::size_t t = 0; t < len; t += NF) {
        L::VF va, vb;
        L::VI ea, eb;
        la.Decode(LoadPatterns32(ai + t, len - t, high), va, ea);
        lb.Decode(LoadPatterns32(bi + t, len - t, high), vb, eb);
        e = hn::Max(e, hn::Add(ea, eb));
        hn::Store(hn::Mul(va, vb), df, pr + t);
      }
      fold[slot[l]] = e;
    }
    // Bits above 32 in any pattern of the group (not patterns of the format): all exact.
    const bool high_bits = !hn::AllTrue(du64, hn::Eq(hn::ShiftRight<32>(high), hn::Zero(du64)));
    const L::VI raw = hn::Max(FoldLanes(di, fold, [](auto x, auto y) { return hn::Max(x, y); }),
                              hn::LoadU(di, e_c + g));
    const L::VI E = hn::Max(raw, min_e);
    const L::VI shift = hn::Sub(F, E);
    auto bad = hn::Or(hn::Or(hn::Gt(raw, special_limit), hn::Lt(raw, zero_limit)),
                      hn::Or(hn::Gt(shift, hi), hn::Lt(shift, lo)));
    bad = hn::Or(bad, hn::Or(hn::Gt(raw, max_e), hn::Gt(shift, max_shift)));
    hn::Store(hn::BitCast(df, hn::ShiftLeft<23>(hn::Add(hn::Min(hn::Max(shift, lo), hi), bias))), df, scales);
    hn::Store(hn::VecFromMask(di, bad), di, lane_out);
    for (std::size_t l = 0; l < count; ++l) ok[g + l] = lane_out[l] == 0 && !high_bits;
    hn::Store(E, di, lane_out);
    for (std::size_t l = 0; l < count; ++l) exps[g + l] = static_cast<double>(lane_out[l]);
    // The int32 sums by chunks of products (FloatChunkLen: each exact in int32, a multiple of
    // NF), added in binary64.
    for (std::size_t l = 0; l < count; ++l) sums[g + l] = 0;
    for (std::size_t c0 = 0; c0 < len; c0 += chunk) {
      const std::size_t c1 = std::min(len, c0 + chunk);
      for (std::size_t l = count; l < NF; ++l) fold[slot[l]] = hn::Zero(di);
      for (std::size_t l = 0; l < count; ++l) {
        const float* pr = prods + l * stride;
        const L::VF scale = hn::Set(df, scales[l]);
        L::VI sum = TruncToInt32(di, hn::Mul(hn::Load(df, pr + c0), scale));
        for (std::size_t t = c0 + NF; t < c1; t += NF)
          sum = hn::Add(sum, TruncToInt32(di, hn::Mul(hn::Load(df, pr + t), scale)));
        fold[slot[l]] = sum;
      }
      hn::Store(FoldLanes(di, fold, [](auto x, auto y) { return hn::Add(x, y); }), di, lane_out);
      for (std::size_t l = 0; l < count; ++l) sums[g + l] += static_cast<double>(lane_out[l]);
    }
  }
}
#endif

// The conditions of FloatPatternElement: rz alignment; values and powers of two 2^(e_ref -
// (p-1)) normal binary32 numbers; products exact in binary32 (lowest lsb >= 2^-149, below
// 2^127); the block sum below 2^31, or (issue 25: fp8/fp6/fp4 at F = 25, k = 32) its sums by
// chunks of FloatChunkLen products, at most kTileMaxChunks of them, added in binary64.
bool FloatElementSupported(const LaneParams& p, const PatternCodec& a, const PatternCodec& b, bool keep_subnormals,
                           std::size_t len) {
  if (HWY_TARGET == HWY_SCALAR || p.alignment != 0 || len == 0) return false;
  auto fits = [](const PatternCodec& f) {
    return f.width <= 32 && f.precision <= 12 && f.emin - (f.precision - 1) >= -126 &&
           static_cast<int>(f.top_field) - f.bias <= 126;
  };
  const int top = (static_cast<int>(a.top_field) - a.bias) + (static_cast<int>(b.top_field) - b.bias);
  const int lowest = (a.emin - (a.precision - 1)) + (b.emin - (b.precision - 1));
  const std::size_t chunk = FloatChunkLen(p, len);
  if (chunk == 0 || (len + chunk - 1) / chunk > kTileMaxChunks) return false;
  // bf16 and tf32 (both operands): decoded by a shift, their range flagged in FloatPatternChunk.
  if (keep_subnormals && DirectShift(a) && DirectShift(b)) return true;
  return fits(a) && fits(b) && lowest >= -149 && top + 2 <= 127;
}

void BlockFmaPatterns(const LaneParams& p, const PatternCodec& ca, const PatternCodec& cb, const PatternCodec& cc,
                      bool keep_subnormals, std::size_t n, std::size_t len, const std::uint64_t* a_bits,
                      std::size_t lda, const std::uint64_t* b_bits, std::size_t ldb, const std::uint64_t* c_bits,
                      std::uint64_t* d_out, std::uint8_t* fixup) {
  const PatternLanes la(ca, keep_subnormals), lb(cb, keep_subnormals), lc(cc, keep_subnormals);
  const int shift_base_ab = static_cast<int>(p.fraction_bits) - (ca.precision - 1) - (cb.precision - 1);
  [[maybe_unused]] const bool float_lanes = FloatElementSupported(p, ca, cb, keep_subnormals, len);
#if HWY_TARGET != HWY_SCALAR
  const FloatPatternLanes fa(ca, keep_subnormals), fb(cb, keep_subnormals);
#endif
  const OutRounding rounding(p, p.final_rounding);
  constexpr std::size_t kChunk = kChunkElements;
  HWY_ALIGN double c_value[kChunk], sums[kChunk], exps[kChunk];
  HWY_ALIGN std::int64_t c_eref[kChunk];
  for (std::size_t i0 = 0; i0 < n; i0 += kChunk) {
    const std::size_t m = std::min(kChunk, n - i0);  // a multiple of N (the caller's contract)
    DecodeCLanes(lc, cc, m, c_bits + i0, c_value, c_eref);
    // The products of each element.
#if HWY_TARGET != HWY_SCALAR
    if (float_lanes) {
      bool ok[kChunk];
      HWY_ALIGN std::int32_t c_e32[kChunk];
      std::fill(c_e32 + m, c_e32 + kChunk, kTileZero);  // read by the last short group
      for (std::size_t i = 0; i < m; ++i)
        c_e32[i] = c_eref[i] == kNoTerm ? kTileZero : static_cast<std::int32_t>(std::clamp<std::int64_t>(c_eref[i], -(1 << 20), 1 << 20));
      FloatPatternChunk(p, fa, fb, m, len, a_bits + i0 * lda, lda, b_bits + i0 * ldb, ldb, c_e32, sums, exps, ok);
      for (std::size_t i = 0; i < m; ++i) fixup[i0 + i] = !(ok[i] && std::isfinite(c_value[i]));
    } else
#endif
      for (std::size_t i = 0; i < m; ++i) {
        std::int64_t sum = 0, E = 0;
        const bool ok = std::isfinite(c_value[i]) && PatternElement(p, la, lb, shift_base_ab, len, a_bits + (i0 + i) * lda,
                                                                    b_bits + (i0 + i) * ldb, c_eref[i], sum, E);
        fixup[i0 + i] = !ok;
        sums[i] = static_cast<double>(sum);
        exps[i] = ok ? static_cast<double>(E) : 0.0;
      }
    RoundTailLanes(p, rounding, m, sums, exps, c_value, d_out + i0, fixup + i0);
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
