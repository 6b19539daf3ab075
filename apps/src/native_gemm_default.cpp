// Eigen's GEMM built for the default instruction set, and the run-time choice between the
// builds (see native_gemm.hpp).
#define NATIVE_BUILD default_build
#define NATIVE_GEMM_ISA "default"
#include "native_gemm_impl.hpp"

namespace tcsim::cli {

namespace {

// The AVX-512 build where the CPU runs it (F, DQ, BW and VL, as -march=x86-64-v4 assumes).
const detail::NativeBuild& best_build() {
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  return avx512 ? detail::avx512_build : detail::default_build;
}

}  // namespace

NativeGemm native_gemm(std::size_t m, std::size_t n, std::size_t k, const float* A, const float* B, const float* C,
                       int runs, int threads) {
  return best_build().gemm_f32(m, n, k, A, B, C, runs, threads);
}

NativeGemm native_gemm(std::size_t m, std::size_t n, std::size_t k, const double* A, const double* B,
                       const double* C, int runs, int threads) {
  return best_build().gemm_f64(m, n, k, A, B, C, runs, threads);
}

NativeGemm native_lu_f32(std::size_t n, const float* A, int runs, int threads) {
  return best_build().lu_f32(n, A, runs, threads);
}

}  // namespace tcsim::cli
