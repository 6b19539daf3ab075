// The native baseline of `tcsim bench gemm`: Eigen's binary32 GEMM, multi-threaded (OpenMP),
// compiled twice (AVX-512 and the build's default instruction set) and chosen at run time,
// so that the comparison is with the best native GEMM this machine runs.
#pragma once
#include <cstddef>
#include <string>

namespace tcsim::cli {

struct NativeGemm {
  double seconds = 0;      // best of the timed runs
  std::string isa;         // "avx512" or "default"
  int threads = 1;
  double checksum = 0;     // sum of D, so the work cannot be optimized away
};

// D = C + A B in binary32 (row-major n x n inputs), timed `runs` times with `threads`
// threads (0: all).
NativeGemm native_gemm_f32(std::size_t n, const float* A, const float* B, const float* C, int runs, int threads);

// The same in binary64 (the baseline of the fp64 rows in `tcsim bench gemm --all-rows`).
NativeGemm native_gemm_f64(std::size_t n, const double* A, const double* B, const double* C, int runs, int threads);

// A (m x k) B (k x n) + C in binary32 (`tcsim bench gemm --k`), timed as native_gemm_f32.
NativeGemm native_gemm_f32_mnk(std::size_t m, std::size_t n, std::size_t k, const float* A, const float* B,
                               const float* C, int runs, int threads);

// The same in binary64 (`tcsim bench gemm --k` on the fp64 rows).
NativeGemm native_gemm_f64_mnk(std::size_t m, std::size_t n, std::size_t k, const double* A, const double* B,
                               const double* C, int runs, int threads);

// Eigen's binary32 LU with partial pivoting of the row-major n x n A (the baseline of
// `tcsim bench lu`), timed the same way.
NativeGemm native_lu_f32(std::size_t n, const float* A, int runs, int threads);

namespace detail {
NativeGemm native_gemm_f32_avx512(std::size_t n, const float* A, const float* B, const float* C, int runs, int threads);
NativeGemm native_gemm_f32_default(std::size_t n, const float* A, const float* B, const float* C, int runs, int threads);
NativeGemm native_gemm_f64_avx512(std::size_t n, const double* A, const double* B, const double* C, int runs, int threads);
NativeGemm native_gemm_f64_default(std::size_t n, const double* A, const double* B, const double* C, int runs, int threads);
NativeGemm native_gemm_f32_mnk_avx512(std::size_t m, std::size_t n, std::size_t k, const float* A, const float* B,
                                      const float* C, int runs, int threads);
NativeGemm native_gemm_f32_mnk_default(std::size_t m, std::size_t n, std::size_t k, const float* A, const float* B,
                                       const float* C, int runs, int threads);
NativeGemm native_gemm_f64_mnk_avx512(std::size_t m, std::size_t n, std::size_t k, const double* A, const double* B,
                                      const double* C, int runs, int threads);
NativeGemm native_gemm_f64_mnk_default(std::size_t m, std::size_t n, std::size_t k, const double* A, const double* B,
                                       const double* C, int runs, int threads);
NativeGemm native_lu_f32_avx512(std::size_t n, const float* A, int runs, int threads);
NativeGemm native_lu_f32_default(std::size_t n, const float* A, int runs, int threads);
}  // namespace detail

}  // namespace tcsim::cli
