// The range classes aimed at the keys in which rows that answer a suggestion's pool alike still
// differ (the active loop's needles, docs/fit.md "fitneedle"). No global state.
#pragma once
#include <vector>

#include "tcsim/models/unit.hpp"

namespace tcsim::validation {

// The range classes (fit_range_classes.hpp) whose cases probe the keys in which rows[1..] differ
// from rows[0], each once, in the order of the keys below (the probe's experiments, cheapest
// first):
// - F, the alignment rounding, the sticky bit, and where the cuts fall (normalization, order,
//   fma_size, k split, c placement and entry, the late and result roundings): the cut classes
//   0, 2, 3, 4, 7, 8, 10, 12, 14, 15 (a cancelled top or a grid point beside terms at the cut);
// - the min-exponent clamp and subnormal handling: 1, 9, 11, 13 (sums below the normal range);
// - the carry bits: 5 (sums at a carry edge);
// - the overflow rule: 6 (sums at the output's top).
// Rows that differ in none of these (or only in the NaN pattern): every class.
std::vector<int> directed_classes(const std::vector<models::DatapathSpec>& rows);

}  // namespace tcsim::validation
