// The corner-rule probe (probe_corners.hpp) reads back each rule of the built-in rows and of
// adders configured the other way, with the deciding inputs.
#include <catch2/catch.hpp>

#include "tcsim/models/unit.hpp"
#include "tcsim/validation/probe_corners.hpp"

using namespace tcsim;
using namespace tcsim::validation;
using Catch::Matchers::Contains;

namespace {
const CornerFinding& rule(const std::vector<CornerFinding>& v, const std::string& name) {
  for (const auto& f : v)
    if (f.rule == name) return f;
  throw std::logic_error("no rule " + name);
}
}  // namespace

TEST_CASE("probe corners: NVIDIA rows show inf, positive and the floor of their row") {
  const auto& f16 = formats::fp16();
  const auto& f32 = formats::fp32();
  const auto bf = probe_corners(blackbox_from_unit(models::builtin_unit("h100"), formats::bf16(), f32));
  CHECK(rule(bf, "overflow").value == "inf");
  REQUIRE(rule(bf, "overflow").deciders.size() == 2);
  CHECK(rule(bf, "overflow").deciders[0].d == 0x7f800000u);
  CHECK(rule(bf, "overflow").deciders[1].d == 0x7f7fffffu);
  CHECK(rule(bf, "zero_sign").value == "positive");
  CHECK(rule(bf, "zero_sign").deciders.at(0).d == 0u);
  CHECK_THAT(rule(bf, "binary16_floor").evidence, Contains("fp16 -> fp16 only"));
  // fp16 -> fp32: no product reaches 2^127.
  const auto hf = probe_corners(blackbox_from_unit(models::builtin_unit("a100"), f16, f32));
  CHECK(rule(hf, "overflow").value == "unknown");
  CHECK_THAT(rule(hf, "overflow").evidence, Contains("no product of two fp16 values reaches 2^127"));
  // fp16 -> fp16: RNE overflows to Inf anyway.
  const auto hh = probe_corners(blackbox_from_unit(models::builtin_unit("h100"), f16, f16, "wgmma"));
  CHECK(rule(hh, "overflow").value == "inf-or-ieee");
  CHECK(rule(hh, "binary16_floor").value == "lsb 2^-46");  // -21 + ... F = 25
  const auto x25 = probe_corners(blackbox_from_unit(models::builtin_unit("h100"), f16, f16, "wgmma.x25-floor"));
  CHECK(rule(x25, "binary16_floor").value == "lsb 2^-47");
  CHECK(rule(x25, "binary16_floor").deciders.at(0).d == 0x0002u);
  const auto volta = probe_corners(blackbox_from_unit(models::builtin_unit("v100"), f16, f16));
  CHECK(rule(volta, "binary16_floor").value == "lsb 2^-42");  // -19 - 23
  const auto json = corners_to_json(blackbox_from_unit(models::builtin_unit("h100"), formats::bf16(), f32), bf);
  CHECK(json["overflow"]["deciders"][0]["d"] == "0x7f800000");
}

TEST_CASE("probe corners: an IEEE adder shows ieee for overflow and zero sign") {
  AdderConfig c;
  c.a_format = c.b_format = formats::bf16();
  c.c_format = c.out_format = formats::fp32();
  c.fraction_bits = 24;
  c.final_rounding = Rounding::TowardZero;
  const auto f = probe_corners(blackbox_from_adder(c, 4));
  CHECK(rule(f, "overflow").value == "ieee");
  CHECK(rule(f, "overflow").deciders.at(0).d == 0x7f7fffffu);
  CHECK(rule(f, "zero_sign").value == "ieee");
  CHECK(rule(f, "zero_sign").deciders.at(0).d == 0x80000000u);
  c.overflow = OverflowMode::Infinity;
  c.zero_sign = ZeroSign::Positive;
  const auto g = probe_corners(blackbox_from_adder(c, 4));
  CHECK(rule(g, "overflow").value == "inf");
  CHECK(rule(g, "zero_sign").value == "positive");
}
