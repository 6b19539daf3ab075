// The GEMMs' panel buffers kept by the calling thread (models/src/panel_buffer.hpp, issue 25,
// session 38): the cache's rules, and GEMMs whose buffers come back from an earlier GEMM of
// other shapes and data giving the bits of fresh ones and of Unit::dot. Under AddressSanitizer
// every reused buffer is filled with a pattern first, so a read before a write shows there.
#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
#include <thread>
#include <vector>

#include "../src/panel_buffer.hpp"
#include "tcsim/models/unit.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using detail::PanelCache;
using tcsim::test::Rng;

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

struct Gemm {
  std::size_t m, n, K;
  std::vector<std::uint64_t> A, B, C;
};

// fp16 patterns of every finite kind (zeros, subnormals, all binades: some blocks leave the
// chains for the exact path), C binary32 patterns of moderate and large exponents.
Gemm random_gemm(Rng& r, std::size_t m, std::size_t n, std::size_t K) {
  Gemm g{m, n, K, {}, {}, {}};
  auto fp16 = [&] {
    std::uint64_t x;
    do x = r.next() & 0xffff;
    while ((x & 0x7c00) == 0x7c00);
    return x;
  };
  for (std::size_t i = 0; i < m * K; ++i) g.A.push_back(fp16());
  for (std::size_t i = 0; i < K * n; ++i) g.B.push_back(fp16());
  for (std::size_t i = 0; i < m * n; ++i)
    g.C.push_back((r.next() & 0x807fffffu) | (static_cast<std::uint64_t>(r.range(90, 160)) << 23));
  return g;
}

std::vector<std::uint64_t> run(const Unit& u, const Gemm& g, unsigned threads) {
  std::vector<std::uint64_t> D(g.m * g.n);
  u.gemm_into(formats::fp16(), formats::fp32(), g.m, g.n, g.K, g.A, g.B, g.C, D, "", threads);
  return D;
}

}  // namespace

TEST_CASE("panel buffers: the thread's cache takes back the best fit, keeps at most its limit, largest out first",
          "[panel_buffer]") {
  PanelCache cache;
  std::size_t got = 0;
  void* a = cache.take(4 * kMiB, got);
  REQUIRE(a);
  CHECK(got == 4 * kMiB);
  void* b = cache.take(8 * kMiB, got);
  REQUIRE(b);
  cache.give(a, 4 * kMiB);
  cache.give(b, 8 * kMiB);
  CHECK(cache.kept_count() == 2);
  CHECK(cache.kept_bytes() == 12 * kMiB);
  // The smallest kept buffer that fits, not the first or the largest.
  CHECK(cache.take(2 * kMiB, got) == a);
  CHECK(got == 4 * kMiB);
  CHECK(cache.take(6 * kMiB, got) == b);
  CHECK(got == 8 * kMiB);
  CHECK(cache.kept_count() == 0);
  // Nothing kept fits: a new buffer.
  cache.give(a, 4 * kMiB);
  void* c = cache.take(6 * kMiB, got);
  CHECK(c != a);
  CHECK(got == 6 * kMiB);
  CHECK(cache.kept_bytes() == 4 * kMiB);
  // At the limit the largest kept buffers are freed first; one past the limit is not kept.
  cache.give(b, 8 * kMiB);
  cache.give(c, 6 * kMiB);
  void* big = cache.take(PanelCache::kKeptLimit - 8 * kMiB, got);
  cache.give(big, got);  // 4 + 8 + 6 + (limit - 8) MiB kept would pass the limit: 8 goes, then 6
  CHECK(cache.kept_bytes() <= PanelCache::kKeptLimit);
  CHECK(cache.kept_bytes() == 4 * kMiB + PanelCache::kKeptLimit - 8 * kMiB);
  CHECK(cache.kept_count() == 2);
  void* over = cache.take(PanelCache::kKeptLimit + 2 * kMiB, got);
  cache.give(over, got);
  CHECK(cache.kept_bytes() == 4 * kMiB + PanelCache::kKeptLimit - 8 * kMiB);
  cache.release();
  CHECK(cache.kept_count() == 0);
  CHECK(cache.kept_bytes() == 0);
}

TEST_CASE("panel buffers: GEMMs on buffers kept from other shapes and data give the bits of fresh buffers and of dot",
          "[panel_buffer]") {
  const Unit& h100 = builtin_unit("h100");
  Rng r(tcsim::test::seed("panel buffers", 0x9a7e1b0f));
  // 770 x 770: 2.3 MiB panels (the cache's size class), n not a multiple of the tiles' 32 columns.
  const Gemm x = random_gemm(r, 770, 770, 770), y = random_gemm(r, 700, 900, 800);
  for (const unsigned threads : {1u, 2u}) {
    INFO("threads " << threads);
    // Fresh buffers: a thread of its own, whose cache is empty.
    std::vector<std::uint64_t> fresh;
    std::thread([&] { fresh = run(h100, x, threads); }).join();
    PanelCache::of_this_thread().release();
    const auto first = run(h100, x, threads);  // fresh too (released above), then kept
    CHECK(PanelCache::of_this_thread().kept_count() > 0);
    const auto other = run(h100, y, threads);  // x's buffers, written with y's data
    const auto again = run(h100, x, threads);  // y's buffers
    CHECK(first == fresh);
    CHECK(again == fresh);
    CHECK(other != std::vector<std::uint64_t>(other.size(), other[0]));
    // Sampled entries against Unit::dot (the reference of the GEMM's bits).
    std::size_t differ = 0;
    for (std::size_t s = 0; s < 48; ++s) {
      const std::size_t i = r.below(x.m), j = r.below(x.n);
      std::vector<std::uint64_t> a(x.A.begin() + static_cast<std::ptrdiff_t>(i * x.K),
                                   x.A.begin() + static_cast<std::ptrdiff_t>((i + 1) * x.K)),
          b(x.K);
      for (std::size_t t = 0; t < x.K; ++t) b[t] = x.B[t * x.n + j];
      differ += h100.dot(formats::fp16(), formats::fp32(), a, b, x.C[i * x.n + j]) != again[i * x.n + j];
    }
    CHECK(differ == 0);
  }
  PanelCache::of_this_thread().release();
}
