// tcsim fit: structured inference of a unit row from a dump (see fit.hpp).
#include "tcsim/validation/fit.hpp"

#include "fit_params.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <tuple>

namespace tcsim::validation {
namespace {

using models::DatapathSpec;
using namespace fit_detail;
constexpr std::size_t kInvalid = std::numeric_limits<std::size_t>::max();

using Pairs = std::vector<std::pair<Format, Format>>;

Pairs pairs_of(const std::vector<DumpSet>& dumps) {
  Pairs p;
  for (const auto& d : dumps) {
    bool seen = false;
    for (const auto& [i, o] : p) seen |= i.name == d.in.name && o.name == d.out.name;
    if (!seen) p.push_back({d.in, d.out});
  }
  return p;
}

// The seed row restricted to the dumps' formats: per-output maps keep only their outputs.
DatapathSpec restrict_row(DatapathSpec r, const Pairs& pairs) {
  std::vector<std::string> ins, outs;
  for (const auto& [i, o] : pairs) {
    if (std::find(ins.begin(), ins.end(), i.name) == ins.end()) ins.push_back(i.name);
    if (std::find(outs.begin(), outs.end(), o.name) == outs.end()) outs.push_back(o.name);
  }
  auto keep = [&](auto& m) {
    for (auto it = m.begin(); it != m.end();)
      it = std::find(outs.begin(), outs.end(), it->first) == outs.end() ? m.erase(it) : std::next(it);
  };
  r.instruction.clear();
  r.input_formats = ins;
  r.output_formats = outs;
  keep(r.final_rounding);
  for (const auto& o : outs)
    if (!r.final_rounding.count(o)) r.final_rounding[o] = Rounding::NearestEven;
  keep(r.final_add_rounding);
  keep(r.min_exponent);
  keep(r.result_fraction_bits);
  keep(r.nan_pattern);
  r.shapes.clear();
  r.evidence.clear();
  return r;
}

models::UnitSpec one_row_unit(const DatapathSpec& row, const std::string& name) {
  models::UnitSpec u;
  u.name = name;
  u.architecture = "user";
  u.datapaths = {row};
  return u;
}

// The cost of one result against the dump's: 0 when equal (all NaNs equal), else 1 + the
// bit length of the distance in units in the last place (an ordered difference of the bit
// patterns), 66 when one of them is NaN. Graded so that a change that brings wrong results
// nearer (the right F with a still wrong final rounding) counts as progress: coupled
// parameters are then found one at a time. 0 exactly when the results are the same.
std::size_t result_cost(const Format& f, std::uint64_t got, std::uint64_t want) {
  if (same_result(f, got, want)) return 0;
  const std::uint64_t nan = f.has_nan() ? f.canonical_nan() : 0;
  if (f.has_nan() && (same_result(f, got, nan) || same_result(f, want, nan))) return 66;
  auto ordered = [&](std::uint64_t v) -> __int128 {
    const std::uint64_t s = f.sign_mask();
    return (v & s) ? -static_cast<__int128>(v & ~s) : static_cast<__int128>(v);
  };
  __int128 d = ordered(got) - ordered(want);
  if (d < 0) d = -d;
  std::size_t bits = 0;
  while (d > 0) { ++bits; d >>= 1; }
  return 1 + std::max<std::size_t>(bits, 1);
}

// Mismatch counting with the cheapest cases first: the cases that separated earlier
// candidates ("priority") run first, then the rest in chunks, stopping at `bound`.
class DumpEvaluator {
 public:
  explicit DumpEvaluator(const DumpSet& d) : d_(d), in_priority_(d.n, false), active_(d.n) {}

  // Only the first `n` cases count (a first sample for the early descent); all: d.n.
  void set_active(std::size_t n) { active_ = std::min(n, d_.n); }
  bool all_active() const { return active_ == d_.n; }

  // Mismatches of `unit` on this dump (graded: the sum of result_cost), saturated at `bound`.
  std::size_t count(const models::Unit* unit, const std::string& instruction, std::size_t bound,
                    std::size_t* first_case = nullptr, bool graded = false) {
    const std::size_t K = d_.k;
    std::size_t mism = 0;
    // The deciding cases in growing chunks (32, 128, 512): most candidates are refuted by the
    // first few, so a refuted candidate costs a few dozen cases rather than all 512.
    for (std::size_t s = 0, chunk = 32; s < prio_.size(); s += chunk, chunk *= 4) {
      const std::size_t m = std::min(chunk, prio_.size() - s);
      out_.resize(m);
      unit->dot_batch(d_.in, d_.out, m, K, pa_.data() + s * K, pb_.data() + s * K, pc_.data() + s, out_.data(),
                      instruction);
      case_evaluations += m;
      for (std::size_t i = 0; i < m; ++i)
        if (!same_result(d_.out, out_[i], pd_[s + i])) {
          if (mism == 0 && first_case) *first_case = prio_[s + i];
          mism += graded ? result_cost(d_.out, out_[i], pd_[s + i]) : 1;
          if (mism >= bound) return mism;
        }
    }
    constexpr std::size_t kChunk = 512;
    for (std::size_t s = 0; s < active_; s += kChunk) {
      const std::size_t m = std::min(kChunk, active_ - s);
      out_.resize(m);
      unit->dot_batch(d_.in, d_.out, m, K, d_.a.data() + s * K, d_.b.data() + s * K, d_.c.data() + s,
                      out_.data(), instruction);
      case_evaluations += m;
      for (std::size_t i = 0; i < m; ++i) {
        const std::size_t idx = s + i;
        if (in_priority_[idx] || same_result(d_.out, out_[i], d_.d[idx])) continue;
        if (mism == 0 && first_case) *first_case = idx;
        add_priority(idx);
        mism += graded ? result_cost(d_.out, out_[i], d_.d[idx]) : 1;
        if (mism >= bound) return mism;
      }
    }
    return mism;
  }

  std::size_t case_evaluations = 0;

 private:
  void add_priority(std::size_t idx) {
    if (prio_.size() >= 512) return;
    in_priority_[idx] = true;
    prio_.push_back(idx);
    pa_.insert(pa_.end(), d_.a.begin() + idx * d_.k, d_.a.begin() + (idx + 1) * d_.k);
    pb_.insert(pb_.end(), d_.b.begin() + idx * d_.k, d_.b.begin() + (idx + 1) * d_.k);
    pc_.push_back(d_.c[idx]);
    pd_.push_back(d_.d[idx]);
  }
  const DumpSet& d_;
  std::vector<bool> in_priority_;
  std::vector<std::size_t> prio_;
  std::vector<std::uint64_t> pa_, pb_, pc_, pd_, out_;
  std::size_t active_;
};

// Every dump: a candidate runs on each dump's deciding cases first, dump by dump.
class Evaluator {
 public:
  explicit Evaluator(const std::vector<DumpSet>& dumps) {
    for (const auto& d : dumps) per_dump_.emplace_back(d);
  }

  // Mismatches over all dumps, saturated at `bound`; kInvalid when the row is refused by Unit.
  std::size_t count(const DatapathSpec& row, std::size_t bound, CaseRef* first_case = nullptr,
                    bool graded = false) {
    ++evaluations;
    std::unique_ptr<models::Unit> unit;
    try {
      unit = std::make_unique<models::Unit>(one_row_unit(row, "fit"));
    } catch (const std::exception&) {
      return kInvalid;
    }
    std::size_t total = 0;
    const std::string instruction = fit_instruction(row);
    for (std::size_t i = 0; i < per_dump_.size() && total < bound; ++i) {
      std::size_t first = 0;
      std::size_t m = 0;
      try {
        m = per_dump_[i].count(unit.get(), instruction, bound - total, &first, graded);
      } catch (const std::exception&) {
        return kInvalid;  // the row does not serve this dump's formats
      }
      if (m > 0 && total == 0 && first_case) *first_case = {i, first};
      total += m;
    }
    return total;
  }
  // The early descent runs on the first `n` cases of each dump; expand() makes every case count.
  void sample(std::size_t n) { for (auto& e : per_dump_) e.set_active(n); }
  bool expanded() const {
    return std::all_of(per_dump_.begin(), per_dump_.end(), [](const DumpEvaluator& e) { return e.all_active(); });
  }
  void expand() { for (auto& e : per_dump_) e.set_active(static_cast<std::size_t>(-1)); }
  std::size_t case_evaluations() const {
    std::size_t n = 0;
    for (const auto& e : per_dump_) n += e.case_evaluations;
    return n;
  }
  std::size_t evaluations = 0;

 private:
  std::vector<DumpEvaluator> per_dump_;
};

// Per-output entries of `out` copied from `from` into `to` (a seed's other format pairs).
void copy_output_entries(DatapathSpec& to, const DatapathSpec& from, const std::string& out) {
  auto copy = [&](auto& dst, const auto& src) {
    auto it = src.find(out);
    if (it != src.end()) dst[out] = it->second;
  };
  copy(to.final_rounding, from.final_rounding);
  copy(to.final_add_rounding, from.final_add_rounding);
  copy(to.min_exponent, from.min_exponent);
  copy(to.result_fraction_bits, from.result_fraction_bits);
}

std::vector<std::pair<std::string, DatapathSpec>> seed_rows(const Pairs& pairs, const FitOptions& o) {
  std::vector<std::pair<std::string, DatapathSpec>> seeds;
  if (!o.seeds.empty()) {
    for (std::size_t i = 0; i < o.seeds.size(); ++i)
      seeds.push_back({"base row " + std::to_string(i + 1), restrict_row(o.seeds[i], pairs)});
    return seeds;
  }
  const Format& in = pairs.front().first;
  const Format& out = pairs.front().second;
  auto excluded = [&](const std::string& u) {
    return std::find(o.exclude_units.begin(), o.exclude_units.end(), u) != o.exclude_units.end();
  };
  auto serves = [](const std::vector<std::string>& v, const std::string& f) { return std::find(v.begin(), v.end(), f) != v.end(); };
  // Pass 0: the rows serving the first pair; pass 1 (when pass 0 gives fewer than max_seeds
  // distinct rows, e.g. CDNA3 xf32's fp32 -> fp32, served elsewhere only by FMA chains): every
  // row with that output, read with the dumps' inputs; pass 2 (none yet): every row.
  auto distinct = [&] {
    std::vector<DatapathSpec> v;
    for (const auto& s : seeds)
      if (std::find(v.begin(), v.end(), s.second) == v.end()) v.push_back(s.second);
    return v.size();
  };
  for (int pass = 0; pass < 3 && (seeds.empty() || (pass == 1 && distinct() < o.max_seeds)); ++pass)
    for (const auto& u : models::builtin_unit_specs()) {
      if (excluded(u.name)) continue;
      for (const auto& r : u.datapaths) {
        if (r.block_scale) continue;
        const bool in_ok = serves(r.input_formats, in.name), out_ok = serves(r.output_formats, out.name);
        if ((pass == 0 && in_ok && out_ok) || (pass == 1 && out_ok && !in_ok) || pass == 2) {
          DatapathSpec seed = r;
          // The other pairs' per-output entries from the same unit's default rows, when it has them.
          for (std::size_t j = 1; j < pairs.size(); ++j) {
            const std::string& oj = pairs[j].second.name;
            if (seed.final_rounding.count(oj)) continue;
            for (const auto& r2 : u.datapaths)
              if (!r2.block_scale && serves(r2.input_formats, pairs[j].first.name) && serves(r2.output_formats, oj)) {
                copy_output_entries(seed, r2, oj);
                break;
              }
          }
          seeds.push_back({u.name + " (" + (r.instruction.empty() ? std::string("default") : r.instruction) + ")",
                           restrict_row(seed, pairs)});
        }
      }
    }
  return seeds;
}

using Clock = std::chrono::steady_clock;

// The search's clock. Its phases end at points of the budget, as fractions of the whole:
// wall-clock seconds of time_limit_seconds, or, with FitOptions::work_budget, cases run through
// candidate rows, which makes the fit the same at any load; the seconds then stay a cap.
class Budget {
 public:
  Budget(const Evaluator& ev, const FitOptions& o, Clock::time_point t0)
      : ev_(ev), work_(o.work_budget), seconds_(o.time_limit_seconds), t0_(t0) {}
  // The share of the budget spent (the work's when a work budget is given, never the clock's,
  // so that the restarts' shares are points of the count too).
  double used() const {
    return work_ ? static_cast<double>(ev_.case_evaluations()) / static_cast<double>(work_) : clock();
  }
  // Whether the phase that ends at `point` is over.
  bool past(double point) {
    if (work_ && used() >= point) return true;
    if (clock() < point) return false;
    capped_ |= work_ != 0;
    return true;
  }
  bool capped() const { return capped_; }

 private:
  double clock() const {
    const double s = std::chrono::duration<double>(Clock::now() - t0_).count();
    return seconds_ > 0 ? s / seconds_ : 2;  // no time given: every phase is over
  }
  const Evaluator& ev_;
  std::size_t work_;
  double seconds_;
  Clock::time_point t0_;
  bool capped_ = false;
};

// The end of one phase of the search (a point of the budget).
struct Deadline {
  Budget* budget;
  double point;
  bool passed() const { return budget->past(point); }
};

// Greedy descent from one seed on the graded cost (result_cost): single changes, then each
// group's product, then pairs, while the cost drops.
std::size_t descend_on(DatapathSpec& row, std::size_t best, const std::vector<Param>& ps, Evaluator& ev,
                       Deadline deadline);

// Cheapest tests first: the descent runs on a sample of the cases (the first 1,000 of each
// dump) until a row fits the sample, then on every case from there.
std::size_t descend(DatapathSpec& row, const std::vector<Param>& ps, Evaluator& ev, Deadline deadline) {
  ev.sample(1000);
  std::size_t best = ev.count(row, kInvalid - 1, nullptr, true);
  if (best != kInvalid) best = descend_on(row, best, ps, ev, deadline);
  ev.expand();
  best = ev.count(row, kInvalid - 1, nullptr, true);
  if (best != 0 && best != kInvalid && !deadline.passed()) best = descend_on(row, best, ps, ev, deadline);
  return best;
}

std::size_t descend_on(DatapathSpec& row, std::size_t best, const std::vector<Param>& ps, Evaluator& ev,
                       Deadline deadline) {
  auto try_row = [&](const DatapathSpec& cand) {
    if (cand == row) return false;
    const std::size_t m = ev.count(cand, best, nullptr, true);
    if (m != kInvalid && m < best) { row = cand; best = m; return true; }
    return false;
  };
  const auto groups = parameter_groups(ps);
  std::size_t pair_cursor = 0;
  for (int round = 0; round < 40 && best > 0; ++round) {
    bool improved = false;
    // Steepest single change: every value of every parameter against the same row, the best
    // one taken (a first improvement taken at once leads into coupled dead ends more often).
    {
      const DatapathSpec from = row;
      DatapathSpec steepest = row;
      for (const auto& p : ps)
        for (const auto& [name, set] : p.values) {
          DatapathSpec cand = from;
          set(cand);
          if (cand == from) continue;
          const std::size_t m = ev.count(cand, best, nullptr, true);
          if (m != kInvalid && m < best) { steepest = cand; best = m; improved = true; }
          if (best == 0 || deadline.passed()) { row = steepest; return best; }
        }
      row = steepest;
    }
    if (improved) continue;
    // Each group's product: an odometer over the group's values.
    for (const auto& g : groups) {
      std::vector<std::size_t> at(g.size(), 0);
      for (;;) {
        DatapathSpec cand = row;
        for (std::size_t t = 0; t < g.size(); ++t) ps[g[t]].values[at[t]].second(cand);
        improved |= try_row(cand);
        if (best == 0) return 0;
        if (deadline.passed()) return best;
        std::size_t t = 0;
        while (t < g.size() && ++at[t] == ps[g[t]].values.size()) at[t++] = 0;
        if (t == g.size()) break;
      }
    }
    if (improved) continue;
    // Pairs of parameters that only act together first (c entry with its rounding, late c
    // with the products' rounding, per-step order, k split with k, F with the alignment's
    // rounding and sticky bit), then every other pair.
    auto coupled = [&](std::size_t i, std::size_t j) {
      auto base = [](const std::string& n) { return n.substr(0, n.find('.')); };
      const std::string x = base(ps[i].name), y = base(ps[j].name);
      static const std::pair<const char*, const char*> kCoupled[] = {
          {"c_entry", "final_add_rounding"}, {"c_placement", "late_products_rounding"}, {"normalization", "order"},
          {"fma_size", "k_split"}, {"fma_size", "carry_bits"}, {"fraction_bits", "alignment_rounding"},
          {"fraction_bits", "sticky_bit"}, {"alignment_rounding", "sticky_bit"}, {"final_rounding", "result_fraction_bits"},
          {"min_exponent", "subnormal_outputs"}, {"c_entry", "final_rounding"}};
      for (const auto& [u, v] : kCoupled)
        if ((x == u && y == v) || (x == v && y == u)) return true;
      return false;
    };
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    for (int pass = 0; pass < 2; ++pass)
      for (std::size_t i = 0; i < ps.size(); ++i)
        for (std::size_t j = i + 1; j < ps.size(); ++j)
          if (coupled(i, j) == (pass == 0)) pairs.push_back({i, j});
    // The scan resumes at the pair that last helped (a round that starts at the first pair
    // again re-runs thousands of refuted pairs); a whole cycle without help ends the descent.
    for (std::size_t step = 0; step < pairs.size(); ++step) {
      if (improved) break;
      const std::size_t at = (pair_cursor + step) % pairs.size();
      const auto [i, j] = pairs[at];
        for (const auto& [n1, s1] : ps[i].values) {
          for (const auto& [n2, s2] : ps[j].values) {
            if (deadline.passed()) return best;
            DatapathSpec cand = row;
            s1(cand);
            s2(cand);
            if (try_row(cand)) { improved = true; pair_cursor = at; break; }
          }
          if (improved) break;
        }
    }
    if (!improved) break;
  }
  return best;
}

// Restart rows for a search that found nothing exact: the closest row `r` with the AMD keys
// searched, as it is, and moved into each datapath family of the AMD rows (docs/units/amd.md):
// c added after the products' sum (CDNA3: the after_add defaults, products overflowing to Inf),
// a pairwise tree of correctly rounded binary32 additions (CDNA2: per-step, products rounded
// RNE, F 50 with a sticky bit), and blocks summed exactly (CDNA1: F "exact", so no sticky bit,
// no clamp, deferred normalization and carry bits that never wrap; from a finite-F row the
// descent changes one key at a time and F "exact" alone leaves those wrong). The descent from
// each then infers the family's own parameters (widths, roundings, k, input truncation, flushing, ...).
const std::string kFExact = "restarted with F exact";

std::vector<std::pair<std::string, DatapathSpec>> restarts(const DatapathSpec& r) {
  std::vector<std::pair<std::string, DatapathSpec>> v;
  v.push_back({"with the AMD keys", r});
  {
    DatapathSpec a = r;
    a.c_placement = CPlacement::After;
    a.after_add = {};
    a.late_products_rounding.reset();
    a.c_entry = models::CEntry::Accumulator;
    a.final_add_rounding.clear();
    a.normalization = Normalization::Deferred;
    a.product_rounding.reset();
    a.product_overflow_inf = true;
    a.min_exponent.clear();  // c after sets the floor itself (E >= e_c): no clamp, no sticky bit
    a.sticky_bit = false;
    if (a.fraction_bits == DatapathSpec::kExactFractionBits) a.fraction_bits = 24;
    v.push_back({"restarted with c after the products", a});
  }
  {
    DatapathSpec t = r;
    t.c_placement = CPlacement::Aligned;
    t.late_products_rounding.reset();
    t.normalization = Normalization::PerStep;
    t.order = AccumulationOrder::Pairwise;
    t.sticky_bit = true;
    t.fraction_bits = 50;
    t.product_rounding = Rounding::NearestEven;
    t.product_overflow_inf = false;  // per-step products overflow through their rounding
    t.product_groups = 1;
    v.push_back({"restarted as a binary32 tree", t});
  }
  {
    DatapathSpec x = r;
    x.fraction_bits = DatapathSpec::kExactFractionBits;
    x.carry_bits = models::safe_carry_bits(x.fma_size);
    x.alignment_rounding = Rounding::TowardZero;  // nothing is lost in the alignment
    x.sticky_bit = false;
    x.normalization = Normalization::Deferred;
    x.c_placement = CPlacement::Aligned;
    x.late_products_rounding.reset();
    x.product_rounding.reset();
    x.product_groups = 1;
    x.product_overflow_inf = false;
    x.after_add = {};
    x.min_exponent.clear();
    v.push_back({kFExact, x});
  }
  return v;
}

}  // namespace

models::UnitSpec fitted_unit(const DatapathSpec& row, const std::string& name) { return one_row_unit(row, name); }

std::string fit_instruction(const DatapathSpec& row) {
  return row.instruction.empty() && row.shapes.size() == 1 ? row.shapes.front() : std::string();
}

std::size_t count_mismatches(const DatapathSpec& row, const DumpSet& dump, std::vector<std::size_t>* first,
                             std::size_t max_first) {
  models::Unit unit(one_row_unit(row, "fit"));
  std::vector<std::uint64_t> got(dump.n);
  unit.dot_batch(dump.in, dump.out, dump.n, dump.k, dump.a.data(), dump.b.data(), dump.c.data(), got.data(),
                 fit_instruction(row));
  std::size_t m = 0;
  for (std::size_t i = 0; i < dump.n; ++i)
    if (!same_result(dump.out, got[i], dump.d[i])) {
      if (first && first->size() < max_first) first->push_back(i);
      ++m;
    }
  return m;
}

std::size_t count_mismatches(const DatapathSpec& row, const std::vector<DumpSet>& dumps, std::size_t bound) {
  Evaluator ev(dumps);
  return ev.count(row, bound);
}

bool set_parameter(DatapathSpec& row, const std::string& name, const std::string& value,
                   const std::vector<DumpSet>& dumps) {
  for (const auto& p : parameters(dumps, 0))
    if (p.name == name)
      for (const auto& [v, set] : p.values)
        if (v == value) { set(row); return true; }
  return false;
}

FitResult fit_dump(const DumpSet& dump, const FitOptions& options) { return fit_dumps({dump}, options); }

FitResult fit_dumps(const std::vector<DumpSet>& dumps, const FitOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  if (dumps.empty()) throw std::invalid_argument("fit: no dump given");
  const Pairs pairs = pairs_of(dumps);
  auto seeds = seed_rows(pairs, options);
  auto pair_text = [&] {
    std::string t;
    for (const auto& [i, o] : pairs) t += (t.empty() ? "" : ", ") + i.name + " -> " + o.name;
    return t;
  };
  if (seeds.empty()) throw std::invalid_argument("fit: no seed row for " + pair_text());
  // The NaN pattern cannot be told by comparison (all NaNs are equal): take the dumps'.
  std::vector<std::string> nan_seen;  // outputs whose NaN pattern the data shows
  for (const auto& dump : dumps)
    for (std::size_t i = 0; i < dump.n; ++i)
      if (dump.out.has_nan() && same_result(dump.out, dump.d[i], dump.out.canonical_nan())) {
        for (auto& s : seeds) s.second.nan_pattern[dump.out.name] = dump.d[i];
        nan_seen.push_back(dump.out.name);
        break;
      }
  if (options.fma_size > 0)
    for (auto& s : seeds) s.second.fma_size = options.fma_size;
  if (options.instruction_k > 0)
    for (auto& s : seeds) s.second.shapes = {"fit.m16n16k" + std::to_string(options.instruction_k)};
  const auto ps = parameters(dumps, options.fma_size);
  // The search without the AMD-only keys and values (c "after", F "exact"): NVIDIA-like seeds
  // descend in it first, so the larger space does not lead them astray.
  std::vector<Param> ps_basic;
  for (const auto& p : ps) {
    if (p.amd) continue;
    Param q = p;
    q.values.erase(std::remove_if(q.values.begin(), q.values.end(),
                                  [&](const auto& v) { return (p.name == "c_placement" && v.first == "after") ||
                                                              (p.name == "fraction_bits" && v.first == "exact"); }),
                   q.values.end());
    ps_basic.push_back(std::move(q));
  }
  Evaluator ev(dumps);
  FitResult res;
  // Seeds scored first, best first, so the first descent starts nearest.
  std::vector<std::pair<std::size_t, std::size_t>> order;  // (count, seed index)
  for (std::size_t i = 0; i < seeds.size(); ++i) order.push_back({ev.count(seeds[i].second, kInvalid - 1, nullptr, true), i});
  std::stable_sort(order.begin(), order.end());
  std::vector<DatapathSpec> done;
  std::optional<DatapathSpec> cut_off;  // the row whose descent the seeds' deadline stopped while it still improved
  Budget budget(ev, options, t0);
  const Deadline deadline{&budget, 1.0};
  // The seeds' descents leave a share of the budget to the restarts below (they find what the
  // seeds' structures cannot reach: the AMD families).
  const Deadline seeds_deadline{&budget, 1 - std::clamp(options.restart_share, 0.0, 1.0)};
  auto scored = [&](const DatapathSpec& row, const std::string& from) {
    ScoredRow s{row, 0, {}, from};
    for (std::size_t j = 0; j < dumps.size(); ++j) {
      std::vector<std::size_t> first;
      s.mismatches += count_mismatches(row, dumps[j], &first, options.max_report);
      for (auto f : first)
        if (s.first_mismatches.size() < options.max_report) s.first_mismatches.push_back({j, f});
    }
    return s;
  };
  for (const auto& [count, i] : order) {
    if (count == kInvalid || done.size() >= options.max_seeds) continue;
    if (!done.empty() && seeds_deadline.passed()) break;  // the time limit covers every seed's descent
    DatapathSpec row = seeds[i].second;
    if (std::find(done.begin(), done.end(), row) != done.end()) continue;
    done.push_back(row);
    descend(row, uses_amd_keys(row) ? ps : ps_basic, ev, seeds_deadline);
    res.closest.push_back(scored(row, seeds[i].first));
    if (seeds_deadline.passed()) cut_off = row;
    if (res.closest.back().mismatches == 0) break;
  }
  if (res.closest.empty()) throw std::invalid_argument("fit: every seed row was refused for " + pair_text());
  auto fewest = [](const ScoredRow& x, const ScoredRow& y) { return x.mismatches < y.mismatches; };
  std::stable_sort(res.closest.begin(), res.closest.end(), fewest);
  // Family separation: a closest row of the NVIDIA-like space whose descent was stopped by
  // the seeds' deadline while still improving continues there first (the AMD families below
  // are other datapaths: random user rows of the NVIDIA space never fit from them, and the
  // time they took left such rows unfitted).
  auto continues = [&] {
    return res.closest.front().mismatches > 0 && !deadline.passed() && cut_off &&
           *cut_off == res.closest.front().row && !uses_amd_keys(*cut_off);
  };
  // Except CDNA1's blocks summed exactly: the continuation can take all the time left, and no
  // restart below then runs (mi100's fp16 and bf16 rows, docs/fit.md). When the F-exact
  // restart of that row costs less than the row, it descends first, for an eighth of the time left.
  if (continues()) {
    for (auto& [name, row] : restarts(*cut_off)) {
      if (name != kFExact || std::find(done.begin(), done.end(), row) != done.end()) continue;
      if (ev.count(row, kInvalid - 1, nullptr, true) >= ev.count(*cut_off, kInvalid - 1, nullptr, true)) continue;
      done.push_back(row);
      const double at = budget.used();
      descend(row, ps, ev, Deadline{&budget, at + (1 - at) / 8});
      ScoredRow s = scored(row, res.closest.front().seed + ", " + name);
      if (s.mismatches < res.closest.front().mismatches) res.closest.insert(res.closest.begin(), std::move(s));
    }
  }
  if (continues()) {
    DatapathSpec row = *cut_off;
    descend(row, ps_basic, ev, deadline);
    ScoredRow s = scored(row, res.closest.front().seed + ", continued");
    if (s.mismatches < res.closest.front().mismatches) res.closest.insert(res.closest.begin(), std::move(s));
  }
  // Nothing fits: restarts in the whole space (the AMD keys included): the closest row as it
  // is, then each datapath family of the built-in AMD rows (restarts()) applied to the seed
  // result where it costs least, cheapest first; each with an equal share of the time left.
  if (res.closest.front().mismatches > 0 && !deadline.passed()) {
    const ScoredRow from = res.closest.front();
    // Not read, but its evaluation counts towards a work budget: kept so budgets reproduce.
    [[maybe_unused]] const std::size_t from_cost = ev.count(from.row, kInvalid - 1, nullptr, true);
    // Each restart from the seed result (closest) where it costs least.
    std::vector<std::tuple<std::size_t, std::string, DatapathSpec>> starts;  // (cost, name, row)
    const std::size_t families = restarts(from.row).size();
    for (std::size_t f = 0; f < families; ++f) {
      std::size_t best_cost = kInvalid;
      std::pair<std::string, DatapathSpec> best;
      for (const auto& c : res.closest) {
        auto [name, row] = restarts(c.row)[f];
        if (f == 0 && (c.row != from.row || uses_amd_keys(row))) continue;  // the closest as it is, unless searched so
        if (std::find(done.begin(), done.end(), row) != done.end()) continue;
        const std::size_t cost = ev.count(row, best_cost == kInvalid ? kInvalid - 1 : best_cost, nullptr, true);
        if (cost < best_cost) { best_cost = cost; best = {c.seed + ", " + name, row}; }
      }
      if (best_cost != kInvalid) starts.push_back({f == 0 ? 0 : best_cost, best.first, best.second});
    }
    std::stable_sort(starts.begin(), starts.end(), [](const auto& x, const auto& y) { return std::get<0>(x) < std::get<0>(y); });
    for (std::size_t r = 0; r < starts.size() && !deadline.passed(); ++r) {
      DatapathSpec row = std::get<2>(starts[r]);
      done.push_back(row);
      // An equal share of the time left for each family (the last one gets the rest). The
      // AMD-seed fallback of session 28 (the best NVIDIA-like seed after the families) was
      // removed: it never got time, and given a share it fitted none of the random rows it
      // was for (random 121, 178, 195 of seed 2 at 10 s and 195 at 40 s; docs/fit.md).
      // The F-exact family either fits at once or not at all (its parameters are few): an
      // eighth of the time left, so the other families keep the shares they had without it.
      const bool f_exact = std::get<1>(starts[r]).ends_with(kFExact);
      const auto others = std::count_if(starts.begin() + static_cast<std::ptrdiff_t>(r), starts.end(),
                                        [](const auto& x) { return !std::get<1>(x).ends_with(kFExact); });
      const double at = budget.used();
      const double parts = f_exact || others == 0 ? 8.0 : static_cast<double>(others);
      descend(row, ps, ev, Deadline{&budget, at + (1 - at) / parts});
      ScoredRow s = scored(row, std::get<1>(starts[r]));
      const bool exact = s.mismatches == 0;
      if (s.mismatches < res.closest.front().mismatches) res.closest.insert(res.closest.begin(), std::move(s));
      if (exact) break;
    }
  }
  res.best = res.closest.front();
  res.exact = res.best.mismatches == 0;
  if (res.exact) {
    for (const auto& p : ps) {
      // The after_add fields exist only with c "after".
      if (p.name.rfind("after_add.", 0) == 0 && res.best.row.c_placement != CPlacement::After) continue;
      ParameterFinding f{p.name, p.get(res.best.row), {}, {}, {}};
      std::vector<DatapathSpec> seen;
      for (const auto& [name, set] : p.values) {
        DatapathSpec cand = res.best.row;
        set(cand);
        if (std::find(seen.begin(), seen.end(), cand) != seen.end()) continue;
        seen.push_back(cand);
        if (cand == res.best.row) { f.fitting.push_back(name); continue; }
        CaseRef first;
        const std::size_t m = ev.count(cand, 1, &first);
        if (m == kInvalid) { f.not_applicable.push_back(name); continue; }
        if (m == 0) f.fitting.push_back(name);
        else f.ruled_out.push_back({name, first.index, first.dump});
      }
      res.parameters.push_back(std::move(f));
    }
    // The NaN pattern: read from the first NaN result of each output, else open.
    for (const auto& pair : pairs) {
      const Format& out = pair.second;  // a named reference: clang 14 cannot capture a structured binding
      if (!out.has_nan() || std::any_of(res.parameters.begin(), res.parameters.end(),
                                        [&](const ParameterFinding& f) { return f.name == "nan_pattern." + out.name; }))
        continue;
      ParameterFinding f{"nan_pattern." + out.name, "default", {}, {}, {}};
      auto it = res.best.row.nan_pattern.find(out.name);
      char buf[24] = "default";
      if (it != res.best.row.nan_pattern.end())
        std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(it->second));
      f.value = buf;
      if (std::find(nan_seen.begin(), nan_seen.end(), out.name) != nan_seen.end()) {
        f.fitting = {buf};
        for (std::size_t j = 0; j < dumps.size() && f.ruled_out.empty(); ++j)
          for (std::size_t i = 0; i < dumps[j].n; ++i)
            if (dumps[j].out.name == out.name && same_result(out, dumps[j].d[i], out.canonical_nan())) {
              f.ruled_out.push_back({"every other NaN pattern", i, j});
              break;
            }
      } else {
        f.fitting = {buf, "any-other-NaN (no NaN result in the data)"};
      }
      res.parameters.push_back(std::move(f));
    }
  }
  res.evaluations = ev.evaluations;
  res.case_evaluations = ev.case_evaluations();
  res.capped = budget.capped();
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

std::string fit_format_refusal(const Format& f) {
  if (f.is_signed && f.has_zero) return "";
  return f.name + " is a scale format (unsigned" + std::string(f.has_zero ? "" : ", no zero") +
         "); dumps hold signed formats with a zero (fp16, bf16, tf32, fp32, e4m3, ...)";
}

}  // namespace tcsim::validation
