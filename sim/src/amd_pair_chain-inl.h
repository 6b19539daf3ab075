// The pair chain (amd_pair_chain.hpp; issue 25, mi300g), compiled inside amd_chain.cpp's
// per-target passes after its definitions: it shares the one-group chain's epilogue
// (`Epilogue`, `Consts`), E pass (`EPass`) and `Unrolled`. Include only from amd_chain.cpp.
//
// Why the sums are right. In a block the caller admits (after_add_spread.cpp), row r's operands
// are a = sig 2^(e_ref - (p_a - 1)) with e_ref in [lo_r, lo_r + sA_r], so a' = a 2^-qa with
// qa = lo_r - (p_a - 1) is the integer sig 2^(e_ref - lo_r) < 2^(p_a + sA_r) <= 2^15 (the caller
// checks sA_r <= 15 - p_a): an int16; likewise b' = b 2^-qb. Each product a'b' is an integer
// below 2^(p_a + p_b + sA + sB) <= 2^(F + 2) = 2^26 (sA + sB <= F - o, o = p_a + p_b - 2), a
// pair of them below 2^27 (vpmaddwd cannot wrap), a block of at most 16 below 2^30: the int32
// sum S' = sum a'b' is exact, and sum ab = S' 2^(qa + qb). Under the same bound every nonzero
// product is a multiple of 2^(e_dot - F) (after_add_spread.cpp), so both datapaths (one group,
// two groups) take the exact sum s = S' 2^(qa + qb + F - e_dot) in units of 2^(e_dot - F), where
// the exponent sh = qa + qb + 24 - e_dot = 24 - o - (e_dot - lo_r - lo_j) >= 24 - o - sA - sB
// >= 0 (e_dot <= hi_r + hi_j), and |s| < 16 2^(2 + 24) = 2^30 (|ab| < 2^(e_dot + 2)), so the
// left shift is exact. e_dot comes from the E pass as in the one-group chain (zeros raise
// nothing; a NaN/Inf operand's sentinel flags the lane, which the scalar block redoes with the
// row's own two-group datapath). s and e_dot are what the one-group chain hands its epilogue.
#if defined(TCSIM_AMD_PAIR_CHAIN_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TCSIM_AMD_PAIR_CHAIN_INL_H_
#undef TCSIM_AMD_PAIR_CHAIN_INL_H_
#else
#define TCSIM_AMD_PAIR_CHAIN_INL_H_
#endif

#include "amd_pair_chain.hpp"

HWY_BEFORE_NAMESPACE();
namespace tcsim::amd_lanes::HWY_NAMESPACE {

// Per int32 lane: the products of the low int16 halves and of the high halves, added (vpmaddwd
// on x86; |a|, |b| < 2^15 and their pair sum below 2^31 in every use).
template <class DI_>
HWY_INLINE hn::Vec<DI_> PairDot(DI_ di, hn::Vec<DI_> a, hn::Vec<DI_> b) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  constexpr std::size_t kBytes = hn::MaxLanes(DI_()) * sizeof(std::int32_t);
#if HWY_TARGET <= HWY_AVX3
  if constexpr (kBytes == 64) return hn::Vec<DI_>{_mm512_madd_epi16(a.raw, b.raw)};
#endif
#if HWY_TARGET <= HWY_AVX2
  if constexpr (kBytes == 32) return hn::Vec<DI_>{_mm256_madd_epi16(a.raw, b.raw)};
#endif
  if constexpr (kBytes <= 16) return hn::Vec<DI_>{_mm_madd_epi16(a.raw, b.raw)};
#endif
  const hn::RebindToUnsigned<DI_> du;
  auto low = [&](hn::Vec<DI_> v) { return hn::ShiftRight<16>(hn::BitCast(di, hn::ShiftLeft<16>(hn::BitCast(du, v)))); };
  return hn::Add(hn::Mul(low(a), low(b)), hn::Mul(hn::ShiftRight<16>(a), hn::ShiftRight<16>(b)));
}

// MR rows x NV vectors of outputs over the run, c in registers.
template <std::size_t MR, std::size_t NV, bool kRenorm, bool kDrop, bool kPositiveZero>
void PairMicro(const AfterParams& p, const PairChainTile& T, std::size_t r0, std::size_t j0) {
  const DF df;
  const DI di;
  const DU du;
  const std::size_t NF = hn::Lanes(df);
  const Consts k(p);
  VF C[MR][NV];
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t v = 0; v < NV; ++v) C[r][v] = hn::LoadU(df, T.acc + (r0 + r) * T.ldc + j0 + v * NF);
  // The E passes read B's e_refs (negated: N) through a ChainTile (strip-major: ldb = the strip width).
  ChainTile E, N;
  E.b_hi = T.b_hi, E.ldb = T.b_strip, E.lda = T.lda;
  N.b_hi = T.b_n16, N.ldb = T.b_strip, N.lda = T.lda;
  std::size_t be[NV], b2[NV];
  for (std::size_t v = 0; v < NV; ++v) {
    const std::size_t j = T.b_j0 + j0 + v * NF;
    be[v] = j / T.b_strip * T.be_stride + j % T.b_strip;
    b2[v] = j / T.b_strip * T.b2_stride + j % T.b_strip;
  }
  const std::int16_t* ae = T.a_hi + r0 * T.lda;
  const std::int16_t* an = T.a_n16 + r0 * T.lda;
  const float* af = T.a_f + r0 * T.lda;
  const std::int32_t* a2 = T.a2 + r0 * T.lda2;
  const VI max_e = hn::Set(di, 126), used1 = hn::Set(di, kChainZeroHi / 2 + 1), none = hn::Set(di, 24);
  const VU low_span = hn::Set(du, static_cast<std::uint32_t>(24 - 120 - (kChainZeroHi / 2 + 1)));
  const VI bias = hn::Set(di, 127), F = hn::Set(di, 24), max_shift = hn::Set(di, 31), bound = hn::Set(di, T.bound);
  const VI F_bias = hn::Set(di, 24 + 127), lo_field = hn::Set(di, 1), hi_field = hn::Set(di, 254), flag_e = hn::Set(di, 127);
  for (std::size_t pos = 0, block = 0; pos < T.K; pos += T.k, ++block) {
    const std::size_t len = std::min(T.k, T.K - pos);
    const bool pairs = T.mode[block] == 2;
    VI Eg[1][MR][NV], S[MR][NV];
    EPass<MR, NV, 1>(E, ae, pos, len, be, Eg);
    for (std::size_t r = 0; r < MR; ++r)
      for (std::size_t v = 0; v < NV; ++v) S[r][v] = hn::Zero(di);
    if (pairs) {
      // The pair sums S' (module comment); an odd last block's extra product is 0 (the planes'
      // padding). Then s = S' 2^sh.
      for (std::size_t t = pos / 2; t < (pos + len + 1) / 2; ++t) {
        VI vb[NV];
        for (std::size_t v = 0; v < NV; ++v) vb[v] = hn::LoadU(di, T.b2 + t * T.b_strip + b2[v]);
        for (std::size_t r = 0; r < MR; ++r) {
          const VI va = hn::Set(di, a2[r * T.lda2 + t]);
          for (std::size_t v = 0; v < NV; ++v) S[r][v] = hn::Add(S[r][v], PairDot(di, va, vb[v]));
        }
      }
      for (std::size_t v = 0; v < NV; ++v) {
        const VI qb = hn::Add(hn::LoadU(di, T.b_q + block * T.ldq + T.b_j0 + j0 + v * NF), F);
        for (std::size_t r = 0; r < MR; ++r) {
          const VI sh = hn::Sub(hn::Add(hn::Set(di, T.a_q[(r0 + r) * T.lde + block]), qb), Eg[0][r][v]);
          S[r][v] = hn::BitCast(di, hn::BitCast(du, S[r][v]) << hn::BitCast(du, hn::Min(hn::Max(sh, hn::Zero(di)), max_shift)));
        }
      }
    } else {
      // Checked (mode 1): W = e_dot minus the least e_ref(ab) of the lane's nonzero products (the
      // negated e_refs' maximum); where W <= bound every product a b is a multiple of 2^(e_ref(ab)
      // - o), o = p_a + p_b - 2 = F - bound, so of 2^(e_dot - 24): a b 2^(24 - e_dot) is an
      // integer below 2^26, exact in binary32 and in the truncating conversion, and the int32 sum
      // (below 2^30, k <= 16) is the exact s of both datapaths (after_add_spread.cpp); other lanes
      // are flagged (their e_dot set to 127, which the epilogue's range flag takes).
      VI W[1][MR][NV];
      EPass<MR, NV, 1>(N, an, pos, len, be, W);
      VF scale[MR][NV];
      for (std::size_t r = 0; r < MR; ++r)
        for (std::size_t v = 0; v < NV; ++v) {
          // 2^(24 - e_dot), clamped: lanes out of range are flagged below (no product: all zero).
          const VI field = hn::Min(hn::Max(hn::Sub(F_bias, Eg[0][r][v]), lo_field), hi_field);
          scale[r][v] = hn::BitCast(df, hn::ShiftLeft<23>(field));
          Eg[0][r][v] = hn::IfThenElse(hn::Gt(hn::Add(W[0][r][v], Eg[0][r][v]), bound), flag_e, Eg[0][r][v]);
        }
      for (std::size_t t = 0; t < len; ++t) {
        VF vb[NV];
        for (std::size_t v = 0; v < NV; ++v) vb[v] = hn::LoadU(df, T.b_f + (pos + t) * T.b_strip + be[v]);
        for (std::size_t r = 0; r < MR; ++r) {
          const VF va = hn::Set(df, af[r * T.lda + pos + t]);
          for (std::size_t v = 0; v < NV; ++v)
            S[r][v] = hn::Add(S[r][v], Trunc32(di, hn::Mul(hn::Mul(va, vb[v]), scale[r][v])));
        }
      }
    }
    std::uint8_t bits[MR * NV][HWY_MAX_BYTES / 32 + 8];
    std::uint32_t flagged_vectors = 0;
    Unrolled(std::make_index_sequence<MR * NV>(), [&](auto I) {
      constexpr std::size_t r = I / NV, v = I % NV;
      const VI e = Eg[0][r][v];
      // The one-group chain's flags: e_dot > 126 (NaN/Inf sentinels), or a product below -96;
      // no product at all (e below used1): e_dot = -103, as the chain's clamped scale gives.
      hn::Mask<DI> bad = hn::Or(hn::Gt(e, max_e), hn::RebindMask(di, hn::Lt(hn::BitCast(du, hn::Sub(e, used1)), low_span)));
      const VI e_dot = hn::IfThenElse(hn::Lt(e, used1), none, hn::Add(e, bias));
      const VF res = Epilogue<kRenorm, kDrop, kPositiveZero>(k, C[r][v], S[r][v], e_dot, bad);
      if (HWY_UNLIKELY(!hn::AllFalse(di, bad))) {
        flagged_vectors |= std::uint32_t{1} << I;
        hn::StoreMaskBits(di, bad, bits[I]);
        C[r][v] = hn::IfThenElse(hn::RebindMask(df, bad), C[r][v], res);
      } else {
        C[r][v] = res;
      }
    });
    // Flagged lanes kept their old c: the scalar block (the row's two-group datapath) from it.
    for (std::size_t i = 0; HWY_UNLIKELY(flagged_vectors != 0) && i < MR * NV; ++i) {
      if (!((flagged_vectors >> i) & 1)) continue;
      HWY_ALIGN float lane[HWY_MAX_BYTES / 4];
      const std::size_t r = i / NV, v = i % NV, j = j0 + v * NF;
      hn::Store(C[r][v], df, lane);
      for (std::size_t l = 0; l < NF; ++l)
        if ((bits[i][l / 8] >> (l % 8)) & 1 && j + l < T.valid)
          lane[l] = std::bit_cast<float>(T.fallback(T.ctx, r0 + r, j + l, pos, len, std::bit_cast<std::uint32_t>(lane[l])));
      C[r][v] = hn::Load(df, lane);
    }
  }
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t v = 0; v < NV; ++v) hn::StoreU(C[r][v], df, T.acc + (r0 + r) * T.ldc + j0 + v * NF);
}

template <std::size_t NV, bool... kFlags>
HWY_INLINE void PairRows(const AfterParams& p, const PairChainTile& T, std::size_t r0, std::size_t j0) {
#ifdef TCSIM_CHAIN_ROW_TAILS_BY_ONE  // the sanitizer build: as Rows in amd_chain.cpp (rows independent)
  const std::size_t rows = std::min<std::size_t>(4, T.rows - r0);
  if (rows == 4) PairMicro<4, NV, kFlags...>(p, T, r0, j0);
  else
    for (std::size_t r = 0; r < rows; ++r) PairMicro<1, NV, kFlags...>(p, T, r0 + r, j0);
#else
  switch (std::min<std::size_t>(4, T.rows - r0)) {
    case 4: PairMicro<4, NV, kFlags...>(p, T, r0, j0); break;
    case 3: PairMicro<3, NV, kFlags...>(p, T, r0, j0); break;
    case 2: PairMicro<2, NV, kFlags...>(p, T, r0, j0); break;
    default: PairMicro<1, NV, kFlags...>(p, T, r0, j0); break;
  }
#endif
}

template <bool... kFlags>
void PairChainG(const AfterParams& p, const PairChainTile& T) {
  const std::size_t NF = hn::Lanes(DF());
  std::size_t j0 = 0;
  for (; j0 + 2 * NF <= T.w; j0 += 2 * NF)  // columns outermost: B's strip stays in cache over the rows
    for (std::size_t r0 = 0; r0 < T.rows; r0 += 4) PairRows<2, kFlags...>(p, T, r0, j0);
  for (; j0 < T.w; j0 += NF)
    for (std::size_t r0 = 0; r0 < T.rows; r0 += 4) PairRows<1, kFlags...>(p, T, r0, j0);
}

void AfterAddPairChain(const AfterParams& p, const PairChainTile& T) {
  const bool renorm = p.renormalize_bits > 0, drop = p.drop_c_below >= 0;
  if (renorm && drop) p.positive_zero ? PairChainG<true, true, true>(p, T) : PairChainG<true, true, false>(p, T);
  else if (renorm) p.positive_zero ? PairChainG<true, false, true>(p, T) : PairChainG<true, false, false>(p, T);
  else if (drop) p.positive_zero ? PairChainG<false, true, true>(p, T) : PairChainG<false, true, false>(p, T);
  else p.positive_zero ? PairChainG<false, false, true>(p, T) : PairChainG<false, false, false>(p, T);
}

}  // namespace tcsim::amd_lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tcsim::amd_lanes {

HWY_EXPORT(AfterAddPairChain);

void after_add_pair_chain(const AfterParams& p, const PairChainTile& t) {
  HWY_DYNAMIC_DISPATCH(AfterAddPairChain)(p, t);
}

}  // namespace tcsim::amd_lanes
#endif
#endif  // TCSIM_AMD_PAIR_CHAIN_INL_H_
