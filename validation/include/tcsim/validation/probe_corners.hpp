// The NVIDIA corner rules of a unit, found by calling it (issue 22; evidence in
// docs/units/README.md "Corner cases"): what an overflow of the output gives under the
// unit's rounding, the sign of an exact zero when every term is -0, and the last bit a
// zero-c block of tiny products keeps (the binary16 alignment floor). Each finding carries
// the input that decides it, so that the same case run on a GPU settles the rule.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tcsim/validation/probe.hpp"

namespace tcsim::validation {

struct CornerFinding {
  std::string rule;      // "overflow", "zero_sign", "binary16_floor"
  std::string value;     // overflow: "inf" | "ieee" | "inf-or-ieee" | "other"; zero_sign:
                         // "positive" | "ieee"; binary16_floor: "lsb 2^L" | "none seen"; "unknown"
  std::string evidence;  // the observations, or why the formats cannot decide
  std::vector<DotCase> deciders;  // the inputs (and this unit's results) that decide it
};

std::vector<CornerFinding> probe_corners(const BlackBox& box);
std::string corners_to_text(const std::string& name, const std::vector<CornerFinding>& findings);
nlohmann::json corners_to_json(const BlackBox& box, const std::vector<CornerFinding>& findings);  // patterns in hex

}  // namespace tcsim::validation
