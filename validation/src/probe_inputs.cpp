// The probe's input experiments: subnormal operands, c and results; exact products.
#include "probe_prober.hpp"

namespace tcsim::validation::detail {

// ---- 1. subnormals ----
void Prober::subnormals() {
  // Inputs: a subnormal operand times a power of two whose product is a normal output.
  if (!in_.subnormals) {
    rep_.subnormal_inputs.evidence = in_.name + " has no subnormal numbers";
  } else {
    const std::int64_t smin = in_.emin - (in_.precision - 1);
    std::vector<std::string> seen;
    int honoured = 0, flushed = 0;
    for (std::int64_t x : {static_cast<std::int64_t>(in_.emin - 1), smin}) {
      if (x == in_.emin - 1 && in_.precision < 2) continue;
      for (int side = 0; side < 2; ++side) {
        // b = 2^y normal, product 2^(x+y) a normal output value.
        std::optional<Realized> r;
        for (std::int64_t y = 0; y <= in_.emax && !r; ++y) {
          for (std::int64_t yy : {y, -y}) {
            if (yy < in_.emin || yy > in_.emax || x + yy < out_.emin || x + yy > out_.emax) continue;
            auto s = enc(in_, ExactValue::finite(false, 1, x), true);
            auto n = enc(in_, ExactValue::finite(false, 1, yy), false);
            if (!s || !n) continue;
            Realized rr;
            rr.a = {side ? *n : *s};
            rr.b = {side ? *s : *n};
            rr.c = out_.zero(false);
            rr.e = x + yy;
            r = rr;
            break;
          }
        }
        if (!r) continue;
        const std::uint64_t d = call(*r);
        const ExactValue want = ExactValue::finite(false, 1, r->e);
        if (val(d).equals(want)) ++honoured;
        else if (val(d).is_zero()) ++flushed;
        seen.push_back(std::string(side ? "a=2^" + std::to_string(r->e - x) + ", b=" : "a=") +
                       ExactValue::finite(false, 1, x).to_hex() +
                       (side ? "" : ", b=2^" + std::to_string(r->e - x)) + " -> " + hex(d));
      }
    }
    std::string ev;
    for (const auto& s : seen) ev += (ev.empty() ? "" : "; ") + s;
    if (seen.empty()) {
      rep_.subnormal_inputs.evidence = "no subnormal operand gives a normal " + out_.name + " product";
    } else if (honoured > 0) {
      rep_.subnormal_inputs.value = true;
      rep_.subnormal_inputs.evidence = ev;
    } else if (flushed == static_cast<int>(seen.size())) {
      rep_.subnormal_inputs.value = false;
      rep_.subnormal_inputs.evidence = ev + " (flushed to zero)";
    } else {
      rep_.subnormal_inputs.evidence = "inconsistent: " + ev;
    }
  }
  sub_in_ = rep_.subnormal_inputs.value.value_or(false);

  // c: the smallest subnormal of the output format alone.
  std::optional<bool> c_kept;
  if (!out_.subnormals) {
    rep_.subnormal_c.evidence = out_.name + " has no subnormal numbers";
  } else {
    int kept = 0, zero = 0, other = 0;
    for (std::int64_t x : {static_cast<std::int64_t>(out_.emin - 1),
                           static_cast<std::int64_t>(out_.emin - (out_.precision - 1))}) {
      const ExactValue cv = ExactValue::finite(false, 1, x);
      Realized r;
      r.a = {in_.zero(false)};
      r.b = {in_.zero(false)};
      r.c = *enc(out_, cv, true);
      const std::uint64_t d = call(r);
      rep_.subnormal_c.evidence += (rep_.subnormal_c.evidence.empty() ? "" : "; ") + std::string("c=") +
                                   cv.to_hex() + " with zero products -> " + hex(d);
      if (val(d).equals(cv)) ++kept;
      else if (val(d).is_zero()) ++zero;
      else ++other;
    }
    // A subnormal c that survives exactly is honoured; the smallest one may still be cut
    // by the register when c is aligned as if its exponent were emin.
    if (kept) c_kept = true;
    else if (zero && !other) c_kept = false;
    if (c_kept) rep_.subnormal_c.value = *c_kept;
    else rep_.subnormal_c.evidence += " (subnormal c altered)";
    if (kept && (zero || other)) rep_.subnormal_c.evidence += " (the smallest is cut by the register's F bits below 2^emin)";
  }

  // Outputs: normal operands whose product is an output subnormal.
  if (!out_.subnormals) {
    rep_.subnormal_outputs.evidence = out_.name + " has no subnormal numbers";
  } else {
    std::optional<Realized> r;
    const std::int64_t target = out_.emin - 1;
    for (std::int64_t x = in_.emin; x <= in_.emax && !r; ++x) {
      const std::int64_t y = target - x;
      if (y < in_.emin || y > in_.emax) continue;
      auto ea = enc(in_, ExactValue::finite(false, 1, x), false);
      auto eb = enc(in_, ExactValue::finite(false, 1, y), false);
      if (!ea || !eb) continue;
      Realized rr;
      rr.a = {*ea};
      rr.b = {*eb};
      rr.c = out_.zero(false);
      rr.e = target;
      r = rr;
    }
    if (r) {
      const std::uint64_t d = call(*r);
      const ExactValue want = ExactValue::finite(false, 1, target);
      rep_.subnormal_outputs.evidence = "normal operands with product " + want.to_hex() + " -> " + hex(d);
      if (val(d).equals(want)) rep_.subnormal_outputs.value = true;
      else if (val(d).is_zero()) rep_.subnormal_outputs.value = false;
      else rep_.subnormal_outputs.evidence += " (unexpected)";
    } else if (c_kept) {
      rep_.subnormal_outputs.value = *c_kept;
      rep_.subnormal_outputs.evidence = "no product of normal " + in_.name + " operands is a " + out_.name +
                                        " subnormal; " + rep_.subnormal_c.evidence +
                                        (*c_kept ? " (a subnormal result is returned)"
                                                 : " (flushed: on input or on output, indistinguishable)");
      if (!*c_kept) rep_.subnormal_outputs.value.reset();
    } else {
      rep_.subnormal_outputs.evidence = "no product of normal " + in_.name + " operands is a " + out_.name +
                                        " subnormal, and c cannot show it";
    }
  }
  sub_out_ = rep_.subnormal_outputs.value.value_or(false);
}

// A subnormal operand or c one bit below 2^emin is aligned as if its exponent were emin:
// with F' = 0 the register drops it whether or not the unit honours subnormals, so a zero
// there says nothing.
void Prober::subnormals_against_register() {
  if (!fprime_ || *fprime_ >= 1) return;
  for (Finding<bool>* f : {&rep_.subnormal_inputs, &rep_.subnormal_c, &rep_.subnormal_outputs})
    if (f->value == false) {
      f->value.reset();
      f->evidence += " (with F = 0 the register drops a term one bit below 2^emin: flushed or cut, indistinguishable)";
    }
}

// ---- 7. products exact ----
void Prober::products_exact() {
  const int p = in_.precision;
  if (p < 2) {
    rep_.products_exact.evidence = in_.name + " significands have one bit: every product is exact";
    rep_.products_exact.value = true;
    return;
  }
  if (F_ && *F_ < 2 * p - 2) {
    rep_.products_exact.evidence = "F=" + std::to_string(*F_) + " < 2p-2=" + std::to_string(2 * p - 2) +
                                   ": the register cannot hold a full product of two " + in_.name + " significands";
    return;
  }
  // a1 = b1 = 1 + 2^(1-p) and c = -(1 + 2^(2-p)) (or a2 b2 = -(1 + 2^(2-p)) when the
  // output cannot hold it): exact sum 2^(2-2p); a product rounded to p bits loses it.
  const std::uint64_t one_ulp = (std::uint64_t{1} << (p - 1)) + 1;  // (1 + 2^(1-p)) * 2^(p-1)
  const std::uint64_t two_ulp = (std::uint64_t{1} << (p - 1)) + 2;
  // Tried scaled by 2^s, s = 0, 0, 1, -1, ..., 40, -40 (a by 2^(s/2), b by the rest), until
  // `attempt` forms its other operands at a scale where a1, b1 and the sum exist.
  auto at_some_scale = [&](const auto& attempt) {
    for (int s1 = 0; s1 <= 40; ++s1)
      for (int sgn : {1, -1}) {
        const int s = s1 * sgn;
        const int sa = s / 2, sb = s - sa;
        auto a1 = enc(in_, ExactValue::finite(false, one_ulp, sa - (p - 1)), false);
        auto b1 = enc(in_, ExactValue::finite(false, one_ulp, sb - (p - 1)), false);
        const ExactValue want = ExactValue::finite(false, 1, 2 - 2 * p + s);
        if (a1 && b1 && enc(out_, want, false) && s + 2 <= out_.emax && attempt(s, sa, sb, *a1, *b1, want)) return true;
      }
    return false;
  };
  // The unit's d for the case `what` at scale s, whose exact sum is `want`.
  auto report = [&](std::uint64_t d, const ExactValue& want, const std::string& what, int s, const char* rounded) {
    rep_.products_exact.value = val(d).equals(want);
    rep_.products_exact.evidence = what + std::to_string(s) + " = " + want.to_hex() + " -> " + hex(d) +
                                   (*rep_.products_exact.value ? " (exact)" : rounded);
  };
  const bool by_c = at_some_scale([&](int s, int, int, std::uint64_t a1, std::uint64_t b1, const ExactValue& want) {
    auto c = enc(out_, ExactValue::finite(true, two_ulp, s - (p - 1)), false);
    if (!c) return false;
    Realized r;
    r.a = {a1};
    r.b = {b1};
    r.c = *c;
    report(call(r), want, "(1+2^(1-p))^2 + c, c = -(1+2^(2-p)), scaled by 2^", s, " (the product was rounded)");
    return true;
  });
  if (by_c) return;
  if (capacity() && *capacity() < 2) {
    rep_.products_exact.evidence = "needs two products in one block";
    return;
  }
  const bool by_products =
      at_some_scale([&](int s, int sa, int sb, std::uint64_t a1, std::uint64_t b1, const ExactValue& want) {
        auto a2 = enc(in_, ExactValue::finite(true, two_ulp, sa - (p - 1)), false);
        auto b2 = enc(in_, ExactValue::finite(false, 1, sb), false);
        if (!a2 || !b2) return false;
        Realized r;
        r.a = {a1, *a2};
        r.b = {b1, *b2};
        r.c = out_.zero(false);
        report(call(r), want, "(1+2^(1-p))^2 - (1+2^(2-p)) scaled by 2^", s, " (a product was rounded)");
        return true;
      });
  if (by_products) return;
  rep_.products_exact.evidence = "the test values cannot be formed in " + in_.name + " -> " + out_.name;
}

}  // namespace tcsim::validation::detail
