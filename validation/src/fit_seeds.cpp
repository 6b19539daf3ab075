// tcsim fit's starting points: the seed rows of the dumps' format pairs and the restart
// families tried when no seed's descent fits (fit_search.hpp).
#include "fit_search.hpp"

#include <algorithm>

namespace tcsim::validation::fit_detail {

Pairs pairs_of(const std::vector<DumpSet>& dumps) {
  Pairs p;
  for (const auto& d : dumps) {
    bool seen = false;
    for (const auto& [i, o] : p) seen |= i.name == d.in.name && o.name == d.out.name;
    if (!seen) p.push_back({d.in, d.out});
  }
  return p;
}

// The seed row restricted to the dumps' formats: per-output maps keep only their outputs.
DatapathSpec restrict_row(DatapathSpec r, const Pairs& pairs) {
  std::vector<std::string> ins, outs;
  for (const auto& [i, o] : pairs) {
    if (std::find(ins.begin(), ins.end(), i.name) == ins.end()) ins.push_back(i.name);
    if (std::find(outs.begin(), outs.end(), o.name) == outs.end()) outs.push_back(o.name);
  }
  auto keep = [&](auto& m) {
    for (auto it = m.begin(); it != m.end();)
      it = std::find(outs.begin(), outs.end(), it->first) == outs.end() ? m.erase(it) : std::next(it);
  };
  r.instruction.clear();
  r.input_formats = ins;
  r.output_formats = outs;
  keep(r.final_rounding);
  for (const auto& o : outs)
    if (!r.final_rounding.count(o)) r.final_rounding[o] = Rounding::NearestEven;
  keep(r.final_add_rounding);
  keep(r.min_exponent);
  keep(r.result_fraction_bits);
  keep(r.nan_pattern);
  r.shapes.clear();
  r.evidence.clear();
  return r;
}

models::UnitSpec one_row_unit(const DatapathSpec& row, const std::string& name) {
  models::UnitSpec u;
  u.name = name;
  u.architecture = "user";
  u.datapaths = {row};
  return u;
}

// Per-output entries of `out` copied from `from` into `to` (a seed's other format pairs).
void copy_output_entries(DatapathSpec& to, const DatapathSpec& from, const std::string& out) {
  auto copy = [&](auto& dst, const auto& src) {
    auto it = src.find(out);
    if (it != src.end()) dst[out] = it->second;
  };
  copy(to.final_rounding, from.final_rounding);
  copy(to.final_add_rounding, from.final_add_rounding);
  copy(to.min_exponent, from.min_exponent);
  copy(to.result_fraction_bits, from.result_fraction_bits);
}

std::vector<std::pair<std::string, DatapathSpec>> seed_rows(const Pairs& pairs, const FitOptions& o) {
  std::vector<std::pair<std::string, DatapathSpec>> seeds;
  if (!o.seeds.empty()) {
    for (std::size_t i = 0; i < o.seeds.size(); ++i)
      seeds.push_back({"base row " + std::to_string(i + 1), restrict_row(o.seeds[i], pairs)});
    return seeds;
  }
  const Format& in = pairs.front().first;
  const Format& out = pairs.front().second;
  auto excluded = [&](const std::string& u) {
    return std::find(o.exclude_units.begin(), o.exclude_units.end(), u) != o.exclude_units.end();
  };
  auto serves = [](const std::vector<std::string>& v, const std::string& f) { return std::find(v.begin(), v.end(), f) != v.end(); };
  // Pass 0: the rows serving the first pair; pass 1 (when pass 0 gives fewer than max_seeds
  // distinct rows, e.g. CDNA3 xf32's fp32 -> fp32, served elsewhere only by FMA chains): every
  // row with that output, read with the dumps' inputs; pass 2 (none yet): every row.
  auto distinct = [&] {
    std::vector<DatapathSpec> v;
    for (const auto& s : seeds)
      if (std::find(v.begin(), v.end(), s.second) == v.end()) v.push_back(s.second);
    return v.size();
  };
  for (int pass = 0; pass < 3 && (seeds.empty() || (pass == 1 && distinct() < o.max_seeds)); ++pass)
    for (const auto& u : models::builtin_unit_specs()) {
      if (excluded(u.name)) continue;
      for (const auto& r : u.datapaths) {
        if (r.block_scale) continue;
        const bool in_ok = serves(r.input_formats, in.name), out_ok = serves(r.output_formats, out.name);
        if ((pass == 0 && in_ok && out_ok) || (pass == 1 && out_ok && !in_ok) || pass == 2) {
          DatapathSpec seed = r;
          // The other pairs' per-output entries from the same unit's default rows, when it has them.
          for (std::size_t j = 1; j < pairs.size(); ++j) {
            const std::string& oj = pairs[j].second.name;
            if (seed.final_rounding.count(oj)) continue;
            for (const auto& r2 : u.datapaths)
              if (!r2.block_scale && serves(r2.input_formats, pairs[j].first.name) && serves(r2.output_formats, oj)) {
                copy_output_entries(seed, r2, oj);
                break;
              }
          }
          seeds.push_back({u.name + " (" + (r.instruction.empty() ? std::string("default") : r.instruction) + ")",
                           restrict_row(seed, pairs)});
        }
      }
    }
  return seeds;
}

// Restart rows for a search that found nothing exact: the closest row `r` with the AMD keys
// searched, as it is, and moved into each datapath family of the AMD rows (docs/units/amd.md):
// c added after the products' sum (CDNA3: the after_add defaults, products overflowing to Inf),
// a pairwise tree of correctly rounded binary32 additions (CDNA2: per-step, products rounded
// RNE, F 50 with a sticky bit), and blocks summed exactly (CDNA1: F "exact", so no sticky bit,
// no clamp, deferred normalization and carry bits that never wrap; from a finite-F row the
// descent changes one key at a time and F "exact" alone leaves those wrong). The descent from
// each then infers the family's own parameters (widths, roundings, k, input truncation, flushing, ...).
const std::string kFExact = "restarted with F exact";

std::vector<std::pair<std::string, DatapathSpec>> restarts(const DatapathSpec& r) {
  std::vector<std::pair<std::string, DatapathSpec>> v;
  v.push_back({"with the AMD keys", r});
  {
    DatapathSpec a = r;
    a.c_placement = CPlacement::After;
    a.after_add = {};
    a.late_products_rounding.reset();
    a.c_entry = models::CEntry::Accumulator;
    a.final_add_rounding.clear();
    a.normalization = Normalization::Deferred;
    a.product_rounding.reset();
    a.product_overflow_inf = true;
    a.min_exponent.clear();  // c after sets the floor itself (E >= e_c): no clamp, no sticky bit
    a.sticky_bit = false;
    if (a.fraction_bits == DatapathSpec::kExactFractionBits) a.fraction_bits = 24;
    v.push_back({"restarted with c after the products", a});
  }
  {
    DatapathSpec t = r;
    t.c_placement = CPlacement::Aligned;
    t.late_products_rounding.reset();
    t.normalization = Normalization::PerStep;
    t.order = AccumulationOrder::Pairwise;
    t.sticky_bit = true;
    t.fraction_bits = 50;
    t.product_rounding = Rounding::NearestEven;
    t.product_overflow_inf = false;  // per-step products overflow through their rounding
    t.product_groups = 1;
    v.push_back({"restarted as a binary32 tree", t});
  }
  {
    DatapathSpec x = r;
    x.fraction_bits = DatapathSpec::kExactFractionBits;
    x.carry_bits = models::safe_carry_bits(x.fma_size);
    x.alignment_rounding = Rounding::TowardZero;  // nothing is lost in the alignment
    x.sticky_bit = false;
    x.normalization = Normalization::Deferred;
    x.c_placement = CPlacement::Aligned;
    x.late_products_rounding.reset();
    x.product_rounding.reset();
    x.product_groups = 1;
    x.product_overflow_inf = false;
    x.after_add = {};
    x.min_exponent.clear();
    v.push_back({kFExact, x});
  }
  return v;
}

}  // namespace tcsim::validation::fit_detail
