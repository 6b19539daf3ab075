// The range classes aimed at the keys in which rows still fitting differ (see fit_directed_cases.hpp).
#include "fit_directed_cases.hpp"

#include <algorithm>

#include "tcsim/validation/fit_range_classes.hpp"

namespace tcsim::validation {

using models::DatapathSpec;

std::vector<int> directed_classes(const std::vector<DatapathSpec>& rows) {
  bool cut = false, clamp = false, carry = false, overflow = false;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const DatapathSpec& a = rows[0];
    const DatapathSpec& b = rows[r];
    cut = cut || a.fraction_bits != b.fraction_bits || a.alignment_rounding != b.alignment_rounding ||
          a.sticky_bit != b.sticky_bit || a.normalization != b.normalization || a.order != b.order ||
          a.fma_size != b.fma_size || a.k_split != b.k_split || a.c_placement != b.c_placement ||
          a.c_entry != b.c_entry || a.late_products_rounding != b.late_products_rounding ||
          a.final_add_rounding != b.final_add_rounding || a.result_fraction_bits != b.result_fraction_bits ||
          a.product_rounding != b.product_rounding;
    clamp = clamp || a.min_exponent != b.min_exponent || a.subnormal_inputs != b.subnormal_inputs ||
            a.subnormal_outputs != b.subnormal_outputs || a.flush_inputs_positive != b.flush_inputs_positive ||
            a.zero_sign != b.zero_sign;
    carry = carry || a.carry_bits != b.carry_bits;
    overflow = overflow || a.overflow != b.overflow || a.product_overflow_inf != b.product_overflow_inf;
  }
  std::vector<int> classes;
  if (cut) classes.insert(classes.end(), {0, 2, 3, 4, 7, 8, 10, 12, 14, 15});
  if (clamp) classes.insert(classes.end(), {1, 9, 11, 13});
  if (carry) classes.push_back(5);
  if (overflow) classes.push_back(6);
  if (classes.empty())
    for (int w = 0; w < fit_cases::kRangeClasses; ++w) classes.push_back(w);
  return classes;
}

}  // namespace tcsim::validation
