// A fast implementation of the fixed-point adder's block FMA for the configurations that
// real units use: one semantics (FixedPointAdder), two implementations.
//
// Where every operand has a significand of at most 12 bits, a product is an integer below
// 2^24, and an aligned term with F fraction bits is an integer below 2^(F+2): for F up to
// about 55 the whole block sum is exact in int64. The kernel decodes the patterns with
// integer operations, takes E = max(e_a + e_b, e_c) (clamped), aligns every term by a
// shift that truncates like the adder's alignment rounding, sums in int64, wraps like the
// register, and rounds once into the output format. Results outside the output's normal
// range (subnormal, overflow) and NaN/Inf operands go through the reference adder, element
// by element, so the bits are the reference's by construction there; everything else is
// proven equal to it by the differential tests (sim/tests/test_block_kernel.cpp).
//
// Configurations the kernel cannot prove exact are refused with a reason
// (block_kernel_unsupported): callers fall back to FixedPointAdder and say so.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "tcsim/sim/adder.hpp"

namespace tcsim {

// Why `cfg` with blocks of up to `max_products` products cannot run on the kernel, or
// nullopt when it can.
std::optional<std::string> block_kernel_unsupported(const AdderConfig& cfg, std::size_t max_products);

// Issue 25 (h100n): the blocks' maxima that the tile chains' E pass reads (run_tile_chain),
// made once per GEMM by BlockKernel::chain_row_maxima and chain_column_maxima instead of in
// every chain call. Blocks are numbered from the call's first product: row i's block q at
// a_max[i * a_stride + q] (the largest e_ref) and a_mask[...] (the positions attaining it);
// strip s's (tile_columns() columns), block q, column l at b_max[s * b_stride + q * lanes + l].
// lanes and block: what they were made for (the chain ignores maxima made for another target
// or block length and computes its own, exact either way).
struct TileChainMaxima {
  const std::int16_t* a_max = nullptr;
  const std::uint16_t* a_mask = nullptr;
  std::size_t a_stride = 0;
  const std::int16_t* b_max = nullptr;
  const std::uint16_t* b_mask = nullptr;
  std::size_t b_stride = 0;
  std::size_t lanes = 0, block = 0;
};

class BlockKernel {
 public:
  // Throws std::invalid_argument with block_kernel_unsupported's reason.
  BlockKernel(const AdderConfig& cfg, std::size_t max_products);
  ~BlockKernel();
  BlockKernel(BlockKernel&&) noexcept;
  BlockKernel& operator=(BlockKernel&&) noexcept;

  const AdderConfig& config() const;
  std::size_t max_products() const;

  // n block FMAs: element i is d[i] = c[i] + sum_{t < len} a[i*lda + t] * b[i*ldb + t],
  // followed by (max_products - len) +0 products when `len` is short (they matter only for
  // the sign of a zero result). Bits equal FixedPointAdder::dot on the same operands.
  void run(std::size_t n, std::size_t len, const std::uint64_t* a, std::size_t lda, const std::uint64_t* b,
           std::size_t ldb, const std::uint64_t* c, std::uint64_t* d) const;

  // The same block FMAs on 16-bit patterns stored product-major: operand t of element i at
  // a[t * lda + i], b[t * ldb + i] (lda, ldb >= n; formats of at most 16 bits). Where
  // planar_supported(), one element per SIMD lane (block_lanes.hpp: block_fma_planar16);
  // otherwise the operands are regrouped element-major for run(). Bits equal run().
  bool planar_supported() const;
  void run_planar(std::size_t n, std::size_t len, const std::uint16_t* a, std::size_t lda, const std::uint16_t* b,
                  std::size_t ldb, const std::uint64_t* c, std::uint64_t* d) const;
  // The same with operand t of element i at a_rows[t][i], b_rows[t][i]: rows anywhere, in any
  // order (issue 25: the pairs-mod4 rows' instructions in the hardware's order, not copied).
  void run_planar_rows(std::size_t n, std::size_t len, const std::uint16_t* const* a_rows,
                       const std::uint16_t* const* b_rows, const std::uint64_t* c, std::uint64_t* d) const;

  // The same on 32-bit patterns product-major (formats of 17 to 32 bits: tf32; issue 25). Where
  // planar32_supported(), one element per SIMD lane (sim/src/block_planar32.hpp); otherwise
  // regrouped element-major for run(). Bits equal run().
  bool planar32_supported() const;
  void run_planar32(std::size_t n, std::size_t len, const std::uint32_t* a, std::size_t lda, const std::uint32_t* b,
                    std::size_t ldb, const std::uint64_t* c, std::uint64_t* d) const;

  // ---- Decoded panels (GEMM): operands decoded once, reused by many block FMAs.
  // An operand as the SIMD lanes use it: its exact value and the exponent the adder aligns
  // on (e_ref); zeros never set E, NaN/Inf make the lane take the exact path.
  enum class Role { A, B, C };
  void decode(Role role, std::size_t count, const std::uint64_t* bits, double* value, double* eref) const;

  // n block FMAs of one row of A against n columns of B: element j is
  //   d[j] = c[j] + sum_{t < len} a[t] * b[t * ldb + j]   (+0 padding products as run()),
  // given both as patterns (for the exact path) and decoded. Writes d's pattern and its
  // decoded value/e_ref (the next block's c). Bits equal run() on the same operands.
  void run_row(std::size_t n, std::size_t len, const std::uint64_t* a_bits, const double* a_value,
               const double* a_eref, const std::uint64_t* b_bits, const double* b_value, const double* b_eref,
               std::size_t ldb, const std::uint64_t* c_bits, const double* c_value, const double* c_eref,
               std::uint64_t* d_bits, double* d_value, double* d_eref) const;

  // run_row's lanes without its exact path: fixup[j] = 1 where the caller must compute
  // element j exactly (the block-scaled GEMM, whose operands carry their scales: its exact
  // path is the block-scaled reference). Operand values may have up to 26 significant bits.
  void run_row_lanes(std::size_t n, std::size_t len, const double* a_value, const double* a_eref,
                     const double* b_value, const double* b_eref, std::size_t ldb, const double* c_value,
                     const double* c_eref, std::uint64_t* d_bits, double* d_value, double* d_eref,
                     std::uint8_t* fixup) const;

  // ---- Group sums (block-scaled rows with BlockScaleSpec::group_size > 0, unit scales: the
  // b200/rtx5090 mxf4nvf4 rows): element j's terms are the exact sums of `group` consecutive
  // products, G_g = sum_{g*group <= t < min(len, (g+1)*group)} a[t] b[t * ldb + j] (a_broadcast; else a[t * ldb + j]), each aligned on
  // its own leading bit, then c, E, alignment, sum and rounding as the block FMA. Lanes only: writes
  // d's pattern, value and e_ref where fixup[j] = 0; fixup[j] = 1 where the caller must compute
  // element j exactly (the reference is the block-scaled one, not this kernel's adder). Whether
  // every group sum of `group` products is exact in binary64 and normal:
  bool groups_supported(std::size_t group) const;
  void run_row_groups(std::size_t n, std::size_t len, std::size_t group, const double* a_value,
                      bool a_broadcast, const double* b_value, std::size_t ldb, const double* c_value, const double* c_eref,
                      std::uint64_t* d_bits, double* d_value, double* d_eref, std::uint8_t* fixup) const;

  // ---- Group sums on tiles (the block-scaled GEMM of mxf4nvf4; issue 25): operands as exact
  // binary32 values (decode's values), one scale factor per group and row of A (a_scale[r *
  // ldas + g]) and per group and column of B (b_scale[g * ldb + j]). Output (r, j)'s terms are
  // the group sums of a[r * lda + t] b[t * ldb + j] times both scales, each aligned on its leading
  // bit, then c (at [r * ldc + j], decoded), E, alignment, sum and rounding as run_row_groups;
  // fixup[r * ldc + j] = 1 where the caller must compute the output exactly. Supported where every
  // product and partial group sum is exact in binary32 and normal (e2m1 x e2m1: within 2^-2 ..
  // 2^10) and a block holds at most 8 groups; the caller checks that the scaled sums are exact
  // and normal in binary64 (at most 29 more bits and 2^+-800). cols: a multiple of
  // group_tile_columns().
  bool group_tile_supported(std::size_t group) const;
  std::size_t group_tile_columns() const;
  void run_group_tile(std::size_t rows, std::size_t cols, std::size_t len, std::size_t group, const float* a,
                      std::size_t lda, const double* a_scale, std::size_t ldas, const float* b, std::size_t ldb,
                      const double* b_scale, const double* c_value, const double* c_eref, std::size_t ldc,
                      std::uint64_t* d_bits, double* d_value, double* d_eref, std::uint8_t* fixup) const;

  // ---- Tiles (GEMM) in binary32 lanes, where tile_supported() (block_lanes.hpp: block_tile):
  // operands decoded once into an exact binary32 value and an int32 e_ref.
  bool tile_supported() const;
  std::size_t tile_columns() const;  // run_tile's cols must be a multiple of it
  void decode_tile(Role role, std::size_t count, const std::uint64_t* bits, float* value, std::int32_t* eref) const;
  // A and B for run_tile: e_refs in int16 (twice the lanes in the E pass).
  void decode_tile(Role role, std::size_t count, const std::uint64_t* bits, float* value, std::int16_t* eref) const;
  // rows x cols of them, row r at bits + r * ld_bits, into value and eref at [r * ld_out + j]
  // (a strip of B: its rows contiguous, ld_out = tile_columns()).
  void decode_tile_rows(Role role, std::size_t rows, std::size_t cols, const std::uint64_t* bits, std::size_t ld_bits,
                        float* value, std::int16_t* eref, std::size_t ld_out) const;
  // One block FMA for every output of a rows x cols tile: d[r][j] = c[r][j] + sum_{t < len}
  // a[r][t] b[t][j] (+0 padding products as run()); a at [r * lda + t], b at [t * ldb + j], c
  // and d at [r * ldc + j], as patterns and decoded. Outputs with j >= valid_cols are padding:
  // computed by the lanes only, never exactly. Bits equal run() on the same operands.
  void run_tile(std::size_t rows, std::size_t cols, std::size_t valid_cols, std::size_t len,
                const std::uint64_t* a_bits, const float* a_value, const std::int16_t* a_eref, std::size_t lda,
                const std::uint64_t* b_bits, const float* b_value, const std::int16_t* b_eref, std::size_t ldb,
                const std::uint64_t* c_bits, const float* c_value, const std::int32_t* c_eref,
                std::uint64_t* d_bits, float* d_value, std::int32_t* d_eref, std::size_t ldc) const;
  // run_tile's lanes without its exact path (the block-scaled GEMM, whose operands carry their
  // scales: its exact path is the block-scaled reference): returns how many outputs the caller
  // must compute exactly, their indices r * ldc + j in flagged (room for rows * ldc; padding
  // columns included); d is undefined there.
  std::size_t run_tile_lanes(std::size_t rows, std::size_t cols, std::size_t len, const float* a_value,
                             const std::int16_t* a_eref, std::size_t lda, const float* b_value,
                             const std::int16_t* b_eref, std::size_t ldb, const float* c_value,
                             const std::int32_t* c_eref, std::uint64_t* d_bits, float* d_value,
                             std::int32_t* d_eref, std::size_t ldc, std::uint32_t* flagged) const;

  std::size_t tile_rows() const;  // rows of a micro-tile (run_tile_chain's stops)
  // Issue 25 (i25chain): every block of `block` products over K on the tiles for the outputs
  // whose micro-tile runs without a flag, c kept in registers (block_lanes.hpp:
  // block_tile_chain; c_value, c_eref in place, d_bits the patterns where stops[i] > 0).
  // False where the tiles' epilogue is not fused: the caller runs block by block.
  // strip_stride (issue 25, h100g): 0, B row-major (row t at b + t * ldb); else B strip-major,
  // strip s of tile_columns() columns at b + s * strip_stride, its row t at + t * ldb.
  // maxima (issue 25, h100n): null, or this call's blocks' maxima (TileChainMaxima: row i of
  // the call's A, strip s of its B); null makes the chain compute them itself.
  bool run_tile_chain(std::size_t rows, std::size_t cols, std::size_t valid_cols, std::size_t K, std::size_t block,
                      const float* a_value, const std::int16_t* a_eref, std::size_t lda, const float* b_value,
                      const std::int16_t* b_eref, std::size_t ldb, float* c_value, std::int32_t* c_eref,
                      std::uint64_t* d_bits, std::size_t ldc, std::size_t* stops, std::size_t strip_stride = 0,
                      const TileChainMaxima* maxima = nullptr) const;
  // Whether run_tile_chain runs (returns true) for blocks of `block` products over K, with cols
  // a multiple of tile_columns() and valid_cols <= cols (session 39).
  bool tile_chain_supported(std::size_t K, std::size_t block) const;
  // Issue 25 (h100n): whether run_tile_chain's E pass reads blocks' maxima for blocks of
  // `block` products: the lanes of a strip (tile_columns()) if so, else 0 (then no maxima).
  // chain_row_maxima: rows of A (e_refs at a_eref[i * lda + t], t < K) into a_max, a_mask
  // (row i's block q at [i * ceil(K / block) + q]); chain_column_maxima: one strip of B (row t
  // of its lanes columns at b_eref + t * ldb) into b_max, b_mask (block q's at q * lanes).
  std::size_t chain_maxima_lanes(std::size_t block) const;
  void chain_row_maxima(std::size_t rows, std::size_t K, std::size_t block, const std::int16_t* a_eref, std::size_t lda,
                        std::int16_t* a_max, std::uint16_t* a_mask) const;
  void chain_column_maxima(std::size_t K, std::size_t block, const std::int16_t* b_eref, std::size_t ldb,
                           std::int16_t* b_max, std::uint16_t* b_mask) const;
  // Issue 25 (i25fp8fuse): the same for the pairs-mod4 final-add rows, K whole instructions of
  // 2 blocks: per instruction block 1 from +0, block 2 from its result, then that result plus c
  // rounded to nearest even into binary32 or binary16 (tile_add.hpp); c_value, c_eref hold the
  // sums (as decode_tile of d_bits, their patterns). False where the chain does not apply.
  bool run_tile_pairs_chain(bool binary16_add, std::size_t rows, std::size_t cols, std::size_t valid_cols,
                            std::size_t K, std::size_t block, const float* a_value, const std::int16_t* a_eref,
                            std::size_t lda, const float* b_value, const std::int16_t* b_eref, std::size_t ldb,
                            float* c_value, std::int32_t* c_eref, std::uint64_t* d_bits, std::size_t ldc,
                            std::size_t* stops) const;

  // ---- Group sums on product-major 16-bit patterns (dot_batch and dot_batch_planar of the
  // mxf4nvf4 rows; issue 25, sim/src/block_group_planar.cpp): as run_row_groups with element j's
  // operand t at a[t * lda + j], b[t * ldb + j] (patterns) and, where a_scale is not null, the
  // group scale factors a_scale[g * lds + j], b_scale[g * lds + j] (binary64; the caller checks
  // that the scaled sums are exact and normal, as for run_group_tile). a_table and b_table: the
  // values of every pattern of a's and b's formats (decode's, 2^width entries). One element per
  // binary32 lane, the operands decoded by a table lookup across the lanes, the groups' sums in
  // binary32 (where group_tile_supported). Writes d and fixup as run_row_groups (fixup[j] = 1 for
  // the elements after the last whole vector). Returns false, writing nothing, where it cannot
  // run: formats wider than 16 bits or whose table does not fit a vector (e2m1 needs 8 binary32
  // lanes: AVX2, AVX-512), a sign that is not the top bit, values not exact in binary32. n = 0
  // only asks (operand, c and d pointers may then be null).
  bool run_groups_planar(std::size_t n, std::size_t len, std::size_t group, const double* a_table,
                         const double* b_table, const std::uint16_t* a, std::size_t lda, const std::uint16_t* b,
                         std::size_t ldb, const double* a_scale, const double* b_scale, std::size_t lds,
                         const double* c_value, const double* c_eref, std::uint64_t* d_bits, double* d_value,
                         double* d_eref, std::uint8_t* fixup) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tcsim
