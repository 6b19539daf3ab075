// mma_dump's host-side formats (mma_dump.cu): binary32, binary16 and the ops' input
// formats as bit patterns. Included once, by mma_dump.cu.
#pragma once
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "mma_dump_ops.cuh"

namespace {

std::uint32_t f32_bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
float f32_of(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// Binary32 pattern of a finite value (-1)^s * m * 2^e, exact for the small formats here.
std::uint32_t binary32_of(bool negative, std::uint64_t m, int e) {
  if (m == 0) return negative ? 0x80000000u : 0u;
  double v = std::ldexp(static_cast<double>(m), e);  // exact: m < 2^24, e in range
  float f = static_cast<float>(v);                   // exact for every value generated
  std::uint32_t b = f32_bits(f);
  return negative ? (b | 0x80000000u) : b;
}

// Decodes a pattern of an input format (IEEE-style fields) into binary32. NaN/Inf are never
// generated, so only finite encodings are handled.
std::uint32_t input_to_binary32(const OpInfo& info, std::uint32_t bits) {
  if (info.op == Op::WmmaTf32) return bits;  // stored as binary32 with 13 zero low bits
  const int width = info.in_bytes * 8;
  const int frac_bits = info.precision - 1;
  const int bias = (1 << (info.exp_bits - 1)) - 1;
  const bool neg = (bits >> (width - 1)) & 1u;
  const std::uint32_t field = (bits >> frac_bits) & ((1u << info.exp_bits) - 1);
  const std::uint32_t frac = bits & ((1u << frac_bits) - 1);
  if (field == 0) return binary32_of(neg, frac, 1 - bias - frac_bits);
  return binary32_of(neg, frac | (1u << frac_bits), static_cast<int>(field) - bias - frac_bits);
}

// Binary16 result -> binary32, exact; unlike the inputs, results can be Inf or NaN (a wide
// --exp-range overflows binary16).
std::uint32_t half_to_binary32(std::uint16_t h) {
  if ((h & 0x7c00u) == 0x7c00u)
    return (static_cast<std::uint32_t>(h & 0x8000u) << 16) | 0x7f800000u |
           (static_cast<std::uint32_t>(h & 0x3ffu) << 13);
  return input_to_binary32(kOps[0], h);
}

// Binary32 -> binary16, round to nearest even (host code of cuda_fp16.h).
std::uint16_t binary32_to_half_rne(std::uint32_t b) {
  __half h = __float2half_rn(f32_of(b));
  std::uint16_t r;
  std::memcpy(&r, &h, 2);
  return r;
}

// The input-format pattern of a binary32 value the format holds exactly (the a/b files of
// tcsim fit --suggest); Inf and NaN take the all-ones exponent field.
std::uint32_t binary32_to_input(const OpInfo& info, std::uint32_t b) {
  if (info.op == Op::WmmaTf32) return b;
  const int width = info.in_bytes * 8;
  const int frac_bits = info.precision - 1;
  const int bias = (1 << (info.exp_bits - 1)) - 1;
  const std::uint32_t sign = (b >> 31) ? (1u << (width - 1)) : 0u;
  const float v = std::fabs(f32_of(b));
  const std::uint32_t top = (1u << info.exp_bits) - 1;
  if (std::isnan(v)) return sign | (top << frac_bits) | ((1u << frac_bits) - 1);
  if (std::isinf(v)) return sign | (top << frac_bits);
  if (v == 0) return sign;
  int e = 0;
  const double m = std::frexp(static_cast<double>(v), &e);  // v = m 2^e, m in [0.5, 1)
  const int E = e - 1;
  if (E < info.emin)
    return sign | static_cast<std::uint32_t>(std::ldexp(static_cast<double>(v), frac_bits - info.emin));
  const auto frac = static_cast<std::uint32_t>(std::ldexp(m * 2 - 1, frac_bits));
  return sign | (static_cast<std::uint32_t>(E + bias) << frac_bits) | frac;
}

}  // namespace
