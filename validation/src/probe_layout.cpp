// The probe's terms as bit patterns: encoding a term as a product of two inputs or as c,
// choosing the reference exponent (and, in the block view, the positions of one
// instruction's blocks), calling the box and predicting roundings.
#include <algorithm>
#include <limits>
#include <utility>

#include "probe_prober.hpp"

namespace tcsim::validation::detail {

std::uint64_t Prober::next() {
  std::uint64_t z = (rng_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// ---- encoding ----

// The exact pattern of v in f, if v is representable (normal unless allow_sub).
std::optional<std::uint64_t> Prober::enc(const Format& f, const ExactValue& v, bool allow_sub) const {
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
std::optional<std::pair<std::uint64_t, std::uint64_t>> Prober::product(const Term& t, std::int64_t e, bool top) const {
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

std::optional<Realized> Prober::realize(const Layout& l, std::int64_t e) const { return encode(in_view(l), e); }

Layout Prober::in_view(const Layout& l) const {
  if (view_.empty()) return l;
  Layout v;
  v.products.reserve(l.products.size() + 1);
  v.products.push_back(l.c);
  v.products.insert(v.products.end(), l.products.begin(), l.products.end());
  v.result_leads = l.result_leads;
  return v;
}

std::optional<Realized> Prober::encode(const Layout& l, std::int64_t e) const {
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
  if (!view_.empty()) {
    // Product i to its position in the blocks' order (later instructions after the first).
    const std::size_t K = view_.size();
    std::vector<std::uint64_t> a, b;
    for (std::size_t i = 0; i < r.a.size(); ++i) {
      const std::size_t pos = K * (i / K) + static_cast<std::size_t>(view_[i % K]);
      if (pos >= a.size()) a.resize(pos + 1, in_.zero(false)), b.resize(pos + 1, in_.zero(false));
      a[pos] = r.a[i];
      b[pos] = r.b[i];
    }
    r.a = std::move(a);
    r.b = std::move(b);
  }
  return r;
}

// The reference exponent closest to `prefer` for which the layout is realizable.
std::optional<Realized> Prober::place(const Layout& layout, std::int64_t prefer) const {
  const Layout l = in_view(layout);
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
        if (auto r = encode(l, e)) return r;
  return std::nullopt;
}

std::uint64_t Prober::call(const Realized& r) {
  ++calls_;
  return box_.dot(r.a, r.b, r.c);
}

ExactValue Prober::exact_sum(const Layout& l, std::int64_t e) {
  ExactValue s = value_of(l.c, e);
  for (const Term& t : l.products) s = exact_add(s, value_of(t, e));
  return s;
}


ExactValue Prober::rnd(const ExactValue& v, Rounding m) const {
  RoundingOptions o;
  o.mode = m;
  o.overflow = OverflowMode::Ieee;
  o.subnormals = sub_out_ ? SubnormalMode::Keep : SubnormalMode::Flush;
  const Format& f = eff_ ? *eff_ : out_;
  return decode(f, round_to_format(v, f, o).bits);
}

Layout Prober::cancel_layout(const Term& small, int position) const {
  Layout l;
  l.c = pow2(0);
  l.products.assign(static_cast<std::size_t>(position), Term{});
  l.products[0] = pow2(0, true);
  l.products[static_cast<std::size_t>(position - 1)] = small;
  return l;
}

// The same with c as the small term and the cancelling pair as products.
Layout Prober::cancel_layout_c(const Term& small) const {
  Layout l;
  l.c = small;
  l.products = {pow2(0), pow2(0, true)};
  return l;
}

}  // namespace tcsim::validation::detail
