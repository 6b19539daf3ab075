// Private to sim/src: the SIMD lanes of the AMD kernels (after_add.cpp: CDNA3, c added after
// the products; exact_block.cpp: CDNA1, exact blocks), in binary64 lanes across output
// elements, each element keeping its scalar sequence of operations (amd_lanes.cpp, compiled
// once per Highway target and chosen at run time). A lane that cannot be sure of its result
// (NaN/Inf, zero results with a signed zero rule, products near 2^128, binary32 overflow, an
// exact sum the double-double cannot hold) is flagged; the caller runs the scalar kernel there.
#pragma once
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tcsim::amd_lanes {

// Every plane the lanes read or write is padded to a multiple of this many elements (more than
// any x86 vector of binary64 lanes holds).
inline constexpr std::size_t kPad = 16;
inline std::size_t padded(std::size_t n) { return (n + kPad - 1) / kPad * kPad; }

// One block FMA of `len` products for rows x w outputs (w a multiple of kPad).
// Operand t of output (r, j): A's a_val[r * lda + t] (broadcast over j) or, with a_per_lane
// (rows == 1), a_val[t * ldb + j]; B's b_val[t * ldb + j]. The value (NaN for NaN/Inf operands)
// and, for the after-add lanes, inv = 2^-e_ref (+Inf for zero operands). c[r * ldc + j] is the
// binary32 accumulator; out (same layout) gets the results of the lanes not flagged in fix.
struct Block {
  std::size_t rows = 1, w = 0, len = 0;
  const double *a_val = nullptr, *a_inv = nullptr;
  std::size_t lda = 0;
  bool a_per_lane = false;
  const double *b_val = nullptr, *b_inv = nullptr;
  std::size_t ldb = 0;
  const float* c = nullptr;
  float* out = nullptr;
  std::uint8_t* fix = nullptr;
  std::size_t ldc = 0;
};

// The after-add datapath (after_add.hpp) with its parameters as the lanes need them.
struct AfterParams {
  int fraction_bits = 24, groups = 1, sum_bits = 32, c_bits = 24;
  int renormalize_bits = 0;  // 0: none
  int drop_c_below = -1;     // -1: never
  bool positive_zero = true; // zero_sign Positive: an exact zero result is +0 in the lanes
};

// Both return whether any lane was flagged.
bool after_add_block(const AfterParams& p, const Block& b);
bool exact_block_block(bool positive_zero, const Block& b);

// The GEMM register tiles (issue 25): blocks of up to 4 rows of A x 2 vectors of B's columns
// in registers. Operands as binary32 values (after-add: products exact in binary32, truncated
// to int32 units) or binary64 values (exact-block: one fused multiply-add chain), with their
// exponents in int32 planes: hi = e_ref (the leading exponent; for subnormals emin), lo = the
// exponent of the last significand bit (exact-block only); zeros and NaN/Inf get the sentinels
// below, so that a maximum or minimum skips zeros and a NaN/Inf raises a flag for sure.
inline constexpr std::int32_t kTileZeroHi = -(1 << 20), kTileZeroLo = 1 << 20;
inline constexpr std::int32_t kTileSpecialHi = 1 << 24, kTileSpecialLo = -(1 << 24);

struct TileBlock {
  std::size_t rows = 1, w = 0, len = 0;  // w: a multiple of kPad
  const float* a_f = nullptr;
  const std::int32_t* a_hi = nullptr;
  std::size_t lda = 0;
  const float* b_f = nullptr;
  const std::int32_t* b_hi = nullptr;
  std::size_t ldb = 0;
  const float* c = nullptr;
  float* out = nullptr;
  std::uint8_t* fix = nullptr;  // all lanes written when the call returns true
  std::size_t ldc = 0;
};

// after_add_block on the tiles (a_f, a_hi, b_f, b_hi): requires groups 1 or 2, products of
// operands of at most 12 significand bits, (k / groups) 2^(F + 2) < 2^31.
bool after_add_tile(const AfterParams& p, const TileBlock& b);
// exact-block's register tiles: exact_block_chain (amd_chain.hpp), c in registers over the chain.

// The chain of block FMAs of a GEMM tile (Unit::gemm) or of dot_batch on the lanes:
// instructions of `group` products (the whole K without one), blocks of k; K = 0 runs one
// block. acc (rows x w, ld w) holds c on entry and the results on exit, as binary32 patterns
// stored in floats. fallback(r, j, pos, len, c_bits) is the scalar kernel's block at (r, j).
template <class Step, class Fallback>
void chain(std::size_t rows, std::size_t w, std::size_t valid, std::size_t K, std::size_t k, std::size_t group,
           float* acc, const Step& step, const Fallback& fallback) {
  thread_local std::vector<float> out;
  thread_local std::vector<std::uint8_t> fix;
  out.resize(rows * w);
  fix.resize(rows * w);
  float* cur = acc;
  float* nxt = out.data();
  std::size_t start = 0;
  do {
    const std::size_t end = std::min(K, start + group);
    std::size_t pos = start;
    do {
      const std::size_t len = std::min(k, end - pos);
      if (step(pos, len, cur, nxt, fix.data()))
        for (std::size_t r = 0; r < rows; ++r)
          for (std::size_t j = 0; j < valid; ++j)
            if (fix[r * w + j])
              nxt[r * w + j] = std::bit_cast<float>(static_cast<std::uint32_t>(
                  fallback(r, j, pos, len, std::bit_cast<std::uint32_t>(cur[r * w + j]))));
      std::swap(cur, nxt);
      pos += len;
    } while (pos < end);
    start = end;
  } while (start < K);
  if (cur != acc) std::copy_n(cur, rows * w, acc);
}

}  // namespace tcsim::amd_lanes
