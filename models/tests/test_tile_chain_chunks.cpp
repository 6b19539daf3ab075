// Issue 25 (branch h100g): tile chains over blocks of several int32 chunks (sim/src/
// block_tile_chain.cpp). At F = 25 a chunk holds 2^(29 - F) = 16 products, so the k = 32 rows
// (rtx5090 fp8, b200 tcgen05 fp8/fp6/fp4) sum each block in two chunks; the chain flags an
// output whose running sum S or further chunk sum T leaves [-2^30, 2^30) (S + T would wrap
// int32). Blocks of same-sign operands with the largest significands reach chunk sums near
// 2^31: there the flag decides (two such chunks sum to about 2^31.8, which wraps to about
// -2^29: inside the epilogue's own range check).
#include <catch2/catch.hpp>

#include <cstdio>
#include <hwy/targets.h>
#include <string>
#include <vector>

#include "diff_checks.hpp"
#include "models_test_helpers.hpp"
#include "tcsim/sim/block_kernel.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::reftest;
using tcsim::test::Rng;

namespace {

// A value of `f` with lead exponent `lead`, the largest significand and the given sign.
std::uint64_t big_value(const Format& f, int lead, bool negative) {
  const std::uint64_t field = static_cast<std::uint64_t>(lead + f.bias);
  const std::uint64_t frac = f.max_finite_significand() - (std::uint64_t{1} << f.fraction_bits);
  return (negative ? f.sign_mask() : 0) | (field << f.fraction_bits) | frac;
}

// One block of k operands: uniform in (-1, 1) (kind 0), the largest significands with lead 0
// and one sign (kind 1: chunk sums near 2^31 against a like column), or lead 0 with random
// signs and significands (kind 2: sums that cancel).
void fill_block(const Format& f, Rng& r, std::uint64_t* x, std::size_t k, int kind, bool negative) {
  for (std::size_t t = 0; t < k; ++t)
    x[t] = kind == 0 ? value_with_lead(f, r, -1 - static_cast<int>(r.below(6)))
                     : kind == 1 ? big_value(f, 0, negative) : value_with_lead(f, r, 0);
}

struct Line {
  const char *unit, *instruction, *in, *out;
};
const Line kLines[] = {{"rtx5090", "mma.sync", "e4m3", "fp16"}, {"rtx5090", "mma.sync", "e5m2", "fp16"},
                       {"rtx5090", "mma.sync", "e4m3", "fp32"}, {"rtx5090", "mma.sync", "e5m2", "fp32"},
                       {"b200", "tcgen05", "e4m3", "fp32"},     {"b200", "tcgen05", "e2m1", "fp32"}};

}  // namespace

TEST_CASE("tile chains: blocks of two int32 chunks stop where a chunk sum reaches 2^30", "[kernel][tiles]") {
  Rng r(tcsim::test::seed("tile chains: chunk stops", 0x7c5e0c4d));
  for (const Line& l : kLines) {
    const Unit& unit = builtin_unit(l.unit);
    const Format &in = parse_format(l.in), &out = parse_format(l.out);
    INFO(std::string(l.unit) + " " + l.in + "->" + l.out);
    const DatapathSpec& row = unit.datapath(in, out, l.instruction);
    const std::size_t k = static_cast<std::size_t>(row.fma_size);
    REQUIRE(k == 32);
    const BlockKernel kernel(unit.adder(in, out, row.instruction).config(), k);
    REQUIRE(kernel.tile_supported());
    const std::size_t rows = kernel.tile_rows(), cols = kernel.tile_columns(), K = 6 * k;
    std::vector<std::uint64_t> a(rows * K), b(K * cols), c(rows * cols), d(c.size());
    std::vector<float> av(a.size()), bv(b.size()), cv(c.size());
    std::vector<std::int16_t> ae(a.size()), be(b.size());
    std::vector<std::int32_t> ce(c.size());
    // Small operands never stop the chain; block 2 of the largest positive ones in row 1 does
    // (its two chunk sums each above 2^30, together 2^31.2 to 2^31.6, which wraps).
    // (Elsewhere small operands of random signs and leads, whose sums stay far below 2^30 units
    // of E; c small: the big block's products set its E. Same-sign operands of one lead would
    // reach 2^30 in every block.)
    // binary16 outputs also flag results below 2^-14 (the chain's range check), which small
    // products of random signs can reach by cancelling c (seed 20261127 did): there c is positive
    // with lead -1 and the products below 2^-10, so six blocks of 32 keep the running sum above
    // 2^-2 (c below the big block's products still).
    const bool half = out.precision == 11;
    const int lead = half ? -6 : -3;
    for (auto& x : a) x = value_with_lead(in, r, lead - static_cast<int>(r.below(4)));
    for (auto& x : b) x = value_with_lead(in, r, lead - static_cast<int>(r.below(4)));
    for (auto& x : c) x = half ? value_with_lead(out, r, -1) & ~out.sign_mask() : value_with_lead(out, r, -8);
    auto chain = [&](std::size_t& stop) {
      kernel.decode_tile(BlockKernel::Role::A, a.size(), a.data(), av.data(), ae.data());
      kernel.decode_tile(BlockKernel::Role::B, b.size(), b.data(), bv.data(), be.data());
      kernel.decode_tile(BlockKernel::Role::C, c.size(), c.data(), cv.data(), ce.data());
      return kernel.run_tile_chain(rows, cols, cols, K, k, av.data(), ae.data(), K, bv.data(), be.data(), cols,
                                   cv.data(), ce.data(), d.data(), cols, &stop);
    };
    std::size_t stop = 0;
    REQUIRE(chain(stop));
    CHECK(stop == K);
    for (std::size_t t = 2 * k; t < 3 * k; ++t) {
      a[1 * K + t] = big_value(in, 0, false);
      for (std::size_t j = 0; j < cols; ++j) b[t * cols + j] = big_value(in, 0, false);
    }
    REQUIRE(chain(stop));
    CHECK(stop == 2 * k);
  }
}

TEST_CASE("kernel differential: tile chains over two int32 chunks, chunk sums near 2^31, every SIMD target",
          "[kernel][differential]") {
  // GEMMs whose blocks are uniform, same-sign largest operands (chunk sums up to about 2^31,
  // stopped chains), or lead-0 operands of random signs (large sums that cancel), with c
  // uniform, zero, or large, against Unit::dot on every compiled SIMD target.
  Rng r(tcsim::test::seed("kernel differential tile chain chunks", 0x7c5e0c4e));
  const auto targets = hwy::SupportedAndGeneratedTargets();
  const std::uint64_t best = tcsim::test::count(100'000), others = tcsim::test::count(20'000);
  std::uint64_t mismatches = 0;
  for (const std::int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string name = hwy::TargetName(target);
    for (const Line& l : kLines) {
      const Unit& unit = builtin_unit(l.unit);
      const Format &in = parse_format(l.in), &out = parse_format(l.out);
      const DatapathSpec& row = unit.datapath(in, out, l.instruction);
      const std::string label = name + " " + l.unit + " " + l.in + "->" + l.out;
      INFO(label);
      const std::size_t k = static_cast<std::size_t>(row.fma_size), m = 24, n = 40;
      std::uint64_t blocks = 0, outputs = 0, found = 0;
      while (blocks < (target == targets.front() ? best : others)) {
        const std::size_t nb = 1 + r.below(12), K = nb * k + (r.below(4) == 0 ? r.below(k) : 0);
        std::vector<std::uint64_t> A(m * K), Bt(n * K), B(K * n), C(m * n);
        for (std::size_t i = 0; i < m; ++i)
          for (std::size_t s = 0; s < K; s += k)
            fill_block(in, r, A.data() + i * K + s, std::min(k, K - s), static_cast<int>(r.below(3)), r.below(2) != 0);
        for (std::size_t j = 0; j < n; ++j)
          for (std::size_t s = 0; s < K; s += k)
            fill_block(in, r, Bt.data() + j * K + s, std::min(k, K - s), static_cast<int>(r.below(3)), r.below(4) == 0);
        for (std::size_t j = 0; j < n; ++j)
          for (std::size_t s = 0; s < K; ++s) B[s * n + j] = Bt[j * K + s];
        for (auto& x : C)
          x = r.below(4) ? value_with_lead(out, r, static_cast<int>(r.below(12)) - 4)
                         : (r.below(2) ? zero_pattern(out, r) : random_finite(out, r));
        const std::vector<std::uint64_t> D = unit.gemm(in, out, m, n, K, A, B, C, row.instruction, 1);
        gemm_mismatches(unit, in, in, out, m, n, K, A, B, C, D, row.instruction, {"tile-chunks", label}, found);
        outputs += m * n;
        blocks += m * n * ((K + k - 1) / k);
      }
      std::printf("[tile-chunks] %-34s gemm %llu outputs, %llu block FMAs, %llu mismatches\n", label.c_str(),
                  static_cast<unsigned long long>(outputs), static_cast<unsigned long long>(blocks),
                  static_cast<unsigned long long>(found));
      mismatches += found;
    }
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the CPU's own
  CHECK(mismatches == 0);
}
