// search_monotonicity (monotonicity.hpp).
#include "tcsim/validation/monotonicity.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/rounding.hpp"

namespace tcsim::validation {

namespace {

class Searcher {
 public:
  Searcher(const BlackBox& box, const MonotonicityOptions& o, MonotonicityResult& r) : box_(box), o_(o), r_(r) {}

  bool budget_left() const { return r_.cases_tried < o_.budget; }
  // The next pair's index is this share's (options.part).
  bool next_pair_mine() const { return r_.cases_tried % o_.parts == o_.part; }

  // Counts a pair (compared here or by another share); returns its index.
  std::uint64_t count_pair(MonotonicitySearch& s) {
    const std::uint64_t pair = r_.cases_tried++;
    ++s.pairs;
    if (o_.progress && r_.cases_tried % 4096 == 0)
      o_.progress(static_cast<std::size_t>(r_.cases_tried), static_cast<std::size_t>(o_.budget));
    return pair;
  }

  // Compares x <= y (same signs: `negative` for nonpositive a and c); records a violation.
  void compare(const DotCase& x0, const DotCase& y0, bool negative, MonotonicitySearch& s) {
    const std::uint64_t pair = count_pair(s);
    if (pair % o_.parts != o_.part) return;  // another share's pair
    DotCase x = x0, y = y0;
    x.d = box_(x.a, x.b, x.c);
    y.d = box_(y.a, y.b, y.c);
    const ExactValue vx = decode(box_.out, x.d), vy = decode(box_.out, y.d);
    if (!(vx.is_finite() || vx.is_zero()) || !(vy.is_finite() || vy.is_zero())) return;
    const double dx = to_double(vx), dy = to_double(vy);
    const bool violated = negative ? dy > dx : dy < dx;
    if (!violated) return;
    ++r_.found;
    ++s.found;
    if (static_cast<int>(r_.counterexamples.size()) < o_.keep) r_.counterexamples.push_back({x, y, s.name, pair});
  }

  std::uint64_t pattern(const Format& f, double v) const {
    return round_bits(decode(formats::fp64(), bits_of_double(v)), f, Rounding::NearestEven);
  }
  bool exact_in(const Format& f, double v) const { return to_double(decode(f, pattern(f, v))) == v; }
  // The next larger pattern of a nonnegative finite value, or none.
  bool raise(const Format& f, std::uint64_t& bits) const {
    const std::uint64_t up = bits + 1;
    if (up > f.width_mask() || (up & f.sign_mask())) return false;
    const FpClass c = classify(f, up);
    if (c == FpClass::NaN || c == FpClass::Infinity) return false;
    bits = up;
    return true;
  }
  std::uint64_t negate(const Format& f, std::uint64_t bits) const { return bits ^ f.sign_mask(); }

  // fasi2021 3.1.4 generalized.
  void structured() {
    MonotonicitySearch s{"structured"};
    const Format &in = box_.in, &out = box_.out;
    const double below_one = 1 - std::ldexp(1.0, -out.precision);
    for (int j = 2; j <= 64 && budget_left(); ++j)
      for (int n : {1, 2, 3, 4, 7, 8, 15, 16, 31, 32}) {
        if (!budget_left()) break;
        // a small product 2^-j as a b with both factors exact in the input format.
        const int ea = j / 2, eb = j - ea;
        const double a_small = std::ldexp(1.0, -ea), b_small = std::ldexp(1.0, -eb);
        if (!exact_in(in, a_small) || !exact_in(in, b_small) || !exact_in(out, below_one)) continue;
        DotCase x, y;
        x.a.assign(static_cast<std::size_t>(n), pattern(in, a_small));
        x.b.assign(static_cast<std::size_t>(n), pattern(in, b_small));
        x.c = pattern(out, below_one);
        y = x;
        y.c = pattern(out, 1.0);
        compare(x, y, false, s);
        // The large term as a product: a1 just below 1 against 1 (b1 = 1).
        const double a_below = 1 - std::ldexp(1.0, -in.precision);
        if (!exact_in(in, a_below) || !budget_left()) continue;
        DotCase px = x, py;
        px.c = pattern(out, 0.0);
        px.a.insert(px.a.begin(), pattern(in, a_below));
        px.b.insert(px.b.begin(), pattern(in, 1.0));
        py = px;
        py.a[0] = pattern(in, 1.0);
        compare(px, py, false, s);
      }
    s.covered = "c or a1 b1 just below 2^0 against 2^0, with n in {1..32} products 2^-j, j = 2..64";
    r_.searches.push_back(s);
  }

  void exhaustive() {
    MonotonicitySearch s{"exhaustive"};
    const Format &in = box_.in, &out = box_.out;
    if (in.width > 8) {
      s.covered = "not run: inputs of " + std::to_string(in.width) + " bits (exhaustive search takes at most 8)";
      r_.searches.push_back(s);
      return;
    }
    std::vector<std::uint64_t> values;  // nonnegative finite patterns
    for (std::uint64_t b = 0; b <= (in.width_mask() >> (in.is_signed ? 1 : 0)); ++b) {
      const FpClass c = classify(in, b);
      if (c != FpClass::NaN && c != FpClass::Infinity) values.push_back(b);
    }
    const std::vector<std::uint64_t> cs = {pattern(out, 0.0), pattern(out, 1.0), pattern(out, 1 - std::ldexp(1.0, -out.precision))};
    // The longest k whose enumeration fits in what is left of the budget.
    const double left = static_cast<double>(o_.budget - std::min(o_.budget, r_.cases_tried)) / 2;
    int k = 0;
    while (std::pow(static_cast<double>(values.size()), 2.0 * (k + 1)) * 2.0 * (k + 1) * static_cast<double>(cs.size()) <= left) ++k;
    if (k == 0) {
      s.covered = "not run: the budget does not cover one product's " + std::to_string(values.size() * values.size()) +
                  " input pairs";
      r_.searches.push_back(s);
      return;
    }
    const std::size_t m = 2 * static_cast<std::size_t>(k), v = values.size();
    std::vector<std::size_t> idx(m, 0);
    std::uint64_t vectors = 0;
    for (;;) {
      DotCase x;
      for (std::size_t i = 0; i < static_cast<std::size_t>(k); ++i) {
        x.a.push_back(values[idx[i]]);
        x.b.push_back(values[idx[k + i]]);
      }
      for (std::uint64_t c : cs) {
        x.c = c;
        ++vectors;
        for (std::size_t i = 0; i < m; ++i) {  // raise one input by one ulp
          if (idx[i] + 1 >= v) continue;
          DotCase y = x;
          (i < static_cast<std::size_t>(k) ? y.a[i] : y.b[i - k]) = values[idx[i] + 1];
          compare(x, y, false, s);
        }
      }
      std::size_t p = 0;
      while (p < m && ++idx[p] == v) idx[p++] = 0;
      if (p == m) break;
    }
    s.covered = "every nonnegative a, b of " + in.name + " with k = " + std::to_string(k) + " and c in {0, 1, 1 - ulp}: " +
                std::to_string(vectors) + " vectors, each input raised by one ulp";
    r_.searches.push_back(s);
  }

  void random() {
    MonotonicitySearch s{"random"};
    const Format &in = box_.in, &out = box_.out;
    std::mt19937_64 rng(o_.seed);
    auto uniform = [&](int lo, int hi) { return lo + static_cast<int>(rng() % static_cast<std::uint64_t>(hi - lo + 1)); };
    const int window = std::max(4, std::min(40, in.precision + 8));
    std::vector<double> values_a, values_b;
    while (budget_left()) {
      const int n = uniform(1, std::max(1, o_.max_products));
      const int e0 = uniform(std::max(in.emin, -8), std::min(in.emax, 8) - 1);
      // Another share's pair draws the same random numbers but rounds only what decides
      // whether it is a pair (c and the raised input): the walk stays cheap.
      const bool mine = next_pair_mine();
      DotCase x;
      values_a.clear();
      values_b.clear();
      for (int i = 0; i < n; ++i) {
        // Exponent, then fraction (named: argument order is unspecified; GCC's order kept).
        const int ea = e0 - uniform(0, window);
        const double a = std::ldexp(1 + static_cast<double>(rng() >> 11) * 0x1p-53, ea);
        const int eb = -uniform(0, 2);
        const double b = std::ldexp(1 + static_cast<double>(rng() >> 11) * 0x1p-53, eb);
        values_a.push_back(a);
        values_b.push_back(b);
        if (!mine) continue;
        x.a.push_back(pattern(in, a));
        x.b.push_back(pattern(in, b));
      }
      const int ec = e0 + uniform(-2, 2);
      x.c = pattern(out, std::ldexp(1 + static_cast<double>(rng() >> 11) * 0x1p-53, ec));
      if (classify(out, x.c) == FpClass::Infinity) continue;
      const bool negative = rng() % 2;
      const std::size_t which = static_cast<std::size_t>(uniform(0, 2 * n));
      if (!mine) {
        std::uint64_t raised = which == static_cast<std::size_t>(2 * n) ? x.c
                               : pattern(in, which % 2 ? values_b[which / 2] : values_a[which / 2]);
        if (raise(which == static_cast<std::size_t>(2 * n) ? out : in, raised)) count_pair(s);
        continue;
      }
      DotCase y = x;
      std::uint64_t& slot = which == static_cast<std::size_t>(2 * n) ? y.c : (which % 2 ? y.b[which / 2] : y.a[which / 2]);
      if (!raise(which == static_cast<std::size_t>(2 * n) ? out : in, slot)) continue;
      if (negative) {  // nonpositive a and c (b stays nonnegative): every term flips sign
        for (auto* v : {&x, &y}) {
          for (auto& a : v->a) a = negate(in, a);
          v->c = negate(out, v->c);
        }
      }
      compare(x, y, negative, s);
    }
    s.covered = "random vectors of 1.." + std::to_string(o_.max_products) + " products, exponents in a window of " +
                std::to_string(window) + ", one input raised by one ulp, both signs";
    r_.searches.push_back(s);
  }

 private:
  const BlackBox& box_;
  const MonotonicityOptions& o_;
  MonotonicityResult& r_;
};

nlohmann::json case_json(const Format& in, const Format& out, const DotCase& d) {
  nlohmann::json a = nlohmann::json::array(), b = nlohmann::json::array();
  for (auto v : d.a) a.push_back(bits_to_hex(in, v));
  for (auto v : d.b) b.push_back(bits_to_hex(in, v));
  return {{"a", a}, {"b", b}, {"c", bits_to_hex(out, d.c)}, {"d", bits_to_hex(out, d.d)},
          {"d_value", to_double(decode(out, d.d))}};
}

}  // namespace

MonotonicityResult search_monotonicity(const BlackBox& box, const MonotonicityOptions& options) {
  if (options.parts == 0 || options.part >= options.parts)
    throw std::invalid_argument("monotonicity search: part " + std::to_string(options.part) + " of " +
                                std::to_string(options.parts) + " parts; allowed: part < parts");
  MonotonicityResult r;
  r.unit = box.name;
  r.in_format = box.in.name;
  r.out_format = box.out.name;
  Searcher s(box, options, r);
  s.structured();
  s.exhaustive();
  s.random();
  r.monotonic = r.found == 0;
  return r;
}

nlohmann::json MonotonicityResult::to_json() const {
  nlohmann::json j;
  j["unit"] = unit;
  j["in"] = in_format;
  j["out"] = out_format;
  j["monotonic"] = monotonic;
  j["cases_tried"] = cases_tried;
  j["counterexamples_found"] = found;
  const Format& in = parse_format(in_format);
  const Format& out = parse_format(out_format);
  j["counterexamples"] = nlohmann::json::array();
  for (const auto& p : counterexamples)
    j["counterexamples"].push_back({{"x", case_json(in, out, p.x)}, {"y", case_json(in, out, p.y)}, {"search", p.how}});
  j["searches"] = nlohmann::json::array();
  for (const auto& s : searches)
    j["searches"].push_back({{"name", s.name}, {"pairs", s.pairs}, {"found", s.found}, {"covered", s.covered}});
  return j;
}

}  // namespace tcsim::validation
