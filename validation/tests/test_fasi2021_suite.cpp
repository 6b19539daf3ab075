// fasi2021's test vectors through adders configured as V100 and as T4/A100.
#include <catch2/catch.hpp>

#include "test_support.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/validation/probe_v100_report.hpp"
#include "tcsim/validation/fasi2021_suite.hpp"

using namespace tcsim;
using namespace tcsim::validation;

namespace {
std::vector<BlackBox> v100_boxes() { return {v100_adder_box(formats::fp32()), v100_adder_box(formats::fp16())}; }
std::vector<BlackBox> t4_boxes() {
  // bf16 -> fp32 of A100 (section 3.3) is the same adder with bf16 operands.
  AdderConfig bf = t4_a100_adder_config(formats::fp32());
  bf.a_format = bf.b_format = formats::bf16();
  return {t4_a100_adder_box(formats::fp32()), t4_a100_adder_box(formats::fp16()),
          blackbox_from_adder(bf, 8, "A100 adder bf16->fp32")};
}
void print_failure(const Fasi2021Result& r, const std::string& expected) {
  UNSCOPED_INFO(r.test.id << ": d = " << r.result << " (" << bits_to_hex(parse_format(r.test.out_format), r.d)
                          << "), expected " << expected);
}
}  // namespace

TEST_CASE("fasi2021 suite: every case is well formed and ids are unique", "[fasi2021]") {
  std::set<std::string> ids;
  for (const auto& t : fasi2021_cases()) {
    INFO(t.id);
    CHECK(ids.insert(t.id).second);
    CHECK(t.a.size() == t.b.size());
    CHECK_FALSE(t.section.empty());
    CHECK((!t.v100.empty() || !t.t4_a100.empty()));
  }
  CHECK(fasi2021_cases().size() >= 35);
}

TEST_CASE("fasi2021 suite: the V100 adder (F=23, k=4) meets every V100 finding", "[fasi2021]") {
  const auto boxes = v100_boxes();
  const auto results = run_fasi2021(boxes);
  int passed = 0, differs_on_t4 = 0;
  for (const auto& r : results) {
    if (r.test.v100.empty()) {
      CHECK_FALSE(r.ran);  // bf16 is not a V100 format
      continue;
    }
    REQUIRE(r.ran);
    if (!*r.v100_pass) print_failure(r, r.test.v100);
    CHECK(*r.v100_pass);
    passed += *r.v100_pass;
    if (r.t4_a100_pass && !*r.t4_a100_pass) ++differs_on_t4;
  }
  // The cases where V100 and T4/A100 differ (the extra alignment bit) are told apart.
  CHECK(differs_on_t4 >= 8);
  INFO(fasi2021_to_text(results));
  CHECK(passed > 30);
}

TEST_CASE("fasi2021 suite: the T4/A100 adder (F=24, k=8) meets every T4/A100 finding", "[fasi2021]") {
  const auto boxes = t4_boxes();
  const auto results = run_fasi2021(boxes);
  for (const auto& r : results) {
    if (r.test.t4_a100.empty()) continue;
    REQUIRE(r.ran);
    if (!*r.t4_a100_pass) print_failure(r, r.test.t4_a100);
    CHECK(*r.t4_a100_pass);
  }
}

TEST_CASE("fasi2021 suite: constants generalized by F match a V100-like adder with F bits", "[fasi2021]") {
  for (int F = 10; F <= 40; ++F) {
    AdderConfig cfg = v100_adder_config(formats::fp32());
    cfg.fraction_bits = F;
    const std::vector<BlackBox> boxes = {blackbox_from_adder(cfg, 4)};
    for (const auto& r : run_fasi2021(boxes, fasi2021_cases_for_fraction_bits(F))) {
      INFO("F=" << F);
      REQUIRE(r.ran);
      if (!*r.v100_pass) print_failure(r, r.test.v100);
      CHECK(*r.v100_pass);
    }
  }
  // F=23 and F=24 tell V100 from T4/A100 on the generalized four-rounding-errors vector.
  const auto v100 = v100_adder_box(formats::fp32());
  const auto c24 = fasi2021_cases_for_fraction_bits(23);
  const auto on_v100 = run_fasi2021(std::span<const BlackBox>(&v100, 1), c24);
  CHECK(std::all_of(on_v100.begin(), on_v100.end(), [](const auto& r) { return *r.v100_pass; }));
  CHECK_THROWS_AS(fasi2021_cases_for_fraction_bits(9), std::invalid_argument);
}

TEST_CASE("fasi2021 suite: JSON rows carry test, section, result and PASS/FAIL per GPU", "[fasi2021]") {
  const auto results = run_fasi2021(v100_boxes());
  const auto j = fasi2021_to_json(results);
  REQUIRE(j.is_array());
  REQUIRE(j.size() == results.size());
  bool saw_fail = false;
  for (const auto& row : j) {
    CHECK(row.contains("test"));
    CHECK(row.contains("section"));
    CHECK(row.contains("result"));
    CHECK((row["v100"] == "PASS" || row["v100"] == "n/a"));
    saw_fail = saw_fail || row["t4_a100"] == "FAIL";
  }
  CHECK(saw_fail);
  const auto it = std::find_if(j.begin(), j.end(), [](const auto& r) { return r["test"] == "3.1.4/no-guard-digit"; });
  REQUIRE(it != j.end());
  CHECK((*it)["result"] == "0x1p-23");
  CHECK((*it)["section"] == "3.1.4");
  CHECK((*it)["v100"] == "PASS");
  CHECK((*it)["t4_a100"] == "FAIL");
}
