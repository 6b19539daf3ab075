// Random differential tests of the adder:
//  - against a slow, obviously-right model of the deferred datapath written here with
//    unbounded integers and value-level floor/ceil (covers the 128-bit and the wide path);
//  - per-step binary32 RNE against the host's fmaf chain and float additions.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <vector>

#include "tcsim/sim/adder.hpp"
#include "tcsim/sim/codec.hpp"
#include "test_support.hpp"

using namespace tcsim;

namespace {

// Random pattern of `f`, biased towards extreme exponents, subnormals and special values.
std::uint64_t random_bit_pattern(test::Rng& rng, const Format& f, bool allow_special) {
  const std::uint64_t sign = f.is_signed && (rng.next() & 1) ? f.sign_mask() : 0;
  const int ebits = f.exponent_bits, fbits = f.fraction_bits;
  std::uint64_t frac = rng.next() & ((std::uint64_t{1} << fbits) - 1);
  switch (rng.below(6)) {
    case 0: frac = (std::uint64_t{1} << fbits) - 1; break;                     // all ones
    case 1: frac = fbits ? std::uint64_t{1} << rng.below(fbits) : 0; break;  // one bit
    case 2: frac = 0; break;
    default: break;
  }
  const std::uint64_t emax_field = (std::uint64_t{1} << ebits) - 1;
  std::uint64_t e;
  switch (rng.below(5)) {
    case 0: e = 0; break;                            // zero / subnormal
    case 1: e = 1 + rng.below(3); break;             // bottom of the range
    case 2: e = emax_field - 1 - rng.below(3); break;  // top of the range
    default: e = (emax_field >> 1) - 4 + rng.below(9); break;  // around 1
  }
  std::uint64_t bits = sign | (e << fbits) | frac;
  if (!allow_special) {
    const FpClass cls = classify(f, bits);
    if (cls == FpClass::NaN || cls == FpClass::Infinity) bits = sign | ((emax_field - 1) << fbits) | frac;
  }
  return bits;
}

// floor/ceil/round of v / 2^s for a signed BigInt v and s > 0, per alignment mode.
BigInt scale_down(const BigInt& v, std::int64_t s, Rounding mode) {
  if (s <= 0) return v << static_cast<unsigned>(-s);
  const BigInt d = BigInt(1) << static_cast<unsigned>(s);
  const bool neg = v < 0;
  const BigInt m = neg ? BigInt(-v) : v;
  BigInt q = m / d;
  const BigInt r = m % d;
  bool up = false;
  if (r != 0) {
    switch (mode) {
      case Rounding::TowardZero: break;
      case Rounding::Down: up = neg; break;
      case Rounding::Up: up = !neg; break;
      case Rounding::NearestEven: up = 2 * r > d || (2 * r == d && (q % 2) == 1); break;
      default: break;
    }
  }
  if (up) q += 1;
  return neg ? BigInt(-q) : q;
}

// The deferred datapath, written for clarity: finite nonzero inputs only.
std::uint64_t slow_model(const AdderConfig& cfg, const std::vector<std::uint64_t>& a,
                         const std::vector<std::uint64_t>& b, std::uint64_t c) {
  struct T { BigInt v; std::int64_t q; std::int64_t e; };  // value v * 2^q, reference exponent e
  std::vector<T> terms;
  bool all_zero_negative = true, all_zero_positive = true;  // IEEE 754 6.3 zero signs
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Decoded x = decode_parts(cfg.a_format, a[i]), y = decode_parts(cfg.b_format, b[i]);
    (x.negative == y.negative ? all_zero_negative : all_zero_positive) = false;
    if (x.cls == FpClass::Zero || y.cls == FpClass::Zero) continue;
    BigInt v = BigInt(x.significand) * y.significand;
    if (x.negative != y.negative) v = -v;
    terms.push_back({v, x.exponent + y.exponent,
                     static_cast<std::int64_t>(x.exponent + cfg.a_format.precision - 1) + y.exponent +
                         cfg.b_format.precision - 1});
  }
  const Decoded z = decode_parts(cfg.c_format, c);
  (z.negative ? all_zero_positive : all_zero_negative) = false;
  if (z.cls != FpClass::Zero)
    terms.push_back({z.negative ? BigInt(-BigInt(z.significand)) : BigInt(z.significand), z.exponent,
                     z.exponent + cfg.c_format.precision - 1});
  if (terms.empty())
    return cfg.out_format.zero(all_zero_negative || (!all_zero_positive && cfg.final_rounding == Rounding::Down));
  std::int64_t e = terms[0].e;
  for (const T& t : terms) e = std::max(e, t.e);
  if (cfg.min_exponent) e = std::max<std::int64_t>(e, *cfg.min_exponent);
  const std::int64_t lsb = e - cfg.fraction_bits;  // kept bits; sticky one below
  BigInt sum = 0;
  for (const T& t : terms) {
    BigInt kept = scale_down(t.v, lsb - t.q, cfg.alignment_rounding);
    if (cfg.sticky_bit) {
      // dropped: some nonzero bit below 2^lsb, i.e. v * 2^q is not a multiple of 2^lsb.
      const bool dropped = lsb - t.q > 0 && (t.v % (BigInt(1) << static_cast<unsigned>(lsb - t.q))) != 0;
      kept = 2 * kept + (dropped ? (t.v < 0 ? -1 : 1) : 0);
    }
    sum += kept;
  }
  const int sticky = cfg.sticky_bit ? 1 : 0;
  const BigInt limit = BigInt(1) << (1 + cfg.carry_bits + cfg.fraction_bits + sticky);
  const bool neg = sum < 0;
  BigInt mag = neg ? BigInt(-sum) : sum;
  mag %= limit;
  if (mag == 0) return cfg.final_rounding == Rounding::Down ? cfg.out_format.zero(true) : cfg.out_format.zero(false);
  RoundingOptions o;
  o.mode = cfg.final_rounding;
  o.overflow = cfg.overflow;
  return round_to_format(ExactValue::finite(neg, mag, lsb - sticky), cfg.out_format, o).bits;
}

const Rounding kAlign[] = {Rounding::TowardZero, Rounding::Down, Rounding::Up, Rounding::NearestEven};
const Rounding kFinal[] = {Rounding::TowardZero, Rounding::Down, Rounding::Up, Rounding::NearestEven,
                           Rounding::ToOdd};

std::string hexes(const Format& f, const std::vector<std::uint64_t>& v) {
  std::string s;
  for (auto x : v) s += bits_to_hex(f, x) + " ";
  return s;
}

}  // namespace

TEST_CASE("deferred adder equals a slow unbounded-integer model on random configurations", "[adder][random]") {
  const std::uint64_t seed = test::seed("adder slow model", 20261122);
  test::Rng rng(seed);
  const Format* ins[] = {&formats::fp16(), &formats::bf16(), &formats::tf32(), &formats::e4m3(),
                         &formats::e5m2(), &formats::fp32()};
  const Format* outs[] = {&formats::fp32(), &formats::fp16(), &formats::bf16()};
  const std::uint64_t configs = test::count(400), cases = 500;
  for (std::uint64_t ci = 0; ci < configs; ++ci) {
    AdderConfig cfg;
    cfg.a_format = cfg.b_format = *ins[rng.below(6)];
    cfg.c_format = cfg.out_format = *outs[rng.below(3)];
    // F across both integer paths: up to ~150 exceeds 128 bits.
    cfg.fraction_bits = static_cast<int>(rng.below(4) == 0 ? rng.below(160) : rng.below(40));
    cfg.carry_bits = static_cast<int>(rng.below(7));
    cfg.alignment_rounding = kAlign[rng.below(4)];
    cfg.final_rounding = kFinal[rng.below(5)];
    cfg.sticky_bit = rng.below(3) == 0;
    if (rng.below(3) == 0) cfg.min_exponent = rng.range(-160, 10);
    const FixedPointAdder adder(cfg);
    for (std::uint64_t n = 0; n < cases; ++n) {
      const std::size_t k = 1 + rng.below(rng.below(4) == 0 ? 40 : 9);
      std::vector<std::uint64_t> a(k), b(k);
      for (std::size_t i = 0; i < k; ++i) {
        a[i] = random_bit_pattern(rng, cfg.a_format, false);
        b[i] = random_bit_pattern(rng, cfg.b_format, false);
      }
      const std::uint64_t c = random_bit_pattern(rng, cfg.c_format, false);
      const std::uint64_t got = adder.dot(a, b, c), want = slow_model(cfg, a, b, c);
      if (got != want) {
        FAIL_CHECK(cfg.describe() << "\n a = " << hexes(cfg.a_format, a) << "\n b = " << hexes(cfg.b_format, b)
                                  << "\n c = " << bits_to_hex(cfg.c_format, c) << "\n adder "
                                  << bits_to_hex(cfg.out_format, got) << " model "
                                  << bits_to_hex(cfg.out_format, want) << " (seed " << seed << ")");
        return;
      }
    }
  }
  SUCCEED("configurations: " << configs << " x " << cases << " cases");
}

TEST_CASE("per-step binary32 RNE equals the host's fmaf chain and float additions", "[adder][random]") {
  const std::uint64_t seed = test::seed("adder per-step vs fmaf", 7);
  test::Rng rng(seed);
  AdderConfig seq = exact_adder_config(formats::fp32(), formats::fp32(), 2);
  seq.normalization = Normalization::PerStep;
  seq.order = AccumulationOrder::Sequential;
  const FixedPointAdder chain(seq);
  // Pairwise over binary16 inputs: their products are exact in binary32, so the tree is
  // plain float additions of the products, then c.
  AdderConfig pw = exact_adder_config(formats::fp16(), formats::fp32(), 2);
  pw.normalization = Normalization::PerStep;
  pw.order = AccumulationOrder::Pairwise;
  const FixedPointAdder tree(pw);
  const std::uint64_t n = test::count(200000);
  for (std::uint64_t it = 0; it < n; ++it) {
    const std::size_t k = 1 + rng.below(8);
    std::vector<std::uint64_t> a(k), b(k);
    for (std::size_t i = 0; i < k; ++i) {
      a[i] = random_bit_pattern(rng, formats::fp32(), true);
      b[i] = random_bit_pattern(rng, formats::fp32(), true);
    }
    const std::uint64_t c = random_bit_pattern(rng, formats::fp32(), true);
    float acc = float_of_bits(static_cast<std::uint32_t>(c));
    for (std::size_t i = 0; i < k; ++i)
      acc = std::fma(float_of_bits(static_cast<std::uint32_t>(a[i])), float_of_bits(static_cast<std::uint32_t>(b[i])), acc);
    const std::uint64_t got = chain.dot(a, b, c);
    const std::uint32_t want = bits_of_float(acc);
    const bool both_nan = std::isnan(acc) && classify(formats::fp32(), got) == FpClass::NaN;
    if (!both_nan && got != want) {
      FAIL_CHECK("fmaf chain: a = " << hexes(formats::fp32(), a) << " b = " << hexes(formats::fp32(), b) << " c = "
                                    << bits_to_hex(formats::fp32(), c) << ": adder "
                                    << bits_to_hex(formats::fp32(), got) << " host "
                                    << bits_to_hex(formats::fp32(), want) << " (seed " << seed << ")");
      return;
    }
    // Pairwise tree on binary16 operands.
    std::vector<std::uint64_t> ha(k), hb(k);
    std::vector<float> level;
    for (std::size_t i = 0; i < k; ++i) {
      ha[i] = random_bit_pattern(rng, formats::fp16(), true);
      hb[i] = random_bit_pattern(rng, formats::fp16(), true);
      level.push_back(static_cast<float>(to_double(decode(formats::fp16(), ha[i])) *
                                         to_double(decode(formats::fp16(), hb[i]))));
    }
    while (level.size() > 1) {
      std::vector<float> up;
      for (std::size_t i = 0; i + 1 < level.size(); i += 2) up.push_back(level[i] + level[i + 1]);
      if (level.size() % 2) up.push_back(level.back());
      level = up;
    }
    const float host = level[0] + float_of_bits(static_cast<std::uint32_t>(c));
    const std::uint64_t sim = tree.dot(ha, hb, c);
    const bool nan2 = std::isnan(host) && classify(formats::fp32(), sim) == FpClass::NaN;
    // IEEE: -0 + -0 = -0 in the host; the tree agrees. Compare patterns exactly.
    if (!nan2 && sim != bits_of_float(host)) {
      FAIL_CHECK("pairwise: a = " << hexes(formats::fp16(), ha) << " b = " << hexes(formats::fp16(), hb) << " c = "
                                  << bits_to_hex(formats::fp32(), c) << ": adder "
                                  << bits_to_hex(formats::fp32(), sim) << " host "
                                  << bits_to_hex(formats::fp32(), bits_of_float(host)) << " (seed " << seed << ")");
      return;
    }
  }
  SUCCEED(n << " chains");
}
