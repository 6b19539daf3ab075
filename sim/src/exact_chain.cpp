// The exact-block (AMD CDNA1) GEMM chain with c in registers (see amd_chain.hpp:
// ExactChainTile), compiled once per SIMD target by Google Highway and chosen at run time.
//
// Each output is c plus every block's products by fused multiply-adds in binary64 lanes (or an
// exact product and an add where the target has no FMA), rounded to binary32 by one DemoteTo
// per block; the new c is that binary32 value, kept in a binary64 register (PromoteTo is
// exact). Exactness is proven per run of blocks from the tile's exponent summaries and c's
// range (ExactChainMicro: no test per block; i25mi100's per-lane test per block where the run
// bound fails). Lanes neither proves exact take the scalar block from their old c, and the
// chain continues from its result.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "exact_chain.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>

#include "amd_chain.hpp"

#include <algorithm>
#include <bit>
#include <type_traits>
#include <utility>
#include <vector>

HWY_BEFORE_NAMESPACE();
namespace tcsim::amd_lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D = hn::ScalableTag<double>;
using DI = hn::RebindToSigned<D>;
using DU = hn::RebindToUnsigned<D>;
using DH = hn::Rebind<std::int32_t, D>;  // int32 lanes as many as binary64 lanes
using DHF = hn::Rebind<float, D>;
using VD = hn::Vec<D>;
using VI = hn::Vec<DI>;

constexpr double kRoundsToInf = 0x1.ffffffp127;  // |v| >= this rounds (RNE) to binary32 Inf

template <std::size_t... I, class F>
HWY_INLINE void Unrolled(std::index_sequence<I...>, const F& f) {
  (f(std::integral_constant<std::size_t, I>()), ...);
}

// The accumulators (binary32 values, Inf and NaN too) as binary32: by the host's conversion,
// exact for them, where DemoteTo may saturate Inf (EMU128, SCALAR).
template <std::size_t MR, std::size_t NV>
HWY_INLINE void StoreC(const VD (&C)[MR][NV], float* out) {
  const D d;
  const std::size_t N = hn::Lanes(d);
  HWY_ALIGN double tmp[MR * NV * (HWY_MAX_BYTES / 8)];
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t v = 0; v < NV; ++v) hn::Store(C[r][v], d, tmp + (r * NV + v) * N);
  for (std::size_t i = 0; i < MR * NV * N; ++i) out[i] = static_cast<float>(tmp[i]);
}

// x (a binary64 sum inside a run: a multiple of 2^-149, |x| < 2^127) rounded to binary32 (RNE)
// in binary64 lanes without DemoteTo and PromoteTo (edge25: for blocks of 2 products, mi100
// bf16, about 5 % less time in the run loop than the two conversions per vector and block, which
// share the FP pipes with only 2 fused multiply-adds there; blocks of 4, fp16, showed no gain, so
// they keep the conversions; 1-thread CPU samples at load 7-9, a noisy measure). 2^e = x's
// exponent field alone (x & 0x7ff0..0; 0 for a zero x), sigma = 1.5 2^(e + 29) (exact), t =
// RN(x + sigma), then t - sigma, exact. Why it is binary32's RNE: |x| < 2^(e+1) keeps x + sigma
// in [2^(e+29), 2^(e+30)), whose binary64 ulp is 2^(e-23), binary32's ulp at x for e >= -126;
// sigma = 3 2^(e+28) is an even multiple of that ulp, so RN's ties to even on x + sigma are ties
// to even on x; t and sigma are multiples of 2^(e-23) and |t - sigma| <= 2^(e+1), so the
// difference is exact. For e < -126 (binary32's subnormals) x, a multiple of 2^-149, is a
// binary32 number and a multiple of 2^(e-23): both roundings leave it. A zero gives +0 (a run's
// zeros are exact zeros, made +0 anyway).
template <class V>
HWY_INLINE V RoundToBinary32InRun(V x) {
  const hn::DFromV<V> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const V e2 = hn::And(x, hn::BitCast(d, hn::Set(du, std::uint64_t{0x7ff} << 52)));
  const V sigma = hn::Mul(e2, hn::Set(d, 0x1.8p29));  // exact: a power of two times 1.5 2^29
  return hn::Sub(hn::Add(x, sigma), sigma);
}

// The exponent summaries of a row group (up to kMR rows of A) or a column strip (the micro-tile's
// columns of B) for one block: the largest e_ref and the least last-bit exponent of its nonzero
// operands (amd_lanes.hpp's sentinels for none and for NaN/Inf).
struct Summary {
  std::int32_t hi, lo;
};

constexpr std::size_t kMaxSegment = 64;  // blocks per run: (1 + 2^-24)^64 < 1 + 2^-17

// MR rows x NV vectors of outputs, c in registers over the whole chain; blocks of KB products
// unrolled (KB = 0: any k). rs[b], cs[b]: the block's row group and column strip summaries.
//
// Segments (positive zero rule only): before a run of blocks bi..end-1 (at most kMaxSegment),
// from scalars alone: U = the least of c's last-bit bound over the tile's lanes (binary64
// exponent - 23, at least -149: c is a binary32 value) and of every block's rs.lo + cs.lo,
// capped at 74; P = S 2^(h + 2 + ceil(log2 k)) for S blocks, h the largest rs.hi + cs.hi, a
// bound on the sum of the blocks' bounds on their sums of |products| (|x| < 2^(e_ref + 1));
// M = the largest |c| of the lanes, below 2^(m_e + 1). The run is taken when U >= -149,
// m_e + 1 <= U + 52 and P <= 2^(U+51): M + P <= 2^(U+53) (3/4). Why every lane of
// it is exact: by induction over the blocks, c is a multiple of 2^U (true at the start; the
// products are by U's definition; the exact sum v is, and its rounding to binary32 is v itself
// or a multiple of binary32's ulp at v, which exceeds 2^U when v is not representable, as
// U >= -149 and |v| < 2^127), and |c_b| <= (M + P_1 + ... + P_b)(1 + 2^-24)^b (RNE grows a
// magnitude by at most 2^-24 relatively; below 2^-126 multiples of 2^U >= 2^-149 do not round).
// So every partial sum of a block, c plus some of its products, is a multiple of 2^U below
// (M + P)(1 + 2^-17) < 2^(U+53): every fused multiply-add (or exact product and add) is
// exact, the binary64 value is the exact sum,
// DemoteTo rounds it once (RNE, subnormals: MXCSR's default on x86; EMU128/SCALAR's cast; no
// saturation below 2^127), PromoteTo is exact. NaN/Inf operands raise hi to kTileSpecialHi
// and lo to kTileSpecialLo (the run stops there); NaN/Inf in c make M fail the compare. A
// nonzero sum is at least 2^U >= 2^-149, so a zero result is an exact zero sum: the rule wants
// +0, and the lanes' zeros (whose sign only a later zero result could show) become +0 by one
// addition of +0 before a block of the per-block path and at the end. Per block and vector of
// a run: k fused multiply-adds, DemoteTo and PromoteTo, no test.
//
// Otherwise (a run of no block: terms too far apart for the bound, NaN/Inf, c too large for
// U) the block takes the per-block lanes: c plus the block's products by fused multiply-adds,
// the exactness test per lane (every term a multiple of 2^U below 2^(H+1), H = max(hi_a +
// hi_b + 1, e_c), U = min(lo_a + lo_b, lo_c), H - U <= span_limit: the same argument for one
// block), flagged lanes (and non-finite, overflowing or, without the rule, zero sums) to the
// scalar block from their old c.
template <std::size_t MR, std::size_t NV, std::size_t KB, bool kPositiveZero>
void ExactChainMicro(const ExactChainTile& T, std::size_t r0, std::size_t j0, const Summary* rs, const Summary* cs) {
  const D d;
  const DI di;
  const DU du;
  const DH dh;
  const DHF dhf;
  const std::size_t N = hn::Lanes(d);
  VD C[MR][NV];
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t v = 0; v < NV; ++v) C[r][v] = hn::PromoteTo(d, hn::LoadU(dhf, T.acc + (r0 + r) * T.ldc + j0 + v * N));
  const double* a = T.a_d + r0 * T.lda;
  const VI limit = hn::Set(di, T.span_limit), lsb_c = hn::Set(di, 23 + 1023), zero_lo = hn::Set(di, kTileZeroLo);
  const VI exp_mask = hn::Set(di, 0x7ff), bias = hn::Set(di, 1023);
  const VD zero = hn::Zero(d), to_inf = hn::Set(d, kRoundsToInf);
  const std::size_t nb = (T.K + T.k - 1) / T.k;
  const int lk = static_cast<int>(std::bit_width(T.k - 1));  // ceil(log2 k)
  // The block's products added to S by fused multiply-adds.
  const auto products = [&](VD (&S)[MR][NV], std::size_t pos, std::size_t len) {
    const auto product = [&](std::size_t t) {
      VD vb[NV];
      for (std::size_t v = 0; v < NV; ++v) vb[v] = hn::LoadU(d, T.b_d + (pos + t) * T.ldb + j0 + v * N);
      for (std::size_t r = 0; r < MR; ++r) {
        const VD va = hn::Set(d, a[r * T.lda + pos + t]);
        for (std::size_t v = 0; v < NV; ++v) S[r][v] = hn::MulAdd(va, vb[v], S[r][v]);
      }
    };
    if (KB != 0 && len == KB) Unrolled(std::make_index_sequence<KB>(), [&](auto t) { product(t); });
    else for (std::size_t t = 0; t < len; ++t) product(t);
  };
  const auto positive_zeros = [&] {
    for (std::size_t r = 0; r < MR; ++r)
      for (std::size_t v = 0; v < NV; ++v) C[r][v] = hn::Add(C[r][v], zero);
  };
  // One block on the per-block lanes (the test per lane, flagged lanes to the scalar block).
  const auto block_lanes = [&](std::size_t bi) {
    const std::size_t pos = bi * T.k, len = std::min(T.k, T.K - pos);
    VD S[MR][NV];
    for (std::size_t r = 0; r < MR; ++r)
      for (std::size_t v = 0; v < NV; ++v) S[r][v] = C[r][v];
    products(S, pos, len);
    // The products' bounds: hi_b + 1 and lo_b per column, hi_a and lo_a per row (scalars).
    VI hb[NV], lb[NV];
    for (std::size_t v = 0; v < NV; ++v) {
      const std::size_t at = bi * T.ldb + j0 + v * N;
      hb[v] = hn::PromoteTo(di, hn::LoadU(dh, T.b_hi + at)), lb[v] = hn::PromoteTo(di, hn::LoadU(dh, T.b_lo + at));
    }
    std::uint8_t bits[MR * NV][HWY_MAX_BYTES / 64 + 8];
    std::uint32_t flagged_vectors = 0;  // bit I: vector I has flagged lanes (their bits in bits[I])
    Unrolled(std::make_index_sequence<MR * NV>(), [&](auto I) {
      constexpr std::size_t r = I / NV, v = I % NV;
      const std::size_t ea = (r0 + r) * T.lde + bi;
      const VD cv = C[r][v];
      // c's binary64 exponent plus 1023 (of a zero c: 0, no bound on H) and its last bit.
      const VI e_c = hn::And(hn::BitCast(di, hn::ShiftRight<52>(hn::BitCast(du, cv))), exp_mask);
      const VI lo_c = hn::IfThenElse(hn::RebindMask(di, hn::Eq(cv, zero)), zero_lo, hn::Sub(e_c, lsb_c));
      const VI H = hn::Max(hn::Add(hn::Set(di, T.a_hi[ea] + 1 + 1023), hb[v]), e_c);  // biased
      const VI U = hn::Min(hn::Add(hn::Set(di, T.a_lo[ea]), lb[v]), lo_c);           // unbiased
      const VD sum = kPositiveZero ? hn::Add(S[r][v], zero) : S[r][v];              // an exact zero: +0
      auto bad = hn::Or(hn::RebindMask(d, hn::Gt(hn::Sub(hn::Sub(H, bias), U), limit)),
                        hn::Not(hn::Lt(hn::Abs(sum), to_inf)));
      if constexpr (!kPositiveZero) bad = hn::Or(bad, hn::Eq(sum, zero));
      const VD res = hn::PromoteTo(d, hn::DemoteTo(dhf, sum));
      if (HWY_UNLIKELY(!hn::AllFalse(d, bad))) {
        flagged_vectors |= std::uint32_t{1} << I;
        hn::StoreMaskBits(d, bad, bits[I]);
        C[r][v] = hn::IfThenElse(bad, C[r][v], res);
      } else {
        C[r][v] = res;
      }
    });
    if (HWY_UNLIKELY(flagged_vectors != 0)) {  // the scalar block from the old c of each flagged lane
      HWY_ALIGN float buf[MR * NV * (HWY_MAX_BYTES / 8)];
      StoreC(C, buf);
      for (std::size_t i = 0; i < MR * NV; ++i) {
        if (!((flagged_vectors >> i) & 1)) continue;
        const std::size_t r = i / NV, j = j0 + (i % NV) * N;
        for (std::size_t l = 0; l < N; ++l)
          if ((bits[i][l / 8] >> (l % 8)) & 1 && j + l < T.valid)
            buf[i * N + l] = std::bit_cast<float>(
                T.fallback(T.ctx, r0 + r, j + l, pos, len, std::bit_cast<std::uint32_t>(buf[i * N + l])));
      }
      for (std::size_t r = 0; r < MR; ++r)
        for (std::size_t v = 0; v < NV; ++v) C[r][v] = hn::PromoteTo(d, hn::Load(dhf, buf + (r * NV + v) * N));
    }
  };
  bool zeros_pending = false;  // zeros of a run not yet made +0
  std::size_t bi = 0;
  while (bi < nb) {
    const std::size_t begin = bi;
    std::size_t end = bi;
    if constexpr (kPositiveZero) {
      // M (as its bits: NaN and Inf above every bound) and c's least last-bit exponent: the
      // least of 2 |bits| - 1 over the lanes (a zero gives all ones) has the least exponent
      // field of the nonzero lanes, or one less.
      VI mx = hn::Zero(di);
      hn::Vec<DU> mn = hn::Set(du, ~std::uint64_t{0});
      const hn::Vec<DU> one = hn::Set(du, 1);
      for (std::size_t r = 0; r < MR; ++r)
        for (std::size_t v = 0; v < NV; ++v) {
          const auto b = hn::BitCast(du, C[r][v]);
          mx = hn::Max(mx, hn::BitCast(di, hn::ShiftRight<1>(hn::ShiftLeft<1>(b))));
          mn = hn::Min(mn, hn::Sub(hn::ShiftLeft<1>(b), one));
        }
      // M < 2^(m_e + 1) (m_e: M's binary64 exponent; NaN/Inf: 1024).
      const int m_e = static_cast<int>(hn::GetLane(hn::MaxOfLanes(di, mx)) >> 52) - 1023;
      const int e_min = static_cast<int>(hn::GetLane(hn::MinOfLanes(du, mn)) >> 53);
      int U = std::min(std::max(e_min - 1023 - 23, -149), 74), h = -1000;
      while (end < nb && end - bi < kMaxSegment) {
        const int u = std::min(U, rs[end].lo + cs[end].lo);
        const int hn2 = std::max(h, std::min(rs[end].hi + cs[end].hi, 1000));
        // M + P < 2^(m_e + 1) + (end + 1 - bi) 2^(hn2 + 2 + lk) <= 2^(u + 52) + 2^(u + 51)
        const int ls = static_cast<int>(std::bit_width(end - bi));  // 2^ls >= end + 1 - bi
        if (u < -149 || m_e > u + 51 || hn2 + 2 + lk + ls > u + 51) break;
        U = u, h = hn2, ++end;
      }
      if (end > bi) {  // the run, c in registers of its own: no test per block
        VD R[MR][NV];
        for (std::size_t r = 0; r < MR; ++r)
          for (std::size_t v = 0; v < NV; ++v) R[r][v] = C[r][v];
        // Local pointers and strides: the loop keeps no field of T or capture in memory.
        const std::size_t k = T.k, K = T.K, ldb = T.ldb, lda = T.lda;
        const double* bp = T.b_d + bi * k * ldb + j0;
        const double* ap = a + bi * k;
        for (; bi < end; ++bi, bp += k * ldb, ap += k) {
          const std::size_t len = std::min(k, K - bi * k);
          const auto product = [&](std::size_t t) {
            VD vb[NV];
            for (std::size_t v = 0; v < NV; ++v) vb[v] = hn::LoadU(d, bp + t * ldb + v * N);
            for (std::size_t r = 0; r < MR; ++r) {
              const VD va = hn::Set(d, ap[r * lda + t]);
              for (std::size_t v = 0; v < NV; ++v) R[r][v] = hn::MulAdd(va, vb[v], R[r][v]);
            }
          };
          if (KB != 0 && len == KB) Unrolled(std::make_index_sequence<KB>(), [&](auto t) { product(t); });
          else for (std::size_t t = 0; t < len; ++t) product(t);
          for (std::size_t r = 0; r < MR; ++r)
            for (std::size_t v = 0; v < NV; ++v)
              if constexpr (KB == 2) R[r][v] = RoundToBinary32InRun(R[r][v]);  // bf16: see its comment
              else R[r][v] = hn::PromoteTo(d, hn::DemoteTo(dhf, R[r][v]));
        }
        for (std::size_t r = 0; r < MR; ++r)
          for (std::size_t v = 0; v < NV; ++v) C[r][v] = R[r][v];
        zeros_pending = true;
      }
    }
    if (end == begin) {
      if (zeros_pending) positive_zeros(), zeros_pending = false;
      block_lanes(bi++);
    }
  }
  if (zeros_pending) positive_zeros();
  HWY_ALIGN float buf[MR * NV * (HWY_MAX_BYTES / 8)];
  StoreC(C, buf);
  for (std::size_t r = 0; r < MR; ++r) std::copy_n(buf + r * NV * N, NV * N, T.acc + (r0 + r) * T.ldc + j0);
}

template <std::size_t MR, std::size_t NV, std::size_t KB, bool kPositiveZero>
HWY_INLINE void Rows(const ExactChainTile& T, std::size_t r0, std::size_t j0, const Summary* rs, const Summary* cs) {
  switch (std::min(MR, T.rows - r0)) {
    case 8: if constexpr (MR >= 8) ExactChainMicro<8, NV, KB, kPositiveZero>(T, r0, j0, rs, cs); break;
    case 7: if constexpr (MR >= 7) ExactChainMicro<7, NV, KB, kPositiveZero>(T, r0, j0, rs, cs); break;
    case 6: if constexpr (MR >= 6) ExactChainMicro<6, NV, KB, kPositiveZero>(T, r0, j0, rs, cs); break;
    case 5: if constexpr (MR >= 5) ExactChainMicro<5, NV, KB, kPositiveZero>(T, r0, j0, rs, cs); break;
    case 4: if constexpr (MR >= 4) ExactChainMicro<4, NV, KB, kPositiveZero>(T, r0, j0, rs, cs); break;
    case 3: if constexpr (MR >= 3) ExactChainMicro<3, NV, KB, kPositiveZero>(T, r0, j0, rs, cs); break;
    case 2: if constexpr (MR >= 2) ExactChainMicro<2, NV, KB, kPositiveZero>(T, r0, j0, rs, cs); break;
    default: ExactChainMicro<1, NV, KB, kPositiveZero>(T, r0, j0, rs, cs); break;
  }
}

// Rows per micro-tile: 8 x 2 vectors of c (16 of AVX-512's 32 registers; B's loads shared by
// twice the rows) where the registers allow, else 4 x 2.
constexpr std::size_t kMR = HWY_TARGET <= HWY_AVX3 ? 8 : 4;

template <std::size_t KB, bool kPositiveZero>
void ExactChainG(const ExactChainTile& T) {
  const std::size_t N = hn::Lanes(D()), nb = (T.K + T.k - 1) / T.k, groups = (T.rows + kMR - 1) / kMR;
  // The summaries of every row group (kMR rows) and, per strip, of its columns, block by block.
  std::vector<Summary> rs(groups * nb), cs(nb);
  for (std::size_t g = 0; g < groups; ++g)
    for (std::size_t b = 0; b < nb; ++b) {
      Summary s{kTileZeroHi, kTileZeroLo};
      for (std::size_t r = kMR * g; r < std::min(T.rows, kMR * g + kMR); ++r)
        s.hi = std::max(s.hi, T.a_hi[r * T.lde + b]), s.lo = std::min(s.lo, T.a_lo[r * T.lde + b]);
      rs[g * nb + b] = s;
    }
  const auto strip = [&](std::size_t j0, std::size_t nv) {  // from the 8-column granules it overlaps
    for (std::size_t b = 0; b < nb; ++b) cs[b] = {kTileZeroHi, kTileZeroLo};
    for (std::size_t g = j0 / 8; g <= (j0 + nv * N - 1) / 8; ++g)
      for (std::size_t b = 0; b < nb; ++b)
        cs[b].hi = std::max(cs[b].hi, T.b8_hi[g * nb + b]), cs[b].lo = std::min(cs[b].lo, T.b8_lo[g * nb + b]);
  };
  std::size_t j0 = 0;
  for (; j0 + 2 * N <= T.w; j0 += 2 * N) {  // columns outermost: B's strip stays in cache over the rows
    if (kPositiveZero) strip(j0, 2);
    for (std::size_t r0 = 0; r0 < T.rows; r0 += kMR)
      Rows<kMR, 2, KB, kPositiveZero>(T, r0, j0, rs.data() + r0 / kMR * nb, cs.data());
  }
  for (; j0 < T.w; j0 += N) {
    if (kPositiveZero) strip(j0, 1);
    for (std::size_t r0 = 0; r0 < T.rows; r0 += kMR)
      Rows<kMR, 1, KB, kPositiveZero>(T, r0, j0, rs.data() + r0 / kMR * nb, cs.data());
  }
}

template <bool kPositiveZero>
void ExactChainK(const ExactChainTile& T) {  // the built-in rows' k (mi100: 4 and 2) unrolled
  if (T.k == 4) ExactChainG<4, kPositiveZero>(T);
  else if (T.k == 2) ExactChainG<2, kPositiveZero>(T);
  else ExactChainG<0, kPositiveZero>(T);
}

void ExactBlockChain(const ExactChainTile& T) {
  if (T.positive_zero) ExactChainK<true>(T);
  else ExactChainK<false>(T);
}

}  // namespace tcsim::amd_lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tcsim::amd_lanes {

HWY_EXPORT(ExactBlockChain);

void exact_block_chain(const ExactChainTile& t) { HWY_DYNAMIC_DISPATCH(ExactBlockChain)(t); }

}  // namespace tcsim::amd_lanes
#endif
