// tcsim fit: find the unit row that reproduces a dump of an unknown unit (docs/fit.md).
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "commands.hpp"
#include "tcsim/models/unit.hpp"
#include "tcsim/models/unit_json.hpp"
#include "tcsim/sim/format.hpp"
#include "tcsim/validation/dump_reader.hpp"
#include "tcsim/validation/dump_validate.hpp"
#include "tcsim/validation/fit.hpp"

namespace tcsim::cli {
namespace {

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// One case in hex: "case 12: a 3c00 ... b ... c 0x... d 0x...".
std::string case_text(const validation::DumpSet& d, std::size_t i) {
  std::string s = "case " + std::to_string(i + 1) + ": a";
  for (std::size_t t = 0; t < d.k; ++t) s += " " + hex(d.a[i * d.k + t]);
  s += ", b";
  for (std::size_t t = 0; t < d.k; ++t) s += " " + hex(d.b[i * d.k + t]);
  return s + ", c " + hex(d.c[i]) + ", d " + hex(d.d[i]);
}

}  // namespace

int cmd_fit(const Args& args) {
  ArgParser p("fit",
              "find a unit row (the schema --unit-config reads) that reproduces a dump d = c + sum a_i b_i of "
              "an unknown unit, by structured search over the row's parameters from the built-in rows of the "
              "format pair; prints the row, per parameter the deciding cases and the values that still fit; "
              "exit 0 when a row reproduces every case, 1 when only the closest rows are found");
  p.required("in", "input format of a and b (fp16, bf16, tf32, e4m3, e5m2, ...)", "fmt");
  p.required("out", "output format of c and d (fp32, fp16)", "fmt");
  p.required("a", "a file: K 8-hex-digit binary32 patterns per line", "file");
  p.required("b", "b file: as a", "file");
  p.option("c", "c file: one 32-character 0/1 binary32 pattern per line", "file");
  p.required("d", "d file: the unit's results, as c", "file");
  p.flag("zero-c", "use c = 0 instead of a c file");
  p.option("k", "fix the block FMA size k (products per block) instead of searching it", "K");
  p.option("base", "start only from this built-in unit's rows for the formats (default: every built-in row)", "unit");
  p.flag("json", "print the result as JSON");
  p.option("write-unit", "write the fitted row as a unit JSON file (for --unit-config)", "file");
  const auto a = p.parse(args);
  if (a.help()) return p.print_help();
  if (!a.has("zero-c") && !a.has("c"))
    throw std::invalid_argument("give the c file with --c, or --zero-c for a zero accumulator");
  if (a.has("zero-c") && a.has("c")) throw std::invalid_argument("--c and --zero-c exclude each other");
  validation::FitOptions opt;
  opt.fma_size = static_cast<int>(a.get_int("k", 1, 256, 0));
  const Format& in = parse_format(a.get("in"), "--in");
  const Format& out = parse_format(a.get("out"), "--out");
  if (a.has("base")) {
    const models::Unit* base = nullptr;
    try {
      base = &models::builtin_unit(a.get("base"));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("--base: ") + e.what());
    }
    try {
      opt.seeds.push_back(base->datapath(in, out));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("--base: ") + e.what());
    }
  }
  validation::DumpPaths paths{a.get("a"), a.get("b"), a.get_or("c", ""), a.get("d")};
  const auto c_input = a.has("zero-c") ? validation::AccumulatorInput::Zero : validation::AccumulatorInput::FromFile;
  const validation::DumpSet dump = validation::load_dump(paths, in, out, c_input);
  const validation::FitResult r = validation::fit_dump(dump, opt);

  // The fitted row through the same code as validate-dump (Unit::dot per case).
  const models::UnitSpec spec = validation::fitted_unit(r.best.row, "fitted");
  const models::Unit unit(spec);
  const auto check = validation::validate_dump(dump, [&](auto x, auto y, std::uint64_t c) { return unit.dot(in, out, x, y, c); });
  const nlohmann::json row = models::to_json(r.best.row, "fitted");
  if (a.has("write-unit")) {
    std::ofstream f(a.get("write-unit"));
    if (!f) throw std::invalid_argument("--write-unit: cannot write '" + a.get("write-unit") + "'");
    f << models::to_json(spec).dump(2) << "\n";
  }
  if (a.has("json")) {
    nlohmann::json j;
    j["exact"] = r.exact;
    j["row"] = row;
    j["cases"] = dump.n;
    j["mismatches"] = check.mismatches;
    j["evaluations"] = r.evaluations;
    j["case_evaluations"] = r.case_evaluations;
    j["seconds"] = r.seconds;
    j["parameters"] = nlohmann::json::array();
    for (const auto& f : r.parameters) {
      nlohmann::json pj{{"name", f.name}, {"value", f.value}, {"fitting", f.fitting}, {"decided", f.decided()}};
      pj["ruled_out"] = nlohmann::json::array();
      for (const auto& o : f.ruled_out) pj["ruled_out"].push_back({{"value", o.value}, {"case", o.case_index + 1}, {"text", case_text(dump, o.case_index)}});
      j["parameters"].push_back(pj);
    }
    j["closest"] = nlohmann::json::array();
    for (const auto& s : r.closest) {
      nlohmann::json cj{{"seed", s.seed}, {"mismatches", s.mismatches}, {"row", models::to_json(s.row, "fitted")}};
      cj["first_mismatches"] = nlohmann::json::array();
      for (auto i : s.first_mismatches) cj["first_mismatches"].push_back(case_text(dump, i));
      j["closest"].push_back(cj);
    }
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("fit %s -> %s, K = %zu, %zu cases: %s (from %s)\n", in.name.c_str(), out.name.c_str(), dump.k, dump.n,
                r.exact ? "a row reproduces every case" : "no row reproduces every case", r.best.seed.c_str());
    std::printf("row: %s\n", row.dump().c_str());
    if (r.exact) {
      for (const auto& f : r.parameters) {
        std::printf("%s = %s: %s", f.name.c_str(), f.value.c_str(), f.decided() ? "decided" : "undecided, fitting");
        if (!f.decided())
          for (const auto& v : f.fitting) std::printf(" %s", v.c_str());
        std::printf("\n");
        // Values ruled out by the same case share one line.
        for (std::size_t i = 0; i < f.ruled_out.size();) {
          std::string values = f.ruled_out[i].value;
          std::size_t j = i + 1;
          for (; j < f.ruled_out.size() && f.ruled_out[j].case_index == f.ruled_out[i].case_index; ++j)
            values += " " + f.ruled_out[j].value;
          std::printf("  not %s: %s\n", values.c_str(), case_text(dump, f.ruled_out[i].case_index).c_str());
          i = j;
        }
      }
    } else {
      for (const auto& s : r.closest) {
        std::printf("closest (from %s): %zu mismatches: %s\n", s.seed.c_str(), s.mismatches, models::to_json(s.row, "fitted").dump().c_str());
        for (auto i : s.first_mismatches) std::printf("  %s\n", case_text(dump, i).c_str());
      }
    }
    std::printf("%zu candidate rows, %zu case evaluations, %.2f s\n", r.evaluations, r.case_evaluations, r.seconds);
    std::printf("check through validate-dump's path: %s\n", validation::summary_line(check).c_str());
  }
  return check.mismatches == 0 ? 0 : 1;
}

}  // namespace tcsim::cli
