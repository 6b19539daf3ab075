// The unit named by --unit (built-in) or --unit-config (JSON file), shared by the commands.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>

#include "args.hpp"
#include "tcsim/models/unit.hpp"
#include "tcsim/models/unit_json.hpp"
#include "tcsim/sim/format.hpp"

namespace tcsim::cli {

struct SelectedUnit {
  std::shared_ptr<const models::Unit> owned;  // set for a --unit-config unit
  const models::Unit* unit = nullptr;         // the unit to use (built-in or owned)
};

// --unit and --unit-config, as most commands declare them (select_unit reads them).
inline void declare_unit_options(ArgParser& p) {
  p.option("unit", "built-in unit: " + models::builtin_unit_names(), "name");
  p.option("unit-config", "user-defined unit from a JSON file", "file");
}

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

// select_unit after requiring one of --unit and --unit-config.
inline SelectedUnit required_unit(const ParsedArgs& a) {
  a.require_one_of({"unit", "unit-config"});
  return select_unit(a);
}

// The operand formats of --in, --in-a and --in-b (issue 24: a and b may differ on rows with
// mixed_inputs). --in alone: both; --in-a with --in-b; or one of them with --in for the other.
struct InputFormats {
  const Format* a = nullptr;
  const Format* b = nullptr;
  std::string mixed_option;  // the option that made the pair mixed ("--in-b", else "--in-a")
  bool mixed() const { return !(*a == *b); }
  std::string name() const { return mixed() ? a->name + " x " + b->name : a->name; }  // "fp16", "e4m3 x e5m2"
};

// Declares the three options on `p`; `a` and `b` name the operands ("a", "b" or "A", "B").
inline void declare_input_formats(ArgParser& p, const std::string& a, const std::string& b, const std::string& examples) {
  p.option("in", "input format of " + a + " and " + b + " (" + examples + ")", "fmt");
  p.option("in-a", "format of " + a + " when it differs from " + b + "'s (rows with mixed_inputs, tcsim units: e.g. "
                   "e4m3 x e5m2); with --in-b, or with --in for " + b, "fmt");
  p.option("in-b", "format of " + b + " when it differs from " + a + "'s; with --in-a, or with --in for " + a, "fmt");
}

inline InputFormats input_formats(const ParsedArgs& a, const std::string& command) {
  const bool in = a.has("in"), ia = a.has("in-a"), ib = a.has("in-b");
  if (!in && !(ia && ib))
    throw std::invalid_argument("missing option for 'tcsim " + command + "': give --in <fmt> (both operands), or " +
                                (ia ? "--in-b with --in-a" : ib ? "--in-a with --in-b" : "--in-a and --in-b") +
                                " (operands in different formats)");
  if (in && ia && ib)
    throw std::invalid_argument("conflicting options for 'tcsim " + command + "': --in with both --in-a and --in-b; "
                                "give --in alone, --in-a with --in-b, or one of them with --in for the other operand");
  InputFormats f;
  f.a = &parse_format(ia ? a.get("in-a") : a.get("in"), ia ? "--in-a" : "--in");
  f.b = &parse_format(ib ? a.get("in-b") : a.get("in"), ib ? "--in-b" : "--in");
  f.mixed_option = ib ? "--in-b" : "--in-a";
  return f;
}

// The row serving the pair: a mixed pair no row serves is refused naming the option and
// listing the unit's mixed pairs; other errors (formats, --instruction) as Unit::datapath.
inline const models::DatapathSpec& checked_datapath(const models::Unit& unit, const InputFormats& f, const Format& out,
                                                    const std::string& instruction) {
  if (f.mixed()) {
    try {
      (void)unit.datapath(*f.a, *f.b, out);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(f.mixed_option + ": " + e.what());
    }
  }
  return unit.datapath(*f.a, *f.b, out, instruction);
}

// What `tcsim dot` and `tcsim validate-dump` read first, in this order so that an error names
// the first bad option: the operand formats, --out, the unit (the caller has required one of
// --unit, --unit-config) and --instruction's row (checked_datapath).
struct DotSelection {
  InputFormats inputs;
  const Format* out = nullptr;
  SelectedUnit selected;
  std::string instruction;
  const models::DatapathSpec* row = nullptr;
};

inline DotSelection select_dot(const ParsedArgs& a, const std::string& command) {
  DotSelection s;
  s.inputs = input_formats(a, command);
  s.out = &parse_format(a.get("out"), "--out");
  s.selected = select_unit(a);
  s.instruction = a.get_or("instruction", "");
  s.row = &checked_datapath(*s.selected.unit, s.inputs, *s.out, s.instruction);
  return s;
}

}  // namespace tcsim::cli
