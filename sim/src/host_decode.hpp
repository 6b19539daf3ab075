// Host-arithmetic helpers shared by the AMD kernels (after_add.cpp, exact_block.cpp):
// powers of two as binary64 and a binary32 decode without the generic format walk.
#pragma once
#include <bit>
#include <cstdint>

#include "tcsim/sim/codec.hpp"

namespace tcsim::host_decode {

// 2^e as a binary64 (e within binary64's normal exponents: the callers' values are far inside).
inline double pow2(int e) { return std::bit_cast<double>(static_cast<std::uint64_t>(e + 1023) << 52); }

// decode_parts for binary32 (c's format on these rows), without the generic format walk.
inline Decoded decode_fp32(std::uint32_t u) {
  Decoded d;
  d.negative = (u >> 31) != 0;
  const std::uint32_t field = (u >> 23) & 0xff, frac = u & 0x7fffff;
  if (field == 0xff) {
    d.cls = frac ? FpClass::NaN : FpClass::Infinity;
  } else if (field == 0) {
    d.cls = frac ? FpClass::Subnormal : FpClass::Zero;
    d.significand = frac;
    d.exponent = -149;
  } else {
    d.cls = FpClass::Normal;
    d.significand = frac | 0x800000u;
    d.exponent = static_cast<int>(field) - 150;
  }
  return d;
}

}  // namespace tcsim::host_decode
