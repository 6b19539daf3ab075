// The corner-rule probe (probe_corners.hpp): three experiments, each on a few calls.
#include "tcsim/validation/probe_corners.hpp"

#include <cmath>
#include <cstdio>
#include <optional>

#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/rounding.hpp"

namespace tcsim::validation {

namespace {

// The pattern of 2^e (times m, a short significand) in f, if exact and finite.
std::optional<std::uint64_t> exact_pattern(const Format& f, double m, int e, bool negative = false) {
  if (e > f.emax + 1 || e < f.emin - f.precision - 2) return std::nullopt;
  const ExactValue x = decode(formats::fp64(), bits_of_double(std::ldexp(negative ? -m : m, e)));
  RoundingOptions o;
  o.mode = Rounding::NearestEven;
  const RoundResult r = round_to_format(x, f, o);
  if (r.inexact || r.overflow || r.invalid || classify(f, r.bits) != FpClass::Normal &&
                                                    classify(f, r.bits) != FpClass::Subnormal)
    return std::nullopt;
  return r.bits;
}

DotCase run(const BlackBox& box, std::vector<std::uint64_t> a, std::vector<std::uint64_t> b, std::uint64_t c) {
  DotCase d{std::move(a), std::move(b), c, 0};
  d.d = box(d.a, d.b, d.c);
  return d;
}

std::string hex(const Format& f, std::uint64_t bits) { return bits_to_hex(f, bits); }

// Overflow: c = 2^emax and one product 2^emax (sum 2^(emax+1), above every finite value under
// any rounding), then c = largest finite plus half its ulp as a product (a tie that RZ keeps
// finite and RNE takes to Inf).
CornerFinding overflow(const BlackBox& box) {
  CornerFinding f{"overflow", "unknown", "", {}};
  const Format& in = box.in;
  const Format& out = box.out;
  if (!out.infinities) {
    f.evidence = "the output format " + out.name + " has no Inf";
    return f;
  }
  auto product = [&](int e) -> std::optional<std::pair<std::uint64_t, std::uint64_t>> {
    for (int ea = std::min(in.emax, e - in.emin); ea >= in.emin; --ea) {
      auto a = exact_pattern(in, 1.0, ea), b = exact_pattern(in, 1.0, e - ea);
      if (a && b) return std::pair{*a, *b};
    }
    return std::nullopt;
  };
  const auto big = product(out.emax);
  const auto c_top = exact_pattern(out, 1.0, out.emax);
  if (!big || !c_top) {
    f.evidence = "no product of two " + in.name + " values reaches 2^" + std::to_string(out.emax) +
                 ": a finite sum cannot overflow " + out.name + " when rounded toward zero (only an Inf operand)";
    return f;
  }
  const DotCase over = run(box, {big->first}, {big->second}, *c_top);
  f.deciders.push_back(over);
  std::string ev = "2^" + std::to_string(out.emax) + " + 2^" + std::to_string(out.emax) + " -> " + hex(out, over.d);
  const bool inf = over.d == out.infinity(false);
  const bool sat = over.d == out.max_finite(false);
  // Half an ulp of the largest finite value as a product, added to it.
  const int half_ulp = out.emax - out.precision;
  const auto tie = product(half_ulp);
  std::optional<bool> tie_finite;
  if (tie) {
    const DotCase t = run(box, {tie->first}, {tie->second}, out.max_finite(false));
    f.deciders.push_back(t);
    tie_finite = t.d == out.max_finite(false);
    ev += "; largest finite + half its ulp -> " + hex(out, t.d);
  }
  if (sat) {
    f.value = "ieee";
    ev += ": the largest finite value (IEEE 754 under rounding toward zero)";
  } else if (inf && tie_finite && *tie_finite) {
    f.value = "inf";
    ev += ": Inf although the rounding is toward zero below 2^" + std::to_string(out.emax + 1) +
          " (NVIDIA, X25's hardware tests)";
  } else if (inf) {
    f.value = "inf-or-ieee";
    ev += ": Inf; the rounding goes up at the tie, where ieee and inf agree";
  } else {
    f.value = "other";
  }
  f.evidence = ev;
  return f;
}

// Zero sign: 128 products -0 * 1 (whole blocks for k up to 128 dividing it) and c = -0.
CornerFinding zero_sign(const BlackBox& box) {
  CornerFinding f{"zero_sign", "unknown", "", {}};
  const Format& in = box.in;
  const Format& out = box.out;
  const auto one = exact_pattern(in, 1.0, 0);
  if (!in.is_signed || !out.is_signed || !out.has_zero || !one) {
    f.evidence = "the formats have no -0";
    return f;
  }
  const DotCase z = run(box, std::vector<std::uint64_t>(128, in.zero(true)), std::vector<std::uint64_t>(128, *one),
                        out.zero(true));
  f.deciders.push_back(z);
  const std::string seen = "128 products -0 * 1 and c = -0 -> " + hex(out, z.d);
  if (z.d == out.zero(false)) {
    f.value = "positive";
    f.evidence = seen + ": +0 (NVIDIA: X25's tests assert 'minus zero -> +0.0')";
  } else if (z.d == out.zero(true)) {
    f.value = "ieee";
    f.evidence = seen + ": -0 (IEEE 754 6.3)";
  } else {
    f.value = "other";
    f.evidence = seen;
  }
  return f;
}

// Binary16 floor: c = +0, a product 2.5 * 2^-24 (a tie on binary16's subnormal grid, rounded
// to even 2^-23) and a tiny product 2^t. The tie breaks upward while 2^t is kept; the
// largest t that is lost gives the last kept bit 2^(t+1) = 2^(min_exponent - F).
CornerFinding binary16_floor(const BlackBox& box) {
  CornerFinding f{"binary16_floor", "unknown", "", {}};
  if (!(box.in == formats::fp16() && box.out == formats::fp16())) {
    f.evidence = "measured on fp16 -> fp16 only (the binary16-output floor: KM25 vs X25)";
    return f;
  }
  const Format& h = formats::fp16();
  const std::uint64_t a1 = *exact_pattern(h, 1.25, -14), b1 = *exact_pattern(h, 1.0, -9);
  std::optional<int> lost;
  for (int t = -30; t >= -48; --t) {
    const int ta = std::max(-24, t + 14), tb = t - ta;
    const DotCase d = run(box, {a1, *exact_pattern(h, 1.0, ta)}, {b1, *exact_pattern(h, 1.0, tb)}, h.zero(false));
    if (d.d == 0x0002u) {
      lost = t;
      f.deciders.push_back(d);
      break;
    }
    if (d.d != 0x0003u) {
      f.value = "other";
      f.evidence = "2.5 * 2^-24 + 2^" + std::to_string(t) + " -> " + hex(h, d.d) + " (expected 0x0002 or 0x0003)";
      f.deciders.push_back(d);
      return f;
    }
    if (t == -48) f.deciders.push_back(d);
  }
  if (!lost) {
    f.value = "none seen";
    f.evidence = "c = +0, 2.5 * 2^-24 + 2^t keeps 2^t down to t = -48 (the smallest fp16 product): no floor above it";
    return f;
  }
  f.value = "lsb 2^" + std::to_string(*lost + 1);
  f.evidence = "c = +0, 2.5 * 2^-24 + 2^" + std::to_string(*lost) + " -> 0x0002 (the tiny product lost, the tie "
               "rounded to even), 2^" + std::to_string(*lost + 1) + " kept: min_exponent = " +
               std::to_string(*lost + 1) + " + F (F = 25: KM25's -21 gives 2^-46, X25's -22 gives 2^-47)";
  return f;
}

}  // namespace

std::vector<CornerFinding> probe_corners(const BlackBox& box) { return {overflow(box), zero_sign(box), binary16_floor(box)}; }

std::string corners_to_text(const std::string& name, const std::vector<CornerFinding>& findings) {
  std::string s = "corner rules of " + name + "\n";
  for (const auto& f : findings) s += "  " + f.rule + ": " + f.value + "\n    " + f.evidence + "\n";
  return s;
}

nlohmann::json corners_to_json(const BlackBox& box, const std::vector<CornerFinding>& findings) {
  nlohmann::json j = {{"unit", box.name}};
  auto hexes = [&](const std::vector<std::uint64_t>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (std::uint64_t x : v) a.push_back(hex(box.in, x));
    return a;
  };
  for (const auto& f : findings) {
    nlohmann::json cases = nlohmann::json::array();
    for (const auto& d : f.deciders)
      cases.push_back({{"a", hexes(d.a)}, {"b", hexes(d.b)}, {"c", hex(box.out, d.c)}, {"d", hex(box.out, d.d)}});
    j[f.rule] = {{"value", f.value}, {"evidence", f.evidence}, {"deciders", cases}};
  }
  return j;
}

}  // namespace tcsim::validation
