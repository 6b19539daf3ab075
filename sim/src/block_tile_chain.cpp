// Chains of block FMAs on the GEMM tiles (block_lanes.hpp: block_tile_chain; issue 25,
// branch i25chain). block_tile (block_tile.cpp) runs one block FMA per call: its fused epilogue
// stores d's pattern, value and e_ref, and the next block loads them again as c. At small k
// (4 or 8 products per block) that traffic and the per-block calls cost more than the products.
// Here a micro-tile (kTileRows rows x 2 vectors of columns) keeps c in registers for every
// block of K: its value as binary32 and its e_ref in int16 lanes (one vector per row, as the
// E pass of the products). Each block is block_tile's fused one (E, the scales, the int32 sum,
// c's term, the rounding into binary32 or a narrower output inside binary32's normal range);
// the first block in which any (valid) output of the micro-tile needs the exact path stops the
// micro-tile's chain there: its state before that block is stored, and the caller runs the
// remaining blocks through block_tile and the exact path, as before.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "block_tile_chain.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "block_lanes-inl.h"
#include "block_tile_chain.hpp"
#include "block_tile_chain_consts-inl.h"
#include "block_tile_emax-inl.h"
#include "tile_add-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tcsim::lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
// The chain of one micro-tile of MR rows x 2 vectors; returns where it stopped (K: done).
// binary16 outputs by F16C (AVX-512 only): kHalf is vcvtps2ph's rounding immediate; binary32
// outputs of the plain chains kChainB32Rz / kChainB32Rne (issue 25, h100h: the rounding fixed
// at compile time); -1 elsewhere (the output and its rounding read from ChainConsts per block).
// kAdd (issue 25, branch i25fp8fuse): 0 for a chain of blocks; 1 (binary32) or 2 (binary16)
// for the pairs-mod4 final-add rows, where each instruction of 2 blocks runs block 1 from +0,
// block 2 from its result u1, and adds the instruction's result u2 to c (AddVec, rounded to
// nearest even): c's state is then the sums (d_bits their patterns in that format), and a stop
// is at the first instruction with an output any of its three steps would flag.
#undef TCSIM_CHAIN_F16C  // per Highway target
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3 && HWY_TARGET != HWY_EMU128
#define TCSIM_CHAIN_F16C 1
#else
#define TCSIM_CHAIN_F16C 0
#endif
#if TCSIM_CHAIN_F16C
// AddVec<true>'s value and flags by F16C (the pairs chain's binary16 sums): x + c rounded to
// nearest even in binary32, then by vcvtps2ph. No double rounding: x, c are binary16 values, so
// x + c is exact in binary32 unless their exponents differ by more than 13, and then the smaller
// is below an eighth of the larger's binary16 ulp: both roundings give the larger, never near a
// midpoint. Flags as AddVec's: a non-finite s, two zeros (the sign), an Inf result.
HWY_INLINE hn::Mask<hn::ScalableTag<float>> AddHalfRne(hn::ScalableTag<float> df, hn::Vec<decltype(df)> x,
                                                     hn::Vec<decltype(df)> c, hn::Vec<decltype(df)>& sum) {
  const auto s = hn::Add(x, c);
  sum = hn::Vec<decltype(df)>{_mm512_cvtph_ps(_mm512_cvtps_ph(s.raw, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC))};
  return hn::Or(hn::Or(hn::Not(hn::IsFinite(s)), hn::And(hn::Eq(x, hn::Zero(df)), hn::Eq(c, hn::Zero(df)))),
                hn::Not(hn::IsFinite(sum)));
}
#endif
// kMulti: blocks longer than one int32 chunk (a separate instantiation: the single-chunk code
// stays as it was, GCC's register allocation of the binary16 chain was 5-10 % slower with the
// chunk loop in it). kMaxima: E from the blocks' maxima (mx, h100m) where they decide; its own
// instantiation too, since the runtime test cost the k = 4 chains 7 % (v100 fp16, session 36).
constexpr int kChainB32Rz = -2, kChainB32Rne = -3;
template <std::size_t MR, int kHalf, int kAdd, bool kMulti, bool kMaxima = false>
std::size_t MicroChain(const ChainConsts<hn::ScalableTag<float>>& k, std::size_t K, std::size_t block,
                       const float* a_value, const std::int16_t* a_eref, std::size_t lda, const float* b_value,
                       const std::int16_t* b_eref, std::size_t ldb, float* c_value, std::int32_t* c_eref,
                       std::uint64_t* d_bits, std::size_t ldc, std::size_t valid, const ChainMaxima& mx) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Repartition<std::int16_t, decltype(df)> d16;
  const hn::Half<decltype(d16)> d16h;
  const hn::RebindToUnsigned<decltype(df)> du;
  using VF = hn::Vec<decltype(df)>;
  using VI = hn::Vec<decltype(di)>;
  using V16 = hn::Vec<decltype(d16)>;
  constexpr std::size_t NV = 2;
  const std::size_t NF = hn::Lanes(df);
  // Lanes beyond `valid` columns are padding: never flagged, never read back.
  const auto iota = hn::Iota(di, 0);
  hn::Mask<decltype(df)> live[NV];
  for (std::size_t v = 0; v < NV; ++v)
    live[v] = hn::RebindMask(df, hn::Lt(hn::Add(iota, hn::Set(di, static_cast<std::int32_t>(v * NF))),
                                        hn::Set(di, static_cast<std::int32_t>(valid))));
  const auto live16 = hn::Lt(hn::Iota(d16, 0), hn::Set(d16, static_cast<std::int16_t>(valid)));
  const hn::RebindToUnsigned<decltype(d16)> du16;
  constexpr bool kB32 = kHalf == kChainB32Rz || kHalf == kChainB32Rne;
  VF CV[MR][NV];
  V16 CE[MR];
  const VI e_lo = hn::Set(di, -30000), e_hi = hn::Set(di, 30000);  // kTileZero, kTileSpecial stay far out
  for (std::size_t r = 0; r < MR; ++r) {
    for (std::size_t v = 0; v < NV; ++v) CV[r][v] = hn::LoadU(df, c_value + r * ldc + v * NF);
    const VI e0 = hn::Min(hn::Max(hn::LoadU(di, c_eref + r * ldc), e_lo), e_hi);
    const VI e1 = hn::Min(hn::Max(hn::LoadU(di, c_eref + r * ldc + NF), e_lo), e_hi);
    CE[r] = hn::Combine(d16, hn::DemoteTo(d16h, e1), hn::DemoteTo(d16h, e0));
  }
  // Forced inline (both lambdas): GCC 12 kept run_block out of line, its arrays by reference in
  // memory, and the plain chain ran 18 % slower (a100 tf32, v100 fp16 -> fp32, session 29).
  // One block from c (cv, ce) into X; true where a valid output needs the exact path.
  // q: the block's index (pos / block), counted by the caller (a division per block cost 1-3 %
  // of the chain's samples at k = 16).
  auto run_block = [&](std::size_t pos, std::size_t q, std::size_t len, const VF (&cv)[MR][NV], const V16 (&ce)[MR],
                       VF (&X)[MR][NV]) HWY_ATTR __attribute__((always_inline)) {
    const float* av = a_value + pos;
    const std::int16_t* ae = a_eref + pos;
    const float* bv = b_value + pos * ldb;
    const std::int16_t* be = b_eref + pos * ldb;
    // E: the products' e_refs and c's, in int16 lanes; from the block's maxima in the rows
    // where they decide every lane (issue 25, h100m: block_tile_emax-inl.h), product by
    // product in the others.
    V16 E16[MR];
    if constexpr (kMulti || !kMaxima) {
      (void)q;
      (void)mx;
      for (std::size_t r = 0; r < MR; ++r) E16[r] = ce[r];
      for (std::size_t t = 0; t < len; ++t) {
        const auto eb = hn::LoadU(d16, be + t * ldb);
        for (std::size_t r = 0; r < MR; ++r) E16[r] = hn::Max(E16[r], hn::Add(hn::Set(d16, ae[r * lda + t]), eb));
      }
    } else {
      // The e_refs of A's rows and B's block 2 blocks ahead, read only by the rows the maxima
      // miss (issue 25, h100n): with the GEMM's maxima (BlockTileChain's `pre`) nothing else
      // brings them in, and those rows stalled on the loads (5-10 % of this chain's samples at
      // n = 1024, gone with the prefetches; docs/performance.md). 2 blocks ahead rather than 4
      // (session 39): 2 % faster at n = 1024, where about 2 % of the rows' blocks miss.
      if (pos + 3 * len <= K) {
        for (std::size_t t = 0; t < len; ++t) hwy::Prefetch(be + (2 * len + t) * ldb);
        for (std::size_t r = 0; r < MR; ++r) hwy::Prefetch(ae + r * lda + 2 * len);
      }
      const unsigned missed = EFromMaxima<MR>(d16, ce, mx.a_max + q, mx.a_mask + q, mx.a_stride,
                                              mx.b_max + q * hn::Lanes(d16), mx.b_mask + q * hn::Lanes(d16), E16);
      if (missed)
        for (std::size_t r = 0; r < MR; ++r) {
          if (!(missed >> r & 1u)) continue;
          E16[r] = ce[r];
          for (std::size_t t = 0; t < len; ++t)
            E16[r] = hn::Max(E16[r], hn::Add(hn::Set(d16, ae[r * lda + t]), hn::LoadU(d16, be + t * ldb)));
        }
    }
    // Any valid lane that needs the exact path stops the chain: masks for the micro-tile.
    // E's flags in int16 lanes (block_tile's, as one interval of raw E: below it no nonzero
    // term or F - E > 120, above it a possible overflow or F - E < -120), the scales' exponent
    // fields F - E + 127 there too.
    auto any16 = hn::FirstN(d16, 0), down16 = any16;
    VF scale[MR][NV];
    for (std::size_t r = 0; r < MR; ++r) {
      any16 = hn::Or(any16, hn::RebindMask(d16, hn::Gt(hn::BitCast(du16, hn::Sub(E16[r], k.raw_lo)),
                                                       kB32 ? k.raw_span32 : k.raw_span)));
      const V16 field = hn::Sub(k.f_bias16, hn::Max(E16[r], k.min_e16));
      down16 = hn::Or(down16, hn::Lt(field, k.bias16));  // F - E' < 0
      scale[r][0] = hn::BitCast(df, hn::ShiftLeft<23>(hn::PromoteTo(di, hn::LowerHalf(d16h, field))));
      scale[r][1] = hn::BitCast(df, hn::ShiftLeft<23>(hn::PromoteTo(di, hn::UpperHalf(d16h, field))));
    }
    auto any0 = hn::FirstN(df, 0), any1 = any0;
    // The sum (int32 chunks of tile_chunk_len products), c's term first (exact, as block_tile's;
    // a NaN/Inf c has a special e_ref: flagged above).
    VI S[MR][NV];
    for (std::size_t r = 0; r < MR; ++r)
      for (std::size_t v = 0; v < NV; ++v) S[r][v] = TruncToInt32(di, hn::Mul(cv[r][v], scale[r][v]));
    // The products' terms trunc(a b 2^(F - E')) (issue 25, h100i): where every live lane of the
    // micro-tile has d = F - E' >= 0 (exp_add), 2^d is applied by adding d to the exponent
    // field of a b's bits, an integer addition instead of a multiplication (the sum pass's
    // multiplications share two pipes). Exact: a b is the binary32 product (exact, or below
    // 2^-126, where its term truncates to 0 either way), and 0 <= d <= 120 in an unflagged lane
    // (raw_lo, raw_span). A normal a b has |a b| < 2^(E + 2) <= 2^(E' + 2) (e_refs: |a| <
    // 2^(e_a + 1)), so its exponent field plus d stays at most F + 128 <= 254: the bits are
    // those of a b 2^d. A zero gives +-0 (d = 0) or +-2^(d - 127) <= 2^-7, a subnormal a b
    // (fraction m) +-(1 + m 2^-23) 2^(d - 127) < 2^-6 (d >= 1) or itself (d = 0): each truncates
    // to 0, as a b 2^d (below 2^-6) does. A flagged lane's garbage is never used (the chain
    // stops before that block). Blocks with a live lane of E' > F (|c| or products of 2^F and
    // more) multiply by the scale as before.
    VI dsh[MR][NV];
    for (std::size_t r = 0; r < MR; ++r)
      for (std::size_t v = 0; v < NV; ++v) dsh[r][v] = hn::Sub(hn::BitCast(di, scale[r][v]), k.bias23);
    const bool exp_add = hn::AllFalse(d16, hn::And(down16, live16));
    auto sum = [&](VI (&T)[MR][NV], std::size_t t0, std::size_t t1, auto by_add) HWY_ATTR __attribute__((always_inline)) {
      for (std::size_t t = t0; t < t1; ++t) {
        VF vb[NV];
        for (std::size_t v = 0; v < NV; ++v) vb[v] = hn::LoadU(df, bv + t * ldb + v * NF);
        for (std::size_t r = 0; r < MR; ++r) {
          const VF va = hn::Set(df, av[r * lda + t]);
          for (std::size_t v = 0; v < NV; ++v) {
            if constexpr (decltype(by_add)::value)
              T[r][v] = hn::Add(T[r][v], TruncToInt32(di, hn::BitCast(df, hn::Add(hn::BitCast(di, hn::Mul(va, vb[v])),
                                                                                  dsh[r][v]))));
            else
              T[r][v] = hn::Add(T[r][v], TruncToInt32(di, hn::Mul(hn::Mul(va, vb[v]), scale[r][v])));
          }
        }
      }
    };
    const std::size_t len0 = kMulti ? std::min(len, k.chunk) : len;
    if (exp_add) sum(S, 0, len0, std::true_type());
    else sum(S, 0, len0, std::false_type());
    // Blocks of several int32 chunks (issue 25, h100g: F = 25 and k = 32, rtx5090 and b200
    // fp8/fp6/fp4): each further chunk's sum T, of at most 2^(29 - F) terms below 2^(F+2), is
    // exact in int32 (|T| < 2^31); S (c's term and the chunks before) and T each within
    // [-2^30, 2^30), else flagged, make S + T exact (|S + T| < 2^31). A wrapped first chunk
    // (true sum below 2^31 + 2^26) lies outside that interval: flagged too.
    for (std::size_t c0 = k.chunk; kMulti && c0 < len; c0 += k.chunk) {
      VI T[MR][NV];
      for (std::size_t r = 0; r < MR; ++r)
        for (std::size_t v = 0; v < NV; ++v) T[r][v] = hn::Zero(di);
      if (exp_add) sum(T, c0, std::min(len, c0 + k.chunk), std::true_type());
      else sum(T, c0, std::min(len, c0 + k.chunk), std::false_type());
      for (std::size_t r = 0; r < MR; ++r)
        for (std::size_t v = 0; v < NV; ++v) {
          const auto out_s = hn::Gt(hn::Add(hn::BitCast(du, S[r][v]), k.half_range), k.range_max);
          const auto out_t = hn::Gt(hn::Add(hn::BitCast(du, T[r][v]), k.half_range), k.range_max);
          const auto wide = hn::RebindMask(df, hn::Or(out_s, out_t));
          if (v == 0) any0 = hn::Or(any0, wide);
          else any1 = hn::Or(any1, wide);
          S[r][v] = hn::Add(S[r][v], T[r][v]);
        }
    }
    // block_tile's fused epilogue with the same exits, into registers. The flags by unsigned
    // compares: |s| - 1 > wrap_below - 1 catches s = 0, |s| > wrap_below and Abs(INT32_MIN) < 0;
    // |x|'s bits - (2^-126's + 1) beyond the normal range catches x <= 2^-126 and Inf/NaN.
    // The plain binary16 chains (issue 25, v100e) keep those two unsigned quantities' maxima
    // over the rows per column lane (wrap_max, range_max) and compare once per block.
    hn::Vec<decltype(du)> wrap_max[NV], range_max[NV];
    for (std::size_t v = 0; v < NV; ++v) wrap_max[v] = range_max[v] = hn::Zero(du);
    for (std::size_t r = 0; r < MR; ++r)
      for (std::size_t v = 0; v < NV; ++v) {
        const VI s = S[r][v];
        const VI mag = hn::Abs(s);
        // The plain binary32 chains keep |s| - 1's maxima over the rows (as the binary16 ones
        // below) and compare once per block.
        auto b = kB32 ? hn::RebindMask(df, hn::FirstN(di, 0))
                      : hn::RebindMask(df, hn::Gt(hn::BitCast(du, hn::Sub(mag, k.one)), k.wrap_u));
        if constexpr (kB32) wrap_max[v] = hn::Max(wrap_max[v], hn::BitCast(du, hn::Sub(mag, k.one)));
        // 2^(E - F) from the scale 2^(F - E) (exact when E passed the flags above).
        const VF pow2 = hn::BitCast(df, hn::Sub(k.pow2_sum, hn::BitCast(di, scale[r][v])));
        if (kB32 || (kHalf < 0 && !k.narrow)) {
          // Signed: both roundings are symmetric. rz truncates, rne is the conversion's own.
          const bool rz = kHalf == kChainB32Rz || (kHalf != kChainB32Rne && k.rz);
          const VF x = hn::Mul(rz ? ConvertRz(df, di, s, mag) : hn::ConvertTo(df, s), pow2);
          // x normal and finite. kB32 (issue 25, h100h) without a test: with E' = max(E, min_e)
          // (pow2 = 2^(E' - F)) and 1 <= |s| <= 2^30 - 1 (flagged above), |x| lies in
          // [2^(E' - F), 2^(E' - F + 30)] (rne may round |s| up to 2^30). E' >= F - 120 (raw_lo is
          // F - 120 where min_e is below it), so |x| >= 2^-95; E' <= F + kB32TopE (raw_span32, and
          // BlockTileChain takes kB32 only for min_e <= F + kB32TopE), so |x| <= 2^127, finite.
          if constexpr (!kB32) {
            const VI xb = hn::And(hn::BitCast(di, x), k.abs_mask);
            b = hn::Or(b, hn::RebindMask(df, hn::Gt(hn::BitCast(du, hn::Sub(xb, k.normal_lo)), k.normal_span)));
          }
          X[r][v] = x;
#if TCSIM_CHAIN_F16C
        } else if constexpr (kHalf >= 0 && kAdd == 0) {
          // The plain binary16 chains (issue 25, v100e): the binary16 epilogue below with fewer
          // operations. x = odd 2^(E' - F) by subtracting dsh = (F - E') << 23 from odd's bits
          // (no pow2, no multiplication), flags by maxima (above). Exact where unflagged: s != 0
          // and |s| <= wrap_below < 2^30 give |odd| in [1, 2^30), exponent field f in [127, 156], and
          // E' - F in [-120, 120] (raw_lo, raw_span), so f + E' - F >= 7; up to 254 the bits are
          // x's. Beyond that the field wraps: 255 reads as Inf/NaN, 256-276 as a sign flip and a
          // field of 0-20, below 2^-24: both outside [h_lo_sub, h_top), flagged.
          // The sticky bit without converting back: for |s| >= 2^24 (top bit p in 24..29) the
          // conversion keeps bits p - 23 .. p of |s| (p - 23 <= 7); any of bits 0 .. 6 set is
          // ORed into m's last place. The rounding to at most 11 bits (its rounding bit at p - 11
          // >= 13, or higher for subnormal results) sees the same sticky bit, over bits 0 .. 6
          // and m's bits below the rounding bit together: m's bits p - 23 .. p - 12 and bits
          // 0 .. 6 cover 0 .. p - 12. Below 2^24 the conversion is exact: no bit ORed.
          const VF m = ConvertRz(df, di, s, mag);
          const __mmask16 sticky =
              _mm512_mask_cmpge_epu32_mask(_mm512_test_epi32_mask(mag.raw, k.low7.raw), mag.raw, k.two24.raw);
          const VI odd{_mm512_mask_or_epi32(hn::BitCast(di, m).raw, sticky, hn::BitCast(di, m).raw, k.one.raw)};
          const VI xb = hn::Sub(odd, dsh[r][v]);
          wrap_max[v] = hn::Max(wrap_max[v], hn::BitCast(du, hn::Sub(mag, k.one)));
          range_max[v] = hn::Max(range_max[v], hn::BitCast(du, hn::Sub(hn::And(xb, k.abs_mask), k.h_lo_sub)));
          X[r][v] = VF{_mm512_cvtph_ps(_mm512_cvt_roundps_ph(hn::BitCast(df, xb).raw, kHalf | _MM_FROUND_NO_EXC))};
          continue;
        } else if constexpr (kHalf >= 0) {
          // The pairs-mod4 chains' binary16 output (kAdd != 0; the plain chains take the branch
          // above, the same rounding and range with fewer operations, by the same argument).
          // binary16 output: s rounded to odd at 24 bits (rz, the sticky bit into the last
          // place: exact for one more rounding to 11 bits), scaled (exact: |x| in [2^-14, 2^16),
          // else flagged as tiny or too big), then rounded by vcvtps2ph in the row's mode;
          // an |x| that could round to Inf is flagged first (h_span; the generic branch's overflow).
          // Subnormal outputs (kAdd == 0 and p.out_subnormals, issue 25, h100k): |x| in [2^-24,
          // 2^-14) passes too. Still exact: |s| >= 1 and E' >= F - 120 make |x| >= 2^-120, so odd
          // times 2^(E' - F) stays a normal binary32 number (the scaling exact), and rounding to
          // odd at 24 bits before the rounding to binary16's subnormal quantum 2^-24 (fewer than
          // 11 bits kept) is still innocuous (at least 2 bits more); vcvtps2ph rounds subnormal
          // results as IEEE 754 says, as the reference does with subnormal outputs kept.
          const VF m = ConvertRz(df, di, s, mag);
          // The sticky bit ORed into m where converting back does not give s (one masked OR).
          const __mmask16 sticky = _mm512_cmpneq_epi32_mask(TruncToInt32(di, m).raw, s.raw);
          const VI odd{_mm512_mask_or_epi32(hn::BitCast(di, m).raw, sticky, hn::BitCast(di, m).raw, k.one.raw)};
          const VF x = hn::Mul(hn::BitCast(df, odd), pow2);
          const VI xa = hn::And(hn::BitCast(di, x), k.abs_mask);
          b = hn::Or(b, hn::RebindMask(df, hn::Gt(hn::BitCast(du, hn::Sub(xa, k.h_lo)), k.h_span)));
          X[r][v] = VF{_mm512_cvtph_ps(_mm512_cvt_roundps_ph(x.raw, kHalf | _MM_FROUND_NO_EXC))};
#endif
        } else {
          const VF m = ConvertRz(df, di, mag, mag);
          VF x = hn::Mul(m, pow2);
          const VI xb = hn::BitCast(di, x);
          b = hn::Or(b, hn::RebindMask(df, hn::Gt(hn::BitCast(du, hn::Sub(xb, k.normal_lo)), k.normal_span)));
          const VI rem = hn::And(xb, k.n_rem_mask);
          const auto sticky = hn::Ne(TruncToInt32(di, m), mag);
          const auto inexact = hn::Or(hn::Ne(rem, hn::Zero(di)), sticky);
          const auto negative = hn::Lt(s, hn::Zero(di));
          hn::Mask<decltype(di)> up;
          switch (k.rounding) {
            case 3:
              up = hn::Or(hn::Gt(rem, k.n_half),
                          hn::And(hn::Eq(rem, k.n_half), hn::Or(sticky, hn::Ne(hn::And(xb, k.n_lsb), hn::Zero(di)))));
              break;
            case 1: up = hn::And(inexact, negative); break;
            case 2: up = hn::AndNot(negative, inexact); break;
            default: up = hn::And(inexact, hn::Not(inexact)); break;  // rz: never
          }
          const VI yb = hn::Add(hn::AndNot(k.n_rem_mask, xb), hn::IfThenElseZero(up, k.n_lsb));
          b = hn::Or(b, hn::RebindMask(df, hn::Or(hn::Lt(xb, k.n_min_bits), hn::Gt(yb, k.n_max_bits))));
          X[r][v] = hn::BitCast(df, hn::Or(yb, hn::And(s, k.sign_mask)));
        }
        // Pairs-mod4 (kAdd): an exact zero block result is +0 here, its sign unknown. The sign
        // cannot reach an output: a zero u is the second block's c (a zero term there), a zero
        // second result is added to the instruction's c, exact unless c is zero too (AddVec's
        // two zeros, flagged). Cancellations stopped e5m2 micro-tiles in 11-13 % of instructions.
        if constexpr (kAdd != 0) b = hn::AndNot(hn::RebindMask(df, hn::Eq(s, hn::Zero(di))), b);
        if (v == 0) any0 = hn::Or(any0, b);
        else any1 = hn::Or(any1, b);
      }
    if constexpr (kB32) {
      for (std::size_t v = 0; v < NV; ++v) {
        const auto b = hn::RebindMask(df, hn::Gt(wrap_max[v], k.wrap_u));
        if (v == 0) any0 = hn::Or(any0, b);
        else any1 = hn::Or(any1, b);
      }
    } else if constexpr (kHalf >= 0 && kAdd == 0) {
      for (std::size_t v = 0; v < NV; ++v) {
        const auto b = hn::RebindMask(df, hn::Or(hn::Gt(wrap_max[v], k.wrap_u), hn::Gt(range_max[v], k.h_span_sub)));
        if (v == 0) any0 = hn::Or(any0, b);
        else any1 = hn::Or(any1, b);
      }
    }
    return !hn::AllFalse(d16, hn::And(any16, live16)) || !hn::AllFalse(df, hn::And(any0, live[0])) ||
           !hn::AllFalse(df, hn::And(any1, live[1]));
  };
  // A block's (normal) results as the next block's c: their e_refs from the exponent fields.
  // In int16 lanes from the upper halves of X's bits: one ConcatOdd per row instead of two
  // demotions (issue 25, i25v100).
  auto take = [&](const VF (&X)[MR][NV], VF (&cv)[MR][NV], V16 (&ce)[MR]) HWY_ATTR __attribute__((always_inline)) {
    for (std::size_t r = 0; r < MR; ++r) {
      for (std::size_t v = 0; v < NV; ++v) cv[r][v] = X[r][v];
      const V16 hi = hn::ConcatOdd(d16, hn::BitCast(d16, X[r][1]), hn::BitCast(d16, X[r][0]));
      ce[r] = hn::Sub(hn::ShiftRight<7>(hn::And(hi, k.field16)), k.bias16);
      // A subnormal binary16 c's e_ref is -14 (h100k); a no-op for normal results (>= -14).
      if constexpr (kHalf >= 0 && kAdd == 0) ce[r] = hn::Max(ce[r], k.h_emin16);
    }
  };
  std::size_t pos = 0;
  bool done_any = false;
  if constexpr (kAdd == 0) {
    for (std::size_t q = 0; pos < K; pos += block, ++q) {
      VF X[MR][NV];
      if (HWY_UNLIKELY(run_block(pos, q, std::min(block, K - pos), CV, CE, X))) break;  // c (before it) stored below
      take(X, CV, CE);
      done_any = true;
    }
  } else {
    // Pairs-mod4: CV is c (the sums), never a block's c. Instructions of 2 blocks (K a multiple).
    VF zero[MR][NV], U[MR][NV], X[MR][NV];
    V16 zero_e[MR], UE[MR];
    for (std::size_t r = 0; r < MR; ++r) {
      zero_e[r] = hn::Set(d16, -30000);  // kTileZero, clamped as c's e_refs above
      for (std::size_t v = 0; v < NV; ++v) zero[r][v] = hn::Zero(df);
    }
    for (; pos < K; pos += 2 * block) {
      if (HWY_UNLIKELY(run_block(pos, 0, block, zero, zero_e, U))) break;
      take(U, U, UE);
      if (HWY_UNLIKELY(run_block(pos + block, 0, block, U, UE, X))) break;
      VF sum[MR][NV];
      auto bad0 = hn::FirstN(df, 0), bad1 = bad0;
      for (std::size_t r = 0; r < MR; ++r)
        for (std::size_t v = 0; v < NV; ++v) {
          hn::Mask<decltype(df)> b;
#if TCSIM_CHAIN_F16C
          if constexpr (kAdd == 2 && kHalf >= 0) {
            b = AddHalfRne(df, X[r][v], CV[r][v], sum[r][v]);
          } else
#endif
          {
            hn::Vec<decltype(du)> bits;
            VI eref;
            b = AddVec<kAdd == 2>(df, X[r][v], CV[r][v], bits, sum[r][v], eref);
          }
          if (v == 0) bad0 = hn::Or(bad0, b);
          else bad1 = hn::Or(bad1, b);
        }
      if (HWY_UNLIKELY(!hn::AllFalse(df, hn::And(bad0, live[0])) || !hn::AllFalse(df, hn::And(bad1, live[1])))) break;
      for (std::size_t r = 0; r < MR; ++r)
        for (std::size_t v = 0; v < NV; ++v) CV[r][v] = sum[r][v];
      done_any = true;
    }
  }
  if (done_any && kAdd != 0) {
    // The sums' patterns and e_refs (AddVec of c + 0 is c: exact).
    const hn::Repartition<std::uint64_t, decltype(df)> du64;
    const hn::Half<decltype(du)> du_half;
    for (std::size_t r = 0; r < MR; ++r)
      for (std::size_t v = 0; v < NV; ++v) {
        hn::Vec<decltype(du)> bits;
        VF value;
        VI eref;
        (void)AddVec<kAdd == 2>(df, CV[r][v], hn::Zero(df), bits, value, eref);
        hn::StoreU(value, df, c_value + r * ldc + v * NF);
        hn::StoreU(eref, di, c_eref + r * ldc + v * NF);
        hn::StoreU(hn::PromoteTo(du64, hn::LowerHalf(du_half, bits)), du64, d_bits + r * ldc + v * NF);
        hn::StoreU(hn::PromoteTo(du64, hn::UpperHalf(du_half, bits)), du64, d_bits + r * ldc + v * NF + NF / 2);
      }
  } else if (done_any)
    for (std::size_t r = 0; r < MR; ++r) {
      const VI e0 = hn::PromoteTo(di, hn::LowerHalf(d16h, CE[r])), e1 = hn::PromoteTo(di, hn::UpperHalf(d16h, CE[r]));
      hn::StoreU(e0, di, c_eref + r * ldc);
      hn::StoreU(e1, di, c_eref + r * ldc + NF);
      for (std::size_t v = 0; v < NV; ++v) {
        hn::StoreU(CV[r][v], df, c_value + r * ldc + v * NF);
#if TCSIM_CHAIN_F16C
        if constexpr (kHalf >= 0) {
          // binary16 patterns by vcvtps2ph (exact: CV holds binary16 values, subnormal ones too,
          // which StoreChainBits's field arithmetic would not encode).
          const __m256i h = _mm512_cvtps_ph(CV[r][v].raw, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
          std::uint64_t* out = d_bits + r * ldc + v * NF;
          _mm512_storeu_si512(out, _mm512_cvtepu16_epi64(_mm256_castsi256_si128(h)));
          _mm512_storeu_si512(out + 8, _mm512_cvtepu16_epi64(_mm256_extracti128_si256(h, 1)));
          continue;
        }
#endif
        StoreChainBits(df, k, CV[r][v], d_bits + r * ldc + v * NF);
      }
    }
  return pos;
}
#endif

// Whether BlockTileChain runs for these rows (the caller's cols a multiple of 2 Lanes aside), and
// which output kind: the chain's own test, also asked before a GEMM decodes B only into strips
// (tile_chain_supported, session 39).
bool ChainAccepts(const LaneParams& p, int add, std::size_t K, std::size_t block, bool& binary32_out, bool& narrow_out) {
#if HWY_TARGET == HWY_SCALAR
  (void)p, (void)add, (void)K, (void)block;
  binary32_out = narrow_out = false;
  return false;
#else
  // block_tile's fused epilogue only: binary32 outputs rounded rz or rne, or narrower ones in
  // binary32's normal range (the same conditions as BlockTile's), at most kTileMaxChunks int32
  // chunks per block (one before h100g).
  binary32_out = p.out_precision == 24 && p.out_emin == -126 && p.out_emax == 127 && p.out_width == 32 &&
                 p.out_bias == 127 && p.out_max_finite_significand == 0xffffff &&
                 (p.final_rounding == 0 || p.final_rounding == 3);
  narrow_out = p.out_precision >= 2 && p.out_precision < 24 && p.out_emin >= -126 && p.out_emax <= 127 &&
               p.out_emin <= p.out_emax && p.out_width <= 32 && p.final_rounding >= 0 && p.final_rounding <= 3 &&
               p.out_max_finite_significand < (std::uint64_t{1} << p.out_precision) &&
               p.out_max_finite_significand >= (std::uint64_t{1} << (p.out_precision - 1));
  const std::size_t chunk = tile_chunk_len(p.fraction_bits);
  if (!(binary32_out || narrow_out) || block == 0 || K == 0 || chunk == 0 || block > kTileMaxChunks * chunk) return false;
  if (add != 0 && (add > 2 || K % (2 * block) != 0)) return false;  // pairs-mod4: whole instructions
  // E's clamp at most F + 120 (else every output is flagged) and an integral F.
  if (p.min_exponent > p.fraction_bits + 120 || p.fraction_bits != static_cast<int>(p.fraction_bits)) return false;
  return true;
#endif
}

bool TileChainSupported(const LaneParams& p, std::size_t K, std::size_t block) {
  bool binary32_out = false, narrow_out = false;
  return ChainAccepts(p, 0, K, block, binary32_out, narrow_out);
}

bool BlockTileChain(const LaneParams& p, int add, std::size_t rows, std::size_t cols, std::size_t valid_cols, std::size_t K,
                    std::size_t block, const float* a_value, const std::int16_t* a_eref, std::size_t lda,
                    const float* b_value, const std::int16_t* b_eref, std::size_t ldb, float* c_value,
                    std::int32_t* c_eref, std::uint64_t* d_bits, std::size_t ldc, std::size_t* stops,
                    std::size_t strip_stride, const TileChainMaxima* given) {
#if HWY_TARGET == HWY_SCALAR
  (void)strip_stride, (void)given;
  (void)p, (void)add, (void)rows, (void)cols, (void)valid_cols, (void)K, (void)block, (void)a_value, (void)a_eref, (void)lda;
  (void)b_value, (void)b_eref, (void)ldb, (void)c_value, (void)c_eref, (void)d_bits, (void)ldc, (void)stops;
  return false;
#else
  bool binary32_out = false, narrow_out = false;
  if (!ChainAccepts(p, add, K, block, binary32_out, narrow_out)) return false;
  const hn::ScalableTag<float> df;
  const std::size_t W = 2 * hn::Lanes(df);
  if (cols % W != 0) return false;
  const ChainConsts<hn::ScalableTag<float>> k(df, p);
  // Column strips outermost, then chunks of K (kChainChunk products), then the row groups: a
  // strip's chunk of B (256 x W binary32 values and int16 e_refs) is read by the row groups
  // while it is in L1/L2 (issue 25, h100g: over all of K, 192 KiB at K = 1024 for AVX-512, each
  // row group read the strip from L3, at a stride of ldb). Between chunks each micro-tile's c
  // goes through c_value/c_eref (MicroChain's start and end), exactly: the stored e_refs are the
  // chain's int16 ones. A micro-tile that stops in a chunk (stops[mt] below K) runs no further
  // chunk: the caller takes it from there, as before. (Copying each chunk contiguously, with
  // tasks of 64 rows, was slower for binary16 outputs: not kept.)
  auto run_add = [&](auto half, auto add_kind) {
    constexpr int H = decltype(half)::value, A = decltype(add_kind)::value;
    const std::size_t per_row = cols / W;
    const std::size_t step = add != 0 ? 2 * block : block;
    const std::size_t chunk_len = std::max<std::size_t>(1, kChainChunk / step) * step;
    for (std::size_t r0 = 0; r0 < rows; r0 += kTileRows)
      for (std::size_t j0 = 0; j0 < cols; j0 += W) stops[r0 / kTileRows * per_row + j0 / W] = K;
    // The blocks' maxima of A's rows (once per call) and of each strip's chunk of B (h100m:
    // block_tile_emax-inl.h), for the plain chains' blocks of kMaximaBlock products in one int32
    // chunk. Not the pairs-mod4 chains: each instruction's first block starts from a zero c, so
    // the maxima rarely decide it, and B is row-major there (a row of B per cache line read);
    // they ran 14 % slower (h100 e4m3 -> fp16, docs/performance.md).
    // The GEMM driver makes them once per GEMM (h100n: `given`, block_tile_emax.cpp); the
    // chain makes its own where they are not given or made for another target or block.
    const bool maxima = A == 0 && block == kMaximaBlock && block <= k.chunk;
    const hn::Repartition<std::int16_t, decltype(df)> d16;
    const bool pre = maxima && given != nullptr && given->a_max != nullptr && given->b_max != nullptr &&
                     given->lanes == W && given->block == block;
    const std::size_t nq = (K + block - 1) / block;
    thread_local std::vector<std::int16_t> a_max, b_max;
    thread_local std::vector<std::uint16_t> a_mask, b_mask;
    if (maxima && !pre) {
      a_max.resize(rows * nq);
      a_mask.resize(rows * nq);
      RowMaxima(a_eref, lda, rows, K, block, a_max.data(), a_mask.data());
      b_max.resize((chunk_len + block - 1) / block * W);
      b_mask.resize(b_max.size());
    }
    for (std::size_t j0 = 0; j0 < cols; j0 += W) {
      const std::size_t valid = valid_cols > j0 ? std::min(W, valid_cols - j0) : 0;
      for (std::size_t kc = 0; kc < K; kc += chunk_len) {
        const std::size_t len = std::min(chunk_len, K - kc);
        const std::size_t strip_at = strip_stride ? j0 / W * strip_stride : j0;
        const float* bv = b_value + strip_at + kc * ldb;
        const std::int16_t* be = b_eref + strip_at + kc * ldb;
        if (maxima && !pre) ColumnMaxima(d16, be, ldb, len, block, b_max.data(), b_mask.data());
        // The operands' e_refs are read only by the rows the maxima miss, mostly in the first
        // blocks (later c exceeds the maxima's sum): the chunk's first 4 blocks of them before
        // the micro-tiles, the later ones 2 blocks ahead in MicroChain.
        if (pre) {
          for (std::size_t t = 0; t < std::min(len, 4 * block); ++t) hwy::Prefetch(be + t * ldb);
          for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t t = 0; t < std::min(len, 4 * block); t += 32) hwy::Prefetch(a_eref + i * lda + kc + t);
        }
        for (std::size_t r0 = 0; r0 < rows; r0 += kTileRows) {
          const std::size_t mr = std::min(kTileRows, rows - r0), mt = r0 / kTileRows * per_row + j0 / W;
          if (stops[mt] != K) continue;
          ChainMaxima mx;
          if (pre) {
            const std::size_t a_at = r0 * given->a_stride + kc / block, b_at = j0 / W * given->b_stride + kc / block * W;
            mx = {given->a_max + a_at, given->a_mask + a_at, given->a_stride, given->b_max + b_at, given->b_mask + b_at};
          } else if (maxima) {
            mx = {a_max.data() + r0 * nq + kc / block, a_mask.data() + r0 * nq + kc / block, nq, b_max.data(),
                  b_mask.data()};
          }
          const float* a = a_value + r0 * lda + kc;
          const std::int16_t* ae = a_eref + r0 * lda + kc;
          float* cv = c_value + r0 * ldc + j0;
          std::int32_t* ce = c_eref + r0 * ldc + j0;
          std::uint64_t* db = d_bits + r0 * ldc + j0;
          std::size_t at;
          if (block > k.chunk) {
            switch (mr) {
              case 4: at = MicroChain<4, H, A, true>(k, len, block, a, ae, lda, bv, be, ldb, cv, ce, db, ldc, valid, mx); break;
              case 3: at = MicroChain<3, H, A, true>(k, len, block, a, ae, lda, bv, be, ldb, cv, ce, db, ldc, valid, mx); break;
              case 2: at = MicroChain<2, H, A, true>(k, len, block, a, ae, lda, bv, be, ldb, cv, ce, db, ldc, valid, mx); break;
              default: at = MicroChain<1, H, A, true>(k, len, block, a, ae, lda, bv, be, ldb, cv, ce, db, ldc, valid, mx); break;
            }
          } else {
            switch (mr) {
              case 4:
                // The maxima on full micro-tiles of the plain chains only (tails: the product loop).
                if constexpr (A == 0)
                  if (maxima) {
                    at = MicroChain<4, H, A, false, true>(k, len, block, a, ae, lda, bv, be, ldb, cv, ce, db, ldc, valid, mx);
                    break;
                  }
                at = MicroChain<4, H, A, false>(k, len, block, a, ae, lda, bv, be, ldb, cv, ce, db, ldc, valid, mx);
                break;
              case 3: at = MicroChain<3, H, A, false>(k, len, block, a, ae, lda, bv, be, ldb, cv, ce, db, ldc, valid, mx); break;
              case 2: at = MicroChain<2, H, A, false>(k, len, block, a, ae, lda, bv, be, ldb, cv, ce, db, ldc, valid, mx); break;
              default: at = MicroChain<1, H, A, false>(k, len, block, a, ae, lda, bv, be, ldb, cv, ce, db, ldc, valid, mx); break;
            }
          }
          if (at < len) stops[mt] = kc + at;
        }
      }
    }
  };
  auto run = [&](auto half) {
    if (add == 1) run_add(half, std::integral_constant<int, 1>());
    else if (add == 2) run_add(half, std::integral_constant<int, 2>());
    else run_add(half, std::integral_constant<int, 0>());
  };
  // binary16 outputs (the same layout and range): F16C's conversion rounds (kHalf).
  const bool binary16 = narrow_out && p.out_precision == 11 && p.out_emin == -14 && p.out_emax == 15 &&
                        p.out_bias == 15 && p.out_width == 16 && p.out_max_finite_significand == 0x7ff;
#if TCSIM_CHAIN_F16C && defined(TCSIM_CHAIN_F16C_RNE_ONLY)
  // The sanitizer build (sim/CMakeLists.txt): round to nearest even only, the built-in rows'
  // binary16 rounding. The other three chains differ from it only in vcvtps2ph's rounding
  // immediate; without them, 72 fewer MicroChain instantiations to compile under the
  // sanitizers, and those rows take the generic chain below (as every other target does).
  if (binary16 && hn::Lanes(df) == 16 && p.final_rounding != 0 && p.final_rounding != 1 && p.final_rounding != 2) {
    run(std::integral_constant<int, _MM_FROUND_TO_NEAREST_INT>());
    return true;
  }
#elif TCSIM_CHAIN_F16C
  if (binary16 && hn::Lanes(df) == 16) {
    switch (p.final_rounding) {
      case 0: run(std::integral_constant<int, _MM_FROUND_TO_ZERO>()); return true;
      case 1: run(std::integral_constant<int, _MM_FROUND_TO_NEG_INF>()); return true;
      case 2: run(std::integral_constant<int, _MM_FROUND_TO_POS_INF>()); return true;
      default: run(std::integral_constant<int, _MM_FROUND_TO_NEAREST_INT>()); return true;
    }
  }
#else
  (void)binary16;
#endif
  // Binary32 outputs of the plain chains: the rounding as a template argument (h100h). add is 0
  // here: run_add directly, so that no pairs-mod4 chain is instantiated for them (32 of the 72
  // MicroChain instantiations per target, 168 with AVX-512's binary16 ones, were unreachable).
  if (binary32_out && add == 0 && p.min_exponent <= p.fraction_bits + kB32TopE) {
    const std::integral_constant<int, 0> plain;
    if (p.final_rounding == 0) run_add(std::integral_constant<int, kChainB32Rz>(), plain);
    else run_add(std::integral_constant<int, kChainB32Rne>(), plain);
    return true;
  }
  run(std::integral_constant<int, -1>());
  return true;
#endif
}

}  // namespace tcsim::lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tcsim::lanes {

HWY_EXPORT(BlockTileChain);
HWY_EXPORT(TileChainSupported);

bool block_tile_chain_supported(const LaneParams& p, std::size_t K, std::size_t block) {
  return HWY_DYNAMIC_DISPATCH(TileChainSupported)(p, K, block);
}

bool block_tile_chain(const LaneParams& p, std::size_t rows, std::size_t cols, std::size_t valid_cols, std::size_t K,
                      std::size_t block, const float* a_value, const std::int16_t* a_eref, std::size_t lda,
                      const float* b_value, const std::int16_t* b_eref, std::size_t ldb, float* c_value,
                      std::int32_t* c_eref, std::uint64_t* d_bits, std::size_t ldc, std::size_t* stops,
                      std::size_t strip_stride, const TileChainMaxima* maxima) {
  return HWY_DYNAMIC_DISPATCH(BlockTileChain)(p, 0, rows, cols, valid_cols, K, block, a_value, a_eref, lda, b_value,
                                              b_eref, ldb, c_value, c_eref, d_bits, ldc, stops, strip_stride, maxima);
}

bool block_tile_pairs_chain(const LaneParams& p, bool binary16_add, std::size_t rows, std::size_t cols,
                            std::size_t valid_cols, std::size_t K, std::size_t block, const float* a_value,
                            const std::int16_t* a_eref, std::size_t lda, const float* b_value,
                            const std::int16_t* b_eref, std::size_t ldb, float* c_value, std::int32_t* c_eref,
                            std::uint64_t* d_bits, std::size_t ldc, std::size_t* stops) {
  return HWY_DYNAMIC_DISPATCH(BlockTileChain)(p, binary16_add ? 2 : 1, rows, cols, valid_cols, K, block, a_value,
                                              a_eref, lda, b_value, b_eref, ldb, c_value, c_eref, d_bits, ldc, stops, 0, nullptr);
}

}  // namespace tcsim::lanes
#endif
