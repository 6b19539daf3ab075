// SYNTAX-CHECK SHIM ONLY. A host-only stand-in for the HIP runtime and the
// __builtin_amdgcn_mfma_* intrinsics, so that mfma_dump.hip can be compile-checked by a host
// C++ compiler on machines without hipcc (validation/hip/CMakeLists.txt). Nothing here
// computes what a GPU computes: the "intrinsics" return c unchanged and a kernel launch is a
// loop over the 64 lanes on the host. Never use this to produce dump files (mfma_dump refuses
// to run when built with it).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#define TCSIM_HIP_SHIM 1
#define __global__
#define __device__
#define __host__
#define TCSIM_VEC(T, N) __attribute__((vector_size(sizeof(T) * (N))))

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
inline thread_local dim3 threadIdx, blockIdx;

using hipError_t = int;
constexpr hipError_t hipSuccess = 0;
enum hipMemcpyKind { hipMemcpyHostToDevice, hipMemcpyDeviceToHost };
struct hipDeviceProp_t {
  char name[256] = "hip-shim (no GPU)";
  char gcnArchName[256] = "shim";
};
inline hipError_t hipMalloc(void** p, std::size_t n) {
  *p = std::malloc(n);
  return hipSuccess;
}
inline hipError_t hipFree(void* p) {
  std::free(p);
  return hipSuccess;
}
inline hipError_t hipMemcpy(void* d, const void* s, std::size_t n, hipMemcpyKind) {
  std::memcpy(d, s, n);
  return hipSuccess;
}
inline hipError_t hipDeviceSynchronize() { return hipSuccess; }
inline hipError_t hipGetLastError() { return hipSuccess; }
inline hipError_t hipSetDevice(int) { return hipSuccess; }
inline hipError_t hipGetDeviceProperties(hipDeviceProp_t* p, int) {
  *p = hipDeviceProp_t{};
  return hipSuccess;
}
inline const char* hipGetErrorString(hipError_t) { return "hip-shim"; }
inline const char* hipGetErrorName(hipError_t) { return "hipShim"; }

// A launch: every block, every lane, one after the other on the host.
#define hipLaunchKernelGGL(kernel, grid, block, shared, stream, ...)         \
  do {                                                                       \
    for (unsigned b_ = 0; b_ < dim3(grid).x; ++b_)                           \
      for (unsigned t_ = 0; t_ < dim3(block).x; ++t_) {                      \
        blockIdx = dim3(b_);                                                 \
        threadIdx = dim3(t_);                                                \
        kernel(__VA_ARGS__);                                                 \
      }                                                                      \
  } while (0)

// The MFMA builtins of CDNA1-3 (names as in clang's BuiltinsAMDGPU.def), typed loosely.
#define TCSIM_SHIM_MFMA(name) \
  template <class A, class B, class C> C __builtin_amdgcn_mfma_##name(A, B, C c, int, int, int) { return c; }
TCSIM_SHIM_MFMA(f32_32x32x1f32)
TCSIM_SHIM_MFMA(f32_16x16x1f32)
TCSIM_SHIM_MFMA(f32_4x4x1f32)
TCSIM_SHIM_MFMA(f32_32x32x2f32)
TCSIM_SHIM_MFMA(f32_16x16x4f32)
TCSIM_SHIM_MFMA(f32_32x32x4f16)
TCSIM_SHIM_MFMA(f32_16x16x4f16)
TCSIM_SHIM_MFMA(f32_4x4x4f16)
TCSIM_SHIM_MFMA(f32_32x32x8f16)
TCSIM_SHIM_MFMA(f32_16x16x16f16)
TCSIM_SHIM_MFMA(f32_32x32x2bf16)
TCSIM_SHIM_MFMA(f32_16x16x2bf16)
TCSIM_SHIM_MFMA(f32_4x4x2bf16)
TCSIM_SHIM_MFMA(f32_32x32x4bf16)
TCSIM_SHIM_MFMA(f32_16x16x8bf16)
TCSIM_SHIM_MFMA(f32_32x32x4bf16_1k)
TCSIM_SHIM_MFMA(f32_16x16x4bf16_1k)
TCSIM_SHIM_MFMA(f32_4x4x4bf16_1k)
TCSIM_SHIM_MFMA(f32_32x32x8bf16_1k)
TCSIM_SHIM_MFMA(f32_16x16x16bf16_1k)
TCSIM_SHIM_MFMA(f32_16x16x8_xf32)
TCSIM_SHIM_MFMA(f32_32x32x4_xf32)
TCSIM_SHIM_MFMA(f32_16x16x32_fp8_fp8)
TCSIM_SHIM_MFMA(f32_32x32x16_fp8_fp8)
TCSIM_SHIM_MFMA(f32_16x16x32_bf8_bf8)
TCSIM_SHIM_MFMA(f32_32x32x16_bf8_bf8)
#undef TCSIM_SHIM_MFMA
