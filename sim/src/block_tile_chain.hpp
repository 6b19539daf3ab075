// Private to sim/src: chains of block FMAs on the GEMM tiles (block_tile_chain.cpp; issue 25,
// branch i25chain). Kept apart from block_lanes.hpp so that the kernels including it stay as
// they are.
#pragma once
#include <cstddef>
#include <cstdint>

#include "block_lanes.hpp"
#include "tcsim/sim/block_kernel.hpp"  // TileChainMaxima

namespace tcsim::lanes {

// A chain of blocks (block_tile_chain.cpp, issue 25): for every micro-tile of the rows x cols
// tile, the blocks of `block` products over K (the last one shorter) one after the other, c
// kept in registers, each as block_tile with its fused epilogue. c_value and c_eref (layout as
// block_tile's c) are c on entry and the micro-tile's state after the blocks it ran on exit,
// d_bits that state's patterns (written only where it ran at least one block). stops[i] (micro-
// tiles in row-major order, cols / tile_columns() per row of micro-tiles) is the position in K
// where micro-tile i stopped: K when done, else the first block with an output (column below
// valid_cols) that block_tile would flag; the caller runs the rest. False (nothing done) where
// block_tile's epilogue is not the fused one (or the scalar target). strip_stride: 0 for B
// row-major, else B strip-major (strip s of tile_columns() columns at b + s * strip_stride,
// row t at + t * ldb; issue 25, h100g).
bool block_tile_chain(const LaneParams& p, std::size_t rows, std::size_t cols, std::size_t valid_cols, std::size_t K,
                      std::size_t block, const float* a_value, const std::int16_t* a_eref, std::size_t lda,
                      const float* b_value, const std::int16_t* b_eref, std::size_t ldb, float* c_value,
                      std::int32_t* c_eref, std::uint64_t* d_bits, std::size_t ldc, std::size_t* stops,
                      std::size_t strip_stride = 0, const TileChainMaxima* maxima = nullptr);

// Whether block_tile_chain (no pairs) runs for p's blocks of `block` products over K, given cols
// a multiple of tile_columns() (session 39: the GEMM then decodes B only into its strips).
bool block_tile_chain_supported(const LaneParams& p, std::size_t K, std::size_t block);

// The blocks' maxima block_tile_chain's E pass reads (block_tile_emax.cpp; issue 25, h100n;
// BlockKernel::chain_maxima_lanes and friends say what they hold): the lanes per strip where
// the chain takes them for p's blocks of `block` products, else 0.
std::size_t block_tile_chain_maxima_lanes(const LaneParams& p, std::size_t block);
void block_tile_row_maxima(std::size_t rows, std::size_t K, std::size_t block, const std::int16_t* a_eref,
                           std::size_t lda, std::int16_t* a_max, std::uint16_t* a_mask);
void block_tile_column_maxima(std::size_t K, std::size_t block, const std::int16_t* b_eref, std::size_t ldb,
                              std::int16_t* b_max, std::uint16_t* b_mask);

// The pairs-mod4 final-add rows (Hopper/Blackwell fp8 mma.sync; issue 25, branch i25fp8fuse):
// K a multiple of 2 * block, each instruction of 2 blocks run as the hardware's emulation
// (block 1 from +0, block 2 from block 1's result, then that result plus c rounded to nearest
// even into binary32 or binary16: tile_add_rne's lanes), c kept in registers. c_value, c_eref
// and d_bits (patterns of the sums' format) as above; stops[i] is the first instruction's
// position with an output one of its steps would flag (block_tile's flags, tile_add_rne's).
bool block_tile_pairs_chain(const LaneParams& p, bool binary16_add, std::size_t rows, std::size_t cols,
                            std::size_t valid_cols, std::size_t K, std::size_t block, const float* a_value,
                            const std::int16_t* a_eref, std::size_t lda, const float* b_value,
                            const std::int16_t* b_eref, std::size_t ldb, float* c_value, std::int32_t* c_eref,
                            std::uint64_t* d_bits, std::size_t ldc, std::size_t* stops);

}  // namespace tcsim::lanes
