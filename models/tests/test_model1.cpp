// mary2024's Model 1 on binary64 host arithmetic (model1.hpp): the rounding against sim's
// exact rounding step (every Model 1 format, subnormals on and off, narrow and unbounded
// range), products whose Model 1 result is known by hand, and the errors of bad input.
#include <catch2/catch.hpp>

#include <cmath>
#include <ios>
#include <limits>
#include <string>
#include <vector>

#include "tcsim/models/model1.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/rounding.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using tcsim::test::Rng;

namespace {

// `fmt` with its subnormal flag set (sim rounds values below 2^emin of a format without
// subnormals to 0 or 2^emin, as Model 1 does).
Format with_subnormals(const Format& fmt, bool subnormals) {
  Format f = fmt;
  f.subnormals = subnormals;
  f.finalize();
  return f;
}

// sim's exact rounding of x into f, as binary64; +-Inf when it overflows.
double sim_round(double x, const Format& f) {
  RoundingOptions o;
  o.overflow = OverflowMode::Ieee;
  const RoundResult r = round_to_format(decode(formats::fp64(), bits_of_double(x)), f, o);
  if (r.overflow) return std::copysign(std::numeric_limits<double>::infinity(), x);
  return to_double(decode(f, r.bits));
}

// Random binary64 values around f's range: random 53-bit significands, exponents from
// below the subnormals to above the largest finite value; every fourth one a midpoint of
// two neighbours of f (ties).
double random_value(Rng& r, int precision, int emin, int emax) {
  const int e = r.range(emin - precision - 3, emax + 1);
  double m = 1.0 + static_cast<double>(r.next() >> 12) * 0x1p-52;
  if (r.below(4) == 0) m = 1.0 + static_cast<double>(r.below(std::uint64_t{1} << (precision - 1))) * std::ldexp(1.0, 1 - precision) +
                          std::ldexp(1.0, -precision);  // tie at the normal spacing
  return (r.below(2) ? -1.0 : 1.0) * std::ldexp(m, e);
}

bool same(double a, double b) { return a == b && std::signbit(a) == std::signbit(b); }

}  // namespace

TEST_CASE("model1_round equals sim's rounding step in every Model 1 format, narrow and unbounded",
          "[models][model1]") {
  const std::uint64_t seed = tcsim::test::seed("model1_round", 1);
  const std::uint64_t cases = tcsim::test::count(40000);
  for (const Format* base : {&formats::fp32(), &formats::tf32(), &formats::bf16(), &formats::fp16(), &formats::e4m3(),
                             &formats::e5m2(), &formats::e2m3(), &formats::e3m2(), &formats::e2m1()}) {
    for (bool subnormals : {true, false}) {
      const Format f = with_subnormals(*base, subnormals);
      const Model1Format narrow = model1_format(*base, subnormals, true);
      // The unbounded twin: the same precision with binary64's exponent range.
      const Format wide = make_format("wide", base->precision, -1022, 1023, true, true, NanEncoding::Ieee);
      const Model1Format unbounded = model1_format(*base, subnormals, false);
      Rng r(seed ^ static_cast<std::uint64_t>(base->precision * 131 + base->emin * 7 + subnormals));
      std::vector<double> xs = {0.0, -0.0, narrow.fmax, -narrow.fmax, std::ldexp(1.0, f.emin),
                                std::ldexp(1.0, f.emin - 1), std::nextafter(std::ldexp(1.0, f.emin - 1), 1.0),
                                std::ldexp(1.0, f.emin - f.precision), std::ldexp(3.0, f.emin - f.precision - 1)};
      for (std::uint64_t i = 0; i < cases; ++i) xs.push_back(random_value(r, f.precision, f.emin, f.emax));
      for (double x : xs) {
        INFO(base->name << " subnormals " << subnormals << " x = " << std::hexfloat << x << " (bits 0x" << std::hex
                        << bits_of_double(x) << ")");
        CHECK(same(model1_round(x, narrow), sim_round(x, f)));
        const double y = std::ldexp(x, r.range(-900, 900) - f.emin);  // anywhere in binary64's normal range
        if (std::isnormal(y)) CHECK(same(model1_round(y, unbounded), sim_round(y, wide)));
      }
    }
  }
}

TEST_CASE("model1_gemm: recursive summation in the accumulation format, rounded to nearest even",
          "[models][model1]") {
  // 1 + 2^-11 is a tie in binary16 and goes to 1, twice: 1, not the exact 1 + 2^-10.
  const std::vector<double> A = {1, 0x1p-11, 0x1p-11}, B = {1, 1, 1};
  const auto D = model1_gemm(formats::fp16(), formats::fp16(), 1, 1, 3, A, B, {});
  CHECK(D[0] == 1.0);
  // In binary32 the sum is exact.
  CHECK(model1_gemm(formats::fp16(), formats::fp32(), 1, 1, 3, A, B, {})[0] == 1 + 0x1p-10);
}

TEST_CASE("model1_gemm: an input underflow without subnormals, and its unbounded twin", "[models][model1]") {
  // theta = min(448, sqrt(F_max / 2)) = 448 for E4M3 into binary32, so Lambda = 256 and
  // 2^-15 becomes 2^-7: half of E4M3's 2^emin = 2^-6, a tie that goes to 0 without
  // subnormals; a subnormal (exact) with them; exact with an unbounded range.
  const std::vector<double> A = {1, 0x1p-15}, B = {1, 1};
  Model1Options o;
  o.subnormals = false;
  CHECK(model1_gemm(formats::e4m3(), formats::fp32(), 1, 1, 2, A, B, o)[0] == 1.0);
  o.subnormals = true;
  CHECK(model1_gemm(formats::e4m3(), formats::fp32(), 1, 1, 2, A, B, o)[0] == 1 + 0x1p-15);
  o.subnormals = false;
  o.bounded = false;
  CHECK(model1_gemm(formats::e4m3(), formats::fp32(), 1, 1, 2, A, B, o)[0] == 1 + 0x1p-15);
}

TEST_CASE("model1_gemm: scaled words recover what one E4M3 word loses (mary2024 eq. (4.29)-(4.31))",
          "[models][model1]") {
  // Lambda (1 + 2^-5) = 264: word 0 is 256, word 1 = fl(8 / 2^-4) = 128; B = 1 scales to 256
  // with word 1 = 0. D = 256 * 256 + 2^-4 (128 * 256) = 67584 = 2^16 (1 + 2^-5).
  const std::vector<double> A = {1 + 0x1p-5}, B = {1};
  const auto D = model1_gemm_words(formats::e4m3(), formats::fp32(), 1, 1, 1, A, B, 3, {});
  REQUIRE(D.size() == 3);
  CHECK(D[0][0] == 1.0);
  CHECK(D[1][0] == 1 + 0x1p-5);
  CHECK(D[2][0] == 1 + 0x1p-5);
}

TEST_CASE("model1_gemm: the same bits for any thread count, and model1_gemm is model1_gemm_words",
          "[models][model1]") {
  const std::uint64_t seed = tcsim::test::seed("model1_gemm threads", 7);
  Rng r(seed);
  const std::size_t m = 5, n = 4, k = 300;
  std::vector<double> A(m * k), B(k * n);
  for (double& v : A) {  // named draws: operand order is unspecified
    const double sign = r.below(2) ? -1 : 1;
    v = sign * std::pow(10.0, static_cast<double>(r.next() >> 11) * 0x1p-53 * 20 - 10);
  }
  for (double& v : B) {  // named draws: operand order is unspecified
    const double sign = r.below(2) ? -1 : 1;
    v = sign * std::pow(10.0, static_cast<double>(r.next() >> 11) * 0x1p-53 * 20 - 10);
  }
  Model1Options o;
  o.threads = 1;
  const auto one = model1_gemm_words(formats::e5m2(), formats::fp16(), m, n, k, A, B, 3, o);
  o.threads = 2;
  const auto two = model1_gemm_words(formats::e5m2(), formats::fp16(), m, n, k, A, B, 3, o);
  for (std::size_t p = 0; p < 3; ++p)
    for (std::size_t i = 0; i < m * n; ++i) CHECK(same(one[p][i], two[p][i]));
  o.words = 2;
  const auto D = model1_gemm(formats::e5m2(), formats::fp16(), m, n, k, A, B, o);
  for (std::size_t i = 0; i < m * n; ++i) CHECK(same(D[i], one[1][i]));
}

TEST_CASE("model1_gemm: bad input names the field", "[models][model1]") {
  const std::vector<double> A = {1, 2}, B = {1, 2};
  Model1Options o;
  o.words = 4;
  CHECK_THROWS_WITH(model1_gemm(formats::e4m3(), formats::fp32(), 1, 1, 2, A, B, o),
                    "words: Model 1 takes 1, 2 or 3 words, got 4");
  CHECK_THROWS_WITH(model1_gemm(formats::fp64(), formats::fp32(), 1, 1, 2, A, B, {}),
                    Catch::Contains("in: Model 1 takes signed formats of 2 to 24 significant bits"));
  CHECK_THROWS_WITH(model1_gemm(formats::e4m3(), formats::fp64(), 1, 1, 2, A, B, {}),
                    Catch::Contains("accumulation: Model 1 takes"));
  CHECK_THROWS_WITH(model1_gemm(formats::e4m3(), formats::fp32(), 1, 1, 3, A, B, {}),
                    "A: expected m x k = 3 entries, got 2");
  const std::vector<double> bad = {1, std::numeric_limits<double>::quiet_NaN()};
  CHECK_THROWS_WITH(model1_gemm(formats::e4m3(), formats::fp32(), 1, 1, 2, A, bad, {}),
                    "B: Model 1 takes finite entries only");
}
