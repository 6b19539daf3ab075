// Private to sim/src: the planar path for formats wider than 16 bits (issue 25: tf32), in
// block_planar32.cpp. 32-bit patterns product-major (operand t of element i at a[t * lda + i]),
// one element per lane, as block_fma_planar16 (block_lanes.hpp), for operand formats laid out as
// the top bits of binary32 (sign, an 8-bit exponent field with bias 127, IEEE Inf/NaN, at most 11
// fraction bits, 17 to 32 bits wide: tf32's 19): a pattern shifted left by 32 - width is the
// binary32 pattern of its value, subnormals included. Products are exact binary32 numbers where
// they lie in its normal range; outputs whose products could overflow (E > kTileMaxE) or whose
// terms that count could be subnormal (F - E > 120) are flagged, and products below the normal
// range then truncate to 0 as their exact values do (the bf16 argument of the tiles).
#pragma once
#include <cstddef>
#include <cstdint>

#include "block_lanes.hpp"

namespace tcsim::lanes {

// Whether block_fma_planar32 serves a, b (the layout above, or both formats of at most 16 bits:
// no), rz alignment, subnormals kept, F + 2 + log2(max_len) <= 31, c decodable into binary64.
bool planar32_supported(const LaneParams& p, const PatternCodec& a, const PatternCodec& b, const PatternCodec& c,
                        bool keep_subnormals, std::size_t max_len);
// Elements per vector of the path (n of block_fma_planar32 is a multiple of it); 0 on the
// scalar target.
std::size_t planar32_lane_count();
// n block FMAs; writes d[i] and fixup[i] as block_fma_patterns.
void block_fma_planar32(const LaneParams& p, const PatternCodec& a, const PatternCodec& b, const PatternCodec& c,
                        std::size_t n, std::size_t len, const std::uint32_t* a_bits, std::size_t lda,
                        const std::uint32_t* b_bits, std::size_t ldb, const std::uint64_t* c_bits, std::uint64_t* d,
                        std::uint8_t* fixup);

}  // namespace tcsim::lanes
