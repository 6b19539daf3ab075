// tcsim fit's search space (fit_params.hpp): each parameter's candidate values and the groups
// of coupled parameters.
#include "fit_params.hpp"

#include <algorithm>
#include <string>

namespace tcsim::validation::fit_detail {

bool is_amd_key(const std::string& name) {
  return name.rfind("after_add.", 0) == 0 || name == "product_groups" || name == "product_rounding" ||
         name == "input_fraction_bits" || name == "flushed_input_sign" || name == "product_overflow";
}

// A row that uses any AMD-only key (its descent searches them too).
bool uses_amd_keys(const DatapathSpec& r) {
  const DatapathSpec d;
  return r.c_placement == CPlacement::After || r.product_groups != 1 || r.product_rounding || r.input_fraction_bits ||
         r.flush_inputs_positive || r.product_overflow_inf || r.fraction_bits == DatapathSpec::kExactFractionBits;
}

std::vector<Param> parameters(const std::vector<DumpSet>& dumps, int fixed_k) {
  std::vector<Param> ps;
  int min_in_fraction = 64;
  for (const auto& d : dumps) min_in_fraction = std::min(min_in_fraction, d.in.fraction_bits);
  const Rounding modes[] = {Rounding::TowardZero, Rounding::NearestEven, Rounding::Down, Rounding::Up};
  {
    Param p{"fma_size", [](const DatapathSpec& r) { return std::to_string(r.fma_size); }, {}};
    std::vector<int> ks = fixed_k > 0 ? std::vector<int>{fixed_k} : std::vector<int>{1, 2, 4, 8, 16, 32};
    for (const auto& d : dumps)
      if (fixed_k <= 0 && std::find(ks.begin(), ks.end(), int(d.k)) == ks.end() && d.k > 0) ks.push_back(int(d.k));
    for (int k : ks) p.values.push_back({std::to_string(k), [k](DatapathSpec& r) { r.fma_size = k; }});
    ps.push_back(std::move(p));
  }
  {
    Param p{"fraction_bits", [](const DatapathSpec& r) {
              return r.fraction_bits == DatapathSpec::kExactFractionBits ? std::string("exact") : std::to_string(r.fraction_bits); }, {}};
    for (int f = min_in_fraction; f <= 40; ++f)
      p.values.push_back({std::to_string(f), [f](DatapathSpec& r) { r.fraction_bits = f; }});
    // No alignment loss at all (CDNA1: blocks summed exactly).
    p.values.push_back({"exact", [](DatapathSpec& r) { r.fraction_bits = DatapathSpec::kExactFractionBits; }});
    ps.push_back(std::move(p));
  }
  {
    Param p{"carry_bits", [](const DatapathSpec& r) { return std::to_string(r.carry_bits); }, {}};
    for (int c = 1; c <= 7; ++c) p.values.push_back({std::to_string(c), [c](DatapathSpec& r) { r.carry_bits = c; }});
    ps.push_back(std::move(p));
  }
  {
    Param p{"alignment_rounding", [](const DatapathSpec& r) { return models::schema_string(r.alignment_rounding); }, {}};
    for (Rounding m : modes) p.values.push_back({models::schema_string(m), [m](DatapathSpec& r) { r.alignment_rounding = m; }});
    ps.push_back(std::move(p));
  }
  ps.push_back({"sticky_bit", [](const DatapathSpec& r) { return r.sticky_bit ? "true" : "false"; },
                {{"false", [](DatapathSpec& r) { r.sticky_bit = false; }}, {"true", [](DatapathSpec& r) { r.sticky_bit = true; }}}});
  ps.push_back({"normalization", [](const DatapathSpec& r) { return models::schema_string(r.normalization); },
                {{"deferred", [](DatapathSpec& r) { r.normalization = Normalization::Deferred; }},
                 {"per-step", [](DatapathSpec& r) { r.normalization = Normalization::PerStep; }}}});
  ps.push_back({"order", [](const DatapathSpec& r) { return models::schema_string(r.order); },
                {{"largest-first", [](DatapathSpec& r) { r.order = AccumulationOrder::LargestFirst; }},
                 {"sequential", [](DatapathSpec& r) { r.order = AccumulationOrder::Sequential; }},
                 {"pairwise", [](DatapathSpec& r) { r.order = AccumulationOrder::Pairwise; }}}});
  ps.push_back({"c_placement", [](const DatapathSpec& r) { return models::schema_string(r.c_placement); },
                {{"aligned", [](DatapathSpec& r) { r.c_placement = CPlacement::Aligned; r.late_products_rounding.reset(); r.product_groups = 1; }},
                 {"late", [](DatapathSpec& r) { r.c_placement = CPlacement::Late; r.product_groups = 1; }},
                 // c after excludes a clamp, a sticky bit and per-step sums (AdderConfig::validate):
                 // the move drops them, else it is refused from every NVIDIA-like row (they clamp).
                 {"after", [](DatapathSpec& r) {
                    r.c_placement = CPlacement::After;
                    r.late_products_rounding.reset();
                    r.min_exponent.clear();
                    r.sticky_bit = false;
                    r.normalization = Normalization::Deferred;
                    r.product_rounding.reset();
                  }}}});
  // The AMD keys (docs/units/amd.md, models/src/unit_table_amd.cpp). The after_add fields
  // act only with c_placement "after" (elsewhere their setters leave the row unchanged).
  auto after_only = [](std::function<void(DatapathSpec&)> f) {
    return [f](DatapathSpec& r) { if (r.c_placement == CPlacement::After) f(r); };
  };
  auto after_get = [](std::function<std::string(const DatapathSpec&)> f) {
    return [f](const DatapathSpec& r) { return r.c_placement == CPlacement::After ? f(r) : std::string("none"); };
  };
  {
    Param p{"after_add.sum_fraction_bits", after_get([](const DatapathSpec& r) { return std::to_string(r.after_add.sum_fraction_bits); }), {}};
    for (int f = 24; f <= 34; ++f) p.values.push_back({std::to_string(f), after_only([f](DatapathSpec& r) { r.after_add.sum_fraction_bits = f; })});
    ps.push_back(std::move(p));
  }
  {
    Param p{"after_add.c_fraction_bits", after_get([](const DatapathSpec& r) { return std::to_string(r.after_add.c_fraction_bits); }), {}};
    for (int f = 22; f <= 26; ++f) p.values.push_back({std::to_string(f), after_only([f](DatapathSpec& r) { r.after_add.c_fraction_bits = f; })});
    ps.push_back(std::move(p));
  }
  {
    Param p{"after_add.rounding", after_get([](const DatapathSpec& r) { return models::schema_string(r.after_add.rounding); }), {}};
    for (Rounding m : modes) p.values.push_back({models::schema_string(m), after_only([m](DatapathSpec& r) { r.after_add.rounding = m; })});
    ps.push_back(std::move(p));
  }
  {
    Param p{"after_add.renormalize_fraction_bits",
            after_get([](const DatapathSpec& r) { return r.after_add.renormalize_fraction_bits ? std::to_string(*r.after_add.renormalize_fraction_bits) : std::string("null"); }),
            {{"null", after_only([](DatapathSpec& r) { r.after_add.renormalize_fraction_bits.reset(); })}}};
    for (int f = 24; f <= 34; ++f) p.values.push_back({std::to_string(f), after_only([f](DatapathSpec& r) { r.after_add.renormalize_fraction_bits = f; })});
    ps.push_back(std::move(p));
  }
  {
    Param p{"after_add.drop_c_below",
            after_get([](const DatapathSpec& r) { return r.after_add.drop_c_below ? std::to_string(*r.after_add.drop_c_below) : std::string("null"); }),
            {{"null", after_only([](DatapathSpec& r) { r.after_add.drop_c_below.reset(); })}}};
    for (int f = 22; f <= 28; ++f) p.values.push_back({std::to_string(f), after_only([f](DatapathSpec& r) { r.after_add.drop_c_below = f; })});
    ps.push_back(std::move(p));
  }
  ps.push_back({"product_groups", [](const DatapathSpec& r) { return std::to_string(r.product_groups); },
                {{"1", [](DatapathSpec& r) { r.product_groups = 1; }}, {"2", [](DatapathSpec& r) { r.product_groups = 2; }}}});
  {
    Param p{"product_rounding",
            [](const DatapathSpec& r) { return r.product_rounding ? models::schema_string(*r.product_rounding) : std::string("none"); },
            {{"none", [](DatapathSpec& r) { r.product_rounding.reset(); }}}};
    for (Rounding m : modes) p.values.push_back({models::schema_string(m), [m](DatapathSpec& r) { r.product_rounding = m; }});
    ps.push_back(std::move(p));
  }
  {
    int max_in_fraction = 0;
    for (const auto& d : dumps) max_in_fraction = std::max(max_in_fraction, d.in.fraction_bits);
    Param p{"input_fraction_bits",
            [](const DatapathSpec& r) { return r.input_fraction_bits ? std::to_string(*r.input_fraction_bits) : std::string("none"); },
            {{"none", [](DatapathSpec& r) { r.input_fraction_bits.reset(); }}}};
    for (int f = 7; f < max_in_fraction; ++f) p.values.push_back({std::to_string(f), [f](DatapathSpec& r) { r.input_fraction_bits = f; }});
    ps.push_back(std::move(p));
  }
  ps.push_back({"flushed_input_sign", [](const DatapathSpec& r) { return r.flush_inputs_positive ? "positive" : "keep"; },
                {{"keep", [](DatapathSpec& r) { r.flush_inputs_positive = false; }}, {"positive", [](DatapathSpec& r) { r.flush_inputs_positive = true; }}}});
  ps.push_back({"product_overflow", [](const DatapathSpec& r) { return r.product_overflow_inf ? "inf" : "exact"; },
                {{"exact", [](DatapathSpec& r) { r.product_overflow_inf = false; }}, {"inf", [](DatapathSpec& r) { r.product_overflow_inf = true; }}}});
  {
    Param p{"late_products_rounding",
            [](const DatapathSpec& r) { return r.late_products_rounding ? models::schema_string(*r.late_products_rounding) : std::string("none"); },
            {{"none", [](DatapathSpec& r) { r.late_products_rounding.reset(); }}}};
    for (Rounding m : modes) p.values.push_back({models::schema_string(m), [m](DatapathSpec& r) { r.late_products_rounding = m; }});
    ps.push_back(std::move(p));
  }
  ps.push_back({"k_split", [](const DatapathSpec& r) { return models::schema_string(r.k_split); },
                {{"consecutive", [](DatapathSpec& r) { r.k_split = models::KSplit::Consecutive; }},
                 {"pairs-mod4", [](DatapathSpec& r) { r.k_split = models::KSplit::PairsMod4; }}}});
  ps.push_back({"c_entry", [](const DatapathSpec& r) { return models::schema_string(r.c_entry); },
                {{"accumulator", [](DatapathSpec& r) { r.c_entry = models::CEntry::Accumulator; r.final_add_rounding.clear(); }},
                 {"final-add", [](DatapathSpec& r) { r.c_entry = models::CEntry::FinalAdd; }}}});
  std::vector<Format> outs;
  for (const auto& d : dumps)
    if (std::none_of(outs.begin(), outs.end(), [&](const Format& f) { return f.name == d.out.name; })) outs.push_back(d.out);
  for (const Format& out_format : outs) {
  const std::string out = out_format.name;
  {
    Param p{"final_rounding." + out, [out](const DatapathSpec& r) { return models::schema_string(r.final_rounding.at(out)); }, {}};
    for (Rounding m : modes) p.values.push_back({models::schema_string(m), [m, out](DatapathSpec& r) { r.final_rounding[out] = m; }});
    ps.push_back(std::move(p));
  }
  {
    Param p{"final_add_rounding." + out,
            [out](const DatapathSpec& r) { auto it = r.final_add_rounding.find(out);
                                           return it == r.final_add_rounding.end() ? std::string("none") : models::schema_string(it->second); },
            {}};
    for (Rounding m : modes)
      p.values.push_back({models::schema_string(m), [m, out](DatapathSpec& r) { if (r.c_entry == models::CEntry::FinalAdd) r.final_add_rounding[out] = m; }});
    ps.push_back(std::move(p));
  }
  {
    Param p{"result_fraction_bits." + out,
            [out](const DatapathSpec& r) { auto it = r.result_fraction_bits.find(out);
                                           return it == r.result_fraction_bits.end() ? std::string("none") : std::to_string(it->second); },
            {{"none", [out](DatapathSpec& r) { r.result_fraction_bits.erase(out); }}}};
    for (int f = 8; f < out_format.fraction_bits; ++f)
      p.values.push_back({std::to_string(f), [f, out](DatapathSpec& r) { r.result_fraction_bits[out] = f; }});
    ps.push_back(std::move(p));
  }
  {
    // A clamp of the alignment exponent from below (built-in rows: emin - 5 .. emin - 7).
    Param p{"min_exponent." + out,
            [out](const DatapathSpec& r) { auto it = r.min_exponent.find(out);
                                           return it == r.min_exponent.end() ? std::string("none") : std::to_string(it->second); },
            {{"none", [out](DatapathSpec& r) { r.min_exponent.erase(out); }}}};
    for (int e = out_format.emin; e >= out_format.emin - 16; --e)
      p.values.push_back({std::to_string(e), [e, out](DatapathSpec& r) { r.min_exponent[out] = e; }});
    ps.push_back(std::move(p));
  }
  }
  ps.push_back({"overflow", [](const DatapathSpec& r) { return models::schema_string(r.overflow); },
                {{"ieee", [](DatapathSpec& r) { r.overflow = OverflowMode::Ieee; }},
                 {"inf", [](DatapathSpec& r) { r.overflow = OverflowMode::Infinity; }},
                 {"saturate", [](DatapathSpec& r) { r.overflow = OverflowMode::Saturate; }},
                 {"nan", [](DatapathSpec& r) { r.overflow = OverflowMode::ToNaN; }}}});
  ps.push_back({"zero_sign", [](const DatapathSpec& r) { return models::schema_string(r.zero_sign); },
                {{"ieee", [](DatapathSpec& r) { r.zero_sign = ZeroSign::Ieee; }},
                 {"positive", [](DatapathSpec& r) { r.zero_sign = ZeroSign::Positive; }}}});
  ps.push_back({"subnormal_inputs", [](const DatapathSpec& r) { return r.subnormal_inputs ? "true" : "false"; },
                {{"true", [](DatapathSpec& r) { r.subnormal_inputs = true; }}, {"false", [](DatapathSpec& r) { r.subnormal_inputs = false; }}}});
  ps.push_back({"subnormal_outputs", [](const DatapathSpec& r) { return r.subnormal_outputs ? "true" : "false"; },
                {{"true", [](DatapathSpec& r) { r.subnormal_outputs = true; }}, {"false", [](DatapathSpec& r) { r.subnormal_outputs = false; }}}});
  for (auto& p : ps) p.amd = is_amd_key(p.name);
  return ps;
}

// Groups of parameters that act together on the same cases, inferred jointly (the product
// of their values): the alignment (F, its rounding, the sticky bit), each output's rounding
// (final rounding, result fraction bits), the entry of c (placement, late rounding, final
// add and its rounding, and the final rounding: c late with late rounding X and final
// rounding Y is near c by a final add with final rounding X and add rounding Y, so the move
// from one to the other swaps the two roundings), the block structure (k, k split, carry bits, normalization,
// order), the range (clamps, subnormals, flushed inputs' sign with the zero sign: a flushed
// input decides the sign of a zero result), the edge rules (overflow, zero sign) and the move
// between per-step and deferred sums (blocks, order, entry of c, zero sign). A single change
// cannot leave a row where two coupled parameters are both wrong; a group can.
std::vector<std::vector<std::size_t>> parameter_groups(const std::vector<Param>& ps) {
  static const std::vector<std::vector<std::string>> kGroups = {
      {"fraction_bits", "alignment_rounding", "sticky_bit"},
      {"fraction_bits", "min_exponent"},
      {"c_placement", "late_products_rounding", "c_entry", "final_add_rounding", "final_rounding"},
      {"fma_size", "k_split", "carry_bits", "normalization", "order"},
      {"normalization", "order", "product_rounding", "sticky_bit"},
      {"min_exponent", "subnormal_outputs", "subnormal_inputs", "flushed_input_sign", "zero_sign"},
      {"overflow", "zero_sign", "product_overflow"},
      {"c_placement", "after_add.sum_fraction_bits", "after_add.rounding", "after_add.renormalize_fraction_bits"},
      {"c_placement", "after_add.c_fraction_bits", "after_add.drop_c_below", "product_groups"},
      // Per-step and deferred sums: a per-step chain rounds every partial sum into the output,
      // so its last step adds c like a final add, and its exact zeros take their signs step by
      // step; a deferred row stands in for it with a final add and a zero-sign rule (random 152
      // and 167 of seed 2: 47 and 38 cases off, each key alone neutral or worse). The move
      // between them changes the blocks, the sum's order, the entry of c and the zero sign together.
      {"fma_size", "k_split", "normalization", "order", "c_entry", "zero_sign"}};
  // Per-output keys ("final_rounding.fp32") match their base name; after_add fields their own.
  auto base = [](const std::string& n) { return n.rfind("after_add.", 0) == 0 ? n : n.substr(0, n.find('.')); };
  std::vector<std::vector<std::size_t>> groups;
  for (const auto& names : kGroups) {
    std::vector<std::size_t> g;
    for (std::size_t i = 0; i < ps.size(); ++i)
      if (std::find(names.begin(), names.end(), base(ps[i].name)) != names.end()) g.push_back(i);
    if (!g.empty()) groups.push_back(std::move(g));
  }
  // Each output's rounding: final rounding with the result's fraction bits.
  for (std::size_t i = 0; i < ps.size(); ++i)
    if (base(ps[i].name) == "final_rounding")
      for (std::size_t j = 0; j < ps.size(); ++j)
        if (ps[j].name == "result_fraction_bits" + ps[i].name.substr(ps[i].name.find('.'))) groups.push_back({i, j});
  // c late acts on deferred sums only (adder.cpp's per_step() adds c as one more term, and reads
  // neither key): from a per-step row, c late with its rounding shows no gain until the sums
  // are deferred too, and each of the three alone or in pairs is flat (random 190 of seed 3:
  // from the fp32 FMA chain's seed, 935 off for every subset, 0 for all three; docs/fit.md).
  std::vector<std::size_t> late;
  for (const char* name : {"normalization", "c_placement", "late_products_rounding"})
    for (std::size_t i = 0; i < ps.size(); ++i)
      if (ps[i].name == name) late.push_back(i);
  if (late.size() == 3) groups.push_back(std::move(late));
  return groups;
}

}  // namespace tcsim::validation::fit_detail
