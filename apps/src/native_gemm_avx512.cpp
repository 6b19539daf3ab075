// Eigen's GEMM built for AVX-512 (see native_gemm.hpp); CMake compiles this file with
// -march=x86-64-v4.
#define NATIVE_BUILD avx512_build
#define NATIVE_GEMM_ISA "avx512"
#include "native_gemm_impl.hpp"
