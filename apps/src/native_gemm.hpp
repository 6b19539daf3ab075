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

// D = C + A (m x k) B (k x n) in binary32 (row-major inputs), timed `runs` times with
// `threads` threads (0: all).
NativeGemm native_gemm(std::size_t m, std::size_t n, std::size_t k, const float* A, const float* B, const float* C,
                       int runs, int threads);

// The same in binary64 (the baseline of the fp64 rows).
NativeGemm native_gemm(std::size_t m, std::size_t n, std::size_t k, const double* A, const double* B,
                       const double* C, int runs, int threads);

// Eigen's binary32 LU with partial pivoting of the row-major n x n A (the baseline of
// `tcsim bench lu`), timed the same way.
NativeGemm native_lu_f32(std::size_t n, const float* A, int runs, int threads);

namespace detail {
// One build of the baseline: native_gemm_impl.hpp compiled with one instruction set.
struct NativeBuild {
  NativeGemm (*gemm_f32)(std::size_t m, std::size_t n, std::size_t k, const float* A, const float* B, const float* C,
                         int runs, int threads);
  NativeGemm (*gemm_f64)(std::size_t m, std::size_t n, std::size_t k, const double* A, const double* B,
                         const double* C, int runs, int threads);
  NativeGemm (*lu_f32)(std::size_t n, const float* A, int runs, int threads);
};
extern const NativeBuild avx512_build;   // native_gemm_avx512.cpp (-march=x86-64-v4)
extern const NativeBuild default_build;  // native_gemm_default.cpp
}  // namespace detail

}  // namespace tcsim::cli
