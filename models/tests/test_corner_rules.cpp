// The NVIDIA corner rules of issue 22, bit for bit on the built-in rows: binary32 overflow
// gives Inf under RZ (and the Inf is carried into the next block), an exact zero is +0 even
// when every term is -0, and the binary16 alignment floor of wgmma/tcgen05 (KM25's value by
// default, X25's as a named alternative row). Evidence: docs/units/README.md "Corner cases".
#include <catch2/catch.hpp>
#include <cmath>

#include "models_test_helpers.hpp"
#include "tcsim/models/unit_json.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::models::test;
using Catch::Matchers::Contains;

namespace {

const double kTop = std::ldexp(1.0, 127);             // 2^127
const double kMax32 = std::ldexp(0x1.fffffep0, 127);  // largest binary32

// d = c + a.b on `unit` (in -> fp32), K products padded with zeros to K.
std::uint64_t dot32(const char* unit, const Format& in, std::vector<double> a, std::vector<double> b, double c,
                    std::size_t K = 0) {
  if (K) {
    a.resize(K, 0.0);
    b.resize(K, 0.0);
  }
  std::vector<std::uint64_t> pa, pb;
  for (double x : a) pa.push_back(bits(in, x));
  for (double x : b) pb.push_back(bits(in, x));
  return builtin_unit(unit).dot(in, formats::fp32(), pa, pb, bits(formats::fp32(), c));
}

}  // namespace

TEST_CASE("corners: binary32 overflow is Inf under RZ on bf16 and tf32 rows (X25)") {
  for (const char* unit : {"a100", "l40s", "h100", "b200"}) {
    for (const Format* in : {&formats::bf16(), &formats::tf32()}) {
      INFO(unit << " " << in->name);
      CHECK(dot32(unit, *in, {1.0, 1.0}, {kTop, kTop}, 0.0) == 0x7f800000u);
      CHECK(dot32(unit, *in, {-1.0, -1.0}, {kTop, kTop}, 0.0) == 0xff800000u);
      // Below 2^128 the RZ result is the largest finite value, not Inf (X25's same test).
      CHECK(dot32(unit, *in, {0.75, 0.75}, {kTop, kTop}, 0.25 * kMax32) == 0x7f7fffffu);
      CHECK(dot32(unit, *in, {-0.75, -0.75}, {kTop, kTop}, -0.25 * kMax32) == 0xff7fffffu);
      // c at the largest value plus one product of 2^127 * 1.
      CHECK(dot32(unit, *in, {1.0}, {kTop}, kMax32) == 0x7f800000u);
    }
    const auto row = builtin_unit(unit).datapath(formats::bf16(), formats::fp32());
    CHECK(row.overflow == OverflowMode::Infinity);
    CHECK_THAT(row.evidence, Contains("overflow inf"));
  }
}

TEST_CASE("corners: an overflow Inf is carried into the next block, and Inf - Inf is the row NaN") {
  const Format& bf = formats::bf16();
  // a100 bf16: k = 8. Block 1: 1*1; block 2 overflows; block 3 subtracts 2^128: the Inf stays
  // (a saturating block 2 would give 0x7f7fffff - 2^128 = a negative finite value).
  std::vector<double> a(24, 0.0), b(24, 0.0);
  a[0] = b[0] = 1.0;
  a[8] = a[9] = 1.0;
  b[8] = b[9] = kTop;
  a[16] = a[17] = -1.0;
  b[16] = b[17] = kTop;
  CHECK(dot32("a100", bf, a, b, 0.0) == 0x7f800000u);
  // Block 2 has a -Inf operand: +Inf (block 1's overflow) meets -Inf: NaN 0x7fffffff.
  std::vector<double> a2(16, 0.0), b2(16, 0.0);
  a2[0] = a2[1] = 1.0;
  b2[0] = b2[1] = kTop;
  a2[8] = -INFINITY;
  b2[8] = 1.0;
  CHECK(dot32("a100", bf, a2, b2, 0.0) == 0x7fffffffu);
  // The same on h100 and b200 (k = 16) with tf32 (k = 8).
  for (const char* unit : {"h100", "b200"}) CHECK(dot32(unit, formats::tf32(), a2, b2, 0.0) == 0x7fffffffu);
  // c = +Inf and a -Inf product in one block: NaN.
  CHECK(dot32("h100", bf, {-INFINITY}, {1.0}, INFINITY) == 0x7fffffffu);
}

TEST_CASE("corners: every term -0 gives +0 on the NVIDIA rows, fp64 keeps the IEEE -0") {
  for (const auto& spec : builtin_unit_specs()) {
    if (spec.architecture.rfind("cdna", 0) == 0) continue;  // AMD: IEEE-like zeros (test_amd_units.cpp)
    const Unit& u = builtin_unit(spec.name);
    for (const auto& row : spec.datapaths) {
      if (row.block_scale) continue;  // dot_scaled: test_block_scaled.cpp
      for (const auto& in_name : row.input_formats)
        for (const auto& out_name : row.output_formats) {
          const Format& in = parse_format(in_name);
          const Format& out = parse_format(out_name);
          INFO(spec.name << " " << row.instruction << " " << in_name << " -> " << out_name);
          const std::size_t K = 2 * static_cast<std::size_t>(row.fma_size);
          const std::vector<std::uint64_t> neg_zero(K, in.zero(true)), one(K, bits(in, 1.0));
          const std::uint64_t d = u.dot(in, out, neg_zero, one, out.zero(true), row.instruction);
          const bool ieee = in_name == "fp64";
          CHECK(d == out.zero(ieee));
          CHECK(row.zero_sign == (ieee ? ZeroSign::Ieee : ZeroSign::Positive));
          // Zeros of both signs, and nonzero terms that cancel: +0 under every rule.
          std::vector<std::uint64_t> mixed = neg_zero;
          mixed[1] = in.zero(false);
          CHECK(u.dot(in, out, mixed, one, out.zero(true), row.instruction) == out.zero(false));
          std::vector<std::uint64_t> cancel(K, in.zero(false));
          cancel[0] = bits(in, 1.0);
          cancel[1] = bits(in, -1.0);
          CHECK(u.dot(in, out, cancel, one, out.zero(true), row.instruction) == out.zero(false));
        }
    }
  }
}

TEST_CASE("corners: a negative sum below the smallest subnormal keeps its sign (-0)") {
  // -2^-126 * 2^-24 = -2^-150: RZ into binary32 gives -0. Only the exact-zero sign is
  // NVIDIA's +0 rule; X25's model returns +0 here too, which no hardware test asserts (open).
  CHECK(dot32("a100", formats::bf16(), {-std::ldexp(1.0, -126)}, {std::ldexp(1.0, -24)}, 0.0) == 0x80000000u);
}

TEST_CASE("corners: binary16 floor of wgmma/tcgen05: KM25's -21 by default, X25's -22 by name") {
  const Format& h = formats::fp16();
  // c = 0, products 2.5 * 2^-24 (a tie on binary16's subnormal grid) and 2^-47 (below the
  // last kept bit with floor -21, kept with floor -22, breaking the tie upward).
  const std::vector<std::uint64_t> a = bits(h, {1.25 * std::ldexp(1.0, -14), std::ldexp(1.0, -24)});
  const std::vector<std::uint64_t> b = bits(h, {std::ldexp(1.0, -9), std::ldexp(1.0, -23)});
  for (auto [unit, instruction] : {std::pair{"h100", "wgmma"}, std::pair{"b200", "tcgen05"}}) {
    INFO(unit << " " << instruction);
    const Unit& u = builtin_unit(unit);
    CHECK(u.dot(h, h, a, b, 0, "") == 0x0002u);  // mma.sync: KM25's validated -21
    CHECK(u.dot(h, h, a, b, 0, instruction) == 0x0002u);
    const std::string alt = std::string(instruction) + ".x25-floor";
    CHECK(u.dot(h, h, a, b, 0, alt) == 0x0003u);
    CHECK(u.datapath(h, h, instruction).min_exponent.at("fp16") == -21);
    CHECK(u.datapath(h, h, alt).min_exponent.at("fp16") == -22);
    CHECK_THAT(u.datapath(h, h, instruction).evidence, Contains("Binary16 floor OPEN"));
  }
  // The mma rows keep KM25's floors: -19 (Volta), -20 (Turing, Ampere, Ada), -21 (Hopper, Blackwell).
  CHECK(builtin_unit("v100").datapath(h, h).min_exponent.at("fp16") == -19);
  CHECK(builtin_unit("t4").datapath(h, h).min_exponent.at("fp16") == -20);
  CHECK(builtin_unit("a100").datapath(h, h).min_exponent.at("fp16") == -20);
  CHECK(builtin_unit("h100").datapath(h, h).min_exponent.at("fp16") == -21);
}

TEST_CASE("corners: the unit JSON reads and writes overflow and zero_sign") {
  const auto j = to_json(builtin_unit("a100").spec());
  CHECK(j["datapaths"][1]["overflow"] == "inf");
  CHECK(j["datapaths"][1]["zero_sign"] == "positive");
  CHECK(j["datapaths"][3]["overflow"] == "ieee");  // fp64 chain
  CHECK(parse_unit_json(j) == builtin_unit("a100").spec());
  auto bad = j;
  bad["datapaths"][0]["overflow"] = "clip";
  CHECK_THROWS_WITH(parse_unit_json(bad),
                    "<json>: datapaths[0]: key 'overflow': 'clip' is not allowed; allowed: ieee, inf, saturate, nan");
  bad = j;
  bad["datapaths"][0]["zero_sign"] = "negative";
  CHECK_THROWS_WITH(parse_unit_json(bad),
                    "<json>: datapaths[0]: key 'zero_sign': 'negative' is not allowed; allowed: ieee, positive");
}

TEST_CASE("corners: batch paths follow a row's corner rules (fp64 FMA chain, final-add)") {
  // An fp64 row with zero_sign positive must not take std::fma's path (IEEE's -0).
  UnitSpec spec = builtin_unit("a100").spec();
  spec.name = "a100-corners";
  DatapathSpec f64 = spec.datapaths[3];
  REQUIRE(f64.input_formats == std::vector<std::string>{"fp64"});
  f64.zero_sign = ZeroSign::Positive;
  spec.datapaths = {f64};
  const Unit u(spec);
  const Format& d64 = formats::fp64();
  CHECK(u.batch_path(d64, d64) != "fma-chain");
  const std::vector<std::uint64_t> a(8, d64.zero(true)), b(8, bits(d64, 1.0)), c(2, d64.zero(true));
  std::vector<std::uint64_t> d(2, 1);
  u.dot_batch(d64, d64, 2, 4, a.data(), b.data(), c.data(), d.data());
  CHECK(d == std::vector<std::uint64_t>{0, 0});
  // A final-add row rounding c's addition toward zero: overflow inf gives Inf there too.
  UnitSpec h = builtin_unit("h100").spec();
  h.name = "h100-final-add-rz";
  DatapathSpec fa;
  for (const auto& r : h.datapaths)
    if (r.c_entry == CEntry::FinalAdd) fa = r;
  fa.final_add_rounding = {{"fp32", Rounding::TowardZero}, {"fp16", Rounding::TowardZero}};
  h.datapaths = {fa};
  const Format& e5 = formats::e5m2();
  const Format& h16 = formats::fp16();
  // Block: 4 * 8 = 32 (exact in binary16); then 65504 + 32 = 2^16 under RZ: Inf with inf.
  const std::vector<std::uint64_t> x = bits(e5, {4.0}), y = bits(e5, {8.0});
  CHECK(Unit(h).dot(e5, h16, x, y, bits(h16, 65504.0)) == 0x7c00u);
  fa.overflow = OverflowMode::Ieee;
  h.datapaths = {fa};
  CHECK(Unit(h).dot(e5, h16, x, y, bits(h16, 65504.0)) == 0x7bffu);
}
