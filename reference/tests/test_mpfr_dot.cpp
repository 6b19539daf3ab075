// The MPFR reference against independent computations:
//  - its own decoder against sim's codec (exhaustive for formats up to 16 bits);
//  - exact_dot against sim's ExactValue arithmetic (exact_mul / exact_add on BigInt);
//  - mpfr_round_to_format against sim's round_to_format (every built-in format, RNE, RZ,
//    RU, RD and RO) on random exact values, ties and near-ties included;
//  - printing and the special-value rules.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "operand_gen.hpp"
#include "tcsim/reference/mpfr_dot.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/exact.hpp"
#include "tcsim/sim/rounding.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::reference;
using namespace tcsim::reftest;

namespace {

bool same_value(const ExactValue& x, const ExactValue& y) {
  if (x.is_nan() || y.is_nan()) return x.is_nan() && y.is_nan();
  if (x.is_inf() || y.is_inf()) return x.kind == y.kind && x.negative == y.negative;
  if (x.is_zero() || y.is_zero()) return x.kind == y.kind && x.negative == y.negative;
  return x.equals(y);
}

// Sum via sim's exact arithmetic, with the same special rules as exact_dot.
ExactValue bigint_dot(const Format& fa, const Format& fb, const Format& fc, const std::vector<std::uint64_t>& a,
                      const std::vector<std::uint64_t>& b, std::uint64_t c) {
  ExactValue s = decode(fc, c);
  bool nan = s.is_nan(), pinf = s.is_inf() && !s.negative, ninf = s.is_inf() && s.negative;
  bool all_negative_zero = s.is_zero() && s.negative;
  ExactValue acc = s.is_finite() ? s : ExactValue::zero(false);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const ExactValue x = decode(fa, a[i]), y = decode(fb, b[i]);
    const bool neg = x.negative != y.negative;
    if (x.is_nan() || y.is_nan()) {
      nan = true;
      all_negative_zero = false;
    } else if (x.is_inf() || y.is_inf()) {
      all_negative_zero = false;
      if (x.is_zero() || y.is_zero()) nan = true;
      else (neg ? ninf : pinf) = true;
    } else if (x.is_zero() || y.is_zero()) {
      if (!neg) all_negative_zero = false;
    } else {
      all_negative_zero = false;
      acc = exact_add(acc, exact_mul(x, y));
    }
  }
  if (nan || (pinf && ninf)) return ExactValue::nan();
  if (pinf || ninf) return ExactValue::infinity(ninf);
  if (acc.is_zero()) return ExactValue::zero(all_negative_zero);
  return acc;
}

// One random operand of a dot-product case; `cls` picks the exponent class.
std::uint64_t operand(const Format& f, Rng& r, int cls, int center) {
  switch (cls) {
    case 0: return random_finite(f, r);
    case 1: return value_with_lead(f, r, center + r.range(-3, 3));  // narrow spread
    case 2: return random_subnormal_or_tiny(f, r);
    case 3: return r.below(8) == 0 ? random_special(f, r) : random_finite(f, r);
    default: return random_pattern(f, r);
  }
}

}  // namespace

TEST_CASE("mpfr: decoder agrees with sim codec on every pattern of formats up to 16 bits") {
  for (const Format& f : builtin_formats()) {
    INFO(f.name);
    const bool exhaustive = f.width <= 16;
    Rng rng(test::seed("reference decoder", 11));
    const std::uint64_t n = exhaustive ? (std::uint64_t{1} << f.width) : test::count(200000);
    std::uint64_t mismatches = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint64_t bits = exhaustive ? i : random_pattern(f, rng);
      const ExactValue mine = from_mpfr(decode_to_mpfr(f, bits).get());
      const ExactValue sims = decode(f, bits);
      if (!same_value(mine, sims) && ++mismatches <= 5)
        FAIL_CHECK(f.name << " " << bits_to_hex(f, bits) << ": mpfr " << mine.to_hex() << " sim " << sims.to_hex());
    }
    CHECK(mismatches == 0);
  }
}

TEST_CASE("mpfr: ExactValue to MPFR round trip and exact decimal printing") {
  Rng rng(test::seed("reference round trip", 12));
  for (std::uint64_t i = 0; i < test::count(20000); ++i) {
    BigInt sig = rng.next() | 1;
    for (int w = rng.range(0, 4); w > 0; --w) sig = (sig << 64) | rng.next();
    const int exponent = rng.range(-3000, 3000);  // named draws, in GCC's order (last argument first)
    const ExactValue x = ExactValue::finite(rng.next() & 1, sig, exponent);
    const ExactValue y = from_mpfr(to_mpfr(x).get());
    REQUIRE(x.equals(y));
    REQUIRE(y.to_hex() == x.normalized().to_hex());
    REQUIRE(mpfr_hex(to_mpfr(x).get()) == x.to_hex());
  }
  CHECK(exact_decimal(ExactValue::finite(false, 1, -1)) == "5e-01");
  CHECK(exact_decimal(ExactValue::finite(true, 3, -1)) == "-1.5e+00");
  CHECK(exact_decimal(ExactValue::finite(false, 1, -24)) == "5.9604644775390625e-08");  // fp16 min subnormal
  CHECK(exact_decimal(ExactValue::finite(false, 65504, 0)) == "6.5504e+04");
  CHECK(exact_decimal(ExactValue::finite(false, 1, -24), 3) == "5.96e-08");
  CHECK(exact_decimal(ExactValue::zero(true)) == "-0");
  CHECK(exact_decimal(ExactValue::infinity(false)) == "inf");
  CHECK(exact_decimal(ExactValue::nan()) == "nan");
  // binary32 0.1f = 13421773 * 2^-27, exactly 0.100000001490116119384765625.
  CHECK(exact_decimal(ExactValue::finite(false, 13421773, -27)) == "1.00000001490116119384765625e-01");
  CHECK(mpfr_hex(to_mpfr(ExactValue::finite(true, 3, -4)).get()) == "-0x1.8p-3");
}

TEST_CASE("mpfr: exact_dot special values (NaN and Inf x 0 and +Inf - Inf and signed zeros)") {
  const Format& h = formats::fp16();
  const Format& s = formats::fp32();
  const std::uint64_t one = 0x3c00, inf = 0x7c00, ninf = 0xfc00, nan = 0x7e00, zero = 0, nzero = 0x8000;
  auto dot = [&](std::vector<std::uint64_t> a, std::vector<std::uint64_t> b, std::uint64_t c) {
    return exact_dot(h, s, a, b, c);
  };
  CHECK(dot({one, nan}, {one, one}, 0).is_nan());
  CHECK(dot({inf}, {zero}, 0).is_nan());
  CHECK(dot({inf, one}, {one, ninf}, 0).is_nan());
  CHECK(dot({inf}, {one}, 0xff800000u).is_nan());  // +Inf product, c = -Inf
  const ExactValue pinf = dot({inf, one}, {one, one}, 0);
  CHECK((pinf.is_inf() && !pinf.negative));
  const ExactValue nz = dot({nzero}, {one}, 0x80000000u);
  CHECK((nz.is_zero() && nz.negative));
  const ExactValue pz = dot({one, one}, {one, 0xbc00}, 0);  // 1 - 1: +0
  CHECK((pz.is_zero() && !pz.negative));
  // Correct rounding of those zeros: -0 under RD only.
  CHECK(correctly_rounded_dot(h, h, s, s, std::vector<std::uint64_t>{one, one}, std::vector<std::uint64_t>{one, 0xbc00},
                              0, Rounding::Down)
            .bits == 0x80000000u);
  CHECK(correctly_rounded_dot(h, h, s, s, std::vector<std::uint64_t>{one, one}, std::vector<std::uint64_t>{one, 0xbc00},
                              0, Rounding::NearestEven)
            .bits == 0);
  CHECK(dot({}, {}, 0x3f800000u).equals(ExactValue::finite(false, 1, 0)));
  CHECK_THROWS_AS(dot({one}, {}, 0), std::invalid_argument);
  // fasi2021 3.1: 1 + 4 * 2^-24 is exact as a value; the correctly rounded binary32 result
  // is 1 + 2^-22 (hardware, which truncates in alignment, returns 1).
  const std::vector<std::uint64_t> a4 = {0x0001, 0x0001, 0x0001, 0x0001}, b4 = {one, one, one, one};
  CHECK(correctly_rounded_dot(h, h, s, s, a4, b4, 0x3f800000u, Rounding::NearestEven).bits == 0x3f800002u);
}

TEST_CASE("mpfr: exact_dot equals sim BigInt exact arithmetic (random cases of all input formats)") {
  Rng rng(test::seed("reference exact_dot vs bigint", 13));
  const std::vector<std::pair<Format, Format>> pairs = {
      {formats::fp16(), formats::fp32()}, {formats::bf16(), formats::fp32()}, {formats::tf32(), formats::fp32()},
      {formats::e4m3(), formats::fp32()}, {formats::e5m2(), formats::fp16()}, {formats::e2m1(), formats::fp32()},
      {formats::e2m3(), formats::fp32()}, {formats::e3m2(), formats::fp32()}, {formats::fp64(), formats::fp64()},
      {formats::fp32(), formats::fp32()}, {formats::e4m3fnuz(), formats::bf16()}, {formats::e5m2fnuz(), formats::fp32()},
      {formats::ue4m3(), formats::fp32()}};
  const std::uint64_t n = test::count(20000);
  for (const auto& [in, cf] : pairs) {
    std::uint64_t mismatches = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      const int k = rng.range(0, 16);
      const int cls = static_cast<int>(rng.below(6));
      const int center = rng.range(lowest_lead(in), in.emax);
      std::vector<std::uint64_t> a(k), b(k);
      for (int j = 0; j < k; ++j) {
        a[j] = operand(in, rng, cls, center);
        b[j] = operand(in, rng, cls, center);
      }
      if (cls == 5 && k >= 2 && in.is_signed) {  // cancellation: mirrored products
        for (int j = 0; j + 1 < k; j += 2) {
          a[j + 1] = negate(in, a[j]);
          b[j + 1] = b[j];
        }
      }
      const std::uint64_t c = (rng.below(4) == 0) ? zero_pattern(cf, rng) : operand(cf, rng, cls == 5 ? 0 : cls, cf.emin);
      const ExactValue mine = exact_dot(in, cf, a, b, c);
      const ExactValue ref = bigint_dot(in, in, cf, a, b, c);
      if (!same_value(mine, ref) && ++mismatches <= 5)
        FAIL_CHECK(in.name << "*" << in.name << "+" << cf.name << " a=" << hex_list(in, a.data(), a.size())
                           << " b=" << hex_list(in, b.data(), b.size()) << " c=" << bits_to_hex(cf, c)
                           << ": mpfr " << mine.to_hex() << " bigint " << ref.to_hex());
    }
    INFO(in.name << " -> " << cf.name << ": " << n << " cases");
    CHECK(mismatches == 0);
  }
}

TEST_CASE("mpfr: mpfr_round_to_format agrees with sim round_to_format (all formats with rne rz ru rd ro)") {
  Rng rng(test::seed("reference rounding vs sim", 14));
  const Rounding modes[] = {Rounding::NearestEven, Rounding::TowardZero, Rounding::Up, Rounding::Down,
                            Rounding::ToOdd};
  const OverflowMode overflows[] = {OverflowMode::FormatDefault, OverflowMode::Ieee, OverflowMode::Saturate,
                                    OverflowMode::ToNaN};
  const std::uint64_t n = test::count(40000);
  std::uint64_t total = 0;
  for (const Format& f : builtin_formats()) {
    std::uint64_t mismatches = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      // Exact value: a random significand of 1..120 bits at a lead exponent around the
      // format's range; or a representable value plus/minus a half ulp (a tie) and a tiny
      // perturbation; or a special.
      ExactValue x;
      const int kind = static_cast<int>(rng.below(10));
      const int lead = rng.range(lowest_lead(f) - 4, f.emax + 3);
      if (kind < 5) {
        const int bits = rng.range(1, 120);
        BigInt sig = 1;
        for (int j = 1; j < bits; ++j) sig = (sig << 1) | (rng.next() & 1);
        x = ExactValue::finite(rng.next() & 1, sig, lead - (bits - 1));
      } else if (kind < 9) {
        // v = representable, then add half of its quantum (tie), +- 2^-80 sometimes.
        const std::uint64_t v = value_with_lead(f, rng, lead);
        ExactValue ev = decode(f, v);
        const int l = static_cast<int>(ev.lead_exponent());
        const int q = (f.subnormals ? std::max(l, f.emin) : l) - (f.precision - 1);
        ExactValue half = ExactValue::finite(ev.negative, 1, q - 1);
        x = exact_add(ev, half);
        if (rng.below(3) == 0) x = exact_add(x, ExactValue::finite(rng.next() & 1, 1, q - 80));
      } else {
        switch (rng.below(4)) {
          case 0: x = ExactValue::nan(); break;
          case 1: x = ExactValue::infinity(rng.next() & 1); break;
          default: x = ExactValue::zero(rng.next() & 1); break;
        }
      }
      const Rounding mode = modes[rng.below(5)];
      RoundingOptions o;
      o.mode = mode;
      o.overflow = overflows[rng.below(4)];
      const RoundResult ref = round_to_format(x, f, o);
      const RoundResult mine = mpfr_round_to_format(x, f, mode, o.overflow);
      const bool same = ref.bits == mine.bits && ref.inexact == mine.inexact && ref.overflow == mine.overflow &&
                        ref.underflow == mine.underflow && ref.invalid == mine.invalid;
      if (!same && ++mismatches <= 8)
        FAIL_CHECK(f.name << " " << to_string(mode) << " overflow=" << to_string(o.overflow) << " x=" << x.to_hex()
                          << ": mpfr " << bits_to_hex(f, mine.bits) << " (ix " << mine.inexact << " of "
                          << mine.overflow << " uf " << mine.underflow << " iv " << mine.invalid << ") sim "
                          << bits_to_hex(f, ref.bits) << " (ix " << ref.inexact << " of " << ref.overflow << " uf "
                          << ref.underflow << " iv " << ref.invalid << ")");
    }
    INFO(f.name);
    CHECK(mismatches == 0);
    total += n;
  }
  std::printf("[reference] rounding vs sim: %llu cases\n", static_cast<unsigned long long>(total));
}

TEST_CASE("mpfr: the exponent range is restored and concurrent use from threads agrees with serial use") {
  // A caller's own MPFR exponent range survives every call.
  const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  mpfr_set_emin(-5000);
  mpfr_set_emax(7000);
  const std::vector<std::uint64_t> a = {0x3c00, 0x0001}, b = {0x3c00, 0x3c00};
  const RoundResult r = correctly_rounded_dot(formats::fp16(), formats::fp16(), formats::fp32(), formats::fp16(), a, b,
                                              0x3f800000u, Rounding::Up);
  CHECK(r.bits == 0x4001);  // 2 + 2^-24 rounded up in binary16: 2 + 2^-9
  CHECK(mpfr_get_emin() == -5000);
  CHECK(mpfr_get_emax() == 7000);
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);

  // Threads: with a TLS build of MPFR (Debian's) the exponent range is per thread.
  INFO("mpfr_buildopt_tls_p = " << mpfr_is_thread_safe());
  if (!mpfr_is_thread_safe()) return;
  Rng rng(test::seed("mpfr threads", 15));
  const std::size_t n = static_cast<std::size_t>(test::count(4000));
  std::vector<ExactValue> xs(n);
  for (auto& x : xs) {
    BigInt sig = rng.next() | 1;
    const int exponent = rng.range(-200, 100);  // named draws, in GCC's order (last argument first)
    x = ExactValue::finite(rng.next() & 1, sig, exponent);
  }
  const Format* fmts[] = {&formats::fp16(), &formats::e4m3(), &formats::bf16(), &formats::e2m1()};
  std::vector<std::uint64_t> serial(n * 4), parallel(n * 4);
  for (std::size_t t = 0; t < 4; ++t)
    for (std::size_t i = 0; i < n; ++i) serial[t * n + i] = mpfr_round_to_format(xs[i], *fmts[t], Rounding::NearestEven).bits;
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (std::size_t i = 0; i < n; ++i)
        parallel[t * n + i] = mpfr_round_to_format(xs[i], *fmts[t], Rounding::NearestEven).bits;
    });
  for (auto& th : threads) th.join();
  CHECK(serial == parallel);
}
