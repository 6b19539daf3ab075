// tcsim fit: the exact rows near the one the search reached, when the dumps cannot decide
// (issue 26 part 3, session 33; docs/fit.md "Session 33: disagreeing rows"). The search stops at
// the first row that reproduces every case; rows with one or two keys changed that reproduce
// them too are collected here. The report then lists, per key, the values that fit only
// together with another change (ParameterFinding::coupled). With FitOptions::choose, each
// undecided key also takes the value of the largest group of equal answers on fresh cases (the
// choice most likely equivalent to the unit when every fitting value is equally likely); off by
// default, as it made fewer random and built-in rows agree (docs/fit.md).
#include "fit_search.hpp"
#include "tcsim/validation/fit_suggest.hpp"

#include <algorithm>
#include <memory>

namespace tcsim::validation::fit_detail {

namespace {

// The values of `ps` in which `r` differs from `from` (parameter index, value text).
std::vector<std::pair<std::size_t, std::string>> differences(const DatapathSpec& from, const DatapathSpec& r,
                                                             const std::vector<Param>& ps) {
  std::vector<std::pair<std::size_t, std::string>> d;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const std::string v = ps[i].get(r);
    if (v != ps[i].get(from)) d.push_back({i, v});
  }
  return d;
}

}  // namespace

std::vector<DatapathSpec> exact_neighbours(const DatapathSpec& found, const std::vector<Param>& ps, Evaluator& ev,
                                           std::size_t max_rows, std::size_t work) {
  std::vector<DatapathSpec> rows{found};
  const std::size_t start = ev.case_evaluations();
  auto spent = [&] { return ev.case_evaluations() - start >= work || rows.size() >= max_rows; };
  auto try_row = [&](const DatapathSpec& r) {
    if (std::find(rows.begin(), rows.end(), r) != rows.end()) return false;
    if (ev.count(r, 1) != 0) return false;  // kInvalid (refused) or a mismatch
    rows.push_back(r);
    return true;
  };
  // Single changes: (parameter, value) pairs that fit alone.
  std::vector<std::pair<std::size_t, std::size_t>> singles;
  for (std::size_t i = 0; i < ps.size() && !spent(); ++i)
    for (std::size_t v = 0; v < ps[i].values.size() && !spent(); ++v) {
      DatapathSpec r = found;
      ps[i].values[v].second(r);
      if (r != found && try_row(r)) singles.push_back({i, v});
    }
  // Pairs: two values neither of which fits alone first (the coupled alternatives: few, but
  // missed by the report's single changes), then a single that fits with any other value
  // (most such rows fit, and they fill the rest of the places).
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t i = 0; i < ps.size() && !spent(); ++i)
      for (std::size_t v = 0; v < ps[i].values.size() && !spent(); ++v) {
        const bool single_i = std::find(singles.begin(), singles.end(), std::make_pair(i, v)) != singles.end();
        for (std::size_t j = i + 1; j < ps.size() && !spent(); ++j)
          for (std::size_t w = 0; w < ps[j].values.size() && !spent(); ++w) {
            const bool single_j = std::find(singles.begin(), singles.end(), std::make_pair(j, w)) != singles.end();
            if ((single_i || single_j) != (pass == 1)) continue;
            DatapathSpec r = found;
            ps[i].values[v].second(r);
            ps[j].values[w].second(r);
            DatapathSpec ri = found, rj = found;  // a real pair: each change moves the row on its own
            ps[i].values[v].second(ri);
            ps[j].values[w].second(rj);
            if (ri == found || rj == found || ri == r || rj == r) continue;
            try_row(r);
          }
      }
  return rows;
}

std::vector<std::vector<std::uint64_t>> pool_answers(const std::vector<DatapathSpec>& rows,
                                                     const std::vector<DumpSet>& dumps, std::size_t pool,
                                                     std::uint64_t seed) {
  // Each row's answers on a fresh pool per dump (the tool's own case mix with the range
  // classes, as --suggest draws; NaNs made one value). A row the unit refuses answers with
  // its own index (a group of its own).
  const std::size_t R = rows.size();
  std::vector<std::vector<std::uint64_t>> ans(R);
  for (std::size_t j = 0; j < dumps.size(); ++j) {
    const DumpSet& d = dumps[j];
    std::vector<std::uint64_t> pa, pb, pc;
    // The same number of products per dump at any K (the cost of a row's answers).
    const std::size_t n = std::max<std::size_t>(1024, pool / std::max<std::size_t>(d.k, 1));
    structured_cases(d.in, d.out, d.k, n, seed + 7919 * j, pa, pb, pc, true);
    std::vector<std::uint64_t> got(n);
    for (std::size_t r = 0; r < R; ++r) {
      try {
        models::Unit(one_row_unit(rows[r], "candidate"))
            .dot_batch(d.in, d.out, n, d.k, pa.data(), pb.data(), pc.data(), got.data(), fit_instruction(rows[r]));
      } catch (const std::exception&) {
        got.assign(n, ~std::uint64_t{0} - r);
      }
      if (d.out.has_nan())
        for (auto& v : got)
          if (same_result(d.out, v, d.out.canonical_nan())) v = d.out.canonical_nan();
      ans[r].insert(ans[r].end(), got.begin(), got.end());
    }
  }
  return ans;
}

std::size_t choose_among(const std::vector<const std::vector<std::uint64_t>*>& ans, std::size_t* groups) {
  // Groups of equal answers, in the order of their first row.
  const std::size_t R = ans.size();
  std::vector<std::size_t> group(R), first_of;  // group of each row; first row of each group
  for (std::size_t r = 0; r < R; ++r) {
    std::size_t g = 0;
    while (g < first_of.size() && *ans[first_of[g]] != *ans[r]) ++g;
    if (g == first_of.size()) first_of.push_back(r);
    group[r] = g;
  }
  const std::size_t G = first_of.size();
  std::vector<std::size_t> size(G, 0);
  for (auto g : group) ++size[g];
  // The summed disagreement of each group with every row (a medoid's score), for ties only.
  std::vector<std::size_t> apart(G, 0);
  for (std::size_t g = 0; g < G; ++g)
    for (std::size_t h = 0; h < G; ++h) {
      if (g == h) continue;
      const auto& x = *ans[first_of[g]];
      const auto& y = *ans[first_of[h]];
      std::size_t n = 0;
      for (std::size_t i = 0; i < x.size(); ++i) n += x[i] != y[i];
      apart[g] += n * size[h];
    }
  std::size_t best = 0;
  for (std::size_t g = 1; g < G; ++g)
    if (size[g] > size[best] || (size[g] == size[best] && apart[g] < apart[best])) best = g;
  if (groups) *groups = G;
  return first_of[best];  // the group's first row (row 0 when it is in the group)
}

void add_coupled(std::vector<ParameterFinding>& found, const DatapathSpec& best, const std::vector<DatapathSpec>& rows,
                 const std::vector<Param>& ps) {
  for (const auto& r : rows) {
    const auto diff = differences(best, r, ps);
    if (diff.size() < 2) continue;
    for (const auto& [i, v] : diff) {
      const std::string& name = ps[i].name;  // named: clang 14 cannot capture a structured binding
      auto f = std::find_if(found.begin(), found.end(), [&](const ParameterFinding& x) { return x.name == name; });
      if (f == found.end() || std::find(f->fitting.begin(), f->fitting.end(), v) != f->fitting.end()) continue;
      std::string with;
      for (const auto& [k, u] : diff)
        if (k != i) with += (with.empty() ? "" : ", ") + ps[k].name + " " + u;
      const std::string text = v + " (with " + with + ")";
      if (std::find(f->coupled.begin(), f->coupled.end(), text) == f->coupled.end()) f->coupled.push_back(text);
    }
  }
}

namespace {

// The threshold keys: F (the bits kept below the largest term) and the carry bits (the sum's
// room above it). A value above the unit's differs from it only where the unit's own limit
// acts (it drops a bit, or its sum overflows), and about as often at any value above; a value
// below also where its own limit acts. Values most permissive first, from the largest ("exact"
// F is not taken: a CDNA datapath, uses_amd_keys, not a wider NVIDIA-like one). Not the
// min-exponent clamp: a clamp below the unit's differs more often the further below it is
// (random 18 of seed 2, docs/fit.md).
// An F the row kept from its seed (`origin`, a built-in row) stays: it is a unit's measured
// value, and units of one maker share them (the fp8 mma.sync rows of h100 and b200 fit each
// other's dumps with F 25, which they have, and differed on the check at F 40). The carry bits
// are widened from a seed's value too: a built-in row's are the fewest with which its sums never
// wrap (models/src/unit_table.cpp safe_carry_bits), so every larger value acts alike on its
// unit, and the seed's value is no measured limit (session 42: random 11 of seed 3 kept h100
// wgmma's 6 for the unit's 7, 515 of 10^6 off; all 77 built-in rows still agree on 10^6).
// Moves each key of `row` to its most permissive value that still reproduces every case, F
// first (the carry bits act on the sum it keeps), and returns the moves ("fraction_bits 16 -> 19").
std::vector<std::string> widen_thresholds(DatapathSpec& row, const std::vector<Param>& ps, Evaluator& ev,
                                          const DatapathSpec* origin) {
  std::vector<std::string> moves;
  for (const Param& p : ps) {
    if (p.name != "fraction_bits" && p.name != "carry_bits") continue;
    const std::string now = p.get(row);
    if (origin && p.name == "fraction_bits" && p.get(*origin) == now) continue;
    const auto at = std::find_if(p.values.begin(), p.values.end(), [&](const auto& v) { return v.first == now; });
    if (now == "exact" || at == p.values.end()) continue;
    for (auto v = p.values.end(); v != at + 1;) {
      --v;
      if (v->first == "exact") continue;
      DatapathSpec t = row;
      v->second(t);
      if (t != row && ev.count(t, 1) == 0) {  // still reproduces every case
        row = t;
        moves.push_back(p.name + " " + now + " -> " + v->first);
        break;
      }
    }
  }
  return moves;
}

}  // namespace

void choose_fitting_row(FitResult& res, const std::vector<Param>& ps, Evaluator& ev, const std::vector<DumpSet>& dumps,
                        const std::vector<std::string>& nan_seen, const FitOptions& o, const DatapathSpec* origin) {
  res.first_exact = res.best.row;
  if (o.widest_thresholds) {
    const auto moves = widen_thresholds(res.best.row, ps, ev, origin);
    for (std::size_t m = 0; m < moves.size(); ++m) res.best.seed += (m ? ", " : ", widened ") + moves[m];
  }
  std::vector<DatapathSpec> rows;
  if (o.choice_rows > 1) {
    const DatapathSpec found = res.best.row;
    rows = exact_neighbours(found, ps, ev, o.choice_rows, o.choice_work);
    res.fitting_rows = rows.size();
    // Key by key: the row found and each single change of that key that fits, grouped by
    // their answers on the pool; the key takes the first value of the largest group. Per key,
    // so that keys with many values that act alike (carry bits that never overflow) do not
    // weigh on the choice of another key's value.
    std::vector<std::size_t> single_key(rows.size(), ps.size());  // the one key rows[r] changes
    std::vector<DatapathSpec> singles{found};
    for (std::size_t r = 1; r < rows.size(); ++r) {
      const auto diff = differences(found, rows[r], ps);
      if (diff.size() == 1) {
        single_key[r] = diff[0].first;
        singles.push_back(rows[r]);
      }
    }
    if (!o.choose) singles.resize(1);  // no choice: the neighbours serve the report only
    const auto ans = o.choose ? pool_answers(singles, dumps, o.choice_pool, 20261133)
                              : std::vector<std::vector<std::uint64_t>>(1);
    DatapathSpec chosen = found;
    std::size_t changed = 0;
    for (std::size_t i = 0; i < ps.size(); ++i) {
      std::vector<const std::vector<std::uint64_t>*> group{&ans[0]};
      std::vector<std::size_t> which{0};  // index into singles
      for (std::size_t r = 1, s = 1; r < rows.size(); ++r) {
        if (single_key[r] == ps.size()) continue;
        if (single_key[r] == i && s < ans.size()) { group.push_back(&ans[s]); which.push_back(s); }
        ++s;
      }
      if (group.size() < 2) continue;
      std::size_t g = 0;
      const std::size_t pick = choose_among(group, &g);
      res.fitting_groups += g - 1;
      if (pick == 0) continue;
      // Set this key's value in the row chosen so far, kept when that row still fits.
      const std::string v = ps[i].get(singles[which[pick]]);
      for (const auto& [name, set] : ps[i].values)
        if (name == v) {
          DatapathSpec t = chosen;
          set(t);
          if (t != chosen && ev.count(t, 1) == 0) { chosen = t; ++changed; }
          break;
        }
    }
    if (o.choose) ++res.fitting_groups;
    if (changed) {
      res.best.row = chosen;
      res.best.seed += ", " + std::to_string(changed) + " key(s) chosen among " + std::to_string(rows.size()) + " fitting rows";
    }
  }
  res.parameters = parameter_findings(res.best.row, ps, ev, dumps, nan_seen);
  add_coupled(res.parameters, res.best.row, rows, ps);
}

}  // namespace tcsim::validation::fit_detail
