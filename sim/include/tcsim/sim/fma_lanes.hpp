// IEEE FMA chains across SIMD lanes: the GEMM of the fma-chain rows (fp64 rows, AMD
// v_mfma_f32_*f32 and *f64; models/src/unit_gemm.cpp). One output element per lane, each
// element's chain d = fma(a_t, b_t, d) taken in index order t = 0, 1, ..., exactly as the scalar
// chain (std::fmaf / std::fma, models/src/unit_impl.hpp) takes it: a fused multiply-add in a lane
// is the same IEEE operation (one rounding, RNE, subnormals kept), so every lane's bits equal the
// scalar chain's, NaN payloads aside (callers map NaN to the row's pattern).
//
// Highway's MulAdd is a fused multiply-add only on targets with one (HWY_NATIVE_FMA: AVX2,
// AVX-512, NEON, SVE, ...); on SSSE3, SSE4 and the scalar targets it is a multiply and an add
// (two roundings). Those targets, and any target whose MulAdd a probe finds unfused, run the
// scalar std::fma chain instead (lanes_fused() says which). Nothing depends on the caller's
// floating-point environment: the MXCSR is set to its default (RNE, no flush-to-zero, no
// denormals-are-zero) for the duration of each call (DefaultFloatEnvironment).
// Proven equal to the scalar chain by sim/tests/test_fma_lanes.cpp (every compiled target) and
// models/tests/test_fma_lanes_gemm.cpp (every fma-chain row through Unit::gemm).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace tcsim::fma_lanes {

// Columns per strip of packed B: 128 bytes of values (32 binary32, 16 binary64).
template <class T>
inline constexpr std::size_t kStrip = 128 / sizeof(T);

// Strips of kStrip<T> columns that hold n columns.
template <class T>
constexpr std::size_t strips(std::size_t n) {
  return (n + kStrip<T> - 1) / kStrip<T>;
}

// B's K x n patterns (row t at b + t * ldb; binary32 in the low 32 bits, or binary64) as values
// in strips: packed[s * K * W + t * W + w] = B[t][s * W + w] (W = kStrip), +0 beyond column n.
// `packed` holds strips<T>(n) * K * W values.
void pack_b(std::size_t K, std::size_t n, const std::uint64_t* b, std::size_t ldb, float* packed);
void pack_b(std::size_t K, std::size_t n, const std::uint64_t* b, std::size_t ldb, double* packed);

// The chains of `rows` rows of A (values a[r * lda + t], t < K) against the strips [s0, s1) of
// packed B (packed with this K): for every column of those strips,
// acc[r * ldacc + (s - s0) * W + w] = fma(a[r][K-1], b[K-1][col], ... fma(a[r][0], b[0][col], acc) ...).
// ldacc >= (s1 - s0) * W.
void chain(std::size_t rows, std::size_t K, const float* a, std::size_t lda, const float* packed, std::size_t s0,
           std::size_t s1, float* acc, std::size_t ldacc);
void chain(std::size_t rows, std::size_t K, const double* a, std::size_t lda, const double* packed, std::size_t s0,
           std::size_t s1, double* acc, std::size_t ldacc);

// Whether chain() runs in vector lanes on this machine (the best dispatched target has a fused
// multiply-add and the probe confirms it); false: the scalar std::fma chain. `binary64` picks
// the lane type probed.
bool lanes_fused(bool binary64);
// The Highway target chain() dispatches to ("AVX3", "AVX2", "SSE4", ...).
const char* target_name();
// The GEMM path of the fma-chain rows as `tcsim units` and `tcsim bench gemm` name it:
// "fma-chain (lanes)", or "fma-chain (scalar)" where the lanes do not fuse.
inline std::string gemm_path_label(bool binary64) {
  return lanes_fused(binary64) ? "fma-chain (lanes)" : "fma-chain (scalar)";
}

// RAII: the x86 MXCSR at its default (round to nearest even, flush-to-zero and
// denormals-are-zero off, exceptions masked) while alive, restored after. Elsewhere a no-op.
class DefaultFloatEnvironment {
 public:
#if defined(__SSE__) || defined(__x86_64__)
  DefaultFloatEnvironment() : saved_(_mm_getcsr()) { _mm_setcsr(0x1f80u); }
  ~DefaultFloatEnvironment() { _mm_setcsr(saved_); }
#else
  DefaultFloatEnvironment() = default;
#endif
  DefaultFloatEnvironment(const DefaultFloatEnvironment&) = delete;
  DefaultFloatEnvironment& operator=(const DefaultFloatEnvironment&) = delete;

 private:
#if defined(__SSE__) || defined(__x86_64__)
  unsigned saved_;
#endif
};

}  // namespace tcsim::fma_lanes
