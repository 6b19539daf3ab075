// The blocks' maxima of the tile chains' E pass made once per GEMM (block_tile_chain.hpp:
// block_tile_row_maxima, block_tile_column_maxima; issue 25, branch h100n). The chain computed
// them per call (block_tile_chain.cpp), so every task of 16 rows re-read B's e_refs of its
// panel, from L3, to find the same columns' maxima (h100m's profile: about 13 % of the chain).
// Here the GEMM driver makes them beside B's strip-major copy; the chain only reads them.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "block_tile_emax.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>

#include "block_tile_chain.hpp"
#include "block_tile_emax-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tcsim::lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The chain's condition for the maxima (block_tile_chain.cpp, run_add's `maxima`), and its
// strip width: two vectors of binary32 lanes, one of int16 lanes. The scalar target has no
// chains.
std::size_t ChainMaximaLanes(const LaneParams& p, std::size_t block) {
  if (HWY_TARGET == HWY_SCALAR || block != kMaximaBlock || block > tile_chunk_len(p.fraction_bits)) return 0;
  return hn::Lanes(hn::Repartition<std::int16_t, hn::ScalableTag<float>>());
}

// Both write nothing where ChainMaximaLanes is 0 for the target (the scalar one).
void ChainRowMaxima(std::size_t rows, std::size_t K, std::size_t block, const std::int16_t* a_eref, std::size_t lda,
                    std::int16_t* a_max, std::uint16_t* a_mask) {
#if HWY_TARGET != HWY_SCALAR
  RowMaxima(a_eref, lda, rows, K, block, a_max, a_mask);
#else
  (void)rows, (void)K, (void)block, (void)a_eref, (void)lda, (void)a_max, (void)a_mask;
#endif
}

void ChainColumnMaxima(std::size_t K, std::size_t block, const std::int16_t* b_eref, std::size_t ldb,
                       std::int16_t* b_max, std::uint16_t* b_mask) {
#if HWY_TARGET != HWY_SCALAR
  ColumnMaxima(hn::Repartition<std::int16_t, hn::ScalableTag<float>>(), b_eref, ldb, K, block, b_max, b_mask);
#else
  (void)K, (void)block, (void)b_eref, (void)ldb, (void)b_max, (void)b_mask;
#endif
}

}  // namespace tcsim::lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tcsim::lanes {

HWY_EXPORT(ChainMaximaLanes);
HWY_EXPORT(ChainRowMaxima);
HWY_EXPORT(ChainColumnMaxima);

std::size_t block_tile_chain_maxima_lanes(const LaneParams& p, std::size_t block) {
  return HWY_DYNAMIC_DISPATCH(ChainMaximaLanes)(p, block);
}

void block_tile_row_maxima(std::size_t rows, std::size_t K, std::size_t block, const std::int16_t* a_eref,
                           std::size_t lda, std::int16_t* a_max, std::uint16_t* a_mask) {
  HWY_DYNAMIC_DISPATCH(ChainRowMaxima)(rows, K, block, a_eref, lda, a_max, a_mask);
}

void block_tile_column_maxima(std::size_t K, std::size_t block, const std::int16_t* b_eref, std::size_t ldb,
                              std::int16_t* b_max, std::uint16_t* b_mask) {
  HWY_DYNAMIC_DISPATCH(ChainColumnMaxima)(K, block, b_eref, ldb, b_max, b_mask);
}

}  // namespace tcsim::lanes
#endif
