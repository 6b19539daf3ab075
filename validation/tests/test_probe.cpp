// The black-box probe on adders whose parameters are known: V100, T4/A100, variants.
#include <catch2/catch.hpp>

#include "test_support.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/validation/probe.hpp"
#include "tcsim/validation/probe_v100_report.hpp"

using namespace tcsim;
using namespace tcsim::validation;

namespace {
AdderConfig config(const Format& in, const Format& out, int F, int carry, Rounding align, Rounding fin) {
  AdderConfig c;
  c.a_format = c.b_format = in;
  c.c_format = c.out_format = out;
  c.fraction_bits = F;
  c.carry_bits = carry;
  c.alignment_rounding = align;
  c.final_rounding = fin;
  return c;
}
}  // namespace

TEST_CASE("probe: V100 adder fp16->fp32 gives fasi2021's parameters", "[probe]") {
  const ProbeReport r = probe_with_fasi2021(v100_adder_box(formats::fp32()));
  INFO(r.to_text());
  CHECK(r.subnormal_inputs.value == true);
  CHECK(r.subnormal_c.value == true);
  CHECK(r.subnormal_outputs.value == true);  // shown through c (no fp16 product is an fp32 subnormal)
  CHECK(r.products_exact.value == true);
  CHECK(r.fraction_bits.value == 23);
  CHECK(r.fma_size.value == 4);
  CHECK(r.carry_bits.value == 3);
  CHECK(r.carry_bits_lower_bound);  // 5 terms cannot reach 2^(E+4)
  CHECK(r.alignment_rounding.value == Rounding::TowardZero);
  CHECK(r.sticky_bit.value == false);
  CHECK(r.final_rounding.value == Rounding::TowardZero);
  CHECK(r.normalization.value == std::string("deferred"));
  CHECK(r.order.value == std::string("largest-first"));
  CHECK(r.monotonic.value == false);
  REQUIRE(r.monotonic_counterexample);
  CHECK(std::all_of(r.fasi2021.begin(), r.fasi2021.end(), [](const auto& s) { return s.v100_pass.value_or(true); }));
}

TEST_CASE("probe: V100 adder fp16->fp16 rounds to nearest even at the end", "[probe]") {
  const ProbeReport r = probe(v100_adder_box(formats::fp16()));
  INFO(r.to_text());
  CHECK(r.subnormal_outputs.value == true);
  CHECK(r.fraction_bits.value == 23);
  CHECK(r.fma_size.value == 4);
  CHECK(r.alignment_rounding.value == Rounding::TowardZero);
  CHECK(r.final_rounding.value == Rounding::NearestEven);
  CHECK(r.normalization.value == std::string("deferred"));
}

TEST_CASE("probe: T4/A100 adder fp16->fp32 keeps one more bit (F=24, k=8)", "[probe]") {
  const ProbeReport r = probe(t4_a100_adder_box(formats::fp32()));
  INFO(r.to_text());
  CHECK(r.fraction_bits.value == 24);
  CHECK(r.fma_size.value == 8);
  CHECK(r.carry_bits.value == 3);
  CHECK_FALSE(r.carry_bits_lower_bound);  // 9 terms reach 2^(E+4): the 4th carry bit is missing
  CHECK(r.alignment_rounding.value == Rounding::TowardZero);
  CHECK(r.final_rounding.value == Rounding::TowardZero);
  CHECK(r.normalization.value == std::string("deferred"));
  CHECK(r.monotonic.value == false);
}

TEST_CASE("probe: report JSON has the documented keys", "[probe]") {
  const auto j = probe_with_fasi2021(v100_adder_box(formats::fp32())).to_json();
  for (const char* key : {"fma_size", "fraction_bits", "carry_bits", "alignment_rounding", "final_rounding",
                          "normalization", "order", "subnormal_inputs", "subnormal_outputs", "products_exact",
                          "monotonic", "fasi2021", "monotonic_counterexample", "sticky_bit"})
    CHECK(j.contains(key));
  CHECK(j["fma_size"] == 4);
  CHECK(j["alignment_rounding"] == "rz");
  CHECK(j["final_rounding"] == "rz");
  CHECK(j["monotonic"] == false);
  CHECK(j["products_exact"] == true);
  CHECK(j["monotonic_counterexample"].contains("x"));
  CHECK(j["fasi2021"].size() > 20);
}

TEST_CASE("probe: sticky bit, round-down and per-step variants", "[probe]") {
  SECTION("sticky bit with truncation") {
    AdderConfig c = config(formats::fp16(), formats::fp32(), 25, 3, Rounding::TowardZero, Rounding::TowardZero);
    c.sticky_bit = true;
    const ProbeReport r = probe(blackbox_from_adder(c, 8));
    INFO(r.to_text());
    CHECK(r.sticky_bit.value == true);
    CHECK(r.fraction_bits.value == 25);
    CHECK(r.alignment_rounding.value == Rounding::TowardZero);
    CHECK(r.fma_size.value == 8);
  }
  SECTION("CDNA3-like round-down alignment, RNE output") {
    const AdderConfig c = config(formats::bf16(), formats::fp32(), 24, 3, Rounding::Down, Rounding::NearestEven);
    const ProbeReport r = probe(blackbox_from_adder(c, 8));
    INFO(r.to_text());
    CHECK(r.alignment_rounding.value == Rounding::Down);
    CHECK(r.final_rounding.value == Rounding::NearestEven);
    CHECK(r.fraction_bits.value == 24);
  }
  SECTION("subnormals flushed on input and output (CDNA2-like)") {
    AdderConfig c = config(formats::bf16(), formats::fp32(), 24, 3, Rounding::TowardZero, Rounding::NearestEven);
    c.subnormal_inputs = c.subnormal_outputs = false;
    const ProbeReport r = probe(blackbox_from_adder(c, 4));
    INFO(r.to_text());
    CHECK(r.subnormal_inputs.value == false);
    CHECK(r.subnormal_c.value == false);
    CHECK(r.subnormal_outputs.value == false);
    CHECK(r.fraction_bits.value == 24);
    CHECK(r.fma_size.value == 4);
    CHECK(r.final_rounding.value == Rounding::NearestEven);
  }
  SECTION("c added late (after the products' sum)") {
    AdderConfig c = config(formats::fp16(), formats::fp32(), 24, 4, Rounding::TowardZero, Rounding::TowardZero);
    c.c_placement = CPlacement::Late;
    const ProbeReport r = probe(blackbox_from_adder(c, 8));
    INFO(r.to_text());
    CHECK(r.c_placement.value == std::string("late"));
    CHECK(r.c_entry.value == std::string("accumulator"));
    CHECK(r.fraction_bits.value == 24);
    CHECK(r.fma_size.value == 8);
    CHECK(r.final_rounding.value == Rounding::TowardZero);
    const ProbeReport v = probe(v100_adder_box(formats::fp32()));
    CHECK(v.c_placement.value == std::string("aligned"));
  }
  SECTION("per-step normalization, sequential (IEEE-like fp64)") {
    AdderConfig c = config(formats::fp64(), formats::fp64(), 60, 3, Rounding::NearestEven, Rounding::NearestEven);
    c.sticky_bit = true;
    c.normalization = Normalization::PerStep;
    c.order = AccumulationOrder::Sequential;
    const ProbeReport r = probe(blackbox_from_adder(c, 4));
    INFO(r.to_text());
    CHECK(r.normalization.value == std::string("per-step"));
    CHECK(r.order.value == std::string("sequential"));
    CHECK(r.monotonic.value != false);
  }
}

TEST_CASE("probe: fp8 inputs (e4m3, e5m2) with F=13 and k=16", "[probe]") {
  for (const Format* in : {&formats::e4m3(), &formats::e5m2()}) {
    const AdderConfig c = config(*in, formats::fp32(), 13, 4, Rounding::TowardZero, Rounding::TowardZero);
    const ProbeReport r = probe(blackbox_from_adder(c, 16));
    INFO(r.to_text());
    CHECK(r.fraction_bits.value == 13);
    CHECK(r.fma_size.value == 16);
    CHECK(r.alignment_rounding.value == Rounding::TowardZero);
    CHECK(r.subnormal_inputs.value == true);
    // F = 13 < 23: the register never holds more than binary32 keeps.
    CHECK_FALSE(r.final_rounding.known());
    CHECK_FALSE(r.final_rounding.evidence.empty());
  }
}

TEST_CASE("probe: the V100 adder report has the fasi2021 suite and both probes", "[probe][report]") {
  const std::string text = v100_adder_report();
  CHECK(text.find("V100 expectations 40/40 PASS") != std::string::npos);
  CHECK(text.find("3.1.4/no-guard-digit") != std::string::npos);
  CHECK(text.find("probe of V100 adder fp16->fp32") != std::string::npos);
  CHECK(text.find("probe of V100 adder fp16->fp16") != std::string::npos);
  const auto j = v100_adder_report_json();
  REQUIRE(j["probe"].size() == 2);
  CHECK(j["probe"][0]["fraction_bits"] == 23);
  CHECK(j["probe"][1]["final_rounding"] == "rne");
  CHECK(j["fasi2021"].size() == fasi2021_cases().size());
}

TEST_CASE("probe: lower clamp on E (KM25 min_exp_limit) is found where the formats reach it", "[probe]") {
  for (Rounding fin : {Rounding::TowardZero, Rounding::NearestEven, Rounding::Up, Rounding::Down})
    for (int m : {-140, -133, -132, -127, -120}) {
      AdderConfig c = config(formats::bf16(), formats::fp32(), 24, 4, Rounding::TowardZero, fin);
      c.min_exponent = m;
      const ProbeReport r = probe(blackbox_from_adder(c, 8));
      INFO("m=" << m << " final " << rounding_name(fin) << "\n" << r.to_text());
      CHECK(r.min_exponent.value == m);
      CHECK(r.fraction_bits.value == 24);
    }
  // No clamp: "none" for bf16 -> fp32 (the scan reaches the subnormal range).
  const ProbeReport r = probe(blackbox_from_adder(config(formats::bf16(), formats::fp32(), 24, 4, Rounding::TowardZero,
                                                         Rounding::TowardZero), 8));
  CHECK(r.min_exponent_none);
  CHECK(r.to_json()["min_exponent"] == "none");
}

TEST_CASE("probe: blocks of one product are found, with F carried by c", "[probe]") {
  // Issue 6 audit: k = 1, F = 3 used to read "F 28" and "k >= 128". With one product per
  // block c carries the bits that show F (up to binary32's 24).
  for (int F : {0, 3, 23}) {
    const BlackBox box = blackbox_from_adder(
        config(formats::fp16(), formats::fp32(), F, 3, Rounding::TowardZero, Rounding::TowardZero), 1);
    const ProbeReport r = probe(box);
    INFO("F = " << F << "\n" << r.to_text());
    CHECK(r.fma_size.value == 1);
    CHECK(r.fraction_bits.value == F);
    CHECK_THAT(r.fraction_bits.evidence, Catch::Contains("one product per block"));
    CHECK(r.to_text().find("k>=") == std::string::npos);
  }
  // Beyond what c can carry, F is a lower bound, not a number.
  const ProbeReport wide = probe(blackbox_from_adder(
      config(formats::fp16(), formats::fp32(), 40, 3, Rounding::TowardZero, Rounding::TowardZero), 1));
  INFO(wide.to_text());
  CHECK_FALSE(wide.fraction_bits.known());
  CHECK_THAT(wide.fraction_bits.evidence, Catch::Contains("F >= 24"));
}

TEST_CASE("probe: k beyond the products tried is a lower bound that later experiments use and not a value", "[probe]") {
  ProbeOptions opt;
  opt.max_products = 12;
  const ProbeReport r = probe(t4_a100_adder_box(formats::fp32()), opt);  // k = 8
  CHECK(r.fma_size.value == 8);
  opt.max_products = 6;
  const ProbeReport low = probe(t4_a100_adder_box(formats::fp32()), opt);
  INFO(low.to_text());
  CHECK_FALSE(low.fma_size.known());
  CHECK_THAT(low.fma_size.evidence, Catch::Contains("k>=6"));
  CHECK(low.fraction_bits.value == 24);
  CHECK(low.alignment_rounding.value == Rounding::TowardZero);
  CHECK(low.final_rounding.value == Rounding::TowardZero);
  CHECK_THAT(low.carry_bits.evidence, Catch::Contains("(k>=6)"));
}

TEST_CASE("probe: F = 0 is measured, with every format the report needs", "[probe]") {
  for (int k : {1, 4}) {
    for (const Format* out : {&formats::fp32(), &formats::fp16()}) {
      const BlackBox box =
          blackbox_from_adder(config(formats::fp16(), *out, 0, 3, Rounding::TowardZero, Rounding::TowardZero), k);
      ProbeReport r;
      REQUIRE_NOTHROW(r = probe(box));
      INFO("k = " << k << " out " << out->name << "\n" << r.to_text());
      CHECK(r.fraction_bits.value == 0);
      CHECK(r.fma_size.value == k);
      CHECK(r.to_text().find("-0'") == std::string::npos);
      // Subnormals are honoured; F = 0 drops them in alignment, so "flushed" cannot be told.
      CHECK(r.subnormal_inputs.value != false);
      CHECK(r.subnormal_c.value != false);
    }
  }
}

TEST_CASE("probe: where c enters a late-c adder", "[probe]") {
  // c in the register's second alignment: "accumulator". The products' sum rounded into the
  // output first (late_products_rounding): c has an addition of its own, "final-add", whose
  // rounding is the adder's final rounding, while the block rounds with the products' mode.
  AdderConfig c = config(formats::fp16(), formats::fp32(), 27, 4, Rounding::TowardZero, Rounding::NearestEven);
  c.c_placement = CPlacement::Late;
  const ProbeReport late = probe(blackbox_from_adder(c, 8));
  INFO(late.to_text());
  CHECK(late.c_entry.value == std::string("accumulator"));
  CHECK_FALSE(late.final_add_rounding.known());
  CHECK(late.fraction_bits.value == 27);
  CHECK(late.fma_size.value == 8);
  REQUIRE(late.blocks.known());
  CHECK(late.blocks.value->size() == 1);
  c.late_products_rounding = Rounding::TowardZero;
  const ProbeReport separate = probe(blackbox_from_adder(c, 8));
  INFO(separate.to_text());
  CHECK(separate.c_entry.value == std::string("final-add"));
  CHECK(separate.final_add_rounding.value == Rounding::NearestEven);
  CHECK(separate.final_rounding.value == Rounding::TowardZero);
  CHECK(separate.fraction_bits.value == 27);
  CHECK(separate.fma_size.value == 8);
  CHECK(separate.k_split.value == std::string("consecutive"));
}
