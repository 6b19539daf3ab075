// The probe's experiments on where c enters the register: aligned with the products or
// late (after they cancelled), and then the products' own F.
#include "probe_prober.hpp"

namespace tcsim::validation::detail {

// ---- 4b. c placement: aligned with the products, or added to their sum afterwards ----
// c = 2^(e-F-2), a1b1 = 2^e, a2b2 = -2^e: aligned, c is cut against 2^e (0, or one
// last unit under ru/sticky); added late, the products have already cancelled and c is exact.
void Prober::c_placement() {
  if (!F_ || (capacity() && *capacity() < 2)) {
    rep_.c_placement.evidence = !F_ ? "needs F" : "needs two products in one block";
    return;
  }
  const int j = *fprime_ + 2;
  Layout l = cancel_layout_c(pow2(-j));
  l.result_leads = {-j};
  auto r = place(l);
  if (!r) {
    rep_.c_placement.evidence = "c = 2^(e-" + std::to_string(j) + ") with a cancelling pair cannot be formed";
    return;
  }
  const std::uint64_t d = call(*r);
  const bool exact = val(d).equals(ExactValue::finite(false, 1, r->e - j));
  rep_.c_placement.value = exact ? "late" : "aligned";
  rep_.c_placement.evidence = "c=2^(e-" + std::to_string(j) + "), a1b1=2^e, a2b2=-2^e -> " + hex(d) +
                              (exact ? ": c exact, added after the products cancelled"
                                     : ": c cut against 2^e, aligned with the products");
}

// With c added late, the products' own sum may keep more bits than the sum with c (a
// separate products' register, rounded before c is added): a1b1 = 2^e, a2b2 = -2^e,
// a3b3 = 2^(e-j), c = 0.

void Prober::products_fraction_bits() {
  int last = 0;
  for (int j = 1; j <= 400; ++j) {
    Layout l;
    l.products = {pow2(0), pow2(0, true), pow2(-j)};
    l.result_leads = {-j};
    auto r = place(l);
    if (!r) {
      rep_.products_fraction_bits.evidence = "a1b1=2^e, a2b2=-2^e, a3b3=2^(e-j), c=0: kept up to j=" +
                                             std::to_string(last) + ", the largest the input can form";
      return;
    }
    const std::uint64_t d = call(*r);
    if (val(d).equals(ExactValue::finite(false, 1, r->e - j))) {
      last = j;
      continue;
    }
    rep_.products_fraction_bits.value = last;
    rep_.products_fraction_bits.evidence =
        "a1b1=2^e, a2b2=-2^e, a3b3=2^(e-j), c=0: kept for j <= " + std::to_string(last) + ", j=" +
        std::to_string(j) + " -> " + hex(d) +
        (F_ && last > *F_ ? " (more than the " + std::to_string(*F_) +
                                " bits seen with c: the products' sum is rounded before c is added)"
                          : "");
    return;
  }
}

}  // namespace tcsim::validation::detail
