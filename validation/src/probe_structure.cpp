// The probe's register experiments: F (fraction bits), the precision the output keeps,
// k (the FMA size) and the carry bits.
#include <algorithm>
#include <cmath>

#include "probe_prober.hpp"

namespace tcsim::validation::detail {

namespace {

// Largest significand with nb bits: (2^nb - 1) * 2^(1-nb), as a term at e.
Term max_sig(int nb) { return Term{false, (std::uint64_t{1} << nb) - 1, 1 - nb}; }

}  // namespace

// ---- 2. F: c = 2^e, a1b1 = -2^e, a2b2 = 2^(e-j) ----
// Blocks of one product: c and a1b1 share a block, a2b2 is in the next. Then c and two
// products never meet in one block and the cancellation below cannot show F, so this is
// decided first: c = 2^e with a small a1b1 = 2^(e-J) and a2b2 = -2^e gives 0 (the small
// term is cut against c), while the same terms with the small one last survive.
bool Prober::blocks_of_one_product() {
  for (int J : {60, 48, 40, 34, 30, 26, 20}) {
    Layout first, last;
    first.c = last.c = pow2(0);
    first.products = {pow2(-J), pow2(0, true)};
    last.products = {pow2(0, true), pow2(-J)};
    first.result_leads = last.result_leads = {-J};
    auto rf = place(first), rl = place(last);
    if (!rf || !rl) continue;
    const ExactValue df = val(call(*rf)), dl = val(call(*rl));
    // One block sums both layouts alike; a tiny (subnormal) term may vanish in both.
    if (!(df.is_zero() && dl.equals(ExactValue::finite(false, 1, rl->e - J)))) continue;
    k_ = 1;
    rep_.fma_size.value = 1;
    rep_.fma_size.evidence = "c=2^e, a1b1=2^(e-" + std::to_string(J) + "), a2b2=-2^e -> " + df.to_hex() +
                             " (the small term cut against c) but c=2^e, a1b1=-2^e, a2b2=2^(e-" +
                             std::to_string(J) + ") -> " + dl.to_hex() +
                             " (exact): c and a1b1 share a block, a2b2 starts the next; k = 1 is also what "
                             "per-step normalization (IEEE-like fused multiply-adds) shows";
    return true;
  }
  return false;
}

void Prober::fraction_bits() {
  if (view_.empty() && blocks_of_one_product()) return fraction_bits_one_product();
  std::string ev;
  int last_kept = 0;
  for (int j = 1; j <= 400; ++j) {
    Layout l = cancel_layout(pow2(-j));
    l.result_leads = {-j};
    auto r = place(l);
    if (!r) {
      // Inputs with few exponent bits: c carries the small term, two products cancel.
      l = cancel_layout_c(pow2(-j));
      l.result_leads = {-j};
      r = place(l);
      if (r && !c_small_) c_small_ = j;
    }
    if (!r) {
      rep_.fraction_bits.evidence = "c=2^e, a1b1=-2^e, a2b2=2^(e-j) kept the small term for every j up to " +
                                    std::to_string(last_kept) + " (the largest the formats can express): F >= " +
                                    std::to_string(last_kept) +
                                    ", or the cancelling terms never share a block (fma size 1 or per-step normalization)";
      return;
    }
    const std::uint64_t d = call(*r);
    const ExactValue want = ExactValue::finite(false, 1, r->e - j);
    if (val(d).equals(want)) {
      last_kept = j;
      continue;
    }
    ev = "c=2^e, a1b1=-2^e, a2b2=2^(e-j) (e=" + std::to_string(r->e) + "): the small term survives exactly for j <= " +
         std::to_string(last_kept) + "; j=" + std::to_string(j) + " -> " + hex(d);
    if (c_small_)
      ev += " (from j=" + std::to_string(*c_small_) + " on, c=2^(e-j) and a1b1=2^e, a2b2=-2^e: the input format "
            "cannot form 2^(e-j) as a product)";
    fprime_ = last_kept;
    break;
  }
  if (!fprime_) {
    rep_.fraction_bits.evidence = "the small term survived up to j=400";
    return;
  }
  F_ = *fprime_;
  rep_.fraction_bits.value = *fprime_;
  rep_.fraction_bits.evidence = ev;
}

// With one product per block c carries the bits: c = -(2^e - 2^(e-j)) (j bits) and
// a1b1 = 2^e give 2^(e-j) exactly while the register keeps j fraction bits below 2^e
// (truncated, rounded or sticky, a c cut at F bits gives 0 or 2^(e-F), never 2^(e-j)).
void Prober::fraction_bits_one_product() {
  const std::string note = " (one product per block: the alignment experiments, which need c and two products, "
                           "cannot run, so a sticky bit would show here as one more bit)";
  int last = 0;
  for (int j = 1; j <= std::min(c_bits(), 62); ++j) {
    Layout l;
    l.c = Term{true, (std::uint64_t{1} << j) - 1, -j};
    l.products = {pow2(0)};
    l.result_leads = {0, -j};
    auto r = place(l);
    if (!r) break;
    const std::uint64_t d = call(*r);
    if (val(d).equals(ExactValue::finite(false, 1, r->e - j))) {
      last = j;
      continue;
    }
    fprime_ = F_ = last;
    rep_.fraction_bits.value = last;
    rep_.fraction_bits.evidence = "c=-(2^e-2^(e-j)), a1b1=2^e (e=" + std::to_string(r->e) +
                                  "): 2^(e-j) exact for j <= " + std::to_string(last) + "; j=" + std::to_string(j) +
                                  " -> " + hex(d) + note;
    return;
  }
  rep_.fraction_bits.evidence = "c=-(2^e-2^(e-j)), a1b1=2^e gave 2^(e-j) exactly for every j up to " +
                                std::to_string(last) + ", the most bits c can carry: F >= " + std::to_string(last) +
                                " (one product per block: c and two products, which would reach further, never "
                                "meet in one block)";
}

// ---- 3. k: the small term leaves the block of the cancelling pair ----
void Prober::fma_size() {
  if (k_) return;  // found with F (blocks of one product)
  if (!fprime_) {
    rep_.fma_size.evidence = "needs F (a term that is lost inside a block)";
    return;
  }
  const int j = *fprime_ + 1;
  for (int i = 2; i <= opt_.max_products; ++i) {
    Layout l = cancel_layout(pow2(-j), i);
    l.result_leads = {-j};
    auto r = place(l);
    if (!r) {
      fma_size_c();
      return;
    }
    const std::uint64_t d = call(*r);
    if (val(d).equals(ExactValue::finite(false, 1, r->e - j))) {
      k_ = i - 1 + c_slots();
      rep_.fma_size.value = *k_;
      rep_.fma_size.evidence = "c=2^e, a1b1=-2^e, zeros, a_ib_i=2^(e-" + std::to_string(j) +
                               "): lost (truncated against 2^e) for i <= " + std::to_string(i - 1) +
                               ", exact for i = " + std::to_string(i) + " (a new block starts from c = 0)";
      if (*k_ == 1)
        rep_.fma_size.evidence += "; k = 1 is also what per-step normalization (IEEE-like fused multiply-adds) shows";
      return;
    }
  }
  k_lower_ = opt_.max_products + c_slots();
  rep_.fma_size.evidence = "the small term was lost at every position up to " + std::to_string(opt_.max_products) +
                           ": " + k_text();
}

// k for inputs that cannot form the small term: c = 2^(e-F') is kept by the register but
// not by the output (F' >= p), a1b1 = 2^e, a_ib_i = -2^e. In one block the pair cancels
// and c survives; once a_ib_i starts a new block, block 1 has rounded 2^e + c to 2^e.
void Prober::fma_size_c() {
  const int fp = *fprime_;
  if (fp < out_.precision) {
    rep_.fma_size.evidence = "the small term 2^(e-" + std::to_string(fp + 1) + ") cannot be formed as a " +
                             in_.name + " product, and with F=" + std::to_string(fp) + " < p=" +
                             std::to_string(out_.precision) + " the output keeps what the register keeps";
    return;
  }
  for (int i = 2; i <= opt_.max_products; ++i) {
    Layout l;
    l.c = pow2(-fp);
    l.products.assign(static_cast<std::size_t>(i), Term{});
    l.products[0] = pow2(0);
    l.products[static_cast<std::size_t>(i - 1)] = pow2(0, true);
    l.result_leads = {-fp};
    auto r = place(l);
    if (!r) {
      rep_.fma_size.evidence = "the test terms cannot be formed";
      return;
    }
    const std::uint64_t d = call(*r);
    if (!val(d).equals(ExactValue::finite(false, 1, r->e - fp))) {
      k_ = i - 1 + c_slots();
      rep_.fma_size.value = *k_;
      rep_.fma_size.evidence = "c=2^(e-" + std::to_string(fp) + "), a1b1=2^e, zeros, a_ib_i=-2^e: c survives for i <= " +
                               std::to_string(i - 1) + ", lost for i = " + std::to_string(i) +
                               " (block 1 rounded 2^e + c to the output format)";
      return;
    }
  }
  k_lower_ = opt_.max_products + c_slots();
  rep_.fma_size.evidence = "c survived at every position up to " + std::to_string(opt_.max_products) + ": " +
                           k_text();
}

// ---- 2b. result precision: does the output keep all its fraction bits? ----
// 2^e + 2^(e-j) for j up to min(F', p-1) (c and one product); when F' limits that, two
// terms 2^e carry into 2^(e+1) and 2^(e-F') sits F'+1 bits below the result's lead.
void Prober::result_precision() {
  const int full = out_.precision - 1;
  if (!fprime_) {
    rep_.result_fraction_bits.evidence = "needs F";
    return;
  }
  const int fp = *fprime_;
  const int jmax = std::min(fp, full);
  for (int j = 1; j <= jmax; ++j) {
    Layout l;
    l.c = pow2(0);
    l.products = {pow2(-j)};
    l.result_leads = {0};
    auto r = place(l);
    if (!r) {
      l.c = pow2(-j);
      l.products = {pow2(0)};
      r = place(l);
    }
    if (!r) {
      rep_.result_fraction_bits.evidence = "2^e + 2^(e-" + std::to_string(j) + ") cannot be formed";
      return;
    }
    const std::uint64_t d = call(*r);
    if (!val(d).equals(exact_sum(l, r->e))) {
      set_result_bits(j - 1, "2^e + 2^(e-j) is exact for j <= " + std::to_string(j - 1) + ", j=" +
                                 std::to_string(j) + " -> " + hex(d));
      return;
    }
  }
  if (jmax == full) {
    rep_.result_fraction_bits.value = full;
    rep_.result_fraction_bits.evidence = "2^e + 2^(e-j) is exact for every j <= " + std::to_string(full);
    return;
  }
  // F' < p-1: a carry makes a result with F'+1 fraction bits; with one product per block c
  // carries 2^(e-F') (F' < p-1: c holds it).
  Layout l;
  l.c = pow2(0);
  l.products = {pow2(0), pow2(-fp)};
  if (k_ && beside_c(*k_) < 2) {
    if (fp < 1) {  // c = 2^e + 2^e would move the register's top: no such sum exists
      rep_.result_fraction_bits.evidence = "with F=0 and one product per block no sum of c and the product keeps a "
                                           "bit below its leading one";
      return;
    }
    l.c = Term{false, (std::uint64_t{1} << fp) + 1, -fp};
    l.products = {pow2(0)};
  }
  l.result_leads = {1};
  auto r = place(l);
  if (!r) {
    rep_.result_fraction_bits.evidence = "the test terms cannot be formed";
    return;
  }
  const std::uint64_t d = call(*r);
  const ExactValue s = exact_sum(l, r->e);
  const std::string ev = "2^e + 2^e + 2^(e-" + std::to_string(fp) + ") = " + s.to_hex() + " -> " + hex(d);
  if (val(d).equals(s)) {
    rep_.result_fraction_bits.value = full;
    rep_.result_fraction_bits.evidence = ev + ": at least " + std::to_string(fp + 1) +
                                         " fraction bits kept (all the register can hold with one carry; taken as " +
                                         std::to_string(full) + ")";
    return;
  }
  const ExactValue two = ExactValue::finite(false, 1, r->e + 1);
  const ExactValue two_up = ExactValue::finite(false, (std::uint64_t{1} << (fp)) + 1, r->e + 1 - fp);
  if (val(d).equals(two) || val(d).equals(two_up)) {
    set_result_bits(fp, ev + ": the result is rounded to " + std::to_string(fp) + " fraction bits");
    return;
  }
  rep_.result_fraction_bits.evidence = ev + " (neither exact nor rounded: a carry overflow?)";
}
void Prober::set_result_bits(int bits, const std::string& ev) {
  rep_.result_fraction_bits.value = bits;
  rep_.result_fraction_bits.evidence = ev;
  if (bits < out_.precision - 1) {
    try {
      eff_ = make_format(out_.name + " with " + std::to_string(bits) + " fraction bits", bits + 1, out_.emin,
                         out_.emax, out_.subnormals, out_.infinities, out_.nan, out_.saturate, out_.is_signed);
    } catch (const std::invalid_argument&) {
      // e.g. 0 fraction bits with IEEE NaNs: no such format; the later predictions round to
      // the output's own precision, and say so.
      rep_.result_fraction_bits.evidence += " (the later predictions round to the output's own precision: no "
                                            "format with " + std::to_string(bits) + " fraction bits and " +
                                            out_.name + "'s specials exists)";
    }
  }
}

// ---- 5. carry bits ----
void Prober::carry_bits() {
  if (!F_) {
    rep_.carry_bits.evidence = "needs F";
    return;
  }
  const int nb_in = std::min({in_.precision, *F_ + 1, 62});
  const int nb_out = std::min({c_bits(), *F_ + 1, 62});
  const Term ti = max_sig(nb_in), tc = max_sig(nb_out);
  const double m_in = 2.0 - std::ldexp(1.0, 1 - nb_in), m_out = 2.0 - std::ldexp(1.0, 1 - nb_out);
  if (!capacity()) {
    rep_.carry_bits.evidence = "needs k (how many products one block sums)";
    return;
  }
  const int limit = beside_c(*capacity());
  std::string ev;
  int fits = 0;
  for (int q = 1; q <= 64; ++q) {
    const double need = (std::ldexp(1.0, q) - m_out) / m_in;
    const int n = std::max(1, static_cast<int>(std::ceil(need - 1e-12)));
    if (n > limit) {
      carry_ = fits;
      rep_.carry_bits.value = fits;
      rep_.carry_bits_lower_bound = true;
      rep_.carry_bits.evidence = ev + (ev.empty() ? "" : "; ") + "a sum >= 2^(E+" + std::to_string(q) + ") needs c and " +
                                 std::to_string(n) + " products in one block (" + k_text() +
                                 "): at least " + std::to_string(fits) + " carry bits, " +
                                 (k_ ? "more cannot be observed" : "more not tested");
      return;
    }
    Layout l;
    l.c = tc;
    l.products.assign(static_cast<std::size_t>(n), ti);
    l.result_leads = {q};
    auto r = place(l);
    if (!r) {
      carry_ = fits;
      rep_.carry_bits.value = fits;
      rep_.carry_bits_lower_bound = true;
      rep_.carry_bits.evidence = ev + "; the sum for 2^(E+" + std::to_string(q) + ") cannot be formed";
      return;
    }
    const std::uint64_t d = call(*r);
    const ExactValue s = exact_sum(l, r->e);
    bool ok = false;
    for (Rounding m : kModes) ok = ok || val(d).equals(rnd(s, m));
    ev += (ev.empty() ? "" : "; ") + std::string("c + ") + std::to_string(n) + " products = " + s.to_hex() +
          " -> " + hex(d);
    if (!ok) {
      carry_ = q - 1;
      rep_.carry_bits.value = q - 1;
      rep_.carry_bits.evidence = ev + " (overflow of a register below 2^(E+" + std::to_string(q) + "))";
      return;
    }
    fits = q;
  }
}

}  // namespace tcsim::validation::detail
