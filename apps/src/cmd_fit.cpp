// tcsim fit: find the unit row that reproduces a dump of an unknown unit (docs/fit.md).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <sstream>
#include <tuple>
#include <vector>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "commands.hpp"
#include "fit_progress.hpp"
#include "output_file.hpp"
#include "progress.hpp"
#include "tcsim/models/unit.hpp"
#include "tcsim/models/unit_json.hpp"
#include "tcsim/sim/format.hpp"
#include "tcsim/validation/dump_reader.hpp"
#include "tcsim/validation/dump_validate.hpp"
#include "tcsim/validation/fit.hpp"
#include "tcsim/validation/fit_certainty.hpp"
#include "tcsim/validation/fit_json.hpp"
#include "tcsim/validation/fit_suggest.hpp"

namespace tcsim::cli {
namespace {

struct DumpSource {
  std::string in, out, a, b, c, d;  // c "" or "zero": c = 0
  std::string where;                 // "--in" style prefix for messages, or "--dumps: file:line: "
};

// The --dumps list: one dump per line, "<in> <out> <a> <b> <c|zero> <d>", paths relative to
// the list's folder, '#' comments and blank lines ignored.
std::vector<DumpSource> read_dump_list(const std::string& path) {
  std::string text;
  try {
    text = validation::read_text_file(path);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--dumps: ") + e.what());
  }
  const std::filesystem::path base = std::filesystem::path(path).parent_path();
  auto resolve = [&](const std::string& f) {
    const std::filesystem::path q(f);
    return q.is_absolute() || base.empty() ? f : (base / q).string();
  };
  std::vector<DumpSource> v;
  std::istringstream lines(text);
  std::string line;
  for (std::size_t n = 1; std::getline(lines, line); ++n) {
    if (auto h = line.find('#'); h != std::string::npos) line.erase(h);
    std::istringstream w(line);
    std::vector<std::string> f;
    for (std::string x; w >> x;) f.push_back(x);
    if (f.empty()) continue;
    const std::string where = "--dumps: " + validation::file_name_of(path) + ":" + std::to_string(n) + ": ";
    if (f.size() != 6)
      throw std::invalid_argument(where + "expected 6 fields '<in> <out> <a> <b> <c|zero> <d>', got " + std::to_string(f.size()));
    v.push_back({f[0], f[1], resolve(f[2]), resolve(f[3]), f[4] == "zero" ? "zero" : resolve(f[4]), resolve(f[5]), where});
  }
  if (v.empty()) throw std::invalid_argument("--dumps: '" + validation::file_name_of(path) + "' lists no dump");
  return v;
}

// The dumps of --in/--out/--a/--b/--c/--d (repeated: one group per dump) and --dumps.
std::vector<DumpSource> dump_sources(const ParsedArgs& a) {
  std::vector<DumpSource> v;
  const auto as = a.get_all("a"), bs = a.get_all("b"), cs = a.get_all("c"), ds = a.get_all("d");
  const auto ins = a.get_all("in"), outs = a.get_all("out");
  const std::size_t n = as.size();
  if (n == 0 && !a.has("dumps"))
    throw std::invalid_argument("give a dump with --in, --out, --a, --b, --c (or --zero-c) and --d, or a list of dumps with --dumps");
  if (n > 0) {
    if (bs.size() != n || ds.size() != n)
      throw std::invalid_argument("give one --a, --b and --d per dump: got " + std::to_string(n) + " --a, " +
                                  std::to_string(bs.size()) + " --b, " + std::to_string(ds.size()) + " --d");
    if (!a.has("zero-c") && cs.empty()) throw std::invalid_argument("give the c file with --c, or --zero-c for a zero accumulator");
    if (a.has("zero-c") && !cs.empty()) throw std::invalid_argument("--c and --zero-c exclude each other");
    if (!cs.empty() && cs.size() != n)
      throw std::invalid_argument("--c: give one c file (or 'zero') per dump (" + std::to_string(n) + " dumps), got " +
                                  std::to_string(cs.size()));
    for (const auto& [name, list] : {std::pair{"--in", &ins}, std::pair{"--out", &outs}}) {
      if (list->empty()) throw std::invalid_argument(std::string("give ") + name + " (the " + (name[2] == 'i' ? "input" : "output") + " format)");
      if (list->size() != 1 && list->size() != n)
        throw std::invalid_argument(std::string(name) + ": give one format for all dumps or one per dump (" + std::to_string(n) +
                                    " dumps), got " + std::to_string(list->size()));
    }
    for (std::size_t i = 0; i < n; ++i)
      v.push_back({ins[ins.size() == 1 ? 0 : i], outs[outs.size() == 1 ? 0 : i], as[i], bs[i],
                   cs.empty() ? "zero" : cs[i], ds[i], ""});
  } else {
    for (const char* o : {"in", "out", "b", "c", "d", "zero-c"})
      if (a.has(o)) throw std::invalid_argument(std::string("--") + o + " belongs to a dump given with --a; with --dumps the list gives every file");
  }
  if (a.has("dumps"))
    for (auto& s : read_dump_list(a.get("dumps"))) v.push_back(std::move(s));
  return v;
}

validation::DumpSet load_source(const DumpSource& s) {
  auto fmt = [&](const std::string& name, const char* opt) -> const Format& {
    if (s.where.empty()) return parse_format(name, opt);
    try {
      return parse_format(name, opt + 2);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(s.where + e.what());
    }
  };
  const Format& in = fmt(s.in, "--in");
  const Format& out = fmt(s.out, "--out");
  for (const auto& [f, opt] : {std::pair{&in, "--in"}, std::pair{&out, "--out"}})
    if (const std::string why = validation::fit_format_refusal(*f); !why.empty())
      throw std::invalid_argument(s.where + (s.where.empty() ? opt : opt + 2) + std::string(": ") + why);
  const bool zero = s.c == "zero";
  validation::DumpPaths paths{s.a, s.b, zero ? "" : s.c, s.d};
  try {
    return validation::load_dump(paths, in, out, zero ? validation::AccumulatorInput::Zero : validation::AccumulatorInput::FromFile);
  } catch (const std::invalid_argument& e) {
    if (s.where.empty()) throw;
    throw std::invalid_argument(s.where + e.what());
  }
}

}  // namespace

int cmd_fit(const Args& args) {
  ArgParser p("fit",
              "find a unit row (the schema --unit-config reads) that reproduces dumps d = c + sum a_i b_i of "
              "an unknown unit, by structured search over the row's parameters from the built-in rows of the "
              "format pair; prints the row, per parameter the deciding cases and the values that still fit, and how "
              "sure it is (whether the rows that also fit answer alike on fresh cases); "
              "--suggest writes the inputs that would split the rows that still fit; "
              "exit 0 when a row reproduces every case, 1 when only the closest rows are found");
  p.multi_option("in", "input format of a and b (fp16, bf16, tf32, e4m3, e5m2, ...); one for all dumps or one per dump", "fmt");
  p.multi_option("out", "output format of c and d (fp32, fp16); one for all dumps or one per dump", "fmt");
  p.multi_option("a", "a file: K 8-hex-digit binary32 patterns per line; repeat --a --b --c --d for more dumps of the unit", "file");
  p.multi_option("b", "b file: as a (one per --a)", "file");
  p.multi_option("c", "c file: one 32-character 0/1 binary32 pattern per line, or 'zero' (one per --a)", "file");
  p.multi_option("d", "d file: the unit's results, as c (one per --a)", "file");
  p.flag("zero-c", "use c = 0 for every dump instead of c files");
  p.option("dumps", "a list of dumps, one per line: '<in> <out> <a> <b> <c|zero> <d>' (paths relative to the list)", "file");
  p.option("k", "fix the block FMA size k (products per block) instead of searching it", "K");
  p.option("instruction-k", "the K of one instruction (K_i) when it differs from the block FMA size: the dumps' K "
                            "is chained by instructions of K_i products; the row names the shape fit.m16n16k<K_i>", "K_i");
  p.option("base", "start only from this built-in unit's rows for the formats (default: every built-in row)", "unit");
  p.flag("json", "print the result as JSON");
  p.option("write-unit", "write the fitted row as a unit JSON file (for --unit-config)", "file");
  p.option("suggest", "write N input cases per format pair that split the rows still fitting (with --suggest-dir)", "N");
  p.option("suggest-dir", "folder for the suggested a/b/c files (mma_dump --inputs reads them)", "dir");
  p.option("seed", "seed of the suggested cases' pool and of the 'how sure' check's (default 1)", "S");
  p.flag("no-certainty", "skip the 'how sure' check: the rows that also reproduce every case run on fresh cases "
                         "(the pool of --suggest 1000), and the changes the dumps cannot decide are listed (1-45 s)");
  p.option("budget", "the search's work budget in cases run through candidate rows (1000..100000000000): the same "
                     "report on any machine at any load (default: none, the --seconds limit alone)", "N");
  p.option("seconds", "time limit of the search, 1..3600 (default 90; with --budget a cap, default 120)", "S");
  p.flag("quiet", "no progress lines on stderr");
  const auto a = p.parse(args);
  if (a.help()) return p.print_help();
  validation::FitOptions opt;
  opt.fma_size = static_cast<int>(a.get_int("k", 1, 256, 0));
  opt.instruction_k = static_cast<int>(a.get_int("instruction-k", 1, 256, 0));
  // The ranges and defaults of bench fit's --fit-budget and --fit-seconds (docs/fit.md).
  opt.work_budget = static_cast<std::size_t>(a.get_int("budget", 1000, 100000000000LL, 0));
  opt.time_limit_seconds = static_cast<double>(a.get_int("seconds", 1, 3600, opt.work_budget ? 120 : 90));
  const std::size_t suggest = static_cast<std::size_t>(a.get_int("suggest", 1, 100000, 0));
  if (a.has("suggest") != a.has("suggest-dir"))
    throw std::invalid_argument(a.has("suggest") ? "--suggest needs --suggest-dir <dir> (where the a/b/c files are written)"
                                                 : "--suggest-dir needs --suggest <N> (the number of cases)");
  const std::uint64_t seed = a.get_uint64("seed", 1);
  const models::Unit* base = nullptr;
  if (a.has("base")) {
    try {
      base = &models::builtin_unit(a.get("base"));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("--base: ") + e.what());
    }
  }
  std::vector<validation::DumpSet> dumps;
  for (const auto& src : dump_sources(a)) dumps.push_back(load_source(src));
  // The outputs are checked before the search, which may take its whole time limit.
  if (a.has("write-unit")) check_output_file("--write-unit", a.get("write-unit"));
  if (suggest > 0) prepare_output_folder("--suggest-dir", a.get("suggest-dir"));
  const Format in = dumps.front().in;
  const Format out = dumps.front().out;
  if (base) {
    try {
      opt.seeds.push_back(base->datapath(in, out));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("--base: ") + e.what());
    }
  }
  Progress progress("tcsim fit", !a.has("quiet"));
  const std::string search_phase = fit_search_phase(opt);
  opt.progress = [&](double used) { progress.update(search_phase, used); };
  const validation::FitResult r = validation::fit_dumps(dumps, opt);
  progress.update("checking the row through validate-dump's path", 0, dumps.size());

  // The fitted row through the same code as validate-dump (Unit::dot per case).
  const models::UnitSpec spec = validation::fitted_unit(r.best.row, "fitted");
  const models::Unit unit(spec);
  validation::ValidationResult check;
  for (const auto& dump : dumps) {
    const auto c = validation::validate_dump(dump, [&](auto x, auto y, std::uint64_t cv) { return unit.dot(dump.in, dump.out, x, y, cv, validation::fit_instruction(r.best.row)); });
    check.cases += c.cases;
    check.mismatches += c.mismatches;
    progress.update("checking the row through validate-dump's path", &dump - dumps.data() + 1, dumps.size());
  }
  const nlohmann::json row = models::to_json(r.best.row, "fitted");
  if (a.has("write-unit")) write_file("--write-unit", a.get("write-unit"), models::to_json(spec).dump(2) + "\n");
  // --suggest: per (in, out, K) of the dumps, the cases that split the rows still fitting.
  struct Written {
    validation::SuggestedCases cases;
    std::string dir;
    std::vector<std::string> files;
  };
  std::vector<Written> written;
  std::size_t candidates = 0;
  if (suggest > 0 && r.exact) {
    const auto rows = validation::fitting_rows(r, dumps);
    candidates = rows.size();
    std::vector<std::tuple<std::string, std::string, std::size_t>> groups;
    for (const auto& d : dumps) {
      auto g = std::make_tuple(d.in.name, d.out.name, d.k);
      if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
    }
    for (std::size_t i = 0; i < groups.size(); ++i) {
      progress.update("suggesting cases that split the fitting rows", i, groups.size());
      const auto& [gi, go, gk] = groups[i];
      const std::string dir = groups.size() == 1 ? a.get("suggest-dir")
                                                 : a.get("suggest-dir") + "/" + gi + "-" + go + "-k" + std::to_string(gk);
      Written w{validation::suggest_cases(rows, parse_format(gi), parse_format(go), gk, suggest, seed + i), dir, {}};
      try {
        w.files = validation::write_case_files(w.cases, dir, "FIT");
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string("--suggest-dir: ") + e.what());
      }
      written.push_back(std::move(w));
    }
  }
  // How sure: the loop's first suggestion (1,000 cases per pair); --suggest 1000 made it already.
  std::optional<validation::FitCertainty> certainty;
  if (!a.has("no-certainty")) {
    if (!written.empty() && suggest == 1000) {
      std::vector<validation::SuggestedCases> made;
      for (const auto& w : written) made.push_back(w.cases);
      certainty = validation::certainty_of(made, r);
    } else {
      certainty = validation::fit_certainty(r, dumps, seed, progress.hook(kFitCertaintyPhase));
    }
  }
  progress.done();
  if (a.has("json")) {
    nlohmann::json j = validation::fit_report_json(r, dumps);
    j["mismatches"] = check.mismatches;
    if (certainty) j["certainty"] = validation::certainty_json(*certainty);
    if (suggest > 0) {
      nlohmann::json sj{{"fitting_rows", candidates}, {"sets", nlohmann::json::array()}};
      for (const auto& w : written)
        sj["sets"].push_back({{"in", w.cases.in.name}, {"out", w.cases.out.name}, {"k", w.cases.k}, {"cases", w.cases.n},
                              {"classes", w.cases.classes}, {"pool", w.cases.pool}, {"files", w.files}});
      j["suggest"] = sj;
    }
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    for (const auto& d : dumps)
      std::printf("fit %s -> %s, K = %zu, %zu cases\n", d.in.name.c_str(), d.out.name.c_str(), d.k, d.n);
    std::printf("%s (from %s)\n", r.exact ? "a row reproduces every case" : "no row reproduces every case", r.best.seed.c_str());
    std::printf("row: %s\n", row.dump().c_str());
    if (r.exact) {
      for (const auto& f : r.parameters) {
        std::printf("%s = %s: %s", f.name.c_str(), f.value.c_str(), f.decided() ? "decided" : "undecided, fitting");
        if (!f.decided())
          for (const auto& v : f.fitting) std::printf(" %s", v.c_str());
        std::printf("\n");
        if (!f.coupled.empty()) {  // exact rows near it that change this key together with others
          std::printf("  also fitting with other changes:");
          for (const auto& v : f.coupled) std::printf(" %s;", v.c_str());
          std::printf("\n");
        }
        // Values ruled out by the same case share one line.
        for (std::size_t i = 0; i < f.ruled_out.size();) {
          std::string values = f.ruled_out[i].value;
          std::size_t j = i + 1;
          for (; j < f.ruled_out.size() && f.ruled_out[j].case_index == f.ruled_out[i].case_index &&
                 f.ruled_out[j].dump == f.ruled_out[i].dump;
               ++j)
            values += " " + f.ruled_out[j].value;
          std::printf("  not %s: %s\n", values.c_str(), validation::fit_case_text(dumps, f.ruled_out[i].dump, f.ruled_out[i].case_index).c_str());
          i = j;
        }
        if (!f.not_applicable.empty()) {
          std::string values;
          for (const auto& v : f.not_applicable) values += " " + v;
          std::printf("  not applicable with the other parameters:%s\n", values.c_str());
        }
      }
    } else {
      for (const auto& s : r.closest) {
        std::printf("closest (from %s): %zu mismatches: %s\n", s.seed.c_str(), s.mismatches, models::to_json(s.row, "fitted").dump().c_str());
        for (const auto& c : s.first_mismatches) std::printf("  %s\n", validation::fit_case_text(dumps, c.dump, c.index).c_str());
      }
    }
    if (certainty)
      for (const auto& line : validation::certainty_lines(*certainty)) std::printf("%s\n", line.c_str());
    std::printf("%zu candidate rows, %zu case evaluations, %.2f s\n", r.evaluations, r.case_evaluations, r.seconds);
    if (suggest > 0 && !r.exact) std::printf("suggest: no row reproduces every case, so there is nothing to split; no files written\n");
    for (const auto& w : written) {
      std::printf("suggest %s -> %s, K = %zu: %zu cases tell the %zu fitting rows apart into %zu groups (pool %zu)\n",
                  w.cases.in.name.c_str(), w.cases.out.name.c_str(), w.cases.k, w.cases.n, candidates, w.cases.classes, w.cases.pool);
      for (const auto& f : w.files) std::printf("  wrote %s\n", f.c_str());
    }
    std::printf("check through validate-dump's path: %s\n", validation::summary_line(check).c_str());
  }
  return check.mismatches == 0 ? 0 : 1;
}

}  // namespace tcsim::cli
