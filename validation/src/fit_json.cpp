// tcsim fit's report as JSON (the CLI's --json, Python's tcsim.fit): see fit_json.hpp.
#include "tcsim/validation/fit_json.hpp"

#include <cstdio>

#include "tcsim/models/unit_json.hpp"

namespace tcsim::validation {
namespace {

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

// One case in hex: "case 12: a 3c00 ... b ... c 0x... d 0x..."; with several dumps
// "dump 2 case 12: ...".
std::string fit_case_text(const std::vector<DumpSet>& dumps, std::size_t j, std::size_t i) {
  const DumpSet& d = dumps[j];
  std::string s = (dumps.size() > 1 ? "dump " + std::to_string(j + 1) + " " : std::string()) + "case " + std::to_string(i + 1) + ": a";
  for (std::size_t t = 0; t < d.k; ++t) s += " " + hex(d.a[i * d.k + t]);
  s += ", b";
  for (std::size_t t = 0; t < d.k; ++t) s += " " + hex(d.b[i * d.k + t]);
  return s + ", c " + hex(d.c[i]) + ", d " + hex(d.d[i]);
}

nlohmann::json fit_report_json(const FitResult& r, const std::vector<DumpSet>& dumps) {
  std::size_t cases = 0;
  for (const auto& d : dumps) cases += d.n;
  nlohmann::json j;
  j["exact"] = r.exact;
  j["row"] = models::to_json(r.best.row, "fitted");
  j["dumps"] = dumps.size();
  j["evaluations"] = r.evaluations;
  j["case_evaluations"] = r.case_evaluations;
  j["seconds"] = r.seconds;
  j["fitting_rows"] = r.fitting_rows;
  j["fitting_groups"] = r.fitting_groups;
  j["parameters"] = nlohmann::json::array();
  for (const auto& f : r.parameters) {
    nlohmann::json pj{{"name", f.name}, {"value", f.value}, {"fitting", f.fitting}, {"decided", f.decided()}};
    pj["not_applicable"] = f.not_applicable;
    pj["coupled"] = f.coupled;
    pj["ruled_out"] = nlohmann::json::array();
    for (const auto& o : f.ruled_out)
      pj["ruled_out"].push_back({{"value", o.value}, {"dump", o.dump + 1}, {"case", o.case_index + 1},
                                 {"text", fit_case_text(dumps, o.dump, o.case_index)}});
    j["parameters"].push_back(pj);
  }
  j["closest"] = nlohmann::json::array();
  for (const auto& s : r.closest) {
    nlohmann::json cj{{"seed", s.seed}, {"mismatches", s.mismatches}, {"row", models::to_json(s.row, "fitted")}};
    cj["first_mismatches"] = nlohmann::json::array();
    for (const auto& c : s.first_mismatches) cj["first_mismatches"].push_back(fit_case_text(dumps, c.dump, c.index));
    j["closest"].push_back(cj);
  }
  j["cases"] = cases;
  j["mismatches"] = r.best.mismatches;
  return j;
}

}  // namespace tcsim::validation
