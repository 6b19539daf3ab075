// Issue 25 (branch i25chain): chains of blocks on the GEMM tiles (sim/src/block_tile_chain.cpp):
// a micro-tile keeps c in registers over every block of K and stops at the first block with an
// output the lanes cannot decide; the caller (models/src/unit_gemm.cpp) runs the rest block by
// block. Unit::gemm against Unit::dot (the reference adder and chaining) on every built-in row
// and format pair whose tiles take the fused epilogue without a final addition, with long K
// (2 to 40 blocks, a short last block) so that chains run long, and rows and columns that stop
// them at any block: uniform values in (-1, 1) (never stopped), kernel_cases.hpp's elements
// (edge cases in every block), and uniform ones with one block of edge cases at a random block
// (a stop mid-chain, its state handed back); half the GEMMs almost all uniform (whole chains). ctest runs 3 x 10^5 block FMAs per pair
// (TCSIM_TEST_SCALE scales them; 33 gives 10^7: docs/performance.md records the run).
// Issue 25 (branch i25fp8fuse): the pairs-mod4 final-add rows (h100, b200 mma.sync e4m3/e5m2 ->
// fp32/fp16) chain whole instructions (block 1 from +0, block 2, u + c rounded to nearest even)
// in registers: the same GEMMs of 1 to 40 instructions (sometimes a partial last one), a
// quarter of the c aimed at the first instruction's final addition (kernel_cases.hpp:
// final_add_edge_c), on every compiled SIMD target.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <hwy/targets.h>
#include <string>
#include <vector>

#include "diff_checks.hpp"
#include "kernel_cases.hpp"
#include "models_test_helpers.hpp"
#include "tcsim/sim/block_kernel.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::reftest;
using tcsim::test::Rng;

namespace {

// A value of `f` in (-1, 1) with a lead exponent of -1 .. -6 (a random GEMM's operands).
std::uint64_t uniform_value(const Format& f, Rng& r) { return value_with_lead(f, r, -1 - static_cast<int>(r.below(6))); }

// One row of A (or column of B) of K products: uniform (kind 0), kernel_cases' elements
// (kind 1), or uniform with block `at` (k products) from fill_element (kind 2).
// In a calm GEMM almost every row and column is uniform (1 in 16 with a late block of edge
// cases), so that whole micro-tiles run their chains to the end.
void fill_chain(const Format& in, const Format& out, Rng& r, std::size_t k, std::uint64_t* x, std::uint64_t* other,
                std::size_t K, std::uint64_t& c, bool calm) {
  const int kind = calm ? (r.below(16) == 0 ? 2 + static_cast<int>(r.below(2)) : 0) : static_cast<int>(r.below(4));
  if (kind == 1) {
    fill_element(in, out, r, x, other, K, c);
    return;
  }
  for (std::size_t t = 0; t < K; ++t) x[t] = uniform_value(in, r);
  c = r.below(8) ? uniform_value(out, r) : zero_pattern(out, r);
  // Kind 3 (issue 25, i25v100): edge cases in 2 to 4 random blocks, so that a micro-tile's
  // chain stops, one block runs on run_tile, and the chain resumes, several times.
  const std::size_t blocks = (K + k - 1) / k;
  for (int e = 0, edges = kind == 2 ? 1 : kind == 3 ? 2 + static_cast<int>(r.below(3)) : 0; e < edges; ++e) {
    const std::size_t at = r.below(blocks) * k, len = std::min(k, K - at);
    std::uint64_t unused = 0;
    fill_element(in, out, r, x + at, other + at, len, unused);
  }
}

// Pairs-mod4 rows: exact cancellations (zero block results and zero u of an instruction, the
// chain's zero lanes). Half the columns of B repeat each group of 4 products' first value;
// a quarter of A's rows negate, in every instruction, products t + 1 (block 1 cancels: k mod 4
// is 0 and 1 there), t + 3 (block 2), both, or t + 2 and t + 3 (block 2 cancels block 1).
void cancel_blocks(const Format& in, Rng& r, std::size_t m, std::size_t n, std::size_t K, std::uint64_t* A,
                   std::uint64_t* Bt) {
  for (std::size_t j = 0; j < n; ++j)
    if (r.below(2))
      for (std::size_t t = 0; t + 3 < K; t += 4) Bt[j * K + t + 1] = Bt[j * K + t + 2] = Bt[j * K + t + 3] = Bt[j * K + t];
  const std::uint64_t sign = in.sign_mask();
  for (std::size_t i = 0; i < m; ++i) {
    if (r.below(4)) continue;
    std::uint64_t* a = A + i * K;
    const std::size_t mode = r.below(4);
    for (std::size_t t = 0; t + 3 < K; t += 4) {
      if (mode == 0 || mode == 2) a[t + 1] = a[t] ^ sign;
      if (mode == 1 || mode == 2) a[t + 3] = a[t + 2] ^ sign;
      if (mode == 3) {
        a[t + 2] = a[t] ^ sign;
        a[t + 3] = a[t + 1] ^ sign;
      }
    }
  }
}

struct TileTally {
  std::uint64_t outputs = 0, blocks = 0, mismatches = 0;
};

// 48 x 40 GEMMs (tiles, padding, task edges) until `total` block FMAs are checked.
// pairs: a pairs-mod4 row, K of 1 to 40 instructions (2k products each, `blocks` counts them)
// and a quarter of the c aimed at the first instruction's final addition.
TileTally gemm_chains(const Unit& unit, const DatapathSpec& row, const Format& in, const Format& out, Rng& r,
                  std::uint64_t total, const std::string& label, bool pairs = false) {
  const std::size_t k = static_cast<std::size_t>(row.fma_size), step = pairs ? 2 * k : k;
  const std::size_t m = 48, n = 40;
  TileTally t;
  while (t.blocks < total) {
    std::size_t K = pairs ? step * (1 + r.below(40)) : k * (2 + r.below(39));  // named draws: operand order is unspecified
    if (!pairs) K += r.below(k);
    else if (r.below(4) == 0) K += r.below(step);
    std::vector<std::uint64_t> A(m * K), Bt(n * K), B(K * n), C(m * n), scratch(K);
    std::uint64_t unused = 0;
    const bool calm = r.below(2) == 0;
    for (std::size_t i = 0; i < m; ++i) fill_chain(in, out, r, k, A.data() + i * K, scratch.data(), K, C[i * n], calm);
    for (std::size_t j = 0; j < n; ++j) fill_chain(in, out, r, k, Bt.data() + j * K, scratch.data(), K, unused, calm);
    for (std::size_t e = 0; e < m * n; ++e)
      if (e % n)
        C[e] = r.below(calm ? 64 : 4) ? uniform_value(out, r) : (r.below(2) ? zero_pattern(out, r) : random_finite(out, r));
    if (pairs) cancel_blocks(in, r, m, n, K, A.data(), Bt.data());
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t s = 0; s < K; ++s) B[s * n + j] = Bt[j * K + s];
    if (pairs)
      for (std::size_t e = 0; e < m * n; ++e)
        if (r.below(4) == 0) {
          const std::size_t i = e / n, j = e % n, len = std::min(K, step);
          const std::uint64_t u = unit.dot(in, out, {A.data() + i * K, len}, {Bt.data() + j * K, len}, out.zero(false),
                                           row.instruction);
          C[e] = final_add_edge_c(out, r, u, C[e]);
        }
    const std::vector<std::uint64_t> D = unit.gemm(in, out, m, n, K, A, B, C, row.instruction, 1);
    gemm_mismatches(unit, in, in, out, m, n, K, A, B, C, D, row.instruction, {"tile-chain", label}, t.mismatches);
    t.outputs += m * n;
    t.blocks += m * n * ((K + step - 1) / step);
  }
  return t;
}

// Whether the row's GEMM takes the chains: the tiles without a final addition.
bool chain_row(const Unit& unit, const DatapathSpec& row, const Format& in, const Format& out) {
  if (row.block_scale || row.c_entry == CEntry::FinalAdd || row.k_split == KSplit::PairsMod4) return false;
  if (unit.batch_path(in, out, row.instruction) != "kernel") return false;
  return BlockKernel(unit.adder(in, out, row.instruction).config(), static_cast<std::size_t>(row.fma_size))
      .tile_supported();
}

// A micro-tile's positive uniform operands (rows x K of A, K x cols of B, c) and their tile
// decodings: the stop tests' set-up. decode() again after a change to a (c's decoding too: a
// chain writes its c back).
struct StopTile {
  const BlockKernel& kernel;
  std::vector<std::uint64_t> a, b, c, d;
  std::vector<float> av, bv, cv;
  std::vector<std::int16_t> ae, be;
  std::vector<std::int32_t> ce;
  StopTile(const BlockKernel& k, const Format& in, const Format& out, std::size_t K, Rng& r)
      : kernel(k), a(k.tile_rows() * K), b(K * k.tile_columns()), c(k.tile_rows() * k.tile_columns()), d(c.size()),
        av(a.size()), bv(b.size()), cv(c.size()), ae(a.size()), be(b.size()), ce(c.size()) {
    for (auto& x : a) x = uniform_value(in, r) & ~in.sign_mask();
    for (auto& x : b) x = uniform_value(in, r) & ~in.sign_mask();
    for (auto& x : c) x = uniform_value(out, r) & ~out.sign_mask();
    kernel.decode_tile(BlockKernel::Role::B, b.size(), b.data(), bv.data(), be.data());
    decode();
  }
  void decode() {
    kernel.decode_tile(BlockKernel::Role::A, a.size(), a.data(), av.data(), ae.data());
    kernel.decode_tile(BlockKernel::Role::C, c.size(), c.data(), cv.data(), ce.data());
  }
};

}  // namespace

TEST_CASE("tile chains: the small-block rows chain their blocks in registers", "[kernel][tiles]") {
  // The 15 lines (13 in the task's count) of issue 25's i25chain task and whether run_tile_chain takes them: a micro-tile
  // of uniform operands runs every block (stops = K), one with a NaN in block 3 stops there.
  struct Line {
    const char *unit, *in, *out;
  };
  const Line lines[] = {{"v100", "fp16", "fp32"}, {"v100", "fp16", "fp16"}, {"t4", "fp16", "fp32"},
                        {"t4", "fp16", "fp16"},   {"a100", "fp16", "fp32"}, {"a100", "fp16", "fp16"},
                        {"a100", "bf16", "fp32"}, {"a100", "tf32", "fp32"}, {"l40s", "fp16", "fp32"},
                        {"l40s", "fp16", "fp16"}, {"l40s", "bf16", "fp32"}, {"l40s", "tf32", "fp32"},
                        {"h100", "tf32", "fp32"}, {"b200", "tf32", "fp32"}, {"rtx5090", "tf32", "fp32"}};
  Rng r(tcsim::test::seed("tile chains: stops", 0x7c5e0c4a));
  for (const Line& l : lines) {
    const Unit& unit = builtin_unit(l.unit);
    const Format &in = parse_format(l.in), &out = parse_format(l.out);
    INFO(std::string(l.unit) + " " + l.in + "->" + l.out);
    const DatapathSpec& row = unit.datapath(in, out, "mma.sync");
    REQUIRE(chain_row(unit, row, in, out));
    const std::size_t k = static_cast<std::size_t>(row.fma_size);
    const BlockKernel kernel(unit.adder(in, out, row.instruction).config(), k);
    const std::size_t rows = kernel.tile_rows(), cols = kernel.tile_columns(), K = 8 * k;
    StopTile t(kernel, in, out, K, r);
    std::size_t stop = 0;
    auto chain = [&] {
      return kernel.run_tile_chain(rows, cols, cols, K, k, t.av.data(), t.ae.data(), K, t.bv.data(), t.be.data(), cols,
                                   t.cv.data(), t.ce.data(), t.d.data(), cols, &stop);
    };
    REQUIRE(chain());
    CHECK(stop == K);
    // A NaN operand in block 3 of row 1: the micro-tile stops before block 3.
    t.a[1 * K + 3 * k + 1] = in.canonical_nan();
    t.decode();
    REQUIRE(chain());
    CHECK(stop == 3 * k);
  }
}

TEST_CASE("kernel differential: tile chains (every tile row without a final addition)", "[kernel][differential]") {
  Rng r(tcsim::test::seed("kernel differential tile chains", 0x7c5e0c4b));
  const std::uint64_t total = tcsim::test::count(300'000);
  std::size_t pairs = 0;
  for (const char* unit_name : {"v100", "t4", "a100", "l40s", "h100", "b200", "rtx5090"}) {
    const Unit& unit = builtin_unit(unit_name);
    for (const auto& row : unit.spec().datapaths)
      for (const auto& in_name : row.input_formats)
        for (const auto& out_name : row.output_formats) {
          const Format &in = parse_format(in_name), &out = parse_format(out_name);
          if (!chain_row(unit, row, in, out)) continue;
          const std::string label = std::string(unit_name) + " " + (row.instruction.empty() ? "(any)" : row.instruction) +
                                    " " + in_name + "->" + out_name + " k" + std::to_string(row.fma_size);
          INFO(label);
          ++pairs;
          const TileTally t = gemm_chains(unit, row, in, out, r, total, label);
          std::printf("[tile-chain] %-40s gemm %llu outputs, %llu block FMAs, %llu mismatches\n", label.c_str(),
                      static_cast<unsigned long long>(t.outputs), static_cast<unsigned long long>(t.blocks),
                      static_cast<unsigned long long>(t.mismatches));
          CHECK(t.mismatches == 0);
        }
  }
  CHECK(pairs >= 13);
}

namespace {

// The fp8 mma.sync emulation lines (pairs-mod4, final addition rounded to nearest even).
struct PairsLine {
  const char *unit, *in, *out;
};
const PairsLine kPairsLines[] = {{"h100", "e4m3", "fp32"}, {"h100", "e5m2", "fp32"}, {"h100", "e4m3", "fp16"},
                                 {"h100", "e5m2", "fp16"}, {"b200", "e4m3", "fp32"}, {"b200", "e5m2", "fp32"},
                                 {"b200", "e4m3", "fp16"}, {"b200", "e5m2", "fp16"}};

}  // namespace

TEST_CASE("pairs-mod4 chains: the fp8 mma.sync emulation lines chain whole instructions in registers",
          "[kernel][tiles][pairs]") {
  // run_tile_pairs_chain takes the 8 lines: a micro-tile of positive uniform operands (no
  // cancellation: every block result and sum at least 2^-12, never flagged as tiny or zero)
  // runs every instruction, one with a NaN in instruction 3 stops there (its c handed back
  // unchanged).
  Rng r(tcsim::test::seed("pairs-mod4 chains: stops", 0x9a125e41));
  for (const PairsLine& l : kPairsLines) {
    const Unit& unit = builtin_unit(l.unit);
    const Format &in = parse_format(l.in), &out = parse_format(l.out);
    INFO(std::string(l.unit) + " " + l.in + "->" + l.out);
    const DatapathSpec& row = unit.datapath(in, out, "mma.sync");
    REQUIRE(row.k_split == KSplit::PairsMod4);
    REQUIRE(row.c_entry == CEntry::FinalAdd);
    const std::size_t k = static_cast<std::size_t>(row.fma_size), group = 2 * k;
    const BlockKernel kernel(unit.adder(in, out, row.instruction).config(), k);
    const std::size_t rows = kernel.tile_rows(), cols = kernel.tile_columns(), K = 8 * group;
    StopTile t(kernel, in, out, K, r);
    std::size_t stop = 0;
    const bool binary16 = out == formats::fp16();
    auto chain = [&](std::size_t len) {
      return kernel.run_tile_pairs_chain(binary16, rows, cols, cols, len, k, t.av.data(), t.ae.data(), K, t.bv.data(),
                                         t.be.data(), cols, t.cv.data(), t.ce.data(), t.d.data(), cols, &stop);
    };
    REQUIRE(chain(K));
    CHECK(stop == K);
    CHECK_FALSE(chain(K - k));  // not whole instructions: refused
    t.a[1 * K + 3 * group + k + 1] = in.canonical_nan();  // instruction 3, its second block
    t.decode();
    REQUIRE(chain(K));
    CHECK(stop == 3 * group);
  }
}

TEST_CASE("kernel differential: pairs-mod4 chains (the fp8 mma.sync emulation), every SIMD target",
          "[kernel][differential][pairs]") {
  Rng r(tcsim::test::seed("kernel differential pairs-mod4 chains", 0x9a125e42));
  // Instructions per pair: the CPU's best target, and fewer on the others.
  const std::uint64_t best = tcsim::test::count(150'000), others = tcsim::test::count(30'000);
  std::uint64_t mismatches = 0, outputs = 0;
  const auto targets = hwy::SupportedAndGeneratedTargets();
  for (const std::int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string name = hwy::TargetName(target);
    for (const PairsLine& l : kPairsLines) {
      const Unit& unit = builtin_unit(l.unit);
      const Format &in = parse_format(l.in), &out = parse_format(l.out);
      const DatapathSpec& row = unit.datapath(in, out, "mma.sync");
      const std::string label = name + " " + l.unit + " mma.sync " + l.in + "->" + l.out;
      INFO(label);
      const TileTally t = gemm_chains(unit, row, in, out, r, target == targets.front() ? best : others, label, true);
      std::printf("[pairs-chain] %-40s gemm %llu outputs, %llu instructions, %llu mismatches\n", label.c_str(),
                  static_cast<unsigned long long>(t.outputs), static_cast<unsigned long long>(t.blocks),
                  static_cast<unsigned long long>(t.mismatches));
      mismatches += t.mismatches;
      outputs += t.outputs;
    }
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the CPU's own
  std::printf("[pairs-chain] %zu targets, %llu GEMM outputs in all, %llu mismatches\n", targets.size(),
              static_cast<unsigned long long>(outputs), static_cast<unsigned long long>(mismatches));
  CHECK(mismatches == 0);
}

TEST_CASE("tile chains: resumed after a stopped block, every SIMD target (issue 25, i25v100)", "[kernel][differential]") {
  // The caller runs only the block that stopped a micro-tile's chain on run_tile and resumes the
  // chain from the next block (kind 3 rows stop it 2-4 times). The k = 4 and k = 8 fp16 lines and
  // a bf16 one on every target Highway compiled and the CPU runs.
  Rng r(tcsim::test::seed("tile chains: resumed", 0x7c5e0c4c));
  struct Line {
    const char *unit, *in, *out;
  };
  const Line lines[] = {{"v100", "fp16", "fp16"}, {"v100", "fp16", "fp32"}, {"t4", "fp16", "fp16"}, {"a100", "bf16", "fp32"}};
  const auto targets = hwy::SupportedAndGeneratedTargets();
  const std::uint64_t best = tcsim::test::count(100'000), others = tcsim::test::count(20'000);
  std::uint64_t mismatches = 0;
  for (const std::int64_t target : targets) {
    // The scalar target has no chains (run_tile_chain refuses; gemm runs block_tile's binary64
    // epilogue): it checks that epilogue, whose overflow test once relied on DemoteTo giving Inf
    // (EMU128/SCALAR saturate: 0x7f7fffff for Inf with seed 2086538316).
    hwy::SetSupportedTargetsForTest(target);
    const std::string name = hwy::TargetName(target);
    for (const Line& l : lines) {
      const Unit& unit = builtin_unit(l.unit);
      const Format &in = parse_format(l.in), &out = parse_format(l.out);
      const DatapathSpec& row = unit.datapath(in, out, "mma.sync");
      const std::string label = name + " " + l.unit + " " + l.in + "->" + l.out;
      INFO(label);
      REQUIRE(chain_row(unit, row, in, out));
      const TileTally t = gemm_chains(unit, row, in, out, r, target == targets.front() ? best : others, label);
      std::printf("[tile-chain] resumed %-32s gemm %llu outputs, %llu block FMAs, %llu mismatches\n", label.c_str(),
                  static_cast<unsigned long long>(t.outputs), static_cast<unsigned long long>(t.blocks),
                  static_cast<unsigned long long>(t.mismatches));
      mismatches += t.mismatches;
    }
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the CPU's own
  CHECK(mismatches == 0);
}
