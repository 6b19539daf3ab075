// The body of the native baseline, included by native_gemm_avx512.cpp and
// native_gemm_default.cpp with different compile flags: each defines its NativeBuild
// (NATIVE_BUILD) with its own copy of Eigen (NATIVE_GEMM_ISA names it).
#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <omp.h>
#include <optional>

#include "native_gemm.hpp"

namespace tcsim::cli::detail {

namespace {  // internal linkage: each build (flags) keeps its own instantiations

// Runs `once` runs + 1 times on `threads` threads (0: all); the first run warms up, the best
// of the others is kept. The caller sets the checksum, outside the timed runs.
template <class Once>
NativeGemm best_of(int runs, int threads, Once once) {
  NativeGemm r;
  r.isa = NATIVE_GEMM_ISA;
  r.threads = threads > 0 ? threads : omp_get_max_threads();
  Eigen::setNbThreads(r.threads);
  r.seconds = 1e300;
  for (int run = 0; run < std::max(1, runs) + 1; ++run) {
    const auto t0 = std::chrono::steady_clock::now();
    once();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (run > 0) r.seconds = std::min(r.seconds, s);
  }
  return r;
}

// D = C + A (m x k) B (k x n), row-major.
template <class T>
NativeGemm gemm_body(std::size_t m, std::size_t n, std::size_t k, const T* A, const T* B, const T* C, int runs,
                     int threads) {
  using M = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const auto Mi = static_cast<Eigen::Index>(m), Ni = static_cast<Eigen::Index>(n), Ki = static_cast<Eigen::Index>(k);
  const M a = Eigen::Map<const M>(A, Mi, Ki), b = Eigen::Map<const M>(B, Ki, Ni), c = Eigen::Map<const M>(C, Mi, Ni);
  M d(Mi, Ni);
  NativeGemm r = best_of(runs, threads, [&] {
    d = c;
    d.noalias() += a * b;
  });
  r.checksum = static_cast<double>(d.sum());
  return r;
}

// Eigen's blocked LU with partial pivoting (PartialPivLU: recursive panels, GEMM updates on
// all threads) of the binary32 matrix A.
NativeGemm lu_body(std::size_t n, const float* A, int runs, int threads) {
  using M = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const auto N = static_cast<Eigen::Index>(n);
  const M a = Eigen::Map<const M>(A, N, N);
  std::optional<Eigen::PartialPivLU<M>> lu;  // built inside each timed run, as a user would
  NativeGemm r = best_of(runs, threads, [&] { lu.emplace(a); });
  r.checksum = static_cast<double>(lu->matrixLU().sum());
  return r;
}

}  // namespace

const NativeBuild NATIVE_BUILD{&gemm_body<float>, &gemm_body<double>, &lu_body};

}  // namespace tcsim::cli::detail
