// Eigen's GEMM built for AVX-512 (see native_gemm.hpp); CMake compiles this file with
// -march=x86-64-v4.
#define NATIVE_GEMM_NAME native_gemm_f32_avx512
#define NATIVE_GEMM_MNK_NAME native_gemm_f32_mnk_avx512
#define NATIVE_GEMM64_NAME native_gemm_f64_avx512
#define NATIVE_GEMM64_MNK_NAME native_gemm_f64_mnk_avx512
#define NATIVE_GEMM_ISA "avx512"
#define NATIVE_LU_NAME native_lu_f32_avx512
#include "native_gemm_impl.hpp"
