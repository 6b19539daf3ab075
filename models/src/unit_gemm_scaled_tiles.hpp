// Private to models/src: the block-scaled GEMM (Unit::gemm_scaled) on the binary32 tiles
// (BlockKernel::run_tile_lanes) for rows without group sums whose scales are powers of two
// (ue8m0: kind::mxf8f6f4 on b200 and rtx5090; issue 25), and on the group tiles
// (BlockKernel::run_group_tile) for rows with group sums (mxf4nvf4, ue8m0 or ue4m3 scales).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>

#include "tcsim/sim/format.hpp"
#include "tcsim/sim/block_kernel.hpp"

namespace tcsim::models::detail {

// Whether every finite nonzero scale of `scale_format` is a power of two (ue8m0), so that a
// scale only adds to the exponent of an operand of the tiles.
bool scales_fold_into_tiles(const Format& scale_format);

// D = the blocks of k products of A (m x K) and B (K x n) from C with scale_a (m x nb) and
// scale_b (nb x n), nb = ceil(K / bs), on the tiles of `kernel` (tile_supported()). Each
// operand is decoded once and its scale 2^s folded in: value times 2^s, e_ref plus s (the
// alignment's E pass adds the scales' exponents; the significand pass is unchanged). An
// operand the fold makes inexact in binary32 (beyond its range) or whose scale is NaN is
// marked special, so every output it touches is flagged. Flagged outputs of a block are
// computed by exact(i, j, pos, len, c) (the block-scaled reference), every result goes through
// to_out (identity where `narrow` is false: the block's pattern is already in `out`).
void gemm_scaled_tiles(const BlockKernel& kernel, const Format& scale_format, std::size_t m, std::size_t n,
                       std::size_t K, std::size_t k, std::size_t bs, const std::uint64_t* A, const std::uint64_t* B,
                       const std::uint64_t* C, const std::uint64_t* scale_a, const std::uint64_t* scale_b,
                       const std::function<std::uint64_t(std::size_t, std::size_t, std::size_t, std::size_t,
                                                         std::uint64_t)>& exact,
                       bool narrow, const std::function<std::uint64_t(std::uint64_t)>& to_out, unsigned threads,
                       std::uint64_t* D);

// Whether every finite nonzero scale of `scale_format` has at most 12 significant bits and lies
// within 2^+-400, so that a group tile's sum (at most 24 bits, within 2^+-127) times two scales
// is exact and normal in binary64.
bool scales_fit_group_tiles(const Format& scale_format);

// gemm_scaled_tiles' contract for rows with group sums of `group` products (bs a multiple of
// group, gk.group_tile_supported(group)): A and B decoded once into binary32, each group's two
// scale factors in binary64 per row of A and per column of B, the blocks on
// BlockKernel::run_group_tile; flagged outputs by exact(), results through to_out where `narrow`
// (else the identity) as gemm_scaled_tiles.
void gemm_scaled_group_tiles(const BlockKernel& gk, const Format& scale_format, std::size_t group, std::size_t m,
                             std::size_t n, std::size_t K, std::size_t k, std::size_t bs, const std::uint64_t* A,
                             const std::uint64_t* B, const std::uint64_t* C, const std::uint64_t* scale_a,
                             const std::uint64_t* scale_b,
                             const std::function<std::uint64_t(std::size_t, std::size_t, std::size_t, std::size_t,
                                                               std::uint64_t)>& exact,
                             bool narrow, const std::function<std::uint64_t(std::uint64_t)>& to_out,
                             unsigned threads, std::uint64_t* D);

}  // namespace tcsim::models::detail
