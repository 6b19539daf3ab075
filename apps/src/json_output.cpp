// JSON output with the non-finite convention (json_output.hpp).
#include "json_output.hpp"

#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

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

void print_json(const nlohmann::json& j, int indent) {
  const std::string text = json_text(j, indent) + "\n";
  errno = 0;  // a large object is written at once: its error (and errno) is known here, not at the final flush
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size())
    throw std::runtime_error(std::string("standard output: write failed") +
                             (errno ? std::string(": ") + std::strerror(errno) : std::string()));
}

}  // namespace tcsim::cli
