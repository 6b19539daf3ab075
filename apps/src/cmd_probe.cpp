// tcsim probe: the black-box feature probe of a unit (validation/probe.hpp), with the
// fasi2021 test vectors of the probed format pair. The unit is only ever called through dot().
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "commands.hpp"
#include "json_output.hpp"
#include "unit_option.hpp"
#include "tcsim/models/unit.hpp"
#include "tcsim/models/unit_json.hpp"
#include "tcsim/sim/format.hpp"
#include "tcsim/validation/probe.hpp"
#include "tcsim/validation/probe_corners.hpp"

namespace tcsim::cli {

int cmd_probe(const Args& args) {
  ArgParser p("probe",
              "black-box numerical feature probe of a unit: subnormals, exact products, fraction bits F, "
              "carry bits, FMA size, normalization, alignment and final rounding, order, monotonicity; "
              "for a c added last, the blocks of one instruction and the rounding of c's addition "
              "(methodology: docs/probe.md), plus the fasi2021 test vectors of the format pair");
  p.option("unit", "built-in unit (name, alias or architecture; see 'tcsim units')", "name");
  p.option("unit-config", "user-defined unit: a JSON file in the unit schema (models/README.md)", "file");
  p.option("in", "input format of a and b (default: every pair the unit serves)", "format");
  p.option("out", "output format of c and d (with --in)", "format");
  p.option("instruction", "datapath of the unit to probe (default: the pair's default row)", "name");
  p.option("seed", "seed of the probe's random searches (default 0x5eed004)", "n");
  p.flag("json", "print the report as JSON (an object; an array when probing every pair)");
  p.flag("no-fasi2021", "skip the fasi2021 test vectors");
  p.flag("corners", "report only the NVIDIA corner rules (overflow under RZ, sign of an all -0 sum, binary16 "
                    "alignment floor) and the inputs that decide them");
  const auto a = p.parse(args);
  if (a.help()) return p.print_help();
  a.require_one_of({"unit", "unit-config"});
  if (a.has("in") != a.has("out")) throw std::invalid_argument("options '--in' and '--out' for 'tcsim probe' go together");

  const SelectedUnit selected = select_unit(a);
  const models::Unit* unit = selected.unit;
  const std::string instruction = a.get_or("instruction", "");
  validation::ProbeOptions opt;
  opt.seed = a.get_uint64("seed", opt.seed);

  std::vector<std::pair<const Format*, const Format*>> pairs;
  if (a.has("in")) {
    pairs.emplace_back(&parse_format(a.get("in"), "--in"), &parse_format(a.get("out"), "--out"));
  } else {
    for (const std::string& pair : unit->format_pairs()) {
      const auto arrow = pair.find("->");
      pairs.emplace_back(&parse_format(pair.substr(0, arrow)), &parse_format(pair.substr(arrow + 2)));
    }
  }

  nlohmann::json arr = nlohmann::json::array();
  bool first = true;
  for (const auto& [in, out] : pairs) {
    if (!instruction.empty() || a.has("in")) (void)unit->datapath(*in, *out, instruction);  // clear error
    const validation::BlackBox box = selected.owned ? validation::blackbox_from_unit(selected.owned, *in, *out, instruction)
                                           : validation::blackbox_from_unit(*unit, *in, *out, instruction);
    if (a.has("corners")) {
      const auto found = validation::probe_corners(box);
      if (a.has("json")) arr.push_back(validation::corners_to_json(box, found));
      else std::printf("%s%s", first ? "" : "\n", validation::corners_to_text(box.name, found).c_str());
      first = false;
      continue;
    }
    const validation::ProbeReport r =
        a.has("no-fasi2021") ? validation::probe(box, opt) : validation::probe_with_fasi2021(box, opt);
    if (a.has("json")) {
      arr.push_back(r.to_json());
    } else {
      if (!first) std::printf("\n");
      std::printf("%s", r.to_text().c_str());
    }
    first = false;
  }
  if (a.has("json")) print_json(a.has("in") ? arr[0] : arr, 2);
  return 0;
}

}  // namespace tcsim::cli
