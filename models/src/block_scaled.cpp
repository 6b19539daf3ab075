// Block-scaled (MX) block FMA; see block_scaled.hpp.
#include "block_scaled.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "tcsim/sim/codec.hpp"

namespace tcsim::models::detail {

namespace {

// (-1)^negative * sig * 2^q, aligned as if its leading position were e_ref.
struct Term {
  bool negative = false;
  BigInt sig = 0;
  std::int64_t q = 0;
  std::int64_t e_ref = 0;
};

// Reference exponent of an operand: its leading bit when normal, emin when subnormal.
std::int64_t operand_ref(const Format& f, const Decoded& d) {
  return static_cast<std::int64_t>(d.exponent) + (f.precision - 1);
}

// Term in units of 2^lsb with the adder's alignment rounding and sticky rules.
BigInt align(const Term& t, std::int64_t lsb, Rounding mode, bool sticky) {
  const std::int64_t shift = t.q - lsb;
  BigInt mag;
  bool discarded = false;
  int half = -1;
  if (shift >= 0) {
    mag = t.sig << static_cast<unsigned>(shift);
  } else {
    const std::int64_t s = -shift;
    const std::int64_t len = t.sig == 0 ? 0 : msb(t.sig) + 1;
    if (s > len) {
      mag = 0;
      discarded = t.sig != 0;
    } else {
      const auto us = static_cast<unsigned>(s);
      mag = t.sig >> us;
      const BigInt rem = t.sig - (mag << us);
      const BigInt h = BigInt(1) << (us - 1);
      discarded = rem != 0;
      half = rem < h ? -1 : (rem == h ? 0 : 1);
    }
  }
  if (discarded) {
    bool up = false;
    switch (mode) {
      case Rounding::Down: up = t.negative; break;
      case Rounding::Up: up = !t.negative; break;
      case Rounding::NearestEven: up = half > 0 || (half == 0 && bit_test(mag, 0)); break;
      default: break;  // TowardZero: truncation of the magnitude
    }
    if (up) mag += 1;
  }
  if (sticky) {
    mag <<= 1;
    if (discarded) mag += 1;
  }
  return t.negative ? BigInt(-mag) : mag;
}

}  // namespace

std::uint64_t scaled_block_fma(const AdderConfig& cfg, int group_size, const Format& scale_format,
                               std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                               std::span<const std::uint64_t> sa, std::span<const std::uint64_t> sb,
                               std::uint64_t c) {
  const std::size_t k = a.size();
  if (b.size() != k || sa.size() != k || sb.size() != k)
    throw std::invalid_argument("scaled_block_fma: a, b and the per-product scales must have the same length");
  const Format& fa = cfg.a_format;
  const Format& fb = cfg.b_format;
  const Format& out = cfg.out_format;
  const std::uint64_t nan = cfg.nan_pattern ? *cfg.nan_pattern : out.canonical_nan();

  RoundingOptions ro;
  ro.mode = cfg.final_rounding;
  ro.overflow = cfg.overflow;
  ro.subnormals = cfg.subnormal_outputs ? SubnormalMode::Keep : SubnormalMode::Flush;

  auto read = [&](const Format& f, std::uint64_t bits, const char* field, std::size_t i) {
    if (bits & ~f.width_mask())
      throw std::invalid_argument(std::string(field) + "[" + std::to_string(i) + "] = " + bits_to_hex(f, bits) +
                                  " has bits above the " + std::to_string(f.width) + "-bit width of " + f.name);
    Decoded d = decode_parts(f, bits);
    if (!cfg.subnormal_inputs && d.cls == FpClass::Subnormal) {
      d.cls = FpClass::Zero;
      d.significand = 0;
    }
    return d;
  };

  bool any_nan = false, pos_inf = false, neg_inf = false, all_zero_negative = true;
  std::vector<Term> terms;
  // Group accumulators (group_size > 0): exact sums as ExactValue.
  const std::size_t g = group_size > 0 ? static_cast<std::size_t>(group_size) : 1;
  ExactValue group_sum = ExactValue::zero();
  bool group_has_product = false;

  for (std::size_t i = 0; i < k; ++i) {
    const Decoded x = read(fa, a[i], "a", i);
    const Decoded y = read(fb, b[i], "b", i);
    const Decoded s = read(scale_format, sa[i], "scale_a", i);
    const Decoded t = read(scale_format, sb[i], "scale_b", i);
    const bool neg = x.negative != y.negative;
    bool finite_nonzero = false;
    if (x.cls == FpClass::NaN || y.cls == FpClass::NaN || s.cls == FpClass::NaN || t.cls == FpClass::NaN) {
      any_nan = true;
    } else {
      const bool x_inf = x.cls == FpClass::Infinity, y_inf = y.cls == FpClass::Infinity;
      const bool zero = x.cls == FpClass::Zero || y.cls == FpClass::Zero || s.cls == FpClass::Zero ||
                        t.cls == FpClass::Zero;
      if (x_inf || y_inf || s.cls == FpClass::Infinity || t.cls == FpClass::Infinity) {
        if (zero) any_nan = true;
        else (neg ? neg_inf : pos_inf) = true;
        all_zero_negative = false;
      } else if (zero) {
        if (!neg) all_zero_negative = false;
      } else {
        all_zero_negative = false;
        finite_nonzero = true;
      }
    }
    if (finite_nonzero) {
      const BigInt sig = BigInt(x.significand) * y.significand;
      const std::int64_t q = static_cast<std::int64_t>(x.exponent) + y.exponent;
      if (group_size > 0) {
        group_sum = exact_add(group_sum, ExactValue::finite(neg, sig, q));
        group_has_product = true;
      } else {
        // Scales multiply into the product: significands and exponents.
        Term term;
        term.negative = neg;
        term.sig = sig * s.significand * t.significand;
        term.q = q + s.exponent + t.exponent;
        const auto lead = [](const Decoded& d) { return static_cast<std::int64_t>(msb(BigInt(d.significand))); };
        term.e_ref = operand_ref(fa, x) + operand_ref(fb, y) + s.exponent + lead(s) + t.exponent + lead(t);
        terms.push_back(std::move(term));
      }
    }
    if (group_size > 0 && (i + 1) % g == 0) {
      // Close the group: scale the exact sum by the group's scales (those of its first product).
      const std::size_t first = i + 1 - g;
      if (group_has_product && group_sum.is_finite()) {
        const Decoded s0 = read(scale_format, sa[first], "scale_a", first);
        const Decoded t0 = read(scale_format, sb[first], "scale_b", first);
        ExactValue v = exact_mul(group_sum, ExactValue::finite(false, BigInt(s0.significand) * t0.significand,
                                                               static_cast<std::int64_t>(s0.exponent) + t0.exponent));
        if (v.is_finite()) {
          Term term;
          term.negative = v.negative;
          term.sig = v.significand;
          term.q = v.exponent;
          term.e_ref = v.lead_exponent();
          terms.push_back(std::move(term));
        }
      }
      group_sum = ExactValue::zero();
      group_has_product = false;
    }
  }
  if (group_size > 0 && k % g != 0)
    throw std::invalid_argument("scaled_block_fma: the block length " + std::to_string(k) +
                                " is not a multiple of group_size " + std::to_string(group_size));

  if (c & ~out.width_mask())
    throw std::invalid_argument("c = " + bits_to_hex(out, c) + " has bits above the " + std::to_string(out.width) +
                                "-bit width of " + out.name);
  Decoded z = decode_parts(cfg.c_format, c);
  if (!cfg.subnormal_inputs && z.cls == FpClass::Subnormal) z.cls = FpClass::Zero;
  if (z.cls == FpClass::NaN) any_nan = true;
  else if (z.cls == FpClass::Infinity) {
    (z.negative ? neg_inf : pos_inf) = true;
    all_zero_negative = false;
  } else if (z.cls == FpClass::Zero) {
    if (!z.negative) all_zero_negative = false;
  } else {
    all_zero_negative = false;
    Term term;
    term.negative = z.negative;
    term.sig = z.significand;
    term.q = z.exponent;
    term.e_ref = operand_ref(cfg.c_format, z);
    terms.push_back(std::move(term));
  }

  if (any_nan || (pos_inf && neg_inf)) return nan;
  if (pos_inf || neg_inf) return round_to_format(ExactValue::infinity(neg_inf), out, ro).bits;
  const auto zero_result = [&](bool all_neg) {
    if (cfg.zero_sign == ZeroSign::Positive) return out.zero(false);
    return out.zero(all_neg || cfg.final_rounding == Rounding::Down);
  };
  if (terms.empty()) return zero_result(all_zero_negative);

  std::int64_t e = terms.front().e_ref;
  for (const Term& t : terms) e = std::max(e, t.e_ref);
  if (cfg.min_exponent) e = std::max<std::int64_t>(e, *cfg.min_exponent);
  const int sticky = cfg.sticky_bit ? 1 : 0;
  const std::int64_t lsb = e - cfg.fraction_bits - sticky;
  BigInt sum = 0;
  for (const Term& t : terms) sum += align(t, lsb, cfg.alignment_rounding, cfg.sticky_bit);
  const bool negative = sum < 0;
  BigInt mag = negative ? BigInt(-sum) : sum;
  const int register_bits = 1 + cfg.carry_bits + cfg.fraction_bits + sticky;
  if (mag != 0 && msb(mag) >= register_bits) mag &= (BigInt(1) << register_bits) - 1;  // carry wrap
  if (mag == 0) return zero_result(false);
  return round_to_format(ExactValue::finite(negative, std::move(mag), lsb), out, ro).bits;
}

}  // namespace tcsim::models::detail
