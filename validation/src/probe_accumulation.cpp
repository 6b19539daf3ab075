// The probe's accumulation experiments: normalization (deferred or per-step), the lower
// clamp on E, the order of the additions, monotonicity.
#include <algorithm>

#include "probe_prober.hpp"

namespace tcsim::validation::detail {

// ---- 8. normalization ----
// Per-step prediction: partial sums in decreasing magnitude (c first on ties), each
// aligned to the larger with F bits (alignment mode), then rounded to out.
ExactValue Prober::per_step_predict(const Layout& l, std::int64_t e, Rounding fin, bool sequential) const {
  std::vector<ExactValue> terms;
  terms.push_back(value_of(l.c, e));
  for (const Term& t : l.products) terms.push_back(value_of(t, e));
  if (!sequential)
    std::stable_sort(terms.begin(), terms.end(),
                     [](const ExactValue& x, const ExactValue& y) { return compare_magnitude(x, y) > 0; });
  const int F = F_ ? *F_ : out_.precision + 2;
  const Rounding am = align_ ? *align_ : Rounding::TowardZero;
  ExactValue acc = terms[0];
  acc = rnd(acc, fin);
  for (std::size_t i = 1; i < terms.size(); ++i) {
    const ExactValue& y = terms[i];
    if (y.is_zero()) continue;
    if (acc.is_zero()) {
      acc = rnd(y, fin);
      continue;
    }
    const std::int64_t E = std::max(acc.lead_exponent(), y.lead_exponent());
    auto align = [&](const ExactValue& x) {
      // Round |x| / 2^(E-F) to an integer per mode (sign-magnitude).
      const ExactValue xn = x.normalized();
      BigInt mag = xn.significand;
      const std::int64_t sh = xn.exponent - (E - F);
      if (sh >= 0) return x;
      const unsigned s = static_cast<unsigned>(-sh);
      BigInt kept = mag >> s;
      const BigInt rem = mag - (kept << s);
      if (rem != 0) {
        const BigInt half = BigInt(1) << (s - 1);
        bool up = false;
        switch (am) {
          case Rounding::Down: up = x.negative; break;
          case Rounding::Up: up = !x.negative; break;
          case Rounding::NearestEven: up = rem > half || (rem == half && bit_test(kept, 0)); break;
          default: break;
        }
        if (up) kept += 1;
      }
      return ExactValue::finite(x.negative, kept, E - F);
    };
    acc = rnd(exact_add(align(acc), align(y)), fin);
  }
  return acc;
}

void Prober::normalization() {
  const int F = F_ ? *F_ : out_.precision + 2;
  std::vector<Layout> layouts;
  const auto cap = capacity();
  const int n = cap ? std::min(beside_c(*cap), 4) : 4;
  if (F + 1 <= out_.precision && F_) {
    // c = 2^e - 2^(e-1-F) plus n terms 2^(e-1-F) (fasi2021 3.1.4 for F = 23, binary32).
    Layout l;
    l.c = Term{false, (std::uint64_t{1} << (F + 1)) - 1, -1 - F};
    l.products.assign(static_cast<std::size_t>(std::max(n, 2)), pow2(-1 - F));
    l.result_leads = {0, -1};
    layouts.push_back(l);
  }
  {
    // c = 2^e plus two half-ulps of the output: exact 2^e + ulp in one rounding.
    Layout l;
    l.c = pow2(0);
    l.products.assign(2, pow2(-out_.precision));
    l.result_leads = {0};
    layouts.push_back(l);
  }
  std::string ev;
  for (const Layout& l : layouts) {
    if (cap && static_cast<int>(l.products.size()) > beside_c(*cap) && *cap != 1) continue;
    auto r = place(l);
    if (!r) continue;
    const std::uint64_t d = call(*r);
    const ExactValue got = val(d);
    const ExactValue s = exact_sum(l, r->e);
    bool deferred_fits = false, per_step_fits = false, differ = false;
    for (Rounding m : final_candidates_) {
      const ExactValue dp = rnd(s, m);
      const ExactValue pp = per_step_predict(l, r->e, m, false);
      if (!dp.equals(pp)) differ = true;
      deferred_fits = deferred_fits || dp.equals(got);
      per_step_fits = per_step_fits || pp.equals(got);
    }
    ev += (ev.empty() ? "" : "; ") + std::string("c=") + term_hex(l.c, r->e) + " plus " +
          std::to_string(l.products.size()) + " x " + term_hex(l.products[0], r->e) + " -> " + hex(d) +
          " (exact " + s.to_hex() + ")";
    if (!differ) continue;
    if (deferred_fits && !per_step_fits) {
      rep_.normalization.value = "deferred";
      rep_.normalization.evidence = ev + ": partial sums are not normalized";
      return;
    }
    if (per_step_fits && !deferred_fits) {
      per_step_ = true;
      rep_.normalization.value = "per-step";
      rep_.normalization.evidence = ev + ": every partial sum is normalized and rounded";
      return;
    }
  }
  rep_.normalization.evidence = (ev.empty() ? std::string("no test could be formed") : ev) +
                                ": deferred and per-step normalization cannot be told apart here";
}

// ---- 8b. lower clamp on E (KM25's min_exp_limit) ----
// Largest term 2^e and a tiny one 2^(e-F): the register keeps the tiny term while E = e,
// and drops it once E is clamped to m > e (the last bit is then 2^(m-F)). The other terms
// make the final rounding notice: for rz/rd a negative tiny term (just below 2^e), for ru
// a positive one, for rne an odd output quantum plus half a quantum (a tie broken by the
// tiny term). Scanning e downward, the first e where the tiny term is lost is m-1.
void Prober::exponent_clamp() {
  if (!F_ || !rep_.final_rounding.value || per_step_ || !capacity()) {
    rep_.min_exponent.evidence = "needs F, k, the final rounding and deferred normalization";
    return;
  }
  const int F = *F_;
  const Rounding fm = *rep_.final_rounding.value;
  const int p_eff = eff_ ? eff_->precision : out_.precision;
  const std::int64_t q_min = out_.emin - (p_eff - 1);  // the output's smallest quantum
  std::string ev;
  std::optional<std::int64_t> last_kept;
  int tested = 0;
  for (std::int64_t e = std::min<std::int64_t>(out_.emax - 2, out_.emin + 24); e >= q_min - 2; --e) {
    Layout l;
    Term tiny = pow2(-F);
    l.products.push_back(pow2(0));
    if (fm == Rounding::NearestEven) {
      // Two tops (a carry) so that the output quantum q sits above the tiny term's
      // neighbour: q-1 > e-F keeps the half quantum in the register when E = e+1.
      l.products.push_back(pow2(0));
      const std::int64_t q = std::max<std::int64_t>(e + 1 - (p_eff - 1), q_min);
      if (q - 1 <= e - F || q > e || (carry_ && *carry_ < 1)) continue;
      l.products.push_back(Term{false, 3, q - 1 - e});  // one and a half output quanta
      tiny.neg = true;
    } else {
      tiny.neg = fm != Rounding::Up;
    }
    l.products.push_back(tiny);
    if (static_cast<int>(l.products.size()) > beside_c(*capacity())) break;
    auto r = realize(l, e);
    if (!r) {
      if (last_kept) break;
      continue;
    }
    const ExactValue s = exact_sum(l, e);
    Layout without = l;
    without.products.pop_back();
    const ExactValue kept = rnd(s, fm), lost = rnd(exact_sum(without, e), fm);
    if (kept.equals(lost)) continue;
    const std::uint64_t d = call(*r);
    ++tested;
    if (val(d).equals(kept)) {
      last_kept = e;
      continue;
    }
    ev = "largest term 2^e with a tiny term 2^(e-" + std::to_string(F) + "): counted for e >= " +
         (last_kept ? std::to_string(*last_kept) : std::string("?")) + ", e=" + std::to_string(e) + " -> " + hex(d);
    if (val(d).equals(lost) && last_kept == e + 1) {
      rep_.min_exponent.value = static_cast<int>(e + 1);
      rep_.min_exponent.evidence = ev + " (dropped: E is clamped to " + std::to_string(e + 1) + ")";
    } else if (val(d).equals(lost) && last_kept) {
      rep_.min_exponent.evidence = ev + " (dropped: E is clamped to a value in [" + std::to_string(e + 1) + ", " +
                                   std::to_string(*last_kept) + "])";
    } else {
      rep_.min_exponent.evidence = ev + " (neither kept nor dropped)";
    }
    return;
  }
  if (last_kept && *last_kept > out_.emin) {
    rep_.min_exponent.evidence = "no clamp at or above 2^" + std::to_string(*last_kept) +
                                 ", the lowest largest term the formats can form (" + std::to_string(tested) + " tests)";
  } else if (last_kept) {
    rep_.min_exponent_none = true;
    rep_.min_exponent.evidence = "a tiny term 2^(e-F) below the largest 2^e counted for every e down to " +
                                 std::to_string(*last_kept) + " (" + std::to_string(tested) +
                                 " tests; below that the formats cannot form the tiny term): no clamp these formats "
                                 "can observe";
  } else {
    rep_.min_exponent.evidence = "no test could be formed near the output's subnormal range";
  }
}

// ---- 9. accumulation order (fasi2021 3.1.2) ----
void Prober::order() {
  const int n = per_step_ ? 4 : (capacity() ? std::min(beside_c(*capacity()), 4) : 1);
  if (n < 1) return;
  // One addend 2^e, the others half an output ulp of it; move the large one around.
  std::vector<std::string> results;
  std::vector<ExactValue> vals;
  auto layout_for = [&](int big) {
    Layout l;
    l.c = big == 0 ? pow2(0) : pow2(-out_.precision);
    l.products.assign(static_cast<std::size_t>(n), pow2(-out_.precision));
    if (big) l.products[static_cast<std::size_t>(big - 1)] = pow2(0);
    l.result_leads = {0};
    return l;
  };
  // One reference exponent for every position (the large term as a product constrains it most).
  std::optional<Realized> first = place(layout_for(n >= 1 ? 1 : 0));
  if (!first) {
    rep_.order.evidence = "the input format cannot form 2^e and 2^(e-" + std::to_string(out_.precision) +
                          ") as products at one exponent";
    return;
  }
  const std::int64_t e = first->e;
  for (int big = 0; big <= n; ++big) {
    auto r = realize(layout_for(big), e);
    if (!r) {
      rep_.order.evidence = "the test values cannot be formed at one exponent";
      return;
    }
    const std::uint64_t d = call(*r);
    vals.push_back(val(d));
    results.push_back((big == 0 ? std::string("c") : "a" + std::to_string(big) + "b" + std::to_string(big)) +
                      " large -> " + hex(d));
  }
  std::string ev = "one addend 2^e, the others 2^(e-" + std::to_string(out_.precision) + "): ";
  for (std::size_t i = 0; i < results.size(); ++i) ev += (i ? ", " : "") + results[i];
  const bool all_same = std::all_of(vals.begin(), vals.end(), [&](const ExactValue& v) { return v.equals(vals[0]); });
  if (all_same) {
    rep_.order.value = "largest-first";
    rep_.order.evidence = ev + (per_step_ ? ": the same wherever the large addend is"
                                          : ": the same wherever the large addend is (with deferred normalization every "
                                            "term is aligned to the largest, so order cannot matter)");
    return;
  }
  // Sequential (c, a1b1, a2b2, ...)?
  bool sequential = true;
  for (int big = 0; big <= n && sequential; ++big) {
    const Layout l = layout_for(big);
    bool any = false;
    for (Rounding m : final_candidates_)
      any = any || per_step_predict(l, e, m, true).equals(vals[static_cast<std::size_t>(big)]);
    sequential = any;
  }
  rep_.order.value = sequential ? "sequential" : "not-largest-first";
  rep_.order.evidence = ev + (sequential ? ": results depend on the position, as c + a1b1 + a2b2 + ... in turn"
                                         : ": results depend on the position of the large addend");
}

// ---- 10. monotonicity ----
bool Prober::check_pair(const Realized& x, const Realized& y, bool negative) {
  const std::uint64_t dx = call(x), dy = call(y);
  const ExactValue vx = val(dx), vy = val(dy);
  if (!(vx.is_finite() || vx.is_zero()) || !(vy.is_finite() || vy.is_zero())) return false;
  const ExactValue diff = exact_add(vx, ExactValue{vy.kind, !vy.negative, vy.significand, vy.exponent});
  const bool violated = negative ? (diff.is_finite() && diff.negative) : (diff.is_finite() && !diff.negative);
  if (!violated) return false;
  rep_.monotonic.value = false;
  DotCase cx{x.a, x.b, x.c, dx}, cy{y.a, y.b, y.c, dy};
  rep_.monotonic_counterexample = std::make_pair(cx, cy);
  return true;
}

void Prober::monotonicity() {
  // Structured: c just below 2^e versus c = 2^e, with small terms that the larger c
  // pushes out of the register (fasi2021 3.1.4).
  std::vector<int> offsets;
  if (F_) offsets = {*F_ + 1, *F_ + 2, *F_, out_.precision, out_.precision + 1};
  else offsets = {out_.precision, out_.precision + 1};
  std::vector<int> counts;
  const int kk = per_step_ ? 4 : capacity().value_or(1);
  for (int n : {std::min(kk, 4), std::min(kk, 32)})
    if (n >= 1 && std::find(counts.begin(), counts.end(), n) == counts.end()) counts.push_back(n);
  int tried = 0;
  for (int off : offsets)
    for (int n : counts) {
      if (off < 1) continue;
      Layout lx, ly;
      lx.c = Term{false, (std::uint64_t{1} << out_.precision) - 1, -out_.precision};  // pred(2^e) in out
      ly.c = pow2(0);
      lx.products.assign(static_cast<std::size_t>(n), pow2(-off));
      ly.products = lx.products;
      lx.result_leads = ly.result_leads = {0, -1};
      auto rx = place(lx);
      if (!rx) continue;
      auto ry = realize(ly, rx->e);
      if (!ry) continue;
      ++tried;
      if (check_pair(*rx, *ry, false)) {
        rep_.monotonic.evidence = "c = 2^e - ulp versus c = 2^e with " + std::to_string(n) + " products 2^(e-" +
                                  std::to_string(off) + "): the larger c gives the smaller sum";
        return;
      }
      // The same with the large term as a product just below / at 2^e.
      Layout px, py;
      px.products.push_back(Term{false, (std::uint64_t{1} << in_.precision) - 1, -in_.precision});
      py.products.push_back(pow2(0));
      for (int i = 1; i < n; ++i) px.products.push_back(pow2(-off)), py.products.push_back(pow2(-off));
      px.result_leads = py.result_leads = {0, -1};
      auto qx = place(px);
      if (!qx) continue;
      auto qy = realize(py, qx->e);
      if (!qy) continue;
      ++tried;
      if (check_pair(*qx, *qy, false)) {
        rep_.monotonic.evidence = "a1b1 = 2^e - ulp versus 2^e with " + std::to_string(n - 1) + " products 2^(e-" +
                                  std::to_string(off) + "): the larger product gives the smaller sum";
        return;
      }
    }
  // Random: nonnegative x, y = x with one element one ulp larger.
  const int kmax = per_step_ ? 8 : std::min(capacity().value_or(1), 16);
  int random_pairs = 0;
  for (int t = 0; t < opt_.monotonic_random_trials; ++t) {
    const int n = range(1, std::max(1, kmax));
    const int e0 = range(-3, 3);
    Layout l;
    for (int i = 0; i < n; ++i) {
      const int nb = range(1, in_.precision);
      const std::uint64_t sig = (std::uint64_t{1} << (nb - 1)) | (below(std::uint64_t{1} << (nb - 1)));
      const int shift = (below(3) == 0) ? range(0, std::max(1, (F_ ? *F_ : out_.precision) + 3)) : range(0, 3);
      l.products.push_back(Term{false, sig, e0 - shift - (nb - 1)});
    }
    {
      const int nb = range(1, std::min(out_.precision, 62));
      const std::uint64_t sig = (std::uint64_t{1} << (nb - 1)) | (below(std::uint64_t{1} << (nb - 1)));
      l.c = Term{false, sig, e0 - range(0, 4) - (nb - 1)};
    }
    l.result_leads = {e0};
    auto rx = place(l, 0);
    if (!rx) continue;
    Realized ry = *rx;
    // Bump one element to the next pattern (one ulp up for a positive finite value).
    const int which = range(0, n * 2);
    std::uint64_t* slot = which == n * 2 ? &ry.c : (which % 2 ? &ry.b[static_cast<std::size_t>(which / 2)] : &ry.a[static_cast<std::size_t>(which / 2)]);
    const Format& f = which == n * 2 ? out_ : in_;
    const std::uint64_t bumped = *slot + 1;
    const FpClass cls = classify(f, bumped & f.width_mask());
    if (bumped > f.width_mask() || (bumped & f.sign_mask()) || cls == FpClass::NaN || cls == FpClass::Infinity)
      continue;
    *slot = bumped;
    ++random_pairs;
    if (check_pair(*rx, ry, false)) {
      rep_.monotonic.evidence = "random search: raising one input by one ulp lowered the result";
      return;
    }
  }
  rep_.monotonic.value = true;
  rep_.monotonic.evidence = "no counterexample in " + std::to_string(tried) + " structured and " +
                            std::to_string(random_pairs) + " random pairs x <= y (evidence, not proof)";
}

}  // namespace tcsim::validation::detail
