// tcsim fit's inference against an exhaustive oracle on a small space, and --instruction-k.
// Oracle: every row of a small product space (F x alignment rounding x sticky bit x final
// rounding x c entry with its rounding, 320 rows) is run on the dump; the rows with 0
// mismatches are the truth the fit must reach (exactly, and inside that set when its row
// stays in the space).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "tcsim/models/unit.hpp"
#include "tcsim/models/unit_json.hpp"
#include "tcsim/validation/fit.hpp"
#include "tcsim/validation/fit_suggest.hpp"

using namespace tcsim;
using namespace tcsim::validation;

namespace {

models::DatapathSpec one_pair_row(const char* unit, const Format& in, const Format& out) {
  models::DatapathSpec r = models::builtin_unit(unit).datapath(in, out);
  r.input_formats = {in.name};
  r.output_formats = {out.name};
  for (auto* m : {&r.final_rounding, &r.final_add_rounding})
    for (auto it = m->begin(); it != m->end();) it = it->first == out.name ? std::next(it) : m->erase(it);
  r.min_exponent.clear();
  r.result_fraction_bits.clear();
  r.nan_pattern.clear();
  r.instruction.clear();
  r.shapes.clear();
  r.evidence.clear();
  return r;
}

// The small space: index -> row (F 11..12, 4 alignment roundings, sticky, 4 final roundings,
// c in the accumulator or by a final add with 4 roundings).
const Rounding kModes[] = {Rounding::TowardZero, Rounding::NearestEven, Rounding::Down, Rounding::Up};
constexpr int kSpace = 2 * 4 * 2 * 4 * 5;
models::DatapathSpec space_row(models::DatapathSpec r, int i, const std::string& out) {
  r.fraction_bits = 11 + i % 2;
  i /= 2;
  r.alignment_rounding = kModes[i % 4];
  i /= 4;
  r.sticky_bit = i % 2;
  i /= 2;
  r.final_rounding[out] = kModes[i % 4];
  i /= 4;
  r.final_add_rounding.clear();
  r.c_entry = i == 0 ? models::CEntry::Accumulator : models::CEntry::FinalAdd;
  if (i > 0) r.final_add_rounding[out] = kModes[i - 1];
  return r;
}

}  // namespace

TEST_CASE("fit: the inference agrees with the exhaustive product of a small space", "[fit]") {
  const Format& in = parse_format("fp16");
  const Format& out = parse_format("fp32");
  const models::DatapathSpec base = one_pair_row("a100", in, out);
  const std::uint64_t seed = 20261128;
  std::mt19937_64 g(seed);
  // Three hidden rows (one in the sanitizer pass: TCSIM_TEST_SCALE < 1).
  const int rows = static_cast<int>(tcsim::test::count(3));
  for (int t = 0; t < rows; ++t) {
    const int h = static_cast<int>(g() % kSpace);
    INFO("seed " << seed << ", hidden row " << h << " of the space");
    const models::DatapathSpec hidden = space_row(base, h, out.name);
    std::vector<std::uint64_t> a, b, c;
    structured_cases(in, out, 8, 800, seed + t, a, b, c);
    const DumpSet dump = simulated_dump(hidden, in, out, 8, a, b, c);
    std::vector<models::DatapathSpec> oracle;
    for (int i = 0; i < kSpace; ++i) {
      const auto r = space_row(base, i, out.name);
      if (count_mismatches(r, std::vector<DumpSet>{dump}, 1) == 0) oracle.push_back(r);
    }
    REQUIRE(std::find(oracle.begin(), oracle.end(), hidden) != oracle.end());
    // The fit starts from the row of the space farthest from the hidden one (every
    // parameter of the space changed).
    FitOptions opt;
    opt.seeds = {space_row(base, (h + kSpace / 2 + 1 + 2 * 4 * 2 + 1) % kSpace, out.name)};
    // A work budget, not the clock: hidden row 171 needs 5.5-5.9 million cases, which took
    // more than the 90 s default at a load of 40 (docs/fit.md, session 31).
    opt.work_budget = 20000000;
    opt.time_limit_seconds = 3600;
    const FitResult r = fit_dump(dump, opt);
    std::printf("exhaustive product, hidden row %d: exact %d, %zu cases run\n", h, int(r.exact), r.case_evaluations);
    REQUIRE_FALSE(r.capped);
    REQUIRE(r.exact);
    models::DatapathSpec fitted = r.best.row;
    fitted.nan_pattern.clear();
    bool in_space = false;
    for (int i = 0; i < kSpace && !in_space; ++i) in_space = space_row(base, i, out.name) == fitted;
    INFO("fitted row in the space: " << in_space << ", rows of the space that fit: " << oracle.size());
    if (in_space) CHECK(std::find(oracle.begin(), oracle.end(), fitted) != oracle.end());
  }
}

TEST_CASE("fit: --instruction-k fits dumps chained by instructions of K_i products", "[fit]") {
  // A row of fma_size 8 whose instruction has K_i = 4 (as CDNA3's 16x16x4 f16 on its
  // 8-product blocks): a dump of K = 16 is 4 instructions of 4 products, not 2 blocks of 8.
  const Format& in = parse_format("fp16");
  const Format& out = parse_format("fp32");
  models::DatapathSpec hidden = one_pair_row("a100", in, out);
  hidden.fma_size = 8;
  hidden.fraction_bits = 24;
  hidden.final_rounding[out.name] = Rounding::TowardZero;
  hidden.shapes = {"fit.m16n16k4"};
  const std::uint64_t seed = 20261129;
  INFO("seed " << seed);
  std::vector<std::uint64_t> a, b, c;
  structured_cases(in, out, 16, 3000, seed, a, b, c);
  const DumpSet dump = simulated_dump(hidden, in, out, 16, a, b, c);
  FitOptions opt;
  opt.instruction_k = 4;
  const FitResult r = fit_dump(dump, opt);
  REQUIRE(r.exact);
  CHECK(r.best.row.shapes == std::vector<std::string>{"fit.m16n16k4"});
  CHECK(fit_instruction(r.best.row) == "fit.m16n16k4");
  // Agreement on further cases through the instruction.
  std::vector<std::uint64_t> a2, b2, c2;
  structured_cases(in, out, 16, 20000, seed + 1, a2, b2, c2);
  CHECK(count_mismatches(r.best.row, simulated_dump(hidden, in, out, 16, a2, b2, c2)) == 0);
  // The same dump read as blocks of the row's own size (no instruction): the hidden row
  // itself no longer reproduces it, so K_i is what the fit was told.
  models::DatapathSpec no_shape = hidden;
  no_shape.shapes.clear();
  CHECK(count_mismatches(no_shape, dump) > 0);
}

// The range classes of structured_cases (bench fit --mix range, --suggest's pool) decide
// what the basic mix leaves open: pairs of rows that differ only in the min-exponent clamp,
// in F far below the top term, or in the carry bits; each pair must be told apart by more
// cases of 5,000 with the range classes than without.
TEST_CASE("fit: the range classes separate rows differing in the clamp or F or the carry bits", "[fit]") {
  const std::uint64_t seed = 20261126;
  INFO("seed " << seed);
  const Format& fp16 = parse_format("fp16");
  const Format& fp32 = parse_format("fp32");
  auto differing = [&](const models::DatapathSpec& x, const models::DatapathSpec& y, std::size_t K, bool range) {
    const Format& in = parse_format(x.input_formats[0]);
    std::vector<std::uint64_t> a, b, c;
    structured_cases(in, fp32, K, 5000, seed, a, b, c, range);
    return count_mismatches(x, simulated_dump(y, in, fp32, K, a, b, c));
  };
  const auto base = one_pair_row("a100", fp16, fp32);
  struct Pair { const char* what; models::DatapathSpec x, y; std::size_t K; };
  std::vector<Pair> pairs;
  {  // bf16 products reach below 2^-126, where the clamp acts
    auto x = one_pair_row("a100", parse_format("bf16"), fp32), y = x;
    x.min_exponent["fp32"] = -126;
    pairs.push_back({"bf16: min_exponent -126 or none", x, y, 8});
  }
  {
    auto x = base, y = base;
    x.fraction_bits = 30;
    y.fraction_bits = 31;
    pairs.push_back({"F 30 or 31", x, y, 8});
  }
  {
    auto x = base, y = base;
    x.fma_size = y.fma_size = 16;
    x.carry_bits = 2;
    y.carry_bits = 3;
    pairs.push_back({"carry bits 2 or 3 (k 16)", x, y, 16});
  }
  for (const auto& p : pairs) {
    const std::size_t basic = differing(p.x, p.y, p.K, false), range = differing(p.x, p.y, p.K, true);
    std::printf("%s: %zu of 5000 cases differ with the basic mix, %zu with the range classes\n", p.what, basic, range);
    INFO(p.what << ": basic " << basic << ", range " << range);
    CHECK(range > basic);
    CHECK(range >= 20);
  }
}

// Binary16 outputs: fp16 products never go below 2^-48 and the output's last place near emin
// is 2^-24, so a clamp (emin .. emin - 16) drops bits that move a result only on a rounding
// boundary; 3 in 4 cases of the clamp class then put the sum exactly on one (structured_cases,
// boundary_case). Counts before that (the range classes of commit 043d945, same seed) are in
// docs/fit.md (2, 16, 2, 1, 7, 16 of 5,000 for the pairs below; then 13, 8, 13, 5, 24, 8;
// since session 30's three classes joined the mix, 3 cases in 17, only 5, 3, 5, 1, 12, 3: the
// clamp class's share fell from 1 in 14 to 1 in 17, and these counts are small; with session
// 31's four more, 8 in 22, the share 1 in 22 and a new stream: 3, 5, 3, 1, 7, 5; with session
// 32's, 1 in 26: 7, 9, 7, 6, 15, 8, printed only). So the clamp class is checked alone
// (structured_cases' only_kind 11; GCC: 131, 132, 131, 54, 260, 132): each pair must differ on
// more cases than with the basic mix (0) and on the minimum given (about a third of GCC's
// count: the class draws some arguments in an order the compiler picks).
// A clamp and none differ only where a product reaches 2^(clamp - F) (F 24: 2^-45..2^-48).
TEST_CASE("fit: the range classes separate clamp settings of binary16 outputs", "[fit]") {
  const std::uint64_t seed = 20261130;
  INFO("seed " << seed);
  const Format& fp16 = parse_format("fp16");
  struct Pair { const char* what; models::DatapathSpec x, y; std::size_t at_least; };
  std::vector<Pair> pairs;
  auto clamp_pair = [&](const char* what, Rounding final, std::optional<int> cx, std::optional<int> cy, std::size_t at_least) {
    auto x = one_pair_row("a100", fp16, fp16), y = x;  // F 24, alignment rz
    x.final_rounding["fp16"] = y.final_rounding["fp16"] = final;
    if (cx) x.min_exponent["fp16"] = *cx;
    if (cy) y.min_exponent["fp16"] = *cy;
    pairs.push_back({what, x, y, at_least});
  };
  clamp_pair("rne: min_exponent -20 or none", Rounding::NearestEven, -20, std::nullopt, 40);
  clamp_pair("rne: min_exponent -14 or -17", Rounding::NearestEven, -14, -17, 40);
  clamp_pair("rz: min_exponent -20 or none", Rounding::TowardZero, -20, std::nullopt, 40);
  clamp_pair("rz: min_exponent -22 or none", Rounding::TowardZero, -22, std::nullopt, 15);
  clamp_pair("ru: min_exponent -20 or none", Rounding::Up, -20, std::nullopt, 80);
  clamp_pair("rd: min_exponent -14 or -17", Rounding::Down, -14, -17, 40);
  for (const auto& p : pairs) {
    std::size_t n[3];  // the basic mix, the range mix, the clamp class alone
    for (int mix = 0; mix < 3; ++mix) {
      std::vector<std::uint64_t> a, b, c;
      structured_cases(fp16, fp16, 8, 5000, seed, a, b, c, mix >= 1, mix == 2 ? 11 : -1);
      n[mix] = count_mismatches(p.x, simulated_dump(p.y, fp16, fp16, 8, a, b, c));
    }
    std::printf("fp16 -> fp16, %s: %zu of 5000 cases differ with the basic mix, %zu with the range classes, %zu with "
                "the clamp class alone\n",
                p.what, n[0], n[1], n[2]);
    INFO(p.what << ": basic " << n[0] << ", range " << n[1] << ", clamp class " << n[2]);
    CHECK(n[2] > n[0]);
    CHECK(n[2] >= p.at_least);
  }
}

// Issue 26 part 3, built-in rows: v100 fp16 -> fp16 (F 23, RZ) was fitted with F 24 from a
// 5,000-case dump of the basic mix and differed on 257 of 10^6 further cases (docs/fit.md):
// an fp16 output hides the bits F keeps except on a rounding boundary. The basic mix now holds
// the F-at-every-shift class for binary16 outputs (structured_cases), which separates the two.
TEST_CASE("fit: the basic mix separates F 23 and 24 of a binary16 output", "[fit]") {
  const std::uint64_t seed = 20261127;
  INFO("seed " << seed);
  const Format& fp16 = parse_format("fp16");
  const auto hidden = one_pair_row("v100", fp16, fp16);
  REQUIRE(hidden.fraction_bits == 23);
  auto f24 = hidden;
  f24.fraction_bits = 24;
  std::vector<std::uint64_t> a, b, c;
  structured_cases(fp16, fp16, 4, 5000, seed, a, b, c);
  const DumpSet dump = simulated_dump(hidden, fp16, fp16, 4, a, b, c);
  const std::size_t separating = count_mismatches(f24, dump);
  std::printf("v100 fp16 -> fp16: F 23 and 24 differ on %zu of 5000 basic cases\n", separating);
  // The same with every compiler: structured_cases draws no two arguments of one call from its
  // generator (clang, the ASan pass, gave 27 before).
  CHECK(separating == 31);
  FitOptions opt;
  opt.exclude_units = {"v100"};
  const FitResult r = fit_dump(dump, opt);
  std::printf("fit v100 fp16 -> fp16: %zu mismatches, F %d, from %s, %.2f s\n", r.best.mismatches, r.best.row.fraction_bits,
              r.best.seed.c_str(), r.seconds);
  REQUIRE(r.exact);
  CHECK(r.best.row.fraction_bits == 23);
  std::vector<std::uint64_t> a2, b2, c2;
  structured_cases(fp16, fp16, 4, tcsim::test::count(100000), seed + 1, a2, b2, c2);
  CHECK(count_mismatches(r.best.row, simulated_dump(hidden, fp16, fp16, 4, a2, b2, c2)) == 0);
}

// Issue 26 part 3, the AMD-seed fallback (the best NVIDIA-like seed run after the AMD families
// when every seed descended had the AMD keys) was removed: it never got time, and given a share
// it fitted none of the rows it was for (docs/fit.md). Random user row 121 of `bench fit
// --evaluate random --seed 2` (its dump: seed 2 + 7919 x 120, range classes): its best-scoring
// seed is mi250x's row, and no closest row names the fallback. Since session 30's range classes
// changed its dump, it was fitted exactly from mi250x (it agrees on 10^5 further cases,
// docs/fit.md), and since session 32 from v100 (see the check below); the fit runs on the
// work budget of bench fit's random evaluation, so that the outcome does not depend on the load.
TEST_CASE("fit: no NVIDIA-like fallback after the AMD families", "[fit][release-only]") {
  const std::uint64_t seed = 2 + 7919 * 120;
  INFO("seed " << seed);
  const Format& fp16 = parse_format("fp16");
  const Format& fp32 = parse_format("fp32");
  const auto hidden = models::parse_unit_json(nlohmann::json::parse(R"({"name":"hidden","architecture":"user",
      "input_formats":["fp16"],"output_formats":["fp32"],"fma_size":2,"k_split":"pairs-mod4","fraction_bits":18,
      "carry_bits":5,"alignment_rounding":"rne","sticky_bit":false,"normalization":"deferred","order":"largest-first",
      "c_placement":"aligned","final_rounding":{"fp32":"rd"},"min_exponent":null,"overflow":"ieee",
      "subnormal_inputs":false,"subnormal_outputs":true,"zero_sign":"ieee"})")).datapaths.at(0);
  std::vector<std::uint64_t> a, b, c;
  structured_cases(fp16, fp32, 4, 5000, seed, a, b, c, true);
  const DumpSet dump = simulated_dump(hidden, fp16, fp32, 4, a, b, c);
  FitOptions opt;
  opt.work_budget = 5000000;
  // A cap only: under the sanitizers at load 7, 120 s put a phase's clock point before its work
  // point (ci41a, docs/testing.md), and the fit ended capped.
  opt.time_limit_seconds = 3600;
  const FitResult r = fit_dump(dump, opt);
  std::printf("fit random 121: %zu mismatches, from %s, %zu closest rows, %.2f s\n", r.best.mismatches,
              r.best.seed.c_str(), r.closest.size(), r.seconds);
  // Exact with GCC's dump; not asserted, as structured_cases draws some arguments in an order
  // the compiler picks (docs/fit.md, known defect), so clang's dump differs.
  REQUIRE_FALSE(r.capped);
  // Fitted from mi250x (an AMD seed, continued) until session 32; since the NVIDIA-like seeds
  // keep half the seeds' share when an AMD seed scores best (fit.cpp), from v100 (default), a
  // built-in seed: neither is the removed fallback, which the loop below checks.
  for (const auto& s : r.closest) {
    INFO(s.seed);
    CHECK(s.seed.find("NVIDIA-like seed") == std::string::npos);
  }
}

// Issue 26, built-in rows: mi300x v1 e4m3fnuz -> fp32 was fitted with CDNA3 v2's after-add and
// drop_c_below 24 for 25 and differed on 214 of 10^6 further cases (docs/fit.md). The deciding
// key is the drop edge: c with e_c = E - 25 counts under 25 (a negative c floors to -2^(E-24),
// one last place when the products cancel a binade) and is dropped under 24. The basic mix now
// holds the c-at-the-drop-edge class for fp8 inputs (structured_cases). v1's and v2's widths
// (31 bits, or 32 renormalized to 31) agree on all of these cases: that choice stays open here
// (undecided; `--suggest` is for it).
TEST_CASE("fit: the basic mix decides the CDNA3 fp8 c drop edge", "[fit][release-only]") {
  const std::uint64_t seed = 20261128;
  INFO("seed " << seed);
  const Format& e4 = parse_format("e4m3fnuz");
  const Format& fp32 = parse_format("fp32");
  const auto v2 = one_pair_row("mi300x", e4, fp32);
  REQUIRE(v2.after_add.sum_fraction_bits == 32);
  auto v1 = v2;
  v1.after_add.sum_fraction_bits = 31;
  v1.after_add.renormalize_fraction_bits.reset();
  auto fitted = v2;  // the row fitted before: v2's after-add with c dropped below E - 24
  fitted.after_add.drop_c_below = 24;
  std::vector<std::uint64_t> a, b, c;
  structured_cases(e4, fp32, 16, 5000, seed, a, b, c);
  const DumpSet dump = simulated_dump(v1, e4, fp32, 16, a, b, c);
  const std::size_t separating = count_mismatches(fitted, dump);
  std::printf("mi300x v1 e4m3fnuz -> fp32: drop_c_below 25 and 24 differ on %zu of 5000 basic cases\n", separating);
  CHECK(separating == 25);
  const std::size_t widths = count_mismatches(v2, dump);  // v2's width and renormalization, c dropped below E - 25
  std::printf("mi300x v1 e4m3fnuz -> fp32: v1's and v2's after-add widths differ on %zu of them\n", widths);
  CHECK(widths == 0);
  FitOptions opt;
  opt.exclude_units = {"mi300x"};
  const FitResult r = fit_dump(dump, opt);
  std::printf("fit mi300x v1 e4m3fnuz -> fp32: %zu mismatches, drop_c_below %d, from %s, %.2f s\n", r.best.mismatches,
              r.best.row.after_add.drop_c_below.value_or(-1), r.best.seed.c_str(), r.seconds);
  REQUIRE(r.exact);
  CHECK(r.best.row.after_add.drop_c_below == std::optional<int>(25));
}

// structured_cases draws no two arguments of one call from its generator (C++ leaves their
// order unspecified: GCC and clang 14, the ASan pass, gave different dumps for one seed). The
// basic mix's a, b and c for five format pairs and three K, hashed (FNV-1a over the words):
// the value GCC gave before the fix, the same with clang now. A change to the basic mix must
// change this number on purpose (and remeasure docs/fit.md's built-in table).
TEST_CASE("structured_cases: the same basic-mix dumps with every compiler", "[fit]") {
  const std::uint64_t seed = 20261127;
  INFO("seed " << seed);
  std::uint64_t h = 1469598103934665603ull;
  for (const char* p : {"fp16:fp32", "bf16:fp32", "fp16:fp16", "e4m3:fp32", "tf32:fp32"})
    for (std::size_t K : {2, 4, 16}) {
      const std::string s(p);
      const Format& in = parse_format(s.substr(0, s.find(':')));
      const Format& out = parse_format(s.substr(s.find(':') + 1));
      std::vector<std::uint64_t> a, b, c;
      structured_cases(in, out, K, 1000, seed, a, b, c);
      for (const auto* v : {&a, &b, &c})
        for (auto x : *v) h = (h ^ x) * 1099511628211ull;
    }
  CHECK(h == 0x14954795af3e8bf1ull);
}

// Issue 26, built-in rows: mi100 bf16 -> fp32 (CDNA1: blocks summed exactly, F "exact") was
// fitted as F 34 with a sticky bit and differed on 222 of 10^6 further cases (docs/fit.md).
// Binary32 outputs' basic mix now replaces every 32nd case by a term cancelled exactly beside
// one 2^-41..2^-48 below it (its own stream), and the search restarts with F exact (with the
// carry bits, normalization and no sticky bit it needs), also before the NVIDIA continuation.
TEST_CASE("fit: the basic mix and the F-exact restart decide CDNA1's F exact", "[fit][release-only]") {
  const std::uint64_t seed = 20261129;
  INFO("seed " << seed);
  const Format& bf16 = parse_format("bf16");
  const Format& fp32 = parse_format("fp32");
  const auto hidden = one_pair_row("mi100", bf16, fp32);
  REQUIRE(hidden.fraction_bits == models::DatapathSpec::kExactFractionBits);
  auto f34 = hidden;  // the row fitted before
  f34.fraction_bits = 34;
  f34.sticky_bit = true;
  std::vector<std::uint64_t> a, b, c;
  structured_cases(bf16, fp32, 2, 5000, seed, a, b, c);
  const DumpSet dump = simulated_dump(hidden, bf16, fp32, 2, a, b, c);
  const std::size_t separating = count_mismatches(f34, dump);
  std::printf("mi100 bf16 -> fp32: F exact and F 34 with a sticky bit differ on %zu of 5000 basic cases\n", separating);
  CHECK(separating == 156);
  FitOptions opt;
  opt.exclude_units = {"mi100"};
  // A work budget (cases run through candidate rows), not seconds: the same search under the
  // sanitizers and at any load. 2,000,000 leaves it 286 cases off; 5,000,000 (bench fit's
  // default for random rows) reaches the F-exact restart (2.3 s in the Release build).
  opt.work_budget = 5000000;
  opt.time_limit_seconds = 600;  // only a cap
  const FitResult r = fit_dump(dump, opt);
  std::printf("fit mi100 bf16 -> fp32: %zu mismatches, from %s, %.2f s\n", r.best.mismatches, r.best.seed.c_str(),
              r.seconds);
  CHECK_FALSE(r.capped);
  REQUIRE(r.exact);
  CHECK(r.best.row.fraction_bits == models::DatapathSpec::kExactFractionBits);
  std::vector<std::uint64_t> a2, b2, c2;
  structured_cases(bf16, fp32, 2, tcsim::test::count(100000), seed + 1, a2, b2, c2);
  CHECK(count_mismatches(r.best.row, simulated_dump(hidden, bf16, fp32, 2, a2, b2, c2)) == 0);
}
