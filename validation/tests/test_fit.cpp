// tcsim fit: dumps computed by built-in rows fit back to an equivalent row (starting from the
// other units' rows only), and real-GPU files are fitted to 100 %.
// Equivalence: the fitted row and the original agree bit for bit (all NaNs equal) on 10^5
// further random cases of the same distribution (a Monte-Carlo check, not a proof).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <random>
#include <string>

#include "test_support.hpp"
#include "tcsim/models/unit.hpp"
#include "tcsim/validation/dump_gpu_data.hpp"
#include "tcsim/validation/fit.hpp"
#include "tcsim/validation/fit_suggest.hpp"

using namespace tcsim;
using namespace tcsim::validation;

namespace {

// A value of `f` with random sign and fraction and an exponent within `spread` of 0
// (cancellation and alignment within the datapath's reach), or, one case in four, random bits.
std::uint64_t random_value(std::mt19937_64& g, const Format& f, int spread) {
  if (g() % 4 == 0) return g() & f.width_mask();
  const std::uint64_t sign = (g() & 1) ? f.sign_mask() : 0;
  const int e = static_cast<int>(g() % (2 * spread + 1)) - spread;
  const std::uint64_t field = static_cast<std::uint64_t>(e + f.bias);
  const std::uint64_t frac = f.fraction_bits ? g() & ((std::uint64_t{1} << f.fraction_bits) - 1) : 0;
  return sign | (field << f.fraction_bits) | frac;
}

DumpSet random_dump(const models::Unit& unit, const Format& in, const Format& out, std::size_t n, std::size_t K,
                    std::uint64_t seed) {
  std::mt19937_64 g(seed);
  DumpSet d{in, out, in, K, n, {}, {}, {}, {}, {}, {}};
  for (std::size_t i = 0; i < n * K; ++i) {
    d.a.push_back(random_value(g, in, 3));
    d.b.push_back(random_value(g, in, 3));
  }
  for (std::size_t i = 0; i < n; ++i) d.c.push_back(random_value(g, out, 6));
  d.d.resize(n);
  unit.dot_batch(in, out, n, K, d.a.data(), d.b.data(), d.c.data(), d.d.data());
  return d;
}

}  // namespace

TEST_CASE("fit: dumps of built-in rows fit back to an equivalent row", "[fit][release-only]") {
  struct Case { const char* unit; const char* in; const char* out; };
  const Case cases[] = {{"v100", "fp16", "fp32"}, {"a100", "fp16", "fp32"}, {"h100", "fp16", "fp32"},
                        {"b200", "fp16", "fp32"}, {"a100", "bf16", "fp32"}, {"a100", "tf32", "fp32"},
                        {"v100", "fp16", "fp16"}, {"h100", "e4m3", "fp32"}, {"l40s", "e5m2", "fp32"}};
  const std::uint64_t seed = 20261125;
  for (const auto& c : cases) {
    const models::Unit& unit = models::builtin_unit(c.unit);
    const Format& in = parse_format(c.in);
    const Format& out = parse_format(c.out);
    INFO(c.unit << " " << c.in << " -> " << c.out << ", seed " << seed);
    const DumpSet dump = random_dump(unit, in, out, 3000, 32, seed);
    FitOptions opt;
    opt.exclude_units = {c.unit};  // the original row is no seed: the search must find it
    const FitResult r = fit_dump(dump, opt);
    std::printf("fit %s %s -> %s: %zu mismatches, %zu candidate rows, %.2f s\n", c.unit, c.in, c.out,
                r.best.mismatches, r.evaluations, r.seconds);
    REQUIRE(r.exact);
    const DumpSet further = random_dump(unit, in, out, tcsim::test::count(100000), 32, seed + 1);
    CHECK(count_mismatches(r.best.row, further) == 0);
  }
}

TEST_CASE("fit: dumps of AMD rows fit back from the other units' rows", "[fit][amd][release-only]") {
  // AMD rows outside the reach of the seeds' descents before issue 26's restarts (docs/fit.md, "Every built-in row and format pair"):
  // dumps of structured cases (tcsim bench fit's generator) at one instruction's K, fitted from
  // the other units' rows (the AMD unit excluded), then checked bit for bit against the
  // original row on further cases of the same generator (seed + 1). One row under the
  // sanitizers (TCSIM_TEST_SCALE < 1).
  struct Case { const char* unit; const char* instruction; const char* in; std::size_t K; };
  // CDNA3 xf32 (v2 and v1: fp32 operands truncated to tf32, c after): seconds each. The CDNA2
  // bf16 trees and CDNA3 bf16 fit too, but only after the seeds' 54 s (tcsim bench fit).
  const Case cases[] = {{"mi300x", "xf32", "fp32", 4}, {"mi300x", "xf32.v1", "fp32", 4}};
  const std::uint64_t seed = 20261130;
  const std::size_t rows = std::min<std::size_t>(std::size(cases), tcsim::test::count(std::size(cases)));
  for (std::size_t t = 0; t < rows; ++t) {
    const Case& c = cases[t];
    const Format& in = parse_format(c.in);
    const Format& out = parse_format("fp32");
    models::DatapathSpec hidden;
    for (const auto& u : models::builtin_unit_specs())
      for (const auto& r : u.datapaths)
        if (u.name == c.unit && r.instruction == c.instruction && !r.input_formats.empty() &&
            std::find(r.input_formats.begin(), r.input_formats.end(), c.in) != r.input_formats.end())
          hidden = r;
    REQUIRE(hidden.fma_size > 0);
    hidden.input_formats = {in.name};
    hidden.instruction.clear();
    hidden.shapes.clear();
    INFO(c.unit << " " << c.instruction << " " << c.in << " -> fp32, K = " << c.K << ", seed " << seed);
    std::vector<std::uint64_t> a, b, cc;
    structured_cases(in, out, c.K, 3000, seed, a, b, cc);
    const DumpSet dump = simulated_dump(hidden, in, out, c.K, a, b, cc);
    FitOptions opt;
    opt.exclude_units = {c.unit};
    const FitResult r = fit_dump(dump, opt);
    std::printf("fit %s %s %s -> fp32: %zu mismatches, %zu candidate rows, %.2f s, from %s\n", c.unit, c.instruction,
                c.in, r.best.mismatches, r.evaluations, r.seconds, r.best.seed.c_str());
    REQUIRE(r.exact);
    std::vector<std::uint64_t> a2, b2, c2;
    structured_cases(in, out, c.K, tcsim::test::count(100000), seed + 1, a2, b2, c2);
    CHECK(count_mismatches(r.best.row, simulated_dump(hidden, in, out, c.K, a2, b2, c2)) == 0);
  }
}

TEST_CASE("fit: a row far from the data is reported with its closest rows", "[fit]") {
  // A dump whose every d is +1.0 cannot be reproduced: the result says so with counts.
  const Format& in = parse_format("fp16");
  const Format& out = parse_format("fp32");
  DumpSet d = random_dump(models::builtin_unit("a100"), in, out, 200, 8, 7);
  for (auto& v : d.d) v = 0x3f800000;
  FitOptions opt;
  opt.time_limit_seconds = 5;
  const FitResult r = fit_dump(d, opt);
  CHECK_FALSE(r.exact);
  REQUIRE_FALSE(r.closest.empty());
  CHECK(r.closest.front().mismatches > 0);
  CHECK_FALSE(r.closest.front().first_mismatches.empty());
}

TEST_CASE("fit: real-GPU files fitted to 100 %", "[fit][gpu-data][release-only]") {
  const std::string dir = tcsim::test::gpu_data_dir();
  const auto files = discover_gpu_data(dir);
  if (files.empty()) {
    WARN("real-GPU data not found in '" << dir << "' (set TCSIM_GPU_DATA to its directory): skipping the fit of real dumps");
    SUCCEED("skipped: no real-GPU data");
    return;
  }
  for (const auto& f : files) {
    INFO(f.label());
    const DumpSet dump = load_dump(f.paths, f.in, f.out, f.c_input);
    const FitResult r = fit_dump(dump);
    std::printf("fit %s: %zu mismatches, %zu candidate rows, %.2f s\n", f.label().c_str(), r.best.mismatches,
                r.evaluations, r.seconds);
    CHECK(r.exact);
    CHECK(r.seconds < 120);
  }
}

// The real B200 vectors (../shared/data/gpu-vectors): a few cases each, chosen to separate the
// candidate models of the fp8 mma.sync emulation (README there). Fitted from every built-in
// row, each file must be reproduced, and the facts the README says its cases decide must come
// out decided here too.
TEST_CASE("fit: the real B200 vectors fitted to 100 %, with what they decide", "[fit][gpu-data][b200]") {
  const std::string dir = tcsim::test::gpu_vectors_dir();
  const auto files = discover_gpu_data(dir);
  if (files.empty()) {
    WARN("real B200 vectors not found in '" << dir << "' (set TCSIM_GPU_VECTORS to their directory): skipping");
    SUCCEED("skipped: no B200 vectors");
    return;
  }
  CHECK(files.size() == 4);
  auto finding = [](const FitResult& r, const std::string& name) -> const ParameterFinding* {
    for (const auto& p : r.parameters)
      if (p.name == name) return &p;
    return nullptr;
  };
  std::vector<DumpSet> e5m2;
  for (const auto& f : files) {
    INFO(f.label());
    const DumpSet dump = load_dump(f.paths, f.in, f.out, f.c_input);
    const FitResult r = fit_dump(dump);
    std::printf("fit %s: %zu cases, %zu mismatches, %zu candidate rows, %.2f s\n", f.label().c_str(), dump.n,
                r.best.mismatches, r.evaluations, r.seconds);
    REQUIRE(r.exact);
    CHECK(r.seconds < 120);
    const bool half_out = f.out.width == 16;
    if (half_out) {
      // One fused 32-term sum rounded to binary16, then c added, fails every binary16 case:
      // the products are split into the fp16 unit's blocks (pairs mod 4) and c enters last.
      const ParameterFinding* split = finding(r, "k_split");
      REQUIRE(split);
      CHECK(split->decided());
      CHECK(split->value == "pairs-mod4");
      const ParameterFinding* entry = finding(r, "c_entry");
      REQUIRE(entry);
      CHECK(entry->decided());
      CHECK(entry->value == "final-add");
    }
    if (f.input_folder == "E5M2" && half_out) {
      // Case 99 of the full dump: the emulation's F = 17 is wrong, any F >= 18 right.
      const ParameterFinding* F = finding(r, "fraction_bits");
      REQUIRE(F);
      CHECK(std::find(F->fitting.begin(), F->fitting.end(), "17") == F->fitting.end());
      CHECK(std::find(F->fitting.begin(), F->fitting.end(), "18") != F->fitting.end());
    }
    if (f.input_folder == "E5M2" && !half_out) {
      // Cases 1702, 3936, 4612, 4791: the blocks rounded toward zero, then c added with RNE.
      const ParameterFinding* block = finding(r, "final_rounding.fp32");
      REQUIRE(block);
      CHECK(block->decided());
      CHECK(block->value == "rz");
      const ParameterFinding* add = finding(r, "final_add_rounding.fp32");
      REQUIRE(add);
      CHECK(add->value == "rne");
    }
    if (f.input_folder == "E5M2") e5m2.push_back(dump);
  }
  // Both outputs of the E5M2 vectors at once: one row for the unit.
  REQUIRE(e5m2.size() == 2);
  const FitResult both = fit_dumps(e5m2);
  std::printf("fit B200 E5M2, both outputs: %zu mismatches, %.2f s\n", both.best.mismatches, both.seconds);
  CHECK(both.exact);
}
