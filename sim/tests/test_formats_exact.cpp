// ExactValue helpers: construction, normalization, hex text, exact sum/product, comparison.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "tcsim/sim/exact.hpp"

using namespace tcsim;

namespace {
ExactValue num(long long sig, std::int64_t exp = 0) { return ExactValue::finite(false, sig, exp); }
}  // namespace

TEST_CASE("formats: ExactValue construction and text", "[formats][exact]") {
  CHECK(num(0).is_zero());
  const ExactValue n = num(-6, 3);  // a negative significand flips the sign
  CHECK(n.negative);
  CHECK(n.significand == 6);
  CHECK(n.lead_exponent() == 5);
  const ExactValue k = num(48, -7).normalized();
  CHECK(k.significand == 3);
  CHECK(k.exponent == -3);
  CHECK(num(3, -4).to_hex() == "0x1.8p-3");
  CHECK(num(-3, -4).to_hex() == "-0x1.8p-3");
  CHECK(num(1).to_hex() == "0x1p+0");
  CHECK(num(0x1fffff, 0).to_hex() == "0x1.fffffp+20");
  CHECK(num(0x123, 10).to_hex() == "0x1.23p+18");
  CHECK(num(5, 0).to_hex() == "0x1.4p+2");
  CHECK(ExactValue::finite(false, (BigInt(1) << 200) + 1, -200).to_hex() ==
        "0x1." + std::string(49, '0') + "1p+0");  // 200 fraction bits = 50 hex digits
  CHECK(ExactValue::zero(true).to_hex() == "-0x0p+0");
  CHECK(ExactValue::infinity(true).to_hex() == "-inf");
  CHECK(ExactValue::nan().to_hex() == "nan");
  CHECK(msb(BigInt(1) << 100) == 100);
  CHECK_THROWS_AS(msb(BigInt(0)), std::invalid_argument);
  CHECK_THROWS_AS(ExactValue::zero().lead_exponent(), std::invalid_argument);
}

TEST_CASE("formats: ExactValue equality comparison sum and product", "[formats][exact]") {
  CHECK(num(3, 1).equals(num(12, -1)));
  CHECK(!num(3, 1).equals(num(-3, 1)));
  CHECK(ExactValue::zero(true).equals(ExactValue::zero(false)));
  CHECK(!ExactValue::nan().equals(ExactValue::nan()));
  CHECK(ExactValue::infinity(true).equals(ExactValue::infinity(true)));
  CHECK(!ExactValue::infinity(true).equals(ExactValue::infinity(false)));

  CHECK(compare_magnitude(num(3, 1), num(-12, -1)) == 0);
  CHECK(compare_magnitude(num(5), num(6)) == -1);
  CHECK(compare_magnitude(num(1, 100), num(3, 98)) == 1);
  CHECK(compare_magnitude(ExactValue::zero(), num(1, -1000)) == -1);
  CHECK(compare_magnitude(ExactValue::zero(true), ExactValue::zero()) == 0);
  CHECK_THROWS_AS(compare_magnitude(ExactValue::nan(), num(1)), std::invalid_argument);

  CHECK(exact_add(num(1, 100), num(1, -100)).equals(ExactValue::finite(false, (BigInt(1) << 200) + 1, -100)));
  CHECK(exact_add(num(3), num(-3)).is_zero());
  CHECK(!exact_add(num(3), num(-3)).negative);  // exact cancellation: +0
  CHECK(exact_add(ExactValue::zero(true), ExactValue::zero(true)).negative);
  CHECK(!exact_add(ExactValue::zero(true), ExactValue::zero(false)).negative);
  CHECK(exact_add(num(-5, -2), ExactValue::zero(false)).equals(num(-5, -2)));
  CHECK(exact_add(num(-5, -2), num(1, 0)).equals(num(-1, -2)));
  CHECK(exact_add(ExactValue::infinity(true), ExactValue::infinity(false)).is_nan());
  CHECK(exact_add(ExactValue::infinity(true), num(7)).equals(ExactValue::infinity(true)));
  CHECK(exact_add(ExactValue::nan(), num(7)).is_nan());

  CHECK(exact_mul(num(-3, 2), num(-5, -7)).equals(num(15, -5)));
  CHECK(exact_mul(num(-3), ExactValue::zero()).negative);
  CHECK(exact_mul(ExactValue::infinity(false), ExactValue::zero()).is_nan());
  CHECK(exact_mul(ExactValue::infinity(false), num(-2)).equals(ExactValue::infinity(true)));
  CHECK(exact_mul(num(1), ExactValue::nan()).is_nan());
}
