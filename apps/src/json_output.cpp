// JSON output with the non-finite convention (json_output.hpp).
#include "json_output.hpp"

#include <cmath>
#include <cstdio>

namespace tcsim::cli {

namespace {

void replace_non_finite(nlohmann::json& j) {
  if (j.is_number_float()) {
    const double x = j.get<double>();
    if (!std::isfinite(x)) j = json_number(x);
  } else if (j.is_structured()) {
    for (auto& v : j) replace_non_finite(v);
  }
}

}  // namespace

nlohmann::json json_number(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return x;
}

nlohmann::json with_non_finite_as_strings(nlohmann::json j) {
  replace_non_finite(j);
  return j;
}

std::string json_text(const nlohmann::json& j, int indent) { return with_non_finite_as_strings(j).dump(indent); }

void print_json(const nlohmann::json& j, int indent) { std::printf("%s\n", json_text(j, indent).c_str()); }

}  // namespace tcsim::cli
