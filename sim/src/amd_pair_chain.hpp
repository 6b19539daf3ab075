// Private to sim/src: the two-group after-add rows (mi300x fp8: even/odd product groups) on a
// chain whose product sums are integer pair dot products (issue 25, mi300g): blocks in which
// AfterAddKernel::gemm_tile proved that no product loses a bit (after_add_spread.cpp) take their
// operands as int16 integers scaled per row or column and block, two products per int32 lane
// (x86: one vpmaddwd per pair of products and vector), then the one-group chain's epilogue
// (amd_chain.cpp, c in registers); blocks whose spreads exceed the bound by little run the
// one-group chain's products with a check per lane. The kernel: amd_pair_chain-inl.h, compiled
// inside amd_chain.cpp's per-target passes.
#pragma once
#include <cstddef>
#include <cstdint>

#include "amd_lanes.hpp"

namespace tcsim::amd_lanes {

// One task's run of blocks: rows x w outputs (w a multiple of kPad; columns >= valid are
// padding), K products per output in blocks of k (k even; the run starts at a multiple of k).
// A: a2[r * lda2 + t / 2] holds products t and t + 1 of row r as int16 halves (low: t), the
// integer a 2^-qa with qa = a_q[r * lde + block] (block = t / k, counted from the run's first
// block); a_hi[r * lda + t] the e_ref in int16 (amd_chain.hpp's kChain* sentinels).
// B at columns J = b_j0 + j (b_j0 a multiple of kPad), strip-major with strips of b_strip
// columns (a multiple of 2 x the widest vector): the pair plane b2[(J / b_strip) * b2_stride +
// (t / 2) * b_strip + J % b_strip], the e_refs b_hi[(J / b_strip) * be_stride + t * b_strip +
// J % b_strip], and b_q[block * ldq + J] the unit exponent qb of the block's column.
// mode[block]: 2 for a block on the pairs; 1 for a checked block: the one-group chain's products
// a b 2^(24 - e_dot) truncated to int32 (a_f[r * lda + t]; b_f, b_n16 strip-major as b_hi), every
// lane whose e_dot minus its least e_ref(ab) (from the negated e_refs a_n16, b_n16) exceeds
// `bound` (F - o) flagged to the scalar block.
// acc, fallback, ctx: as ChainTile's (amd_chain.hpp).
struct PairChainTile {
  std::size_t rows = 0, w = 0, valid = 0, K = 0, k = 0;
  const std::uint8_t* mode = nullptr;
  const float *a_f = nullptr, *b_f = nullptr;
  const std::int16_t *a_n16 = nullptr, *b_n16 = nullptr;
  int bound = 0;
  const std::int32_t* a2 = nullptr;
  const std::int16_t* a_hi = nullptr;
  const std::int32_t* a_q = nullptr;
  std::size_t lda2 = 0, lda = 0, lde = 0;
  const std::int32_t* b2 = nullptr;
  const std::int16_t* b_hi = nullptr;
  const std::int32_t* b_q = nullptr;
  std::size_t b_j0 = 0, b_strip = 0, b2_stride = 0, be_stride = 0, ldq = 0;
  float* acc = nullptr;
  std::size_t ldc = 0;
  std::uint32_t (*fallback)(const void* ctx, std::size_t r, std::size_t j, std::size_t pos, std::size_t len,
                            std::uint32_t c) = nullptr;
  const void* ctx = nullptr;
};

// The chain over the run (AfterParams of one group; the caller proved every block equal to the
// one-group datapath and its pair sums within int32: after_add_spread.cpp).
void after_add_pair_chain(const AfterParams& p, const PairChainTile& t);

}  // namespace tcsim::amd_lanes
