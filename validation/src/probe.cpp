// The black-box feature probe (probe.hpp); methodology in docs/probe.md.
//
// Every experiment is a list of terms (exact values sig * 2^exp placed relative to a
// reference exponent e) that is realized as bit patterns: each product a_i b_i with a
// carrying the significand and b a power of two (so the product's significand is in
// [1,2) and its exponent is the same under either product-exponent convention), c as one
// pattern of the output format. e is chosen so that every operand, c and the expected
// results are normal numbers of their formats (the largest terms always use normal
// operands; smaller ones may use subnormal operands once subnormal inputs are known to
// be honoured).
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/exact.hpp"
#include "tcsim/validation/probe.hpp"

namespace tcsim::validation {

std::string rounding_name(Rounding r) { return to_string(r); }  // sim's names: rne, rz, ...

namespace {

constexpr Rounding kModes[] = {Rounding::TowardZero, Rounding::Down, Rounding::Up, Rounding::NearestEven};

int bitlen(std::uint64_t v) { return v ? 64 - __builtin_clzll(v) : 0; }

// A term: (-1)^neg * sig * 2^exp (relative to the reference exponent e until placed).
struct Term {
  bool neg = false;
  std::uint64_t sig = 0;  // 0: a zero product
  std::int64_t exp = 0;
  std::int64_t lead() const { return exp + bitlen(sig) - 1; }
};
Term pow2(std::int64_t x, bool neg = false) { return Term{neg, 1, x}; }

ExactValue value_of(const Term& t, std::int64_t e = 0) {
  if (t.sig == 0) return ExactValue::zero(t.neg);
  return ExactValue::finite(t.neg, t.sig, t.exp + e);
}

struct Layout {
  std::vector<Term> products;  // relative to e
  Term c;                      // relative to e (sig 0: c = +0)
  std::vector<std::int64_t> result_leads;  // relative leads of results that must be normal out values
};

struct Realized {
  std::vector<std::uint64_t> a, b;
  std::uint64_t c = 0;
  std::int64_t e = 0;
};

class Prober {
 public:
  Prober(const BlackBox& box, const ProbeOptions& opt) : box_(box), in_(box.in), out_(box.out), opt_(opt) {
    rep_.unit = box.name;
    rep_.in_format = in_.name;
    rep_.out_format = out_.name;
    rng_ = opt.seed ? opt.seed : 1;
  }

  ProbeReport run() {
    subnormals();
    fraction_bits();
    result_precision();
    fma_size();
    alignment_rounding();
    c_placement();
    instruction_structure();
    carry_bits();
    final_rounding();
    products_exact();
    normalization();
    if (per_step_ && !F_) {
      const std::string note = "; with per-step normalization c + a1b1 cancel in a step of their own, so the "
                               "register width does not show";
      rep_.fraction_bits.evidence += note;
      rep_.fma_size.evidence += note;
    }
    exponent_clamp();
    order();
    monotonicity();
    rep_.dot_calls = calls_;
    return rep_;
  }

 private:
  const BlackBox& box_;
  const Format& in_;
  const Format& out_;
  ProbeOptions opt_;
  ProbeReport rep_;
  long calls_ = 0;
  std::uint64_t rng_;
  bool sub_in_ = false;   // subnormal a/b operands may be used
  bool sub_out_ = false;  // subnormal results are produced
  // Measured so far.
  std::optional<int> fprime_;  // largest j such that 2^(E-j) survives (F, or F+1 with a sticky bit)
  std::optional<int> F_;       // fraction bits (without the sticky position)
  std::optional<int> k_;
  std::optional<Rounding> align_;
  bool sticky_ = false;
  std::optional<int> carry_;
  std::vector<Rounding> final_candidates_{std::begin(kModes), std::end(kModes)};
  bool per_step_ = false;
  std::optional<Format> eff_;  // the output format with the measured result precision, when reduced

  std::uint64_t next() {
    std::uint64_t z = (rng_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }
  int range(int lo, int hi) { return hi < lo ? lo : lo + static_cast<int>(below(static_cast<std::uint64_t>(hi - lo + 1))); }

  // ---- encoding ----

  // The exact pattern of v in f, if v is representable (normal unless allow_sub).
  std::optional<std::uint64_t> enc(const Format& f, const ExactValue& v, bool allow_sub) const {
    if (v.is_zero()) return f.zero(v.negative);
    if (v.negative && !f.is_signed) return std::nullopt;
    const std::int64_t lead = v.lead_exponent();
    if (lead > f.emax) return std::nullopt;
    if (lead < f.emin && !(allow_sub && f.subnormals)) return std::nullopt;
    const std::uint64_t bits = round_bits(v, f, Rounding::NearestEven);
    if (!decode(f, bits).equals(v)) return std::nullopt;
    const FpClass cls = classify(f, bits);
    if (cls == FpClass::NaN || cls == FpClass::Infinity) return std::nullopt;
    return bits;
  }

  // Operands a (significand) and b (power of two) with a*b = t * 2^e exactly.
  std::optional<std::pair<std::uint64_t, std::uint64_t>> product(const Term& t, std::int64_t e, bool top) const {
    if (t.sig == 0) return std::make_pair(in_.zero(false), in_.zero(false));
    std::uint64_t sig = t.sig;
    std::int64_t exp = t.exp + e;
    while (!(sig & 1)) sig >>= 1, ++exp;
    const int bl = bitlen(sig);
    if (bl > in_.precision) return std::nullopt;
    const std::int64_t L = exp + bl - 1;
    // Normal a and b: y (exponent of b) and L - y (lead of a) both in [emin, emax].
    const std::int64_t lo = std::max<std::int64_t>(in_.emin, L - in_.emax);
    const std::int64_t hi = std::min<std::int64_t>(in_.emax, L - in_.emin);
    auto attempt = [&](std::int64_t y, bool sub) -> std::optional<std::pair<std::uint64_t, std::uint64_t>> {
      auto a = enc(in_, ExactValue::finite(t.neg, sig, exp - y), sub);
      auto b = enc(in_, ExactValue::finite(false, 1, y), sub);
      if (a && b) return std::make_pair(*a, *b);
      return std::nullopt;
    };
    if (lo <= hi) {
      const std::int64_t mid = std::clamp<std::int64_t>(L / 2, lo, hi);
      for (std::int64_t d = 0; d <= hi - lo; ++d) {
        for (std::int64_t y : {mid - d, mid + d})
          if (y >= lo && y <= hi)
            if (auto r = attempt(y, false)) return r;
        if (d > 4) break;
      }
    }
    if (top || !sub_in_ || !in_.subnormals) return std::nullopt;
    const std::int64_t sub_lo = in_.emin - (in_.precision - 1);
    for (std::int64_t y = in_.emax; y >= sub_lo; --y)
      if (auto r = attempt(y, true)) return r;
    return std::nullopt;
  }

  std::optional<Realized> realize(const Layout& l, std::int64_t e) const {
    Realized r;
    r.e = e;
    std::int64_t top = std::numeric_limits<std::int64_t>::min();
    for (const Term& t : l.products)
      if (t.sig) top = std::max(top, t.lead());
    if (l.c.sig) top = std::max(top, l.c.lead());
    for (const Term& t : l.products) {
      // Products must stay inside the output's range (per-step units round every partial sum).
      if (t.sig && t.lead() + e > out_.emax - 1) return std::nullopt;
      auto ab = product(t, e, t.sig && t.lead() == top);
      if (!ab) return std::nullopt;
      r.a.push_back(ab->first);
      r.b.push_back(ab->second);
    }
    auto c = enc(out_, value_of(l.c, e), false);
    if (!c) return std::nullopt;
    r.c = *c;
    for (std::int64_t rl : l.result_leads)
      if (rl + e < out_.emin || rl + e > out_.emax) return std::nullopt;
    return r;
  }

  // The reference exponent closest to `prefer` for which the layout is realizable.
  std::optional<Realized> place(const Layout& l, std::int64_t prefer = 0) const {
    // Bounds from the normal ranges, then a short local search.
    std::int64_t lo = -100000, hi = 100000;
    auto bound = [&](std::int64_t rel_lead, std::int64_t min_lead, std::int64_t max_lead) {
      lo = std::max(lo, min_lead - rel_lead);
      hi = std::min(hi, max_lead - rel_lead);
    };
    const std::int64_t sub_extra = (sub_in_ && in_.subnormals) ? 2 * (in_.precision - 1) : 0;
    std::int64_t top = std::numeric_limits<std::int64_t>::min();
    for (const Term& t : l.products)
      if (t.sig) top = std::max(top, t.lead());
    for (const Term& t : l.products)
      if (t.sig)
        bound(t.lead(), 2 * in_.emin - (t.lead() == top ? 0 : sub_extra), std::min<std::int64_t>(2 * in_.emax + 1, out_.emax - 1));
    if (l.c.sig) bound(l.c.lead(), out_.emin, out_.emax);
    for (std::int64_t rl : l.result_leads) bound(rl, out_.emin, out_.emax);
    if (lo > hi) return std::nullopt;
    const std::int64_t start = std::clamp(prefer, lo, hi);
    for (std::int64_t d = 0; d <= 12; ++d)
      for (std::int64_t e : {start + d, start - d})
        if (e >= lo && e <= hi)
          if (auto r = realize(l, e)) return r;
    return std::nullopt;
  }

  std::uint64_t call(const Realized& r) {
    ++calls_;
    return box_.dot(r.a, r.b, r.c);
  }
  ExactValue val(std::uint64_t d) const { return decode(out_, d); }
  std::string hex(std::uint64_t d) const { return val(d).to_hex(); }
  std::string term_hex(const Term& t, std::int64_t e) const { return value_of(t, e).to_hex(); }

  // Exact sum of a placed layout.
  static ExactValue exact_sum(const Layout& l, std::int64_t e) {
    ExactValue s = value_of(l.c, e);
    for (const Term& t : l.products) s = exact_add(s, value_of(t, e));
    return s;
  }
  // v rounded to the output format as the unit delivers it (the result precision measured
  // by result_precision(), the output's own otherwise).
  ExactValue rnd(const ExactValue& v, Rounding m) const {
    RoundingOptions o;
    o.mode = m;
    o.overflow = OverflowMode::Ieee;
    o.subnormals = sub_out_ ? SubnormalMode::Keep : SubnormalMode::Flush;
    const Format& f = eff_ ? *eff_ : out_;
    return decode(f, round_to_format(v, f, o).bits);
  }


  // ---- 1. subnormals ----
  void subnormals() {
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

  // ---- 2. F: c = 2^e, a1b1 = -2^e, a2b2 = 2^(e-j) ----
  Layout cancel_layout(const Term& small, int position = 2) const {
    Layout l;
    l.c = pow2(0);
    l.products.assign(static_cast<std::size_t>(position), Term{});
    l.products[0] = pow2(0, true);
    l.products[static_cast<std::size_t>(position - 1)] = small;
    return l;
  }

  // The same with c as the small term and the cancelling pair as products.
  Layout cancel_layout_c(const Term& small) const {
    Layout l;
    l.c = small;
    l.products = {pow2(0), pow2(0, true)};
    return l;
  }
  std::optional<int> c_small_;  // first j for which c had to carry the small term

  // Blocks of one product: c and a1b1 share a block, a2b2 is in the next. Then the
  // cancellation below never happens inside a block and F is not measurable this way, so
  // this is decided first: c = 2^e with a small a1b1 = 2^(e-J) and a2b2 = -2^e gives 0 (the
  // small term is cut against c), while the same terms with the small one last survive.
  bool blocks_of_one_product() {
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
      rep_.fraction_bits.evidence =
          "unknown: with one product per block, c and two products never meet in one block, so the cancellation "
          "that shows F cannot be set up";
      return true;
    }
    return false;
  }

  void fraction_bits() {
    if (blocks_of_one_product()) return;
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

  // ---- 3. k: the small term leaves the block of the cancelling pair ----
  void fma_size() {
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
        k_ = i - 1;
        rep_.fma_size.value = *k_;
        rep_.fma_size.evidence = "c=2^e, a1b1=-2^e, zeros, a_ib_i=2^(e-" + std::to_string(j) +
                                 "): lost (truncated against 2^e) for i <= " + std::to_string(i - 1) +
                                 ", exact for i = " + std::to_string(i) + " (a new block starts from c = 0)";
        if (*k_ == 1)
          rep_.fma_size.evidence += "; k = 1 is also what per-step normalization (IEEE-like fused multiply-adds) shows";
        return;
      }
    }
    rep_.fma_size.evidence = "the small term was lost at every position up to " + std::to_string(opt_.max_products) +
                             ": k >= " + std::to_string(opt_.max_products);
  }

  // k for inputs that cannot form the small term: c = 2^(e-F') is kept by the register but
  // not by the output (F' >= p), a1b1 = 2^e, a_ib_i = -2^e. In one block the pair cancels
  // and c survives; once a_ib_i starts a new block, block 1 has rounded 2^e + c to 2^e.
  void fma_size_c() {
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
        k_ = i - 1;
        rep_.fma_size.value = *k_;
        rep_.fma_size.evidence = "c=2^(e-" + std::to_string(fp) + "), a1b1=2^e, zeros, a_ib_i=-2^e: c survives for i <= " +
                                 std::to_string(i - 1) + ", lost for i = " + std::to_string(i) +
                                 " (block 1 rounded 2^e + c to the output format)";
        return;
      }
    }
    rep_.fma_size.evidence = "c survived at every position up to " + std::to_string(opt_.max_products) +
                             ": k >= " + std::to_string(opt_.max_products);
  }

  // ---- 2b. result precision: does the output keep all its fraction bits? ----
  // 2^e + 2^(e-j) for j up to min(F', p-1) (c and one product); when F' limits that, two
  // terms 2^e carry into 2^(e+1) and 2^(e-F') sits F'+1 bits below the result's lead.
  void result_precision() {
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
    // F' < p-1: a carry makes a result with F'+1 fraction bits.
    Layout l;
    l.c = pow2(0);
    l.products = {pow2(0), pow2(-fp)};
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
  void set_result_bits(int bits, const std::string& ev) {
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

  // ---- 4. alignment rounding and sticky bit ----
  // Hypothesis: alignment mode, sticky bit, and F (F' or, with a sticky bit, F'-1: the
  // sticky position itself can hold the last surviving bit).
  struct Hyp {
    Rounding mode;
    bool sticky;
    int F;
  };
  static std::int64_t round_units(std::int64_t n, int g, Rounding mode) {
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
  static std::int64_t predict_align(std::int64_t n, int g, int fprime, const Hyp& h) {
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

  void alignment_rounding() {
    if (!fprime_ || !k_ || *k_ < 2) {
      const std::string why = !fprime_ ? "needs F" : "needs a block of at least 2 products (c and two products)";
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
      std::erase_if(hyps, [&](const Hyp& h) { return !integral || predict_align(n, g, fp, h) != units; });
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

  // ---- 4b. c placement: aligned with the products, or added to their sum afterwards ----
  // c = 2^(e-F-2), a1b1 = 2^e, a2b2 = -2^e: aligned, c is cut against 2^e (0, or one
  // last unit under ru/sticky); added late, the products have already cancelled and c is exact.
  void c_placement() {
    if (!F_ || (k_ && *k_ < 2)) {
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
    if (exact) products_fraction_bits();
  }

  // ---- 8. the structure of an instruction whose c enters last ----
  // d(p, q, r): a_p b_p = 2^e, a_q b_q = -2^e, a_r b_r = 2^(e-J), every other product 0,
  // c = 0, with J beyond any block's F: 0 when r normalizes together with p and q (the
  // small term is cut against 2^e), 2^(e-J) exactly when r sits in another block. Positions
  // sharing a block with some cancelling pair form the blocks (an earlier block's result is
// the next one's accumulator, so the blocks are found in order).
  enum class Shared { Yes, No, Unclear };

  Shared shares_block(int K, int p, int q, int r, int J) {
    Layout l;
    l.products.assign(static_cast<std::size_t>(K), Term{});
    l.products[static_cast<std::size_t>(p)] = pow2(0);
    l.products[static_cast<std::size_t>(q)] = pow2(0, true);
    l.products[static_cast<std::size_t>(r)] = pow2(-J);
    l.result_leads = {-J};  // the small term must be a normal output value when it survives
    auto placed = place(l);
    if (!placed) return Shared::Unclear;
    const ExactValue d = val(call(*placed));
    if (d.is_zero()) return Shared::Yes;
    if (d.equals(ExactValue::finite(false, 1, placed->e - J))) return Shared::No;
    return Shared::Unclear;
  }

  void instruction_structure() {
    rep_.structure_not_observed =
        "not observed: which block starts from +0 and whether the second block takes the first's rounded result "
        "as its accumulator; zero signs of the addition of c; overflow and subnormal results of the blocks";
    auto unknown = [&](const std::string& why) {
      rep_.blocks.evidence = why;
      rep_.block_fraction_bits.evidence = rep_.block_rounding.evidence = rep_.final_add_rounding.evidence = why;
    };
    if (rep_.c_placement.value != "late") return unknown("only for units whose c enters after the products");
    if (!k_ || *k_ < 4) return unknown("needs an instruction of at least 4 products");
    const int K = *k_;
    // J: as large as the input can form (at most 60), beyond any plausible block F.
    int J = 0;
    for (int j : {60, 48, 40, 36, 34, 32, 30, 28, 27, 26}) {  // binary16 output: at most 28
      Layout l;
      l.products = {pow2(0), pow2(0, true), pow2(-j)};
      l.result_leads = {-j};
      if (place(l)) {
        J = j;
        break;
      }
    }
    if (!J) return unknown("a product 2^(e-30) beside 2^e cannot be formed: the blocks cannot be told apart");
    // Partition: for each unassigned position p, find a partner q that cancels with it inside a
    // block (some r is then cut), and collect every r cut by that pair.
    std::vector<int> block_of(static_cast<std::size_t>(K), -1);
    std::vector<std::vector<int>> blocks;
    for (int p = 0; p < K; ++p) {
      if (block_of[static_cast<std::size_t>(p)] >= 0) continue;
      std::vector<int> members;
      for (int q = 0; q < K && members.empty(); ++q) {
        if (q == p || block_of[static_cast<std::size_t>(q)] >= 0) continue;
        std::vector<int> cut;
        bool clear = true;
        // Only unassigned r: an earlier block's result enters the later one as its
        // accumulator, so it is cut there too and would look like a member.
        for (int r = 0; r < K && clear; ++r) {
          if (r == p || r == q || block_of[static_cast<std::size_t>(r)] >= 0) continue;
          const Shared sh = shares_block(K, p, q, r, J);
          if (sh == Shared::Unclear) clear = false;
          if (sh == Shared::Yes) cut.push_back(r);
        }
        if (!clear) return unknown("a result was neither 0 nor the small term exactly: not the c-last block model");
        if (!cut.empty()) {
          members = cut;
          members.push_back(p);
          members.push_back(q);
        }
      }
      if (members.empty()) members.push_back(p);  // a block of one product (or a pair)
      std::sort(members.begin(), members.end());
      for (int m : members) block_of[static_cast<std::size_t>(m)] = static_cast<int>(blocks.size());
      blocks.push_back(members);
    }
    auto list = [](const std::vector<int>& v) {
      std::string s;
      for (int x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
      return s;
    };
    std::string ev = "a_pb_p=2^e, a_qb_q=-2^e, a_rb_r=2^(e-" + std::to_string(J) +
                     "), c=0 over the " + std::to_string(K) + " products of one instruction: ";
    for (std::size_t b = 0; b < blocks.size(); ++b)
      ev += (b ? "; " : "") + std::string("block ") + std::to_string(b + 1) + " = {" + list(blocks[b]) + "}";
    bool mod4 = blocks.size() == 2;
    for (int i = 0; i < K && mod4; ++i) mod4 = block_of[static_cast<std::size_t>(i)] == ((i % 4) / 2);
    if (mod4) ev += " (k mod 4 in {0,1} / {2,3})";
    const auto& first = blocks.front();
    if (first.size() < 3) return unknown(ev + ": product 0's block has fewer than 3 products");
    // A block's F: the cancelling pair and a small term inside the same block.
    int last = 0;
    for (int j = 1; j <= J; ++j) {
      Layout l;
      l.products.assign(static_cast<std::size_t>(K), Term{});
      l.products[static_cast<std::size_t>(first[0])] = pow2(0);
      l.products[static_cast<std::size_t>(first[1])] = pow2(0, true);
      l.products[static_cast<std::size_t>(first[2])] = pow2(-j);
      l.result_leads = {-j};
      auto placed = place(l);
      if (!placed) break;
      if (!val(call(*placed)).equals(ExactValue::finite(false, 1, placed->e - j))) {
        rep_.block_fraction_bits.value = last;
        rep_.block_fraction_bits.evidence = "inside block 1 (positions " + std::to_string(first[0]) + ", " +
                                            std::to_string(first[1]) + ", " + std::to_string(first[2]) +
                                            "): 2^(e-j) survives the cancelling pair for j <= " +
                                            std::to_string(last) + ", not for j = " + std::to_string(j);
        break;
      }
      last = j;
    }
    if (!rep_.block_fraction_bits.value)
      return unknown(ev + ": but a block keeps the small term at every j <= " + std::to_string(J) +
                     " the formats allow, so the partition test cannot separate the blocks");
    rep_.blocks.value = blocks;
    rep_.blocks.evidence = ev;
    if (blocks.size() < 2) {
      rep_.block_rounding.evidence = rep_.final_add_rounding.evidence = "one block: the c-last findings above describe it";
      return;
    }
    // The roundings: 1.5 * 2^e and a fraction x of the output's ulp u, either inside block 1
    // (c = 0: the block's rounding) or as c (the block is exact: the addition's rounding).
    const int p_out = eff_ ? eff_->precision : out_.precision;
    auto observe = [&](bool as_c) -> std::optional<Rounding> {
      const std::pair<int, bool> cases[] = {{3, false}, {1, false}, {3, true}};  // x = 3/4 u, 1/4 u; sign of both
      std::vector<Rounding> fits(std::begin(kModes), std::end(kModes));
      std::string seen;
      for (auto [quarters, neg] : cases) {
        Layout l;
        l.products.assign(static_cast<std::size_t>(K), Term{});
        l.products[static_cast<std::size_t>(first[0])] = Term{neg, 3, -1};
        const Term small{neg, static_cast<std::uint64_t>(quarters), -(p_out - 1) - 2};
        if (as_c) l.c = small;
        else l.products[static_cast<std::size_t>(first[1])] = small;
        l.result_leads = {0};
        auto placed = place(l);
        if (!placed) return std::nullopt;
        const ExactValue d = val(call(*placed));
        const ExactValue exact = exact_sum(l, placed->e);
        seen += (seen.empty() ? "" : ", ") + exact.to_hex() + " -> " + d.to_hex();
        std::erase_if(fits, [&](Rounding m) { return !rnd(exact, m).equals(d); });
      }
      (as_c ? rep_.final_add_rounding : rep_.block_rounding).evidence =
          std::string(as_c ? "one product 1.5*2^e (a block result that is exact) and c = +-x ulp: "
                           : "1.5*2^e and +-x ulp of the output inside block 1, c = 0: ") +
          seen + (fits.size() == 1 ? "" : fits.empty() ? "; no mode fits" : "; several modes fit");
      if (fits.size() == 1) return fits.front();
      return std::nullopt;
    };
    if (last >= p_out + 1) {  // 1.5 * 2^e + 3/4 ulp has its last bit at 2^(e-p_out-1)
      rep_.block_rounding.value = observe(false);
    } else {
      rep_.block_rounding.evidence = "a block keeps too few bits (F) to hold sums between output numbers";
    }
    rep_.final_add_rounding.value = observe(true);
    // The c-last findings above measure the path through c's addition, not a block.
    const std::string note = " (c enters last: this describes the path through the addition of c; the blocks "
                             "are in 'instruction blocks' below)";
    rep_.fraction_bits.evidence += note;
    rep_.final_rounding.evidence += note;
    rep_.fma_size.evidence += " (the products of one instruction; an instruction splits into " +
                              std::to_string(blocks.size()) + " blocks, below)";
  }

  // With c added late, the products' own sum may keep more bits than the sum with c (a
  // separate products' register, rounded before c is added): a1b1 = 2^e, a2b2 = -2^e,
  // a3b3 = 2^(e-j), c = 0.
  void products_fraction_bits() {
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

  // ---- 8b. lower clamp on E (KM25's min_exp_limit) ----
  // Largest term 2^e and a tiny one 2^(e-F): the register keeps the tiny term while E = e,
  // and drops it once E is clamped to m > e (the last bit is then 2^(m-F)). The other terms
  // make the final rounding notice: for rz/rd a negative tiny term (just below 2^e), for ru
  // a positive one, for rne an odd output quantum plus half a quantum (a tie broken by the
  // tiny term). Scanning e downward, the first e where the tiny term is lost is m-1.
  void exponent_clamp() {
    if (!F_ || !rep_.final_rounding.value || per_step_ || !k_) {
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
      if (static_cast<int>(l.products.size()) > *k_) break;
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

  // ---- 5. carry bits ----
  // Largest significand with nb bits: (2^nb - 1) * 2^(1-nb), as a term at e.
  static Term max_sig(int nb) { return Term{false, (std::uint64_t{1} << nb) - 1, 1 - nb}; }

  void carry_bits() {
    if (!F_) {
      rep_.carry_bits.evidence = "needs F";
      return;
    }
    const int nb_in = std::min({in_.precision, *F_ + 1, 62});
    const int nb_out = std::min({out_.precision, *F_ + 1, 62});
    const Term ti = max_sig(nb_in), tc = max_sig(nb_out);
    const double m_in = 2.0 - std::ldexp(1.0, 1 - nb_in), m_out = 2.0 - std::ldexp(1.0, 1 - nb_out);
    if (!k_) {
      rep_.carry_bits.evidence = "needs k (how many products one block sums)";
      return;
    }
    const int limit = *k_;
    std::string ev;
    int fits = 0;
    for (int q = 1; q <= 64; ++q) {
      const double need = (std::ldexp(1.0, q) - m_out) / m_in;
      const int n = std::max(1, static_cast<int>(std::ceil(need - 1e-12)));
      if (n > limit) {
        carry_ = fits;
        rep_.carry_bits.value = fits;
        rep_.carry_bits_lower_bound = true;
        rep_.carry_bits.evidence = ev + (ev.empty() ? "" : "; ") + "a sum >= 2^(E+" + std::to_string(q) + ") needs " +
                                   std::to_string(n) + " products in one block (k=" + std::to_string(limit) +
                                   "): at least " + std::to_string(fits) + " carry bits, more cannot be observed";
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

  // ---- 6. final rounding ----
  void final_rounding() {
    // Without F (per-step units, where the cancelling terms never share a register), c and
    // one product form one step: a register at least p+4 bits wide is assumed, and said.
    const bool assumed = !F_;
    const int F = F_ ? *F_ : out_.precision + 4;
    const int kk = k_ ? *k_ : 1;
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
        if (!subnormal_region && pos <= std::min(out_.precision - 1, 62) &&
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
                                     (k_ ? "k=" + std::to_string(kk) : std::string("one product per block assumed (k not found)")) +
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

  // ---- 7. products exact ----
  void products_exact() {
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
    for (int s1 = 0; s1 <= 40; ++s1)
      for (int sgn : {1, -1}) {
        const int s = s1 * sgn;
        const int sa = s / 2, sb = s - sa;
        auto a1 = enc(in_, ExactValue::finite(false, one_ulp, sa - (p - 1)), false);
        auto b1 = enc(in_, ExactValue::finite(false, one_ulp, sb - (p - 1)), false);
        auto c = enc(out_, ExactValue::finite(true, two_ulp, s - (p - 1)), false);
        const ExactValue want = ExactValue::finite(false, 1, 2 - 2 * p + s);
        if (!a1 || !b1 || !c || !enc(out_, want, false) || s + 2 > out_.emax) continue;
        Realized r;
        r.a = {*a1};
        r.b = {*b1};
        r.c = *c;
        const std::uint64_t d = call(r);
        rep_.products_exact.value = val(d).equals(want);
        rep_.products_exact.evidence = "(1+2^(1-p))^2 + c, c = -(1+2^(2-p)), scaled by 2^" + std::to_string(s) + " = " +
                                       want.to_hex() + " -> " + hex(d) +
                                       (*rep_.products_exact.value ? " (exact)" : " (the product was rounded)");
        return;
      }
    if (k_ && *k_ < 2) {
      rep_.products_exact.evidence = "needs two products in one block";
      return;
    }
    for (int s1 = 0; s1 <= 40; ++s1)
      for (int sgn : {1, -1}) {
        const int s = s1 * sgn;
        const int sa = s / 2, sb = s - sa;
        auto a1 = enc(in_, ExactValue::finite(false, one_ulp, sa - (p - 1)), false);
        auto b1 = enc(in_, ExactValue::finite(false, one_ulp, sb - (p - 1)), false);
        auto a2 = enc(in_, ExactValue::finite(true, two_ulp, sa - (p - 1)), false);
        auto b2 = enc(in_, ExactValue::finite(false, 1, sb), false);
        const ExactValue want = ExactValue::finite(false, 1, 2 - 2 * p + s);
        if (!a1 || !b1 || !a2 || !b2 || !enc(out_, want, false)) continue;
        if (s + 2 > out_.emax) continue;
        Realized r;
        r.a = {*a1, *a2};
        r.b = {*b1, *b2};
        r.c = out_.zero(false);
        const std::uint64_t d = call(r);
        rep_.products_exact.value = val(d).equals(want);
        rep_.products_exact.evidence = "(1+2^(1-p))^2 - (1+2^(2-p)) scaled by 2^" + std::to_string(s) + " = " +
                                       want.to_hex() + " -> " + hex(d) +
                                       (*rep_.products_exact.value ? " (exact)" : " (a product was rounded)");
        return;
      }
    rep_.products_exact.evidence = "the test values cannot be formed in " + in_.name + " -> " + out_.name;
  }

  // ---- 8. normalization ----
  // Per-step prediction: partial sums in decreasing magnitude (c first on ties), each
  // aligned to the larger with F bits (alignment mode), then rounded to out.
  ExactValue per_step_predict(const Layout& l, std::int64_t e, Rounding fin, bool sequential) const {
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

  void normalization() {
    const int F = F_ ? *F_ : out_.precision + 2;
    std::vector<Layout> layouts;
    const int n = k_ ? std::min(*k_, 4) : 4;
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
      if (k_ && static_cast<int>(l.products.size()) > *k_ && !(k_ == 1)) continue;
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

  // ---- 9. accumulation order (fasi2021 3.1.2) ----
  void order() {
    const int n = per_step_ ? 4 : (k_ ? std::min(*k_, 4) : 1);
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
  bool check_pair(const Realized& x, const Realized& y, bool negative) {
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

  void monotonicity() {
    // Structured: c just below 2^e versus c = 2^e, with small terms that the larger c
    // pushes out of the register (fasi2021 3.1.4).
    std::vector<int> offsets;
    if (F_) offsets = {*F_ + 1, *F_ + 2, *F_, out_.precision, out_.precision + 1};
    else offsets = {out_.precision, out_.precision + 1};
    std::vector<int> counts;
    const int kk = per_step_ ? 4 : (k_ ? *k_ : 1);
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
    const int kmax = per_step_ ? 8 : (k_ ? std::min(*k_, 16) : 1);
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
};

template <class T>
nlohmann::json finding_json(const Finding<T>& f) {
  if (!f.value) return nullptr;
  if constexpr (std::is_same_v<T, Rounding>) return rounding_name(*f.value);
  else return *f.value;
}

template <class T>
std::string finding_text(const Finding<T>& f) {
  if (!f.value) return "unknown";
  if constexpr (std::is_same_v<T, Rounding>) return rounding_name(*f.value);
  else if constexpr (std::is_same_v<T, bool>) return *f.value ? "yes" : "no";
  else if constexpr (std::is_same_v<T, std::string>) return *f.value;
  else return std::to_string(*f.value);
}

nlohmann::json dot_case_json(const DotCase& c, const Format& in, const Format& out) {
  nlohmann::json j;
  nlohmann::json a = nlohmann::json::array(), b = nlohmann::json::array();
  for (auto x : c.a) a.push_back(bits_to_hex(in, x));
  for (auto x : c.b) b.push_back(bits_to_hex(in, x));
  j["a"] = a;
  j["b"] = b;
  j["c"] = bits_to_hex(out, c.c);
  j["d"] = bits_to_hex(out, c.d);
  j["d_value"] = decode(out, c.d).to_hex();
  return j;
}

std::string dot_case_text(const DotCase& c, const Format& in, const Format& out) {
  std::string s = "a=[";
  for (std::size_t i = 0; i < c.a.size(); ++i) s += (i ? "," : "") + bits_to_hex(in, c.a[i]);
  s += "] b=[";
  for (std::size_t i = 0; i < c.b.size(); ++i) s += (i ? "," : "") + bits_to_hex(in, c.b[i]);
  s += "] c=" + bits_to_hex(out, c.c) + " -> d=" + bits_to_hex(out, c.d) + " (" + decode(out, c.d).to_hex() + ")";
  return s;
}

}  // namespace

ProbeReport probe(const BlackBox& box, const ProbeOptions& options) {
  if (!box.dot) throw std::invalid_argument("probe: the black box has no dot function");
  Prober p(box, options);
  return p.run();
}

ProbeReport probe_with_fasi2021(const BlackBox& box, const ProbeOptions& options) {
  ProbeReport r = probe(box, options);
  std::vector<Fasi2021Case> mine;
  for (const auto& t : fasi2021_cases())
    if (parse_format(t.in_format) == box.in && parse_format(t.out_format) == box.out) mine.push_back(t);
  r.fasi2021 = run_fasi2021(std::span<const BlackBox>(&box, 1), mine);
  return r;
}

std::string ProbeReport::to_text() const {
  std::ostringstream os;
  os << "probe of " << unit << " (" << in_format << " -> " << out_format << "), " << dot_calls << " dot calls\n";
  auto line = [&](const char* name, const std::string& value, const std::string& evidence) {
    os << "  " << name << std::string(20 - std::string(name).size(), ' ') << value << "\n";
    if (!evidence.empty()) os << "      " << evidence << "\n";
  };
  line("subnormal inputs", finding_text(subnormal_inputs), subnormal_inputs.evidence);
  line("subnormal c", finding_text(subnormal_c), subnormal_c.evidence);
  line("subnormal outputs", finding_text(subnormal_outputs), subnormal_outputs.evidence);
  line("products exact", finding_text(products_exact), products_exact.evidence);
  line("fraction bits F", finding_text(fraction_bits), fraction_bits.evidence);
  line("result bits", finding_text(result_fraction_bits), result_fraction_bits.evidence);
  line("fma size k", finding_text(fma_size), fma_size.evidence);
  line("carry bits", finding_text(carry_bits) + (carry_bits_lower_bound && carry_bits.value ? " (at least)" : ""),
       carry_bits.evidence);
  line("alignment rounding", finding_text(alignment_rounding), alignment_rounding.evidence);
  line("sticky bit", finding_text(sticky_bit), sticky_bit.value ? "" : sticky_bit.evidence);
  line("final rounding", finding_text(final_rounding), final_rounding.evidence);
  line("c placement", finding_text(c_placement), c_placement.evidence);
  if (products_fraction_bits.known() || !products_fraction_bits.evidence.empty())
    line("products' F", finding_text(products_fraction_bits), products_fraction_bits.evidence);
  line("normalization", finding_text(normalization), normalization.evidence);
  line("min exponent", min_exponent_none ? std::string("none") : finding_text(min_exponent), min_exponent.evidence);
  line("order", finding_text(order), order.evidence);
  {
    std::string b = "unknown";
    if (blocks.value) {
      b = std::to_string(blocks.value->size()) + " of";
      for (const auto& blk : *blocks.value) b += " " + std::to_string(blk.size());
    }
    line("instruction blocks", b, blocks.evidence);
    if (blocks.value && blocks.value->size() > 1) {
      line("block F", finding_text(block_fraction_bits), block_fraction_bits.evidence);
      line("block rounding", finding_text(block_rounding), block_rounding.evidence);
      line("c added with", finding_text(final_add_rounding), final_add_rounding.evidence);
      os << "      " << structure_not_observed << "\n";
    }
  }
  line("monotonic", finding_text(monotonic), monotonic.evidence);
  if (monotonic_counterexample) {
    const Format& in = parse_format(in_format);
    const Format& out = parse_format(out_format);
    os << "      x: " << dot_case_text(monotonic_counterexample->first, in, out) << "\n";
    os << "      y: " << dot_case_text(monotonic_counterexample->second, in, out) << "\n";
  }
  if (!fasi2021.empty()) {
    os << "fasi2021 test vectors (" << in_format << " -> " << out_format << "):\n";
    os << fasi2021_to_text(fasi2021);
  }
  return os.str();
}

nlohmann::json ProbeReport::to_json() const {
  nlohmann::json j;
  j["unit"] = unit;
  j["in"] = in_format;
  j["out"] = out_format;
  j["fma_size"] = finding_json(fma_size);
  j["fraction_bits"] = finding_json(fraction_bits);
  j["result_fraction_bits"] = finding_json(result_fraction_bits);
  j["carry_bits"] = finding_json(carry_bits);
  j["carry_bits_lower_bound"] = carry_bits_lower_bound;
  j["alignment_rounding"] = finding_json(alignment_rounding);
  j["sticky_bit"] = finding_json(sticky_bit);
  j["final_rounding"] = finding_json(final_rounding);
  j["c_placement"] = finding_json(c_placement);
  j["products_fraction_bits"] = finding_json(products_fraction_bits);
  j["normalization"] = finding_json(normalization);
  j["min_exponent"] = min_exponent_none ? nlohmann::json("none") : finding_json(min_exponent);
  j["order"] = finding_json(order);
  j["subnormal_inputs"] = finding_json(subnormal_inputs);
  j["subnormal_c"] = finding_json(subnormal_c);
  j["subnormal_outputs"] = finding_json(subnormal_outputs);
  j["products_exact"] = finding_json(products_exact);
  j["monotonic"] = finding_json(monotonic);
  j["blocks"] = blocks.value ? nlohmann::json(*blocks.value) : nlohmann::json(nullptr);
  j["block_fraction_bits"] = finding_json(block_fraction_bits);
  j["block_rounding"] = finding_json(block_rounding);
  j["final_add_rounding"] = finding_json(final_add_rounding);
  j["structure_not_observed"] = structure_not_observed;
  if (monotonic_counterexample) {
    const Format& in = parse_format(in_format);
    const Format& out = parse_format(out_format);
    j["monotonic_counterexample"] = {{"x", dot_case_json(monotonic_counterexample->first, in, out)},
                                     {"y", dot_case_json(monotonic_counterexample->second, in, out)}};
  } else {
    j["monotonic_counterexample"] = nullptr;
  }
  nlohmann::json ev;
  ev["subnormal_inputs"] = subnormal_inputs.evidence;
  ev["subnormal_c"] = subnormal_c.evidence;
  ev["subnormal_outputs"] = subnormal_outputs.evidence;
  ev["products_exact"] = products_exact.evidence;
  ev["fraction_bits"] = fraction_bits.evidence;
  ev["result_fraction_bits"] = result_fraction_bits.evidence;
  ev["fma_size"] = fma_size.evidence;
  ev["carry_bits"] = carry_bits.evidence;
  ev["alignment_rounding"] = alignment_rounding.evidence;
  ev["sticky_bit"] = sticky_bit.evidence;
  ev["final_rounding"] = final_rounding.evidence;
  ev["c_placement"] = c_placement.evidence;
  ev["products_fraction_bits"] = products_fraction_bits.evidence;
  ev["normalization"] = normalization.evidence;
  ev["min_exponent"] = min_exponent.evidence;
  ev["order"] = order.evidence;
  ev["monotonic"] = monotonic.evidence;
  ev["blocks"] = blocks.evidence;
  ev["block_fraction_bits"] = block_fraction_bits.evidence;
  ev["block_rounding"] = block_rounding.evidence;
  ev["final_add_rounding"] = final_add_rounding.evidence;
  j["evidence"] = ev;
  j["fasi2021"] = fasi2021_to_json(fasi2021);
  j["dot_calls"] = dot_calls;
  return j;
}

}  // namespace tcsim::validation
