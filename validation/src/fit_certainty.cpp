// How sure a fit is: the fitting rows on the suggestion's pool (see fit_certainty.hpp).
#include "tcsim/validation/fit_certainty.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

#include "tcsim/models/unit_json.hpp"

namespace tcsim::validation {

using models::DatapathSpec;

namespace {

std::string value_text(const nlohmann::json& j, const std::string& k) { return j.contains(k) ? j[k].dump() : std::string("-"); }

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string witness_text(const SuggestedCases::Witness& w) {
  // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on " " + hex(v) here.
  std::string t = "a";
  for (auto v : w.a) t.append(" ").append(hex(v));
  t.append(", b");
  for (auto v : w.b) t.append(" ").append(hex(v));
  t.append(", c ").append(hex(w.c)).append(": fitted row ").append(hex(w.d_row0));
  return t.append(", other ").append(hex(w.d_row));
}

std::string per_million(std::size_t n, std::size_t of) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.0f per 10^6", of ? 1e6 * static_cast<double>(n) / static_cast<double>(of) : 0.0);
  return buf;
}

}  // namespace

std::vector<std::string> row_keys_differing(const nlohmann::json& from, const nlohmann::json& to) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : from.items()) keys.push_back(k);
  for (const auto& [k, v] : to.items())
    if (!from.contains(k)) keys.push_back(k);
  keys.erase(std::remove_if(keys.begin(), keys.end(),
                            [&](const std::string& k) {
                              return k == "nan_pattern" || k == "name" || value_text(from, k) == value_text(to, k);
                            }),
             keys.end());
  return keys;
}

std::string row_changes_text(const DatapathSpec& from, const DatapathSpec& to) {
  const nlohmann::json f = models::to_json(from, "x"), t = models::to_json(to, "x");
  std::string s;
  for (const auto& k : row_keys_differing(f, t))
    s += (s.empty() ? "" : ", ") + k + " " + value_text(f, k) + " -> " + value_text(t, k);
  return s.empty() ? "none" : s;
}

bool FitCertainty::sure() const {
  // A set without rows (the unit refused the fitted row: not expected after a fit) is no evidence.
  return exact && !sets.empty() &&
         std::all_of(sets.begin(), sets.end(), [](const CertaintySet& s) { return s.rows > 0 && s.groups <= 1; });
}

FitCertainty certainty_of(const std::vector<SuggestedCases>& suggestions, const FitResult& fit) {
  FitCertainty c;
  c.exact = fit.exact;
  if (!fit.exact) return c;
  for (const auto& s : suggestions) {
    // The answers are read against row 0 as the fitted row: if the unit refused it (not
    // expected after a fit), no row counts.
    const bool fitted_first = !s.rows.empty() && s.rows[0] == fit.best.row;
    CertaintySet set{s.in, s.out, s.k, fitted_first ? s.rows.size() : 0, s.pool_groups, s.pool, s.mix, {}, 0};
    if (!fitted_first) {
      c.sets.push_back(std::move(set));
      continue;
    }
    const nlohmann::json row0 = s.rows.empty() ? nlohmann::json{} : models::to_json(s.rows[0], "x");
    // Each row that answers some pool case otherwise, as its changes "key=value" (sorted).
    std::vector<std::size_t> splitting;
    std::vector<std::vector<std::string>> changes(s.rows.size());
    for (std::size_t r = 1; r < s.rows.size(); ++r) {
      if (s.witness[r].empty()) continue;  // answers every pool case as the fitted row
      const nlohmann::json j = models::to_json(s.rows[r], "x");
      for (const auto& k : row_keys_differing(row0, j)) changes[r].push_back(k + "=" + value_text(j, k));
      std::sort(changes[r].begin(), changes[r].end());
      splitting.push_back(r);
    }
    // A row whose changes hold all of another splitting row's, and more, combines changes
    // already shown: counted, not listed (a coupled change, e.g. F with another value beside
    // the alignment rounding, is no such combination and is listed).
    std::map<std::vector<std::string>, std::size_t> at;  // set of changed keys -> place in set.differing
    for (const std::size_t r : splitting) {
      const bool combines = std::any_of(splitting.begin(), splitting.end(), [&](std::size_t q) {
        return changes[q].size() < changes[r].size() &&
               std::includes(changes[r].begin(), changes[r].end(), changes[q].begin(), changes[q].end());
      });
      if (combines) {
        ++set.combined;
        continue;
      }
      const auto keys = row_keys_differing(row0, models::to_json(s.rows[r], "x"));
      auto [it, added] = at.emplace(keys, set.differing.size());
      if (added) set.differing.push_back({keys, {}, 0, 0, {}});
      DifferingAlternative& d = set.differing[it->second];
      ++d.rows;
      if (d.rows == 1 || s.mix_differing[r] > d.mix_differing) {
        d.change = row_changes_text(s.rows[0], s.rows[r]);
        d.mix_differing = s.mix_differing[r];
        d.witness = s.witness[r].front();
      }
    }
    std::stable_sort(set.differing.begin(), set.differing.end(),
                     [](const auto& x, const auto& y) { return x.mix_differing > y.mix_differing; });
    c.sets.push_back(std::move(set));
  }
  return c;
}

FitCertainty fit_certainty(const FitResult& fit, const std::vector<DumpSet>& dumps, std::uint64_t seed,
                           const std::function<void(std::size_t, std::size_t)>& progress) {
  if (!fit.exact) return certainty_of({}, fit);
  std::vector<const DumpSet*> firsts;  // the first dump of each (in, out, K), in the dumps' order
  for (const auto& d : dumps)
    if (std::none_of(firsts.begin(), firsts.end(), [&](const DumpSet* f) {
          return f->in.name == d.in.name && f->out.name == d.out.name && f->k == d.k;
        }))
      firsts.push_back(&d);
  if (progress) progress(0, firsts.size());
  const auto rows = fitting_rows(fit, dumps);
  std::vector<SuggestedCases> suggestions;
  for (std::size_t i = 0; i < firsts.size(); ++i) {
    const DumpSet& d = *firsts[i];
    suggestions.push_back(suggest_cases(rows, d.in, d.out, d.k, 1000, seed + i));
    if (progress) progress(i + 1, firsts.size());
  }
  return certainty_of(suggestions, fit);
}

nlohmann::json certainty_json(const FitCertainty& c) {
  nlohmann::json j{{"exact", c.exact}, {"sure", c.sure()}, {"sets", nlohmann::json::array()}};
  for (const auto& s : c.sets) {
    nlohmann::json d = nlohmann::json::array();
    for (const auto& x : s.differing) {
      nlohmann::json w{{"a", nlohmann::json::array()}, {"b", nlohmann::json::array()}, {"c", hex(x.witness.c)},
                       {"d_fitted", hex(x.witness.d_row0)}, {"d_other", hex(x.witness.d_row)}};
      for (auto v : x.witness.a) w["a"].push_back(hex(v));
      for (auto v : x.witness.b) w["b"].push_back(hex(v));
      d.push_back({{"keys", x.keys}, {"change", x.change}, {"rows", x.rows}, {"mix_differing", x.mix_differing}, {"case", w}});
    }
    j["sets"].push_back({{"in", s.in.name}, {"out", s.out.name}, {"k", s.k}, {"rows", s.rows}, {"groups", s.groups},
                         {"pool", s.pool}, {"mix", s.mix}, {"differing", d}, {"combined", s.combined}});
  }
  return j;
}

std::vector<std::string> certainty_lines(const FitCertainty& c, std::size_t max_alternatives) {
  std::vector<std::string> lines;
  if (!c.exact) return lines;
  for (const auto& s : c.sets) {
    char head[400];
    const std::string where = s.in.name + " -> " + s.out.name + ", K = " + std::to_string(s.k);
    if (s.rows == 0) {
      lines.push_back("how sure (" + where + "): NOT sure: the fitted row could not be run on fresh cases");
      continue;
    }
    if (s.rows == 1) {
      lines.push_back("how sure (" + where + "): sure as far as the rows near the fitted one go: none of them but it "
                      "reproduces every case");
      continue;
    }
    if (s.groups <= 1) {
      std::snprintf(head, sizeof head,
                    "how sure (%s): sure as far as the %zu rows that reproduce every case go: they answer alike on all %zu "
                    "cases looked at (%zu fresh cases of the harness's mix, %zu of further batches where rows might split)",
                    where.c_str(), s.rows, s.pool, s.mix, s.pool - s.mix);
      lines.push_back(head);
      continue;
    }
    std::snprintf(head, sizeof head,
                  "how sure (%s): NOT sure: the %zu rows that reproduce every case answer %zu ways on %zu cases looked at "
                  "(%zu fresh cases of the harness's mix, %zu of further batches); the dumps cannot decide these changes:",
                  where.c_str(), s.rows, s.groups, s.pool, s.mix, s.pool - s.mix);
    lines.push_back(head);
    for (std::size_t i = 0; i < s.differing.size() && i < max_alternatives; ++i) {
      const auto& d = s.differing[i];
      lines.push_back("  " + d.change + (d.rows > 1 ? " (" + std::to_string(d.rows) + " rows change these keys)" : "") +
                      ": " + std::to_string(d.mix_differing) + " of the " + std::to_string(s.mix) + " mix cases (" +
                      per_million(d.mix_differing, s.mix) + ")" + (d.mix_differing ? "" : ", found by further batches") +
                      ", e.g. " + witness_text(d.witness));
    }
    if (s.differing.size() > max_alternatives)
      lines.push_back("  and " + std::to_string(s.differing.size() - max_alternatives) + " more sets of keys");
    if (s.combined)
      lines.push_back("  and " + std::to_string(s.combined) + " more rows that combine these changes with others");
  }
  if (!c.sure())
    lines.push_back("  to decide: --suggest N --suggest-dir DIR, run the cases on the GPU (validation/cuda/README.md), "
                    "and fit again with the new dump beside these");
  return lines;
}

}  // namespace tcsim::validation
