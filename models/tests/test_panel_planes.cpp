// GEMMs on planes kept by the calling thread (tcsim/sim/panel_cache.hpp, issue 25, session 38):
// planes that come back from an earlier GEMM of other shapes and data must give the bits of
// fresh ones and of Unit::dot, on the tile chains (h100), the exact CDNA1 blocks (mi100) and the
// AMD after-add lanes (mi300x). Under AddressSanitizer every reused plane is filled with a
// pattern first, so a read before a write shows there.
#include <catch2/catch.hpp>

#include <algorithm>
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

TEST_CASE("panel cache: corners through the parallel decode and reused planes: Inf/NaN inputs, all -0 sums, "
          "overflow, subnormals, zero products",
          "[panel_cache]") {
  const Unit& h100 = builtin_unit("h100");
  const Format& in = formats::fp16();
  Rng r(tcsim::test::seed("panel cache corners", 0xc0ae5e1d));
  const std::size_t N = 770;  // several 2^16-entry decode pieces, planes from the cache
  Gemm g = random_gemm(r, in, N, N, N);
  // Row 0 of A and C: -0 everywhere, so row 0's sums are all -0 products plus -0.
  for (std::size_t t = 0; t < N; ++t) g.A[t] = 0x8000;
  for (std::size_t j = 0; j < N; ++j) g.C[j] = 0x80000000u;
  // Row 1 of A: fp16 subnormals and zeros (tiny and zero products).
  for (std::size_t t = 0; t < N; ++t) g.A[N + t] = t % 3 == 0 ? 0x0000 : 0x0001 + (t % 0x3ff);
  // Row 2: C at binary32's largest finite, A and B large positive: the sum overflows.
  for (std::size_t t = 0; t < N; ++t) g.A[2 * N + t] = 0x7bff;  // 65504
  for (std::size_t j = 0; j < N; ++j) g.C[2 * N + j] = 0x7f7fffffu;
  for (std::size_t t = 0; t < 8; ++t)
    for (std::size_t j = 0; j < N; ++j) g.B[t * N + j] = 0x7bff;
  // Inf and NaN inputs scattered in A's rows 3.. and B's columns (each in a different decode piece).
  const std::uint64_t specials[] = {0x7c00, 0xfc00, 0x7e00, 0xfe01};
  std::vector<std::size_t> special_rows, special_cols;
  for (std::size_t s = 0; s < 4; ++s) {
    special_rows.push_back(3 + r.below(N - 3));
    special_cols.push_back(r.below(N));
    g.A[special_rows.back() * N + r.below(N)] = specials[s];
    g.B[r.below(N) * N + special_cols.back()] = specials[(s + 1) % 4];
  }
  PanelCache::of_this_thread().release();
  const auto fresh = run(h100, in, g, 2);
  run(h100, in, random_gemm(r, in, 700, 900, 800), 2);  // other data in the kept planes
  const auto again = run(h100, in, g, 2);
  CHECK(again == fresh);
  // Every entry of rows 0-2 and a sample of the others against Unit::dot, bit for bit.
  std::vector<std::pair<std::size_t, std::size_t>> at;
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < N; j += 7) at.push_back({i, j});
  for (std::size_t s = 0; s < 4; ++s) {
    at.push_back({special_rows[s], r.below(N)});
    at.push_back({3 + r.below(N - 3), special_cols[s]});
  }
  for (std::size_t s = 0; s < 64; ++s) at.push_back({3 + r.below(N - 3), r.below(N)});
  std::size_t differ = 0, zero = 0, inf = 0, nan = 0;
  for (const auto& [i, j] : at) {
    std::vector<std::uint64_t> a(g.A.begin() + static_cast<std::ptrdiff_t>(i * N),
                                 g.A.begin() + static_cast<std::ptrdiff_t>((i + 1) * N)),
        b(N);
    for (std::size_t t = 0; t < N; ++t) b[t] = g.B[t * N + j];
    const std::uint64_t want = h100.dot(in, formats::fp32(), a, b, g.C[i * N + j]), got = again[i * N + j];
    if (want != got) {
      ++differ;
      UNSCOPED_INFO("entry (" << i << ", " << j << "): dot 0x" << std::hex << want << ", gemm 0x" << got << std::dec);
    }
    zero += i == 0 && (got & 0x7fffffffu) == 0;
    inf += (got & 0x7fffffffu) == 0x7f800000u;
    nan += (got & 0x7fffffffu) > 0x7f800000u;
  }
  CHECK(differ == 0);
  // The corners were reached: zero results of row 0's -0 sums (their sign is the unit's zero rule,
  // as dot's), overflow in row 2, NaN from the specials.
  std::size_t row0_clean = 0;  // row 0's sampled columns without a special of B (those give NaN)
  for (std::size_t j = 0; j < N; j += 7)
    row0_clean += std::find(special_cols.begin(), special_cols.end(), j) == special_cols.end();
  CHECK(zero == row0_clean);
  CHECK(row0_clean >= 100);
  CHECK(inf + nan > 0);
  CHECK(nan > 0);
  PanelCache::of_this_thread().release();
}
