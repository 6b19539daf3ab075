// The unit named by --unit (built-in) or --unit-config (JSON file), shared by the commands.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>

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
    try {
      s.unit = &models::builtin_unit(a.get("unit"));
    } catch (const std::invalid_argument& e) {  // name the option: "unknown unit ''" alone does not
      throw std::invalid_argument(std::string("--unit: ") + e.what());
    }
  } else {
    const std::string& path = a.get("unit-config");
    models::UnitSpec spec = models::load_unit_json(path);  // its errors name the file and the key
    try {
      s.owned = std::make_shared<const models::Unit>(std::move(spec));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("unit file '" + path + "': " + e.what());
    }
    s.unit = s.owned.get();
  }
  return s;
}

}  // namespace tcsim::cli
