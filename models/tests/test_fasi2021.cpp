// fasi2021 (Fasi, Higham, Mikaitis, Pranesh 2021) test vectors through the built-in units:
// section 3.1 on v100 (constants 2^-24), sections 3.2/3.3 on t4/a100 (constants 2^-25).
#include <catch2/catch.hpp>
#include <cmath>

#include "models_test_helpers.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::models::test;

namespace {

const Format& f16 = formats::fp16();
const Format& f32 = formats::fp32();

// d = c + sum a_i b_i through `unit` with fp16 inputs and fp32 c/d.
double run32(const char* unit, std::initializer_list<double> a, std::initializer_list<double> b, double c) {
  const auto pa = bits(f16, a), pb = bits(f16, b);
  return value(f32, builtin_unit(unit).dot(f16, f32, pa, pb, bits(f32, c)));
}

}  // namespace

TEST_CASE("fasi2021 3.1: v100 products are exact and additions truncate (1 + 4*2^-24 = 1)") {
  const double p = std::ldexp(1.0, -12);  // p*p = 2^-24
  CHECK(run32("v100", {p, p, p, p}, {p, p, p, p}, 1.0) == 1.0);
  // Exact products: 2^-12 * (1 + 2^-10) needs 11 bits and is kept.
  CHECK(run32("v100", {1 + std::ldexp(1, -10)}, {1 + std::ldexp(1, -10)}, 0.0) ==
        (1 + std::ldexp(1, -10)) * (1 + std::ldexp(1, -10)));
}

TEST_CASE("fasi2021 3.1.4: v100 has no guard digit (1 + (-1 + 2^-24) = 2^-23)") {
  CHECK(run32("v100", {1, 0, 0, 0}, {1, 0, 0, 0}, -1 + std::ldexp(1, -24)) == std::ldexp(1, -23));
  // Normalization in subtraction: c = -1 + 2^-24 with products 1 and -2^-24.
  const double p = std::ldexp(1.0, -12);
  CHECK(run32("v100", {1, p}, {1, -p}, -1 + std::ldexp(1, -24)) == std::ldexp(1, -23));
}

TEST_CASE("fasi2021 3.1.4: v100 does not normalize partial sums, non-monotonic") {
  const double p = std::ldexp(1.0, -12);
  // c = 1 - 2^-24 plus four 2^-24 products gives 1 + 2^-23, while c = 1 gives 1.
  CHECK(run32("v100", {p, p, p, p}, {p, p, p, p}, 1 - std::ldexp(1, -24)) == 1 + std::ldexp(1, -23));
  CHECK(run32("v100", {p, p, p, p}, {p, p, p, p}, 1.0) == 1.0);
}

TEST_CASE("fasi2021 3.1.4: v100 carry bits (4 + 2^-21 in every order, the 8 vector)") {
  const double c = 1 + std::ldexp(1, -22) + std::ldexp(1, -23);
  const double t = std::ldexp(1, -23);  // an fp16 subnormal
  const std::vector<std::vector<double>> perms = {{1, 1, 1, t}, {1, 1, t, 1}, {1, t, 1, 1}, {t, 1, 1, 1}};
  for (const auto& bcol : perms) {
    const auto pb = std::vector<std::uint64_t>{bits(f16, bcol[0]), bits(f16, bcol[1]), bits(f16, bcol[2]),
                                               bits(f16, bcol[3])};
    const auto pa = bits(f16, {1, 1, 1, 1});
    CHECK(value(f32, builtin_unit("v100").dot(f16, f32, pa, pb, bits(f32, c))) == 4 + std::ldexp(1, -21));
  }
  // c = 1.875, b = 1, 1.5, 1.75, 1.875: the sum 8 needs the third carry bit.
  CHECK(run32("v100", {1, 1, 1, 1}, {1, 1.5, 1.75, 1.875}, 1.875) == 8.0);
}

TEST_CASE("fasi2021 3.1.3: v100 rounds fp32 output toward zero, fp16 output to nearest even") {
  const double c = 1 + 3 * std::ldexp(1, -23);
  // 2.25 + c = 3.25 + 2^-22 + 2^-23 exactly: RZ keeps 3.25 + 2^-22 (RNE would give 3.25 + 2^-21).
  CHECK(run32("v100", {1.5}, {1.5}, c) == 3.25 + std::ldexp(1, -22));
  CHECK(run32("v100", {-1.5}, {1.5}, -c) == -(3.25 + std::ldexp(1, -22)));
  // fp16 output: 1 + 0.75 ulp rounds up to 1 + 2^-10.
  const auto& u = builtin_unit("v100");
  const std::vector<std::uint64_t> a = {bits(f16, 1.5 * std::ldexp(1, -11))}, b = {bits(f16, 1.0)};
  CHECK(u.dot(f16, f16, a, b, bits(f16, 1.0)) == 0x3c01u);
  // -1 + 1.5*2^-11 lies halfway between -(1 - 2^-11) and -(1 - 2^-10): ties to even.
  CHECK(u.dot(f16, f16, a, b, bits(f16, -1.0)) == 0xbbfeu);
}

TEST_CASE("fasi2021 3.1.1: subnormal inputs and outputs are honoured") {
  // fp16 subnormal inputs: 2^-24 * 2^-24 * 2^20 ... products of subnormals are exact.
  const double s = std::ldexp(1, -24);
  CHECK(run32("v100", {s}, {1.0}, 0.0) == s);
  CHECK(run32("v100", {s}, {s}, 0.0) == std::ldexp(1, -48));
  // A100 bf16 (fasi2021 3.3): 2^-126 * 2^-1 = 2^-127, a subnormal binary32 output.
  const auto& bf = formats::bf16();
  const std::vector<std::uint64_t> a = {bits(bf, std::ldexp(1, -126))}, b = {bits(bf, 0.5)};
  CHECK(builtin_unit("a100").dot(bf, f32, a, b, 0) == 0x00400000u);
}

TEST_CASE("fasi2021 3.2/3.3: t4 and a100 keep one more bottom bit (constants 2^-25)") {
  const double p24 = std::ldexp(1.0, -12);                       // p24^2 = 2^-24
  const double q = std::ldexp(1.0, -12), r = std::ldexp(1.0, -13);  // q*r = 2^-25
  for (const char* unit : {"t4", "a100", "ampere", "turing"}) {
    INFO(unit);
    // 1 + 2^-24 + 2^-24 is exact with the extra bit (v100 gives 1).
    CHECK(run32(unit, {p24, p24}, {p24, p24}, 1.0) == 1 + std::ldexp(1, -23));
    // 2^-25 products are truncated against c = 1.
    CHECK(run32(unit, {q, q, q, q}, {r, r, r, r}, 1.0) == 1.0);
    // No guard digit: 1 - (0.5 - 2^-25) = 0.5 + 2^-25 exactly; the unit returns 0.5 + 2^-24.
    CHECK(run32(unit, {1}, {1}, -(0.5 - std::ldexp(1, -25))) == 0.5 + std::ldexp(1, -24));
    // Non-monotonic: eight 2^-25 products lift 1 - 2^-24 to 1 + 2^-23 but leave 1 at 1.
    CHECK(run32(unit, {q, q, q, q, q, q, q, q}, {r, r, r, r, r, r, r, r}, 1 - std::ldexp(1, -24)) ==
          1 + std::ldexp(1, -23));
    CHECK(run32(unit, {q, q, q, q, q, q, q, q}, {r, r, r, r, r, r, r, r}, 1.0) == 1.0);
  }
  CHECK(run32("v100", {p24, p24}, {p24, p24}, 1.0) == 1.0);
  CHECK(run32("v100", {1}, {1}, -(0.5 - std::ldexp(1, -25))) == 0.5 + std::ldexp(1, -23));
}

TEST_CASE("fasi2021 3.3: a100 fp64 is an IEEE chain of fused multiply-adds (std::fma)") {
  auto seed = tcsim::test::seed("a100 fp64 fma chain", 20261122);
  tcsim::test::Rng rng(seed);
  const Format& f64 = formats::fp64();
  for (const char* unit : {"a100", "h100", "b200"}) {
    const Unit& u = builtin_unit(unit);
    for (std::uint64_t t = 0; t < tcsim::test::count(2000); ++t) {
      const std::size_t K = 1 + rng.below(12);
      std::vector<std::uint64_t> a(K), b(K);
      const int e = rng.range(-60, -40);  // named draws, in GCC's order
      double s = std::ldexp(static_cast<double>(rng.next() >> 11), e);
      if (rng.below(2)) s = -s;
      const std::uint64_t c = bits_of_double(s);
      for (std::size_t i = 0; i < K; ++i) {
        const int ex = rng.range(-60, -50);  // named draws, in GCC's order
        const double x_abs = std::ldexp(static_cast<double>(rng.next() >> 11), ex);
        const double x = rng.below(2) ? -x_abs : x_abs;
        const int ey = rng.range(-60, -50);
        const double y = std::ldexp(static_cast<double>(rng.next() >> 11), ey);
        a[i] = bits_of_double(x);
        b[i] = bits_of_double(y);
        s = std::fma(x, y, s);
      }
      const std::uint64_t got = u.dot(f64, f64, a, b, c);
      INFO(unit << " K=" << K << " got " << hex(f64, got) << " want " << hex(f64, bits_of_double(s)));
      REQUIRE(got == bits_of_double(s));
    }
  }
}
