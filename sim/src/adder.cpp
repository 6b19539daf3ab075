// The fixed-point multi-operand adder (see adder.hpp for the datapath).
//
// The register is an exact integer in units of 2^lsb. Two integer types serve: a 128-bit
// one when the configuration provably fits (every aligned term is below 2^(F+3) units and
// there are at most a few thousand of them), and Boost's unbounded cpp_int otherwise
// (wide "exact" configurations, fp64 exponent spreads). Both run the same template code.
#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

#include "tcsim/sim/adder.hpp"
#include "tcsim/sim/codec.hpp"

namespace tcsim {
namespace {

using u128 = unsigned __int128;
using i128 = __int128;

// One addend: (-1)^negative * sig * 2^q, aligned as if its leading position were e_ref.
struct Term {
  bool inf = false;  // an infinite product or c (per-step mode keeps them in order)
  bool negative = false;
  u128 sig = 0;
  std::int64_t q = 0;
  std::int64_t e_ref = 0;
};

int bit_length(u128 v) {
  const auto hi = static_cast<std::uint64_t>(v >> 64);
  if (hi) return 128 - __builtin_clzll(hi);
  const auto lo = static_cast<std::uint64_t>(v);
  return lo ? 64 - __builtin_clzll(lo) : 0;
}

BigInt to_big(u128 v) {
  BigInt r = static_cast<std::uint64_t>(v >> 64);
  r <<= 64;
  r |= static_cast<std::uint64_t>(v);
  return r;
}

// Integer-type adaptors, so that the alignment code is written once.
BigInt magnitude_as_big(const BigInt& v) { return v < 0 ? BigInt(-v) : v; }
BigInt magnitude_as_big(i128 v) { return to_big(v < 0 ? static_cast<u128>(-v) : static_cast<u128>(v)); }
template <class Int>
Int from_u128(u128 v) {
  if constexpr (std::is_same_v<Int, i128>) return static_cast<i128>(v);
  else return to_big(v);
}

// Result of dropping the low `s` bits of a magnitude.
struct Split {
  bool discarded = false;  // any nonzero bit dropped
  int half = -1;           // dropped part compared with half an ulp: -1 below, 0 equal, 1 above
};

// Applies the alignment rounding to a kept magnitude and appends the sticky bit: the
// step shared by the 128-bit and the wide alignment. `odd`: the kept magnitude's last bit.
template <class Int>
Int finish_alignment(Int mag, const Split& sp, bool negative, bool odd, Rounding mode, bool sticky, bool& inexact) {
  if (sp.discarded) {
    inexact = true;
    bool up = false;
    switch (mode) {
      case Rounding::TowardZero: break;
      case Rounding::Down: up = negative; break;
      case Rounding::Up: up = !negative; break;
      case Rounding::NearestEven: up = sp.half > 0 || (sp.half == 0 && odd); break;
      default: break;  // rejected by AdderConfig::validate
    }
    if (up) mag += 1;
  }
  if (sticky) {
    mag <<= 1;
    if (sp.discarded) mag += 1;
  }
  return negative ? Int(-mag) : mag;
}

// Shifts a term into units of 2^lsb (the register's last bit), rounding the dropped bits
// per `mode` (applied to the signed value: Down is the floor of two's complement). With a
// sticky bit, the kept bits end one position above lsb and the OR of the dropped bits
// fills that last position.
template <class Int>
Int align(const Term& t, std::int64_t lsb, Rounding mode, bool sticky, bool& inexact) {
  const std::int64_t shift = t.q - lsb - (sticky ? 1 : 0);
  Int mag;
  Split sp;
  if (shift >= 0) {
    mag = from_u128<Int>(t.sig) << static_cast<unsigned>(shift);
  } else {
    const std::int64_t s = -shift;
    if (s >= 128) {
      mag = 0;
      sp.discarded = t.sig != 0;
      sp.half = -1;  // sig < 2^107 <= 2^(s-1)
    } else {
      const u128 kept = t.sig >> s;
      const u128 rem = t.sig & ((u128{1} << s) - 1);
      const u128 half = u128{1} << (s - 1);
      sp.discarded = rem != 0;
      sp.half = rem < half ? -1 : (rem == half ? 0 : 1);
      mag = from_u128<Int>(kept);
    }
  }
  bool odd;
  if constexpr (std::is_same_v<Int, i128>) odd = (mag & 1) != 0;
  else odd = bit_test(mag, 0);
  return finish_alignment<Int>(mag, sp, t.negative, odd, mode, sticky, inexact);
}

// Exact value of a BigInt significand term for the per-step and late-c paths.
struct WideTerm {
  bool negative = false;
  BigInt sig = 0;
  std::int64_t q = 0;
};

// Aligns a wide term into units of 2^lsb (BigInt version of align()).
BigInt align_wide(const WideTerm& t, std::int64_t lsb, Rounding mode, bool sticky, bool& inexact) {
  const std::int64_t shift = t.q - lsb - (sticky ? 1 : 0);
  BigInt mag;
  Split sp;
  if (shift >= 0) {
    mag = t.sig << static_cast<unsigned>(shift);
  } else {
    const std::int64_t s = -shift;
    const std::int64_t len = t.sig == 0 ? 0 : msb(t.sig) + 1;
    if (s > len) {
      mag = 0;
      sp.discarded = t.sig != 0;
      sp.half = -1;
    } else {
      const auto us = static_cast<unsigned>(s);
      mag = t.sig >> us;
      const BigInt rem = t.sig - (mag << us);
      const BigInt half = BigInt(1) << (us - 1);
      sp.discarded = rem != 0;
      sp.half = rem < half ? -1 : (rem == half ? 0 : 1);
    }
  }
  const bool odd = bit_test(mag, 0);
  return finish_alignment<BigInt>(std::move(mag), sp, t.negative, odd, mode, sticky, inexact);
}

// What decoding the operands found.
struct Gathered {
  std::vector<Term> products;    // every product in order (zeros with sig 0, infinities flagged)
  Term c;                        // c (sig 0 when c is zero)
  bool nan = false, pos_inf = false, neg_inf = false;
  bool all_zero_negative = true;  // every term is -0 (IEEE 754 6.3: then the sum is -0)
  bool all_zero_positive = true;  // every term is +0 (then +0 in every rounding mode)
};

void check_bits(const Format& f, std::uint64_t bits, const char* field, std::size_t i) {
  if (bits & ~f.width_mask())
    throw std::invalid_argument(std::string(field) + "[" + std::to_string(i) + "] = " + bits_to_hex(f, bits) +
                                " has bits above the " + std::to_string(f.width) + "-bit width of " + f.name);
}

// Decodes an operand: for a and b (`truncate`), first clears the encoding's fraction bits
// beyond input_fraction_bits (a bit-level truncation, as X25 models xf32: a NaN whose payload
// sits only in those bits becomes an Inf); flushes a subnormal when the config says so (to +0
// with flush_inputs_positive).
Decoded read(const AdderConfig& cfg, const Format& f, std::uint64_t bits, bool truncate) {
  if (truncate && cfg.input_fraction_bits)
    bits &= ~((std::uint64_t{1} << (f.precision - 1 - *cfg.input_fraction_bits)) - 1);
  Decoded d = decode_parts(f, bits);
  if (!cfg.subnormal_inputs && d.cls == FpClass::Subnormal) {
    d.cls = FpClass::Zero;
    d.significand = 0;
    if (cfg.flush_inputs_positive) d.negative = false;
  }
  return d;
}

Gathered gather(const AdderConfig& cfg, std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                std::uint64_t c) {
  Gathered g;
  g.products.reserve(a.size());
  const int pa = cfg.a_format.precision, pb = cfg.b_format.precision, pc = cfg.c_format.precision;
  const bool normalized = cfg.product_exponent == ProductExponent::Normalized;
  for (std::size_t i = 0; i < a.size(); ++i) {
    check_bits(cfg.a_format, a[i], "a", i);
    check_bits(cfg.b_format, b[i], "b", i);
    const Decoded x = read(cfg, cfg.a_format, a[i], true);
    const Decoded y = read(cfg, cfg.b_format, b[i], true);
    const bool neg = x.negative != y.negative;
    if (x.cls == FpClass::NaN || y.cls == FpClass::NaN) {
      g.nan = true;
      continue;
    }
    const bool x_inf = x.cls == FpClass::Infinity, y_inf = y.cls == FpClass::Infinity;
    const bool x_zero = x.cls == FpClass::Zero, y_zero = y.cls == FpClass::Zero;
    if (x_inf || y_inf) {
      if (x_zero || y_zero) {
        g.nan = true;  // Inf * 0
      } else {
        (neg ? g.neg_inf : g.pos_inf) = true;
        Term t;
        t.inf = true;
        t.negative = neg;
        g.products.push_back(t);
      }
      g.all_zero_negative = g.all_zero_positive = false;
      continue;
    }
    if (x_zero || y_zero) {
      // Kept (sig 0) so that per-step orders see every position; the fused sum skips it.
      (neg ? g.all_zero_positive : g.all_zero_negative) = false;
      Term t;
      t.negative = neg;
      g.products.push_back(t);
      continue;
    }
    g.all_zero_negative = g.all_zero_positive = false;
    Term t;
    t.negative = neg;
    t.sig = static_cast<u128>(x.significand) * y.significand;
    t.q = static_cast<std::int64_t>(x.exponent) + y.exponent;
    t.e_ref = normalized ? t.q + bit_length(t.sig) - 1
                         : static_cast<std::int64_t>(x.exponent) + (pa - 1) + y.exponent + (pb - 1);
    if (cfg.product_overflow_inf && t.q + bit_length(t.sig) - 1 > cfg.out_format.emax) {
      (neg ? g.neg_inf : g.pos_inf) = true;
      t.inf = true;
      t.sig = 0;
    }
    g.products.push_back(t);
  }
  check_bits(cfg.c_format, c, "c", 0);
  const Decoded z = read(cfg, cfg.c_format, c, false);
  g.c.negative = z.negative;
  if (z.cls == FpClass::NaN) {
    g.nan = true;
  } else if (z.cls == FpClass::Infinity) {
    (z.negative ? g.neg_inf : g.pos_inf) = true;
    g.c.inf = true;
    g.all_zero_negative = g.all_zero_positive = false;
  } else if (z.cls == FpClass::Zero) {
    (z.negative ? g.all_zero_positive : g.all_zero_negative) = false;
  } else {
    g.all_zero_negative = g.all_zero_positive = false;
    g.c.sig = z.significand;
    g.c.q = z.exponent;
    g.c.e_ref = normalized ? g.c.q + bit_length(g.c.sig) - 1 : static_cast<std::int64_t>(z.exponent) + (pc - 1);
  }
  return g;
}

RoundingOptions final_options(const AdderConfig& cfg, std::uint64_t random) {
  RoundingOptions o;
  o.mode = cfg.final_rounding;
  o.overflow = cfg.overflow;
  o.subnormals = cfg.subnormal_outputs ? SubnormalMode::Keep : SubnormalMode::Flush;
  o.random = random;
  o.random_bits = 64;
  return o;
}

std::uint64_t nan_bits(const AdderConfig& cfg) {
  return cfg.nan_pattern ? *cfg.nan_pattern : cfg.out_format.canonical_nan();
}

// A zero sum: IEEE's sign rule (-0 only when every term is -0, or under RD).
// An exact zero sum (IEEE 754 6.3): zeros of one sign keep it; otherwise (zeros of both
// signs, or nonzero terms that cancel) +0, except -0 when rounding toward -inf.
// ZeroSign::Positive: +0 whatever the terms and the mode.
std::uint64_t zero_result(const AdderConfig& cfg, bool all_negative, bool all_positive = false) {
  if (cfg.zero_sign == ZeroSign::Positive) return cfg.out_format.zero(false);
  const bool neg = all_negative || (!all_positive && cfg.final_rounding == Rounding::Down);
  return cfg.out_format.zero(neg);
}

std::uint64_t round_out(const AdderConfig& cfg, bool negative, BigInt mag, std::int64_t lsb, std::uint64_t random) {
  return round_to_format(ExactValue::finite(negative, std::move(mag), lsb), cfg.out_format,
                         final_options(cfg, random)).bits;
}

// Sum of aligned terms in units of 2^lsb, wrapped to the register width.
template <class Int>
BigInt fused_sum(const AdderConfig& cfg, const std::vector<const Term*>& terms, std::int64_t lsb,
                 int register_bits, bool& negative, AdderTrace* trace) {
  Int sum = 0;
  bool inexact = false;
  for (const Term* t : terms) sum += align<Int>(*t, lsb, cfg.alignment_rounding, cfg.sticky_bit, inexact);
  negative = sum < 0;
  BigInt mag = magnitude_as_big(sum);
  // The magnitude may outgrow 1 + carry_bits integer bits: the register keeps its low bits.
  bool wrapped = false;
  if (mag != 0 && msb(mag) >= register_bits) {
    mag &= (BigInt(1) << register_bits) - 1;
    wrapped = true;
  }
  if (trace) {
    trace->register_value = negative ? BigInt(-mag) : mag;
    trace->wrapped = wrapped;
    trace->alignment_inexact = inexact;
  }
  return mag;
}

// Sum of `terms` aligned to the largest e_ref with F bits; returns |S| and its sign.
BigInt aligned_sum(const AdderConfig& cfg, const std::vector<const Term*>& terms, std::int64_t& lsb,
                   bool& negative, AdderTrace* trace) {
  std::int64_t e = terms.front()->e_ref;
  for (const Term* t : terms) e = std::max(e, t->e_ref);
  if (cfg.min_exponent) e = std::max<std::int64_t>(e, *cfg.min_exponent);
  const int sticky = cfg.sticky_bit ? 1 : 0;
  lsb = e - cfg.fraction_bits - sticky;
  const int register_bits = 1 + cfg.carry_bits + cfg.fraction_bits + sticky;
  if (trace) {
    trace->reference_exponent = e;
    trace->lsb_exponent = lsb;
  }
  // Terms are below 2^(F+sticky+3) units after rounding; their sum gains bit_length(n).
  const int need = cfg.fraction_bits + sticky + 4 + bit_length(terms.size() + 1);
  return need <= 124 ? fused_sum<i128>(cfg, terms, lsb, register_bits, negative, trace)
                     : fused_sum<BigInt>(cfg, terms, lsb, register_bits, negative, trace);
}

// A signed exact value sig * 2^lsb (sig a BigInt of either sign), rounded to a multiple of
// 2^new_lsb with `mode` (no sticky): the operand roundings of c_placement After.
BigInt round_at(const BigInt& sig, std::int64_t lsb, std::int64_t new_lsb, Rounding mode) {
  if (sig == 0) return 0;
  bool inexact = false;
  const WideTerm t{sig < 0, sig < 0 ? BigInt(-sig) : sig, lsb};
  return align_wide(t, new_lsb, mode, false, inexact);
}

// c_placement After (AfterAdd in adder.hpp): interleaved groups of products, each a fused sum
// truncated at F below its own largest product, combined at F below e_dot; then the
// two-operand add with c, each operand rounded to its own width; then the final rounding.
std::uint64_t after_sum(const AdderConfig& cfg, const Gathered& g, std::uint64_t random) {
  const int groups = cfg.product_groups;
  const int F = cfg.fraction_bits;
  bool any_product = false;
  std::int64_t e_dot = 0;
  BigInt s = 0;  // products' sum in units of 2^(e_dot - F)
  {
    std::vector<std::vector<const Term*>> members(static_cast<std::size_t>(groups));
    for (std::size_t i = 0; i < g.products.size(); ++i)
      if (g.products[i].sig != 0) members[i % static_cast<std::size_t>(groups)].push_back(&g.products[i]);
    std::vector<BigInt> sums;
    std::vector<std::int64_t> lsbs;
    for (const auto& m : members) {
      if (m.empty()) continue;
      std::int64_t e = m.front()->e_ref;
      for (const Term* t : m) e = std::max(e, t->e_ref);
      const std::int64_t lsb = e - F;
      BigInt sum = 0;
      bool inexact = false;
      for (const Term* t : m)
        sum += align_wide(WideTerm{t->negative, to_big(t->sig), t->q}, lsb, cfg.alignment_rounding, false, inexact);
      sums.push_back(std::move(sum));
      lsbs.push_back(lsb);
      e_dot = any_product ? std::max(e_dot, e) : e;
      any_product = true;
    }
    // One group: its sum is S as it stands; several: each rounded at F below e_dot.
    for (std::size_t j = 0; j < sums.size(); ++j)
      s += sums.size() == 1 ? sums[j] : round_at(sums[j], lsbs[j], e_dot - F, cfg.after.rounding);
  }
  const bool c_nonzero = g.c.sig != 0;
  const std::int64_t e_c = c_nonzero ? g.c.e_ref : cfg.c_format.emin;
  const std::int64_t E = any_product ? std::max(e_dot, e_c) : e_c;
  const std::int64_t lsb = E - std::max(cfg.after.sum_fraction_bits, cfg.after.c_fraction_bits);
  BigInt total = 0;
  if (s != 0) {
    const BigInt r = round_at(s, e_dot - F, E - cfg.after.sum_fraction_bits, cfg.after.rounding);
    total += r << static_cast<unsigned>(E - cfg.after.sum_fraction_bits - lsb);
  }
  const bool drop_c = cfg.after.drop_c_below && e_c < E - *cfg.after.drop_c_below;
  if (c_nonzero && !drop_c) {
    const BigInt cs = g.c.negative ? BigInt(-to_big(g.c.sig)) : to_big(g.c.sig);
    const BigInt r = round_at(cs, g.c.q, E - cfg.after.c_fraction_bits, cfg.after.rounding);
    total += r << static_cast<unsigned>(E - cfg.after.c_fraction_bits - lsb);
  }
  if (total == 0) return zero_result(cfg, g.all_zero_negative && !any_product, g.all_zero_positive);
  std::int64_t out_lsb = lsb;
  if (cfg.after.renormalize_fraction_bits) {
    const std::int64_t lead = std::max<std::int64_t>(lsb + msb(total < 0 ? BigInt(-total) : total), cfg.out_format.emin);
    const std::int64_t new_lsb = lead - *cfg.after.renormalize_fraction_bits;
    if (new_lsb > lsb) {
      total = round_at(total, lsb, new_lsb, cfg.after.rounding);
      out_lsb = new_lsb;
    }
    if (total == 0) return zero_result(cfg, false);
  }
  const bool negative = total < 0;
  return round_out(cfg, negative, negative ? BigInt(-total) : total, out_lsb, random);
}

std::uint64_t deferred(const AdderConfig& cfg, const Gathered& g, AdderTrace* trace, std::uint64_t random) {
  std::vector<const Term*> terms;
  terms.reserve(g.products.size() + 1);
  for (const Term& t : g.products)
    if (t.sig != 0) terms.push_back(&t);
  const bool c_nonzero = g.c.sig != 0;
  if (cfg.c_placement == CPlacement::Aligned && c_nonzero) terms.push_back(&g.c);
  if (cfg.c_placement == CPlacement::After) return after_sum(cfg, g, random);
  if (terms.empty() && !(cfg.c_placement == CPlacement::Late && c_nonzero))
    return zero_result(cfg, g.all_zero_negative, g.all_zero_positive);

  if (cfg.c_placement == CPlacement::Aligned) {
    std::int64_t lsb;
    bool negative;
    BigInt mag = aligned_sum(cfg, terms, lsb, negative, trace);
    if (mag == 0) return zero_result(cfg, false);
    return round_out(cfg, negative, std::move(mag), lsb, random);
  }

  // Late c: the products' register value, normalized, meets c in a two-term alignment.
  WideTerm p;
  if (!terms.empty()) {
    std::int64_t lsb;
    p.sig = aligned_sum(cfg, terms, lsb, p.negative, trace);
    p.q = lsb;
  }
  if (cfg.late_products_rounding && p.sig != 0) {
    RoundingOptions o = final_options(cfg, random);
    o.mode = *cfg.late_products_rounding;
    const Decoded r = decode_parts(cfg.out_format, round_to_format(ExactValue::finite(p.negative, p.sig, p.q),
                                                                   cfg.out_format, o).bits);
    if (r.cls == FpClass::Infinity || r.cls == FpClass::NaN) {
      const bool neg = r.negative;
      return r.cls == FpClass::NaN ? nan_bits(cfg)
                                   : round_to_format(ExactValue::infinity(neg), cfg.out_format, final_options(cfg, random)).bits;
    }
    p.sig = r.significand;
    p.q = r.exponent;
  }
  if (p.sig == 0 && !c_nonzero) return zero_result(cfg, false);
  const WideTerm c{g.c.negative, to_big(g.c.sig), g.c.q};
  std::int64_t e = p.sig != 0 ? p.q + msb(p.sig) : g.c.e_ref;
  if (c_nonzero) e = std::max(e, g.c.e_ref);
  if (cfg.min_exponent) e = std::max<std::int64_t>(e, *cfg.min_exponent);
  const std::int64_t lsb = e - cfg.fraction_bits - (cfg.sticky_bit ? 1 : 0);
  bool inexact = false;
  BigInt sum = 0;
  if (p.sig != 0) sum += align_wide(p, lsb, cfg.alignment_rounding, cfg.sticky_bit, inexact);
  if (c_nonzero) sum += align_wide(c, lsb, cfg.alignment_rounding, cfg.sticky_bit, inexact);
  if (sum == 0) return zero_result(cfg, false);
  const bool negative = sum < 0;
  return round_out(cfg, negative, negative ? BigInt(-sum) : sum, lsb, random);
}

// ---- per-step normalization: every partial sum is rounded to the output format ----

struct Partial {
  bool zero = true;
  bool negative = false;  // sign (of the zero, too)
  bool inf = false;
  bool nan = false;
  WideTerm value;         // when !zero && !inf
};

Partial from_term(const Term& t) {
  Partial p;
  p.inf = t.inf;
  p.zero = !t.inf && t.sig == 0;
  p.negative = t.negative;
  p.value = WideTerm{t.negative, to_big(t.sig), t.q};
  return p;
}

Partial from_bits(const Format& f, std::uint64_t bits) {
  const Decoded d = decode_parts(f, bits);
  Partial p;
  p.negative = d.negative;
  if (d.cls == FpClass::Infinity) {
    p.zero = false;
    p.inf = true;
  } else if (d.cls == FpClass::NaN) {  // overflow into a format without infinities
    p.zero = false;
    p.nan = true;
  } else if (d.cls != FpClass::Zero && d.cls != FpClass::NaN) {
    p.zero = false;
    p.value = WideTerm{d.negative, BigInt(d.significand), d.exponent};
  }
  return p;
}

// x + y: aligned to the larger leading bit with F bits, normalized, rounded to out.
Partial add_step(const AdderConfig& cfg, const Partial& x, const Partial& y, std::uint64_t random) {
  if (x.nan) return x;
  if (y.nan) return y;
  if (x.inf && y.inf && x.negative != y.negative) {
    Partial n;
    n.zero = false;
    n.nan = true;
    return n;
  }
  if (x.inf) return x;
  if (y.inf) return y;
  const Format& out = cfg.out_format;
  const RoundingOptions opt = final_options(cfg, random);
  if (x.zero && y.zero) {
    Partial z;
    z.negative = (x.negative && y.negative) || (x.negative != y.negative && cfg.final_rounding == Rounding::Down);
    return z;
  }
  std::int64_t e = std::numeric_limits<std::int64_t>::min();
  if (!x.zero) e = std::max(e, x.value.q + msb(x.value.sig));
  if (!y.zero) e = std::max(e, y.value.q + msb(y.value.sig));
  const std::int64_t lsb = e - cfg.fraction_bits - (cfg.sticky_bit ? 1 : 0);
  bool inexact = false;
  BigInt sum = 0;
  if (!x.zero) sum += align_wide(x.value, lsb, cfg.alignment_rounding, cfg.sticky_bit, inexact);
  if (!y.zero) sum += align_wide(y.value, lsb, cfg.alignment_rounding, cfg.sticky_bit, inexact);
  if (sum == 0) {
    Partial z;
    z.negative = cfg.final_rounding == Rounding::Down;
    return z;
  }
  const bool negative = sum < 0;
  const RoundResult r = round_to_format(ExactValue::finite(negative, negative ? BigInt(-sum) : sum, lsb), out, opt);
  return from_bits(out, r.bits);
}

std::uint64_t per_step(const AdderConfig& cfg, const Gathered& g, std::uint64_t random) {
  std::vector<Partial> products;
  products.reserve(g.products.size());
  for (const Term& t : g.products) {
    Partial p = from_term(t);
    if (cfg.product_rounding && !p.zero && !p.inf) {  // a product unit rounding into the output format
      RoundingOptions o = final_options(cfg, random);
      o.mode = *cfg.product_rounding;
      p = from_bits(cfg.out_format, round_to_format(ExactValue::finite(p.value.negative, p.value.sig, p.value.q),
                                                    cfg.out_format, o).bits);
    }
    products.push_back(p);
  }
  Partial c = from_term(g.c);
  std::uint64_t step = 0;
  auto next_random = [&] { return counter_random(random, step++); };

  Partial acc;
  switch (cfg.order) {
    case AccumulationOrder::Sequential: {
      acc = c;
      if (products.empty()) acc = add_step(cfg, c, Partial{}, next_random());
      for (const Partial& p : products) acc = add_step(cfg, acc, p, next_random());
      break;
    }
    case AccumulationOrder::LargestFirst: {
      std::vector<Partial> all = products;
      all.push_back(c);
      auto mag_less = [](const Partial& u, const Partial& v) {  // |u| < |v|
        if (u.inf || v.inf) return !u.inf && v.inf;
        if (u.zero || v.zero) return u.zero && !v.zero;
        const std::int64_t eu = u.value.q + msb(u.value.sig), ev = v.value.q + msb(v.value.sig);
        if (eu != ev) return eu < ev;
        const std::int64_t q = std::min(u.value.q, v.value.q);
        return (u.value.sig << static_cast<unsigned>(u.value.q - q)) < (v.value.sig << static_cast<unsigned>(v.value.q - q));
      };
      std::stable_sort(all.begin(), all.end(), [&](const Partial& u, const Partial& v) { return mag_less(v, u); });
      acc = all.front();
      if (all.size() == 1) acc = add_step(cfg, acc, Partial{}, next_random());
      for (std::size_t i = 1; i < all.size(); ++i) acc = add_step(cfg, acc, all[i], next_random());
      break;
    }
    case AccumulationOrder::Pairwise: {
      std::vector<Partial> level = products;
      while (level.size() > 1) {
        std::vector<Partial> up;
        for (std::size_t i = 0; i + 1 < level.size(); i += 2) up.push_back(add_step(cfg, level[i], level[i + 1], next_random()));
        if (level.size() % 2) up.push_back(level.back());
        level = std::move(up);
      }
      acc = level.empty() ? c : add_step(cfg, level.front(), c, next_random());
      if (level.empty()) acc = add_step(cfg, c, Partial{}, next_random());
      break;
    }
  }
  if (acc.nan) return nan_bits(cfg);
  if (acc.inf)
    return round_to_format(ExactValue::infinity(acc.negative), cfg.out_format, final_options(cfg, random)).bits;
  if (acc.zero) return cfg.out_format.zero(acc.negative && cfg.zero_sign == ZeroSign::Ieee);  // IEEE signs, step by step
  return round_out(cfg, acc.value.negative, acc.value.sig, acc.value.q, random);
}

}  // namespace

FixedPointAdder::FixedPointAdder(AdderConfig config) : config_(std::move(config)) { config_.validate(); }

std::uint64_t FixedPointAdder::dot(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                                   std::uint64_t c, AdderTrace* trace, std::uint64_t random) const {
  if (a.size() != b.size())
    throw std::invalid_argument("a and b must have the same length, got " + std::to_string(a.size()) + " and " +
                                std::to_string(b.size()));
  const Gathered g = gather(config_, a, b, c);
  if (trace) *trace = AdderTrace{};
  if (g.nan) {
    if (trace) trace->special = true;
    return nan_bits(config_);
  }
  // Per-step mode meets infinities in order, as a chain of IEEE operations does (an
  // overflow to +Inf followed by a -Inf term gives NaN there).
  if (config_.normalization == Normalization::PerStep) return per_step(config_, g, random);
  if (g.pos_inf && g.neg_inf) {
    if (trace) trace->special = true;
    return nan_bits(config_);
  }
  if (g.pos_inf || g.neg_inf) {
    if (trace) trace->special = true;
    return round_to_format(ExactValue::infinity(g.neg_inf), config_.out_format, final_options(config_, random)).bits;
  }
  return deferred(config_, g, trace, random);
}

void FixedPointAdder::dot_batch(std::size_t n, std::size_t k, const std::uint64_t* a, const std::uint64_t* b,
                                const std::uint64_t* c, std::uint64_t* d, std::uint64_t seed) const {
  for (std::size_t i = 0; i < n; ++i)
    d[i] = dot({a + i * k, k}, {b + i * k, k}, c[i], nullptr, counter_random(seed, i));
}

}  // namespace tcsim
