// tcsim monotonicity: searches a unit's dot product for inputs x <= y (elementwise, same
// signs) whose results are ordered the other way (validation/monotonicity.hpp).
#include <algorithm>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "commands.hpp"
#include "distributed_items.hpp"
#include "item_bytes.hpp"
#include "json_output.hpp"
#include "progress.hpp"
#include "unit_option.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/validation/monotonicity.hpp"
#include "tcsim/validation/probe_blackbox.hpp"

namespace tcsim::cli {

namespace {

void put_case(ItemWriter& w, const validation::DotCase& d) {
  w.put(static_cast<std::uint64_t>(d.a.size()));
  for (std::size_t i = 0; i < d.a.size(); ++i) w.put(d.a[i]).put(d.b[i]);
  w.put(d.c).put(d.d);
}

validation::DotCase get_case(ItemReader& r) {
  validation::DotCase d;
  for (auto n = r.get<std::uint64_t>(); n > 0; --n) {
    d.a.push_back(r.get<std::uint64_t>());
    d.b.push_back(r.get<std::uint64_t>());
  }
  d.c = r.get<std::uint64_t>();
  d.d = r.get<std::uint64_t>();
  return d;
}

// One share's result as bytes: what the shares differ in (the counts found and the
// counterexamples); the rest is the same in every share.
std::string to_bytes(const validation::MonotonicityResult& r) {
  ItemWriter w;
  w.put(r.unit).put(r.in_format).put(r.out_format).put(r.cases_tried).put(r.found);
  w.put(static_cast<std::uint64_t>(r.searches.size()));
  for (const auto& s : r.searches) w.put(s.name).put(s.pairs).put(s.found).put(s.covered);
  w.put(static_cast<std::uint64_t>(r.counterexamples.size()));
  for (const auto& c : r.counterexamples) {
    put_case(w, c.x);
    put_case(w, c.y);
    w.put(c.how).put(c.pair);
  }
  return w.take();
}

// The shares merged: counts added, the first `keep` counterexamples by pair index.
validation::MonotonicityResult merge(const std::vector<std::string>& parts, int keep) {
  validation::MonotonicityResult all;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    ItemReader r(parts[p]);
    all.unit = r.get_string();
    all.in_format = r.get_string();
    all.out_format = r.get_string();
    all.cases_tried = r.get<std::uint64_t>();
    all.found += r.get<std::uint64_t>();
    const auto searches = r.get<std::uint64_t>();
    for (std::uint64_t i = 0; i < searches; ++i) {
      validation::MonotonicitySearch s;
      s.name = r.get_string();
      s.pairs = r.get<std::uint64_t>();
      s.found = r.get<std::uint64_t>();
      s.covered = r.get_string();
      if (p == 0) all.searches.push_back(s);
      else all.searches.at(i).found += s.found;
    }
    for (auto n = r.get<std::uint64_t>(); n > 0; --n) {
      validation::MonotonicPair c;
      c.x = get_case(r);
      c.y = get_case(r);
      c.how = r.get_string();
      c.pair = r.get<std::uint64_t>();
      all.counterexamples.push_back(std::move(c));
    }
  }
  std::sort(all.counterexamples.begin(), all.counterexamples.end(),
            [](const auto& x, const auto& y) { return x.pair < y.pair; });
  if (all.counterexamples.size() > static_cast<std::size_t>(std::max(keep, 0)))
    all.counterexamples.resize(static_cast<std::size_t>(std::max(keep, 0)));
  all.monotonic = all.found == 0;
  return all;
}

}  // namespace

int cmd_monotonicity(const Args& args) {
  ArgParser p("monotonicity",
              "search a unit for non-monotonic dot products: inputs x <= y elementwise with the same signs whose "
              "results are ordered the other way (fasi2021 section 3.1.4 and its generalizations, an exhaustive "
              "search over inputs of at most 8 bits, and a random search), within a budget of pairs");
  declare_unit_options(p);
  p.required("in", "input format", "fmt");
  p.required("out", "output format", "fmt");
  p.option("instruction", "datapath by instruction (default: the unit's default for the formats)", "name");
  p.option("budget", "pairs x <= y compared at most (default 1000000)", "N");
  p.option("seed", "seed of the random search (default 1)", "S");
  declare_json_and_quiet(p);
  const auto a = p.parse(args);
  if (a.help()) return p.print_help();
  const SelectedUnit selected = required_unit(a);
  const Format& in = parse_format(a.get("in"), "--in");
  const Format& out = parse_format(a.get("out"), "--out");
  validation::MonotonicityOptions o;
  o.budget = static_cast<std::uint64_t>(a.get_int("budget", 1, 1ll << 40, 1000000));
  o.seed = a.get_uint64("seed", 1);
  Progress progress("tcsim monotonicity", !a.has("quiet"));
  o.progress = progress.hook("pairs x <= y");
  const validation::BlackBox box = validation::blackbox_from_unit(*selected.unit, in, out, a.get_or("instruction", ""));
  // Under mpirun each rank runs the unit on its share of the pairs (every P-th, distributed_items.hpp);
  // rank 0's progress is its walk through the whole sequence of pairs, which every rank walks.
  const std::vector<std::string> parts = map_parts([&](int part, int nparts) {
    validation::MonotonicityOptions mine = o;
    mine.part = static_cast<std::uint64_t>(part);
    mine.parts = static_cast<std::uint64_t>(nparts);
    if (part != 0) mine.progress = nullptr;
    return to_bytes(validation::search_monotonicity(box, mine));
  });
  const validation::MonotonicityResult r = merge(parts, o.keep);
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
