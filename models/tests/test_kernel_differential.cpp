// The differential campaign of the fast paths (issue 7): on every built-in row and format
// pair that runs on the block kernel, 10^6 random block FMAs through dot_batch (the pattern
// path) and dot_batch_planar (the planar path; formats of at most 16 bits), and 3 x 10^5 GEMM
// outputs through gemm (the tile path), against Unit::dot (the reference adder and
// chaining), with the kinds of kernel_cases.hpp: zeros of both signs, subnormals,
// exact cancellation, ties at the final rounding, carry overflow, Inf/NaN, the min-exponent
// clamp. TCSIM_TEST_SCALE scales the counts (the sanitizer pass runs 2 %; TCSIM_TEST_SCALE=10
// runs 10^7 per pair, as CI did until the CI budget needed the time: 0 mismatches on every
// pair, 2026-11-23; CI ran 3 x 10^6 per pair until 2026-11-26, when b200 alone took 248 s of
// it); one test case per unit so that ctest runs them in parallel.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "flush_edges.hpp"
#include "diff_checks.hpp"
#include "kernel_cases.hpp"
#include "kernel_fills.hpp"
#include "models_test_helpers.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::reftest;
using tcsim::test::Rng;

namespace {

struct Tally {
  std::uint64_t cases = 0, mismatches = 0, planar_cases = 0, planar_mismatches = 0;
};

void report(const std::string& label, const Format& in, const Format& out, std::size_t K, const std::uint64_t* a,
            const std::uint64_t* b, std::uint64_t c, std::uint64_t got, std::uint64_t want) {
  std::printf("[kernel-diff] MISMATCH %s K %zu: a = %s, b = %s, c = %s: fast %s, dot %s\n", label.c_str(), K,
              hex_list(in, a, K).c_str(), hex_list(in, b, K).c_str(), bits_to_hex(out, c).c_str(),
              bits_to_hex(out, got).c_str(), bits_to_hex(out, want).c_str());
}

// dot_batch against dot: `total` elements of one instruction's K (a few of K + 3: a padded block).
Tally batch_campaign(const Unit& unit, const DatapathSpec& row, const Format& in, const Format& out, Rng& r,
                     std::uint64_t total, const std::string& label, Fill fill = fill_element) {
  const std::size_t k = static_cast<std::size_t>(row.fma_size);
  const std::size_t instruction_k = row.k_split == KSplit::PairsMod4 ? 2 * k : k;
  Tally t;
  constexpr std::size_t kBatch = 1 << 15;
  std::vector<std::uint64_t> a, b, c(kBatch), d(kBatch), d_planar(kBatch);
  std::vector<std::uint16_t> at, bt;
  while (t.cases < total) {
    const std::size_t K = r.below(16) ? instruction_k : instruction_k + 3;
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kBatch, total - t.cases));
    a.resize(n * K);
    b.resize(n * K);
    for (std::size_t e = 0; e < n; ++e) fill(in, out, r, a.data() + e * K, b.data() + e * K, K, c[e]);
    unit.dot_batch(in, out, n, K, a.data(), b.data(), c.data(), d.data(), row.instruction, 1);
    // The same elements product-major in 16-bit patterns (dot_batch_planar).
    const bool planar = in.width <= 16;
    if (planar) {
      product_major16(a.data(), n, K, at);
      product_major16(b.data(), n, K, bt);
      unit.dot_batch_planar(in, out, n, K, at.data(), bt.data(), c.data(), d_planar.data(), row.instruction, 1);
      t.planar_cases += n;
    }
    for (std::size_t e = 0; e < n; ++e) {
      const std::uint64_t want = unit.dot(in, out, {a.data() + e * K, K}, {b.data() + e * K, K}, c[e], row.instruction);
      if (want != d[e] && t.mismatches++ < 3) report(label, in, out, K, a.data() + e * K, b.data() + e * K, c[e], d[e], want);
      if (planar && want != d_planar[e] && t.planar_mismatches++ < 3)
        report(label + " planar", in, out, K, a.data() + e * K, b.data() + e * K, c[e], d_planar[e], want);
    }
    t.cases += n;
  }
  return t;
}

// gemm against dot: 48 x 40 outputs at a time (tiles, padding and task edges), K of one or two
// instructions plus a remainder; rows of A and columns of B each drawn from one kind.
Tally gemm_campaign(const Unit& unit, const DatapathSpec& row, const Format& in, const Format& out, Rng& r,
                    std::uint64_t total, const std::string& label, Fill fill = fill_element) {
  const std::size_t k = static_cast<std::size_t>(row.fma_size);
  const std::size_t instruction_k = row.k_split == KSplit::PairsMod4 ? 2 * k : k;
  const std::size_t m = 48, n = 40;
  Tally t;
  auto element = [&](std::uint64_t* a, std::uint64_t* b, std::size_t K, std::uint64_t& c) {
    fill(in, out, r, a, b, K, c);
  };
  while (t.cases < total) {
    std::size_t K = instruction_k * (1 + r.below(2));  // named draws: operand order is unspecified
    K += r.below(3);
    std::vector<std::uint64_t> A(m * K), B(K * n), C(m * n);
    fill_gemm(m, n, K, A, B, C, element);
    const std::vector<std::uint64_t> D = unit.gemm(in, out, m, n, K, A, B, C, row.instruction, 1);
    gemm_mismatches(unit, in, in, out, m, n, K, A, B, C, D, row.instruction, {"kernel-diff", label + " gemm", "fast"},
                    t.mismatches);
    t.cases += m * n;
  }
  return t;
}

// One row and format pair: `batch_total` block FMAs through dot_batch (and planar) and
// `gemm_total` GEMM outputs, elements from `fill`, against Unit::dot; tallies printed, no
// mismatch allowed.
void check_pair(const Unit& unit, const DatapathSpec& row, const Format& in, const Format& out, Rng& r,
                std::uint64_t batch_total, std::uint64_t gemm_total, const std::string& label, Fill fill = fill_element) {
  const Tally tb = batch_campaign(unit, row, in, out, r, batch_total, label, fill);
  const Tally tg = gemm_campaign(unit, row, in, out, r, gemm_total, label, fill);
  auto u = [](std::uint64_t x) { return static_cast<unsigned long long>(x); };
  std::printf("[kernel-diff] %-32s dot_batch %llu cases, %llu mismatches; planar %llu cases, %llu mismatches; gemm %llu "
              "outputs, %llu mismatches\n",
              label.c_str(), u(tb.cases), u(tb.mismatches), u(tb.planar_cases), u(tb.planar_mismatches), u(tg.cases),
              u(tg.mismatches));
  CHECK(tb.mismatches == 0);
  CHECK(tb.planar_mismatches == 0);
  CHECK(tg.mismatches == 0);
}

void campaign(const char* unit_name) {
  const Unit& unit = builtin_unit(unit_name);
  Rng r(tcsim::test::seed((std::string("kernel differential ") + unit_name).c_str(), 0x7c5e0000 + unit_name[0]));
  const std::uint64_t batch_total = tcsim::test::count(1'000'000), gemm_total = tcsim::test::count(300'000);
  std::size_t pairs = 0;
  for (const auto& row : unit.spec().datapaths) {
    if (row.block_scale) continue;
    for (const auto& in_name : row.input_formats)
      for (const auto& out_name : row.output_formats) {
        const Format &in = parse_format(in_name), &out = parse_format(out_name);
        const std::string path = unit.batch_path(in, out, row.instruction);
        if (path != "kernel" && path != "fma-chain") continue;
        ++pairs;
        const std::string label = std::string(unit_name) + " " + (row.instruction.empty() ? "(any)" : row.instruction) +
                                  " " + in.name + "->" + out.name + " [" + path + "]";
        INFO(label);
        check_pair(unit, row, in, out, r, batch_total, gemm_total, label);
      }
  }
  CHECK(pairs > 0);
}

}  // namespace

TEST_CASE("kernel differential: v100", "[kernel][differential]") { campaign("v100"); }
TEST_CASE("kernel differential: t4", "[kernel][differential]") { campaign("t4"); }
TEST_CASE("kernel differential: a100", "[kernel][differential]") { campaign("a100"); }
TEST_CASE("kernel differential: l40s", "[kernel][differential]") { campaign("l40s"); }
TEST_CASE("kernel differential: h100", "[kernel][differential]") { campaign("h100"); }
TEST_CASE("kernel differential: b200", "[kernel][differential]") { campaign("b200"); }

// User rows the built-in table lacks, for the tile path's fused binary32 epilogue: rne into
// binary32 (every built-in binary32 output is rz), a narrow F (most terms truncated) and few
// carry bits (sums at the wrap limit go to the exact path).
TEST_CASE("kernel differential: user rows with binary32 rne output or a narrow F or few carry bits", "[kernel][differential]") {
  Rng r(tcsim::test::seed("kernel differential user rows", 0x7c5e00ff));
  const std::uint64_t batch_total = tcsim::test::count(1'000'000), gemm_total = tcsim::test::count(300'000);
  struct Variant {
    const char* name;
    int fraction_bits, carry_bits;
    Rounding final_rounding;
  };
  for (const Variant v : {Variant{"rne F25", 25, 6, Rounding::NearestEven}, Variant{"rz F10", 10, 6, Rounding::TowardZero},
                          Variant{"rne F12 carry 1", 12, 1, Rounding::NearestEven}}) {
    UnitSpec spec;
    spec.name = std::string("user-") + v.name;
    spec.architecture = "user";
    DatapathSpec row = builtin_unit("h100").datapath(formats::fp16(), formats::fp32());
    row.output_formats = {"fp32"};
    row.final_rounding = {{"fp32", v.final_rounding}};
    row.fraction_bits = v.fraction_bits;
    row.carry_bits = v.carry_bits;
    row.min_exponent = {{"fp32", -133}};
    row.nan_pattern.erase("fp16");
    row.result_fraction_bits.clear();
    spec.datapaths = {row};
    const Unit unit(spec);
    const Format &in = formats::fp16(), &out = formats::fp32();
    const std::string label = spec.name + " fp16->fp32 [" + unit.batch_path(in, out) + "]";
    INFO(label);
    REQUIRE(unit.batch_path(in, out) == "kernel");
    check_pair(unit, row, in, out, r, batch_total, gemm_total, label);
  }
}

// Issue 25: bf16 and tf32 run on the tile path (gemm) and bf16 on the planar path
// (dot_batch_planar), with the range flags above. Every built-in bf16/tf32 row on the kernel:
// 10^6 GEMM outputs and 10^6 block FMAs (dot_batch and, for bf16, planar), half of them from
// fill_range_edges, half from kernel_cases.hpp, against Unit::dot. TCSIM_TEST_SCALE=10 runs
// 10^7 of each (docs/reliability.md records that run).
TEST_CASE("kernel differential: bf16 and tf32 beyond binary32's range (tiles, planar)", "[kernel][differential]") {
  Rng r(tcsim::test::seed("kernel differential bf16 tf32", 0x7c5e0b16));
  const std::uint64_t total = tcsim::test::count(1'000'000);
  std::size_t pairs = 0;
  for (const char* unit_name : {"a100", "l40s", "h100", "b200", "rtx5090"}) {
    const Unit& unit = builtin_unit(unit_name);
    for (const auto& row : unit.spec().datapaths)
      for (const auto& in_name : row.input_formats)
        for (const auto& out_name : row.output_formats) {
          const Format &in = parse_format(in_name), &out = parse_format(out_name);
          if ((in.name != "bf16" && in.name != "tf32") || row.block_scale) continue;
          if (unit.batch_path(in, out, row.instruction) != "kernel") continue;
          ++pairs;
          const std::string label = std::string(unit_name) + " " + (row.instruction.empty() ? "(any)" : row.instruction) +
                                    " " + in.name + "->" + out.name;
          INFO(label);
          CHECK(unit.batch_path_planar(in, out, row.instruction) ==
                (in.name == "bf16" ? "kernel (planar)" : "regrouped for dot_batch: kernel"));
          check_pair(unit, row, in, out, r, total, total, label, half_with_elements<fill_range_edges>);
        }
  }
  CHECK(pairs >= 10);
}

// Issue 25: the AMD rows on host-float paths: CDNA2's fp16, bf16 and bf16-legacy rows on the
// binary32 trees (sim ieee_tree.hpp), CDNA3's rows (c added after, sim after_add.hpp; the mixed
// fp8 x bf8 pairs are not drawn here), CDNA1's exact blocks (sim exact_block.hpp) and the FMA chains (v_mfma_f32_*f32 with std::fmaf,
// v_mfma_f64_*f64 with std::fma): 200,000 block FMAs through dot_batch (and dot_batch_planar,
// regrouped) and 100,000 GEMM outputs per row and format, half of them from
// tests/flush_edges.hpp (flushing, zero signs, cancellation, overflow), half from
// kernel_cases.hpp, against Unit::dot (the reference adder, whose per-step additions are slow).
// TCSIM_TEST_SCALE=50 runs 10^7 of each (docs/reliability.md records that run).
TEST_CASE("kernel differential: AMD rows on binary32 trees and FMA chains", "[kernel][differential]") {
  Rng r(tcsim::test::seed("kernel differential amd", 0x7c5e0250));
  const std::uint64_t batch_total = tcsim::test::count(200'000), gemm_total = tcsim::test::count(100'000);
  std::size_t trees = 0, chains = 0, afters = 0, exacts = 0;
  // TCSIM_KERNEL_DIFF_PATH=<path> keeps one path's pairs (the long runs of docs/reliability.md).
  const char* only = std::getenv("TCSIM_KERNEL_DIFF_PATH");
  if (only) std::printf("[kernel-diff] only the %s pairs (TCSIM_KERNEL_DIFF_PATH)\n", only);
  for (const char* unit_name : {"mi100", "mi250x", "mi300x"}) {
    const Unit& unit = builtin_unit(unit_name);
    for (const auto& row : unit.spec().datapaths)
      for (const auto& in_name : row.input_formats)
        for (const auto& out_name : row.output_formats) {
          const Format &in = parse_format(in_name), &out = parse_format(out_name);
          const std::string label_path = unit.batch_path(in, out, row.instruction);
          // The after-add and exact-block rows run on SIMD lanes ("after-add (lanes)"; issue 25).
          const std::string path = label_path.substr(0, label_path.find(" (lanes)"));
          if (path != "binary32-tree" && path != "fma-chain" && path != "after-add" && path != "exact-block") continue;
          if (only && path != only) continue;
          ++(path == "fma-chain" ? chains : path == "after-add" ? afters : path == "exact-block" ? exacts : trees);
          const std::string label = std::string(unit_name) + " " + (row.instruction.empty() ? "(any)" : row.instruction) +
                                    " " + in.name + "->" + out.name + " [" + label_path + "]";
          INFO(label);
          check_pair(unit, row, in, out, r, batch_total, gemm_total, label, half_with_elements<fill_flush_edges>);
        }
  }
  if (only) return;
  CHECK(trees == 3);   // mi250x fp16, bf16 (bf16_1k), bf16-legacy
  CHECK(chains == 5);  // fp32 on mi100, mi250x, mi300x; fp64 on mi250x, mi300x
  CHECK(exacts == 2);  // mi100 fp16, bf16
  CHECK(afters == 10);  // mi300x v2 and v1: fp16, bf16, e4m3fnuz, e5m2fnuz, xf32 (fp32)
}

// Issue 25: the block-scaled rows of b200 and rtx5090 without scales (dot, dot_batch and gemm
// take every scale as 1): kind::mxf8f6f4 is then its adder's plain block FMA (the kernel), and
// kind::mxf4nvf4 sums its groups of 16 exactly in binary64 lanes (BlockKernel::run_row_groups).
// dot_batch, dot_batch_planar and gemm against Unit::dot (dot_scaled, the block-scaled
// reference). ctest runs 10^5 per pair and path (TCSIM_TEST_SCALE scales it);
// TCSIM_BLOCK_SCALED_CASES=N runs N per pair and path (docs/reliability.md records the long runs).
TEST_CASE("kernel differential: block-scaled rows without scales on b200 and rtx5090", "[kernel][differential]") {
  Rng r(tcsim::test::seed("kernel differential block-scaled", 0x7c5e0b5c));
  const char* env = std::getenv("TCSIM_BLOCK_SCALED_CASES");
  const std::uint64_t total = env ? std::strtoull(env, nullptr, 0) : tcsim::test::count(100'000);
  // TCSIM_BLOCK_SCALED_ONLY=<texts>: only the pairs whose label contains one of them (long runs
  // split over processes).
  std::size_t pairs = 0;
  for (const char* unit_name : {"b200", "rtx5090"}) {
    const Unit& unit = builtin_unit(unit_name);
    for (const auto& row : unit.spec().datapaths) {
      if (!row.block_scale) continue;
      for (const auto& in_name : row.input_formats)
        for (const auto& out_name : row.output_formats) {
          const Format &in = parse_format(in_name), &out = parse_format(out_name);
          const std::string path = unit.batch_path(in, out, row.instruction);
          const std::string label = std::string(unit_name) + " " + row.instruction + " " + in.name + "->" + out.name +
                                    " [" + path + "]";
          INFO(label);
          CHECK((row.block_scale->group_size > 0 ? path.rfind("kernel (group sums", 0) == 0 : path == "kernel"));
          ++pairs;
          if (!tcsim::test::selected("TCSIM_BLOCK_SCALED_ONLY", label)) continue;
          check_pair(unit, row, in, out, r, total, total, label, fill_groups);
        }
    }
  }
  CHECK(pairs == 9);  // b200: mxf8f6f4 x 5 inputs, mxf4nvf4; rtx5090: mxf8f6f4 x 2, mxf4nvf4
}

// The group-sum GEMM across task edges (16-row tasks, 256-column panels, a short last block)
// gives the same bits on 1 and 2 threads, and those of dot.
TEST_CASE("block-scaled mxf4nvf4 gemm: task edges and thread counts", "[kernel][differential]") {
  Rng r(tcsim::test::seed("block-scaled gemm threads", 0x7c5e0b5d));
  const Unit& unit = builtin_unit("b200");
  const Format &in = formats::e2m1(), &out = formats::fp32();
  const std::size_t m = 37, n = 300, K = 2 * 64 + 21;
  std::vector<std::uint64_t> A(m * K), B(K * n), C(m * n), column(K);
  for (auto& x : A) x = random_finite(in, r);
  for (auto& x : B) x = r.below(8) ? random_finite(in, r) : zero_pattern(in, r);
  for (auto& x : C) x = r.below(4) ? random_finite(out, r) : zero_pattern(out, r);
  const auto D1 = unit.gemm(in, out, m, n, K, A, B, C, "tcgen05.mxf4nvf4", 1);
  const auto D2 = unit.gemm(in, out, m, n, K, A, B, C, "tcgen05.mxf4nvf4", 2);
  CHECK(D1 == D2);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t t = 0; t < K; ++t) column[t] = B[t * n + j];
      if (unit.dot(in, out, {A.data() + i * K, K}, column, C[i * n + j], "tcgen05.mxf4nvf4") != D1[i * n + j]) ++bad;
    }
  CHECK(bad == 0);
}
