// fma_lanes (issue 25): the fma-chain rows' GEMM chains in SIMD lanes against the scalar chain
// (std::fmaf / std::fma in t order, the operation detail::fma_chain runs), on every compiled
// Highway target this CPU runs (the targets without a fused multiply-add take the scalar chain),
// with the edges on purpose: zeros of both signs, subnormal operands, products and sums,
// products that cancel the accumulator, overflow to Inf, Inf and NaN. Bits equal (NaN: both NaN).
// Also: the caller's flush-to-zero / denormals-are-zero bits change nothing.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <hwy/targets.h>

#include "tcsim/sim/fma_lanes.hpp"
#include "test_support.hpp"

using tcsim::test::Rng;
namespace fl = tcsim::fma_lanes;

namespace {

template <class T>
using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

// A value of T aimed at the chain's edges.
template <class T>
T draw(Rng& r) {
  using U = Bits<T>;
  constexpr int frac = std::numeric_limits<T>::digits - 1, ebits = sizeof(T) * 8 - 1 - frac;
  constexpr int bias = (1 << (ebits - 1)) - 1, top = (1 << ebits) - 1;
  const U sign = (r.next() & 1) ? U{1} << (sizeof(T) * 8 - 1) : 0;
  const U f = static_cast<U>(r.next()) & ((U{1} << frac) - 1);
  auto with = [&](int field, U fraction) { return std::bit_cast<T>(static_cast<U>(sign | (U(field) << frac) | fraction)); };
  switch (r.below(20)) {
    case 0: return with(0, 0);                                            // +-0
    case 1: return with(0, f ? f : 1);                                    // subnormal
    case 2: return with(0, f >> r.below(frac));                           // tiny subnormal (or 0)
    case 3: return r.below(3) ? with(top, 0) : with(top, f | 1);          // Inf, NaN
    case 4: return with(top - 1 - r.range(0, 2), f);                      // near the top: overflow
    case 5: return with(1 + r.range(0, 3), f);                            // the smallest normals
    case 6: return with(bias, 0);                                         // +-1
    case 7: return with(bias + r.range(-2, 2), (U{1} << frac) - 1 - (f & 3));  // just below powers of two
    default: {
      const U fraction = r.below(4) ? f : f & ~((U{1} << (frac / 2)) - 1);  // drawn first, as GCC did
      return with(bias + r.range(-20, 20), fraction);
    }
  }
}

template <class T>
bool same(T x, T y) {
  return (std::isnan(x) && std::isnan(y)) || std::bit_cast<Bits<T>>(x) == std::bit_cast<Bits<T>>(y);
}

// `total` outputs of random shapes (rows across the 8- and 4-row groups, columns across strips,
// K across the 128-product chunks) through fl::chain against the scalar chain. Returns mismatches.
template <class T>
std::uint64_t compare(Rng& r, std::uint64_t total, const std::string& label) {
  constexpr std::size_t W = fl::kStrip<T>;
  std::uint64_t cases = 0, mismatches = 0;
  while (cases < total) {
    const std::size_t rows = 1 + r.below(19), n = 1 + r.below(3 * W), S = fl::strips<T>(n);
    const std::size_t K = r.below(8) ? r.below(12) : r.below(300);
    std::vector<T> a(rows * K), acc(rows * S * W), want(rows * S * W);
    std::vector<std::uint64_t> b(K * n);
    // Small exponents near the accumulator now and then, so that sums cancel.
    for (auto& x : a) x = draw<T>(r);
    for (auto& x : b) x = std::bit_cast<Bits<T>>(draw<T>(r));
    if (r.below(3))  // products that cancel the previous step's: a_{t+1} = -a_t, b_{t+1} = b_t
      for (std::size_t t = 0; t + 1 < K; t += 2) {
        for (std::size_t i = 0; i < rows; ++i) a[i * K + t + 1] = -a[i * K + t];
        for (std::size_t j = 0; j < n; ++j) b[(t + 1) * n + j] = b[t * n + j];
      }
    for (auto& x : acc) x = draw<T>(r);
    std::vector<T> packed(S * K * W);
    fl::pack_b(K, n, b.data(), n, packed.data());
    want = acc;
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        T x = want[i * S * W + j];
        for (std::size_t t = 0; t < K; ++t)
          x = std::fma(a[i * K + t], std::bit_cast<T>(static_cast<Bits<T>>(b[t * n + j])), x);
        want[i * S * W + j] = x;
      }
    // Two calls over the strips [0, 1) and [1, S) as a GEMM task would split them.
    const std::size_t split = std::min<std::size_t>(1, S);
    fl::chain(rows, K, a.data(), K, packed.data(), 0, split, acc.data(), S * W);
    fl::chain(rows, K, a.data(), K, packed.data(), split, S, acc.data() + split * W, S * W);
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < n; ++j)
        if (!same(acc[i * S * W + j], want[i * S * W + j]) && mismatches++ < 3)
          std::printf("[fma-lanes] MISMATCH %s rows %zu n %zu K %zu at (%zu, %zu): lanes %a, scalar chain %a\n",
                      label.c_str(), rows, n, K, i, j, static_cast<double>(acc[i * S * W + j]),
                      static_cast<double>(want[i * S * W + j]));
    cases += rows * n;
  }
  std::printf("[fma-lanes] %s: %llu outputs, %llu mismatches\n", label.c_str(), static_cast<unsigned long long>(cases),
              static_cast<unsigned long long>(mismatches));
  return mismatches;
}

}  // namespace

TEST_CASE("fma lanes: chains equal the scalar std::fma chain on every compiled SIMD target", "[fma-lanes]") {
  Rng r(tcsim::test::seed("fma lanes targets", 20261126));
  const std::uint64_t total = tcsim::test::count(200'000);
  const auto targets = hwy::SupportedAndGeneratedTargets();
  CHECK(!targets.empty());
  std::size_t fused = 0;
  for (const std::int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string name = hwy::TargetName(target);
    INFO("target " << name);
    CHECK(name == fl::target_name());
    // Highway's MulAdd fuses on AVX2 and AVX-512 and is a multiply and an add on SSSE3, SSE4
    // and the scalar targets: there the lanes must not be used.
    const bool expect_fused = target == HWY_AVX2 || target == HWY_AVX3 || target == HWY_AVX3_DL;
    const bool fused32 = fl::lanes_fused(false), fused64 = fl::lanes_fused(true);
    std::printf("[fma-lanes] target %s: lanes %s\n", name.c_str(), fused32 ? "fused (MulAdd)" : "scalar std::fma");
    if (target & (HWY_SSSE3 | HWY_SSE4 | HWY_SCALAR | HWY_EMU128)) CHECK_FALSE(fused32);
    if (expect_fused) CHECK(fused32);
    CHECK(fused32 == fused64);
    fused += fused32;
    CHECK(compare<float>(r, total, "binary32 on " + name) == 0);
    CHECK(compare<double>(r, total, "binary64 on " + name) == 0);
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the CPU's own
  std::printf("[fma-lanes] %zu of %zu targets fused\n", fused, targets.size());
}

// Long runs (docs/reliability.md): TCSIM_FMA_LANES_CASES=N runs N outputs per type on the
// machine's own target.
TEST_CASE("fma lanes: long run on the machine's target (TCSIM_FMA_LANES_CASES)", "[fma-lanes]") {
  const char* env = std::getenv("TCSIM_FMA_LANES_CASES");
  const std::uint64_t total = env ? std::strtoull(env, nullptr, 10) : tcsim::test::count(100'000);
  Rng r(tcsim::test::seed("fma lanes long run", 20261127));
  std::printf("[fma-lanes] target %s, lanes %s\n", fl::target_name(), fl::lanes_fused(false) ? "fused" : "scalar");
  CHECK(compare<float>(r, total, "binary32") == 0);
  CHECK(compare<double>(r, total, "binary64") == 0);
}

#if defined(__SSE__) || defined(__x86_64__)
// With flush-to-zero and denormals-are-zero set by the caller (a library built with -ffast-math
// can set them for a whole process), subnormal operands, products and results still count.
TEST_CASE("fma lanes: the caller's flush-to-zero and denormals-are-zero bits change nothing", "[fma-lanes]") {
  const float tiny = 0x1p-140f;  // subnormal
  std::vector<float> a = {tiny, 0x1p-70f, 1.0f}, packed(fl::kStrip<float> * 3), acc(fl::kStrip<float>, 0.0f);
  std::vector<std::uint64_t> b = {std::bit_cast<std::uint32_t>(1.0f), std::bit_cast<std::uint32_t>(0x1p-70f),
                                  std::bit_cast<std::uint32_t>(tiny)};
  fl::pack_b(3, 1, b.data(), 1, packed.data());
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040u);  // FTZ and DAZ
  fl::chain(1, 3, a.data(), 3, packed.data(), 0, 1, acc.data(), fl::kStrip<float>);
  const unsigned after = _mm_getcsr();
  _mm_setcsr(saved);
  // 2^-140 + 2^-140 + 2^-140: every step exact, none flushed.
  CHECK(acc[0] == 3 * tiny);
  CHECK((after & 0x8040u) == 0x8040u);  // the caller's environment is restored
}
#endif
