// The m16n8 mma.sync kernel of mma_dump (mma_dump.cu), shared by the fp8 forms
// (mma_kernels_fp8.cuh) and the block-scaled forms (mma_kernels_block_scaled.cuh): the
// fragments, one warp per tile, and the inline-asm operand lists. Included once, by
// mma_dump.cu.
//
// Fragment layout (PTX ISA, "Matrix fragments for mma.m16n8k16 / k32 / k64" of 8-bit and
// 4-bit types): groupID g = lane / 4, thread-in-group q = lane % 4; a register holds
// E = 32 / BITS elements, element i at bits BITS*i:
//   A: reg r (K*BITS/64 of them): row g + 8*(r & 1), column E*q + i + K/2*(r >> 1)
//   B: reg r (K*BITS/128 of them): row (k) E*q + i + K/2*r, column g
//   C/D .f32: element i (0..3): row g + 8*(i >> 1), column 2q + (i & 1)
//   C/D .f16: two .f16x2 registers; register r holds row g + 8r, columns 2q and 2q + 1.
// Memory per tile t: A[t] 16 x K row-major, B[t] K x 8 column-major, C[t] and D[t] 16 x 8
// row-major in the output type; inputs one value per byte (4-bit values in the low nibble).
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace {

// The asm operand lists of the forms (outputs after ':', then inputs).
#define TCSIM_D_F32 "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
#define TCSIM_C_F32 "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3])
#define TCSIM_D_F16 "=r"(d[0]), "=r"(d[1])
#define TCSIM_C_F16 "r"(c[0]), "r"(c[1])
#define TCSIM_A4_B2 "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1])
#define TCSIM_A2_B1 "r"(a[0]), "r"(a[1]), "r"(b[0])
// One asm statement per operand pair of an fp8 form: HEAD "e5m2.e5m2" TAIL or HEAD
// "e4m3.e4m3" TAIL, with the operand lists that follow.
#define TCSIM_FP8_MMA(E5M2, HEAD, TAIL, ...)                  \
  do {                                                        \
    if (E5M2) asm volatile(HEAD "e5m2.e5m2" TAIL __VA_ARGS__); \
    else asm volatile(HEAD "e4m3.e4m3" TAIL __VA_ARGS__);      \
  } while (0)

// The accumulator registers of one lane: .f32 (4 floats) or .f16 (2 .f16x2 registers).
template <class OutT>
struct Acc;
template <>
struct Acc<float> {
  using Reg = float;
  float r[4];
  __device__ void load(const float* C, int g, int q) {
    for (int i = 0; i < 4; ++i) r[i] = C[(g + 8 * (i >> 1)) * 8 + 2 * q + (i & 1)];
  }
  __device__ void store(float* D, int g, int q) const {
    for (int i = 0; i < 4; ++i) D[(g + 8 * (i >> 1)) * 8 + 2 * q + (i & 1)] = r[i];
  }
  // A result that finite inputs never give (NaN): the op's code is not in this build.
  __device__ void mark() {
    for (float& x : r) x = __uint_as_float(0xffffffffu);
  }
};
template <>
struct Acc<__half> {
  using Reg = unsigned;
  unsigned r[2];
  __device__ void load(const __half* C, int g, int q) {
    for (int k = 0; k < 2; ++k)
      r[k] = static_cast<unsigned>(__half_as_ushort(C[(g + 8 * k) * 8 + 2 * q])) |
             (static_cast<unsigned>(__half_as_ushort(C[(g + 8 * k) * 8 + 2 * q + 1])) << 16);
  }
  __device__ void store(__half* D, int g, int q) const {
    for (int k = 0; k < 2; ++k) {
      D[(g + 8 * k) * 8 + 2 * q] = __ushort_as_half(static_cast<unsigned short>(r[k] & 0xffffu));
      D[(g + 8 * k) * 8 + 2 * q + 1] = __ushort_as_half(static_cast<unsigned short>(r[k] >> 16));
    }
  }
  __device__ void mark() {
    for (unsigned& x : r) x = 0xffffffffu;
  }
};

// A and B fragments of m16n8k<K> with BITS-bit inputs (the layout above).
template <int K, int BITS>
__device__ void load_ab(const std::uint8_t* A, const std::uint8_t* B, unsigned* a, unsigned* b) {
  constexpr int E = 32 / BITS;
  constexpr unsigned mask = (1u << BITS) - 1;
  const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  for (int r = 0; r < K * BITS / 64; ++r) {
    const int row = g + 8 * (r & 1), col = E * q + K / 2 * (r >> 1);
    unsigned v = 0;
    for (int i = 0; i < E; ++i) v |= (static_cast<unsigned>(A[row * K + col + i]) & mask) << (BITS * i);
    a[r] = v;
  }
  for (int r = 0; r < K * BITS / 128; ++r) {
    unsigned v = 0;
    for (int i = 0; i < E; ++i) v |= (static_cast<unsigned>(B[g * K + E * q + i + K / 2 * r]) & mask) << (BITS * i);
    b[r] = v;
  }
}

// One warp per tile: Mma::run(a, b, c, d) on tile blockIdx.x's fragments. Mma gives K, BITS,
// Out (float or __half) and run, which marks d (Acc::mark) where its code is not compiled.
template <class Mma>
__global__ void mma_m16n8_kernel(const std::uint8_t* A, const std::uint8_t* B, const typename Mma::Out* C,
                                 typename Mma::Out* D) {
  const int t = blockIdx.x, lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  unsigned a[4], b[2];
  load_ab<Mma::K, Mma::BITS>(A + t * 16 * Mma::K, B + t * 8 * Mma::K, a, b);
  Acc<typename Mma::Out> c, d;
  c.load(C + t * 16 * 8, g, q);
  Mma::run(a, b, c, d);
  d.store(D + t * 16 * 8, g, q);
}

// Launches mma_m16n8_kernel<Mma> on device buffers.
template <class Mma>
void launch_m16n8(int tiles, void* dA, void* dB, void* dC, void* dD) {
  using Out = typename Mma::Out;
  mma_m16n8_kernel<Mma><<<tiles, 32>>>(static_cast<const std::uint8_t*>(dA), static_cast<const std::uint8_t*>(dB),
                                       static_cast<const Out*>(dC), static_cast<Out*>(dD));
}

}  // namespace
