// Private to sim/src: the tile chains' E pass from per-block maxima of the operands' e_refs
// (issue 25, branch h100m; block_tile_chain.cpp), included once per Highway target.
//
// Per block and output the chain needs E = max(c's e_ref, max_t (ea_t + eb_t)), which the
// product loop computes in int16 lanes (per product and row: broadcast, add, max). With
// amax = max_t ea_t (row of A), bmax = max_t eb_t (column of B) and the positions t attaining
// them (bits of amask, bmask; a block of at most 16 products), every ea_t + eb_t <= amax + bmax,
// with equality at a t in amask & bmask. So in a lane where amask & bmask != 0, or where
// c's e_ref >= amax + bmax, max(c's e_ref, amax + bmax) is the product loop's E, bit for bit.
// Pure integer identities: they hold for the sentinels too (zeros kTileZero16, NaN/Inf
// kTileSpecial16, c's e_ref clamped to +-30000), since no sum wraps: operand e_refs lie in
// [kTileZero16, kTileSpecial16] = [-6000, 12000], so amax + bmax and each ea_t + eb_t lie in
// [-12000, 24000], as the product loop's sums do. Lanes with neither condition (the maxima
// at different positions and c below the bound) need the product loop.
#if defined(TCSIM_SIM_BLOCK_TILE_EMAX_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TCSIM_SIM_BLOCK_TILE_EMAX_INL_H_
#undef TCSIM_SIM_BLOCK_TILE_EMAX_INL_H_
#else
#define TCSIM_SIM_BLOCK_TILE_EMAX_INL_H_
#endif

#include <hwy/highway.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "tcsim/sim/block_kernel.hpp"  // TileChainMaxima

HWY_BEFORE_NAMESPACE();
namespace tcsim::lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Blocks of this many products use the maxima (one bit per position in 16-bit masks). Not
// shorter blocks: at k = 4 and 8 (v100 fp16, a100 bf16 and tf32) the maxima left the product
// loop to 36-54 % of the micro-tiles' blocks in bench gemm's GEMMs, and the chains ran slower
// (docs/performance.md, h100m).
constexpr std::size_t kMaximaBlock = 16;

// A micro-tile's maxima over a chunk of K, its block q: row r's at a_max[r * a_stride + q],
// a_mask[...]; the lanes' at b_max + q * Lanes, b_mask + q * Lanes. a_max null: none (the
// product loop in every block). The GEMM's struct (block_kernel.hpp), pointed at one
// micro-tile and chunk (b_stride, lanes and block unused here).
using ChainMaxima = tcsim::TileChainMaxima;

// The largest of len e_refs at e and the positions attaining it (bit t).
inline void BlockMaximum(const std::int16_t* e, std::size_t len, std::int16_t& top, std::uint16_t& bits) {
  top = e[0];
  for (std::size_t t = 1; t < len; ++t) top = std::max(top, e[t]);
  bits = 0;
  for (std::size_t t = 0; t < len; ++t) bits = static_cast<std::uint16_t>(bits | ((e[t] == top) << t));
}

// RowMaxima's whole blocks of kB products in one vector each (where a vector holds kB int16
// lanes; false elsewhere), a shorter last block by BlockMaximum.
template <std::size_t kB>
HWY_INLINE bool RowMaximaVector(const std::int16_t* a_eref, std::size_t lda, std::size_t rows, std::size_t K,
                                std::int16_t* amax, std::uint16_t* amask) {
  const hn::CappedTag<std::int16_t, kB> d;
  if (hn::Lanes(d) != kB) return false;
  const std::size_t nq = (K + kB - 1) / kB, whole = K / kB;
  for (std::size_t i = 0; i < rows; ++i) {
    const std::int16_t* e = a_eref + i * lda;
    for (std::size_t q = 0; q < whole; ++q) {
      const auto v = hn::LoadU(d, e + q * kB);
      const auto top = hn::MaxOfLanes(d, v);
      std::uint8_t bits[8] = {};
      hn::StoreMaskBits(d, hn::Eq(v, top), bits);
      amax[i * nq + q] = hn::GetLane(top);
      amask[i * nq + q] = static_cast<std::uint16_t>(bits[0] | (bits[1] << 8));
    }
    if (whole < nq) BlockMaximum(e + whole * kB, K - whole * kB, amax[i * nq + whole], amask[i * nq + whole]);
  }
  return true;
}

// Row i of A (e_refs at a_eref[i * lda + t], t < K), block q (products q * block .. up to K):
// the largest e_ref at amax[i * nq + q], the positions attaining it at amask[i * nq + q],
// nq = ceil(K / block) blocks per row.
inline void RowMaxima(const std::int16_t* a_eref, std::size_t lda, std::size_t rows, std::size_t K, std::size_t block,
                      std::int16_t* amax, std::uint16_t* amask) {
  if (block == kMaximaBlock && RowMaximaVector<kMaximaBlock>(a_eref, lda, rows, K, amax, amask)) return;
  const std::size_t nq = (K + block - 1) / block;
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t q = 0; q < nq; ++q)
      BlockMaximum(a_eref + i * lda + q * block, std::min(block, K - q * block), amax[i * nq + q], amask[i * nq + q]);
}

// The same for the Lanes(d16) columns of B at b_eref (row t at b_eref + t * ldb), K products:
// block q's lanes at bmax + q * Lanes(d16), bmask + q * Lanes(d16).
template <class D16>
HWY_INLINE void ColumnMaxima(D16 d16, const std::int16_t* b_eref, std::size_t ldb, std::size_t K, std::size_t block,
                             std::int16_t* bmax, std::uint16_t* bmask) {
  const hn::RebindToUnsigned<D16> du16;
  const std::size_t NL = hn::Lanes(d16);
  for (std::size_t p = 0, q = 0; p < K; p += block, ++q) {
    const std::size_t len = std::min(block, K - p);
    const std::int16_t* e = b_eref + p * ldb;
    auto top = hn::LoadU(d16, e);
    for (std::size_t t = 1; t < len; ++t) top = hn::Max(top, hn::LoadU(d16, e + t * ldb));
    auto bits = hn::Zero(du16);
    for (std::size_t t = 0; t < len; ++t)
      bits = hn::Or(bits, hn::IfThenElseZero(hn::RebindMask(du16, hn::Eq(hn::LoadU(d16, e + t * ldb), top)),
                                             hn::Set(du16, static_cast<std::uint16_t>(1u << t))));
    hn::StoreU(top, d16, bmax + q * NL);
    hn::StoreU(bits, du16, bmask + q * NL);
  }
}

// One block's E16[r] = max(ce[r], amax_r + bmax) for MR rows (row r's maxima at
// a_max[r * a_stride], a_mask[...]; the lanes' at b_max, b_mask). Returns the rows (bit r) in
// which some lane, a padding one too, is not decided by the maxima (see the top of this
// file): the caller runs the product loop for those rows.
template <std::size_t MR, class D16>
HWY_INLINE unsigned EFromMaxima(D16 d16, const hn::Vec<D16> (&ce)[MR], const std::int16_t* a_max,
                                const std::uint16_t* a_mask, std::size_t a_stride, const std::int16_t* b_max,
                                const std::uint16_t* b_mask, hn::Vec<D16> (&E16)[MR]) {
  const hn::RebindToUnsigned<D16> du16;
  const auto bm = hn::LoadU(d16, b_max);
  const auto bk = hn::LoadU(du16, b_mask);
  unsigned missed = 0;
  for (std::size_t r = 0; r < MR; ++r) {
    const auto bound = hn::Add(hn::Set(d16, a_max[r * a_stride]), bm);
    const auto shared = hn::Ne(hn::And(bk, hn::Set(du16, a_mask[r * a_stride])), hn::Zero(du16));
    const auto miss = hn::AndNot(hn::RebindMask(d16, shared), hn::Lt(ce[r], bound));
    missed |= hn::AllFalse(d16, miss) ? 0u : 1u << r;
    E16[r] = hn::Max(ce[r], bound);
  }
  return missed;
}

}  // namespace tcsim::lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // include guard
