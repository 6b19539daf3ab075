// round_to_format against MPFR (formats_mpfr.hpp): boundary cases of every target format,
// >= 10^7 structured-random binary32 inputs (TestFloat-style exponent classes x
// significand patterns, plus uniform bits), and wide exact significands.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <vector>

#include "formats_mpfr.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/rounding.hpp"
#include "test_support.hpp"

using namespace tcsim;

namespace {

const Rounding kModes[] = {Rounding::NearestEven, Rounding::TowardZero, Rounding::Up, Rounding::Down, Rounding::ToOdd};
const OverflowMode kOverflows[] = {OverflowMode::FormatDefault, OverflowMode::Ieee, OverflowMode::Saturate,
                                   OverflowMode::ToNaN, OverflowMode::Infinity};

std::vector<Format> user_formats() {
  return {
      make_format("p5_nosub", 5, -3, 4, false, true, NanEncoding::Ieee),
      make_format("p3_allones", 3, -2, 3, true, false, NanEncoding::AllOnes),
      make_format("p4_nosub_sat", 4, -5, 6, false, false, NanEncoding::None, true),
      make_format("p2_fnuz", 2, -4, 4, true, false, NanEncoding::NegativeZero),
  };
}

// The binary32 targets of the random test (all signed).
std::vector<Format> binary32_targets() {
  std::vector<Format> t = {formats::fp16(), formats::bf16(), formats::tf32(), formats::e4m3(), formats::e5m2(),
                           formats::e4m3fnuz(), formats::e5m2fnuz(), formats::e2m3(), formats::e3m2(),
                           formats::e2m1()};
  for (const auto& u : user_formats()) t.push_back(u);
  return t;
}

// Quantum exponent of the target for a value with lead exponent `lead`.
long quantum(const Format& f, long lead) {
  if (f.subnormals) return std::max<long>(lead, f.emin) - (f.precision - 1);
  return lead < f.emin ? f.emin : lead - (f.precision - 1);
}

// Expected result of the specials (zero, Inf, NaN) per rounding.hpp's conventions.
std::uint64_t special_expected(const Format& f, const ExactValue& x, OverflowMode ovf) {
  const bool neg = x.negative && f.is_signed;
  if (x.is_nan()) return f.has_nan() ? f.canonical_nan() : 0;
  if (x.is_zero()) return f.has_zero ? f.zero(neg) : 0;
  if (f.infinities) return f.infinity(neg);
  return test::ref_overflow(f, Rounding::NearestEven, ovf, neg);  // an infinite input is not rounded
}

struct Checker {
  test::MpfrRounder mpfr;
  std::uint64_t cases = 0, failures = 0;

  // Compares bits and the inexact/overflow/underflow flags on one finite or special input.
  template <class Set>
  void check(const Format& f, const ExactValue& x, Rounding mode, OverflowMode ovf, Set&& set, const char* what) {
    ++cases;
    RoundingOptions o;
    o.mode = mode;
    o.overflow = ovf;
    const RoundResult got = round_to_format(x, f, o);
    test::RefResult want;
    bool tiny = false;
    if (x.is_finite()) {
      want = mpfr.round(f, mode, ovf, set);
      tiny = x.lead_exponent() < f.emin;
    } else {
      want.bits = special_expected(f, x, ovf);
    }
    const bool ok = got.bits == want.bits && (!x.is_finite() || (got.inexact == want.inexact &&
                                                                   got.overflow == want.overflow &&
                                                                   got.underflow == (tiny && want.inexact)));
    if (!ok && ++failures <= 20)
      FAIL_CHECK(what << " " << x.to_hex() << " -> " << f.name << " " << to_string(mode) << " overflow "
                      << to_string(ovf) << ": got " << bits_to_hex(f, got.bits) << " (i" << got.inexact << " o"
                      << got.overflow << " u" << got.underflow << ") want " << bits_to_hex(f, want.bits) << " (i"
                      << want.inexact << " o" << want.overflow << " tiny" << tiny << ")");
  }

  void check_exact(const Format& f, const ExactValue& x, Rounding mode, OverflowMode ovf) {
    check(f, x, mode, ovf,
          [&](mpfr_t y, mpfr_rnd_t r) {
            mpfr_t t;
            mpfr_init2(t, 2);
            test::mpfr_set_exact(t, x);
            const int inex = mpfr_set(y, t, r);
            mpfr_clear(t);
            return inex;
          },
          "exact");
  }
};

ExactValue pow2(long e) { return ExactValue::finite(false, 1, e); }
ExactValue plus(const ExactValue& a, long k, long e) { return exact_add(a, ExactValue::finite(k < 0, k < 0 ? -k : k, e)); }

// Boundary values of a format: around every binade edge from below the smallest
// subnormal to above the overflow threshold, around the largest finite value and
// multiples of the smallest quantum; ties, near-ties (+-2^-40 ulp) and quarter points.
std::vector<ExactValue> boundary_values(const Format& f) {
  std::vector<ExactValue> v;
  const long p = f.precision;
  auto around = [&](const ExactValue& c, long q) {  // c + k ulp/4 for k in -6..6, ties +- tiny
    for (long k = -6; k <= 6; ++k) v.push_back(plus(c, k, q - 2));
    for (long k : {-3L, -1L, 1L, 3L})
      for (long t : {-1L, 1L}) v.push_back(plus(plus(c, k, q - 1), t, q - 40));
  };
  for (long lead = f.emin - p - 3; lead <= f.emax + 2; ++lead) {
    // fp32/fp64: every edge near the subnormal range, 1 and the overflow threshold only.
    const bool wide = f.emax - f.emin > 300;
    if (wide && lead > f.emin + p + 3 && std::abs(lead) > 3 && lead < f.emax - p - 3) continue;
    around(pow2(lead), quantum(f, lead - 1));
    around(pow2(lead), quantum(f, lead));
  }
  const ExactValue max = decode(f, f.max_finite(false));
  around(max, quantum(f, f.emax));
  const long qmin = quantum(f, f.emin - 1);
  for (long k = 1; k <= 12; ++k) around(ExactValue::finite(false, k, qmin), qmin);
  std::vector<ExactValue> out;
  for (const auto& x : v)
    if (x.is_finite() && !x.negative) {
      out.push_back(x);
      ExactValue n = x;
      n.negative = true;
      out.push_back(n);
    }
  out.push_back(ExactValue::zero(false));
  out.push_back(ExactValue::zero(true));
  out.push_back(ExactValue::infinity(false));
  out.push_back(ExactValue::infinity(true));
  out.push_back(ExactValue::nan());
  return out;
}

// TestFloat-style binary32 pattern aimed at the target's boundaries.
std::uint32_t structured_binary32(test::Rng& rng, const Format& f) {
  if (rng.below(8) == 0) return static_cast<std::uint32_t>(rng.next());  // uniform bits
  const std::uint32_t sign = static_cast<std::uint32_t>(rng.next() & 1) << 31;
  const int p = f.precision;
  int lead = 0;
  switch (rng.below(5)) {
    case 0: lead = rng.range(f.emin - p - 3, f.emin + 1); break;  // underflow region
    case 1: lead = rng.range(f.emax - 1, f.emax + 2); break;      // overflow region
    case 2: lead = rng.range(-3, 3); break;
    case 3: lead = rng.range(f.emin - p - 6, f.emax + 6); break;  // the target's range
    default: lead = rng.range(-149, 127); break;                  // all of binary32
  }
  lead = std::clamp(lead, -149, 127);
  // Significand bits below the leading one: 23 for normals, fewer for binary32 subnormals.
  const int below = lead >= -126 ? 23 : lead + 149;
  const std::uint32_t mask = (std::uint32_t{1} << below) - 1;
  std::uint32_t frac = 0;
  const auto r = static_cast<std::uint32_t>(rng.next());
  switch (rng.below(7)) {
    case 0: frac = 0; break;
    case 1: frac = mask; break;
    case 2: frac = below ? std::uint32_t{1} << rng.below(static_cast<std::uint64_t>(below)) : 0; break;
    case 3: {  // a run of ones
      const int a = rng.range(0, 23), b = rng.range(0, 23);
      frac = ((std::uint32_t{1} << std::max(a, b)) - 1) & ~((std::uint32_t{1} << std::min(a, b)) - 1);
      break;
    }
    case 4: frac = mask & ~(below ? std::uint32_t{1} << rng.below(static_cast<std::uint64_t>(below)) : 0); break;
    case 5: frac = r; break;
    default: {  // tie, near-tie and sticky patterns at the target's rounding position
      const long lsb32 = lead >= -126 ? lead - 23 : -149;
      const long k = quantum(f, lead) - lsb32;  // binary32 bits below the target quantum
      if (k >= 1 && k <= below) {
        const std::uint32_t half = std::uint32_t{1} << (k - 1);
        const std::uint32_t tails[] = {half, half - 1, half + 1, 1, (half << 1) - 1, 0};
        frac = (r & ~((half << 1) - 1)) | tails[rng.below(6)];
      } else {
        frac = r;
      }
    }
  }
  frac &= mask;
  if (lead >= -126) return sign | (static_cast<std::uint32_t>(lead + 127) << 23) | frac;
  return sign | (std::uint32_t{1} << below) | frac;  // binary32 subnormal
}

}  // namespace

TEST_CASE("formats: boundary cases match MPFR in every mode and overflow mode", "[formats][mpfr]") {
  std::vector<Format> targets = {formats::fp64(), formats::fp32(), formats::ue4m3(), formats::ue8m0()};
  for (const auto& f : binary32_targets()) targets.push_back(f);
  Checker c;
  for (const Format& f : targets) {
    for (const ExactValue& x : boundary_values(f)) {
      if (x.negative && !f.is_signed) continue;  // unsigned: negative inputs are invalid (own test)
      for (Rounding m : kModes)
        for (OverflowMode o : kOverflows) c.check_exact(f, x, m, o);
    }
  }
  std::printf("[formats] boundary cases: %llu\n", static_cast<unsigned long long>(c.cases));
  CHECK(c.failures == 0);
}

TEST_CASE("formats: structured-random binary32 inputs match MPFR", "[formats][mpfr][random]") {
  test::Rng rng(test::seed("formats binary32 vs MPFR", 0xb32f0000));
  const std::vector<Format> targets = binary32_targets();
  // 10 built-in targets x 10^6 values = 10^7 values (plus user formats), each checked in
  // RNE and in one of RZ/RU/RD/RO, with the four overflow modes in turn.
  const std::uint64_t per_target = test::count(1000000);
  Checker c;
  unsigned long long values = 0;
  const auto start = std::chrono::steady_clock::now();
  for (const Format& f : targets) {
    const std::uint64_t n = f.name.find('_') == std::string::npos ? per_target : per_target / 4;
    values += n;
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint32_t b = structured_binary32(rng, f);
      const ExactValue x = decode(formats::fp32(), b);
      const float host = float_of_bits(b);
      const OverflowMode ovf = kOverflows[i % 4];
      for (Rounding m : {Rounding::NearestEven, kModes[1 + (i / 4) % 4]})
        c.check(f, x, m, ovf, [&](mpfr_t y, mpfr_rnd_t r) { return mpfr_set_flt(y, host, r); }, "binary32");
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[formats] binary32 random values: %llu, conversions: %llu in %.2f s\n", values,
              static_cast<unsigned long long>(c.cases), secs);
  CHECK(c.failures == 0);
}

TEST_CASE("formats: wide exact significands match MPFR", "[formats][mpfr][random]") {
  // Significands of up to 300 bits exercise the compression to 64 bits plus sticky.
  test::Rng rng(test::seed("formats wide significands vs MPFR", 0x31de));
  std::vector<Format> targets = {formats::fp64(), formats::fp32(), formats::fp16(), formats::bf16(),
                                 formats::e4m3(), formats::e2m1(), formats::ue4m3(), formats::ue8m0(),
                                 // precision 60 and 64: the cut at the quantum at its widest
                                 make_format("p60", 60, -5, 6, true, true, NanEncoding::Ieee),
                                 make_format("p64", 64, 0, 0, true, false, NanEncoding::None, false, false)};
  for (const auto& u : user_formats()) targets.push_back(u);
  const std::uint64_t n = test::count(20000);
  Checker c;
  for (const Format& f : targets) {
    for (std::uint64_t i = 0; i < n; ++i) {
      const int bits = rng.range(1, 300);
      BigInt sig = 0;
      for (int w = 0; w < bits; w += 64) sig = (sig << 64) | BigInt(rng.next());
      sig >>= static_cast<unsigned>((bits + 63) / 64 * 64 - bits);
      sig |= BigInt(1) << (bits - 1);
      if (rng.below(2)) {  // a tie or near-tie tail at some position
        const unsigned pos = static_cast<unsigned>(rng.range(0, bits - 1));
        sig = ((sig >> pos) << pos) | (rng.below(2) ? BigInt(0) : BigInt(1));
      }
      const long lead = rng.range(f.emin - f.precision - 4, f.emax + 2);
      const ExactValue x = ExactValue::finite(f.is_signed && rng.below(2), sig, lead - (bits - 1));
      c.check_exact(f, x, kModes[i % 5], kOverflows[(i / 5) % 4]);
    }
  }
  std::printf("[formats] wide significand cases: %llu\n", static_cast<unsigned long long>(c.cases));
  CHECK(c.failures == 0);
}
