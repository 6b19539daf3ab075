// tcsim fit's search machinery (used by fit.cpp): the seed rows and restart families
// (fit_seeds.cpp), the evaluator that counts a candidate's mismatches cheapest cases first and
// the budget the phases end at (fit_evaluator.cpp), and the greedy descent (fit_descent.cpp).
#pragma once
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "fit_params.hpp"
#include "tcsim/validation/fit.hpp"

namespace tcsim::validation::fit_detail {

constexpr std::size_t kInvalid = std::numeric_limits<std::size_t>::max();

using Pairs = std::vector<std::pair<Format, Format>>;

// The dumps' distinct (input, output) format pairs, first-seen order.
Pairs pairs_of(const std::vector<DumpSet>& dumps);
// The seed row restricted to the dumps' formats: per-output maps keep only their outputs.
DatapathSpec restrict_row(DatapathSpec r, const Pairs& pairs);
models::UnitSpec one_row_unit(const DatapathSpec& row, const std::string& name);
// The seed rows (named "unit (instruction)"): FitOptions::seeds, else the built-in rows of the pair.
std::vector<std::pair<std::string, DatapathSpec>> seed_rows(const Pairs& pairs, const FitOptions& o);

// The name of the restart family with F "exact" (CDNA1).
extern const std::string kFExact;
// Restart rows for a search that found nothing exact (fit_seeds.cpp).
std::vector<std::pair<std::string, DatapathSpec>> restarts(const DatapathSpec& r);

// The cost of one result against the dump's (graded; 0 exactly when equal).
std::size_t result_cost(const Format& f, std::uint64_t got, std::uint64_t want);

// Mismatch counting with the cheapest cases first: the cases that separated earlier
// candidates ("priority") run first, then the rest in chunks, stopping at `bound`.
class DumpEvaluator {
 public:
  explicit DumpEvaluator(const DumpSet& d) : d_(d), in_priority_(d.n, false), in_focus_(d.n, false), active_(d.n) {}

  // Only the first `n` cases count (a first sample for the early descent); all: d.n.
  void set_active(std::size_t n) {
    clear_focus();  // the focus holds active cases only
    active_ = std::min(n, d_.n);
  }
  bool all_active() const { return active_ == d_.n; }

  // Mismatches of `unit` on this dump (graded: the sum of result_cost), saturated at `bound`.
  std::size_t count(const models::Unit* unit, const std::string& instruction, std::size_t bound,
                    std::size_t* first_case = nullptr, bool graded = false);

  // The active cases `unit` gets wrong run first in every count until clear_focus(): a
  // candidate that answers them as that row does costs at least as much, and is refuted by
  // them alone instead of after every case it answers alike (most candidates near a row).
  void set_focus(const models::Unit* unit, const std::string& instruction);
  void clear_focus();

  std::size_t case_evaluations = 0;

 private:
  // Cases copied out of the dump in the order they run (the deciding cases, the focus).
  struct CaseList {
    std::vector<std::size_t> index;
    std::vector<std::uint64_t> a, b, c, d;
    void add(const DumpSet& dump, std::size_t i) {
      index.push_back(i);
      a.insert(a.end(), dump.a.begin() + i * dump.k, dump.a.begin() + (i + 1) * dump.k);
      b.insert(b.end(), dump.b.begin() + i * dump.k, dump.b.begin() + (i + 1) * dump.k);
      c.push_back(dump.c[i]);
      d.push_back(dump.d[i]);
    }
    void clear() {
      index.clear();
      a.clear();
      b.clear();
      c.clear();
      d.clear();
    }
  };
  void add_priority(std::size_t idx) {
    if (prio_.index.size() >= 512) return;
    in_priority_[idx] = true;
    prio_.add(d_, idx);
  }
  // Runs `list` in growing chunks (32, 128, 512), adding to `mism` the cost of each wrong case
  // that `skip` does not hold; true when `mism` reached `bound` (the count ends there).
  bool run_list(const CaseList& list, const std::vector<bool>* skip, const models::Unit* unit,
                const std::string& instruction, std::size_t bound, std::size_t* first_case, bool graded,
                std::size_t& mism);
  const DumpSet& d_;
  std::vector<bool> in_priority_;
  CaseList prio_;
  std::vector<bool> in_focus_;
  CaseList focus_;
  std::vector<std::uint64_t> out_;
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
                    bool graded = false);
  // The early descent runs on the first `n` cases of each dump; expand() makes every case count.
  void sample(std::size_t n) { for (auto& e : per_dump_) e.set_active(n); }
  bool expanded() const {
    return std::all_of(per_dump_.begin(), per_dump_.end(), [](const DumpEvaluator& e) { return e.all_active(); });
  }
  void expand() { for (auto& e : per_dump_) e.set_active(static_cast<std::size_t>(-1)); }
  // The cases `row` gets wrong run first (DumpEvaluator::set_focus), until clear_focus().
  void focus(const DatapathSpec& row);
  void clear_focus() { for (auto& e : per_dump_) e.clear_focus(); }
  std::size_t case_evaluations() const {
    std::size_t n = 0;
    for (const auto& e : per_dump_) n += e.case_evaluations;
    return n;
  }
  std::size_t evaluations = 0;

 private:
  std::vector<DumpEvaluator> per_dump_;
};

using Clock = std::chrono::steady_clock;

// The search's clock. Its phases end at points of the budget, as fractions of the whole:
// wall-clock seconds of time_limit_seconds, or, with FitOptions::work_budget, cases run through
// candidate rows, which makes the fit the same at any load; the seconds then stay a cap.
class Budget {
 public:
  Budget(const Evaluator& ev, const FitOptions& o, Clock::time_point t0)
      : ev_(ev), work_(o.work_budget), seconds_(o.time_limit_seconds), t0_(t0), progress_(o.progress) {}
  // The share of the budget spent (the work's when a work budget is given, never the clock's,
  // so that the restarts' shares are points of the count too).
  double used() const {
    return work_ ? static_cast<double>(ev_.case_evaluations()) / static_cast<double>(work_) : clock();
  }
  // Whether the phase that ends at `point` is over.
  bool past(double point) {
    if (progress_) progress_(std::min(used(), 1.0));
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
  const std::function<void(double)>& progress_;
  bool capped_ = false;
};

// The end of one phase of the search (a point of the budget).
struct Deadline {
  Budget* budget;
  double point;
  bool passed() const { return budget->past(point); }
};

// Cheapest tests first: the descent runs on a sample of the cases (the first 1,000 of each
// dump) until a row fits the sample, then on every case from there.
std::size_t descend(DatapathSpec& row, const std::vector<Param>& ps, Evaluator& ev, Deadline deadline);

// The report of an exact row `best` (fit_report.cpp): per parameter of `ps`, the values that
// fit and the first case ruling out each other one; then each output's NaN pattern
// (`nan_seen`: the outputs whose NaN pattern the dumps show).
std::vector<ParameterFinding> parameter_findings(const DatapathSpec& best, const std::vector<Param>& ps,
                                                 Evaluator& ev, const std::vector<DumpSet>& dumps,
                                                 const std::vector<std::string>& nan_seen);

// Which exact row to return (fit_choice.cpp). The exact rows around `found`: single changes,
// then pairs of changes (coupled ones first), at most `max_rows` rows and `work` cases run.
std::vector<DatapathSpec> exact_neighbours(const DatapathSpec& found, const std::vector<Param>& ps, Evaluator& ev,
                                           std::size_t max_rows, std::size_t work);
// Each row's answers on fresh cases of `pool` products per dump (from `seed`).
std::vector<std::vector<std::uint64_t>> pool_answers(const std::vector<DatapathSpec>& rows,
                                                     const std::vector<DumpSet>& dumps, std::size_t pool,
                                                     std::uint64_t seed);
// The row to return among rows with these answers: the first row of the largest group of
// equal answers (ties: the group nearest all rows, a medoid); `groups` gets their number.
std::size_t choose_among(const std::vector<const std::vector<std::uint64_t>*>& ans, std::size_t* groups = nullptr);
// Adds to each finding the values that fit only together with other changes (rows of `rows`).
void add_coupled(std::vector<ParameterFinding>& found, const DatapathSpec& best, const std::vector<DatapathSpec>& rows,
                 const std::vector<Param>& ps);
// The end of an exact fit: the row found with its threshold keys widened (FitOptions::
// widest_thresholds; not an F it kept from `origin`, the seed row it descends from, when
// known), the row chosen among the exact rows near it (FitOptions::choice_rows), and its report.
void choose_fitting_row(FitResult& res, const std::vector<Param>& ps, Evaluator& ev, const std::vector<DumpSet>& dumps,
                        const std::vector<std::string>& nan_seen, const FitOptions& o,
                        const DatapathSpec* origin = nullptr);

}  // namespace tcsim::validation::fit_detail
