// tcsim fit's active loop (issue 26 part 2) against a simulated GPU: after the dump's fit,
// while the rows still fitting split into more than one group on the suggestion pool, a hidden
// row answers the suggested cases (as the GPU would run them with mma_dump --inputs), they are
// added as a further dump of the same format pair and K, and the fit reruns on all dumps.
// bench fit --rounds and the loop's test use it (docs/fit.md). No global state.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tcsim/models/unit.hpp"
#include "tcsim/validation/dump_validate.hpp"
#include "tcsim/validation/fit.hpp"

namespace tcsim::validation {

// One suggestion of the loop.
struct LoopRound {
  bool exact = false;          // the fit it started from reproduced every dump
  std::size_t mismatches = 0;  // that fit's count over all dumps
  std::size_t candidates = 0;  // rows it split (fitting rows; the closest rows when none fits)
  std::size_t groups = 0;      // groups of equal answers its cases split them into
  std::size_t cases = 0;       // cases suggested (answered and added when groups > 1)
  std::size_t pool = 0;        // cases the suggestion looked at
  double seconds = 0;          // the suggestion's time (the fit after it not included)
};

struct LoopResult {
  FitResult fit;               // the fit on every dump after the last round (the first fit when none ran)
  std::vector<DumpSet> dumps;  // the dump, then one answered suggestion per round
  std::vector<LoopRound> log;  // one entry per suggestion made (rounds, or rounds + 1)
  std::size_t rounds = 0;      // suggestions answered and added
  bool converged = false;      // the last suggestion left one group
};

// The rows a suggestion splits after `fit`: fitting_rows when the fit is exact; otherwise the
// closest rows (the best row of each seed and restart, distinct), so that a dump no row
// reproduces still gets the cases that tell its best candidates apart.
std::vector<models::DatapathSpec> rows_to_split(const FitResult& fit, const std::vector<DumpSet>& dumps,
                                                std::size_t max_rows = 200);

// The loop from `first` (the fit of `dump` with `options`): at most max_rounds rounds of
// cases_per_round suggested cases (suggestion r draws its pool from seed + r) answered by
// `hidden`; after the last round one more suggestion (not answered) tells whether it converged.
LoopResult simulated_active_loop(const models::DatapathSpec& hidden, const DumpSet& dump, const FitResult& first,
                                 const FitOptions& options, std::size_t max_rounds, std::size_t cases_per_round,
                                 std::uint64_t seed);

}  // namespace tcsim::validation
