// tcsim fit: find the unit row (models::DatapathSpec) that reproduces a dump d = c + sum a_i b_i
// of an unknown unit. Structured inference over the row's parameters: start from seed rows
// (built-in rows of the format pair), change one parameter at a time (then two at a time when
// stuck), and keep a change only when it lowers the mismatch count. Every candidate is first
// run on the cases that separated earlier candidates (cheapest test first) and stops counting
// as soon as it cannot beat the current row, so most hypotheses cost a few dozen cases.
// No global state: every call owns its data.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tcsim/models/unit.hpp"
#include "tcsim/validation/dump_validate.hpp"

namespace tcsim::validation {

struct FitOptions {
  int fma_size = 0;                           // > 0: fixed block size k (--k)
  std::vector<models::DatapathSpec> seeds;    // empty: every built-in row of the pair
  std::vector<std::string> exclude_units;     // built-in units not used as seeds (tests)
  std::size_t max_report = 5;                 // first mismatching cases kept per closest row
  std::size_t max_seeds = 4;                  // seeds descended (best-scoring first)
  double time_limit_seconds = 90;             // the descent stops here (the first seed's row is still reported)
  // Share of time_limit_seconds kept for the restarts when the seeds' descents find nothing
  // exact (fit_seeds.cpp restarts(): the closest row with the AMD keys and in the AMD families).
  double restart_share = 0.4;
  // > 0: the search's budget in cases run through candidate rows (FitResult::case_evaluations)
  // instead of seconds: the seeds' share, the restarts' shares and the end are then points of
  // this count, so a fit gives the same report on any machine at any load. time_limit_seconds
  // stays a cap (the same schedule in seconds); FitResult::capped says when it acted.
  std::size_t work_budget = 0;
  // > 0 (--instruction-k): the dumps are of one instruction of this K (K_i), chained over the
  // dump's K as the unit chains instructions (blocks of min(K_i, fma_size) products, padded),
  // while fma_size is still searched. The fitted row then names the shape "fit.m16n16k<K_i>"
  // (fit_instruction), through which it is evaluated.
  int instruction_k = 0;
  // When the dumps cannot decide (docs/fit.md, session 33): the exact rows near the one the
  // search reached, at most choice_rows of them (<= 1: none) found in at most choice_work
  // cases, give the report's coupled values (ParameterFinding::coupled). With `choose` they
  // are also run on fresh cases (choice_pool products per dump: 32,768 cases of K = 4) and
  // each undecided key takes a value of its largest group of equal answers. Off by default:
  // on the 200 random rows it lowered the differing cases of five rows but made none agree
  // and one that agreed differ (random 18); 23 of the 77 built-in rows then differed.
  std::size_t choice_rows = 64;
  std::size_t choice_work = 600000;
  bool choose = false;
  std::size_t choice_pool = 131072;
  // The exact row returned takes the most permissive fitting value of each threshold key
  // (fit_choice.cpp widen_thresholds: the largest alignment width F, then the most carry bits).
  // A value more permissive than the unit's differs from it only where the unit's own limit
  // acts, which the dumps never showed; a stricter one also where its own limit acts, which is
  // more often (docs/fit.md, session 41). An F the row kept from its seed row (a unit's
  // measured row) stays; the carry bits are widened from any value (session 42). Off: the
  // values the search reached.
  bool widest_thresholds = true;
  // Called as the search goes (tcsim fit's progress on stderr) with the share of its budget
  // spent, 0..1: of work_budget when given, else of time_limit_seconds. The search may end
  // well before 1 (a row that reproduces every case stops it). Empty: not called.
  std::function<void(double)> progress;
};

// The instruction through which a fitted row is evaluated: its single shape's name
// ("fit.m16n16k4", from FitOptions::instruction_k), else "" (the row's own grouping).
std::string fit_instruction(const models::DatapathSpec& row);

// Why `f` cannot be a dump's input or output format (the scale formats ue8m0/ue4m3: unsigned,
// ue8m0 without a zero), else "". The front ends prefix the option or argument name.
std::string fit_format_refusal(const Format& f);

// A case that decides a parameter value (it mismatches with that value).
struct RuledOutValue {
  std::string value;
  std::size_t case_index = 0;  // from 0, in dump `dump`
  std::size_t dump = 0;        // index into the dumps given to fit_dumps
};

// One case of one of the dumps.
struct CaseRef {
  std::size_t dump = 0;
  std::size_t index = 0;  // from 0, file order
  bool operator==(const CaseRef&) const = default;
};

struct ParameterFinding {
  std::string name;                   // schema key, e.g. "carry_bits", "final_rounding.fp32"
  std::string value;                  // value in the fitted row
  std::vector<std::string> fitting;   // values (with all others fixed) that reproduce every case
  std::vector<RuledOutValue> ruled_out;
  std::vector<std::string> not_applicable;  // values the row's other parameters exclude (Unit refuses them)
  // Values that reproduce every case only together with other changes ("v (with key w, ...)"):
  // the coupled alternatives among the exact rows near the fitted one (FitOptions::choice_rows).
  std::vector<std::string> coupled;
  bool decided() const { return fitting.size() == 1; }
};

struct ScoredRow {
  models::DatapathSpec row;
  std::size_t mismatches = 0;
  std::vector<CaseRef> first_mismatches;      // dump order, then file order
  std::string seed;                           // "a100 (default)"
};

struct FitResult {
  bool exact = false;                       // best.mismatches == 0
  ScoredRow best;
  std::vector<ParameterFinding> parameters; // filled when exact
  std::vector<ScoredRow> closest;           // the best row from each seed, fewest mismatches first
  std::size_t evaluations = 0;              // candidate rows tried
  std::size_t case_evaluations = 0;         // cases run through candidate rows
  bool capped = false;                      // work_budget given, but the wall-clock cap ended a phase first
  models::DatapathSpec first_exact;         // the first exact row the search reached (best: the row chosen)
  std::size_t fitting_rows = 0;             // exact rows found near it (FitOptions::choice_rows)
  std::size_t fitting_groups = 0;           // with FitOptions::choose: 1 + the single changes' extra answer groups
  double seconds = 0;
};

// The fit. Throws std::invalid_argument when no seed row exists for the dump's formats.
FitResult fit_dump(const DumpSet& dump, const FitOptions& options = {});
// Several dumps of the same unit (other format pairs, other instructions or K): one row that
// reproduces all of them (its input_formats and output_formats are the dumps' formats).
// Seeds are the built-in rows serving the first dump's pair, with the per-output entries
// of the other pairs taken from the same unit's rows.
FitResult fit_dumps(const std::vector<DumpSet>& dumps, const FitOptions& options = {});

// Mismatches of one row over several dumps, saturated at `bound` (invalid rows: SIZE_MAX).
std::size_t count_mismatches(const models::DatapathSpec& row, const std::vector<DumpSet>& dumps,
                             std::size_t bound = static_cast<std::size_t>(-1));

// Mismatch count of one row on the dump (all NaNs equal), through Unit::dot_batch.
std::size_t count_mismatches(const models::DatapathSpec& row, const DumpSet& dump,
                             std::vector<std::size_t>* first = nullptr, std::size_t max_first = 0);

// Sets parameter `name` (a ParameterFinding name, e.g. "carry_bits", "final_rounding.fp32")
// of `row` to `value` (as the report writes it); false when the name or value is not in the
// search space of `dumps`.
bool set_parameter(models::DatapathSpec& row, const std::string& name, const std::string& value,
                   const std::vector<DumpSet>& dumps);

// A one-row unit named `name` of `row` restricted to the dump's formats.
models::UnitSpec fitted_unit(const models::DatapathSpec& row, const std::string& name);

}  // namespace tcsim::validation
