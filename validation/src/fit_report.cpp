// tcsim fit's report of an exact fit: per parameter, the values that fit, the cases that
// rule out the others, and the NaN pattern the dumps show (fit_search.hpp).
#include "fit_search.hpp"

#include <algorithm>
#include <cstdio>

namespace tcsim::validation::fit_detail {

std::vector<ParameterFinding> parameter_findings(const DatapathSpec& best, const std::vector<Param>& ps,
                                                 Evaluator& ev, const std::vector<DumpSet>& dumps,
                                                 const std::vector<std::string>& nan_seen) {
  std::vector<ParameterFinding> found;
  for (const auto& p : ps) {
    // The after_add fields exist only with c "after".
    if (p.name.rfind("after_add.", 0) == 0 && best.c_placement != CPlacement::After) continue;
    ParameterFinding f{p.name, p.get(best), {}, {}, {}, {}};
    std::vector<DatapathSpec> seen;
    for (const auto& [name, set] : p.values) {
      DatapathSpec cand = best;
      set(cand);
      if (std::find(seen.begin(), seen.end(), cand) != seen.end()) continue;
      seen.push_back(cand);
      if (cand == best) { f.fitting.push_back(name); continue; }
      CaseRef first;
      const std::size_t m = ev.count(cand, 1, &first);
      if (m == kInvalid) { f.not_applicable.push_back(name); continue; }
      if (m == 0) f.fitting.push_back(name);
      else f.ruled_out.push_back({name, first.index, first.dump});
    }
    found.push_back(std::move(f));
  }
  // The NaN pattern: read from the first NaN result of each output, else open.
  for (const auto& pair : pairs_of(dumps)) {
    const Format& out = pair.second;  // a named reference: clang 14 cannot capture a structured binding
    if (!out.has_nan() || std::any_of(found.begin(), found.end(),
                                      [&](const ParameterFinding& f) { return f.name == "nan_pattern." + out.name; }))
      continue;
    ParameterFinding f{"nan_pattern." + out.name, "default", {}, {}, {}, {}};
    auto it = best.nan_pattern.find(out.name);
    char buf[24] = "default";
    if (it != best.nan_pattern.end())
      std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(it->second));
    f.value = buf;
    if (std::find(nan_seen.begin(), nan_seen.end(), out.name) != nan_seen.end()) {
      f.fitting = {buf};
      for (std::size_t j = 0; j < dumps.size() && f.ruled_out.empty(); ++j)
        for (std::size_t i = 0; i < dumps[j].n; ++i)
          if (dumps[j].out.name == out.name && same_result(out, dumps[j].d[i], out.canonical_nan())) {
            f.ruled_out.push_back({"every other NaN pattern", i, j});
            break;
          }
    } else {
      f.fitting = {buf, "any-other-NaN (no NaN result in the data)"};
    }
    found.push_back(std::move(f));
  }
  return found;
}

}  // namespace tcsim::validation::fit_detail
