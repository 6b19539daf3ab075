// The adder's configurable features, each on hand-computed vectors with exact bit patterns.
#include <catch2/catch.hpp>

#include <vector>

#include "tcsim/sim/adder.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/literal.hpp"

using namespace tcsim;

namespace {

AdderConfig base(const Format& in, const Format& out, int f = 23) {
  AdderConfig c;
  c.a_format = in;
  c.b_format = in;
  c.c_format = out;
  c.out_format = out;
  c.fraction_bits = f;
  c.carry_bits = 3;
  c.final_rounding = Rounding::TowardZero;
  return c;
}

std::vector<std::uint64_t> vals(const Format& f, std::initializer_list<const char*> v) {
  std::vector<std::uint64_t> r;
  for (const char* s : v) r.push_back(parse_literal(s, f));
  return r;
}

// d for b = values, a = ones, c literal; returned as hex of the output format.
std::string sum(const AdderConfig& cfg, std::initializer_list<const char*> b, const char* c) {
  const auto bv = vals(cfg.b_format, b);
  const std::vector<std::uint64_t> av(bv.size(), parse_literal("1", cfg.a_format));
  return bits_to_hex(cfg.out_format, FixedPointAdder(cfg).dot(av, bv, parse_literal(c, cfg.c_format)));
}

std::string hex(const Format& f, const char* v) { return bits_to_hex(f, parse_literal(v, f)); }

const Format& fp32_format() { return formats::fp32(); }
const Format& fp16_format() { return formats::fp16(); }

}  // namespace

TEST_CASE("alignment rounding: rz truncates magnitudes, rd floors, ru ceils, rne rounds each term", "[adder]") {
  // Terms 1 and +-1.5 * 2^-22 with F = 22: the second term is 1.5 units of 2^-22.
  AdderConfig cfg = base(fp32_format(), fp32_format(), 22);
  cfg.final_rounding = Rounding::NearestEven;
  const auto pos = {"1", "0x1.8p-22"};
  const auto neg = {"1", "-0x1.8p-22"};
  cfg.alignment_rounding = Rounding::TowardZero;
  CHECK(sum(cfg, pos, "0") == hex(fp32_format(), "0x1.000004p+0"));  // 1 + 2^-22
  CHECK(sum(cfg, neg, "0") == hex(fp32_format(), "0x1.fffff8p-1"));  // 1 - 2^-22
  cfg.alignment_rounding = Rounding::Down;
  CHECK(sum(cfg, pos, "0") == hex(fp32_format(), "0x1.000004p+0"));  // 1 + 2^-22
  CHECK(sum(cfg, neg, "0") == hex(fp32_format(), "0x1.fffff0p-1"));  // 1 - 2*2^-22
  cfg.alignment_rounding = Rounding::Up;
  CHECK(sum(cfg, pos, "0") == hex(fp32_format(), "0x1.000008p+0"));  // 1 + 2*2^-22
  CHECK(sum(cfg, neg, "0") == hex(fp32_format(), "0x1.fffff8p-1"));  // 1 - 2^-22
  cfg.alignment_rounding = Rounding::NearestEven;             // 1.5 units: tie to even (2)
  CHECK(sum(cfg, pos, "0") == hex(fp32_format(), "0x1.000008p+0"));
  CHECK(sum(cfg, neg, "0") == hex(fp32_format(), "0x1.fffff0p-1"));
  CHECK(sum(cfg, {"1", "0x1.0p-23"}, "0") == hex(fp32_format(), "0x1p+0"));  // 0.5 unit: tie to even (0)
}

TEST_CASE("sticky bit: shifted-out bits leave a trace one position below F", "[adder]") {
  // 1 + 2^-40 with F = 23: the final RU sees the sticky bit and rounds up.
  AdderConfig cfg = base(fp32_format(), fp32_format(), 23);
  cfg.final_rounding = Rounding::Up;
  CHECK(sum(cfg, {"1", "0x1p-40"}, "0") == hex(fp32_format(), "1"));
  cfg.sticky_bit = true;
  CHECK(sum(cfg, {"1", "0x1p-40"}, "0") == hex(fp32_format(), "0x1.000002p+0"));
  AdderTrace tr;
  FixedPointAdder(cfg).dot(vals(fp32_format(), {"1", "1"}), vals(fp32_format(), {"1", "0x1p-40"}), 0, &tr);
  CHECK(tr.lsb_exponent == -24);
  CHECK(tr.register_value == (BigInt(1) << 24) + 1);
  CHECK(tr.alignment_inexact);
}

TEST_CASE("carry bits: the register wraps when the sum outgrows them", "[adder]") {
  // Four products 3.75 * 1 (unnormalised: 1.875 * 2) plus c: each product < 4 * 2^E.
  AdderConfig cfg = base(fp16_format(), fp32_format(), 23);
  const auto b = {"3.75", "3.75", "3.75", "3.75"};
  // E = 1 (1 * 3.75 has exponent 0 + 1); the register holds magnitudes below 2^(1+carry) * 2^E.
  cfg.carry_bits = 3;  // below 32: 15 + 1 = 16 fits
  CHECK(sum(cfg, b, "1") == hex(fp32_format(), "16"));
  cfg.carry_bits = 2;  // below 16: 16 wraps to 0
  CHECK(sum(cfg, b, "1") == hex(fp32_format(), "0"));
  cfg.carry_bits = 1;  // below 8: 15 mod 8 = 7
  CHECK(sum(cfg, b, "0") == hex(fp32_format(), "7"));
  AdderTrace tr;
  FixedPointAdder(cfg).dot(vals(fp16_format(), {"1", "1", "1", "1"}), vals(fp16_format(), b), 0, &tr);
  CHECK(tr.wrapped);
  CHECK(tr.reference_exponent == 1);
  // Negative sums wrap in magnitude (sign kept).
  CHECK(sum(cfg, {"-3.75", "-3.75", "-3.75", "-3.75"}, "0") == hex(fp32_format(), "-7"));
}

TEST_CASE("min_exponent clamps the reference exponent from below", "[adder]") {
  // A lone tiny product 2^-24 * 2^-24 = 2^-48 (subnormal operands at emin: E = -28) with
  // F = 23 keeps bits down to 2^-51; a clamp at -30 changes nothing, one at -20 loses it.
  AdderConfig cfg = base(fp16_format(), fp32_format(), 23);
  const auto a = vals(fp16_format(), {"0x1p-24"});
  const auto b = vals(fp16_format(), {"0x1p-24"});
  CHECK(bits_to_hex(fp32_format(), FixedPointAdder(cfg).dot(a, b, 0)) == hex(fp32_format(), "0x1p-48"));
  cfg.min_exponent = -30;
  CHECK(bits_to_hex(fp32_format(), FixedPointAdder(cfg).dot(a, b, 0)) == hex(fp32_format(), "0x1p-48"));
  cfg.min_exponent = -20;
  CHECK(bits_to_hex(fp32_format(), FixedPointAdder(cfg).dot(a, b, 0)) == hex(fp32_format(), "0"));
}

TEST_CASE("product exponent: unnormalised e_a + e_b versus the product's leading bit", "[adder]") {
  // 1.5 * 1.5 = 2.25 = 1.125 * 2^1; with unnormalised exponents E = 0 and F = 3 keeps
  // down to 2^-3; normalised, E = 1 keeps down to 2^-2. Addend 2^-3 tells them apart.
  AdderConfig cfg = base(fp16_format(), fp32_format(), 3);
  const auto a = vals(fp16_format(), {"1.5", "1"});
  const auto b = vals(fp16_format(), {"1.5", "0.125"});
  CHECK(bits_to_hex(fp32_format(), FixedPointAdder(cfg).dot(a, b, 0)) == hex(fp32_format(), "2.375"));
  cfg.product_exponent = ProductExponent::Normalized;
  CHECK(bits_to_hex(fp32_format(), FixedPointAdder(cfg).dot(a, b, 0)) == hex(fp32_format(), "2.25"));
}

TEST_CASE("late c: the products' sum is normalised, then meets c in a second alignment", "[adder]") {
  // Products 1 and 2^-30 (kept: E = 0, F = 30), c = 2^10: aligned together, the 2^-30
  // and even the 1 fall below 2^(10-F) for F = 8: 1024 + 1 needs F >= 10.
  AdderConfig cfg = base(fp32_format(), fp32_format(), 8);
  cfg.c_placement = CPlacement::Aligned;
  CHECK(sum(cfg, {"1"}, "1024") == hex(fp32_format(), "1024"));
  cfg.fraction_bits = 10;
  CHECK(sum(cfg, {"1", "0x1p-30"}, "1024") == hex(fp32_format(), "1025"));
  // Late: products alone at F = 30 keep 1 + 2^-30; the second stage at F = 30 with c = 1
  // keeps it all: 2 + 2^-30 (RZ to binary32: 2). With c aligned at E = 0 same here, but
  // with c = -1 + 2^-24 the late stage sees the exact products sum 1 + 2^-30.
  cfg.fraction_bits = 30;
  cfg.c_placement = CPlacement::Late;
  CHECK(sum(cfg, {"1", "0x1p-30"}, "-0x1.fffffep-1") == hex(fp32_format(), "0x1.04p-24"));  // 2^-24 + 2^-30
  cfg.c_placement = CPlacement::Aligned;
  CHECK(sum(cfg, {"1", "0x1p-30"}, "-0x1.fffffep-1") == hex(fp32_format(), "0x1.04p-24"));
  // Where they differ: F = 0, products 2^-31 + 2^-31 and c = 2^-30. Late: the products'
  // register (E = -31) holds 2^-30 exactly, which then meets c: 2^-29. Aligned at E = -30,
  // each 2^-31 is half a unit and truncated: 2^-30.
  cfg.fraction_bits = 0;
  cfg.c_placement = CPlacement::Late;
  CHECK(sum(cfg, {"0x1p-31", "0x1p-31"}, "0x1p-30") == hex(fp32_format(), "0x1p-29"));
  cfg.c_placement = CPlacement::Aligned;
  CHECK(sum(cfg, {"0x1p-31", "0x1p-31"}, "0x1p-30") == hex(fp32_format(), "0x1p-30"));
}

TEST_CASE("NaN and infinity rules", "[adder]") {
  AdderConfig cfg = base(fp16_format(), fp32_format(), 23);
  FixedPointAdder adder(cfg);
  auto d = [&](std::initializer_list<const char*> a, std::initializer_list<const char*> b, const char* c) {
    return bits_to_hex(fp32_format(), adder.dot(vals(fp16_format(), a), vals(fp16_format(), b), parse_literal(c, fp32_format())));
  };
  const std::string nan = bits_to_hex(fp32_format(), fp32_format().canonical_nan());
  CHECK(d({"nan", "1"}, {"1", "1"}, "0") == nan);
  CHECK(d({"1"}, {"1"}, "nan") == nan);
  CHECK(d({"inf", "1"}, {"0", "1"}, "0") == nan);        // Inf * 0
  CHECK(d({"inf", "1"}, {"1", "1"}, "-inf") == nan);     // +Inf with -Inf
  CHECK(d({"inf", "inf"}, {"1", "-1"}, "0") == nan);
  CHECK(d({"inf", "1"}, {"-1", "1"}, "1") == hex(fp32_format(), "-inf"));
  CHECK(d({"1"}, {"1"}, "inf") == hex(fp32_format(), "inf"));
  CHECK(d({"65504", "65504"}, {"65504", "65504"}, "inf") == hex(fp32_format(), "inf"));
  // A configured NaN pattern (X25: 0x7fffffff) replaces the canonical one.
  cfg.nan_pattern = 0x7fffffffu;
  CHECK(FixedPointAdder(cfg).dot(vals(fp16_format(), {"nan"}), vals(fp16_format(), {"1"}), 0) == 0x7fffffffu);
  // Overflow of the output: RZ gives the largest finite value, RNE infinity.
  AdderConfig h = base(fp16_format(), fp16_format(), 23);
  const auto big = vals(fp16_format(), {"256", "256"});
  CHECK(bits_to_hex(fp16_format(), FixedPointAdder(h).dot(big, big, 0)) == hex(fp16_format(), "65504"));
  h.final_rounding = Rounding::NearestEven;
  CHECK(bits_to_hex(fp16_format(), FixedPointAdder(h).dot(big, big, 0)) == hex(fp16_format(), "inf"));
  h.overflow = OverflowMode::Saturate;
  CHECK(bits_to_hex(fp16_format(), FixedPointAdder(h).dot(big, big, 0)) == hex(fp16_format(), "65504"));
}

TEST_CASE("signed zeros follow IEEE's sum rule", "[adder]") {
  AdderConfig cfg = base(fp16_format(), fp32_format(), 23);
  FixedPointAdder adder(cfg);
  auto d = [&](std::initializer_list<const char*> a, std::initializer_list<const char*> b, const char* c) {
    return bits_to_hex(fp32_format(), adder.dot(vals(fp16_format(), a), vals(fp16_format(), b), parse_literal(c, fp32_format())));
  };
  CHECK(d({"-0"}, {"1"}, "-0") == "0x80000000");
  CHECK(d({"0"}, {"1"}, "-0") == "0x00000000");
  CHECK(d({"1", "-1"}, {"1", "1"}, "0") == "0x00000000");
  CHECK(d({"1", "-1"}, {"1", "1"}, "-0") == "0x00000000");
  cfg.final_rounding = Rounding::Down;
  CHECK(bits_to_hex(fp32_format(), FixedPointAdder(cfg).dot(vals(fp16_format(), {"1", "-1"}), vals(fp16_format(), {"1", "1"}), 0)) ==
        "0x80000000");
  // Under RD, zeros of one sign keep it (+0 + +0 = +0); mixed zeros give -0.
  CHECK(bits_to_hex(fp32_format(), FixedPointAdder(cfg).dot(vals(fp16_format(), {"0"}), vals(fp16_format(), {"1"}), 0)) == "0x00000000");
  CHECK(bits_to_hex(fp32_format(), FixedPointAdder(cfg).dot(vals(fp16_format(), {"-0"}), vals(fp16_format(), {"1"}), 0)) == "0x80000000");
  CHECK(bits_to_hex(fp32_format(), FixedPointAdder(cfg).dot(vals(fp16_format(), {"-0"}), vals(fp16_format(), {"1"}), 0x80000000u)) ==
        "0x80000000");
}

TEST_CASE("a register that is zero because alignment dropped bits gives the exact-cancellation zero", "[adder]") {
  // 1 - 1 + 2^-28: the exact sum is positive, but with F = 23 the 2^-28 term is truncated
  // and the register is 0. Without a sticky bit nothing records the dropped bits, so the
  // unit's zero-sign logic sees what it sees for an exact cancellation: +0, or -0 under RD
  // (docs/design.md, "Signed zeros"). MPFR's RD result would be +2^-28.
  AdderConfig cfg = base(fp16_format(), fp32_format(), 23);
  const auto a = vals(fp16_format(), {"1", "-1", "0x1p-14"}), b = vals(fp16_format(), {"1", "1", "0x1p-14"});
  auto d = [&](const AdderConfig& c) { return bits_to_hex(fp32_format(), FixedPointAdder(c).dot(a, b, 0)); };
  CHECK(d(cfg) == "0x00000000");
  cfg.final_rounding = Rounding::Down;
  CHECK(d(cfg) == "0x80000000");
  cfg.final_rounding = Rounding::Up;
  CHECK(d(cfg) == "0x00000000");
  // A sticky bit records the dropped bits: the register is one unit of 2^(E-F-1) = 2^-24.
  cfg.final_rounding = Rounding::Down;
  cfg.sticky_bit = true;
  CHECK(d(cfg) == "0x33800000");
  // Wide enough to keep the term: the exact sum.
  cfg.sticky_bit = false;
  cfg.fraction_bits = 30;
  CHECK(d(cfg) == "0x31800000");
}

TEST_CASE("subnormal inputs and outputs: honoured or flushed", "[adder]") {
  AdderConfig cfg = base(fp16_format(), fp16_format(), 23);
  cfg.final_rounding = Rounding::NearestEven;
  const auto sub = vals(fp16_format(), {"0x1p-24"});
  const auto one = vals(fp16_format(), {"1"});
  CHECK(bits_to_hex(fp16_format(), FixedPointAdder(cfg).dot(sub, one, 0)) == "0x0001");
  cfg.subnormal_inputs = false;
  CHECK(bits_to_hex(fp16_format(), FixedPointAdder(cfg).dot(sub, one, 0)) == "0x0000");
  cfg.subnormal_inputs = true;
  cfg.subnormal_outputs = false;
  CHECK(bits_to_hex(fp16_format(), FixedPointAdder(cfg).dot(sub, one, 0)) == "0x0000");
  CHECK(bits_to_hex(fp16_format(), FixedPointAdder(cfg).dot(vals(fp16_format(), {"0x1p-14"}), one, 0)) == "0x0400");
}

TEST_CASE("per-step normalization rounds every partial sum, in the configured order", "[adder]") {
  // Terms c = 1, then 2^-24 four times (binary32 RNE per step: each addition of 2^-24 to 1
  // is a tie that rounds to even, 1) versus largest-first of the same set (same here) and
  // pairwise (2^-24 + 2^-24 = 2^-23 twice, 2^-22, then 1 + 2^-22 exact).
  AdderConfig cfg = base(fp32_format(), fp32_format(), 200);
  cfg.normalization = Normalization::PerStep;
  cfg.final_rounding = Rounding::NearestEven;
  const auto small = {"0x1p-24", "0x1p-24", "0x1p-24", "0x1p-24"};
  cfg.order = AccumulationOrder::Sequential;
  CHECK(sum(cfg, small, "1") == hex(fp32_format(), "1"));
  cfg.order = AccumulationOrder::LargestFirst;
  CHECK(sum(cfg, small, "1") == hex(fp32_format(), "1"));
  cfg.order = AccumulationOrder::Pairwise;
  CHECK(sum(cfg, small, "1") == hex(fp32_format(), "0x1.000004p+0"));
  // Deferred with enough F is exact: 1 + 2^-22.
  cfg.normalization = Normalization::Deferred;
  CHECK(sum(cfg, small, "1") == hex(fp32_format(), "0x1.000004p+0"));
  // Sequential order is c first: 2^-24 + 2^-24 = 2^-23, + 1 exact, + 2^-24 ties to even
  // 1 + 2^-22; largest first, each 2^-24 meets 1 alone and is lost.
  cfg.normalization = Normalization::PerStep;
  cfg.order = AccumulationOrder::Sequential;
  CHECK(sum(cfg, {"0x1p-24", "1", "0x1p-24"}, "0x1p-24") == hex(fp32_format(), "0x1.000004p+0"));
  cfg.order = AccumulationOrder::LargestFirst;
  CHECK(sum(cfg, {"0x1p-24", "1", "0x1p-24"}, "0x1p-24") == hex(fp32_format(), "1"));
}

TEST_CASE("invalid configurations name the field and what is allowed", "[adder][errors]") {
  AdderConfig cfg = base(fp16_format(), fp32_format(), 23);
  cfg.fraction_bits = -1;
  CHECK_THROWS_WITH(FixedPointAdder(cfg), Catch::Contains("fraction_bits") && Catch::Contains("0..100000"));
  cfg = base(fp16_format(), fp32_format(), 23);
  cfg.carry_bits = 65;
  CHECK_THROWS_WITH(FixedPointAdder(cfg), Catch::Contains("carry_bits") && Catch::Contains("0..64"));
  cfg = base(fp16_format(), fp32_format(), 23);
  cfg.alignment_rounding = Rounding::Stochastic;
  CHECK_THROWS_WITH(FixedPointAdder(cfg), Catch::Contains("alignment_rounding") && Catch::Contains("rz|rd|ru|rne"));
  cfg = base(fp16_format(), fp32_format(), 23);
  cfg.nan_pattern = 0x3f800000u;
  CHECK_THROWS_WITH(FixedPointAdder(cfg), Catch::Contains("nan_pattern") && Catch::Contains("not a NaN"));
  cfg = base(fp16_format(), fp32_format(), 23);
  cfg.out_format = Format{};
  CHECK_THROWS_WITH(FixedPointAdder(cfg), Catch::Contains("out_format"));
  FixedPointAdder ok(base(fp16_format(), fp32_format(), 23));
  const std::vector<std::uint64_t> two(2, 0), three(3, 0);
  CHECK_THROWS_WITH(ok.dot(two, three, 0), Catch::Contains("same length"));
  const std::vector<std::uint64_t> wide{0x10000};
  CHECK_THROWS_WITH(ok.dot(wide, wide, 0), Catch::Contains("a[0]") && Catch::Contains("16-bit"));
  CHECK_THROWS_WITH(parse_order("random"), Catch::Contains("largest-first|sequential|pairwise"));
  CHECK_THROWS_WITH(parse_normalization("eager"), Catch::Contains("deferred|per-step"));
}

TEST_CASE("batch evaluation equals element-wise evaluation", "[adder]") {
  AdderConfig cfg = base(fp16_format(), fp32_format(), 23);
  FixedPointAdder adder(cfg);
  const std::size_t n = 64, k = 5;
  std::vector<std::uint64_t> a(n * k), b(n * k), c(n), d(n);
  std::uint64_t s = 12345;
  auto next = [&] { s = s * 6364136223846793005ull + 1442695040888963407ull; return s >> 33; };
  for (auto& x : a) x = next() & 0x7bff;  // finite binary16 patterns, both signs below
  for (auto& x : b) x = (next() & 0x7bff) | ((next() & 1) << 15);
  for (auto& x : c) x = next() & 0x7f7fffffu;
  adder.dot_batch(n, k, a.data(), b.data(), c.data(), d.data());
  for (std::size_t i = 0; i < n; ++i)
    CHECK(d[i] == adder.dot({a.data() + i * k, k}, {b.data() + i * k, k}, c[i]));
}

TEST_CASE("late c with the products' sum first rounded into the output format", "[adder]") {
  // Products 1 + 2^-11, c = 2^-11, binary16 out. Rounded first (RNE): 1 (a tie to even),
  // then 1 + 2^-11 ties to 1 again. Unrounded: 1 + 2^-10 exactly.
  AdderConfig cfg = base(fp16_format(), fp16_format(), 25);
  cfg.final_rounding = Rounding::NearestEven;
  cfg.c_placement = CPlacement::Late;
  const auto a = vals(fp16_format(), {"1", "0x1p-11"});
  const auto b = vals(fp16_format(), {"1", "1"});
  const std::uint64_t c = parse_literal("0x1p-11", fp16_format());
  CHECK(bits_to_hex(fp16_format(), FixedPointAdder(cfg).dot(a, b, c)) == "0x3c01");
  cfg.late_products_rounding = Rounding::NearestEven;
  CHECK(bits_to_hex(fp16_format(), FixedPointAdder(cfg).dot(a, b, c)) == "0x3c00");
  cfg.late_products_rounding = Rounding::Up;  // 1 + 2^-10, then + 2^-11 ties to even: 1 + 2^-9
  CHECK(bits_to_hex(fp16_format(), FixedPointAdder(cfg).dot(a, b, c)) == "0x3c02");
  cfg.c_placement = CPlacement::Aligned;
  CHECK_THROWS_WITH(FixedPointAdder(cfg), Catch::Contains("late_products_rounding") && Catch::Contains("late"));
}

TEST_CASE("overflow inf and zero_sign positive: the NVIDIA corner rules", "[adder]") {
  // Overflow: RZ gives the largest finite value under ieee, Inf under inf (both signs).
  AdderConfig h = base(fp16_format(), fp16_format(), 23);
  const auto big = vals(fp16_format(), {"256", "256"});
  const auto neg = vals(fp16_format(), {"-256", "-256"});
  h.overflow = OverflowMode::Infinity;
  CHECK(bits_to_hex(fp16_format(), FixedPointAdder(h).dot(big, big, 0)) == hex(fp16_format(), "inf"));
  CHECK(bits_to_hex(fp16_format(), FixedPointAdder(h).dot(neg, big, 0)) == hex(fp16_format(), "-inf"));
  // Below the overflow threshold RZ still truncates: 65504 + 16 stays 65504.
  CHECK(bits_to_hex(fp16_format(), FixedPointAdder(h).dot(vals(fp16_format(), {"1"}), vals(fp16_format(), {"16"}),
                                                 parse_literal("65504", fp16_format()))) == hex(fp16_format(), "65504"));
  CHECK(h.describe().find(" overflow=inf") != std::string::npos);
  CHECK(parse_overflow("inf") == OverflowMode::Infinity);
  // Zero sign: every term -0 gives +0 under positive, also under RD.
  AdderConfig z = base(fp16_format(), fp32_format(), 23);
  z.zero_sign = ZeroSign::Positive;
  auto d = [&](const AdderConfig& cfg, std::initializer_list<const char*> a, const char* c) {
    std::vector<const char*> ones(a.size(), "1");
    std::vector<std::uint64_t> b;
    for (const char* o : ones) b.push_back(parse_literal(o, fp16_format()));
    return bits_to_hex(fp32_format(), FixedPointAdder(cfg).dot(vals(fp16_format(), a), b, parse_literal(c, fp32_format())));
  };
  CHECK(d(z, {"-0", "-0"}, "-0") == "0x00000000");
  z.final_rounding = Rounding::Down;
  CHECK(d(z, {"1", "-1"}, "-0") == "0x00000000");
  z.normalization = Normalization::PerStep;
  CHECK(d(z, {"-0", "-0"}, "-0") == "0x00000000");
  // A nonzero sum that rounds to zero keeps its sign: -2^-24 * 2^-24 into binary16 under RZ is -0.
  z = base(fp16_format(), fp16_format(), 23);
  z.zero_sign = ZeroSign::Positive;
  CHECK(bits_to_hex(fp16_format(), FixedPointAdder(z).dot(vals(fp16_format(), {"-0x1p-24"}), vals(fp16_format(), {"0x1p-24"}), 0)) ==
        "0x8000");
  CHECK(parse_zero_sign("positive") == ZeroSign::Positive);
  CHECK_THROWS_WITH(parse_zero_sign("minus"), Catch::Matchers::Contains("allowed"));
}

TEST_CASE("input_fraction_bits truncates the encoding: an IEEE NaN stays NaN or becomes Inf, an all-ones NaN is refused",
          "[adder]") {
  AdderConfig cfg = base(fp32_format(), fp32_format(), 30);
  cfg.input_fraction_bits = 10;  // CDNA3 xf32 (X25): the 13 low fraction bits cleared
  const FixedPointAdder adder(cfg);
  const std::vector<std::uint64_t> one{0x3f800000u};
  // A quiet NaN keeps its top fraction bit; a NaN whose payload sits only in the cleared bits
  // becomes +Inf, as X25's bit-level truncation makes it.
  CHECK(bits_to_hex(fp32_format(), adder.dot(std::vector<std::uint64_t>{0x7fc00000u}, one, 0)) == "0x7fc00000");
  CHECK(bits_to_hex(fp32_format(), adder.dot(std::vector<std::uint64_t>{0x7f800001u}, one, 0)) == "0x7f800000");
  CHECK(bits_to_hex(fp32_format(), adder.dot(std::vector<std::uint64_t>{0x3f801fffu}, one, 0)) == "0x3f800000");
  // OCP e4m3's only NaN is S.1111.111: truncated to 2 fraction bits it would read 448, a
  // silently finite result (a finding of fuzz_adder); the configuration is refused instead.
  AdderConfig e = base(formats::e4m3(), fp32_format(), 30);
  e.input_fraction_bits = 2;
  CHECK_THROWS_WITH(FixedPointAdder(e),
                    "adder field 'input_fraction_bits' a's format e4m3 encodes NaN as all ones, which the truncation would make "
                    "finite; allowed only with formats whose NaN has an all-ones exponent field or that have no NaN");
  e.a_format = formats::e5m2();
  CHECK_THROWS_WITH(FixedPointAdder(e), Catch::StartsWith("adder field 'input_fraction_bits' b's format e4m3 "));
  e.b_format = formats::e5m2();
  CHECK_NOTHROW(FixedPointAdder(e));
}
