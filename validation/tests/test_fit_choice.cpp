// tcsim fit's choice among the rows that reproduce a dump (docs/fit.md, "Session 33:
// disagreeing rows"). Each hidden row is a random user row of issue 26's evaluation (seed 2);
// the fit starts from the row the session 32 run reached (exact on the dump), so the test runs
// the choice alone, on a work budget: the same result at any load and under the sanitizers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tcsim/models/unit_json.hpp"
#include "tcsim/validation/fit.hpp"
#include "tcsim/validation/fit_suggest.hpp"

using namespace tcsim;
using namespace tcsim::validation;

namespace {

models::DatapathSpec row_of(const char* json) {
  return models::parse_unit_json(nlohmann::json::parse(json)).datapaths.at(0);
}

// The fit from `start` alone (it fits the dump), with or without the choice (and the
// widening of the threshold keys: off for the choice's tests, which test the choice alone).
FitResult fit_from(const models::DatapathSpec& start, const DumpSet& dump, bool choose, bool widen = false) {
  FitOptions o;
  o.widest_thresholds = widen;
  o.seeds = {start};
  o.max_seeds = 1;
  o.work_budget = 2000000;
  o.time_limit_seconds = 3600;  // a cap only: the budget ends every phase
  o.choice_work = 200000;       // smaller than the defaults: cheap under the sanitizers
  o.choice_pool = 32768;
  o.choose = choose;
  if (!choose) o.choice_rows = 1;
  return fit_dump(dump, o);
}

// The whole fit as bench fit runs it for random rows: a work budget of 5,000,000 cases, so the
// same at any load and under the sanitizers.
FitOptions choice_bench_budget() {
  FitOptions o;
  o.work_budget = 5000000;
  o.time_limit_seconds = 3600;  // a cap only
  return o;
}

// The range mix without session 34's classes 12 and 13 (every 14th case, fit_cases.cpp; the
// callers leave out session 35's classes 14 and 15 too: far_classes false): the 12-class mix's
// cases, on which the rows below were reached (with the new classes drawn among
// the others, the reached rows missed 1 and 2 of the 2,000 cases: the classes separate them).
void without_late_classes(std::vector<std::uint64_t>& a, std::vector<std::uint64_t>& b, std::vector<std::uint64_t>& c,
                          std::size_t K) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (i % 14 == 13) continue;
    std::copy(a.begin() + i * K, a.begin() + (i + 1) * K, a.begin() + kept * K);
    std::copy(b.begin() + i * K, b.begin() + (i + 1) * K, b.begin() + kept * K);
    c[kept++] = c[i];
  }
  a.resize(kept * K);
  b.resize(kept * K);
  c.resize(kept);
}

}  // namespace

// Random 138 (e4m3 -> fp16, K = 4, fma_size 1): F 25 with alignment rd; the search reached F 18
// with rz, and the dump's 2,000 cases (the range mix, seed 20261133) leave several values of F,
// the alignment rounding and the clamp fitting. The choice takes, key by key, a value of the
// largest group of equal answers on fresh cases: the row returned then differs from the hidden
// row on fewer check cases (20,000, seed 20261134) than the row reached. Without the choice
// (choice_rows 1) the row reached is returned and the last check fails.
TEST_CASE("fit: an undecided key takes the value most fitting rows agree with", "[fit]") {
  const auto hidden = row_of(
      R"({"name":"h","architecture":"user","alignment_rounding":"rd","c_placement":"aligned","carry_bits":7,
          "final_rounding":{"fp16":"rne"},"fma_size":1,"fraction_bits":25,"input_formats":["e4m3"],
          "min_exponent":null,"normalization":"deferred","order":"largest-first","output_formats":["fp16"],
          "overflow":"ieee","result_fraction_bits":{"fp16":9},"sticky_bit":false,"subnormal_inputs":false,
          "subnormal_outputs":true,"zero_sign":"positive"})");
  const auto reached = row_of(
      R"({"name":"f","architecture":"user","alignment_rounding":"rz","c_placement":"aligned","carry_bits":6,
          "final_rounding":{"fp16":"rne"},"fma_size":1,"fraction_bits":18,"input_formats":["e4m3"],
          "min_exponent":{"fp16":-20},"nan_pattern":{"fp16":"0x7fff"},"normalization":"deferred",
          "order":"largest-first","output_formats":["fp16"],"overflow":"inf","result_fraction_bits":{"fp16":9},
          "sticky_bit":false,"subnormal_inputs":false,"subnormal_outputs":true,"zero_sign":"positive"})");
  const Format& in = parse_format("e4m3");
  const Format& out = parse_format("fp16");
  const std::uint64_t seed = 2 + 7919 * 137;  // bench fit's dump of random 138 (its first 2,000 cases)
  INFO("seed " << seed);
  std::vector<std::uint64_t> a, b, c;
  structured_cases(in, out, 4, 2000, seed, a, b, c, true, -1, false);
  without_late_classes(a, b, c, 4);
  const DumpSet dump = simulated_dump(hidden, in, out, 4, a, b, c);
  REQUIRE(count_mismatches(reached, dump) == 0);
  structured_cases(in, out, 4, 20000, 20261134, a, b, c, true, -1, false);
  const DumpSet check = simulated_dump(hidden, in, out, 4, a, b, c);
  const FitResult with = fit_from(reached, dump, true);
  const FitResult without = fit_from(reached, dump, false);
  REQUIRE(with.exact);
  REQUIRE(without.exact);
  CHECK(with.first_exact == reached);
  CHECK(without.best.row == reached);
  const std::size_t differ_with = count_mismatches(with.best.row, check);
  const std::size_t differ_without = count_mismatches(without.best.row, check);
  std::printf("fit choice, random 138: %zu fitting rows, %zu groups; check cases differing: chosen %zu, reached %zu\n",
              with.fitting_rows, with.fitting_groups, differ_with, differ_without);
  CHECK(with.fitting_rows > 1);
  CHECK(differ_without > 0);
  CHECK(differ_with < differ_without);
}

// Random 86 (tf32 -> fp32, K = 8): c late with final rounding rd; the search reached c late
// with the products rounded rd and final rounding rz, a coupled pair: neither key alone moves
// it back. The report now lists such values of a key, with the other change they need.
// Without the coupled pairs (choice_rows 1) neither key lists one.
TEST_CASE("fit: the report lists values that fit only with another key's change", "[fit]") {
  const auto hidden = row_of(
      R"({"name":"h","architecture":"user","alignment_rounding":"rz","c_placement":"late","carry_bits":1,
          "final_rounding":{"fp32":"rd"},"fma_size":8,"fraction_bits":10,"input_formats":["tf32"],
          "min_exponent":null,"normalization":"deferred","order":"largest-first","output_formats":["fp32"],
          "overflow":"inf","sticky_bit":false,"subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"positive"})");
  const auto reached = row_of(
      R"({"name":"f","architecture":"user","alignment_rounding":"rz","c_placement":"late","carry_bits":1,
          "final_rounding":{"fp32":"rz"},"fma_size":16,"fraction_bits":10,"input_formats":["tf32"],
          "late_products_rounding":"rd","min_exponent":null,"nan_pattern":{"fp32":"0x7fffffff"},
          "normalization":"deferred","order":"largest-first","output_formats":["fp32"],"overflow":"inf",
          "sticky_bit":false,"subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"positive"})");
  const Format& in = parse_format("tf32");
  const Format& out = parse_format("fp32");
  const std::uint64_t seed = 2 + 7919 * 85;  // bench fit's dump of random 86 (its first 2,000 cases)
  INFO("seed " << seed);
  std::vector<std::uint64_t> a, b, c;
  structured_cases(in, out, 8, 2000, seed, a, b, c, true, -1, false);
  without_late_classes(a, b, c, 8);
  const DumpSet dump = simulated_dump(hidden, in, out, 8, a, b, c);
  REQUIRE(count_mismatches(reached, dump) == 0);
  auto coupled_of = [](const FitResult& r, const std::string& name) {
    for (const auto& f : r.parameters)
      if (f.name == name) return f.coupled;
    return std::vector<std::string>{};
  };
  const FitResult with = fit_from(reached, dump, true);
  const FitResult without = fit_from(reached, dump, false);
  REQUIRE(with.exact);
  const auto late = coupled_of(with, "late_products_rounding");
  std::string text;
  for (const auto& v : late) text += " " + v + ";";
  std::printf("fit coupled, random 86: late_products_rounding also fitting with other changes:%s\n", text.c_str());
  CHECK(text.find("final_rounding.fp32 rd") != std::string::npos);
  CHECK(coupled_of(without, "late_products_rounding").empty());
}

// Session 41 (docs/fit.md): the row returned takes the most permissive fitting value of F and
// of the carry bits, unless the search kept the value from its seed row. Random rows of seed 3
// (bench fit --evaluate random --seed 3), fitted on their 5,000-case dumps as the benchmark
// does: random 58 (e4m3 -> fp16, K 4; seed t4, F 24) reaches F 16 where the unit keeps 19
// (16..19 fit), random 11 (fp16 -> fp16, K 32) 6 carry bits for 7 (6 and 7 fit; 6 is its seed's
// value, h100 wgmma.x25-floor: carry bits are widened from a seed's value, F is not; session 42).
// Widened, each key takes the unit's value and the row agrees with the unit on the first 20,000
// of the benchmark's check cases; the rows reached differ on some.
TEST_CASE("fit: the row returned takes the most permissive fitting F and carry bits", "[fit][release-only]") {
  struct Row {
    std::size_t n, K;
    const char *key, *value, *hidden, *reached;
  };
  const Row rows[] = {
      {58, 4, "fraction_bits", "19",
       R"({"name":"h","architecture":"user","alignment_rounding":"rd","c_placement":"aligned","carry_bits":7,
           "final_rounding":{"fp16":"rd"},"fma_size":1,"fraction_bits":19,"input_formats":["e4m3"],"min_exponent":null,
           "normalization":"deferred","order":"largest-first","output_formats":["fp16"],"overflow":"ieee",
           "sticky_bit":true,"subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"positive"})",
       R"({"name":"f","architecture":"user","alignment_rounding":"rd","c_placement":"aligned","carry_bits":5,
           "final_rounding":{"fp16":"rd"},"fma_size":1,"fraction_bits":16,"input_formats":["e4m3"],
           "min_exponent":{"fp16":-20},"nan_pattern":{"fp16":"0x7fff"},"normalization":"deferred",
           "order":"largest-first","output_formats":["fp16"],"overflow":"ieee","sticky_bit":true,
           "subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"positive"})"},
      {11, 32, "carry_bits", "7",
       R"({"name":"h","architecture":"user","alignment_rounding":"ru","c_placement":"aligned","carry_bits":7,
           "final_rounding":{"fp16":"ru"},"fma_size":32,"fraction_bits":31,"input_formats":["fp16"],"min_exponent":null,
           "normalization":"deferred","order":"largest-first","output_formats":["fp16"],"overflow":"saturate",
           "sticky_bit":false,"subnormal_inputs":true,"subnormal_outputs":false,"zero_sign":"ieee"})",
       R"({"name":"f","architecture":"user","alignment_rounding":"ru","c_placement":"aligned","carry_bits":6,
           "final_rounding":{"fp16":"ru"},"fma_size":32,"fraction_bits":31,"input_formats":["fp16"],
           "min_exponent":{"fp16":-22},"nan_pattern":{"fp16":"0x7fff"},"normalization":"deferred",
           "order":"largest-first","output_formats":["fp16"],"overflow":"saturate","sticky_bit":false,
           "subnormal_inputs":true,"subnormal_outputs":false,"zero_sign":"ieee"})"},
  };
  for (const Row& t : rows) {
    const auto hidden = row_of(t.hidden);
    const auto reached = row_of(t.reached);
    const Format& in = parse_format(hidden.input_formats.at(0));
    const Format& out = parse_format(hidden.output_formats.at(0));
    const std::uint64_t seed = 3 + 7919 * (t.n - 1);  // bench fit --seed 3: the dump; + 1: the check
    INFO("random " << t.n << " of seed 3, dump seed " << seed << ", key " << t.key);
    std::vector<std::uint64_t> a, b, c;
    structured_cases(in, out, t.K, 5000, seed, a, b, c, true);
    const DumpSet dump = simulated_dump(hidden, in, out, t.K, a, b, c);
    REQUIRE(count_mismatches(reached, dump) == 0);
    structured_cases(in, out, t.K, 20000, seed + 1, a, b, c, true);
    const DumpSet check = simulated_dump(hidden, in, out, t.K, a, b, c);
    const FitResult widened = fit_dump(dump, choice_bench_budget());
    REQUIRE_FALSE(widened.capped);
    REQUIRE(widened.exact);
    CHECK(widened.first_exact == reached);
    std::string value;
    for (const auto& f : widened.parameters)
      if (f.name == t.key || f.name.rfind(std::string(t.key) + ".", 0) == 0) value = f.value;
    const std::size_t differ_widened = count_mismatches(widened.best.row, check);
    const std::size_t differ_reached = count_mismatches(reached, check);
    std::printf("fit widened, random %zu: %s; %s = %s; check cases differing: widened %zu, reached %zu\n", t.n,
                widened.best.seed.c_str(), t.key, value.c_str(), differ_widened, differ_reached);
    CHECK(value == t.value);
    CHECK(differ_widened == 0);
    CHECK(differ_reached > 0);
  }
}

// Not the min-exponent clamp: a clamp below the unit's differs from it more often the further
// below it is. Random 18 of seed 2 (tf32 -> fp32, K 4, clamp -137): the search reached the unit's
// row; every clamp down to -142 fits the 5,000-case dump, but -142 differs on 871 of the
// benchmark's 10^6 check cases (session 41, when the clamp was widened too). The row returned
// keeps -137 and agrees on the first 20,000 check cases; the clamp at -142 differs on some.
TEST_CASE("fit: the min-exponent clamp is not widened", "[fit]") {
  const auto hidden = row_of(
      R"({"name":"h","architecture":"user","alignment_rounding":"rne","c_placement":"aligned","carry_bits":3,
          "final_rounding":{"fp32":"rne"},"fma_size":2,"fraction_bits":38,"input_formats":["tf32"],
          "min_exponent":{"fp32":-137},"normalization":"deferred","order":"largest-first","output_formats":["fp32"],
          "overflow":"saturate","sticky_bit":false,"subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"ieee"})");
  const Format& in = parse_format("tf32");
  const Format& out = parse_format("fp32");
  const std::uint64_t seed = 2 + 7919 * 17;  // bench fit --seed 2, random 18: the dump; + 1: the check
  INFO("random 18 of seed 2, dump seed " << seed);
  std::vector<std::uint64_t> a, b, c;
  structured_cases(in, out, 4, 5000, seed, a, b, c, true);
  const DumpSet dump = simulated_dump(hidden, in, out, 4, a, b, c);
  structured_cases(in, out, 4, 20000, seed + 1, a, b, c, true);
  const DumpSet check = simulated_dump(hidden, in, out, 4, a, b, c);
  auto lowest = hidden;
  lowest.min_exponent["fp32"] = -142;
  REQUIRE(count_mismatches(lowest, dump) == 0);  // the dump allows it
  const FitResult r = fit_dump(dump, choice_bench_budget());
  REQUIRE_FALSE(r.capped);
  REQUIRE(r.exact);
  CHECK(r.first_exact.min_exponent.at("fp32") == -137);  // the search reached the unit's clamp
  const std::size_t differ_lowest = count_mismatches(lowest, check);
  std::printf("fit widened, random 18 of seed 2: %s; check cases differing: returned %zu, clamp -142 %zu\n",
              r.best.seed.c_str(), count_mismatches(r.best.row, check), differ_lowest);
  CHECK(r.best.row.min_exponent.at("fp32") == -137);
  CHECK(count_mismatches(r.best.row, check) == 0);
  CHECK(differ_lowest > 0);
}

// An F the search kept from its seed row is not widened: the seed is a unit's measured row.
// H100's fp8 mma.sync row (e4m3 -> fp16, F 25) fitted from the other units' rows reaches b200's
// mma.sync row, F 25 as well; F 40 also reproduces the 5,000 cases of the basic mix, but
// differs from the unit on 8 of 10^6 check cases (bench fit --evaluate builtin, session 41,
// when such values were widened too).
TEST_CASE("fit: an F kept from the seed row is not widened", "[fit][release-only]") {
  std::optional<models::DatapathSpec> hidden;
  for (const auto& u : models::builtin_unit_specs())
    if (u.name == "h100")
      for (const auto& r : u.datapaths)
        if (r.instruction == "mma.sync") hidden = r;
  REQUIRE(hidden);
  hidden->input_formats = {"e4m3"};
  const Format& in = parse_format("e4m3");
  const Format& out = parse_format("fp16");
  const std::uint64_t seed = 20261141;
  INFO("dump seed " << seed);
  std::vector<std::uint64_t> a, b, c;
  structured_cases(in, out, 32, 5000, seed, a, b, c);  // the basic mix, as the built-in rows' evaluation
  const DumpSet dump = simulated_dump(*hidden, in, out, 32, a, b, c);
  FitOptions o = choice_bench_budget();
  o.exclude_units = {"h100"};
  const FitResult r = fit_dump(dump, o);
  REQUIRE_FALSE(r.capped);
  REQUIRE(r.exact);
  auto wide = r.best.row;
  wide.fraction_bits = 40;
  std::printf("fit kept from the seed: %s, F %d; F 40 off on %zu of the dump's cases\n", r.best.seed.c_str(),
              r.best.row.fraction_bits, count_mismatches(wide, dump));
  CHECK(r.best.seed.starts_with("b200 (mma.sync)"));
  CHECK(r.best.row.fraction_bits == 25);
  CHECK(count_mismatches(wide, dump) == 0);  // the widening would have taken it
}

// The rows that differ from the unit fit their dumps exactly: a 5,000-case dump holds no case
// that tells them apart, and a larger dump of the same generator does (session 42, docs/fit.md:
// all 15 such rows agree from 10^6 cases). Random 171 of seed 2 (e4m3 -> fp16, K 8, alignment
// ru): from the benchmark's 5,000 cases the fit keeps t4's rz (221 of 10^6 check cases off);
// from 50,000 cases of the same seed (the 5,000 are their first) it takes ru and agrees with the
// unit on the first 20,000 check cases, where the smaller fit differs on some.
TEST_CASE("fit: a row the dump cannot tell apart is found from a larger dump", "[fit][release-only]") {
  const auto hidden = row_of(
      R"({"name":"h","architecture":"user","alignment_rounding":"ru","c_placement":"aligned","carry_bits":5,
          "final_rounding":{"fp16":"ru"},"fma_size":4,"fraction_bits":37,"input_formats":["e4m3"],
          "k_split":"pairs-mod4","min_exponent":null,"normalization":"deferred","order":"largest-first",
          "output_formats":["fp16"],"overflow":"nan","sticky_bit":false,"subnormal_inputs":false,
          "subnormal_outputs":true,"zero_sign":"ieee"})");
  const Format& in = parse_format("e4m3");
  const Format& out = parse_format("fp16");
  const std::uint64_t seed = 2 + 7919 * 170;  // bench fit --seed 2, random 171: the dump; + 1: the check
  INFO("random 171 of seed 2, dump seed " << seed);
  std::vector<std::uint64_t> a, b, c;
  structured_cases(in, out, 8, 20000, seed + 1, a, b, c, true);
  const DumpSet check = simulated_dump(hidden, in, out, 8, a, b, c);
  std::size_t differ[2] = {0, 0};
  std::string alignment[2];
  const std::size_t sizes[2] = {5000, 50000};
  for (int i = 0; i < 2; ++i) {
    structured_cases(in, out, 8, sizes[i], seed, a, b, c, true);
    const DumpSet dump = simulated_dump(hidden, in, out, 8, a, b, c);
    FitOptions o = choice_bench_budget();
    o.work_budget *= sizes[i] / 5000;  // the budget scaled with the cases, as bench fit --fit-budget 1000N
    const FitResult r = fit_dump(dump, o);
    REQUIRE_FALSE(r.capped);
    REQUIRE(r.exact);
    differ[i] = count_mismatches(r.best.row, check);
    alignment[i] = to_string(r.best.row.alignment_rounding);
    std::printf("fit from %zu cases: %s; alignment %s; %zu of 20000 check cases differ\n", sizes[i],
                r.best.seed.c_str(), alignment[i].c_str(), differ[i]);
    const DumpSet fitted = simulated_dump(r.best.row, in, out, 8, check.a, check.b, check.c);
    for (std::size_t n = 0; n < check.n; ++n)
      if (!same_result(out, fitted.d[n], check.d[n])) {  // the first differing check case, in bits (NaNs alike)
        std::printf("  check case %zu: a", n);
        for (std::size_t j = 0; j < 8; ++j) std::printf(" %02llx", static_cast<unsigned long long>(check.a[n * 8 + j]));
        std::printf(", b");
        for (std::size_t j = 0; j < 8; ++j) std::printf(" %02llx", static_cast<unsigned long long>(check.b[n * 8 + j]));
        std::printf(", c %04llx; unit %04llx, fitted %04llx\n", static_cast<unsigned long long>(check.c[n]),
                    static_cast<unsigned long long>(check.d[n]), static_cast<unsigned long long>(fitted.d[n]));
        break;
      }
  }
  CHECK(differ[0] > 0);  // the 5,000 cases leave the alignment rounding undecided
  CHECK(alignment[1] == "ru");
  CHECK(differ[1] == 0);
}
