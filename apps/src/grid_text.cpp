// parse_grid (grid_text.hpp).
#include "grid_text.hpp"

#include <stdexcept>

namespace tcsim::cli {

GridText parse_grid(const std::string& text, int ranks) {
  if (text.empty()) return {};
  const auto x = text.find('x');
  auto number = [&](const std::string& s) {
    if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos || std::stoi(s) < 1)
      throw std::invalid_argument("--grid: '" + text + "' is not a process grid; allowed: PxQ with P, Q >= 1, e.g. 2x2");
    return std::stoi(s);
  };
  if (x == std::string::npos) number("");
  const GridText g{number(text.substr(0, x)), number(text.substr(x + 1))};
  if (static_cast<long long>(g.rows) * g.cols != ranks)
    throw std::invalid_argument("--grid: '" + text + "' has " + std::to_string(static_cast<long long>(g.rows) * g.cols) +
                                " processes; the job has " + std::to_string(ranks) + " (P Q must equal it)");
  return g;
}

}  // namespace tcsim::cli
