// --grid of tcsim gemm and tcsim lu: "PxQ", a process grid of P Q ranks.
#pragma once

#include <string>

namespace tcsim::cli {

struct GridText {
  int rows = 0, cols = 0;  // 0: automatic
};

// "PxQ" with P, Q >= 1 and P Q = ranks; "" is automatic. Throws std::invalid_argument naming
// --grid otherwise.
GridText parse_grid(const std::string& text, int ranks);

}  // namespace tcsim::cli
