// The final IEEE addition of the c_entry final-add rows (Hopper/Blackwell fp8 mma.sync, the
// emulation on the fp16 tensor core: d = u + c per instruction) on operands in the GEMM tile
// representation (BlockKernel::decode_tile: exact binary32 value and int32 e_ref), in SIMD
// lanes. One semantics with models' detail::ieee_add (exact sum, one rounding); what the
// lanes cannot decide is flagged for it.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tcsim::lanes {

// n sums d[i] = x[i] + c[i] rounded to nearest even into binary32 (binary16 = false) or
// binary16 (true), x and c exact values of that format held as binary32. Writes d's pattern,
// value and e_ref (as decode_tile would: zeros kTileZero, subnormals emin) for every lane it
// decides and returns the count of the others, whose indices go to `flagged` (NaN/Inf
// operands, overflow, two zero operands (a zero's tile value may have lost its sign);
// binary32: subnormal operands or results, so that the host's FTZ/DAZ bits cannot matter).
// d may be c. Round to nearest even must be the host's rounding mode
// (the default).
std::size_t tile_add_rne(bool binary16, std::size_t n, const float* x, const float* c, std::uint64_t* d_bits,
                         float* d_value, std::int32_t* d_eref, std::uint32_t* flagged);

// The same on patterns (binary16 or binary32 in the low bits of each entry; issue 25, the
// pairs-mod4 final additions of dot_batch_planar): d_bits[i] = x_bits[i] + c_bits[i] for every
// lane it decides; the others (as above, and patterns with bits above the width) flagged.
// d_bits must not alias x_bits or c_bits (flagged lanes are left to the caller's exact addition).
std::size_t pattern_add_rne(bool binary16, std::size_t n, const std::uint64_t* x_bits, const std::uint64_t* c_bits,
                            std::uint64_t* d_bits, std::uint32_t* flagged);

// The same for one binary16 pair of patterns, in integers: false where the caller must use the
// exact addition (NaN/Inf operands, overflow). Exact sums of two binary16 numbers fit in 41
// bits of units of 2^-24.
inline bool binary16_add_rne(std::uint64_t x, std::uint64_t c, std::uint64_t& d) {
  auto units = [](std::uint64_t p, std::int64_t& v) {
    const unsigned field = static_cast<unsigned>(p >> 10) & 31u;
    if (field == 31 || (p >> 16)) return false;
    const std::int64_t sig = static_cast<std::int64_t>((p & 0x3ff) | (field ? 0x400u : 0u));
    v = sig << (field ? field - 1 : 0);
    if (p & 0x8000) v = -v;
    return true;
  };
  std::int64_t vx = 0, vc = 0;
  if (!units(x, vx) || !units(c, vc)) return false;
  const std::int64_t s = vx + vc;
  if (s == 0) {  // IEEE 754 6.3: -0 only for two -0 operands (round to nearest)
    d = ((x & c) & 0x8000) && vx == 0 && vc == 0 ? 0x8000 : 0;
    return true;
  }
  const std::uint64_t sign = s < 0 ? 0x8000 : 0, mag = static_cast<std::uint64_t>(s < 0 ? -s : s);
  if (mag < 2048) {  // exact: subnormals and the first binade share the 2^-24 step
    d = sign | mag;
    return true;
  }
  const int shift = 53 - __builtin_clzll(mag);  // bit length - 11
  std::uint64_t kept = mag >> shift;
  const std::uint64_t rem = mag & ((std::uint64_t{1} << shift) - 1), half = std::uint64_t{1} << (shift - 1);
  kept += (rem > half || (rem == half && (kept & 1))) ? 1 : 0;
  const std::uint64_t bits = (static_cast<std::uint64_t>(shift) << 10) + kept;  // a carry moves into the field
  if (bits >= 0x7c00) return false;  // overflow: the row's overflow mode
  d = sign | bits;
  return true;
}

}  // namespace tcsim::lanes
