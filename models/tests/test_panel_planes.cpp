// GEMMs on planes kept by the calling thread (tcsim/sim/panel_cache.hpp, issue 25, session 38):
// planes that come back from an earlier GEMM of other shapes and data must give the bits of
// fresh ones and of Unit::dot, on the tile chains (h100), the exact CDNA1 blocks (mi100) and the
// AMD after-add lanes (mi300x). Under AddressSanitizer every reused plane is filled with a
// pattern first, so a read before a write shows there.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "tcsim/models/unit.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/panel_cache.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using tcsim::test::Rng;

namespace {

struct Gemm {
  std::size_t m, n, K;
  std::vector<std::uint64_t> A, B, C;
};

// Input patterns: binades within 2^+-4 with a zero now and then and, one in 64, any finite
// pattern (subnormals, extremes: some blocks leave the fast paths for the exact ones, which
// mostly serve them on the AMD rows' scalar blocks, so these stay rare); C binary32 patterns of
// moderate and large exponents.
Gemm random_gemm(Rng& r, const Format& in, std::size_t m, std::size_t n, std::size_t K) {
  Gemm g{m, n, K, {}, {}, {}};
  auto pattern = [&] {
    const std::uint64_t kind = r.below(64);
    if (kind == 0) {
      std::uint64_t x;
      do x = r.next() & in.width_mask();
      while (classify(in, x) == FpClass::NaN || classify(in, x) == FpClass::Infinity);
      return x;
    }
    if (kind < 3) return std::uint64_t{0};
    const auto field = static_cast<std::uint64_t>(in.bias + r.range(-4, 3));
    return (r.below(2) ? in.sign_mask() : 0) | field << in.fraction_bits |
           (r.next() & ((std::uint64_t{1} << in.fraction_bits) - 1));
  };
  for (std::size_t i = 0; i < m * K; ++i) g.A.push_back(pattern());
  for (std::size_t i = 0; i < K * n; ++i) g.B.push_back(pattern());
  for (std::size_t i = 0; i < m * n; ++i)
    g.C.push_back((r.next() & 0x807fffffu) | (static_cast<std::uint64_t>(r.range(110, 140)) << 23));
  return g;
}

std::vector<std::uint64_t> run(const Unit& u, const Format& in, const Gemm& g, unsigned threads) {
  std::vector<std::uint64_t> D(g.m * g.n);
  u.gemm_into(in, formats::fp32(), g.m, g.n, g.K, g.A, g.B, g.C, D, "", threads);
  return D;
}

}  // namespace

TEST_CASE("panel cache: GEMMs on planes kept from other shapes and data give the bits of fresh planes and of dot",
          "[panel_cache]") {
  Rng r(tcsim::test::seed("panel cache gemm", 0x9a7e1b0f));
  struct Row {
    const char* unit;
    const char* in;
  };
  for (const Row row : {Row{"h100", "fp16"}, Row{"mi100", "fp16"}, Row{"mi300x", "e4m3fnuz"}}) {
    const Unit& unit = builtin_unit(row.unit);
    const Format& in = parse_format(row.in);
    // 770 x 770: planes of 2 MiB and more (the cache's), n not a multiple of the tiles' columns.
    const Gemm x = random_gemm(r, in, 770, 770, 770), y = random_gemm(r, in, 700, 900, 800);
    for (const unsigned threads : {1u, 2u}) {
      INFO(row.unit << " " << row.in << " -> fp32 [" << unit.batch_path(in, formats::fp32()) << "], threads "
                    << threads);
      std::vector<std::uint64_t> fresh;
      std::thread([&] { fresh = run(unit, in, x, threads); }).join();  // an empty cache
      PanelCache::of_this_thread().release();
      const auto first = run(unit, in, x, threads);
      CHECK(PanelCache::of_this_thread().kept_count() > 0);
      const auto other = run(unit, in, y, threads);  // planes of x's sizes freed; y's own
      const auto again = run(unit, in, x, threads);  // x's planes back, written with y's data before
      CHECK(first == fresh);
      CHECK(again == fresh);
      CHECK(other != std::vector<std::uint64_t>(other.size(), other[0]));
      std::size_t differ = 0;
      for (std::size_t s = 0; s < 32; ++s) {
        const std::size_t i = r.below(x.m), j = r.below(x.n);
        std::vector<std::uint64_t> a(x.A.begin() + static_cast<std::ptrdiff_t>(i * x.K),
                                     x.A.begin() + static_cast<std::ptrdiff_t>((i + 1) * x.K)),
            b(x.K);
        for (std::size_t t = 0; t < x.K; ++t) b[t] = x.B[t * x.n + j];
        differ += unit.dot(in, formats::fp32(), a, b, x.C[i * x.n + j]) != again[i * x.n + j];
      }
      CHECK(differ == 0);
    }
    PanelCache::of_this_thread().release();
  }
}
