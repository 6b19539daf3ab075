// GemmOptions::progress (issue 22): the GEMM run by blocks of rows for the progress hook gives
// the bits of the whole GEMM, for the variants and split-K, and the hook sees every block.
#include <catch2/catch.hpp>

#include <cstddef>
#include <utility>
#include <vector>

#include "tcsim/models/gemm.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;

TEST_CASE("gemm progress: blocks of rows give the same bits, the hook sees each block", "[gemm][progress]") {
  tcsim::test::Rng r(tcsim::test::seed("gemm progress", 7101));
  const std::size_t m = 300, n = 7, k = 40;  // 4 blocks of 75 rows
  std::vector<double> A(m * k), B(k * n), C(m * n);
  auto fill = [&](std::vector<double>& v) {
    for (double& x : v) x = static_cast<double>(static_cast<float>(static_cast<double>(r.next() >> 11) * 0x1p-52 - 1.0));
  };
  fill(A), fill(B), fill(C);
  const Unit& unit = builtin_unit("h100");
  for (const auto& [variant, split] : std::vector<std::pair<GemmVariant, int>>{
           {GemmVariant::Tc32, 0}, {GemmVariant::Tc16, 0}, {GemmVariant::Fp32, 0}, {GemmVariant::Tc32, 3}}) {
    GemmOptions plain;
    plain.variant = variant;
    plain.split_k = split;
    GemmOptions hooked = plain;
    std::vector<std::pair<std::size_t, std::size_t>> calls;
    hooked.progress = [&](std::size_t done, std::size_t total) { calls.emplace_back(done, total); };
    const GemmResult want = simulate_gemm(unit, formats::fp16(), formats::fp32(), m, n, k, A, B, C, plain);
    const GemmResult got = simulate_gemm(unit, formats::fp16(), formats::fp32(), m, n, k, A, B, C, hooked);
    INFO("variant " << variant_name(variant) << ", split_k " << split);
    CHECK(got.bits == want.bits);
    CHECK(got.storage == want.storage);
    CHECK(got.unit_calls == want.unit_calls);
    CHECK(calls == std::vector<std::pair<std::size_t, std::size_t>>{{1, 4}, {2, 4}, {3, 4}, {4, 4}});
  }
}
