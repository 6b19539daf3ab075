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

// The chain's e_refs are int16 (a_hi, b_hi): |e_ref| <= 2047 for a finite nonzero operand
// (AfterAddKernel::chain_gemm checks the formats), these sentinels otherwise. Every sum of two fits int16; one with a NaN/Inf
// operand is >= 16000 - 8192 > 126 (flagged), one with a zero and no NaN/Inf <= -8192 + 2047, below
// every sum of two nonzero finite operands (>= -4094) and below -4095, where a lane has no product.
inline constexpr std::int16_t kChainZeroHi = -8192, kChainSpecialHi = 16000;

// One task's chain: rows x w outputs (w a multiple of kPad; columns >= valid are padding),
// K products per output in instructions of `group` products (blocks of k; K >= 1).
// A: a_f[r * lda + t], a_hi (e_ref, kChain* sentinels); B at columns J = b_j0 + j (b_j0 a
// multiple of kPad): b_f[t * ldb + J], b_hi, or with b_strip != 0 strip-major:
// b_f[(J / b_strip) * b_strip_stride + t * ldb + J % b_strip] (ldb = b_strip, a multiple of
// chain_strip_width()).
// acc[r * ldc + j] holds c on entry and d on exit (binary32). fallback(ctx, r, j, pos, len, c)
// is the scalar block at output (r, j) for products pos..pos+len with accumulator bits c.
struct ChainTile {
  std::size_t rows = 0, w = 0, valid = 0, K = 0, k = 0, group = 0;
  const float* a_f = nullptr;
  const std::int16_t* a_hi = nullptr;
  std::size_t lda = 0;
  const float* b_f = nullptr;
  const std::int16_t* b_hi = nullptr;
  std::size_t ldb = 0, b_j0 = 0, b_strip = 0, b_strip_stride = 0;
  float* acc = nullptr;
  std::size_t ldc = 0;
  std::uint32_t (*fallback)(const void* ctx, std::size_t r, std::size_t j, std::size_t pos, std::size_t len,
                            std::uint32_t c) = nullptr;
  const void* ctx = nullptr;
};

// The strip width for ChainTile::b_strip: twice the most lanes of binary32 any compiled target
// has (32 on x86), so a micro-tile's two vectors never straddle a strip; 0 (row-major) where the
// vectors are scalable.
std::size_t chain_strip_width();

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
  const std::int32_t *b8_hi = nullptr, *b8_lo = nullptr;  // per 8 columns: b8_*[(j / 8) * blocks + block]
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
