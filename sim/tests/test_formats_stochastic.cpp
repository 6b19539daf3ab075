// Stochastic rounding: deterministic given the random bits, always one of the two
// neighbours, the documented threshold rule, and unbiased on average.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/rounding.hpp"
#include "test_support.hpp"

using namespace tcsim;

namespace {

RoundResult sr(const ExactValue& x, const Format& f, std::uint64_t random, int bits) {
  RoundingOptions o;
  o.mode = Rounding::Stochastic;
  o.random = random;
  o.random_bits = bits;
  return round_to_format(x, f, o);
}

ExactValue magnitude(ExactValue v) {
  v.negative = false;
  return v;
}

// floor(D * 2^bits) with D = (|x| - |lo|) / (|hi| - |lo|), computed exactly.
std::uint64_t threshold(const ExactValue& x, const ExactValue& lo, const ExactValue& hi, int bits) {
  ExactValue neg_lo = magnitude(lo);
  neg_lo.negative = true;
  const ExactValue a = exact_add(magnitude(x), neg_lo);
  const ExactValue u = exact_add(magnitude(hi), neg_lo);
  if (a.is_zero()) return 0;
  BigInt num = a.significand, den = u.significand;
  const std::int64_t shift = a.exponent - u.exponent + bits;
  if (shift >= 0) num <<= static_cast<unsigned>(shift);
  else den <<= static_cast<unsigned>(-shift);
  return static_cast<std::uint64_t>(num / den);
}

}  // namespace

TEST_CASE("formats: stochastic rounding picks a neighbour by the threshold rule", "[formats][stochastic]") {
  test::Rng rng(test::seed("formats stochastic neighbours", 0x57c0));
  const Format* targets[] = {&formats::fp16(), &formats::bf16(), &formats::e4m3(), &formats::e5m2(),
                             &formats::e2m1(), &formats::e4m3fnuz(), &formats::fp32()};
  const std::uint64_t n = test::count(100000);
  std::uint64_t failures = 0, ups = 0;
  for (const Format* fp : targets) {
    const Format& f = *fp;
    for (std::uint64_t i = 0; i < n; ++i) {
      // Inside the finite range (subnormals included): both neighbours are finite.
      // Up to 200 significand bits: discarded parts longer than 64 bits, too.
      const int bits = rng.range(1, 200);
      BigInt sig = 0;
      for (int w = 0; w < bits; w += 64) sig = (sig << 64) | BigInt(rng.next());
      sig = (sig >> static_cast<unsigned>((bits + 63) / 64 * 64 - bits)) | (BigInt(1) << (bits - 1));
      const int lead = rng.range(f.emin - f.precision - 1, f.emax - 1);
      const ExactValue x = ExactValue::finite(rng.below(2) != 0, sig, lead - (bits - 1));
      const int rb = rng.range(1, 64);
      const std::uint64_t random = rng.next();
      const RoundResult r = sr(x, f, random, rb);
      const RoundResult again = sr(x, f, random, rb);
      const std::uint64_t lo = round_bits(x, f, Rounding::TowardZero);
      const std::uint64_t hi = round_bits(x, f, x.negative ? Rounding::Down : Rounding::Up);
      const std::uint64_t mask = rb == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << rb) - 1;
      const bool away = (random & mask) < threshold(x, decode(f, lo), decode(f, hi), rb);
      const std::uint64_t want = away ? hi : lo;
      ups += away && lo != hi;
      if ((r.bits != want || again.bits != r.bits || r.inexact != (lo != hi)) && ++failures <= 10)
        FAIL_CHECK(x.to_hex() << " -> " << f.name << " random " << random << "/" << rb << " bits: got "
                               << bits_to_hex(f, r.bits) << " want " << bits_to_hex(f, want) << " (rz "
                               << bits_to_hex(f, lo) << ", away " << bits_to_hex(f, hi) << ")");
    }
  }
  CHECK(failures == 0);
  CHECK(ups > 0);  // both neighbours actually occur
}

TEST_CASE("formats: stochastic rounding is unbiased on average", "[formats][stochastic]") {
  test::Rng rng(test::seed("formats stochastic bias", 0xb1a5));
  const std::uint64_t draws = test::count(1 << 20);
  struct Case {
    const Format& f;
    ExactValue x;
    int bits;
  };
  // x = neighbour + D ulp with D = num / 2^32 exactly (0.3, 0.7, 0.5, 0.1, 2^-12).
  const Case cases[] = {
      {formats::fp16(), ExactValue::finite(false, (BigInt(1024) << 32) + 0x4CCCCCCD, -10 - 32), 32},
      {formats::bf16(), ExactValue::finite(true, (BigInt(200) << 32) + 0xB3333333, -7 - 32), 32},
      {formats::e4m3(), ExactValue::finite(false, (BigInt(3) << 32) + 0x80000000, -9 - 32), 32},  // subnormal
      {formats::e2m1(), ExactValue::finite(true, (BigInt(3) << 32) + 0x1999999A, -32), 32},
      {formats::fp32(), ExactValue::finite(false, (BigInt(1) << 55) + (BigInt(1) << 20), -55), 32},
      {formats::fp16(), ExactValue::finite(false, (BigInt(1024) << 32) + 0x4CCCCCCD, -10 - 32), 8},
  };
  for (const Case& c : cases) {
    const std::uint64_t lo = round_bits(c.x, c.f, Rounding::TowardZero);
    const std::uint64_t hi = round_bits(c.x, c.f, c.x.negative ? Rounding::Down : Rounding::Up);
    REQUIRE(lo != hi);
    std::uint64_t up = 0;
    for (std::uint64_t i = 0; i < draws; ++i) {
      const std::uint64_t b = sr(c.x, c.f, rng.next() >> (64 - c.bits), c.bits).bits;
      if (b == hi) ++up;
      else if (b != lo) FAIL("not a neighbour: " << bits_to_hex(c.f, b));
    }
    // The exact discarded fraction D; with k random bits the rule rounds away with
    // probability floor(D 2^k) / 2^k, within 2^-k below D.
    const double d = static_cast<double>(threshold(c.x, decode(c.f, lo), decode(c.f, hi), 52)) * 0x1p-52;
    const double p = std::floor(d * std::ldexp(1.0, c.bits)) / std::ldexp(1.0, c.bits);
    const double mean = static_cast<double>(draws) * p;
    const double sigma = std::sqrt(static_cast<double>(draws) * p * (1 - p));
    INFO(c.x.to_hex() << " -> " << c.f.name << " D " << d << " ups " << up << " of " << draws << " expected "
                      << mean << " +- " << sigma);
    // 6 sigma (+1 for tiny probabilities): a correct rule fails with probability < 1e-8,
    // and a deterministic rounding (0 or all draws) cannot pass.
    CHECK(std::abs(static_cast<double>(up) - mean) <= 6 * sigma + 1);
    CHECK(std::abs(p - d) <= std::ldexp(1.0, -c.bits));
    // Average rounding error in ulps: |mean result - x| / ulp stays within the same band.
    const double avg_error = static_cast<double>(up) / static_cast<double>(draws) - d;
    CHECK(std::abs(avg_error) <= (6 * sigma + 1) / static_cast<double>(draws) + std::ldexp(1.0, -c.bits));
  }
}
