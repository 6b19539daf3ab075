// Lower-case ASCII copies of names (formats, rounding modes, keys), one definition for the
// sources of tcsim_sim (a unity build puts several of them in one translation unit).
#pragma once
#include <cctype>
#include <string>
#include <string_view>

namespace tcsim::detail {

inline std::string ascii_lower(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

}  // namespace tcsim::detail
