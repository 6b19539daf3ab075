// fasi2021 (Fasi, Higham, Mikaitis, Pranesh 2021) section 3.1 test vectors through the
// adder configured as V100 (F = 23, 3 carry bits, truncation, deferred normalization,
// RZ to binary32, RNE to binary16), and with F = 24 and the constants of section 3.2
// (2^-24 -> 2^-25) as T4/A100.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tcsim/sim/adder.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/literal.hpp"

using namespace tcsim;

namespace {

AdderConfig volta_like(const Format& out, int fraction_bits = 23) {
  AdderConfig c;
  c.a_format = formats::fp16();
  c.b_format = formats::fp16();
  c.c_format = out;
  c.out_format = out;
  c.fraction_bits = fraction_bits;
  c.carry_bits = 3;
  c.alignment_rounding = Rounding::TowardZero;
  c.normalization = Normalization::Deferred;
  c.final_rounding = out == formats::fp16() ? Rounding::NearestEven : Rounding::TowardZero;
  return c;
}

std::vector<std::uint64_t> h(std::initializer_list<const char*> values) {
  std::vector<std::uint64_t> r;
  for (const char* v : values) r.push_back(parse_literal(v, formats::fp16()));
  return r;
}

// d = c + sum a_i b_i with exact expectations given as literals of the output format.
std::string run(const AdderConfig& cfg, std::initializer_list<const char*> a, std::initializer_list<const char*> b,
                const char* c) {
  FixedPointAdder adder(cfg);
  const auto av = h(a), bv = h(b);
  return bits_to_hex(cfg.out_format, adder.dot(av, bv, parse_literal(c, cfg.out_format)));
}

std::string lit(const Format& f, const char* v) { return bits_to_hex(f, parse_literal(v, f)); }

const Format& f32() { return formats::fp32(); }
const Format& f16() { return formats::fp16(); }

}  // namespace

TEST_CASE("fasi2021 3.1.1 subnormal inputs and outputs (V100 adder)", "[adder][fasi2021]") {
  // a11 = 2^-24 (binary16 subnormal), b11 = 4: 2^-22 in both output formats.
  CHECK(run(volta_like(f32()), {"0x1p-24"}, {"4"}, "0") == lit(f32(), "0x1p-22"));
  CHECK(run(volta_like(f16()), {"0x1p-24"}, {"4"}, "0") == lit(f16(), "0x1p-22"));
  // c = 2^-149 (binary32 subnormal), no products: d = c.
  CHECK(run(volta_like(f32()), {"0"}, {"0"}, "0x1p-149") == lit(f32(), "0x1p-149"));
  // 2^-14 * 2^-1 = 2^-15: a binary16 subnormal produced from normal inputs.
  CHECK(run(volta_like(f16()), {"0x1p-14"}, {"0.5"}, "0") == lit(f16(), "0x1p-15"));
  CHECK(run(volta_like(f16()), {"0x1p-14"}, {"1"}, "-0x1p-15") == lit(f16(), "0x1p-15"));
  // 1*(2^-23+2^-24) + 1*2: the subnormal addend is truncated away (RZ), d = 2.
  CHECK(run(volta_like(f32()), {"1", "1"}, {"0x1.8p-23", "2"}, "0") == lit(f32(), "2"));
}

TEST_CASE("fasi2021 3.1.2 exact products and rounding errors (V100 adder)", "[adder][fasi2021]") {
  const char* x = "0x1.ffcp-1";  // 1 - 2^-11
  // Four products (1-2^-11)^2 = 1 - 2^-10 + 2^-22 are exact: d = 4(1 - 2^-10 + 2^-22).
  CHECK(run(volta_like(f32()), {x, x, x, x}, {x, x, x, x}, "0") == lit(f32(), "0x1.ff8008p+1"));
  // (1-2^-11)^2 + (1-2^-11) 2^-11 = 1 - 2^-10 + 2^-11, exact in binary16 output too.
  CHECK(run(volta_like(f16()), {x, x}, {x, "0x1p-11"}, "0") == lit(f16(), "0x1.ffcp-1"));
  // One addend 1, the others 2^-24, in all five positions: always 1.
  for (int pos = 0; pos < 5; ++pos) {
    std::vector<const char*> v(5, "0x1p-24");
    v[pos] = "1";
    FixedPointAdder adder(volta_like(f32()));
    const auto ones = h({"1", "1", "1", "1"});
    const auto bv = h({v[0], v[1], v[2], v[3]});
    CHECK(bits_to_hex(f32(), adder.dot(ones, bv, parse_literal(v[4], f32()))) == lit(f32(), "1"));
  }
}

TEST_CASE("fasi2021 3.1.3 rounding modes (V100 adder)", "[adder][fasi2021]") {
  // 2 + 3/4 2^-22: RZ/RD give 2, RN/RU would give 2 + 2^-22.
  CHECK(run(volta_like(f32()), {"1", "1"}, {"2", "0x1.8p-23"}, "0") == lit(f32(), "2"));
  // Negative side: -2, so RZ rather than RD.
  CHECK(run(volta_like(f32()), {"1", "1"}, {"-2", "-0x1.8p-23"}, "0") == lit(f32(), "-2"));
  // Binary16 output: 2^-25 + 2^-26 rounds to 2^-24 (RN), not 0 (RZ).
  CHECK(run(volta_like(f16()), {"0x1p-24", "0x1p-24"}, {"0.5", "0.25"}, "0") == lit(f16(), "0x1p-24"));
}

TEST_CASE("fasi2021 3.1.4 accumulator features (V100 adder)", "[adder][fasi2021]") {
  const auto ones = {"1", "1", "1", "1"};
  // No guard digit: 1 + (-1 + 2^-24) = 2^-23.
  CHECK(run(volta_like(f32()), ones, {"1", "0", "0", "0"}, "-0x1.fffffep-1") == lit(f32(), "0x1p-23"));
  // Normalization in addition: c = 1 - 2^-24 and four 2^-24 give 1 + 2^-23.
  CHECK(run(volta_like(f32()), ones, {"0x1p-24", "0x1p-24", "0x1p-24", "0x1p-24"}, "0x1.fffffep-1") ==
        lit(f32(), "0x1.000002p+0"));
  // Normalization in subtraction: c = -1 + 2^-24, addends 1 and -2^-24: 2^-23.
  CHECK(run(volta_like(f32()), ones, {"1", "-0x1p-24", "0", "0"}, "-0x1.fffffep-1") == lit(f32(), "0x1p-23"));
  // Two carry bits: c = 1 + 2^-22 + 2^-23 plus a permutation of 1, 1, 1, 2^-23: 4 + 2^-21.
  const char* perms[4][4] = {{"1", "1", "1", "0x1p-23"}, {"1", "1", "0x1p-23", "1"},
                             {"1", "0x1p-23", "1", "1"}, {"0x1p-23", "1", "1", "1"}};
  for (auto& p : perms) {
    FixedPointAdder adder(volta_like(f32()));
    const auto bv = h({p[0], p[1], p[2], p[3]});
    CHECK(bits_to_hex(f32(), adder.dot(h(ones), bv, parse_literal("0x1.000006p+0", f32()))) ==
          lit(f32(), "0x1.000002p+2"));
  }
  // Third carry bit: 1.875 + 1 + 1.5 + 1.75 + 1.875 = 8 with 3 carry bits ...
  CHECK(run(volta_like(f32()), ones, {"1", "1.5", "1.75", "1.875"}, "1.875") == lit(f32(), "8"));
  // ... and 0 in a register with only 2 carry bits (the sum wraps).
  AdderConfig two = volta_like(f32());
  two.carry_bits = 2;
  CHECK(run(two, ones, {"1", "1.5", "1.75", "1.875"}, "1.875") == lit(f32(), "0"));
  // Final rounding to binary32 is RZ: replacing 2^-23 by 1, 5 + 2^-22 + 2^-23 (0.75 ulp) gives 5.
  CHECK(run(volta_like(f32()), ones, {"1", "1", "1", "1"}, "0x1.000006p+0") == lit(f32(), "5"));
}

TEST_CASE("fasi2021 3.1.4 non-monotonicity (V100 adder)", "[adder][fasi2021]") {
  const auto ones = {"1", "1", "1", "1"};
  const auto small = {"0x1p-24", "0x1p-24", "0x1p-24", "0x1p-24"};
  CHECK(run(volta_like(f32()), ones, small, "0x1.fffffep-1") == lit(f32(), "0x1.000002p+0"));
  CHECK(run(volta_like(f32()), ones, small, "1") == lit(f32(), "1"));
}

TEST_CASE("fasi2021 3.2/3.3 constants for one more alignment bit (T4/A100 adder, F = 24)", "[adder][fasi2021]") {
  const auto ones = {"1", "1", "1", "1"};
  // With F = 24, 1 + 2^-24 + 2^-24 is exact: the V100 vectors change behaviour ...
  CHECK(run(volta_like(f32(), 24), ones, {"0x1p-24", "0x1p-24", "0", "0"}, "1") == lit(f32(), "0x1.000002p+0"));
  CHECK(run(volta_like(f32(), 23), ones, {"0x1p-24", "0x1p-24", "0", "0"}, "1") == lit(f32(), "1"));
  // ... and with 2^-25 in place of 2^-24 they reproduce the V100 conclusions. 2^-25 is
  // below binary16's range, so it is formed as the product 2^-12 * 2^-13 (and 1 as 2^-12 * 2^12).
  for (int pos = 0; pos < 5; ++pos) {
    std::vector<const char*> bv(4, "0x1p-13");
    const char* c = "0x1p-25";
    if (pos < 4) bv[pos] = "0x1p+12";
    else c = "1";
    FixedPointAdder adder(volta_like(f32(), 24));
    const auto av = h({"0x1p-12", "0x1p-12", "0x1p-12", "0x1p-12"});
    const auto bb = h({bv[0], bv[1], bv[2], bv[3]});
    CHECK(bits_to_hex(f32(), adder.dot(av, bb, parse_literal(c, f32()))) == lit(f32(), "1"));
    // The same vector on F = 23 also gives 1; on an exact adder it would not.
    CHECK(bits_to_hex(f32(), FixedPointAdder(volta_like(f32(), 23)).dot(av, bb, parse_literal(c, f32()))) ==
          lit(f32(), "1"));
  }
  // No guard digit with the next bit: 2 + (-2 + 2^-23): F = 23 loses the 2^-23 bit below
  // 2^-22 and returns 2^-22; F = 24 returns the exact 2^-23.
  CHECK(run(volta_like(f32(), 23), ones, {"2", "0", "0", "0"}, "-0x1.fffffep+0") == lit(f32(), "0x1p-22"));
  CHECK(run(volta_like(f32(), 24), ones, {"2", "0", "0", "0"}, "-0x1.fffffep+0") == lit(f32(), "0x1p-23"));
  // Non-monotonicity with F = 24 needs the k = 8 of T4/A100 (m16n8k8): eight 2^-25 addends
  // survive against c = 1 - 2^-24 (1 + 2^-23 after RZ) and vanish against c = 1.
  FixedPointAdder t4(volta_like(f32(), 24));
  const std::vector<std::uint64_t> a8(8, parse_literal("0x1p-12", f16())), b8(8, parse_literal("0x1p-13", f16()));
  CHECK(bits_to_hex(f32(), t4.dot(a8, b8, parse_literal("0x1.fffffep-1", f32()))) == lit(f32(), "0x1.000002p+0"));
  CHECK(bits_to_hex(f32(), t4.dot(a8, b8, parse_literal("1", f32()))) == lit(f32(), "1"));
}
