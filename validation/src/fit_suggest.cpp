// tcsim fit --suggest: cases that split the rows still fitting the dumps (see fit_suggest.hpp).
#include "tcsim/validation/fit_suggest.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <cctype>
#include <map>

#include "tcsim/models/unit_json.hpp"
#include "tcsim/validation/dump_reader.hpp"
#include "tcsim/validation/fit_range_classes.hpp"
#include "fit_directed_cases.hpp"

namespace tcsim::validation {

using models::DatapathSpec;

std::vector<DatapathSpec> fitting_rows(const FitResult& fit, const std::vector<DumpSet>& dumps, std::size_t max_rows) {
  std::vector<DatapathSpec> rows{fit.best.row};
  if (!fit.exact) return rows;
  std::vector<const ParameterFinding*> open;
  for (const auto& f : fit.parameters)
    if (!f.decided() && f.name.rfind("nan_pattern.", 0) != 0) open.push_back(&f);
  auto add = [&](const DatapathSpec& r, bool check) {
    if (rows.size() >= max_rows || std::find(rows.begin(), rows.end(), r) != rows.end()) return;
    if (check && count_mismatches(r, dumps, 1) != 0) return;
    rows.push_back(r);
  };
  for (const auto* f : open)
    for (const auto& v : f->fitting) {
      DatapathSpec r = fit.best.row;
      if (v != f->value && set_parameter(r, f->name, v, dumps)) add(r, false);
    }
  // The coupled alternatives the report lists ("v (with key w, ...)": exact rows near the
  // fitted one whose values fit only together), before the pairs fill the places: the pairs
  // combine values that fit alone, so they miss e.g. F moved with the alignment rounding.
  for (const auto& f : fit.parameters)
    for (const auto& text : f.coupled) {
      const std::size_t with = text.find(" (with ");
      if (with == std::string::npos || text.back() != ')') continue;
      DatapathSpec r = fit.best.row;
      bool ok = set_parameter(r, f.name, text.substr(0, with), dumps);
      const std::string rest = text.substr(with + 7, text.size() - with - 8);
      for (std::size_t at = 0; ok && at < rest.size();) {
        const std::size_t end = std::min(rest.find(", ", at), rest.size());
        const std::string item = rest.substr(at, end - at);
        const std::size_t space = item.find(' ');
        ok = space != std::string::npos && set_parameter(r, item.substr(0, space), item.substr(space + 1), dumps);
        at = end + 2;
      }
      if (ok) add(r, true);
    }
  for (std::size_t i = 0; i < open.size(); ++i)
    for (std::size_t j = i + 1; j < open.size(); ++j)
      for (const auto& v : open[i]->fitting)
        for (const auto& w : open[j]->fitting) {
          if (v == open[i]->value || w == open[j]->value) continue;
          DatapathSpec r = fit.best.row;
          if (set_parameter(r, open[i]->name, v, dumps) && set_parameter(r, open[j]->name, w, dumps)) add(r, true);
        }
  return rows;
}

namespace {

// Products (cases x K x rows) spent at most on the further batches of rarer_splits, so that a
// suggestion costs the same work at any load: 2^24, 120,000 further cases for random 51
// (K = 8, 16 rows followed), about 2 s of dot_batch at load 8 on this 2-core machine; slow rows
// (per-step chains) take longer (docs/fit.md, fitloop6).
constexpr std::size_t kRareProducts = std::size_t{1} << 24;
// The rows rarer_splits follows: the first twins in the rows' order, which puts the single
// changes (and the coupled alternatives) before the pairs, so that the budget buys 15
// batches instead of 1 for 200 rows; a pair of twin changes rarely splits where neither does.
constexpr std::size_t kRareRows = 16;
// Products spent at most on the directed batches (fit_directed_cases.hpp), before the mix's:
// batches of 4,000 cases of one aimed range class each, the classes in turn.
constexpr std::size_t kDirectedProducts = std::size_t{1} << 25;

// The rows that answer every pool case as row 0 (the fitted row) does may still differ from it
// on rarer cases (random 51 of the evaluation: 60 of 10^6 check cases; the pool holds 8,000).
// Further batches of `draw(seed, a, b, c, followed rows)` run through row 0 and those rows
// only, within `products`, and the cases where one of them differs join the pool (all rows'
// answers appended to `ans`). A row leaves the search once split. Returns the cases added.
// `order`: the rows 1..R-1 in the order they are followed (follow_order).
template <class Answers, class MakeBatch>
std::size_t rarer_splits(std::size_t R, std::vector<std::vector<std::uint64_t>>& ans, const Answers& answers,
                         const MakeBatch& draw, std::size_t K, std::uint64_t seed, std::size_t products, std::size_t batch,
                         const std::vector<std::size_t>& order, std::vector<std::uint64_t>& pa,
                         std::vector<std::uint64_t>& pb, std::vector<std::uint64_t>& pc) {
  std::vector<std::size_t> twins;
  for (const std::size_t r : order)
    if (r < R && twins.size() < kRareRows && ans[r] == ans[0]) twins.push_back(r);
  std::size_t spent = 0, added = 0;
  std::mt19937_64 seeds(seed ^ 0x7261726572ULL);  // the batches' seeds: a stream apart from the pool's
  while (!twins.empty() && spent + (twins.size() + 1) * batch * K <= products) {
    std::vector<std::uint64_t> a, b, c;
    draw(seeds(), batch, twins, a, b, c);
    spent += (twins.size() + 1) * batch * K;
    const auto d0 = answers(0, batch, a.data(), b.data(), c.data());
    std::vector<std::size_t> hits;  // cases where a twin differs from row 0 (the first per twin)
    for (auto it = twins.begin(); it != twins.end();) {
      const auto d = answers(*it, batch, a.data(), b.data(), c.data());
      std::size_t i = 0;
      while (i < batch && d[i] == d0[i]) ++i;
      if (i == batch) { ++it; continue; }
      if (std::find(hits.begin(), hits.end(), i) == hits.end()) hits.push_back(i);
      it = twins.erase(it);
    }
    for (const std::size_t i : hits) {
      pa.insert(pa.end(), a.begin() + i * K, a.begin() + (i + 1) * K);
      pb.insert(pb.end(), b.begin() + i * K, b.begin() + (i + 1) * K);
      pc.push_back(c[i]);
    }
    added += hits.size();
    if (hits.empty()) continue;
    std::vector<std::uint64_t> ha(pa.end() - hits.size() * K, pa.end()), hb(pb.end() - hits.size() * K, pb.end()),
        hc(pc.end() - hits.size(), pc.end());
    for (std::size_t r = 0; r < R; ++r) {
      const auto d = answers(r, hits.size(), ha.data(), hb.data(), hc.data());
      ans[r].insert(ans[r].end(), d.begin(), d.end());
    }
  }
  return added;
}

// The order in which rarer_splits follows rows 1.. of `specs`: one row of each set of keys in
// which rows differ from row 0 in turn (first appearances first), then the next of each. Rows
// equivalent to row 0 (carry bits that never overflow: seven values) filled the 16 places
// before, and random 172 of seed 3 (subnormal results flushed, one row) was never followed
// (session 41, docs/fit.md).
std::vector<std::size_t> follow_order(const std::vector<DatapathSpec>& specs) {
  if (specs.empty()) return {};
  const nlohmann::json base = models::to_json(specs[0], "r");
  std::vector<std::string> sets;                  // key sets, in first-appearance order
  std::vector<std::vector<std::size_t>> members;  // rows of each set
  for (std::size_t r = 1; r < specs.size(); ++r) {
    const nlohmann::json j = models::to_json(specs[r], "r");
    std::string keys;
    for (auto it = j.begin(); it != j.end(); ++it)
      if (!base.contains(it.key()) || base[it.key()] != it.value()) keys += it.key() + " ";
    for (auto it = base.begin(); it != base.end(); ++it)
      if (!j.contains(it.key())) keys += it.key() + " ";
    const auto at = std::find(sets.begin(), sets.end(), keys);
    if (at == sets.end()) {
      sets.push_back(keys);
      members.push_back({r});
    } else {
      members[static_cast<std::size_t>(at - sets.begin())].push_back(r);
    }
  }
  std::vector<std::size_t> order;
  for (std::size_t round = 0; order.size() + 1 < specs.size(); ++round)
    for (const auto& m : members)
      if (round < m.size()) order.push_back(m[round]);
  return order;
}

}  // namespace

SuggestedCases suggest_cases(const std::vector<DatapathSpec>& rows, const Format& in, const Format& out, std::size_t K,
                             std::size_t n, std::uint64_t seed) {
  SuggestedCases s;
  s.in = in;
  s.out = out;
  s.k = K;
  s.candidates = rows.size();
  std::size_t P = std::max<std::size_t>(8 * n, 4000);
  std::vector<std::uint64_t> pa, pb, pc;
  structured_cases(in, out, K, P, seed, pa, pb, pc, true);  // with the range classes: they go to the GPU
  // Every row's answers on the pool (NaNs made one value); rows the unit refuses are dropped.
  std::vector<models::Unit> units;
  std::vector<std::string> instructions;
  std::vector<DatapathSpec> specs;  // the rows the unit accepted, in the answers' order
  auto answers = [&](std::size_t r, std::size_t m, const std::uint64_t* a, const std::uint64_t* b, const std::uint64_t* c) {
    std::vector<std::uint64_t> d(m);
    units[r].dot_batch(in, out, m, K, a, b, c, d.data(), instructions[r]);
    if (out.has_nan())
      for (auto& v : d)
        if (same_result(out, v, out.canonical_nan())) v = out.canonical_nan();
    return d;
  };
  std::vector<std::vector<std::uint64_t>> ans;
  for (const auto& r : rows) {
    try {
      units.emplace_back(fitted_unit(r, "candidate"));
      instructions.push_back(fit_instruction(r));
      specs.push_back(r);
      ans.push_back(answers(units.size() - 1, P, pa.data(), pb.data(), pc.data()));
    } catch (const std::exception&) {
      if (units.size() > ans.size()) units.pop_back();  // refused by the unit or its batch
      if (instructions.size() > ans.size()) instructions.pop_back();
      if (specs.size() > ans.size()) specs.pop_back();
    }
  }
  const std::size_t R = units.size();
  const std::size_t mix_cases = P;
  // Rarer splits: first batches aimed at the keys the followed rows differ in from row 0
  // (fit_directed_cases.hpp; their own seeds), then batches of the pool's mix.
  std::size_t next_class = 0;  // the directed batches take the aimed classes in turn
  auto directed = [&](std::uint64_t s, std::size_t m, const std::vector<std::size_t>& twins, std::vector<std::uint64_t>& a,
                      std::vector<std::uint64_t>& b, std::vector<std::uint64_t>& c) {
    std::vector<DatapathSpec> followed{specs[0]};
    for (const std::size_t r : twins) followed.push_back(specs[r]);
    const std::vector<int> classes = directed_classes(followed);
    range_class_cases(classes[next_class++ % classes.size()], in, out, K, m, s, a, b, c);
  };
  auto mix = [&](std::uint64_t s, std::size_t m, const std::vector<std::size_t>&, std::vector<std::uint64_t>& a,
                 std::vector<std::uint64_t>& b, std::vector<std::uint64_t>& c) {
    structured_cases(in, out, K, m, s, a, b, c, true);
  };
  const std::vector<std::size_t> order = follow_order(specs);
  P += rarer_splits(R, ans, answers, directed, K, seed ^ 0x646972656374ULL, kDirectedProducts, 4000, order, pa, pb, pc);
  P += rarer_splits(R, ans, answers, mix, K, seed, kRareProducts, 8000, order, pa, pb, pc);
  s.pool = P;
  s.rows = specs;
  {
    std::vector<const std::vector<std::uint64_t>*> distinct_answers;
    for (const auto& v : ans)
      if (std::none_of(distinct_answers.begin(), distinct_answers.end(), [&](const auto* u) { return *u == v; }))
        distinct_answers.push_back(&v);
    s.pool_groups = distinct_answers.size();
  }
  s.mix = mix_cases;
  s.mix_differing.assign(R, 0);
  s.witness.assign(R, {});
  for (std::size_t r = 1; r < R; ++r)
    for (std::size_t i = 0; i < P; ++i) {
      if (ans[r][i] == ans[0][i]) continue;
      if (i < mix_cases) ++s.mix_differing[r];
      if (s.witness[r].empty())
        s.witness[r].push_back({std::vector<std::uint64_t>(pa.begin() + i * K, pa.begin() + (i + 1) * K),
                                std::vector<std::uint64_t>(pb.begin() + i * K, pb.begin() + (i + 1) * K), pc[i],
                                ans[0][i], ans[r][i]});
    }
  std::vector<std::size_t> cls(R, 0);  // class of each row under the chosen cases
  std::vector<bool> used(P, false);
  std::vector<std::size_t> chosen;
  // Greedy: the case separating the most pairs of rows still in one class.
  std::vector<std::size_t> splitting;  // cases where some row differs from row 0
  for (std::size_t i = 0; i < P; ++i)
    for (std::size_t r = 1; r < R; ++r)
      if (ans[r][i] != ans[0][i]) { splitting.push_back(i); break; }
  std::vector<std::pair<std::size_t, std::uint64_t>> key(R);
  while (chosen.size() < n && R > 1) {
    std::size_t best_case = P, best_score = 0;
    for (std::size_t i : splitting) {
      if (used[i]) continue;
      // Pairs of rows in one class that this case separates: sum over classes of
      // (pairs in the class) - (pairs with the same answer).
      for (std::size_t r = 0; r < R; ++r) key[r] = {cls[r], ans[r][i]};
      std::sort(key.begin(), key.end());
      std::size_t score = 0, class_size = 0, run = 0;
      for (std::size_t r = 0; r < R; ++r) {
        const bool new_class = r == 0 || key[r].first != key[r - 1].first;
        const bool new_run = new_class || key[r].second != key[r - 1].second;
        if (new_class) class_size = 0;
        if (new_run) run = 0;
        score += class_size - run;  // this row against the earlier rows of its class with another answer
        ++class_size;
        ++run;
      }
      if (score > best_score) { best_score = score; best_case = i; }
    }
    if (best_case == P) break;
    used[best_case] = true;
    chosen.push_back(best_case);
    std::map<std::pair<std::size_t, std::uint64_t>, std::size_t> next;
    for (std::size_t r = 0; r < R; ++r) {
      const auto key = std::make_pair(cls[r], ans[r][best_case]);
      auto it = next.find(key);
      cls[r] = it != next.end() ? it->second : next.emplace(key, next.size()).first->second;
    }
  }
  std::vector<std::size_t> distinct(cls);
  std::sort(distinct.begin(), distinct.end());
  s.classes = R ? static_cast<std::size_t>(std::unique(distinct.begin(), distinct.end()) - distinct.begin()) : 0;
  // More witnesses: round robin over the rows, a further case where each differs from row 0
  // (a GPU outside the candidate set is more likely caught by several).
  for (bool added = true; added && chosen.size() < n;) {
    added = false;
    for (std::size_t r = 1; r < R && chosen.size() < n; ++r)
      for (std::size_t i = 0; i < P; ++i)
        if (!used[i] && ans[r][i] != ans[0][i]) { used[i] = true; chosen.push_back(i); added = true; break; }
  }
  std::sort(chosen.begin(), chosen.end());
  s.n = chosen.size();
  for (auto i : chosen) {
    s.a.insert(s.a.end(), pa.begin() + i * K, pa.begin() + (i + 1) * K);
    s.b.insert(s.b.end(), pb.begin() + i * K, pb.begin() + (i + 1) * K);
    s.c.push_back(pc[i]);
  }
  return s;
}

std::string dump_format_name(const Format& f) {
  if (f.name.size() == 4 && f.name[0] == 'e' && f.name[2] == 'm') {
    std::string u = f.name;
    for (auto& ch : u) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return u;
  }
  return f.name;
}

std::vector<std::string> write_case_files(const SuggestedCases& s, const std::string& dir, const std::string& gpu) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string in = dump_format_name(s.in);
  const std::vector<std::string> paths = {dir + "/a_" + gpu + "_" + in + ".txt", dir + "/b_" + gpu + "_" + in + ".txt",
                                          dir + "/c_" + gpu + "_fp32.txt"};
  for (int f = 0; f < 3; ++f) {
    std::ofstream o(paths[f]);
    if (!o) throw std::invalid_argument("cannot write '" + paths[f] + "'");
    for (std::size_t i = 0; i < s.n; ++i) {
      if (f == 0) o << format_operand_line(s.a.data() + i * s.k, s.k, s.in) << "\n";
      else if (f == 1) o << format_operand_line(s.b.data() + i * s.k, s.k, s.in) << "\n";
      else o << format_binary32_line(format_to_binary32(s.c[i], s.out)) << "\n";
    }
    o.close();  // a full disk shows when the buffer is written out
    if (!o) throw std::invalid_argument("cannot write '" + paths[f] + "'");
  }
  return paths;
}

}  // namespace tcsim::validation
