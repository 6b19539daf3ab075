// tcsim fit's active loop against a simulated GPU (see fit_loop.hpp).
#include "tcsim/validation/fit_loop.hpp"

#include <algorithm>
#include <chrono>

#include "tcsim/validation/fit_suggest.hpp"

namespace tcsim::validation {

using models::DatapathSpec;

std::vector<DatapathSpec> rows_to_split(const FitResult& fit, const std::vector<DumpSet>& dumps, std::size_t max_rows) {
  if (fit.exact) return fitting_rows(fit, dumps, max_rows);
  std::vector<DatapathSpec> rows{fit.best.row};
  for (const auto& s : fit.closest)
    if (rows.size() < max_rows && std::find(rows.begin(), rows.end(), s.row) == rows.end()) rows.push_back(s.row);
  return rows;
}

LoopResult simulated_active_loop(const DatapathSpec& hidden, const DumpSet& dump, const FitResult& first,
                                 const FitOptions& options, std::size_t max_rounds, std::size_t cases_per_round,
                                 std::uint64_t seed) {
  LoopResult res;
  res.fit = first;
  res.dumps = {dump};
  for (;;) {  // after the last round one more suggestion says whether the loop converged
    const auto rows = rows_to_split(res.fit, res.dumps);
    const auto t0 = std::chrono::steady_clock::now();
    const SuggestedCases s = suggest_cases(rows, dump.in, dump.out, dump.k, cases_per_round, seed + res.rounds);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    res.log.push_back({res.fit.exact, res.fit.best.mismatches, s.candidates, s.classes, s.n, s.pool, seconds});
    res.converged = s.classes <= 1;
    if (res.converged || s.n == 0 || res.rounds >= max_rounds) break;
    res.dumps.push_back(simulated_dump(hidden, dump.in, dump.out, dump.k, s.a, s.b, s.c));  // the GPU answers
    ++res.rounds;
    res.fit = fit_dumps(res.dumps, options);
  }
  return res;
}

}  // namespace tcsim::validation
