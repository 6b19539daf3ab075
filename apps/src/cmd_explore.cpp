// tcsim explore: sweeps a unit's datapath parameters over a GEMM workload and reports, per
// design, the error against the exact product (MPFR), monotonicity, and a hardware-cost
// proxy; writes the sweep (CSV), the error-against-cost plot with its Pareto front (PNG) and
// a summary (MD) through the experiment writer (experiment.hpp).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "distributed_items.hpp"
#include "item_bytes.hpp"
#include "commands.hpp"
#include "experiment.hpp"
#include "json_output.hpp"
#include "output_file.hpp"
#include "progress.hpp"
#include "unit_option.hpp"
#include "value_checks.hpp"
#include "tcsim/models/gemm.hpp"
#include "tcsim/reference/gemm_error.hpp"
#include "tcsim/validation/monotonicity.hpp"
#include "tcsim/validation/probe_blackbox.hpp"

namespace tcsim::cli {

namespace {

const char* const kKeys =
    "fraction_bits, carry_bits, fma_size, alignment_rounding, final_rounding, normalization, sticky_bit, "
    "product_groups, input_fraction_bits, after_add.sum_fraction_bits, after_add.c_fraction_bits, "
    "after_add.renormalize_fraction_bits";

// --vary key=values: "a..b" (integers) or "x,y,z".
std::pair<std::string, std::vector<std::string>> parse_vary(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw std::invalid_argument("--vary: expected key=values (e.g. fraction_bits=10..30 or alignment_rounding=rz,rne), got '" +
                                text + "'");
  const std::string key = text.substr(0, eq), values = text.substr(eq + 1);
  if (std::string(kKeys).find(key) == std::string::npos || key.find(',') != std::string::npos)
    throw std::invalid_argument("--vary: '" + key + "' is not a parameter; allowed: " + kKeys);
  std::vector<std::string> out;
  const auto dots = values.find("..");
  if (dots != std::string::npos) {
    std::size_t used_a = 0, used_b = 0;
    int a = 0, b = 0;
    try {
      a = std::stoi(values.substr(0, dots), &used_a);
      b = std::stoi(values.substr(dots + 2), &used_b);
    } catch (const std::exception&) {
      used_a = 0;
    }
    if (used_a != dots || used_b != values.size() - dots - 2 || a > b || b - a > 200)
      throw std::invalid_argument("--vary " + key + ": '" + values + "' is not a range a..b of integers (at most 201 values)");
    for (int v = a; v <= b; ++v) out.push_back(std::to_string(v));
  } else {
    std::size_t start = 0;
    while (start <= values.size()) {
      const auto comma = values.find(',', start);
      out.push_back(values.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return {key, out};
}

int to_int(const std::string& key, const std::string& v) {
  std::size_t used = 0;
  int x = 0;
  try {
    x = std::stoi(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || v.empty()) throw std::invalid_argument("--vary " + key + ": '" + v + "' is not an integer");
  return x;
}

// An integer key's value, refused by the range rule of a unit row (models::row_int_range: the
// JSON reader's and Unit's rule) with the option named: "--vary fma_size: 0 is out of range;
// allowed: 1..65536".
int row_int(const std::string& key, const std::string& value) {
  const int x = to_int(key, value);
  if (const std::string why = models::row_int_refusal(key, x); !why.empty())
    throw std::invalid_argument("--vary " + key + ": " + why);
  return x;
}

// The row serving in -> out with `key` set to `value` (errors name the key).
void apply(models::DatapathSpec& row, const std::string& out, const std::string& key, const std::string& value) {
  if (key == "fraction_bits") row.fraction_bits = row_int(key, value);
  else if (key == "carry_bits") row.carry_bits = row_int(key, value);
  else if (key == "fma_size") row.fma_size = row_int(key, value);
  else if (key == "alignment_rounding") row.alignment_rounding = checks::rounding_word(value, "--vary alignment_rounding",
                                                                      {Rounding::TowardZero, Rounding::Down, Rounding::Up, Rounding::NearestEven});
  else if (key == "final_rounding") row.final_rounding[out] = checks::rounding_word(value, "--vary final_rounding");
  else if (key == "normalization") row.normalization = parse_normalization(value, "--vary normalization");
  else if (key == "product_groups") row.product_groups = to_int(key, value);
  else if (key == "input_fraction_bits") row.input_fraction_bits = to_int(key, value);
  else if (key == "after_add.sum_fraction_bits") row.after_add.sum_fraction_bits = to_int(key, value);
  else if (key == "after_add.c_fraction_bits") row.after_add.c_fraction_bits = to_int(key, value);
  else if (key == "after_add.renormalize_fraction_bits")  // "none": v1 (no renormalization)
    row.after_add.renormalize_fraction_bits = value == "none" ? std::nullopt : std::optional<int>(to_int(key, value));
  else if (key == "sticky_bit") {
    if (value != "true" && value != "false") throw std::invalid_argument("--vary sticky_bit: '" + value + "': allowed true, false");
    row.sticky_bit = value == "true";
  }
}

struct Workload {
  std::size_t k = 4096, m = 8, n = 8;
  std::string dist = "uniform01";
};

Workload parse_workload(const std::string& text) {
  Workload w;
  std::vector<std::string> seen;  // a key given twice is refused, not silently the last
  if (text.rfind("gemm", 0) != 0) throw std::invalid_argument("--workload: '" + text + "': allowed gemm[:k=K,m=M,n=N,dist=D]");
  std::string rest = text.size() > 4 && text[4] == ':' ? text.substr(5) : text.substr(4);
  std::size_t start = 0;
  while (!rest.empty() && start < rest.size()) {
    const auto comma = rest.find(',', start);
    const std::string item = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto eq = item.find('=');
    const std::string key = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      throw std::invalid_argument("--workload: key '" + key + "' is given more than once in '" + text +
                                  "'; give each of k, m, n, dist at most once");
    seen.push_back(key);
    if (key == "k" || key == "m" || key == "n") {
      const int v = to_int("--workload " + key, value);
      if (v < 1 || v > (key == "k" ? 1 << 22 : 4096))
        throw std::invalid_argument("--workload " + key + ": " + value + " is out of range");
      (key == "k" ? w.k : key == "m" ? w.m : w.n) = static_cast<std::size_t>(v);
    } else if (key == "dist") {
      if (value != "uniform01" && value != "uniform-11")
        throw std::invalid_argument("--workload dist: '" + value + "': allowed uniform01, uniform-11");
      w.dist = value;
    } else {
      throw std::invalid_argument("--workload: '" + key + "' is not allowed; allowed: k, m, n, dist");
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return w;
}

}  // namespace

int cmd_explore(const Args& args) {
  namespace ex = experiments;
  ArgParser p("explore",
              "sweep a unit's datapath parameters over a GEMM workload: per design the componentwise and normwise "
              "errors against the exact product (MPFR), monotonicity (a budgeted search), and a hardware-cost proxy "
              "(adder width, aligned terms, shifter width); writes DIR/explore.csv, the error-against-cost plot with "
              "its Pareto front (DIR/explore.png) and DIR/explore.md");
  p.option("base", "built-in unit the designs start from", "name");
  p.option("unit-config", "user-defined unit to start from (JSON)", "file");
  p.option("in", "input format (default fp16)", "fmt");
  p.option("out", "output format (default fp32)", "fmt");
  p.option("instruction", "the row of in -> out (default: the unit's default)", "name");
  p.multi_option("vary", std::string("a parameter and its values, repeatable: key=a..b or key=x,y (keys: ") + kKeys + ")",
                 "key=values");
  p.option("workload", "gemm[:k=K,m=M,n=N,dist=uniform01|uniform-11] (default gemm:k=4096,m=8,n=8,dist=uniform01)",
           "spec");
  p.option("monotonicity-budget", "pairs tried per design (default 2000; 0: skip)", "N");
  p.option("out-dir", "output folder (default tcsim-explore)", "DIR");
  p.option("seed", "seed of the workload (default 1)", "S");
  p.option("threads", "threads (default 0: all cores)", "T");
  declare_json_and_quiet(p);
  const auto a = p.parse(args);
  if (a.help()) return p.print_help();
  if (a.has("base") == a.has("unit-config")) throw std::invalid_argument("give exactly one of --base and --unit-config");
  models::UnitSpec base;
  std::shared_ptr<const models::Unit> loaded;
  if (a.has("base")) {
    try {
      base = models::builtin_unit(a.get("base")).spec();
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("--base: ") + e.what());
    }
  }
  else base = models::load_unit_json(a.get("unit-config"));
  const Format& in = parse_format(a.get_or("in", "fp16"), "--in");
  const Format& out = parse_format(a.get_or("out", "fp32"), "--out");
  const std::string instruction = a.get_or("instruction", "");
  const Workload w = parse_workload(a.get_or("workload", "gemm"));
  const long long mono_budget = a.get_int("monotonicity-budget", 0, 1 << 24, 2000);
  const std::uint64_t seed = a.get_uint64("seed", 1);
  const unsigned threads = static_cast<unsigned>(a.get_int("threads", 0, 1024, 0));
  const bool json = a.has("json");

  // The row to vary: the one the base unit uses for in -> out.
  const models::Unit base_unit(base);
  const models::DatapathSpec& used = base_unit.datapath(in, out, instruction);
  std::size_t row_index = 0;
  while (row_index < base.datapaths.size() && !(base.datapaths[row_index] == used)) ++row_index;
  std::vector<std::pair<std::string, std::vector<std::string>>> varies;
  for (const std::string& v : a.get_all("vary")) {
    auto parsed = parse_vary(v);
    for (const auto& [key, values] : varies)
      if (key == parsed.first)
        throw std::invalid_argument("--vary: '" + key + "' is varied more than once; give each parameter once with all "
                                    "its values (e.g. --vary " + key + "=x,y)");
    varies.push_back(std::move(parsed));
  }
  std::size_t designs = 1;
  for (const auto& [key, values] : varies) designs *= values.size();
  if (designs > 5000) throw std::invalid_argument("--vary: " + std::to_string(designs) + " designs; at most 5000");

  // The workload, once.
  const double lo = w.dist == "uniform01" ? 0 : -1;
  const std::vector<double> A = ex::uniform_f32(w.m * w.k, lo, 1, seed, 1), B = ex::uniform_f32(w.k * w.n, lo, 1, seed, 2);

  struct Design {
    std::map<std::string, std::string> params;
    std::string error;  // invalid design: the unit's message
    double componentwise = 0, normwise = 0;
    std::optional<bool> monotonic;  // empty: not checked (--monotonicity-budget 0)
    double adder_bits = 0, aligned_terms = 0, shifter_bits = 0;
    bool pareto = false;
  };
  std::vector<Design> out_designs;
  const std::string dir = a.get_or("out-dir", "tcsim-explore");
  on_rank0([&] { prepare_output_folder("--out-dir", dir); });  // before computing
  Progress progress("tcsim explore", !a.has("quiet"));
  // Design d: digit v of d in the mixed radix of the varied values (the first fastest) picks
  // the value of parameter v; its unit and cost proxy follow.
  auto layout = [&](std::size_t d, models::UnitSpec& spec) {
    Design des;
    spec = base;
    spec.name = base.name + "-explore";
    for (std::size_t v = 0, rest = d; v < varies.size(); rest /= varies[v].second.size(), ++v) {
      const std::string& value = varies[v].second[rest % varies[v].second.size()];
      des.params[varies[v].first] = value;
      apply(spec.datapaths[row_index], out.name, varies[v].first, value);
    }
    // Cost proxy: k + 1 aligned terms (products and c), each (F + 1 + carry) bits wide in
    // the adder, each shifted across a window of F + 2 p_in bits.
    const models::DatapathSpec& row = spec.datapaths[row_index];
    des.aligned_terms = row.fma_size + 1;
    // fraction_bits "exact" (AMD CDNA1): the F the unit computes for these formats.
    const int F = row.fraction_bits != models::DatapathSpec::kExactFractionBits
                      ? row.fraction_bits
                      : models::make_adder_config(row, in, out).fraction_bits;
    des.adder_bits = des.aligned_terms * (F + 1 + row.carry_bits);
    des.shifter_bits = des.aligned_terms * (F + 2 * in.precision);
    return des;
  };
  // Every design, checked before any work: each value by the rules of a unit row (as a unit
  // JSON file's row is checked), then the whole row by Unit's constructor (rules that tie keys
  // together, e.g. an even fma_size for pairs-mod4 rows); an invalid design is refused.
  for (const auto& [key, values] : varies)
    for (const std::string& value : values) {
      models::DatapathSpec row = base.datapaths[row_index];
      apply(row, out.name, key, value);
    }
  for (std::size_t d = 0; d < designs; ++d) {
    progress.update("checking the designs", d, designs);
    models::UnitSpec spec;
    const Design des = layout(d, spec);
    try {
      models::Unit checked(spec);
    } catch (const std::invalid_argument& e) {
      std::string named;
      for (const auto& [key, values] : varies) named += (named.empty() ? "" : ", ") + key + "=" + des.params.at(key);
      throw std::invalid_argument("--vary: the design " + (named.empty() ? base.name : named) + " is invalid: " + e.what());
    }
  }
  // Each design is a work item (under mpirun on rank d mod P, distributed_items.hpp); its
  // numbers come back as bytes, bit for bit.
  auto run = [&](std::size_t d) {
    models::UnitSpec spec;
    Design des = layout(d, spec);
    try {
      const auto unit = std::make_shared<const models::Unit>(spec);
      models::GemmOptions o;
      o.instruction = instruction;
      o.threads = threads;
      const models::GemmResult r = models::simulate_gemm(*unit, in, out, w.m, w.n, w.k, A, B, {}, o);
      const reference::GemmErrors e = reference::gemm_errors(w.m, w.n, w.k, A, B, {}, r.D, {}, threads);
      des.componentwise = e.componentwise;
      des.normwise = e.normwise;
      if (mono_budget > 0) {
        validation::MonotonicityOptions mo;
        mo.budget = static_cast<std::uint64_t>(mono_budget);
        des.monotonic = validation::search_monotonicity(validation::blackbox_from_unit(unit, in, out, instruction), mo).monotonic;
      }
    } catch (const std::invalid_argument& e) {
      des.error = e.what();
    }
    ItemWriter bytes;
    bytes.put(des.error).put(des.componentwise).put(des.normwise).put(des.monotonic ? int{*des.monotonic} : -1);
    return bytes.take();
  };
  const std::vector<std::string> results =
      map_items(designs, run, [&](std::size_t done, std::size_t total) { progress.update("designs", done, total); });
  for (std::size_t d = 0; d < designs; ++d) {
    models::UnitSpec spec;
    Design des = layout(d, spec);
    ItemReader bytes(results[d]);
    des.error = bytes.get_string();
    des.componentwise = bytes.get<double>();
    des.normwise = bytes.get<double>();
    if (const int monotonic = bytes.get<int>(); monotonic >= 0) des.monotonic = monotonic == 1;
    out_designs.push_back(des);
  }
  progress.done();
  // Pareto front over (adder bits, componentwise error): no other valid design is at most
  // as costly and at most as wrong, and better in one.
  for (auto& x : out_designs) {
    if (!x.error.empty()) continue;
    x.pareto = std::none_of(out_designs.begin(), out_designs.end(), [&](const Design& y) {
      return y.error.empty() && y.adder_bits <= x.adder_bits && y.componentwise <= x.componentwise &&
             (y.adder_bits < x.adder_bits || y.componentwise < x.componentwise);
    });
  }

  ex::Result r;
  ex::Series all, front;
  all.label = "designs";
  all.scatter = true;
  front.label = "Pareto front";
  std::vector<const Design*> fr;
  for (const auto& x : out_designs)
    if (x.error.empty()) {
      all.x.push_back(x.adder_bits);
      all.y.push_back(x.componentwise);
      if (x.pareto) fr.push_back(&x);
    }
  std::sort(fr.begin(), fr.end(), [](const Design* x, const Design* y) { return x->adder_bits < y->adder_bits; });
  for (const Design* x : fr) {
    front.x.push_back(x->adder_bits);
    front.y.push_back(x->componentwise);
  }
  r.figure.title = "explore: " + base.name + " " + in.name + " -> " + out.name + ", GEMM k = " + std::to_string(w.k) + ", " +
                   w.dist;
  r.figure.xlabel = "adder bits (k + 1 terms x (F + 1 + carry bits))";
  r.figure.ylabel = "componentwise error";
  r.figure.logx = false;
  r.figure.series = {all, front};
  r.table_header.clear();
  std::string table = "|";
  for (const auto& [key, values] : varies) table += " " + key + " |";
  table += " componentwise | normwise | monotonic | adder bits | aligned terms | shifter bits | Pareto |\n|";
  for (std::size_t i = 0; i < varies.size() + 7; ++i) table += "---|";
  table += "\n";
  nlohmann::json jd = nlohmann::json::array();
  for (const auto& x : out_designs) {
    table += "|";
    for (const auto& [key, values] : varies) table += " " + x.params.at(key) + " |";
    char buf[200];
    if (x.error.empty())
      std::snprintf(buf, sizeof buf, " %.3g | %.3g | %s | %.0f | %.0f | %.0f | %s |\n", x.componentwise, x.normwise,
                    !x.monotonic ? "not checked" : *x.monotonic ? "yes" : "no", x.adder_bits, x.aligned_terms, x.shifter_bits, x.pareto ? "yes" : "");
    else
      std::snprintf(buf, sizeof buf, " invalid | | | %.0f | %.0f | %.0f | |\n", x.adder_bits, x.aligned_terms, x.shifter_bits);
    table += buf;
    nlohmann::json j = x.params;
    if (x.error.empty()) {
      j["componentwise_error"] = x.componentwise;
      j["normwise_error"] = x.normwise;
      // null when the search was skipped: "not checked" is no claim either way.
      j["monotonic"] = x.monotonic ? nlohmann::json(*x.monotonic) : nlohmann::json(nullptr);
    } else {
      j["invalid"] = x.error;
    }
    j["adder_bits"] = x.adder_bits;
    j["aligned_terms"] = x.aligned_terms;
    j["shifter_bits"] = x.shifter_bits;
    j["pareto"] = x.pareto;
    jd.push_back(j);
  }
  r.paper = "A design exploration (issue 9), not a paper's figure.";
  r.simulated = "Every design of the sweep (the row " + (used.instruction.empty() ? std::string("(default)") : used.instruction) +
                " of " + base.name + " with the varied parameters):\n\n" + table;
  r.setting = "Workload: A (" + std::to_string(w.m) + " x " + std::to_string(w.k) + ") B (" + std::to_string(w.k) + " x " +
              std::to_string(w.n) + "), binary32 entries " + w.dist + ", seed " + std::to_string(seed) +
              ", C = 0; errors against MPFR's exact product; monotonicity: " +
              (mono_budget > 0 ? std::to_string(mono_budget) + " pairs per design (tcsim monotonicity's searches)."
                               : std::string("not checked (--monotonicity-budget 0)."));
  ex::Experiment e{"explore", "design sweep of " + base.name + " " + in.name + " -> " + out.name, nullptr};
  ex::Context c;
  c.quick = false;
  c.seed = seed;
  std::string tool;
  on_rank0([&] { tool = ex::write_outputs(e, r, c, dir, "--out-dir"); });  // rank 0 writes
  if (json) {
    nlohmann::json j;
    j["base"] = base.name;
    j["in"] = in.name;
    j["out"] = out.name;
    j["designs"] = jd;
    j["csv"] = dir + "/explore.csv";
    j["png"] = dir + "/explore.png";
    j["md"] = dir + "/explore.md";
    j["plot_tool"] = tool;
    print_json(j);
  } else {
    std::printf("%zu designs of %s %s -> %s; Pareto front (adder bits, componentwise error):\n", out_designs.size(),
                base.name.c_str(), in.name.c_str(), out.name.c_str());
    for (const Design* x : fr) {
      std::printf("  %5.0f bits  %.3g ", x->adder_bits, x->componentwise);
      for (const auto& [key, value] : x->params) std::printf(" %s=%s", key.c_str(), value.c_str());
      std::printf("\n");
    }
    std::printf("wrote %s/explore.csv, %s/explore.png (%s), %s/explore.md\n", dir.c_str(), dir.c_str(), tool.c_str(),
                dir.c_str());
  }
  return 0;
}

}  // namespace tcsim::cli
