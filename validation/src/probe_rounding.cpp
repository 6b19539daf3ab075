// The probe's rounding experiments: alignment rounding with the sticky bit, and the
// final rounding into the output format.
#include <algorithm>

#include "probe_prober.hpp"

namespace tcsim::validation::detail {

namespace {

// ---- 4. alignment rounding and sticky bit ----
// Hypothesis: alignment mode, sticky bit, and F (F' or, with a sticky bit, F'-1: the
// sticky position itself can hold the last surviving bit).
struct Hyp {
  Rounding mode;
  bool sticky;
  int F;
};
std::int64_t round_units(std::int64_t n, int g, Rounding mode) {
  // n / 2^g rounded per mode (sign-magnitude: Down/Up look at the sign).
  const bool neg = n < 0;
  const std::int64_t mag = neg ? -n : n;
  const std::int64_t q = mag >> g, rem = mag & ((std::int64_t{1} << g) - 1);
  const std::int64_t half = g > 0 ? (std::int64_t{1} << (g - 1)) : 1;
  bool up = false;
  if (rem) switch (mode) {
      case Rounding::TowardZero: break;
      case Rounding::Down: up = neg; break;
      case Rounding::Up: up = !neg; break;
      case Rounding::NearestEven: up = rem > half || (rem == half && (q & 1)); break;
      default: break;
    }
  const std::int64_t m = q + (up ? 1 : 0);
  return neg ? -m : m;
}
// Predicted register contribution, in units of 2^(E-F'-1), of a term n * 2^(E-F'-g).
std::int64_t predict_align(std::int64_t n, int g, int fprime, const Hyp& h) {
  const int drop = fprime + g - h.F;  // bits below the hypothesis' F grid
  const std::int64_t m = round_units(n, drop, h.mode);
  const std::int64_t mag = (m < 0 ? -m : m);
  const std::int64_t nmag = n < 0 ? -n : n;
  const bool discarded = (nmag & ((std::int64_t{1} << drop) - 1)) != 0;
  std::int64_t units;  // in 2^(E-F'-1)
  if (h.sticky) units = (mag * 2 + (discarded ? 1 : 0)) << (fprime - h.F);
  else units = mag << (fprime + 1 - h.F);
  return n < 0 ? -units : units;
}

}  // namespace

void Prober::alignment_rounding() {
  const auto cap = capacity();
  if (!fprime_ || !cap || beside_c(*cap) < 2) {
    const std::string why = !fprime_ ? "needs F"
                            : !cap   ? "needs k (how many products one block sums)"
                                     : "needs a block of at least 2 products (c and two products)";
    rep_.alignment_rounding.evidence = why;
    rep_.sticky_bit.evidence = why;
    return;
  }
  const int fp = *fprime_;
  std::vector<Hyp> hyps;
  for (Rounding m : kModes) {
    hyps.push_back({m, false, fp});
    hyps.push_back({m, true, fp});
    if (fp >= 1) hyps.push_back({m, true, fp - 1});
  }
  const std::pair<std::int64_t, int> probes[] = {{1, 2}, {-1, 2}, {3, 2}, {-3, 2}, {1, 1},
                                                 {-1, 1}, {3, 1}, {-3, 1}, {5, 2}, {-5, 2}};
  std::string ev;
  for (auto [n, g] : probes) {
    const std::uint64_t mag = static_cast<std::uint64_t>(n < 0 ? -n : n);
    const Term t{n < 0, mag, -(fp + g)};
    Layout l = cancel_layout(t);
    l.result_leads = {-fp};
    auto r = place(l);
    if (!r) {
      l = cancel_layout_c(t);
      l.result_leads = {-fp};
      r = place(l);
    }
    if (!r) continue;
    const std::uint64_t d = call(*r);
    const ExactValue got = val(d);
    // got / 2^(e-F'-1) must be a small integer.
    std::int64_t units = 0;
    bool integral = true;
    if (!got.is_zero()) {
      const ExactValue nz = got.normalized();
      const std::int64_t shift = nz.exponent - (r->e - fp - 1);
      if (shift < 0 || shift > 8 || nz.significand > 64) integral = false;
      else units = static_cast<std::int64_t>(nz.significand) << shift;
      if (got.negative) units = -units;
    }
    auto frac = [](std::int64_t num, int den) {
      std::string s = std::to_string(num);
      return den == 1 ? s : s + "/" + std::to_string(den);
    };
    ev += (ev.empty() ? "" : ", ") + frac(n, 1 << g) + " -> " + (integral ? frac(units, 2) : got.to_hex());
    // Plain copies: clang 14 cannot capture structured bindings in a lambda.
    const auto num = n;
    const auto log_den = g;
    std::erase_if(hyps, [&](const Hyp& h) { return !integral || predict_align(num, log_den, fp, h) != units; });
  }
  ev = "c=2^e, a1b1=-2^e, a2b2 = fractions of u=2^(e-" + std::to_string(fp) +
       "), the last surviving position (in units of u): " + ev;
  if (hyps.size() == 1) {
    const Hyp h = hyps[0];
    align_ = h.mode;
    sticky_ = h.sticky;
    rep_.alignment_rounding.value = h.mode;
    rep_.alignment_rounding.evidence = ev;
    rep_.sticky_bit.value = sticky_;
    rep_.sticky_bit.evidence = sticky_ ? "the results match " + rounding_name(h.mode) + " at F=" +
                                             std::to_string(h.F) + " with one more bit holding the OR of the bits shifted out"
                                       : "no sticky bit: results match plain " + rounding_name(h.mode);
    if (h.F != fp) {
      F_ = h.F;
      rep_.fraction_bits.value = h.F;
      rep_.fraction_bits.evidence += "; that last position is the sticky bit: F = " + std::to_string(h.F);
    }
    return;
  }
  std::string which;
  for (const Hyp& h : hyps)
    which += (which.empty() ? "" : ", ") + rounding_name(h.mode) + (h.sticky ? "+sticky(F=" + std::to_string(h.F) + ")" : "");
  rep_.alignment_rounding.evidence = ev + (hyps.empty() ? "; no hypothesis fits" : "; consistent: " + which);
  rep_.sticky_bit.evidence = rep_.alignment_rounding.evidence;
}

// ---- 6. final rounding ----
void Prober::final_rounding() {
  // Without F (per-step units, where the cancelling terms never share a register), c and
  // one product form one step: a register at least p+4 bits wide is assumed, and said.
  const bool assumed = !F_;
  const int F = F_ ? *F_ : out_.precision + 4;
  const auto cap = capacity();
  const int kk = cap ? beside_c(*cap) : 1;  // products beside c in one block
  const int cb = carry_ ? *carry_ : 0;
  std::vector<Rounding> cand(std::begin(kModes), std::end(kModes));
  int informative = 0;
  std::string ev;
  // Top: T copies of 2^e (c is one of them outside the subnormal range), the sum below
  // 2^(e+1+cb), at most k products.
  const int tmax = std::max(1, std::min({kk + 1, 1 << std::min(cb, 4), 4}));
  const std::int64_t q = out_.emin - (out_.precision - 1);  // the output's smallest quantum

  // Builds the layout: T tops of sign neg, lows at the given positions below e.
  // Outside the subnormal range c carries the lows it can hold (distinct positions within
  // the output's precision), so that fewer products are needed.
  auto build = [&](bool subnormal_region, bool neg, int T, const std::vector<int>& lows) {
    Layout l;
    std::vector<int> in_c;
    for (int i = subnormal_region ? 0 : 1; i < T; ++i) l.products.push_back(pow2(0, neg));
    for (int pos : lows) {
      if (!subnormal_region && pos <= std::min(c_bits() - 1, 62) &&
          std::find(in_c.begin(), in_c.end(), pos) == in_c.end())
        in_c.push_back(pos);
      else
        l.products.push_back(pow2(-pos, neg));
    }
    if (!subnormal_region) {
      int last = 0;
      for (int pos : in_c) last = std::max(last, pos);
      std::uint64_t sig = std::uint64_t{1} << last;
      for (int pos : in_c) sig |= std::uint64_t{1} << (last - pos);
      l.c = Term{neg, sig, -last};
    }
    return l;
  };
  // Runs one case when it separates the modes; e_fixed: the reference exponent to use.
  auto run_case = [&](const Layout& l, int L, std::optional<std::int64_t> e_fixed) {
    if (static_cast<int>(l.products.size()) > kk) return;
    std::optional<Realized> r;
    if (!e_fixed) {
      Layout lr = l;
      lr.result_leads = {L + 1};
      r = place(lr);
    } else {
      r = realize(l, *e_fixed);
      if (r && r->e + L + 1 >= out_.emin) r.reset();
    }
    if (!r) return;
    const ExactValue s = exact_sum(l, r->e);
    if (s.is_zero() || s.lead_exponent() >= r->e + 1 + cb) return;
    ExactValue pred[4];
    bool differ = false;
    for (int m = 0; m < 4; ++m) {
      pred[m] = rnd(s, kModes[m]);
      if (m && !pred[m].equals(pred[0])) differ = true;
    }
    if (!differ) return;
    const std::uint64_t d = call(*r);
    ++informative;
    if (informative <= 6) ev += (ev.empty() ? "" : "; ") + s.to_hex() + " -> " + hex(d);
    std::erase_if(cand, [&](Rounding m) {
      for (int i = 0; i < 4; ++i)
        if (kModes[i] == m) return !pred[i].equals(val(d));
      return true;
    });
  };
  // e for the subnormal region with the output quantum at relative position ulp_pos.
  auto subnormal_e = [&](int L, int want_ulp_pos) -> std::optional<std::int64_t> {
    const std::int64_t hi = std::min<std::int64_t>(q - 1 + F, out_.emin - 2 - L);
    if (hi < q) return std::nullopt;
    return std::clamp<std::int64_t>(q + want_ulp_pos, q, hi);
  };

  auto search = [&](bool subnormal_region) {
    // Structured: the output ulp u at relative position up; lows at 3/4 u, 1/4 u, an odd
    // tie and an even tie, both signs, for each stack of tops.
    for (int T = 1; T <= tmax; ++T)
      for (int want : {F - 2, 1, 0}) {
        const int L = bitlen(static_cast<std::uint64_t>(T)) - 1;
        int up = out_.precision - 1 - L;
        std::optional<std::int64_t> e_fixed;
        if (subnormal_region) {
          // The quantum at relative position `want`: at 0 the top itself is one odd ulp.
          e_fixed = subnormal_e(L, want);
          if (!e_fixed) continue;
          up = static_cast<int>(*e_fixed - q);
        } else if (want != F - 2) {
          continue;
        }
        const std::vector<std::vector<int>> patterns = {{up + 1, up + 2}, {up + 2}, {up, up + 1}, {up + 1}};
        for (const auto& pat : patterns) {
          if (std::any_of(pat.begin(), pat.end(), [&](int pos) { return pos < 1 || pos > F; })) continue;
          for (bool neg : {false, true}) run_case(build(subnormal_region, neg, T, pat), L, e_fixed);
        }
      }
    // Random: further tops and lows near the output ulp.
    for (int t = 0; t < opt_.rounding_random_trials && informative < 24 && !cand.empty(); ++t) {
      if (cand.size() == 1 && informative >= 8) break;
      const bool neg = below(2) == 1;
      const int T = range(1, tmax);
      const int L = bitlen(static_cast<std::uint64_t>(T)) - 1;
      const int nl_max = std::min(3, kk + 1 - T);
      if (nl_max < 1 || F < 1) return;
      const int nl = range(1, nl_max);
      int up = out_.precision - 1 - L;
      std::optional<std::int64_t> e_fixed;
      if (subnormal_region) {
        e_fixed = subnormal_e(L, range(0, F));
        if (!e_fixed) return;
        up = static_cast<int>(*e_fixed - q);
      }
      std::vector<int> lows;
      for (int i = 0; i < nl; ++i)
        lows.push_back(below(10) < 7 ? range(std::min(F, std::max(1, up - 1)), F) : range(1, F));
      run_case(build(subnormal_region, neg, T, lows), L, e_fixed);
    }
  };
  search(false);
  std::string region = "sums held exactly by the register (F=" + std::to_string(F) + ")";
  if (informative == 0 && sub_out_) {
    region = "sums in the output's subnormal range held exactly by the register (F=" + std::to_string(F) + ")";
    search(true);
  }
  if (informative == 0) {
    rep_.final_rounding.evidence = "never observable: with F=" + std::to_string(F) + ", at most " +
                                   std::to_string(cb) + " carry bits and " +
                                   (cap ? k_text() : std::string("one product per block assumed (k not found)")) +
                                   " the register holds no sum the " + out_.name + " output (precision " +
                                   std::to_string(out_.precision) + ") cannot represent";
    return;
  }
  if (assumed) region = "c plus one product in one step, assuming the step keeps " + std::to_string(F) + " fraction bits";
  ev = region + ", " + std::to_string(informative) + " cases that separate the modes, e.g. " + ev;
  final_candidates_ = cand;
  if (cand.size() == 1) {
    rep_.final_rounding.value = cand[0];
    rep_.final_rounding.evidence = ev;
  } else if (cand.empty()) {
    rep_.final_rounding.evidence = ev + "; no mode of rz|rd|ru|rne fits";
  } else {
    std::string which;
    for (Rounding m : cand) which += (which.empty() ? "" : ", ") + rounding_name(m);
    rep_.final_rounding.evidence = ev + "; consistent: " + which;
  }
}

}  // namespace tcsim::validation::detail
