// The progress phases of a fit (tcsim fit, tcsim.fit): one wording for the CLI and the package.
#pragma once
#include <string>

#include "tcsim/validation/fit.hpp"

namespace tcsim::cli {

// The search's phase: its share of the work budget when one is given, else of the time limit.
inline std::string fit_search_phase(const validation::FitOptions& opt) {
  return opt.work_budget ? "search (share of its budget of " + std::to_string(opt.work_budget) + " case evaluations)"
                         : "search (share of its " + std::to_string(static_cast<int>(opt.time_limit_seconds)) + " s limit)";
}

inline const char* const kFitCertaintyPhase = "how sure: the fitting rows on fresh cases, per format pair";

}  // namespace tcsim::cli
