// tcsim fit's search leaving local minima the random rows of issue 26 ended in (docs/fit.md,
// "Session 31: rows not fitted"). Each hidden row is a random user row of seed 2; its dump is of
// the basic mix (the same with every compiler); the fit starts from the row it ended in and
// runs on a work budget, so the outcome does not depend on the load or the sanitizers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <optional>
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

}  // namespace

// Random 60 and 192 of seed 2 (issue 26's evaluation; 73 is of the same shape, but on its
// basic-mix dump single changes reach the final add without the group): c by a final add with final
// rounding X and add rounding Y. The fit ended at c late (or aligned) with the products rounded
// X and the final rounding Y: the late rounding stands in for the final rounding and the final
// rounding for the add's, so c_entry "final-add" alone, or with its add rounding, leaves the
// two roundings swapped. The c-entry group now holds the final rounding, so its product makes
// the swap in one move. Without it both stay at their start (89 and 73 mismatches).
TEST_CASE("fit: the c-entry group swaps the late and final roundings into a final add", "[fit][release-only]") {
  struct Case {
    const char* label;
    const char* in;
    const char* out;
    std::size_t k;
    const char* hidden;
    const char* stuck;  // where the fit ended (5,000,000 cases, range mix)
  };
  const Case cases[] = {
      {"random 60", "e4m3", "fp16", 16,
       R"({"name":"h","architecture":"user","input_formats":["e4m3"],"output_formats":["fp16"],"fma_size":16,
          "fraction_bits":24,"carry_bits":4,"alignment_rounding":"ru","sticky_bit":false,"normalization":"deferred",
          "order":"largest-first","c_placement":"aligned","c_entry":"final-add","final_add_rounding":{"fp16":"ru"},
          "final_rounding":{"fp16":"rd"},"min_exponent":{"fp16":-21},"overflow":"ieee","subnormal_inputs":true,
          "subnormal_outputs":true,"zero_sign":"ieee"})",
       R"({"name":"s","architecture":"user","input_formats":["e4m3"],"output_formats":["fp16"],"fma_size":16,
          "fraction_bits":24,"carry_bits":4,"alignment_rounding":"ru","sticky_bit":false,"normalization":"deferred",
          "order":"largest-first","c_placement":"late","late_products_rounding":"rd","final_rounding":{"fp16":"ru"},
          "min_exponent":{"fp16":-22},"overflow":"ieee","subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"ieee"})"},
      {"random 192", "e4m3", "fp32", 32,
       R"({"name":"h","architecture":"user","input_formats":["e4m3"],"output_formats":["fp32"],"fma_size":32,
          "fraction_bits":36,"carry_bits":4,"alignment_rounding":"rz","sticky_bit":false,"normalization":"deferred",
          "order":"largest-first","c_placement":"late","c_entry":"final-add","final_add_rounding":{"fp32":"rz"},
          "final_rounding":{"fp32":"rd"},"min_exponent":{"fp32":-127},"overflow":"ieee","subnormal_inputs":true,
          "subnormal_outputs":true,"zero_sign":"ieee"})",
       R"({"name":"s","architecture":"user","input_formats":["e4m3"],"output_formats":["fp32"],"fma_size":32,
          "fraction_bits":40,"carry_bits":4,"alignment_rounding":"rz","sticky_bit":true,"normalization":"deferred",
          "order":"largest-first","c_placement":"late","late_products_rounding":"rd","final_rounding":{"fp32":"rz"},
          "min_exponent":{"fp32":-133},"overflow":"inf","subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"ieee"})"},
  };
  const std::uint64_t seed = 20261131;
  INFO("seed " << seed);
  for (const Case& t : cases) {
    INFO(t.label);
    const Format& in = parse_format(t.in);
    const Format& out = parse_format(t.out);
    const auto hidden = row_of(t.hidden);
    const auto stuck = row_of(t.stuck);
    std::vector<std::uint64_t> a, b, c;
    structured_cases(in, out, t.k, 2000, seed, a, b, c, false);
    const DumpSet dump = simulated_dump(hidden, in, out, t.k, a, b, c);
    const std::size_t start = count_mismatches(stuck, dump);
    FitOptions opt;
    opt.seeds = {stuck};
    // 400,000 before fitsearch6: with the current row's wrong cases first, candidates the deciding
    // cases refuted at once run those cases first too, and random 60 ends at its start (89 off).
    opt.work_budget = 600000;
    opt.time_limit_seconds = 3600;  // the budget ends the search, not the clock
    const FitResult r = fit_dump(dump, opt);
    std::printf("c-entry swap (%s): start %zu mismatches, fitted %zu, %zu cases run, c_entry %s\n", t.label, start,
                r.best.mismatches, r.case_evaluations, r.best.row.c_entry == models::CEntry::FinalAdd ? "final-add" : "accumulator");
    CHECK(start > 0);  // the dump separates the stuck row
    REQUIRE_FALSE(r.capped);
    CHECK(r.exact);
  }
}

// Random 190 of seed 2 (142 and 178 are of the same shape, but on the range mix only, which is
// not the same with every compiler): an NVIDIA-like row (c aligned, F 23 with a sticky bit) on
// whose dump an AMD row (mi300x here, mi100 in the evaluation) scores best of the seeds. Its
// descent took the seeds' whole share of the budget, the AMD restarts the rest, and no
// NVIDIA-like seed was descended. The AMD seeds now end at half the seeds' share when an
// NVIDIA-like seed is among them. Without that: 834 mismatches at the budget (c after, from mi300x).
TEST_CASE("fit: the NVIDIA-like seeds keep a share when an AMD seed scores best", "[fit][release-only]") {
  struct Case {
    const char* label;
    const char* in;
    std::size_t k;
    std::size_t budget;  // cases run through candidate rows
    const char* hidden;
  };
  const Case cases[] = {
      {"random 190", "fp16", 16, 1000000,
       R"({"name":"h","architecture":"user","input_formats":["fp16"],"output_formats":["fp32"],"fma_size":8,
          "k_split":"pairs-mod4","fraction_bits":23,"carry_bits":5,"alignment_rounding":"rz","sticky_bit":true,
          "normalization":"deferred","order":"largest-first","c_placement":"aligned","final_rounding":{"fp32":"rd"},
          "min_exponent":null,"overflow":"nan","subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"ieee"})"},
  };
  const std::uint64_t seed = 20261133;
  INFO("seed " << seed);
  for (const Case& t : cases) {
    INFO(t.label);
    const Format& in = parse_format(t.in);
    const Format& out = parse_format("fp32");
    const auto hidden = row_of(t.hidden);
    std::vector<std::uint64_t> a, b, c;
    structured_cases(in, out, t.k, 2000, seed, a, b, c, false);  // the basic mix
    const DumpSet dump = simulated_dump(hidden, in, out, t.k, a, b, c);
    FitOptions opt;
    opt.work_budget = t.budget;
    opt.time_limit_seconds = 3600;  // the budget ends the search, not the clock
    const FitResult r = fit_dump(dump, opt);
    std::string seeds;
    for (const auto& s : r.closest) seeds += "; " + s.seed + " " + std::to_string(s.mismatches);
    std::printf("seed families (%s): fitted %zu mismatches, %zu cases run, closest%s\n", t.label, r.best.mismatches,
                r.case_evaluations, seeds.c_str());
    REQUIRE_FALSE(r.capped);
    CHECK(std::any_of(r.closest.begin(), r.closest.end(), [](const ScoredRow& s) { return s.seed.rfind("mi", 0) == 0; }));
    CHECK(r.exact);
  }
}

// Random 122 of seed 2: c late with the products' sum rounded rz to 20 result fraction bits.
// The fit ended with no late rounding and no result fraction bits (7 mismatches): either key
// alone changes nothing on the dump, both together fit it. The late rounding rounds into the
// output at the result's fraction bits, so the pair is now scanned first with the coupled pairs
// (validation/src/fit_descent.cpp). From the stuck row on this 2,000-case dump the pair scan
// finds it either way; the coupled order finds it in two thirds of the cases.
TEST_CASE("fit: the late products' rounding is searched with the result's fraction bits", "[fit][release-only]") {
  const char* hidden_json =
      R"({"name":"h","architecture":"user","input_formats":["e4m3"],"output_formats":["fp32"],"fma_size":16,
          "fraction_bits":18,"carry_bits":6,"alignment_rounding":"rne","sticky_bit":false,"normalization":"deferred",
          "order":"largest-first","c_placement":"late","late_products_rounding":"rz","final_rounding":{"fp32":"rne"},
          "result_fraction_bits":{"fp32":20},"min_exponent":null,"overflow":"ieee","subnormal_inputs":true,
          "subnormal_outputs":true,"zero_sign":"positive"})";
  // Where the fit ended (5,000,000 cases, range mix).
  const char* stuck_json =
      R"({"name":"s","architecture":"user","input_formats":["e4m3"],"output_formats":["fp32"],"fma_size":32,
          "fraction_bits":18,"carry_bits":7,"alignment_rounding":"rne","sticky_bit":false,"normalization":"deferred",
          "order":"largest-first","c_placement":"late","final_rounding":{"fp32":"rz"},"min_exponent":{"fp32":-133},
          "overflow":"inf","subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"positive"})";
  const std::uint64_t seed = 20261134;
  INFO("seed " << seed);
  const Format& in = parse_format("e4m3");
  const Format& out = parse_format("fp32");
  const auto hidden = row_of(hidden_json);
  const auto stuck = row_of(stuck_json);
  std::vector<std::uint64_t> a, b, c;
  // The range mix (the basic mix does not separate it) of session 34, on which the fit got stuck.
  structured_cases(in, out, 16, 2000, seed, a, b, c, true, -1, false);
  const DumpSet dump = simulated_dump(hidden, in, out, 16, a, b, c);
  const std::size_t start = count_mismatches(stuck, dump);
  FitOptions opt;
  opt.seeds = {stuck};
  // Exact at 146,969 cases; without the coupled pair at 300,020. (Session 32: 95,786 and 150,370
  // with a budget of 120,000; session 33's per-step group adds its 288 rows to each group pass
  // before the pair scan, 51,183 cases here.)
  opt.work_budget = 175000;
  opt.time_limit_seconds = 3600;  // the budget ends the search, not the clock
  const FitResult r = fit_dump(dump, opt);
  std::printf("late rounding with result bits (random 122): start %zu mismatches, fitted %zu, %zu cases run\n", start,
              r.best.mismatches, r.case_evaluations);
  CHECK(start > 0);  // the dump separates the stuck row
  REQUIRE_FALSE(r.capped);
  CHECK(r.exact);
}

// Random 160 of seed 2: final rounding rd with IEEE zeros. The fit ended with final rounding rz
// and "positive" zeros (142 mismatches): an exact zero sum is -0 under rd only, so either key
// alone leaves the zero cases or the rounded ones wrong, both together fit. The pair is now
// scanned first with the coupled pairs (validation/src/fit_descent.cpp).
TEST_CASE("fit: the final rounding is searched with the zero sign", "[fit][release-only]") {
  const char* hidden_json =
      R"({"name":"h","architecture":"user","input_formats":["e5m2"],"output_formats":["fp32"],"fma_size":2,
          "fraction_bits":8,"carry_bits":5,"alignment_rounding":"ru","sticky_bit":false,"normalization":"deferred",
          "order":"largest-first","c_placement":"aligned","c_entry":"final-add","final_add_rounding":{"fp32":"rd"},
          "final_rounding":{"fp32":"rd"},"result_fraction_bits":{"fp32":9},"min_exponent":{"fp32":-131},
          "overflow":"ieee","subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"ieee"})";
  // Where the fit ended (5,000,000 cases, range mix).
  const char* stuck_json =
      R"({"name":"s","architecture":"user","input_formats":["e5m2"],"output_formats":["fp32"],"fma_size":2,
          "fraction_bits":8,"carry_bits":2,"alignment_rounding":"ru","sticky_bit":false,"normalization":"deferred",
          "order":"largest-first","c_placement":"aligned","c_entry":"final-add","final_add_rounding":{"fp32":"rd"},
          "final_rounding":{"fp32":"rz"},"min_exponent":{"fp32":-133},"overflow":"inf","subnormal_inputs":true,
          "subnormal_outputs":true,"zero_sign":"positive"})";
  const std::uint64_t seed = 20261135;
  INFO("seed " << seed);
  const Format& in = parse_format("e5m2");
  const Format& out = parse_format("fp32");
  const auto hidden = row_of(hidden_json);
  const auto stuck = row_of(stuck_json);
  std::vector<std::uint64_t> a, b, c;
  structured_cases(in, out, 4, 2000, seed, a, b, c, true);  // the range mix
  const DumpSet dump = simulated_dump(hidden, in, out, 4, a, b, c);
  const std::size_t start = count_mismatches(stuck, dump);
  FitOptions opt;
  opt.seeds = {stuck};
  opt.work_budget = 400000;
  opt.time_limit_seconds = 3600;  // the budget ends the search, not the clock
  const FitResult r = fit_dump(dump, opt);
  std::printf("final rounding with zero sign (random 160): start %zu mismatches, fitted %zu, %zu cases run\n", start,
              r.best.mismatches, r.case_evaluations);
  CHECK(start > 0);  // the dump separates the stuck row
  REQUIRE_FALSE(r.capped);
  CHECK(r.exact);
}

// Random 152 and 167 of seed 2 (docs/fit.md, "Session 33: rows not fitted"): per-step pairwise
// sums (every partial sum rounded into fp16) with F 36 rounded rd and a sticky bit. The fit
// ended at deferred sums with c by a final add and "positive" zeros (167: c late, a block of 16
// with pairs-mod4): the final add stands in for the chain's last rounded step and the zero sign
// for its step-by-step zeros, and no key, pair or triple of the differing keys lowers the count.
// The move is in the group of the blocks, the sum's order, the entry of c and the zero sign
// (validation/src/fit_params.cpp). Without the group both stay at their start (31 and 45 mismatches).
TEST_CASE("fit: per-step sums are searched with the entry of c and the zero sign", "[fit][release-only]") {
  struct Case {
    const char* label;
    const char* in;
    const char* hidden;
    const char* stuck;  // where the fit ended (5,000,000 cases, range mix)
  };
  const Case cases[] = {
      {"random 152", "fp16",
       R"({"name":"h","architecture":"user","input_formats":["fp16"],"output_formats":["fp16"],"fma_size":2,
          "fraction_bits":36,"carry_bits":7,"alignment_rounding":"rd","sticky_bit":true,"normalization":"per-step",
          "order":"pairwise","c_placement":"aligned","final_rounding":{"fp16":"rz"},"min_exponent":{"fp16":-19},
          "overflow":"ieee","subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"ieee"})",
       R"({"name":"s","architecture":"user","input_formats":["fp16"],"output_formats":["fp16"],"fma_size":2,
          "fraction_bits":23,"carry_bits":4,"alignment_rounding":"rz","sticky_bit":true,"normalization":"deferred",
          "order":"largest-first","c_placement":"aligned","c_entry":"final-add","final_add_rounding":{"fp16":"rz"},
          "final_rounding":{"fp16":"rz"},"min_exponent":{"fp16":-19},"overflow":"ieee","subnormal_inputs":true,
          "subnormal_outputs":true,"zero_sign":"positive"})"},
      {"random 167", "e4m3",
       R"({"name":"h","architecture":"user","input_formats":["e4m3"],"output_formats":["fp16"],"fma_size":4,
          "fraction_bits":36,"carry_bits":3,"alignment_rounding":"rd","sticky_bit":true,"normalization":"per-step",
          "order":"pairwise","c_placement":"aligned","final_rounding":{"fp16":"rne"},"min_exponent":null,
          "overflow":"ieee","subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"ieee"})",
       R"({"name":"s","architecture":"user","input_formats":["e4m3"],"output_formats":["fp16"],"fma_size":16,
          "k_split":"pairs-mod4","fraction_bits":21,"carry_bits":6,"alignment_rounding":"rz","sticky_bit":false,
          "normalization":"deferred","order":"largest-first","c_placement":"late","late_products_rounding":"rne",
          "c_entry":"final-add","final_add_rounding":{"fp16":"rne"},"final_rounding":{"fp16":"rne"},
          "min_exponent":{"fp16":-21},"overflow":"inf","subnormal_inputs":true,"subnormal_outputs":true,
          "zero_sign":"positive"})"},
  };
  const std::uint64_t seed = 20261136;
  INFO("seed " << seed);
  for (const Case& t : cases) {
    INFO(t.label);
    const Format& in = parse_format(t.in);
    const Format& out = parse_format("fp16");
    const auto hidden = row_of(t.hidden);
    const auto stuck = row_of(t.stuck);
    std::vector<std::uint64_t> a, b, c;
    structured_cases(in, out, 4, 2000, seed, a, b, c, false);  // the basic mix
    const DumpSet dump = simulated_dump(hidden, in, out, 4, a, b, c);
    const std::size_t start = count_mismatches(stuck, dump);
    FitOptions opt;
    opt.seeds = {stuck};
    opt.work_budget = 400000;  // exact at 179,766 (152) and 327,233 (167) cases
    opt.time_limit_seconds = 3600;  // the budget ends the search, not the clock
    const FitResult r = fit_dump(dump, opt);
    std::printf("per-step sums with c entry and zero sign (%s): start %zu mismatches, fitted %zu, %zu cases run\n",
                t.label, start, r.best.mismatches, r.case_evaluations);
    CHECK(start > 0);  // the dump separates the stuck row
    REQUIRE_FALSE(r.capped);
    CHECK(r.exact);
  }
}

namespace {

// A built-in unit's row serving `out` (and `in`, when it has one), as fit's seeds take it.
models::DatapathSpec builtin_row(const std::string& unit, const std::string& in, const std::string& out) {
  auto serves = [](const std::vector<std::string>& v, const std::string& f) {
    return std::find(v.begin(), v.end(), f) != v.end();
  };
  std::optional<models::DatapathSpec> found;
  for (const auto& u : models::builtin_unit_specs())
    if (u.name == unit)
      for (const auto& r : u.datapaths)
        if (!r.block_scale && r.instruction.empty() && serves(r.output_formats, out) &&
            (!found || (serves(r.input_formats, in) && !serves(found->input_formats, in))))
          found = r;
  REQUIRE(found);
  found->input_formats = {in};  // read with the dump's inputs
  found->output_formats = {out};
  auto keep = [&](auto& m) { std::erase_if(m, [&](const auto& e) { return e.first != out; }); };
  keep(found->final_rounding);
  keep(found->final_add_rounding);
  keep(found->min_exponent);
  keep(found->result_fraction_bits);
  keep(found->nan_pattern);
  return *found;
}

// Random row N of seed 2 as bench fit draws its cases: `n` range-mix cases at K 8 from `seed`
// (the dump: 2 + 7919 x (N - 1); its check cases: that + 1), answered by `hidden`.
DumpSet bench_cases(const models::DatapathSpec& hidden, std::uint64_t seed, std::size_t n) {
  const Format& in = parse_format(hidden.input_formats.at(0));
  const Format& out = parse_format(hidden.output_formats.at(0));
  std::vector<std::uint64_t> a, b, c;
  structured_cases(in, out, 8, n, seed, a, b, c, true);
  return simulated_dump(hidden, in, out, 8, a, b, c);
}

// The fit of random row N's dump from the built-in seeds on the benchmark's budget.
FitResult fit_on_bench_budget(const DumpSet& dump, std::size_t n) {
  FitOptions opt;
  opt.work_budget = 5000000;
  opt.time_limit_seconds = 3600;  // the budget ends the search, not the clock
  const FitResult r = fit_dump(dump, opt);
  std::printf("random %zu: %zu mismatches (%s), %zu cases run\n", n, r.best.mismatches, r.best.seed.c_str(),
              r.case_evaluations);
  return r;
}

}  // namespace

// Random 161 of seed 2 (e4m3 -> fp16, K 16): rtx5090's row scores best but is far from the data;
// its descent took the seeds' whole share (a group pass on a far row costs most of the sample per
// candidate) and v100's fp16 row, read with e4m3 inputs, which fits alone, was never descended.
// Each seed now has a part of the seeds' share (validation/src/fit.cpp): exact from v100's row,
// 1,716,936 cases run with the report. Without the parts rtx5090's row takes the budget and ends
// 1,190 mismatches off (at 2,500,000 cases and at 5,000,000).
TEST_CASE("fit: each seed has a part of the seeds' share", "[fit][release-only]") {
  const char* hidden_json =
      R"({"name":"h","architecture":"user","input_formats":["e4m3"],"output_formats":["fp16"],"fma_size":8,
          "k_split":"pairs-mod4","fraction_bits":39,"carry_bits":7,"alignment_rounding":"rd","sticky_bit":false,
          "normalization":"deferred","order":"largest-first","c_placement":"aligned","final_rounding":{"fp16":"rd"},
          "result_fraction_bits":{"fp16":8},"min_exponent":null,"overflow":"ieee","subnormal_inputs":true,
          "subnormal_outputs":true,"zero_sign":"ieee"})";
  const std::uint64_t seed = 20261137;
  INFO("seed " << seed);
  const Format& in = parse_format("e4m3");
  const Format& out = parse_format("fp16");
  const auto hidden = row_of(hidden_json);
  std::vector<std::uint64_t> a, b, c;
  // The range mix of session 34, as bench fit's random rows then (with session 35's classes
  // rtx5090's descent fits the dump too, and the test would not show v100's part).
  structured_cases(in, out, 16, 2000, seed, a, b, c, true, -1, false);
  const DumpSet dump = simulated_dump(hidden, in, out, 16, a, b, c);
  FitOptions opt;
  opt.seeds = {builtin_row("rtx5090", "e4m3", "fp16"), builtin_row("v100", "e4m3", "fp16")};
  const std::size_t first = count_mismatches(opt.seeds[0], dump), second = count_mismatches(opt.seeds[1], dump);
  opt.work_budget = 2500000;
  opt.time_limit_seconds = 3600;  // the budget ends the search, not the clock
  const FitResult r = fit_dump(dump, opt);
  std::printf("a part per seed (random 161): seeds %zu and %zu mismatches, fitted %zu (%s), %zu cases run\n", first,
              second, r.best.mismatches, r.best.seed.c_str(), r.case_evaluations);
  CHECK(first > 0);
  CHECK(second > 0);
  // v100's (then the keys widened, session 41); rtx5090's scores best on the graded cost and descends first
  CHECK(r.best.seed.starts_with("base row 2"));
  REQUIRE_FALSE(r.capped);
  CHECK(r.exact);
}

// Random 134 and 171 of seed 2 (docs/fit.md, "fitsearch6"), their dumps as bench fit draws them
// (5,000 range-mix cases, seed 2 + 7919 x the row's place), from the built-in seeds on the
// benchmark's budget. Every seed's descent ended in its group pass: near the row the data
// leaves, most candidates answer like the current row and ran every case before they were
// refuted, so a group product of 600 near-neutral rows took a tenth of the budget and the
// block-structure group (134: fma_size, k split and order together) or the pairs (171) were
// never reached (main: 506 and 93 off). With the current row's wrong cases run first they are
// refuted by those alone, and both fits are exact.
TEST_CASE("fit: candidates are refuted first on the current row's wrong cases", "[fit][release-only]") {
  struct Row {
    std::size_t place;  // random N of seed 2: N - 1
    const char* json;
  };
  const Row rows[] = {
      {133, R"({"name":"h","architecture":"user","input_formats":["fp16"],"output_formats":["fp32"],"fma_size":4,
          "k_split":"pairs-mod4","fraction_bits":26,"carry_bits":6,"alignment_rounding":"ru","sticky_bit":false,
          "normalization":"per-step","order":"largest-first","c_placement":"aligned","final_rounding":{"fp32":"ru"},
          "min_exponent":{"fp32":-137},"overflow":"inf","subnormal_inputs":false,"subnormal_outputs":true,
          "zero_sign":"ieee"})"},
      {170, R"({"name":"h","architecture":"user","input_formats":["e4m3"],"output_formats":["fp16"],"fma_size":4,
          "k_split":"pairs-mod4","fraction_bits":37,"carry_bits":5,"alignment_rounding":"ru","sticky_bit":false,
          "normalization":"deferred","order":"largest-first","c_placement":"aligned","final_rounding":{"fp16":"ru"},
          "min_exponent":null,"overflow":"nan","subnormal_inputs":false,"subnormal_outputs":true,"zero_sign":"ieee"})"}};
  for (const auto& [place, json] : rows) {
    const auto hidden = row_of(json);
    const std::uint64_t seed = 2 + 7919 * place;
    INFO("random " << place + 1 << ", dump seed " << seed);
    const DumpSet dump = bench_cases(hidden, seed, 5000);
    const FitResult r = fit_on_bench_budget(dump, place + 1);
    REQUIRE_FALSE(r.capped);
    CHECK(r.exact);
    CHECK(count_mismatches(r.best.row, dump) == 0);
  }
}

// Random 142 of seed 2 (docs/fit.md, "fit142"): final rounding rd with IEEE overflow, tf32 ->
// fp32, K 8, its dump as bench fit draws it, from the built-in seeds on the benchmark's budget.
// The NVIDIA-like seeds' descents ended on the sample at rz with overflow to Inf (96 off): rz
// and rd differ on the negative inexact results and on where an overflow goes, and the only
// move that lowered the cost was the pair of the final rounding and the overflow rule, 148th of
// 171 pairs, past every seed's part (main: 208 off on the dump). Now a coupled pair, scanned
// first; the fit is exact and agrees with the hidden row on 100,000 further cases.
TEST_CASE("fit: the final rounding is searched with the overflow rule", "[fit][release-only]") {
  const auto hidden = row_of(
      R"({"name":"h","architecture":"user","input_formats":["tf32"],"output_formats":["fp32"],"fma_size":8,
          "fraction_bits":11,"carry_bits":7,"alignment_rounding":"ru","sticky_bit":true,"normalization":"deferred",
          "order":"largest-first","c_placement":"aligned","final_rounding":{"fp32":"rd"},"min_exponent":null,
          "overflow":"ieee","subnormal_inputs":false,"subnormal_outputs":false,"zero_sign":"positive"})");
  const std::size_t place = 141;  // random 142: N - 1
  const std::uint64_t seed = 2 + 7919 * place;
  INFO("random 142, dump seed " << seed);
  const DumpSet dump = bench_cases(hidden, seed, 5000);
  const FitResult r = fit_on_bench_budget(dump, place + 1);
  REQUIRE_FALSE(r.capped);
  CHECK(r.exact);
  CHECK(count_mismatches(r.best.row, dump) == 0);
  // The first 100,000 of the bench's check cases.
  CHECK(count_mismatches(r.best.row, bench_cases(hidden, seed + 1, 100000)) == 0);
}

// Random 190 of seed 3 (tf32 -> fp32, K 4): one product per block, c late with the products
// rounded rne, deferred sums. The fp32 FMA chain's seed (one product per step, per-step sums, c
// aligned) scores best and descends to 935 off, where normalization deferred, c late and the
// late rounding together give 0 but every subset gives 935 (per-step sums read neither c key);
// h100's seed then took the budget and ended 743 off. The three keys are now a group of their
// own (validation/src/fit_params.cpp): exact, and equal to the hidden row on 20,000 further cases.
TEST_CASE("fit: c late is searched with deferred sums", "[fit][release-only]") {
  const auto hidden = row_of(
      R"({"name":"h","architecture":"user","input_formats":["tf32"],"output_formats":["fp32"],"fma_size":1,
          "fraction_bits":34,"carry_bits":1,"alignment_rounding":"ru","sticky_bit":false,"normalization":"deferred",
          "order":"largest-first","c_placement":"late","late_products_rounding":"rne","final_rounding":{"fp32":"ru"},
          "min_exponent":null,"overflow":"inf","subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"ieee"})");
  const Format& in = formats::tf32();
  const Format& out = formats::fp32();
  const std::uint64_t seed = 3 + 7919 * 189;  // bench fit --seed 3, random 190
  INFO("random 190 of seed 3, dump seed " << seed);
  auto cases = [&](std::uint64_t s, std::size_t n) {
    std::vector<std::uint64_t> a, b, c;
    structured_cases(in, out, 4, n, s, a, b, c, true);
    return simulated_dump(hidden, in, out, 4, a, b, c);
  };
  const DumpSet dump = cases(seed, 5000);
  const FitResult r = fit_on_bench_budget(dump, 190);
  REQUIRE_FALSE(r.capped);
  CHECK(r.exact);
  CHECK(count_mismatches(r.best.row, dump) == 0);
  CHECK(count_mismatches(r.best.row, cases(seed + 1, 20000)) == 0);
}
