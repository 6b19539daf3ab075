// Literal parsing: exact cases, decimal rounding against MPFR (random strings and exact
// decimal midpoints), hex-floats against decode, malformed inputs naming the field.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>
#include <string>

#include "error_of.hpp"
#include "formats_mpfr.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/literal.hpp"
#include "test_support.hpp"

using namespace tcsim;
using tcsim::test::error_of;

namespace {

// Exact decimal text of a finite dyadic value: M 2^-k = M 5^k / 10^k.
std::string decimal_text(const ExactValue& v) {
  BigInt m = v.significand;
  std::int64_t k = -v.exponent;
  if (k < 0) {
    m <<= static_cast<unsigned>(-k);
    k = 0;
  }
  m *= boost::multiprecision::pow(BigInt(5), static_cast<unsigned>(k));
  std::string digits = m.str();
  if (static_cast<std::int64_t>(digits.size()) <= k) digits.insert(0, static_cast<std::size_t>(k) - digits.size() + 1, '0');
  digits.insert(digits.size() - static_cast<std::size_t>(k), ".");
  return (v.negative ? "-" : "") + digits;
}

}  // namespace

TEST_CASE("formats: literal exact cases", "[formats][literal]") {
  const Format& h = formats::fp16();
  struct Row {
    const char* text;
    const Format& f;
    Rounding mode;
    std::uint64_t want;
  };
  const Row rows[] = {
      {"1.5", h, Rounding::NearestEven, 0x3e00},
      {"-2.5e-3", h, Rounding::NearestEven, 0x991f},
      {"1e400", formats::fp64(), Rounding::NearestEven, 0x7ff0000000000000},
      {"1e400", formats::fp64(), Rounding::TowardZero, 0x7fefffffffffffff},
      {"0x1p-24", h, Rounding::NearestEven, 0x0001},
      {"-0x1.8p+3", h, Rounding::NearestEven, 0xca00},
      {"0X.8P1", h, Rounding::NearestEven, 0x3c00},
      {"0x1.ffc", h, Rounding::NearestEven, 0x3fff},  // no exponent: p0
      {"  +65504 ", h, Rounding::NearestEven, 0x7bff},
      {"65520", h, Rounding::NearestEven, 0x7c00},
      {"65519.999", h, Rounding::NearestEven, 0x7bff},
      {"inf", h, Rounding::NearestEven, 0x7c00},
      {"-Infinity", h, Rounding::NearestEven, 0xfc00},
      {"NaN", h, Rounding::NearestEven, 0x7e00},
      {"-nan", formats::e4m3(), Rounding::NearestEven, 0x7f},
      {"inf", formats::e4m3(), Rounding::NearestEven, 0x7f},
      {"-0", h, Rounding::NearestEven, 0x8000},
      {"-0.0e99", formats::e4m3fnuz(), Rounding::NearestEven, 0x00},
      {"bits:0x3c00", h, Rounding::NearestEven, 0x3c00},
      {"BITS: 0b101", formats::e2m1(), Rounding::NearestEven, 0x5},
      {"bits:255", formats::ue8m0(), Rounding::NearestEven, 0xff},
      {"0.1", formats::fp32(), Rounding::NearestEven, 0x3dcccccd},
      {"0.1", formats::fp32(), Rounding::TowardZero, 0x3dcccccc},
      {"0.1", formats::fp64(), Rounding::NearestEven, 0x3fb999999999999a},
      {"0.1000000000000000055511151231257827021181583404541015625", formats::fp64(), Rounding::Up,
       0x3fb999999999999a},  // the exact value of fp64 0.1
      {"2.2250738585072011e-308", formats::fp64(), Rounding::NearestEven, 0x000fffffffffffff},
      {"4.9406564584124654e-324", formats::fp64(), Rounding::NearestEven, 0x1},
      {"2.4703282292062327e-324", formats::fp64(), Rounding::NearestEven, 0x0},  // below half the minimum
      {"2.4703282292062328e-324", formats::fp64(), Rounding::NearestEven, 0x1},  // above half
      {"1e-400", formats::fp64(), Rounding::Up, 0x1},
      {"-1e-999999999999", formats::fp64(), Rounding::NearestEven, 0x8000000000000000},
      {"1e999999999999999999999", formats::fp64(), Rounding::NearestEven, 0x7ff0000000000000},
      {"0x1p-99999999999999", h, Rounding::Up, 0x0001},
      {"0x1p+99999999999999", h, Rounding::TowardZero, 0x7bff},
      {"464", formats::e4m3(), Rounding::NearestEven, 0x7e},
      {"464.0000001", formats::e4m3(), Rounding::NearestEven, 0x7f},
      {"5", formats::e2m1(), Rounding::NearestEven, 0x6},
      {"1e9", formats::e2m1(), Rounding::NearestEven, 0x7},
      {"3", formats::ue8m0(), Rounding::NearestEven, 0x81},
      {"0.0000000000000000000000000000000000000000000000000000001", formats::ue8m0(), Rounding::NearestEven,
       0x00},
  };
  for (const Row& r : rows) {
    INFO("literal '" << r.text << "' -> " << r.f.name << " " << to_string(r.mode));
    CHECK(bits_to_hex(r.f, parse_literal(r.text, r.f, r.mode)) == bits_to_hex(r.f, r.want));
  }
  CHECK(parse_literal_list("1, 2.5 ,-0x1p-3", h) == std::vector<std::uint64_t>{0x3c00, 0x4100, 0xb000});
  CHECK(parse_literal_list("0.1", formats::fp32(), Rounding::TowardZero) == std::vector<std::uint64_t>{0x3dcccccc});

  CHECK(literal_is_exact("0.5", formats::fp32()));
  CHECK(!literal_is_exact("0.1", formats::fp32()));
  CHECK(literal_is_exact("0.1000000000000000055511151231257827021181583404541015625", formats::fp64()));
  CHECK(!literal_is_exact("1e400", formats::fp64()));
  CHECK(!literal_is_exact("448.5", formats::e4m3()));
  CHECK(literal_is_exact("-448", formats::e4m3()));
  CHECK(!literal_is_exact("480", formats::e4m3()));
  CHECK(literal_is_exact("nan", h));
  CHECK(!literal_is_exact("nan", formats::e2m1()));
  CHECK(!literal_is_exact("inf", formats::e4m3()));
  CHECK(literal_is_exact("inf", formats::e5m2()));
  CHECK(!literal_is_exact("-1", formats::ue4m3()));
  CHECK(literal_is_exact("bits:0x7f", formats::e4m3()));
  CHECK(!literal_is_exact("bits:0x100", formats::e4m3()));
  CHECK(!literal_is_exact("1.2.3", h));
  CHECK(!literal_is_exact("0", formats::ue8m0()));
}

TEST_CASE("formats: malformed literals name the field and quote the text", "[formats][literal]") {
  const Format& h = formats::fp16();
  const std::string tail = "' is not a number (decimal, C99 hex-float such as 0x1p-24, inf or nan)";
  for (const char* bad : {"1.2.3", "", " ", "abc", "1e", "1e+", "e5", ".", "-", "--1", "0x", "0x.p1", "0x1p",
                          "0x1e5x", "1,5", "1.5f", "infinit", "nan(1)", "0x1.8q3", "1e5.0", "+-1"}) {
    INFO("text '" << bad << "'");
    CHECK(error_of([&] { parse_literal(bad, h); }) == "value '" + std::string(bad) + tail);
  }
  CHECK(error_of([&] { parse_literal("1.2.3", h, Rounding::NearestEven, "c"); }) == "c '1.2.3" + tail);
  CHECK(error_of([&] { parse_literal("bits:0xzz", h); }) ==
        "value 'bits:0xzz' is not a bit pattern (bits:0x<hex>, bits:0b<binary> or bits:<decimal>)");
  CHECK(error_of([&] { parse_literal("bits:", h); }).find("value 'bits:' is not a bit pattern") == 0);
  CHECK(error_of([&] { parse_literal("bits:0x10000", h, Rounding::NearestEven, "a"); }) ==
        "a 'bits:0x10000' has bits set above the 16-bit width of format 'fp16'");
  CHECK(error_of([&] { parse_literal("bits:0x1ffffffffffffffff", formats::fp64()); })
            .find("is not a bit pattern") != std::string::npos);
  CHECK(error_of([&] { parse_literal_list("1, x, 3", h); }) == "values[1] ' x" + tail);
  CHECK(error_of([&] { parse_literal_list("1,,3", h, Rounding::NearestEven, "a_values"); }) == "a_values[1] '" + tail);
}

TEST_CASE("formats: hex-float literals of every pattern parse back exactly", "[formats][literal]") {
  for (const Format* f : {&formats::fp16(), &formats::bf16(), &formats::e4m3(), &formats::e5m2fnuz(),
                          &formats::e3m2(), &formats::ue8m0()}) {
    std::uint64_t failures = 0;
    for (std::uint64_t b = 0; b < (std::uint64_t{1} << f->width); ++b) {
      const ExactValue v = decode(*f, b);
      const std::uint64_t want = v.is_nan() ? f->canonical_nan() : b;
      const std::string text = v.to_hex();
      const std::uint64_t got = parse_literal(text, *f, Rounding::TowardZero);
      if ((got != want || !literal_is_exact(text, *f)) && ++failures <= 10)
        FAIL_CHECK(f->name << " " << bits_to_hex(*f, b) << " '" << text << "' -> " << bits_to_hex(*f, got));
      // The exact decimal expansion parses back too.
      if (v.is_finite() && parse_literal(decimal_text(v), *f, Rounding::Up) != want && ++failures <= 10)
        FAIL_CHECK(f->name << " " << bits_to_hex(*f, b) << " decimal '" << decimal_text(v) << "'");
    }
    CHECK(failures == 0);
  }
}

TEST_CASE("formats: decimal literals round like MPFR", "[formats][literal][mpfr][random]") {
  test::Rng rng(test::seed("formats decimal literals vs MPFR", 0xdec1));
  const std::vector<Format> targets = {formats::fp64(), formats::fp32(), formats::fp16(), formats::bf16(),
                                       formats::e4m3(), formats::e5m2(), formats::e4m3fnuz(), formats::e2m1(),
                                       make_format("p5_nosub", 5, -3, 4, false, true, NanEncoding::Ieee)};
  const Rounding modes[] = {Rounding::NearestEven, Rounding::TowardZero, Rounding::Up, Rounding::Down};
  const std::uint64_t n = test::count(20000);
  test::MpfrRounder mpfr;
  std::uint64_t failures = 0, cases = 0;
  auto check = [&](const Format& f, const std::string& text, Rounding m) {
    ++cases;
    const std::uint64_t got = parse_literal(text, f, m);
    const test::RefResult want = mpfr.round(f, m, OverflowMode::FormatDefault, [&](mpfr_t y, mpfr_rnd_t r) {
      return mpfr_strtofr(y, text.c_str(), nullptr, 10, r);
    });
    if (want.bits != got && ++failures <= 20)
      FAIL_CHECK("'" << text << "' -> " << f.name << " " << to_string(m) << ": got " << bits_to_hex(f, got)
                     << " want " << bits_to_hex(f, want.bits));
  };
  for (const Format& f : targets) {
    for (std::uint64_t i = 0; i < n; ++i) {
      // Random digits at a decimal exponent that lands near the format's range edges.
      const int ndigits = rng.range(1, 40);
      std::string digits(1, static_cast<char>('1' + rng.below(9)));
      for (int d = 1; d < ndigits; ++d) digits += static_cast<char>('0' + rng.below(10));
      const int lead2 = rng.below(3) == 0 ? rng.range(f.emin - f.precision - 3, f.emin + 1)
                                          : rng.range(f.emin - f.precision - 5, f.emax + 3);
      const int e10 = static_cast<int>(std::floor(lead2 * 0.30103)) + rng.range(-1, 1);
      std::string text = (rng.below(2) ? "-" : "") + digits.substr(0, 1) + "." + digits.substr(1) + "e" +
                         std::to_string(e10);
      check(f, text, modes[i % 4]);
    }
    // Exact decimal midpoints between neighbours (ties) and a hair either side.
    for (std::uint64_t i = 0; i < n / 4; ++i) {
      const std::uint64_t b = (rng.next() & f.width_mask()) & ~f.sign_mask();
      const ExactValue v = decode(f, b);
      if (!v.is_finite() && !v.is_zero()) continue;
      const ExactValue next = decode(f, round_to_format(exact_add(v, ExactValue::finite(false, 1, f.emin - 200)), f,
                                                        RoundingOptions{Rounding::Up}).bits);
      if (!next.is_finite()) continue;
      const ExactValue sum = exact_add(v, next);
      const ExactValue mid = ExactValue::finite(false, sum.significand, sum.exponent - 1);
      const std::string t = decimal_text(mid);
      for (const std::string& s : {t, t + "000000000000000000001", t.substr(0, t.size() - 1)})
        for (Rounding m : modes) check(f, s, m);
    }
  }
  std::printf("[formats] decimal literal cases: %llu\n", static_cast<unsigned long long>(cases));
  CHECK(failures == 0);
}

// Found by fuzz_literal (sim/fuzz/regressions/fuzz_literal/): a hex-float with many digits
// and an exponent near -2^59 was cut at a shift truncated to 32 bits, so that garbage bits
// survived (0x.4444...p-700000000000000004 read as 0.25 in e5m2) and UBSan saw a negative
// shift. Values that far below the format's range round like any tiny value.
TEST_CASE("formats: literals with huge negative exponents round to zero or the smallest subnormal",
          "[formats][literal]") {
  const std::string lit = "0x.4444444444b04444444444444444444441p-700000000000000004";
  CHECK(parse_literal(lit, formats::e5m2(), Rounding::Up) == 0x01u);
  CHECK(parse_literal(lit, formats::e5m2(), Rounding::NearestEven) == 0x00u);
  CHECK(parse_literal("-" + lit, formats::e5m2(), Rounding::Down) == 0x81u);
  CHECK(parse_literal(lit, formats::fp64(), Rounding::Up) == 0x1u);
  CHECK(parse_literal(lit, formats::fp32(), Rounding::TowardZero) == 0x0u);
  CHECK(parse_literal("0x1.4444444444b04444444444444444444441p+1", formats::fp64(), Rounding::Up) == 0x4004444444444b05u);
}
