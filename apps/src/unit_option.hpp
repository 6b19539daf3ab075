// The unit named by --unit (built-in) or --unit-config (JSON file), shared by the commands.
#pragma once
#include <memory>

#include "args.hpp"
#include "tcsim/models/unit.hpp"
#include "tcsim/models/unit_json.hpp"

namespace tcsim::cli {

struct SelectedUnit {
  std::shared_ptr<const models::Unit> owned;  // set for a --unit-config unit
  const models::Unit* unit = nullptr;         // the unit to use (built-in or owned)
};

// Resolves --unit or --unit-config (the caller has required one of them); errors name the
// unknown unit with the accepted names, or the JSON file, key and allowed values.
inline SelectedUnit select_unit(const ParsedArgs& a) {
  SelectedUnit s;
  if (a.has("unit")) {
    s.unit = &models::builtin_unit(a.get("unit"));
  } else {
    s.owned = std::make_shared<const models::Unit>(models::load_unit_json(a.get("unit-config")));
    s.unit = s.owned.get();
  }
  return s;
}

}  // namespace tcsim::cli
