// tcsim fit's "how sure" (fit_certainty.hpp): the rows that also reproduce every case, run on
// the suggestion's pool. Not sure when the dump cannot tell the unit's row apart, with a case
// on which the unit answers as the alternative does; the summary of the alternatives.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tcsim/models/unit_json.hpp"
#include "tcsim/validation/fit.hpp"
#include "tcsim/validation/fit_certainty.hpp"
#include "tcsim/validation/fit_suggest.hpp"

using namespace tcsim;
using namespace tcsim::validation;

namespace {

models::DatapathSpec row_of(const std::string& json) {
  return models::parse_unit_json(nlohmann::json::parse(json)).datapaths.at(0);
}

// Random 171 of bench fit --seed 2 (e4m3 -> fp16, K 8, alignment ru): from its 5,000 cases the
// fit keeps t4's rz, 221 of 10^6 check cases off (docs/fit.md, session 42).
const char* kRandom171 =
    R"({"name":"h","architecture":"user","alignment_rounding":"ru","c_placement":"aligned","carry_bits":5,
        "final_rounding":{"fp16":"ru"},"fma_size":4,"fraction_bits":37,"input_formats":["e4m3"],
        "k_split":"pairs-mod4","min_exponent":null,"normalization":"deferred","order":"largest-first",
        "output_formats":["fp16"],"overflow":"nan","sticky_bit":false,"subnormal_inputs":false,
        "subnormal_outputs":true,"zero_sign":"ieee"})";

FitOptions bench_budget() {  // bench fit's for random rows: the same path at any load
  FitOptions o;
  o.work_budget = 5000000;
  o.time_limit_seconds = 3600;
  return o;
}

}  // namespace

TEST_CASE("fit: the report is not sure when the dump cannot tell the unit's row apart", "[fit][certainty]") {
  const auto hidden = row_of(kRandom171);
  const Format& in = parse_format("e4m3");
  const Format& out = parse_format("fp16");
  const std::uint64_t seed = 2 + 7919 * 170;  // bench fit --seed 2, random 171: the dump; + 2: the loop's pool
  INFO("random 171 of seed 2, dump seed " << seed);
  std::vector<std::uint64_t> a, b, c;
  structured_cases(in, out, 8, 5000, seed, a, b, c, true);
  const std::vector<DumpSet> dumps{simulated_dump(hidden, in, out, 8, a, b, c)};
  const FitResult r = fit_dumps(dumps, bench_budget());
  REQUIRE(r.exact);
  REQUIRE(r.best.row.alignment_rounding != hidden.alignment_rounding);  // the dump left it undecided
  const FitCertainty sure = fit_certainty(r, dumps, seed + 2);
  for (const auto& line : certainty_lines(sure)) std::printf("%s\n", line.c_str());
  CHECK_FALSE(sure.sure());
  REQUIRE(sure.sets.size() == 1);
  const CertaintySet& s = sure.sets[0];
  CHECK(s.groups > 1);
  CHECK(s.k == 8);
  // The unit's value is among the changes listed, and on that change's case the unit answers
  // as the alternative, not as the fitted row.
  const auto ru = std::find_if(s.differing.begin(), s.differing.end(), [](const DifferingAlternative& d) {
    return d.keys == std::vector<std::string>{"alignment_rounding"} && d.change.find("\"ru\"") != std::string::npos;
  });
  REQUIRE(ru != s.differing.end());
  const auto& w = ru->witness;
  REQUIRE(w.a.size() == 8);
  const DumpSet unit_answer = simulated_dump(hidden, in, out, 8, w.a, w.b, {w.c});
  const DumpSet fitted_answer = simulated_dump(r.best.row, in, out, 8, w.a, w.b, {w.c});
  CHECK(same_result(out, fitted_answer.d[0], w.d_row0));
  CHECK(same_result(out, unit_answer.d[0], w.d_row));
  CHECK_FALSE(same_result(out, unit_answer.d[0], w.d_row0));
  // The JSON and the text say the same.
  const nlohmann::json j = certainty_json(sure);
  CHECK(j["sure"] == false);
  CHECK(j["sets"][0]["groups"] == s.groups);
  const auto lines = certainty_lines(sure);
  REQUIRE(!lines.empty());
  CHECK(lines[0].find("NOT sure") != std::string::npos);
  CHECK(lines.back().find("--suggest") != std::string::npos);
}

// certainty_of on a made-up suggestion: the changes that answer otherwise are listed once per
// set of keys (most mix cases first), a set that holds a listed one is counted as a combination,
// and a row that answers every pool case as the fitted row is not listed.
// A coupled change (keys that split together, neither alone) is listed; a row that adds a change
// to one listed (same key, same value) is a combination.
TEST_CASE("fit: the report's changes are one per set of keys without combinations", "[fit][certainty]") {
  const auto r0 = row_of(kRandom171);
  auto carry = r0, carry_zero = r0, zero = r0, sticky = r0, coupled = r0;
  carry.carry_bits = 3;
  carry_zero.carry_bits = 3;
  carry_zero.zero_sign = ZeroSign::Positive;
  zero.zero_sign = ZeroSign::Positive;
  sticky.sticky_bit = true;
  coupled.carry_bits = 4;  // carry 4 alone is not among the rows, sticky alone never splits
  coupled.sticky_bit = true;
  SuggestedCases s;
  s.in = parse_format("e4m3");
  s.out = parse_format("fp16");
  s.k = 8;
  s.classes = 4;
  s.pool_groups = 5;
  s.pool = 5000;
  s.mix = 4000;
  s.rows = {r0, carry, carry_zero, zero, sticky, coupled};
  s.mix_differing = {0, 7, 9, 0, 0, 2};
  const SuggestedCases::Witness w{std::vector<std::uint64_t>(8, 0x38), std::vector<std::uint64_t>(8, 0x40), 0x3c00, 0x4400, 0x4401};
  s.witness = {{}, {w}, {w}, {w}, {}, {w}};  // zero: only on a further batch; sticky: never
  FitResult fit;
  fit.exact = true;
  fit.best.row = r0;
  const FitCertainty c = certainty_of({s}, fit);
  CHECK_FALSE(c.sure());
  REQUIRE(c.sets.size() == 1);
  CHECK(c.sets[0].groups == 5);  // on the whole pool, not on the chosen cases
  CHECK(c.sets[0].rows == 6);
  const auto& d = c.sets[0].differing;
  REQUIRE(d.size() == 3);
  CHECK(d[0].keys == std::vector<std::string>{"carry_bits"});
  CHECK(d[0].change == "carry_bits 5 -> 3");
  CHECK(d[0].mix_differing == 7);
  CHECK(d[1].keys == std::vector<std::string>{"carry_bits", "sticky_bit"});
  CHECK(d[1].change == "carry_bits 5 -> 4, sticky_bit false -> true");
  CHECK(d[2].keys == std::vector<std::string>{"zero_sign"});
  CHECK(d[2].mix_differing == 0);
  CHECK(c.sets[0].combined == 1);  // carry 3 with zero_sign positive
  const auto lines = certainty_lines(c);
  REQUIRE(lines.size() == 6);
  CHECK(lines[0].find("NOT sure: the 6 rows that reproduce every case answer 5 ways on 5000 cases looked at (4000 fresh "
                      "cases of the harness's mix, 1000 of further batches)") != std::string::npos);
  CHECK(lines[1] == "  carry_bits 5 -> 3: 7 of the 4000 mix cases (1750 per 10^6), e.g. a 0x38 0x38 0x38 0x38 0x38 0x38 "
                    "0x38 0x38, b 0x40 0x40 0x40 0x40 0x40 0x40 0x40 0x40, c 0x3c00: fitted row 0x4400, other 0x4401");
  CHECK(lines[3].find("zero_sign \"ieee\" -> \"positive\": 0 of the 4000 mix cases (0 per 10^6), found by further batches") == 2);
  CHECK(lines[4] == "  and 1 more rows that combine these changes with others");
  // Suggestions whose row 0 is not the fitted row count no rows, and are not sure.
  FitResult other = fit;
  other.best.row = carry;
  CHECK_FALSE(certainty_of({s}, other).sure());
  CHECK(certainty_of({s}, other).sets[0].rows == 0);
  // One group: sure; and a fit that is not exact is never sure.
  s.classes = 1;
  s.pool_groups = 1;
  s.witness = {{}, {}, {}, {}, {}, {}};
  const FitCertainty one = certainty_of({s}, fit);
  CHECK(one.sure());
  CHECK(one.sets[0].differing.empty());
  CHECK(certainty_lines(one)[0].find("sure as far as the 6 rows") != std::string::npos);
  FitResult not_exact = fit;
  not_exact.exact = false;
  CHECK_FALSE(certainty_of({s}, not_exact).sure());
  CHECK(certainty_lines(certainty_of({s}, not_exact)).empty());
}
