// tcsim fit's report as JSON: the row, per parameter its value, the values that fit, the
// values ruled out with the deciding case (hex), the closest rows when nothing fits. Shared by
// `tcsim fit --json` and Python's tcsim.fit.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tcsim/validation/fit.hpp"

namespace tcsim::validation {

// One case in hex patterns of the dump's formats: "case 12: a 0x3c00 ..., b ..., c 0x..., d 0x...";
// with several dumps "dump 2 case 12: ..." (numbers from 1).
std::string fit_case_text(const std::vector<DumpSet>& dumps, std::size_t dump, std::size_t index);

nlohmann::json fit_report_json(const FitResult& r, const std::vector<DumpSet>& dumps);

}  // namespace tcsim::validation
