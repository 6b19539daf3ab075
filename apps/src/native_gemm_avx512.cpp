// Eigen's GEMM built for AVX-512 (see native_gemm.hpp); CMake compiles this file with
// -march=x86-64-v4.
#define NATIVE_BUILD avx512_build
#define NATIVE_GEMM_ISA "avx512"
// Eigen under another namespace name in this build: Eigen is header-only, and its inline
// functions (aligned_malloc/aligned_free, whose layout follows EIGEN_MAX_ALIGN_BYTES: 64 here,
// 16 in the default build) would otherwise be one symbol for both builds, the linker keeping
// either copy. A unity build's link order kept the default build's allocator beside this
// build's inline free, and bench gemm crashed (docs/testing.md, session 46).
#define Eigen tcsim_eigen_avx512
#include "native_gemm_impl.hpp"
