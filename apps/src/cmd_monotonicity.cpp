// tcsim monotonicity: searches a unit's dot product for inputs x <= y (elementwise, same
// signs) whose results are ordered the other way (validation/monotonicity.hpp).
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "commands.hpp"
#include "json_output.hpp"
#include "progress.hpp"
#include "unit_option.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/validation/monotonicity.hpp"
#include "tcsim/validation/probe_blackbox.hpp"

namespace tcsim::cli {

int cmd_monotonicity(const Args& args) {
  ArgParser p("monotonicity",
              "search a unit for non-monotonic dot products: inputs x <= y elementwise with the same signs whose "
              "results are ordered the other way (fasi2021 section 3.1.4 and its generalizations, an exhaustive "
              "search over inputs of at most 8 bits, and a random search), within a budget of pairs");
  p.option("unit", "built-in unit: " + models::builtin_unit_names(), "name");
  p.option("unit-config", "user-defined unit from a JSON file", "file");
  p.required("in", "input format", "fmt");
  p.required("out", "output format", "fmt");
  p.option("instruction", "datapath by instruction (default: the unit's default for the formats)", "name");
  p.option("budget", "pairs x <= y compared at most (default 1000000)", "N");
  p.option("seed", "seed of the random search (default 1)", "S");
  p.flag("json", "print one JSON object");
  p.flag("quiet", "no progress on stderr (shown for runs over 2 s)");
  const auto a = p.parse(args);
  if (a.help()) return p.print_help();
  a.require_one_of({"unit", "unit-config"});
  const SelectedUnit selected = select_unit(a);
  const Format& in = parse_format(a.get("in"), "--in");
  const Format& out = parse_format(a.get("out"), "--out");
  validation::MonotonicityOptions o;
  o.budget = static_cast<std::uint64_t>(a.get_int("budget", 1, 1ll << 40, 1000000));
  o.seed = a.get_uint64("seed", 1);
  Progress progress("tcsim monotonicity", !a.has("quiet"));
  o.progress = progress.hook("pairs x <= y");
  const validation::BlackBox box = validation::blackbox_from_unit(*selected.unit, in, out, a.get_or("instruction", ""));
  const validation::MonotonicityResult r = validation::search_monotonicity(box, o);
  progress.done();
  if (a.has("json")) {
    print_json(r.to_json());
    return 0;
  }
  std::printf("%s: %s after %llu pairs x <= y (%llu counterexamples)\n", box.name.c_str(),
              r.monotonic ? "monotonic (no counterexample found)" : "NOT monotonic",
              static_cast<unsigned long long>(r.cases_tried), static_cast<unsigned long long>(r.found));
  for (const auto& s : r.searches)
    std::printf("  %-10s %10llu pairs, %llu found: %s\n", s.name.c_str(), static_cast<unsigned long long>(s.pairs),
                static_cast<unsigned long long>(s.found), s.covered.c_str());
  for (const auto& c : r.counterexamples) {
    auto show = [&](const char* name, const validation::DotCase& d) {
      std::printf("    %s: a = [", name);
      for (std::size_t i = 0; i < d.a.size(); ++i) std::printf("%s%s", i ? ", " : "", bits_to_hex(in, d.a[i]).c_str());
      std::printf("], b = [");
      for (std::size_t i = 0; i < d.b.size(); ++i) std::printf("%s%s", i ? ", " : "", bits_to_hex(in, d.b[i]).c_str());
      std::printf("], c = %s -> d = %s (%.17g)\n", bits_to_hex(out, d.c).c_str(), bits_to_hex(out, d.d).c_str(),
                  to_double(decode(out, d.d)));
    };
    std::printf("  counterexample (%s search):\n", c.how.c_str());
    show("x", c.x);
    show("y", c.y);
  }
  return 0;
}

}  // namespace tcsim::cli
