// Private to sim/src: the after-add (AMD CDNA3) GEMM chain on register tiles with c kept in
// registers across the whole chain of blocks, and the addition of c, the floors, the
// renormalization and the rounding in int32/binary32 lanes (amd_chain.cpp, compiled once per
// Highway target; issue 25). Lanes the int32 epilogue cannot decide go to the caller's scalar
// block, one lane at a time, and the chain continues from its result.
#pragma once
#include <cstddef>
#include <cstdint>

#include "amd_lanes.hpp"

namespace tcsim::amd_lanes {

// One task's chain: rows x w outputs (w a multiple of kPad; columns >= valid are padding),
// K products per output in instructions of `group` products (blocks of k; K >= 1).
// A: a_f[r * lda + t], a_hi (e_ref, amd_lanes.hpp sentinels); B: b_f[t * ldb + j], b_hi.
// acc[r * ldc + j] holds c on entry and d on exit (binary32). fallback(ctx, r, j, pos, len, c)
// is the scalar block at output (r, j) for products pos..pos+len with accumulator bits c.
struct ChainTile {
  std::size_t rows = 0, w = 0, valid = 0, K = 0, k = 0, group = 0;
  const float* a_f = nullptr;
  const std::int32_t* a_hi = nullptr;
  std::size_t lda = 0;
  const float* b_f = nullptr;
  const std::int32_t* b_hi = nullptr;
  std::size_t ldb = 0;
  float* acc = nullptr;
  std::size_t ldc = 0;
  std::uint32_t (*fallback)(const void* ctx, std::size_t r, std::size_t j, std::size_t pos, std::size_t len,
                            std::uint32_t c) = nullptr;
  const void* ctx = nullptr;
};

// Whether after_add_chain serves these parameters (the tiles' conditions, plus F = c_bits = 24,
// sum floored at 28..40 bits, no renormalization or one at >= max(30, sum_bits - 1) bits, and
// the groups' combined sum below 2^30 units: groups * ceil(k / groups) * 2^26 <= 2^30).
bool after_add_chain_supported(const AfterParams& p, std::size_t k);
void after_add_chain(const AfterParams& p, const ChainTile& t);

// The exact-block (AMD CDNA1) GEMM chain with c in registers (exact_chain.cpp; issue 25,
// i25mi100): the binary64 register tiles (binary64 values a_d, b_d; the per-block
// exponent summaries a_hi[r * lde + block], a_lo, b_hi[block * ldb + j], b_lo, blocks of k
// aligned at multiples of k) over the whole chain of blocks. acc, fallback, ctx as ChainTile's.
struct ExactChainTile {
  std::size_t rows = 0, w = 0, valid = 0, K = 0, k = 0, group = 0;
  const double* a_d = nullptr;
  const std::int32_t *a_hi = nullptr, *a_lo = nullptr;
  std::size_t lda = 0, lde = 0;
  const double* b_d = nullptr;
  const std::int32_t *b_hi = nullptr, *b_lo = nullptr;
  std::size_t ldb = 0;
  float* acc = nullptr;
  std::size_t ldc = 0;
  int span_limit = 0;  // 52 - ceil(log2(k + 1)): terms within it sum exactly
  bool positive_zero = false;
  std::uint32_t (*fallback)(const void* ctx, std::size_t r, std::size_t j, std::size_t pos, std::size_t len,
                            std::uint32_t c) = nullptr;
  const void* ctx = nullptr;
};
void exact_block_chain(const ExactChainTile& t);

}  // namespace tcsim::amd_lanes
