// The exact-block (AMD CDNA1) GEMM chain with c in registers (see amd_chain.hpp:
// ExactChainTile), compiled once per SIMD target by Google Highway and chosen at run time.
//
// Per block of an output, as the former per-block register tiles (exact_block_tile): c plus the block's
// products by fused multiply-adds in binary64 lanes (or an exact product and an add where the
// target has no FMA). Every term is a multiple of 2^U and below 2^(H+1): H = max(hi_a + hi_b + 1,
// e_c), U = min(lo_a + lo_b, lo_c), from the block's exponent summaries of the row and the
// column (largest leading and least last-bit exponents of their nonzero operands) and c's
// (binary64 exponent; last bit at most 23 below it; none for a zero c). With H - U <=
// span_limit = 52 - ceil(log2(k + 1)) the k + 1 terms and every partial sum are multiples of
// 2^U below 2^(U+53): each operation is exact, the binary64 result is the exact sum, and one
// DemoteTo rounds it to binary32 (RNE, subnormals kept). The new c is that binary32 value,
// kept in a binary64 register (PromoteTo is exact). Flagged (the scalar block redoes the lane
// from its old c, then the chain continues): H - U beyond the limit (NaN/Inf operands raise
// their sentinels there), sums that are not finite or round to binary32 Inf, zero sums without
// the +0 rule (their sign needs the reference's rule).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "exact_chain.cpp"
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

// MR rows x NV vectors of outputs, c in registers over the whole chain; blocks of KB products
// unrolled (KB = 0: any k).
template <std::size_t MR, std::size_t NV, std::size_t KB, bool kPositiveZero>
void ExactChainMicro(const ExactChainTile& T, std::size_t r0, std::size_t j0) {
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
  std::size_t start = 0, bi = 0;  // bi: the block's index (blocks start at multiples of k)
  do {
    const std::size_t end = std::min(T.K, start + T.group);
    std::size_t pos = start;
    do {
      const std::size_t len = std::min(T.k, end - pos);
      VD S[MR][NV];
      for (std::size_t r = 0; r < MR; ++r)
        for (std::size_t v = 0; v < NV; ++v) S[r][v] = C[r][v];
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
      pos += len, ++bi;
    } while (pos < end);
    start = end;
  } while (start < T.K);
  HWY_ALIGN float buf[MR * NV * (HWY_MAX_BYTES / 8)];
  StoreC(C, buf);
  for (std::size_t r = 0; r < MR; ++r) std::copy_n(buf + r * NV * N, NV * N, T.acc + (r0 + r) * T.ldc + j0);
}

template <std::size_t MR, std::size_t NV, std::size_t KB, bool kPositiveZero>
HWY_INLINE void Rows(const ExactChainTile& T, std::size_t r0, std::size_t j0) {
  switch (std::min(MR, T.rows - r0)) {
    case 4: if constexpr (MR >= 4) ExactChainMicro<4, NV, KB, kPositiveZero>(T, r0, j0); break;
    case 3: if constexpr (MR >= 3) ExactChainMicro<3, NV, KB, kPositiveZero>(T, r0, j0); break;
    case 2: if constexpr (MR >= 2) ExactChainMicro<2, NV, KB, kPositiveZero>(T, r0, j0); break;
    default: ExactChainMicro<1, NV, KB, kPositiveZero>(T, r0, j0); break;
  }
}

template <std::size_t KB, bool kPositiveZero>
void ExactChainG(const ExactChainTile& T) {
  const std::size_t N = hn::Lanes(D());
  std::size_t j0 = 0;
  for (; j0 + 2 * N <= T.w; j0 += 2 * N)  // columns outermost: B's strip stays in cache over the rows
    for (std::size_t r0 = 0; r0 < T.rows; r0 += 4) Rows<4, 2, KB, kPositiveZero>(T, r0, j0);
  for (; j0 < T.w; j0 += N)
    for (std::size_t r0 = 0; r0 < T.rows; r0 += 4) Rows<4, 1, KB, kPositiveZero>(T, r0, j0);
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
