// How sure a fit is (issue 26: "say how sure it is"). The rows that also reproduce every case
// of the dumps (fitting_rows: the fitted row, its undecided values changed singly and in pairs,
// the coupled alternatives) run on the suggestion's pool: fresh cases of the harness's mix, then
// further batches where rows might split (aimed at the keys they differ in, then of the mix;
// fit_suggest.hpp). When they all answer as the fitted
// row, the fit is "sure" as far as these rows and cases go (not a proof: a unit outside them, or a
// split rarer than the pool, is not covered); otherwise the report names each set of changed keys
// that answers otherwise, how often on the mix, and a case that shows it, which the GPU can run
// (--suggest). It is the active loop's convergence test (fit_loop.hpp) run on the first fit:
// on the 400 random rows of docs/fit.md every row it called sure agreed with its unit on 10^6
// further cases. No global state.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tcsim/models/unit.hpp"
#include "tcsim/validation/dump_validate.hpp"
#include "tcsim/validation/fit.hpp"
#include "tcsim/validation/fit_suggest.hpp"

namespace tcsim::validation {

// One set of keys in which fitting rows differ from the fitted row and answer some case otherwise.
struct DifferingAlternative {
  std::vector<std::string> keys;    // the changed schema keys
  std::string change;               // "alignment_rounding \"rz\" -> \"ru\"" (the row with the most mix cases)
  std::size_t rows = 0;             // fitting rows with this set of changed keys that answer otherwise
  std::size_t mix_differing = 0;    // most of the mix cases on which one of them answers otherwise (0: only
                                    // on further batches)
  SuggestedCases::Witness witness;  // the first pool case of that row where it does
};

// One format pair and K of the dumps.
struct CertaintySet {
  Format in, out;
  std::size_t k = 0;
  std::size_t rows = 0;    // fitting rows run (the unit accepted), the fitted row first (0: not run)
  std::size_t groups = 0;  // groups of rows with equal answers on every case looked at (1: sure)
  std::size_t pool = 0;    // cases looked at
  std::size_t mix = 0;     // of them, fresh cases of the harness's mix (the rest: further batches)
  // One entry per set of changed keys, most mix cases first. A row whose changes (key and value)
  // hold all of another splitting row's and more is left out and counted in `combined`.
  std::vector<DifferingAlternative> differing;
  std::size_t combined = 0;
};

struct FitCertainty {
  bool exact = false;  // false: no row reproduces every case, so there is nothing to be sure of
  std::vector<CertaintySet> sets;
  bool sure() const;
};

// From suggestions already made for `fit` (one per format pair and K, of 1,000 cases: --suggest
// 1000 makes the same). A suggestion whose row 0 is not the fitted row counts no rows.
FitCertainty certainty_of(const std::vector<SuggestedCases>& suggestions, const FitResult& fit);

// The suggestion of the active loop's first round (1,000 cases per format pair and K, pool from
// seed + i for the i-th pair) for the fitting rows of `fit`, read as above. Costs one suggestion
// per pair: 1-3 s for most dumps, up to about 45 s (docs/fit.md, "How sure"). `progress`, when
// given, is called with (pairs done, pairs) before each pair and at the end.
FitCertainty fit_certainty(const FitResult& fit, const std::vector<DumpSet>& dumps, std::uint64_t seed = 1,
                           const std::function<void(std::size_t, std::size_t)>& progress = {});

// The report: JSON (tcsim fit --json's "certainty", tcsim.fit's report) and text lines.
nlohmann::json certainty_json(const FitCertainty& c);
std::vector<std::string> certainty_lines(const FitCertainty& c, std::size_t max_alternatives = 8);

// The schema keys (name and NaN pattern aside) whose values differ between two rows, and the
// changes as text: "carry_bits 3 -> 5, final_rounding {\"fp32\":\"rz\"} -> {\"fp32\":\"rd\"}" ("none").
std::vector<std::string> row_keys_differing(const nlohmann::json& from, const nlohmann::json& to);
std::string row_changes_text(const models::DatapathSpec& from, const models::DatapathSpec& to);

}  // namespace tcsim::validation
