// Eigen's GEMM built for the default instruction set, and the run-time choice between the
// builds (see native_gemm.hpp).
#define NATIVE_GEMM_NAME native_gemm_f32_default
#define NATIVE_GEMM_MNK_NAME native_gemm_f32_mnk_default
#define NATIVE_GEMM64_NAME native_gemm_f64_default
#define NATIVE_GEMM64_MNK_NAME native_gemm_f64_mnk_default
#define NATIVE_GEMM_ISA "default"
#define NATIVE_LU_NAME native_lu_f32_default
#include "native_gemm_impl.hpp"

namespace tcsim::cli {

NativeGemm native_gemm_f32(std::size_t n, const float* A, const float* B, const float* C, int runs, int threads) {
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl"))
    return detail::native_gemm_f32_avx512(n, A, B, C, runs, threads);
  return detail::native_gemm_f32_default(n, A, B, C, runs, threads);
}

NativeGemm native_gemm_f64(std::size_t n, const double* A, const double* B, const double* C, int runs, int threads) {
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl"))
    return detail::native_gemm_f64_avx512(n, A, B, C, runs, threads);
  return detail::native_gemm_f64_default(n, A, B, C, runs, threads);
}

NativeGemm native_lu_f32(std::size_t n, const float* A, int runs, int threads) {
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl"))
    return detail::native_lu_f32_avx512(n, A, runs, threads);
  return detail::native_lu_f32_default(n, A, runs, threads);
}

NativeGemm native_gemm_f32_mnk(std::size_t m, std::size_t n, std::size_t k, const float* A, const float* B,
                               const float* C, int runs, int threads) {
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl"))
    return detail::native_gemm_f32_mnk_avx512(m, n, k, A, B, C, runs, threads);
  return detail::native_gemm_f32_mnk_default(m, n, k, A, B, C, runs, threads);
}

NativeGemm native_gemm_f64_mnk(std::size_t m, std::size_t n, std::size_t k, const double* A, const double* B,
                               const double* C, int runs, int threads) {
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl"))
    return detail::native_gemm_f64_mnk_avx512(m, n, k, A, B, C, runs, threads);
  return detail::native_gemm_f64_mnk_default(m, n, k, A, B, C, runs, threads);
}

}  // namespace tcsim::cli
