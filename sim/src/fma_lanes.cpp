// fma_lanes (see fma_lanes.hpp): IEEE FMA chains of the fma-chain rows' GEMM across SIMD lanes,
// compiled once per Highway target and chosen at run time; targets without a fused
// multiply-add run the scalar std::fma chain.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "fma_lanes.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "tcsim/sim/fma_lanes.hpp"

HWY_BEFORE_NAMESPACE();
namespace tcsim::fma_lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Products per chunk of the chain: a chunk of one strip (128 x 128 bytes) stays in L1 while
// every row group of the task runs through it. The order in t is unchanged (each element's
// accumulator goes back to memory between chunks).
constexpr std::size_t kChunk = 128;

// Whether MulAdd fuses on this target: (1 + u)(1 - u) - 1 is -u^2 with one rounding and 0 with
// two (1 - u^2 rounds to 1 in T). The inputs are read through volatile so that the compiler
// evaluates the target's operation, not its own folding.
template <class T>
bool Probe() {
#if HWY_NATIVE_FMA
  const hn::CappedTag<T, kStrip<T> / 2> d;
  volatile T one = 1;
  const T u = sizeof(T) == 4 ? static_cast<T>(0x1p-13) : static_cast<T>(0x1p-27);
  const T o = one;
  const auto x = hn::MulAdd(hn::Set(d, o + u), hn::Set(d, o - u), hn::Set(d, -o));
  return hn::GetLane(x) == -(u * u);
#else
  return false;
#endif
}

template <class T>
bool Fused() {
  static const bool fused = Probe<T>();
  return fused;
}

// The scalar chain, same order: the targets without fused lanes.
template <class T>
void ChainScalar(std::size_t rows, std::size_t K, const T* a, std::size_t lda, const T* packed, std::size_t s0,
                 std::size_t s1, T* acc, std::size_t ldacc) {
  constexpr std::size_t W = kStrip<T>;
  for (std::size_t s = s0; s < s1; ++s)
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t w = 0; w < W && K > 0; ++w) {  // K = 0: nothing to add (and packed may be null)
        T x = acc[r * ldacc + (s - s0) * W + w];
        const T* bp = packed + s * K * W + w;
        for (std::size_t t = 0; t < K; ++t) x = std::fma(a[r * lda + t], bp[t * W], x);
        acc[r * ldacc + (s - s0) * W + w] = x;
      }
}

// R rows x one strip over `len` products: two vectors of columns per pass (one pass when a
// vector holds half a strip), the accumulators in registers.
template <class T, std::size_t R>
HWY_INLINE void Rows(std::size_t len, const T* a, std::size_t lda, const T* strip, T* acc, std::size_t ldacc) {
  constexpr std::size_t W = kStrip<T>;
  const hn::CappedTag<T, W / 2> d;
  using V = hn::Vec<decltype(d)>;
  const std::size_t N = hn::Lanes(d);
  for (std::size_t j = 0; j < W; j += 2 * N) {
    V s0[R], s1[R];
    for (std::size_t r = 0; r < R; ++r) {
      s0[r] = hn::LoadU(d, acc + r * ldacc + j);
      s1[r] = hn::LoadU(d, acc + r * ldacc + j + N);
    }
    const T* bp = strip + j;
    for (std::size_t t = 0; t < len; ++t, bp += W) {
      const V b0 = hn::LoadU(d, bp), b1 = hn::LoadU(d, bp + N);
      for (std::size_t r = 0; r < R; ++r) {
        const V x = hn::Set(d, a[r * lda + t]);
        s0[r] = hn::MulAdd(x, b0, s0[r]);
        s1[r] = hn::MulAdd(x, b1, s1[r]);
      }
    }
    for (std::size_t r = 0; r < R; ++r) {
      hn::StoreU(s0[r], d, acc + r * ldacc + j);
      hn::StoreU(s1[r], d, acc + r * ldacc + j + N);
    }
  }
}

template <class T>
void ChainT(std::size_t rows, std::size_t K, const T* a, std::size_t lda, const T* packed, std::size_t s0,
            std::size_t s1, T* acc, std::size_t ldacc) {
  if (!Fused<T>()) return ChainScalar(rows, K, a, lda, packed, s0, s1, acc, ldacc);
  constexpr std::size_t W = kStrip<T>;
  // 8 rows x 2 vectors: 16 accumulators, 2 operand vectors and a broadcast fit 32 registers
  // (AVX-512); 4 rows where there are 16.
  constexpr std::size_t R = HWY_MAX_BYTES >= 64 ? 8 : 4;
  for (std::size_t t0 = 0; t0 < K; t0 += kChunk) {
    const std::size_t len = std::min(K, t0 + kChunk) - t0;
    for (std::size_t s = s0; s < s1; ++s) {
      const T* strip = packed + s * K * W + t0 * W;
      T* as = acc + (s - s0) * W;
      std::size_t r = 0;
      for (; r + R <= rows; r += R) Rows<T, R>(len, a + r * lda + t0, lda, strip, as + r * ldacc, ldacc);
      for (; r < rows; ++r) Rows<T, 1>(len, a + r * lda + t0, lda, strip, as + r * ldacc, ldacc);
    }
  }
}

void ChainF32(std::size_t rows, std::size_t K, const float* a, std::size_t lda, const float* packed, std::size_t s0,
              std::size_t s1, float* acc, std::size_t ldacc) {
  ChainT(rows, K, a, lda, packed, s0, s1, acc, ldacc);
}
void ChainF64(std::size_t rows, std::size_t K, const double* a, std::size_t lda, const double* packed,
              std::size_t s0, std::size_t s1, double* acc, std::size_t ldacc) {
  ChainT(rows, K, a, lda, packed, s0, s1, acc, ldacc);
}
bool FusedF32() { return Fused<float>(); }
bool FusedF64() { return Fused<double>(); }
const char* Name() { return hwy::TargetName(HWY_TARGET); }

}  // namespace tcsim::fma_lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tcsim::fma_lanes {

HWY_EXPORT(ChainF32);
HWY_EXPORT(ChainF64);
HWY_EXPORT(FusedF32);
HWY_EXPORT(FusedF64);
HWY_EXPORT(Name);

namespace {
template <class T>
void pack(std::size_t K, std::size_t n, const std::uint64_t* b, std::size_t ldb, T* packed) {
  using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  constexpr std::size_t W = kStrip<T>;
  for (std::size_t s = 0; s < strips<T>(n); ++s)
    for (std::size_t t = 0; t < K; ++t) {
      T* dst = packed + s * K * W + t * W;
      const std::uint64_t* src = b + t * ldb + s * W;
      const std::size_t w_end = std::min(W, n - s * W);
      for (std::size_t w = 0; w < w_end; ++w) dst[w] = std::bit_cast<T>(static_cast<U>(src[w]));
      std::fill(dst + w_end, dst + W, T(0));
    }
}
}  // namespace

void pack_b(std::size_t K, std::size_t n, const std::uint64_t* b, std::size_t ldb, float* packed) {
  pack(K, n, b, ldb, packed);
}
void pack_b(std::size_t K, std::size_t n, const std::uint64_t* b, std::size_t ldb, double* packed) {
  pack(K, n, b, ldb, packed);
}

void chain(std::size_t rows, std::size_t K, const float* a, std::size_t lda, const float* packed, std::size_t s0,
           std::size_t s1, float* acc, std::size_t ldacc) {
  const DefaultFloatEnvironment env;
  HWY_DYNAMIC_DISPATCH(ChainF32)(rows, K, a, lda, packed, s0, s1, acc, ldacc);
}
void chain(std::size_t rows, std::size_t K, const double* a, std::size_t lda, const double* packed, std::size_t s0,
           std::size_t s1, double* acc, std::size_t ldacc) {
  const DefaultFloatEnvironment env;
  HWY_DYNAMIC_DISPATCH(ChainF64)(rows, K, a, lda, packed, s0, s1, acc, ldacc);
}

bool lanes_fused(bool binary64) {
  const DefaultFloatEnvironment env;
  return binary64 ? HWY_DYNAMIC_DISPATCH(FusedF64)() : HWY_DYNAMIC_DISPATCH(FusedF32)();
}
const char* target_name() { return HWY_DYNAMIC_DISPATCH(Name)(); }

}  // namespace tcsim::fma_lanes
#endif
