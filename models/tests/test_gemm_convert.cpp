// The host arithmetic under simulate_gemm (models/src/gemm_impl.hpp, private): binary64 ->
// format conversions and pattern decoding against sim's exact rounding, the binary16 FMA and
// the binary32 sum against ExactValue, and the fp16 variant against exact binary16 FMA chains
// (10^6 FMAs with ties, subnormals, overflow and cancellation).
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "../src/gemm_impl.hpp"
#include "tcsim/models/gemm.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/exact.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using tcsim::test::Rng;

namespace {

ExactValue exact_of(double x) { return decode(formats::fp64(), bits_of_double(x)); }

// round_bits, then a subnormal result flushed to the zero of its sign (f.zero).
std::uint64_t reference_convert(double x, const Format& f, Rounding mode, bool flush) {
  const std::uint64_t b = round_bits(exact_of(x), f, mode);
  if (flush && classify(f, b) == FpClass::Subnormal) return f.zero(f.is_signed && (b & f.sign_mask()) != 0);
  return b;
}

// Doubles that exercise a conversion into f: any bit pattern, values across and beyond the
// format's range, exact midpoints of its grid, the neighbourhood of its largest finite value
// and of its smallest subnormal.
// m 2^e with m in [lo, hi] and e in [elo, ehi]: e drawn first (as GCC evaluated the former
// one-call form; argument order is unspecified).
double ldexp_drawn(Rng& r, int lo, int hi, int elo, int ehi) {
  const int e = r.range(elo, ehi);
  return std::ldexp(static_cast<double>(r.range(lo, hi)), e);
}

double interesting_double(Rng& r, const Format& f) {
  const double sign = r.below(2) ? -1.0 : 1.0;
  const int p = f.precision;
  switch (r.below(6)) {
    case 0: return std::bit_cast<double>(r.next());  // anything, NaN and Inf included
    case 1: {                                        // anywhere in the range, 53 random bits
      const int e = r.range(std::max(-1074, f.emin - p - 4), std::min(1023, f.emax + 2));
      return sign * std::ldexp(static_cast<double>((r.next() >> 11) | (std::uint64_t{1} << 52)), e - 52);
    }
    case 2: {  // a midpoint (p + 1 bits ending in 1), or a midpoint plus/minus a little
      if (p > 52) return sign * std::ldexp(1.0 + 0x1p-52, r.range(-1000, 1000));
      const int e = r.range(std::max(-1020, f.emin - p), std::min(1000, f.emax));
      const double mid = std::ldexp(static_cast<double>((r.below(std::uint64_t{1} << (p - 1)) | (std::uint64_t{1} << (p - 1))) * 2 + 1), e - p);
      const int nudge = r.range(-1, 1);
      return sign * (nudge == 0 ? mid : std::nextafter(mid, nudge > 0 ? INFINITY : 0.0));
    }
    case 3: {  // around the largest finite value and the overflow threshold
      const double big = to_double(decode(f, f.max_finite(false)));
      const double ulp = std::ldexp(1.0, f.emax - p + 1);
      return sign * (big + ulp * (static_cast<double>(r.range(-8, 8)) / 4));
    }
    case 4: {  // around the smallest subnormal (or normal) and half of it
      const double tiny = std::ldexp(1.0, (f.subnormals ? f.emin - p + 1 : f.emin));
      return sign * tiny * (static_cast<double>(r.range(1, 16)) / 8);
    }
    default: return sign * static_cast<double>(r.range(0, 3));  // zeros and small integers
  }
}

}  // namespace

TEST_CASE("gemm: conversions into every built-in format equal sim's rounding", "[gemm]") {
  Rng r(tcsim::test::seed("gemm conversions", 7101));
  const std::size_t per = tcsim::test::count(6000);
  std::size_t checked = 0;
  for (const Format& f : builtin_formats())
    for (Rounding mode : {Rounding::NearestEven, Rounding::TowardZero, Rounding::Up, Rounding::Down, Rounding::ToOdd})
      for (bool flush : {false, true}) {
        const gemm_detail::Converter conv(f, mode, flush);
        for (std::size_t c = 0; c < per; ++c) {
          const double x = interesting_double(r, f);
          const std::uint64_t want = reference_convert(x, f, mode, flush);
          INFO(f.name << " " << to_string(mode) << (flush ? " flush" : "") << " x = " << exact_of(x).to_hex());
          REQUIRE(bits_to_hex(f, conv(x)) == bits_to_hex(f, want));
          ++checked;
        }
      }
  CHECK(checked == builtin_formats().size() * 10 * per);
}

TEST_CASE("gemm: decoding patterns into binary64 equals sim's decoding", "[gemm]") {
  Rng r(tcsim::test::seed("gemm decoding", 7102));
  for (const Format& f : builtin_formats()) {
    const gemm_detail::Decoder dec(f);
    const bool all = f.width <= 16;
    const std::uint64_t count = all ? (std::uint64_t{1} << f.width) : 200000;
    for (std::uint64_t c = 0; c < count; ++c) {
      const std::uint64_t b = all ? c : (r.next() & f.width_mask());
      const double want = to_double(decode(f, b));
      const double got = dec(b), slow = gemm_detail::value_of(f, b);
      INFO(f.name << " " << bits_to_hex(f, b));
      if (std::isnan(want)) {
        REQUIRE(std::isnan(got));
        REQUIRE(std::isnan(slow));
      } else {
        REQUIRE(bits_of_double(got) == bits_of_double(want));
        REQUIRE(bits_of_double(slow) == bits_of_double(want));
      }
    }
  }
}

TEST_CASE("gemm: binary16 rounding, the binary16 FMA and the binary32 sum are exact", "[gemm]") {
  Rng r(tcsim::test::seed("gemm host arithmetic", 7103));
  const Format &h = formats::fp16(), &s = formats::fp32();
  const std::size_t count = tcsim::test::count(200000);
  auto half_value = [&](std::uint64_t b) { return to_double(decode(h, b)); };
  for (std::size_t c = 0; c < count; ++c) {
    // Rounding any binary64 value.
    const double x = interesting_double(r, h);
    const double got = gemm_detail::round_binary16(x);
    const std::uint64_t want = round_bits(exact_of(x), h, Rounding::NearestEven);
    INFO("x = " << exact_of(x).to_hex());
    if (std::isnan(x))
      REQUIRE(std::isnan(got));
    else
      REQUIRE(bits_of_double(got) == bits_of_double(half_value(want)));
    // One FMA on binary16 operands (all patterns but NaN: Inf and -0 included).
    std::uint64_t ab = 0, bb = 0, cb = 0;
    do {
      ab = r.next() & 0xffff, bb = r.next() & 0xffff, cb = r.next() & 0xffff;
      if (r.below(2)) bb = (bb & 0x83ff) | ((r.below(2) ? 0x3c00 : 0x0400) ^ (ab & 0x7c00));  // products near 1 or tiny
    } while (classify(h, ab) == FpClass::NaN || classify(h, bb) == FpClass::NaN || classify(h, cb) == FpClass::NaN);
    const double f = gemm_detail::fma_binary16(half_value(ab), half_value(bb), half_value(cb));
    const std::uint64_t fw = round_bits(exact_add(exact_mul(decode(h, ab), decode(h, bb)), decode(h, cb)), h, Rounding::NearestEven);
    INFO("fma " << bits_to_hex(h, ab) << " * " << bits_to_hex(h, bb) << " + " << bits_to_hex(h, cb));
    if (classify(h, fw) == FpClass::NaN)
      REQUIRE(std::isnan(f));
    else
      REQUIRE(bits_of_double(f) == bits_of_double(half_value(fw)));
    // fl32(acc + s) for binary64 s (the split-K sum of wide slices).
    const float acc = float_of_bits(static_cast<std::uint32_t>(r.next()));
    const double y = interesting_double(r, s);
    if (std::isnan(acc) || std::isnan(y)) continue;
    const float sum = gemm_detail::add_binary32(acc, y);
    const std::uint64_t sw = round_bits(exact_add(decode(s, bits_of_float(acc)), exact_of(y)), s, Rounding::NearestEven);
    INFO("fp32 sum " << bits_to_hex(s, bits_of_float(acc)) << " + " << exact_of(y).to_hex());
    if (classify(s, sw) == FpClass::NaN)
      REQUIRE(std::isnan(sum));
    else
      REQUIRE(bits_of_float(sum) == sw);
  }
}

// The fp16 variant on 16 GEMMs of 32 x 32 x 64 (2^20 FMAs), each entry's chain replayed with
// ExactValue: d = round_bits(a b + d) per step. Regimes: exact ties (odd integer sums where
// the binary16 ulp is 2; near 65520, where a tie goes to Inf), subnormal operands and sums,
// pairs of nearly cancelling products, and operands of any exponent with signed zeros.
TEST_CASE("gemm: the fp16 variant equals exact binary16 FMA chains (10^6 FMAs)", "[gemm]") {
  Rng r(tcsim::test::seed("gemm fp16 variant", 7003));
  const Format& h = formats::fp16();
  // At least two GEMMs of each of the 5 kinds below, whatever TCSIM_TEST_SCALE says.
  const std::size_t m = 32, n = 32, k = 64, gemms = std::max<std::uint64_t>(10, tcsim::test::count(16));
  auto half = [&](double x) { return to_double(decode(h, round_bits(exact_of(x), h, Rounding::NearestEven))); };
  auto any_half = [&]() -> double {
    switch (r.below(5)) {
      case 0: return std::ldexp(static_cast<double>(r.range(-1023, 1023)), -24);                   // subnormal
      case 1: return ldexp_drawn(r, -2047, 2047, -24, 5);                                        // 11 bits
      case 2: return r.below(2) ? 0.0 : -0.0;
      default: return half(ldexp_drawn(r, -4000, 4000, -20, 4));
    }
  };
  std::size_t fmas = 0, ties = 0, overflows = 0, subnormal = 0, cancellations = 0;
  for (std::size_t g = 0; g < gemms; ++g) {
    std::vector<double> A(m * k), B(k * n), C(m * n);
    switch (g % 5) {
      case 0:  // the binary16 ulp is 2 (or 4) and odd products make exact midpoints
        for (auto& x : A) x = r.range(-7, 7);
        for (auto& x : B) x = r.range(-7, 7);
        for (auto& x : C) {
          const double sign = r.below(2) ? 1 : -1;
          x = sign * r.range(2048, 4095);
        }
        break;
      case 1:  // towards 65504 / 65520: ties to Inf, overflow
        for (auto& x : A) {
          const double v = r.range(1, 255);
          x = r.below(8) ? v : -v;
        }
        for (auto& x : B) x = ldexp_drawn(r, 1, 15, -3, 3);
        for (auto& x : C) {
          const double v = std::ldexp(static_cast<double>(r.range(1024, 2047)), 5);
          x = r.below(2) ? v : -v;
        }
        break;
      case 2:  // subnormal operands, products and sums
        for (auto& x : A) x = half(ldexp_drawn(r, -2047, 2047, -24, -12));
        for (auto& x : B) x = half(ldexp_drawn(r, -2047, 2047, -16, -8));
        for (auto& x : C) x = std::ldexp(static_cast<double>(r.range(-1023, 1023)), -24);
        break;
      case 3:  // consecutive products that nearly cancel, from C = 0
        for (std::size_t i = 0; i < m; ++i)
          for (std::size_t t = 0; t < k; t += 2) A[i * k + t] = A[i * k + t + 1] = any_half();
        for (std::size_t t = 0; t < k; t += 2)
          for (std::size_t j = 0; j < n; ++j) {
            const double b = any_half();
            B[t * n + j] = b;
            B[(t + 1) * n + j] = -half(b * (1 + std::ldexp(static_cast<double>(r.range(-4, 4)), -10)));
          }
        for (auto& x : C) x = r.below(8) ? 0.0 : any_half();
        break;
      default:
        for (auto& x : A) x = any_half();
        for (auto& x : B) x = any_half();
        for (auto& x : C) x = any_half();
    }
    GemmOptions o;
    o.variant = GemmVariant::Fp16;
    const GemmResult got = simulate_gemm(builtin_unit("v100"), h, formats::fp32(), m, n, k, A, B, C, o);
    REQUIRE(got.storage == "fp16");
    REQUIRE(got.path == "ieee");
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        std::uint64_t d = round_bits(exact_of(C[i * n + j]), h, Rounding::NearestEven);
        for (std::size_t t = 0; t < k; ++t) {
          const ExactValue p = exact_mul(exact_of(A[i * k + t]), exact_of(B[t * n + j]));
          const ExactValue x = exact_add(p, decode(h, d));
          d = round_bits(x, h, Rounding::NearestEven);
          ++fmas;
          if (x.is_finite()) {
            const std::uint64_t lo = round_bits(x, h, Rounding::Down), hi = round_bits(x, h, Rounding::Up);
            if (lo != hi && classify(h, lo) != FpClass::Infinity && classify(h, hi) != FpClass::NaN) {
              const double l = to_double(decode(h, lo)), u = std::isinf(to_double(decode(h, hi))) ? 65536.0 : to_double(decode(h, hi));
              const double xd = to_double(x);
              if (std::isfinite(l) && xd - l == u - xd) ++ties;
            }
            if (classify(h, d) == FpClass::Infinity) ++overflows;
            if (classify(h, d) == FpClass::Subnormal) ++subnormal;
            if (!p.is_zero() && compare_magnitude(exact_mul(x, exact_of(1024.0)), p) < 0) ++cancellations;
          }
        }
        INFO("gemm " << g << " entry (" << i << ", " << j << ")");
        REQUIRE(bits_to_hex(h, got.bits[i * n + j]) == bits_to_hex(h, d));
      }
  }
  INFO("ties " << ties << ", overflows " << overflows << ", subnormal results " << subnormal << ", cancellations "
               << cancellations);
  CHECK(fmas == gemms * m * n * k);
  CHECK(ties > fmas / 100);
  CHECK(overflows > 1000);
  CHECK(subnormal > 1000);
  CHECK(cancellations > 1000);
}
