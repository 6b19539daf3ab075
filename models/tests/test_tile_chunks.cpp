// Issue 25: the tiles (sim/src/block_tile.cpp) for blocks whose sum does not fit one int32
// (F + 2 + log2(k) > 31): the sum in int32 chunks of 2^(29 - F) products, the chunk sums added
// in binary64. These are the fp8/fp6/fp4 rows at F = 25, k = 32 (two chunks of 16): b200
// tcgen05 kind::f8f6f4 and kind::mxf8f6f4 without scales, rtx5090 mma.sync fp8 (fp32 and fp16
// output) and mma.sync.mxf8f6f4. Every format pair of these rows (mixed ones too) through
// Unit::gemm against Unit::dot (the reference adder), with kernel_cases.hpp's kinds and
// fill_chunk_sums (sums beyond 2^31: all signs equal, opposite signs per chunk, chunk edges).
// ctest runs 2 x 10^4 GEMM outputs and as many block FMAs through dot_batch and
// dot_batch_planar per same-format pair, 2 x 10^3 per mixed pair (TCSIM_TEST_SCALE scales
// them; 500 gives 10^7 per same-format pair: docs/performance.md records the runs made).
// Long runs split over processes: TCSIM_TILE_CHUNKS_ONLY=<texts> keeps the pairs whose label
// contains one of the comma-separated texts, TCSIM_DIFF_PARTS=gemm or batch one part; each pair
// draws from its own seed (label_seed), so its cases do not depend on the selection.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "diff_checks.hpp"
#include "kernel_cases.hpp"
#include "kernel_fills.hpp"
#include "models_test_helpers.hpp"
#include "tcsim/sim/block_kernel.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::reftest;
using tcsim::test::Rng;

namespace {

// The rows of this test: (unit, instruction).
struct ChunkRow {
  const char* unit;
  const char* instruction;
};
constexpr ChunkRow kRows[] = {{"b200", "tcgen05"},
                              {"b200", "tcgen05.mxf8f6f4"},
                              {"rtx5090", "mma.sync.m16n8k32"},
                              {"rtx5090", "mma.sync.mxf8f6f4"}};

// Products in one narrow window at the top of the format, so that a block's aligned sum
// reaches 2^31 .. 2^32 (beyond one int32: the chunk sums matter), signs all equal, opposite
// per chunk of 16 (cancellation across the chunks), or random; a few zeros; c zero, random or
// near the products.
void fill_chunk_sums(const Format& in_a, const Format& in_b, const Format& out, Rng& r, std::uint64_t* a,
                     std::uint64_t* b, std::size_t K, std::uint64_t& c) {
  const int ea = r.range(lowest_lead(in_a), in_a.emax), eb = r.range(lowest_lead(in_b), in_b.emax);
  const int signs = static_cast<int>(r.below(4)), spread = 1 + static_cast<int>(r.below(3));
  const bool zeros = r.below(4) == 0;
  for (std::size_t t = 0; t < K; ++t) {
    a[t] = value_with_lead(in_a, r, ea - static_cast<int>(r.below(static_cast<std::uint64_t>(spread))));
    b[t] = value_with_lead(in_b, r, eb) & ~in_b.sign_mask();
    if (zeros && r.below(8) == 0) b[t] = zero_pattern(in_b, r);
    bool negative = (r.next() & 1) != 0;
    if (signs == 0) negative = false;
    if (signs == 1) negative = true;
    if (signs == 2) negative = (t / 16) % 2 == 1;
    a[t] = negative ? (a[t] | in_a.sign_mask()) : (a[t] & ~in_a.sign_mask());
  }
  switch (r.below(3)) {
    case 0: c = zero_pattern(out, r); break;
    case 1: c = random_finite(out, r); break;
    default: c = value_with_lead(out, r, std::clamp(ea + eb + 4, lowest_lead(out), out.emax)); break;
  }
}

// gemm against dot on m x n = 48 x 40 outputs at a time (tiles of 4 rows, padding, task
// edges), K of one or two instructions plus 0..20 (partial chunks and blocks); rows of A and
// columns of B each from one element fill (half fill_element, half fill_chunk_sums).
std::uint64_t gemm_campaign(const Unit& unit, const std::string& instruction, const Format& in_a, const Format& in_b,
                            const Format& out, Rng& r, std::uint64_t total, const std::string& label) {
  const std::size_t k = static_cast<std::size_t>(unit.datapath(in_a, out, instruction).fma_size);
  const std::size_t m = 48, n = 40;
  StageClock clock;
  std::uint64_t cases = 0, mismatches = 0;
  std::vector<std::uint64_t> scratch_a, scratch_b;
  while (cases < total) {
    std::size_t K = k * (1 + r.below(2));  // named draws: operand order is unspecified
    K += r.below(21);
    std::vector<std::uint64_t> A(m * K), Bt(n * K), B(K * n), C(m * n), D(m * n);
    scratch_a.resize(K);
    scratch_b.resize(K);
    std::uint64_t unused = 0;
    // A's rows and B's columns: one element each (the other operand's draw is discarded when
    // the formats differ, kept in the other matrix when they agree).
    for (std::size_t i = 0; i < m; ++i) {
      if (r.below(2)) fill_chunk_sums(in_a, in_b, out, r, A.data() + i * K, scratch_b.data(), K, C[i * n]);
      else fill_element(in_a, out, r, A.data() + i * K, scratch_a.data(), K, C[i * n]);
    }
    for (std::size_t j = 0; j < n; ++j) {
      if (r.below(2)) fill_chunk_sums(in_a, in_b, out, r, scratch_a.data(), Bt.data() + j * K, K, unused);
      else fill_element(in_b, out, r, Bt.data() + j * K, scratch_b.data(), K, unused);
    }
    for (std::size_t e = 0; e < m * n; ++e)
      if (e % n) C[e] = r.below(3) == 0 ? zero_pattern(out, r) : random_finite(out, r);
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t s = 0; s < K; ++s) B[s * n + j] = Bt[j * K + s];
    clock.lap(StageClock::kGenerate);
    unit.gemm_into(in_a, in_b, out, m, n, K, A, B, C, D, instruction, 1);
    clock.lap(StageClock::kFast);
    gemm_mismatches(unit, in_a, in_b, out, m, n, K, A, B, C, D, instruction, {"tile-chunks", label}, mismatches);
    clock.lap(StageClock::kReference);
    cases += m * n;
  }
  std::printf("[tile-chunks] %-44s gemm %llu outputs, %llu mismatches; %s\n", label.c_str(),
              static_cast<unsigned long long>(cases), static_cast<unsigned long long>(mismatches),
              clock.rates(cases).c_str());
  return mismatches;
}

// dot_batch (the binary32 pattern lanes, one int32 fold per chunk) and dot_batch_planar (the
// planar lanes, one int32 sum per chunk) against dot: `total` elements of K = k or k + 3..20
// (a padded second block), half fill_element, half fill_chunk_sums.
std::uint64_t batch_campaign(const Unit& unit, const std::string& instruction, const Format& in_a, const Format& in_b,
                             const Format& out, Rng& r, std::uint64_t total, const std::string& label) {
  const std::size_t k = static_cast<std::size_t>(unit.datapath(in_a, out, instruction).fma_size);
  constexpr std::size_t kBatch = 1 << 13;
  std::uint64_t cases = 0, mismatches = 0;
  std::vector<std::uint64_t> a, b, c(kBatch), d(kBatch), d_planar(kBatch), scratch;
  std::vector<std::uint16_t> at, bt;
  StageClock clock;
  while (cases < total) {
    const std::size_t K = r.below(4) ? k : k + 3 + r.below(18);
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kBatch, total - cases));
    a.resize(n * K);
    b.resize(n * K);
    scratch.resize(K);
    for (std::size_t e = 0; e < n; ++e) {
      if (r.below(2)) {
        fill_chunk_sums(in_a, in_b, out, r, a.data() + e * K, b.data() + e * K, K, c[e]);
      } else {  // fill_element draws one format: a from in_a, b from in_b (two draws)
        fill_element(in_a, out, r, a.data() + e * K, scratch.data(), K, c[e]);
        std::uint64_t unused = 0;
        fill_element(in_b, out, r, b.data() + e * K, scratch.data(), K, unused);
      }
    }
    clock.lap(StageClock::kGenerate);
    unit.dot_batch(in_a, in_b, out, n, K, a.data(), b.data(), c.data(), d.data(), instruction, 1);
    product_major16(a.data(), n, K, at);
    product_major16(b.data(), n, K, bt);
    unit.dot_batch_planar(in_a, in_b, out, n, K, at.data(), bt.data(), c.data(), d_planar.data(), instruction, 1);
    clock.lap(StageClock::kFast);
    for (std::size_t e = 0; e < n; ++e) {
      const std::uint64_t want = unit.dot(in_a, in_b, out, {a.data() + e * K, K}, {b.data() + e * K, K}, c[e], instruction);
      for (const std::uint64_t got : {d[e], d_planar[e]})
        if (got != want && mismatches++ < 3)
          std::printf("[tile-chunks] MISMATCH %s %s K %zu: a = %s, b = %s, c = %s: got %s, dot %s\n",
                      got == d[e] ? "dot_batch" : "planar", label.c_str(), K, hex_list(in_a, a.data() + e * K, K).c_str(),
                      hex_list(in_b, b.data() + e * K, K).c_str(), bits_to_hex(out, c[e]).c_str(),
                      bits_to_hex(out, got).c_str(), bits_to_hex(out, want).c_str());
    }
    clock.lap(StageClock::kReference);
    cases += n;
  }
  std::printf("[tile-chunks] %-44s dot_batch and planar %llu elements each, %llu mismatches; %s\n", label.c_str(),
              static_cast<unsigned long long>(cases), static_cast<unsigned long long>(mismatches),
              clock.rates(cases).c_str());
  return mismatches;
}

}  // namespace

TEST_CASE("tile chunks: the fp8/fp6/fp4 rows at F = 25, k = 32 run on the tiles, in two int32 chunks", "[kernel][tiles]") {
  std::size_t lines = 0;
  for (const ChunkRow& cr : kRows) {
    const Unit& unit = builtin_unit(cr.unit);
    const DatapathSpec& row = unit.datapath(parse_format(cr.unit[0] == 'b' ? "e2m1" : "e4m3"), formats::fp32(),
                                            cr.instruction);
    for (const auto& in_name : row.input_formats)
      for (const auto& out_name : row.output_formats) {
        const Format &in = parse_format(in_name), &out = parse_format(out_name);
        INFO(std::string(cr.unit) + " " + cr.instruction + " " + in_name + "->" + out_name);
        CHECK(row.fraction_bits == 25);
        CHECK(row.fma_size == 32);
        CHECK(unit.batch_path(in, out, cr.instruction) == "kernel");
        const BlockKernel kernel(unit.adder(in, out, cr.instruction).config(), 32);
        CHECK(kernel.tile_supported());
        ++lines;
      }
  }
  // The 16 lines of bench gemm --all-rows that ran on binary64 lanes (b200: 2 instructions x 5
  // formats; rtx5090: mma.sync e4m3, e5m2 -> fp32, fp16 and mma.sync.mxf8f6f4 e4m3, e5m2 -> fp32).
  CHECK(lines == 16);
  // One chunk more than the tiles take (F = 25: 16 products each, at most 4 chunks) is refused.
  AdderConfig cfg = builtin_unit("b200").adder(formats::e4m3(), formats::fp32(), "tcgen05").config();
  CHECK(BlockKernel(cfg, 64).tile_supported());
  CHECK_FALSE(BlockKernel(cfg, 65).tile_supported());
  cfg.fraction_bits = 30;  // no int32 chunk holds a term below 2^32
  CHECK_FALSE(BlockKernel(cfg, 8).tile_supported());
}

TEST_CASE("kernel differential: fp8/fp6/fp4 tiles in int32 chunks (b200 tcgen05, rtx5090 fp8)", "[kernel][differential]") {
  const std::uint64_t seed = tcsim::test::seed("kernel differential tile chunks", 0x7c5e0c32);
  const bool gemm = tcsim::test::selected("TCSIM_DIFF_PARTS", "gemm"), batch = tcsim::test::selected("TCSIM_DIFF_PARTS", "batch");
  const std::uint64_t same = tcsim::test::count(20'000), mixed = tcsim::test::count(2'000);
  std::size_t pairs = 0;
  for (const ChunkRow& cr : kRows) {
    const Unit& unit = builtin_unit(cr.unit);
    const DatapathSpec& row = unit.datapath(parse_format(cr.unit[0] == 'b' ? "e2m1" : "e4m3"), formats::fp32(),
                                            cr.instruction);
    for (const auto& a_name : row.input_formats)
      for (const auto& b_name : row.input_formats)
        for (const auto& out_name : row.output_formats) {
          const Format &in_a = parse_format(a_name), &in_b = parse_format(b_name), &out = parse_format(out_name);
          const std::string label =
              std::string(cr.unit) + " " + cr.instruction + " " + a_name + "x" + b_name + "->" + out_name;
          INFO(label);
          ++pairs;
          if (!tcsim::test::selected("TCSIM_TILE_CHUNKS_ONLY", label)) continue;
          const std::uint64_t total = a_name == b_name ? same : mixed;
          Rng r(tcsim::test::label_seed(seed, label));
          if (gemm) CHECK(gemm_campaign(unit, cr.instruction, in_a, in_b, out, r, total, label) == 0);
          if (batch) CHECK(batch_campaign(unit, cr.instruction, in_a, in_b, out, r, total, label) == 0);
        }
  }
  CHECK(pairs == 62);  // b200: 2 x 25; rtx5090: mma.sync 4 pairs x 2 outputs, mxf8f6f4 4 pairs
}

// User rows beyond the built-in ones: F = 26..29 (chunks of 8, 4, 2, 1 products) and k up to
// 4 chunks, e4m3 x e5m2 and e2m1 x e3m2 into fp32 (rz) and fp16 (rne): tiles with 3-4 chunks
// and chunks narrower than a vector (dot_batch then takes the int64 pattern lanes).
TEST_CASE("kernel differential: user rows with F = 26..29 in up to 4 int32 chunks", "[kernel][differential]") {
  Rng r(tcsim::test::seed("kernel differential tile chunks user rows", 0x7c5e0c33));
  const std::uint64_t total = tcsim::test::count(5'000);
  for (const int F : {26, 27, 28, 29}) {
    const std::size_t chunk = std::size_t{1} << (29 - F);
    UnitSpec spec;
    spec.name = "user-chunks-F" + std::to_string(F);
    spec.architecture = "user";
    DatapathSpec row = builtin_unit("rtx5090").datapath(formats::e4m3(), formats::fp32(), "mma.sync.m16n8k32");
    row.input_formats = {"e4m3", "e5m2", "e2m1", "e3m2"};
    row.fraction_bits = F;
    row.fma_size = static_cast<int>(4 * chunk - (F % 2));  // 4 chunks, the last one short where F is odd
    row.instruction = "";
    row.shapes.clear();
    spec.datapaths = {row};
    const Unit unit(spec);
    for (const auto& [a_name, b_name] : {std::pair{"e4m3", "e5m2"}, std::pair{"e2m1", "e3m2"}})
      for (const auto& out_name : row.output_formats) {
        const Format &in_a = parse_format(a_name), &in_b = parse_format(b_name), &out = parse_format(out_name);
        const std::string label = spec.name + " k" + std::to_string(row.fma_size) + " " + a_name + "x" + b_name + "->" + out_name;
        INFO(label);
        const BlockKernel kernel(unit.adder(in_a, in_b, out).config(), static_cast<std::size_t>(row.fma_size));
        REQUIRE(kernel.tile_supported());
        CHECK(gemm_campaign(unit, "", in_a, in_b, out, r, total, label) == 0);
        CHECK(batch_campaign(unit, "", in_a, in_b, out, r, total, label) == 0);
      }
  }
}
