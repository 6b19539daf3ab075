// tcsim fit's search space: the row parameters with their candidate values, and the groups
// of coupled parameters searched jointly (used by fit.cpp).
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tcsim/validation/fit.hpp"

namespace tcsim::validation::fit_detail {

using models::DatapathSpec;

// One parameter of the row: its name, its current value as text, and its candidate values.
struct Param {
  std::string name;
  std::function<std::string(const DatapathSpec&)> get;
  std::vector<std::pair<std::string, std::function<void(DatapathSpec&)>>> values;
  bool amd = false;  // a key of the AMD rows only: searched from AMD seeds, or when the rest finds nothing
};

// A key of the AMD rows only (after_add.*, product_groups, ...).
bool is_amd_key(const std::string& name);
// A row that uses any AMD-only key (its descent searches them too).
bool uses_amd_keys(const DatapathSpec& r);
// Every parameter of a row fitted to `dumps` (fma_size fixed when fixed_k > 0).
std::vector<Param> parameters(const std::vector<DumpSet>& dumps, int fixed_k);
// Groups of parameters that act together on the same cases (indices into `ps`).
std::vector<std::vector<std::size_t>> parameter_groups(const std::vector<Param>& ps);

}  // namespace tcsim::validation::fit_detail
