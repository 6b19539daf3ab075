// mfma_dump: run one AMD MFMA instruction (CDNA1 MI100, CDNA2 MI210/MI250X, CDNA3 MI300X) on
// random inputs on the local GPU and write a/b/c/d dump files in the format of
// shared/data/gpu/README.md (the CUDA harness's format, validation/cuda/README.md), so that
//   tcsim validate-dump --unit <unit> --in <fmt> --out fp32 --instruction <ISA name> --a ... --d ...
// checks tcsim's model of the card bit for bit (validation/hip/README.md). One output element
// of one block of one instruction is one case; a batched form's blocks are independent cases.
//
// Operand layouts (which lane and register holds A[i][k], B[k][j], C/D[i][j] of block b): the
// gfx9 MFMA layout as AMD's Matrix Instruction Calculator states it
// (ROCm/amd_matrix_instruction_calculator, InstCalcGfx9): inputs: E = K*M*B/64 elements per
// lane, element k % E of lane b*M + (k / E)*M*B + i (A; B the same with j, N); 32-bit outputs:
// register b*(M*N/64) + (i / (4*(64/N)))*4 + i % 4 of lane (b % BPR)*N + ((i/4) % (64/N))*BPR*N + j,
// BPR = ceil(64 / (M*N/4)) blocks per register. Facts only; no code from the calculator.
//
// Built by hipcc (HIP-Clang) for gfx908, gfx90a, gfx942; without hipcc it is compile-checked
// against hip_shim.hpp (a labelled host-only stand-in), which cannot produce dumps.
#ifdef TCSIM_USE_HIP_SHIM
#include "hip_shim.hpp"
#else
#include <hip/hip_runtime.h>
#define TCSIM_VEC(T, N) __attribute__((ext_vector_type(N)))
#endif

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

// Which builtins the device pass may call: CDNA1-2 keep the legacy bf16 forms, CDNA2-3 have
// bf16_1k (CDNA3: v_mfma_f32_*_bf16), CDNA3 adds xf32 and fp8/bf8. The host pass calls none.
#if defined(TCSIM_HIP_SHIM)
#define TCSIM_CDNA1 1
#define TCSIM_CDNA2 1
#define TCSIM_CDNA3 1
#elif defined(__HIP_DEVICE_COMPILE__) && defined(__gfx908__)
#define TCSIM_CDNA1 1
#define TCSIM_CDNA2 0
#define TCSIM_CDNA3 0
#elif defined(__HIP_DEVICE_COMPILE__) && defined(__gfx90a__)
#define TCSIM_CDNA1 0
#define TCSIM_CDNA2 1
#define TCSIM_CDNA3 0
#elif defined(__HIP_DEVICE_COMPILE__) && (defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__))
#define TCSIM_CDNA1 0
#define TCSIM_CDNA2 0
#define TCSIM_CDNA3 1
#else  // the host pass, and other targets: no MFMA calls
#define TCSIM_CDNA1 0
#define TCSIM_CDNA2 0
#define TCSIM_CDNA3 0
#endif

#if TCSIM_CDNA1 || TCSIM_CDNA2 || TCSIM_CDNA3
#define MFMA_ALL(name, a, b, c) __builtin_amdgcn_mfma_##name(a, b, c, 0, 0, 0)
#else
#define MFMA_ALL(name, a, b, c) (c)
#endif
#if TCSIM_CDNA1 || TCSIM_CDNA2
#define MFMA_BF16_LEGACY(name, a, b, c) __builtin_amdgcn_mfma_##name(a, b, c, 0, 0, 0)
#else
#define MFMA_BF16_LEGACY(name, a, b, c) (c)
#endif
#if TCSIM_CDNA2 || TCSIM_CDNA3
#define MFMA_BF16_1K(name, a, b, c) __builtin_amdgcn_mfma_##name(a, b, c, 0, 0, 0)
#else
#define MFMA_BF16_1K(name, a, b, c) (c)
#endif
#if TCSIM_CDNA3
#define MFMA_CDNA3(name, a, b, c) __builtin_amdgcn_mfma_##name(a, b, c, 0, 0, 0)
#else
#define MFMA_CDNA3(name, a, b, c) (c)
#endif

namespace {

typedef _Float16 f16x4 TCSIM_VEC(_Float16, 4);
typedef short bf16x2 TCSIM_VEC(short, 2);
typedef short bf16x4 TCSIM_VEC(short, 4);
typedef float f32x2 TCSIM_VEC(float, 2);
typedef float f32x4 TCSIM_VEC(float, 4);
typedef float f32x16 TCSIM_VEC(float, 16);
typedef float f32x32 TCSIM_VEC(float, 32);

// One element of an operand register from its bit pattern (A and B arrive as uint32 patterns).
__device__ inline void set_item(float& v, int, std::uint32_t bits) { __builtin_memcpy(&v, &bits, 4); }
__device__ inline void set_item(f32x2& v, int t, std::uint32_t bits) {
  float x;
  __builtin_memcpy(&x, &bits, 4);
  v[t] = x;
}
__device__ inline void set_item(f16x4& v, int t, std::uint32_t bits) {
  const std::uint16_t u = static_cast<std::uint16_t>(bits);
  _Float16 h;
  __builtin_memcpy(&h, &u, 2);
  v[t] = h;
}
__device__ inline void set_item(bf16x2& v, int t, std::uint32_t bits) { v[t] = static_cast<short>(bits); }
__device__ inline void set_item(bf16x4& v, int t, std::uint32_t bits) { v[t] = static_cast<short>(bits); }
__device__ inline void set_item(long& v, int t, std::uint32_t bits) {  // 8 fp8 bytes
  if (t == 0) v = 0;
  v |= static_cast<long>(bits & 0xffu) << (8 * t);
}

struct Shape {
  int m, n, k, blocks;
};

// One instruction per 64-lane wavefront; tile = blockIdx.x. A: blocks x M x K (row-major per
// block), B: blocks x N x K (column j of block b at (b*N + j)*K), C and D: blocks x M x N.
template <class AV, int E, class CV, int R, class F>
__device__ void run_tile(Shape s, const std::uint32_t* A, const std::uint32_t* B, const float* C, float* D, F mfma) {
  const int lane = static_cast<int>(threadIdx.x), tile = static_cast<int>(blockIdx.x);
  A += static_cast<std::size_t>(tile) * s.blocks * s.m * s.k;
  B += static_cast<std::size_t>(tile) * s.blocks * s.n * s.k;
  C += static_cast<std::size_t>(tile) * s.blocks * s.m * s.n;
  D += static_cast<std::size_t>(tile) * s.blocks * s.m * s.n;
  AV a{}, b{};
  {
    const int i = lane % s.m, blk = (lane / s.m) % s.blocks, g = lane / (s.m * s.blocks);
    for (int t = 0; t < E; ++t) set_item(a, t, A[(blk * s.m + i) * s.k + g * E + t]);
  }
  {
    const int j = lane % s.n, blk = (lane / s.n) % s.blocks, g = lane / (s.n * s.blocks);
    for (int t = 0; t < E; ++t) set_item(b, t, B[(blk * s.n + j) * s.k + g * E + t]);
  }
  // Output registers of this lane: every (block, i, j) whose place is this lane.
  const int mpr = 64 / s.n, per_block = s.m * s.n / 64;
  const int bpr = (64 * 4 + s.m * s.n - 1) / (s.m * s.n);
  int index[R];
  CV c{};
  for (int blk = 0; blk < s.blocks; ++blk)
    for (int i = 0; i < s.m; ++i)
      for (int j = 0; j < s.n; ++j) {
        const int where = (blk % bpr) * s.n + ((i / 4) % mpr) * bpr * s.n + j;
        if (where != lane) continue;
        const int reg = blk * per_block + (i / (4 * mpr)) * 4 + i % 4;
        index[reg] = (blk * s.m + i) * s.n + j;
        c[reg] = C[index[reg]];
      }
  const CV d = mfma(a, b, c);
  for (int r = 0; r < R; ++r) D[index[r]] = d[r];
}

using Kernel = void (*)(const std::uint32_t*, const std::uint32_t*, const float*, float*);

// One kernel per instruction: ID, operand type and elements per lane, accumulator registers,
// the call (MFMA_* guard macro and builtin).
#define TCSIM_MFMA_KERNEL(ID, AV, E, R, CALL, BUILTIN, M, N, K, BLOCKS)                                        \
  __global__ void kernel_##ID(const std::uint32_t* A, const std::uint32_t* B, const float* C, float* D) {       \
    typedef float CV TCSIM_VEC(float, R);                                                                       \
    run_tile<AV, E, CV, R>(Shape{M, N, K, BLOCKS}, A, B, C, D, [](AV a, AV b, CV c) { return CALL(BUILTIN, a, b, c); }); \
  }

// ---- CDNA1 names (also CDNA2)
TCSIM_MFMA_KERNEL(f32_32x32x1f32, float, 1, 32, MFMA_ALL, f32_32x32x1f32, 32, 32, 1, 2)
TCSIM_MFMA_KERNEL(f32_16x16x1f32, float, 1, 16, MFMA_ALL, f32_16x16x1f32, 16, 16, 1, 4)
TCSIM_MFMA_KERNEL(f32_4x4x1f32, float, 1, 4, MFMA_ALL, f32_4x4x1f32, 4, 4, 1, 16)
TCSIM_MFMA_KERNEL(f32_32x32x2f32, float, 1, 16, MFMA_ALL, f32_32x32x2f32, 32, 32, 2, 1)
TCSIM_MFMA_KERNEL(f32_16x16x4f32, float, 1, 4, MFMA_ALL, f32_16x16x4f32, 16, 16, 4, 1)
TCSIM_MFMA_KERNEL(f32_32x32x4f16, f16x4, 4, 32, MFMA_ALL, f32_32x32x4f16, 32, 32, 4, 2)
TCSIM_MFMA_KERNEL(f32_16x16x4f16, f16x4, 4, 16, MFMA_ALL, f32_16x16x4f16, 16, 16, 4, 4)
TCSIM_MFMA_KERNEL(f32_4x4x4f16, f16x4, 4, 4, MFMA_ALL, f32_4x4x4f16, 4, 4, 4, 16)
TCSIM_MFMA_KERNEL(f32_32x32x8f16, f16x4, 4, 16, MFMA_ALL, f32_32x32x8f16, 32, 32, 8, 1)
TCSIM_MFMA_KERNEL(f32_16x16x16f16, f16x4, 4, 4, MFMA_ALL, f32_16x16x16f16, 16, 16, 16, 1)
TCSIM_MFMA_KERNEL(f32_32x32x2bf16, bf16x2, 2, 32, MFMA_BF16_LEGACY, f32_32x32x2bf16, 32, 32, 2, 2)
TCSIM_MFMA_KERNEL(f32_16x16x2bf16, bf16x2, 2, 16, MFMA_BF16_LEGACY, f32_16x16x2bf16, 16, 16, 2, 4)
TCSIM_MFMA_KERNEL(f32_4x4x2bf16, bf16x2, 2, 4, MFMA_BF16_LEGACY, f32_4x4x2bf16, 4, 4, 2, 16)
TCSIM_MFMA_KERNEL(f32_32x32x4bf16, bf16x2, 2, 16, MFMA_BF16_LEGACY, f32_32x32x4bf16, 32, 32, 4, 1)
TCSIM_MFMA_KERNEL(f32_16x16x8bf16, bf16x2, 2, 4, MFMA_BF16_LEGACY, f32_16x16x8bf16, 16, 16, 8, 1)
// ---- CDNA2 bf16_1k (CDNA3: v_mfma_f32_*_bf16)
TCSIM_MFMA_KERNEL(f32_32x32x4bf16_1k, bf16x4, 4, 32, MFMA_BF16_1K, f32_32x32x4bf16_1k, 32, 32, 4, 2)
TCSIM_MFMA_KERNEL(f32_16x16x4bf16_1k, bf16x4, 4, 16, MFMA_BF16_1K, f32_16x16x4bf16_1k, 16, 16, 4, 4)
TCSIM_MFMA_KERNEL(f32_4x4x4bf16_1k, bf16x4, 4, 4, MFMA_BF16_1K, f32_4x4x4bf16_1k, 4, 4, 4, 16)
TCSIM_MFMA_KERNEL(f32_32x32x8bf16_1k, bf16x4, 4, 16, MFMA_BF16_1K, f32_32x32x8bf16_1k, 32, 32, 8, 1)
TCSIM_MFMA_KERNEL(f32_16x16x16bf16_1k, bf16x4, 4, 4, MFMA_BF16_1K, f32_16x16x16bf16_1k, 16, 16, 16, 1)
// ---- CDNA3 only
TCSIM_MFMA_KERNEL(f32_16x16x8_xf32, f32x2, 2, 4, MFMA_CDNA3, f32_16x16x8_xf32, 16, 16, 8, 1)
TCSIM_MFMA_KERNEL(f32_32x32x4_xf32, f32x2, 2, 16, MFMA_CDNA3, f32_32x32x4_xf32, 32, 32, 4, 1)
TCSIM_MFMA_KERNEL(f32_16x16x32_fp8_fp8, long, 8, 4, MFMA_CDNA3, f32_16x16x32_fp8_fp8, 16, 16, 32, 1)
TCSIM_MFMA_KERNEL(f32_32x32x16_fp8_fp8, long, 8, 16, MFMA_CDNA3, f32_32x32x16_fp8_fp8, 32, 32, 16, 1)
TCSIM_MFMA_KERNEL(f32_16x16x32_bf8_bf8, long, 8, 4, MFMA_CDNA3, f32_16x16x32_bf8_bf8, 16, 16, 32, 1)
TCSIM_MFMA_KERNEL(f32_32x32x16_bf8_bf8, long, 8, 16, MFMA_CDNA3, f32_32x32x16_bf8_bf8, 32, 32, 16, 1)

// ------------------------------------------------------------------ host side

// Input formats: bits, exponent bits, fraction bits, bias; FNUZ: no Inf, no -0 (0x80 is NaN).
struct InFormat {
  const char* tcsim;  // --in of validate-dump
  const char* file;   // file-name format
  int width, exp_bits, frac_bits, bias;
  bool fnuz;
};
const InFormat kF32{"fp32", "fp32", 32, 8, 23, 127, false};
const InFormat kF16{"fp16", "fp16", 16, 5, 10, 15, false};
const InFormat kBf16{"bf16", "bf16", 16, 8, 7, 127, false};
const InFormat kFp8{"e4m3fnuz", "E4M3FNUZ", 8, 4, 3, 8, true};
const InFormat kBf8{"e5m2fnuz", "E5M2FNUZ", 8, 5, 2, 16, true};

enum Gen { kCdna1 = 1, kCdna2 = 2, kCdna3 = 4 };

struct Op {
  const char* name;  // the ISA name tcsim takes with --instruction
  int gens;          // generations that have the instruction under this name
  const InFormat* in;
  Shape shape;
  Kernel kernel;
};

#define TCSIM_OP(NAME, GENS, IN, ID, M, N, K, B) {NAME, GENS, &IN, Shape{M, N, K, B}, kernel_##ID}
const Op kOps[] = {
    TCSIM_OP("v_mfma_f32_32x32x1f32", kCdna1 | kCdna2, kF32, f32_32x32x1f32, 32, 32, 1, 2),
    TCSIM_OP("v_mfma_f32_16x16x1f32", kCdna1 | kCdna2, kF32, f32_16x16x1f32, 16, 16, 1, 4),
    TCSIM_OP("v_mfma_f32_4x4x1f32", kCdna1 | kCdna2, kF32, f32_4x4x1f32, 4, 4, 1, 16),
    TCSIM_OP("v_mfma_f32_32x32x2f32", kCdna1 | kCdna2, kF32, f32_32x32x2f32, 32, 32, 2, 1),
    TCSIM_OP("v_mfma_f32_16x16x4f32", kCdna1 | kCdna2, kF32, f32_16x16x4f32, 16, 16, 4, 1),
    TCSIM_OP("v_mfma_f32_32x32x4f16", kCdna1 | kCdna2, kF16, f32_32x32x4f16, 32, 32, 4, 2),
    TCSIM_OP("v_mfma_f32_16x16x4f16", kCdna1 | kCdna2, kF16, f32_16x16x4f16, 16, 16, 4, 4),
    TCSIM_OP("v_mfma_f32_4x4x4f16", kCdna1 | kCdna2, kF16, f32_4x4x4f16, 4, 4, 4, 16),
    TCSIM_OP("v_mfma_f32_32x32x8f16", kCdna1 | kCdna2, kF16, f32_32x32x8f16, 32, 32, 8, 1),
    TCSIM_OP("v_mfma_f32_16x16x16f16", kCdna1 | kCdna2, kF16, f32_16x16x16f16, 16, 16, 16, 1),
    TCSIM_OP("v_mfma_f32_32x32x2bf16", kCdna1 | kCdna2, kBf16, f32_32x32x2bf16, 32, 32, 2, 2),
    TCSIM_OP("v_mfma_f32_16x16x2bf16", kCdna1 | kCdna2, kBf16, f32_16x16x2bf16, 16, 16, 2, 4),
    TCSIM_OP("v_mfma_f32_4x4x2bf16", kCdna1 | kCdna2, kBf16, f32_4x4x2bf16, 4, 4, 2, 16),
    TCSIM_OP("v_mfma_f32_32x32x4bf16", kCdna1 | kCdna2, kBf16, f32_32x32x4bf16, 32, 32, 4, 1),
    TCSIM_OP("v_mfma_f32_16x16x8bf16", kCdna1 | kCdna2, kBf16, f32_16x16x8bf16, 16, 16, 8, 1),
    TCSIM_OP("v_mfma_f32_32x32x4bf16_1k", kCdna2, kBf16, f32_32x32x4bf16_1k, 32, 32, 4, 2),
    TCSIM_OP("v_mfma_f32_16x16x4bf16_1k", kCdna2, kBf16, f32_16x16x4bf16_1k, 16, 16, 4, 4),
    TCSIM_OP("v_mfma_f32_4x4x4bf16_1k", kCdna2, kBf16, f32_4x4x4bf16_1k, 4, 4, 4, 16),
    TCSIM_OP("v_mfma_f32_32x32x8bf16_1k", kCdna2, kBf16, f32_32x32x8bf16_1k, 32, 32, 8, 1),
    TCSIM_OP("v_mfma_f32_16x16x16bf16_1k", kCdna2, kBf16, f32_16x16x16bf16_1k, 16, 16, 16, 1),
    // CDNA3 names (the same builtins for f32, f16 and bf16).
    TCSIM_OP("v_mfma_f32_32x32x1_2b_f32", kCdna3, kF32, f32_32x32x1f32, 32, 32, 1, 2),
    TCSIM_OP("v_mfma_f32_16x16x1_4b_f32", kCdna3, kF32, f32_16x16x1f32, 16, 16, 1, 4),
    TCSIM_OP("v_mfma_f32_4x4x1_16b_f32", kCdna3, kF32, f32_4x4x1f32, 4, 4, 1, 16),
    TCSIM_OP("v_mfma_f32_32x32x2_f32", kCdna3, kF32, f32_32x32x2f32, 32, 32, 2, 1),
    TCSIM_OP("v_mfma_f32_16x16x4_f32", kCdna3, kF32, f32_16x16x4f32, 16, 16, 4, 1),
    TCSIM_OP("v_mfma_f32_32x32x4_2b_f16", kCdna3, kF16, f32_32x32x4f16, 32, 32, 4, 2),
    TCSIM_OP("v_mfma_f32_16x16x4_4b_f16", kCdna3, kF16, f32_16x16x4f16, 16, 16, 4, 4),
    TCSIM_OP("v_mfma_f32_4x4x4_16b_f16", kCdna3, kF16, f32_4x4x4f16, 4, 4, 4, 16),
    TCSIM_OP("v_mfma_f32_32x32x8_f16", kCdna3, kF16, f32_32x32x8f16, 32, 32, 8, 1),
    TCSIM_OP("v_mfma_f32_16x16x16_f16", kCdna3, kF16, f32_16x16x16f16, 16, 16, 16, 1),
    TCSIM_OP("v_mfma_f32_32x32x4_2b_bf16", kCdna3, kBf16, f32_32x32x4bf16_1k, 32, 32, 4, 2),
    TCSIM_OP("v_mfma_f32_16x16x4_4b_bf16", kCdna3, kBf16, f32_16x16x4bf16_1k, 16, 16, 4, 4),
    TCSIM_OP("v_mfma_f32_4x4x4_16b_bf16", kCdna3, kBf16, f32_4x4x4bf16_1k, 4, 4, 4, 16),
    TCSIM_OP("v_mfma_f32_32x32x8_bf16", kCdna3, kBf16, f32_32x32x8bf16_1k, 32, 32, 8, 1),
    TCSIM_OP("v_mfma_f32_16x16x16_bf16", kCdna3, kBf16, f32_16x16x16bf16_1k, 16, 16, 16, 1),
    TCSIM_OP("v_mfma_f32_16x16x8_xf32", kCdna3, kF32, f32_16x16x8_xf32, 16, 16, 8, 1),
    TCSIM_OP("v_mfma_f32_32x32x4_xf32", kCdna3, kF32, f32_32x32x4_xf32, 32, 32, 4, 1),
    TCSIM_OP("v_mfma_f32_16x16x32_fp8_fp8", kCdna3, kFp8, f32_16x16x32_fp8_fp8, 16, 16, 32, 1),
    TCSIM_OP("v_mfma_f32_32x32x16_fp8_fp8", kCdna3, kFp8, f32_32x32x16_fp8_fp8, 32, 32, 16, 1),
    TCSIM_OP("v_mfma_f32_16x16x32_bf8_bf8", kCdna3, kBf8, f32_16x16x32_bf8_bf8, 16, 16, 32, 1),
    TCSIM_OP("v_mfma_f32_32x32x16_bf8_bf8", kCdna3, kBf8, f32_32x32x16_bf8_bf8, 32, 32, 16, 1),
};

void check(hipError_t e, const char* what) {
  if (e == hipSuccess) return;
  std::fprintf(stderr, "mfma_dump: HIP error %s in %s: %s\n", hipGetErrorName(e), what, hipGetErrorString(e));
  std::exit(1);
}

// Binary32 pattern of an input pattern (finite; every value of these formats is exact in binary32).
std::uint32_t to_binary32(const InFormat& f, std::uint32_t bits) {
  if (f.width == 32) return bits;
  const bool neg = (bits >> (f.width - 1)) & 1u;
  const int field = static_cast<int>((bits >> f.frac_bits) & ((1u << f.exp_bits) - 1));
  const std::uint32_t frac = bits & ((1u << f.frac_bits) - 1);
  const double v = field == 0 ? std::ldexp(static_cast<double>(frac), 1 - f.bias - f.frac_bits)
                              : std::ldexp(static_cast<double>(frac | (1u << f.frac_bits)), field - f.bias - f.frac_bits);
  float x = static_cast<float>(neg ? -v : v);
  std::uint32_t r;
  std::memcpy(&r, &x, 4);
  return r;
}

struct Rng {  // splitmix64
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int range(int lo, int hi) { return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1)); }
};

// A random finite pattern: exponent in [lo, hi] (clamped to the format), `sub` percent subnormal.
std::uint32_t random_input(const InFormat& f, Rng& r, int lo, int hi, int sub) {
  const int emax_field = f.fnuz ? (1 << f.exp_bits) - 1 : (1 << f.exp_bits) - 2;
  const int field = r.range(0, 99) < sub ? 0 : std::max(1, std::min(emax_field, r.range(lo, hi) + f.bias));
  const std::uint32_t frac = static_cast<std::uint32_t>(r.next()) & ((1u << f.frac_bits) - 1);
  const std::uint32_t sign = static_cast<std::uint32_t>(r.next() & 1u) << (f.width - 1);
  std::uint32_t bits = sign | (static_cast<std::uint32_t>(field) << f.frac_bits) | frac;
  if (f.fnuz && bits == (1u << (f.width - 1))) bits = 0;  // 0x80 is FNUZ's NaN
  return bits;
}

const char* unit_of(int gen) { return gen == kCdna1 ? "mi100" : gen == kCdna2 ? "mi250x" : gen == kCdna3 ? "mi300x" : "<unit>"; }

int generation(const std::string& arch) {
  if (arch.rfind("gfx908", 0) == 0) return kCdna1;
  if (arch.rfind("gfx90a", 0) == 0) return kCdna2;
  if (arch.rfind("gfx940", 0) == 0 || arch.rfind("gfx941", 0) == 0 || arch.rfind("gfx942", 0) == 0) return kCdna3;
  return 0;
}

void write_hex_line(std::FILE* f, const std::uint32_t* v, int n) {
  for (int i = 0; i < n; ++i) std::fprintf(f, "%s%08x", i ? " " : "", v[i]);
  std::fprintf(f, "\n");
}
void write_bin_line(std::FILE* f, std::uint32_t v) {
  for (int i = 31; i >= 0; --i) std::fputc((v >> i) & 1u ? '1' : '0', f);
  std::fputc('\n', f);
}

int usage() {
  std::fprintf(stderr,
               "usage: mfma_dump --op <ISA name> [--gpu NAME] [--dir DIR] [--cases N] [--seed S] [--exp-range LO:HI] "
               "[--subnormals P] [--device I]\n       mfma_dump --list\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string op_name, gpu = "GPU", dir = ".";
  long cases = 4096;
  std::uint64_t seed = 1;
  int lo = -4, hi = 1, sub = 2, device = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) std::exit(usage());
      return argv[++i];
    };
    if (a == "--list") {
      for (const Op& op : kOps)
        std::printf("%-30s %dx%dx%d x%d blocks, %s, %s%s%s\n", op.name, op.shape.m, op.shape.n, op.shape.k, op.shape.blocks,
                    op.in->tcsim, op.gens & kCdna1 ? "CDNA1 " : "", op.gens & kCdna2 ? "CDNA2 " : "",
                    op.gens & kCdna3 ? "CDNA3" : "");
      return 0;
    }
    if (a == "--op") op_name = value();
    else if (a == "--gpu") gpu = value();
    else if (a == "--dir") dir = value();
    else if (a == "--cases") cases = std::atol(value().c_str());
    else if (a == "--seed") seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--subnormals") sub = std::atoi(value().c_str());
    else if (a == "--device") device = std::atoi(value().c_str());
    else if (a == "--exp-range") {
      const std::string v = value();
      if (std::sscanf(v.c_str(), "%d:%d", &lo, &hi) != 2 || lo > hi) return usage();
    } else {
      std::fprintf(stderr, "mfma_dump: unknown option '%s'\n", a.c_str());
      return usage();
    }
  }
  const Op* op = nullptr;
  for (const Op& o : kOps)
    if (op_name == o.name) op = &o;
  if (!op) {
    std::fprintf(stderr, "mfma_dump: unknown --op '%s' (mfma_dump --list shows them)\n", op_name.c_str());
    return 2;
  }
#ifdef TCSIM_HIP_SHIM
  std::fprintf(stderr, "mfma_dump: built against hip_shim.hpp (syntax check only): no GPU, no dumps\n");
  return 1;
#endif
  check(hipSetDevice(device), "hipSetDevice");
  hipDeviceProp_t prop;
  check(hipGetDeviceProperties(&prop, device), "hipGetDeviceProperties");
  const int gen = generation(prop.gcnArchName);
  std::printf("device %d: %s (%s)\n", device, prop.name, prop.gcnArchName);
  if (!(op->gens & gen)) {
    std::fprintf(stderr, "mfma_dump: %s does not exist on %s (mfma_dump --list)\n", op->name, prop.gcnArchName);
    return 1;
  }
  const Shape s = op->shape;
  const long per_tile = static_cast<long>(s.blocks) * s.m * s.n;
  const int tiles = static_cast<int>(std::max(1L, (cases + per_tile - 1) / per_tile));
  const std::size_t na = static_cast<std::size_t>(tiles) * s.blocks * s.m * s.k;
  const std::size_t nb = static_cast<std::size_t>(tiles) * s.blocks * s.n * s.k;
  const std::size_t nc = static_cast<std::size_t>(tiles) * per_tile;
  Rng rng{seed};
  std::vector<std::uint32_t> A(na), B(nb), C(nc), D(nc);
  for (auto& x : A) x = random_input(*op->in, rng, lo, hi, sub);
  for (auto& x : B) x = random_input(*op->in, rng, lo, hi, sub);
  for (auto& x : C) x = random_input(kF32, rng, lo, hi + 2, 0);
  void *dA, *dB, *dC, *dD;
  check(hipMalloc(&dA, na * 4), "hipMalloc");
  check(hipMalloc(&dB, nb * 4), "hipMalloc");
  check(hipMalloc(&dC, nc * 4), "hipMalloc");
  check(hipMalloc(&dD, nc * 4), "hipMalloc");
  check(hipMemcpy(dA, A.data(), na * 4, hipMemcpyHostToDevice), "hipMemcpy");
  check(hipMemcpy(dB, B.data(), nb * 4, hipMemcpyHostToDevice), "hipMemcpy");
  check(hipMemcpy(dC, C.data(), nc * 4, hipMemcpyHostToDevice), "hipMemcpy");
  hipLaunchKernelGGL(op->kernel, dim3(tiles), dim3(64), 0, 0, static_cast<const std::uint32_t*>(dA),
                     static_cast<const std::uint32_t*>(dB), static_cast<const float*>(dC), static_cast<float*>(dD));
  check(hipGetLastError(), "kernel launch");
  check(hipDeviceSynchronize(), "kernel");
  check(hipMemcpy(D.data(), dD, nc * 4, hipMemcpyDeviceToHost), "hipMemcpy");
  hipFree(dA);
  hipFree(dB);
  hipFree(dC);
  hipFree(dD);

  std::filesystem::create_directories(dir);
  const std::string stem = gpu + "_" + op->in->file;
  const std::string fa = dir + "/a_" + stem + ".txt", fb = dir + "/b_" + stem + ".txt";
  const std::string fc = dir + "/c_" + gpu + "_fp32.txt", fd = dir + "/d_" + gpu + "_fp32.txt";
  std::FILE *pa = std::fopen(fa.c_str(), "w"), *pb = std::fopen(fb.c_str(), "w");
  std::FILE *pc = std::fopen(fc.c_str(), "w"), *pd = std::fopen(fd.c_str(), "w");
  if (!pa || !pb || !pc || !pd) {
    std::fprintf(stderr, "mfma_dump: cannot write into %s\n", dir.c_str());
    return 1;
  }
  std::vector<std::uint32_t> row(s.k);
  long written = 0;
  for (int t = 0; t < tiles && written < cases; ++t)
    for (int blk = 0; blk < s.blocks && written < cases; ++blk)
      for (int i = 0; i < s.m && written < cases; ++i)
        for (int j = 0; j < s.n && written < cases; ++j, ++written) {
          const std::size_t base_a = ((static_cast<std::size_t>(t) * s.blocks + blk) * s.m + i) * s.k;
          const std::size_t base_b = ((static_cast<std::size_t>(t) * s.blocks + blk) * s.n + j) * s.k;
          const std::size_t e = ((static_cast<std::size_t>(t) * s.blocks + blk) * s.m + i) * s.n + j;
          for (int k = 0; k < s.k; ++k) row[k] = to_binary32(*op->in, A[base_a + k]);
          write_hex_line(pa, row.data(), s.k);
          for (int k = 0; k < s.k; ++k) row[k] = to_binary32(*op->in, B[base_b + k]);
          write_hex_line(pb, row.data(), s.k);
          write_bin_line(pc, C[e]);
          write_bin_line(pd, D[e]);
        }
  for (std::FILE* f : {pa, pb, pc, pd})
    if (std::fclose(f) != 0) {
      std::fprintf(stderr, "mfma_dump: writing into %s failed\n", dir.c_str());
      return 1;
    }
  std::printf("%ld cases (%d instructions of %d block%s of %dx%dx%d)\n", written, tiles, s.blocks,
              s.blocks == 1 ? "" : "s", s.m, s.n, s.k);
  std::printf("tcsim validate-dump --unit %s --in %s --out fp32 --instruction %s --a %s --b %s --c %s --d %s\n",
              unit_of(gen), op->in->tcsim, op->name, fa.c_str(), fb.c_str(), fc.c_str(), fd.c_str());
  if (gen == kCdna3 && (op->in != &kF32 || std::strstr(op->name, "xf32")))
    std::printf("tcsim validate-dump --unit %s --in %s --out fp32 --instruction %s.v1 --a %s --b %s --c %s --d %s\n",
                unit_of(gen), op->in->tcsim, op->name, fa.c_str(), fb.c_str(), fc.c_str(), fd.c_str());
  return 0;
}
