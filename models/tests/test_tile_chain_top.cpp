// Issue 25 (branch h100h): the plain tile chains' binary32 variants (sim/src/block_tile_chain.cpp,
// kChainB32Rz / kChainB32Rne: the output's rounding fixed at compile time) flag raw E above
// F + kB32TopE = F + 97 and no longer test each result's range (normal, finite): that test is
// implied by the bound (the argument in MicroChain). The bound's edges: c with lead exponent
// F + 95 .. F + 99 (at the bound and past it), up to 127 (the largest finite c), Inf, NaN, zeros
// and subnormal c; tf32/bf16 operands whose products reach E near the bound (|s| near 2^30, where
// rne rounds up to 2^30); against Unit::dot on every SIMD target, and the stop position of a
// micro-tile at the bound and one past it. Lines: h100 fp16 -> fp32 (rz, F = 25), a100 fp16 ->
// fp32 (F = 24), h100 tf32 and bf16 -> fp32, rtx5090 e4m3 -> fp32 (blocks of two int32 chunks),
// and user rows: the h100 fp16 and tf32 rows with binary32 output rounded to nearest even (no
// built-in chain row rounds binary32 rne), saturating on overflow (the built-in rows give Inf,
// as an unflagged overflow in the lanes would: these rows tell them apart), and one whose
// min_exponent is F + 98 (above F + 97: the generic variant with its range test runs).
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "gemm_tally.hpp"
#include "models_test_helpers.hpp"
#include "tcsim/sim/block_kernel.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::reftest;
using tcsim::test::Rng;

namespace {

constexpr int kTopE = 97;  // block_tile_chain.cpp's kB32TopE

struct Line {
  const char *unit, *instruction, *in;
  bool rne;  // the row's binary32 output rounded to nearest even (a user row)
  bool sat;  // overflow to the largest finite value (a user row: an unflagged overflow would differ)
  bool floor = false;  // min_exponent F + 98 (a user row: above F + 97 the generic variant runs)
};
const Line kTopLines[] = {{"h100", "mma.sync", "fp16", false, false}, {"a100", "mma.sync", "fp16", false, false},
                       {"h100", "mma.sync", "tf32", false, false}, {"h100", "mma.sync", "bf16", false, false},
                       {"rtx5090", "mma.sync", "e4m3", false, false}, {"h100", "mma.sync", "fp16", true, true},
                       {"h100", "mma.sync", "tf32", true, true},     {"h100", "mma.sync", "tf32", false, true},
                       {"a100", "mma.sync", "tf32", false, true},     {"h100", "mma.sync", "tf32", false, true, true}};

// The line's unit: the built-in one, or a copy whose row rounds binary32 to nearest even (rne)
// or saturates (sat).
Unit line_unit(const Line& l) {
  UnitSpec spec = builtin_unit(l.unit).spec();
  for (auto& row : spec.datapaths)
    if (row.final_rounding.count("fp32")) {
      if (l.rne) row.final_rounding["fp32"] = Rounding::NearestEven;
      if (l.sat) row.overflow = OverflowMode::Saturate;
      if (l.floor) row.min_exponent["fp32"] = row.fraction_bits + kTopE + 1;
    }
  return Unit(spec);
}

std::string line_label(const Line& l) {
  return std::string(l.unit) + " " + l.in + "->fp32" + (l.rne ? " rne" : "") + (l.sat ? " sat" : "") + (l.floor ? " floor" : "");
}

// c at the top of binary32's range and the other edges: lead F + 95 .. F + 99 (random or largest
// significand), 120 .. 127, zeros, subnormals, Inf, NaN, or a uniform value in (-1, 1).
std::uint64_t top_c(const Format& out, Rng& r, int F) {
  switch (r.below(8)) {
    case 0: case 1: case 2: return value_with_lead(out, r, F + kTopE - 2 + static_cast<int>(r.below(5)));
    case 3: return value_with_lead(out, r, F + kTopE - 2 + static_cast<int>(r.below(5))) | 0x7fffffu;
    case 4: return value_with_lead(out, r, 120 + static_cast<int>(r.below(8)));
    case 5: return r.below(2) ? zero_pattern(out, r) : random_subnormal_or_tiny(out, r);
    case 6: return r.below(2) ? random_special(out, r) : value_with_lead(out, r, F + kTopE);
    default: return value_with_lead(out, r, -1 - static_cast<int>(r.below(6)));
  }
}

// An operand: uniform in (-1, 1), or (wide formats) with a lead near (F + 97) / 2, so that
// products reach E at the bound and sums near 2^30 units. `big` (whole rows of A and columns of
// B, wide formats): positive, the largest significand, E of the products 1 to 3 past the bound,
// block sums of 2^27 .. 2^30 units: past the bound x would overflow without a flag.
std::uint64_t top_operand(const Format& in, Rng& r, int F, bool big) {
  if (big && in.emax >= 64)
    return (value_with_lead(in, r, (F + kTopE) / 2 + 1 + static_cast<int>(r.below(2))) | frac_mask(in)) & ~in.sign_mask();
  if (r.below(2)) return value_with_lead(in, r, -1 - static_cast<int>(r.below(6)));
  return value_with_lead(in, r, (F + kTopE) / 2 - 2 + static_cast<int>(r.below(4)));
}

}  // namespace

TEST_CASE("tile chains: binary32 outputs stop where E passes F + 97 (issue 25, h100h)", "[kernel][tiles]") {
  Rng r(tcsim::test::seed("tile chains: binary32 top", 0x7c5e0c50));
  for (const Line& l : kTopLines) {
    const Unit unit = line_unit(l);
    const Format &in = parse_format(l.in), &out = parse_format("fp32");
    const DatapathSpec& row = unit.datapath(in, out, l.instruction);
    const std::string label = line_label(l);
    INFO(label);
    const std::size_t k = static_cast<std::size_t>(row.fma_size);
    const int F = static_cast<int>(row.fraction_bits);
    const BlockKernel kernel(unit.adder(in, out, row.instruction).config(), k);
    const std::size_t rows = kernel.tile_rows(), cols = kernel.tile_columns(), K = 6 * k;
    std::vector<std::uint64_t> a(rows * K), b(K * cols), c(rows * cols), d(c.size());
    std::vector<float> av(a.size()), bv(b.size()), cv(c.size());
    std::vector<std::int16_t> ae(a.size()), be(b.size());
    std::vector<std::int32_t> ce(c.size());
    for (auto& x : a) x = value_with_lead(in, r, -1 - static_cast<int>(r.below(6))) & ~in.sign_mask();
    for (auto& x : b) x = value_with_lead(in, r, -1 - static_cast<int>(r.below(6))) & ~in.sign_mask();
    kernel.decode_tile(BlockKernel::Role::A, a.size(), a.data(), av.data(), ae.data());
    kernel.decode_tile(BlockKernel::Role::B, b.size(), b.data(), bv.data(), be.data());
    // Every c with lead F + 97 (the largest significand in one lane): the whole chain runs. One
    // c with lead F + 98: the micro-tile stops before its first block.
    for (const int past : {0, 1}) {
      for (auto& x : c) x = value_with_lead(out, r, F + kTopE) & ~out.sign_mask();
      c[1] |= 0x7fffffu;
      if (past) c[2 * cols + 5] = value_with_lead(out, r, F + kTopE + 1);
      kernel.decode_tile(BlockKernel::Role::C, c.size(), c.data(), cv.data(), ce.data());
      std::size_t stop = 0;
      REQUIRE(kernel.run_tile_chain(rows, cols, cols, K, k, av.data(), ae.data(), K, bv.data(), be.data(), cols,
                                    cv.data(), ce.data(), d.data(), cols, &stop));
      CHECK(stop == (past && !l.floor ? 0 : K));
    }
  }
}

TEST_CASE("kernel differential: binary32 tile chains at the top of the range, every SIMD target", "[kernel][differential]") {
  Rng r(tcsim::test::seed("kernel differential binary32 top", 0x7c5e0c51));
  const std::uint64_t best = tcsim::test::count(60'000), others = tcsim::test::count(10'000);
  std::uint64_t mismatches = 0;
  each_simd_target([&](const std::string& name, bool first) {
    for (const Line& l : kTopLines) {
      const Unit unit = line_unit(l);
      const Format &in = parse_format(l.in), &out = parse_format("fp32");
      const DatapathSpec& row = unit.datapath(in, out, l.instruction);
      const std::string label = name + " " + line_label(l);
      INFO(label);
      const std::size_t k = static_cast<std::size_t>(row.fma_size), m = 24, n = 40;
      const int F = static_cast<int>(row.fraction_bits);
      const GemmLabel at{"tile-chain-top", label};
      GemmTally t;
      while (t.blocks < (first ? best : others)) {
        const std::size_t nb = 1 + r.below(12);  // named draws: operand order is unspecified
        std::size_t K = nb * k;
        if (r.below(4) == 0) K += r.below(k);
        std::vector<std::uint64_t> A(m * K), B(K * n), C(m * n);
        std::vector<bool> big_col(n);
        for (std::size_t j = 0; j < n; ++j) big_col[j] = r.below(4) == 0;
        for (std::size_t i = 0; i < m; ++i) {
          const bool big_row = r.below(4) == 0;
          for (std::size_t t = 0; t < K; ++t) A[i * K + t] = top_operand(in, r, F, big_row);
        }
        for (std::size_t t = 0; t < K; ++t)
          for (std::size_t j = 0; j < n; ++j) B[t * n + j] = top_operand(in, r, F, big_col[j]);
        for (auto& x : C) x = top_c(out, r, F);
        t.run(unit, in, out, m, n, K, k, A, B, C, row.instruction, at);
      }
      t.print(at);
      mismatches += t.mismatches;
    }
  });
  CHECK(mismatches == 0);
}

// Session 39: the plain binary32 chains test |s| - 1 once per block on its maxima over the
// micro-tile's rows (no longer per row). Block sums past 2^30 units and past int32's range must
// still stop the micro-tile: fp16 rows and columns of the largest magnitude (65504: products of
// 2^31.998, E = 30), so that a block of 16 products sums to 0.999 x 2^31 units at F = 25, and c
// at 2^28 .. 2^31 adds up to 2^26 more (the sum wraps int32 when both have the same sign).
// Against Unit::dot on every SIMD target; the lines of h100 fp16 -> fp32 (rz, built-in) and
// its rne copy. Rows and columns of the largest magnitude mix with ordinary ones, so that
// micro-tiles hold both, and only some lanes are past the range.
TEST_CASE("kernel differential: binary32 tile chains with block sums past 2^30 and int32's range", "[kernel][differential]") {
  Rng r(tcsim::test::seed("kernel differential binary32 wrap", 0x7c5e0c52));
  const std::uint64_t target_outputs = tcsim::test::count(40'000);
  std::uint64_t mismatches = 0;
  each_simd_target([&](const std::string& name, bool) {
    for (const bool rne : {false, true}) {
      const Line l{"h100", "mma.sync", "fp16", rne, false};
      const Unit unit = line_unit(l);
      const Format &in = parse_format("fp16"), &out = parse_format("fp32");
      const DatapathSpec& row = unit.datapath(in, out, l.instruction);
      const std::string label = name + " " + line_label(l);
      INFO(label);
      const std::size_t k = static_cast<std::size_t>(row.fma_size), m = 12, n = 64;
      REQUIRE(k == 16);
      const GemmLabel at{"tile-chain-wrap", label};
      GemmTally t;
      std::uint64_t wrapping = 0;  // outputs whose first block's int32 sum would wrap
      while (t.outputs < target_outputs) {
        const std::size_t K = k * (1 + r.below(4));
        std::vector<std::uint64_t> A(m * K), B(K * n), C(m * n);
        // Row / column kinds: 0 ordinary (uniform in (-1, 1)), 1 all +65504, 2 all -65504,
        // 3 +65504 or its neighbour below (sums between 2^30 and 2^31 units).
        auto kind_value = [&](int kind) -> std::uint64_t {
          switch (kind) {
            case 1: return 0x7bff;
            case 2: return 0xfbff;
            case 3: return r.below(2) ? 0x7bff : 0x7bfe;
            default: return value_with_lead(in, r, -1 - static_cast<int>(r.below(6)));
          }
        };
        std::vector<int> row_kind(m), col_kind(n);
        for (auto& x : row_kind) x = static_cast<int>(r.below(4));
        for (auto& x : col_kind) x = static_cast<int>(r.below(4));
        for (std::size_t i = 0; i < m; ++i)
          for (std::size_t s = 0; s < K; ++s) A[i * K + s] = kind_value(row_kind[i]);
        for (std::size_t s = 0; s < K; ++s)
          for (std::size_t j = 0; j < n; ++j) B[s * n + j] = kind_value(col_kind[j]);
        for (std::size_t i = 0; i < m; ++i)
          for (std::size_t j = 0; j < n; ++j) {
            const bool top = row_kind[i] != 0 && col_kind[j] != 0;
            const bool positive = (row_kind[i] == 2) == (col_kind[j] == 2);
            std::uint64_t c = r.below(4) == 0 ? zero_pattern(out, r) : value_with_lead(out, r, 28 + static_cast<int>(r.below(4)));
            if (top && r.below(4) != 0) c = positive ? c & ~out.sign_mask() : c | out.sign_mask();
            C[i * n + j] = c;
            // The products sum to at least 16 x 65472 x 65504 x 2^-5 > 2^31 - 2^26 units; c's term
            // (lead 30 or 31, the same sign) adds at least 2^25.
            const int lead = static_cast<int>((c >> 23 & 0xff)) - 127;
            const bool same_sign = ((c >> 31) == 0) == positive;
            wrapping += top && row_kind[i] != 3 && col_kind[j] != 3 && same_sign && lead >= 30 && (c & 0x7fffffffu) != 0;
          }
        t.run(unit, in, out, m, n, K, k, A, B, C, row.instruction, at);
      }
      t.print(at);
      std::printf("[tile-chain-wrap] %-36s %llu outputs whose first block's int32 sum would wrap\n", label.c_str(),
                  static_cast<unsigned long long>(wrapping));
      // About 8 % of the outputs (counts scale down under the sanitizers: a share, not a number).
      CHECK(wrapping * 50 > t.outputs);
      mismatches += t.mismatches;
    }
  });
  CHECK(mismatches == 0);
}
