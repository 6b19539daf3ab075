// The probe report as text (one line per feature with its evidence) and as JSON.
#include <algorithm>
#include <sstream>
#include <type_traits>

#include "tcsim/sim/codec.hpp"
#include "tcsim/validation/probe.hpp"

namespace tcsim::validation {

namespace {

template <class T>
nlohmann::json finding_json(const Finding<T>& f) {
  if (!f.value) return nullptr;
  if constexpr (std::is_same_v<T, Rounding>) return rounding_name(*f.value);
  else return *f.value;
}

template <class T>
std::string finding_text(const Finding<T>& f) {
  if (!f.value) return "unknown";
  if constexpr (std::is_same_v<T, Rounding>) return rounding_name(*f.value);
  else if constexpr (std::is_same_v<T, bool>) return *f.value ? "yes" : "no";
  else if constexpr (std::is_same_v<T, std::string>) return *f.value;
  else return std::to_string(*f.value);
}

// f(name, finding) for every finding of the report, by its JSON name (to_json's values and
// evidence).
template <class F>
void for_each_finding(const ProbeReport& r, F&& f) {
  f("subnormal_inputs", r.subnormal_inputs);
  f("subnormal_c", r.subnormal_c);
  f("subnormal_outputs", r.subnormal_outputs);
  f("products_exact", r.products_exact);
  f("fraction_bits", r.fraction_bits);
  f("result_fraction_bits", r.result_fraction_bits);
  f("fma_size", r.fma_size);
  f("carry_bits", r.carry_bits);
  f("alignment_rounding", r.alignment_rounding);
  f("sticky_bit", r.sticky_bit);
  f("final_rounding", r.final_rounding);
  f("c_placement", r.c_placement);
  f("products_fraction_bits", r.products_fraction_bits);
  f("normalization", r.normalization);
  f("min_exponent", r.min_exponent);
  f("order", r.order);
  f("monotonic", r.monotonic);
  f("c_entry", r.c_entry);
  f("final_add_rounding", r.final_add_rounding);
  f("blocks", r.blocks);
  f("k_split", r.k_split);
  f("block_chain", r.block_chain);
}

nlohmann::json dot_case_json(const DotCase& c, const Format& in, const Format& out) {
  nlohmann::json j;
  nlohmann::json a = nlohmann::json::array(), b = nlohmann::json::array();
  for (auto x : c.a) a.push_back(bits_to_hex(in, x));
  for (auto x : c.b) b.push_back(bits_to_hex(in, x));
  j["a"] = a;
  j["b"] = b;
  j["c"] = bits_to_hex(out, c.c);
  j["d"] = bits_to_hex(out, c.d);
  j["d_value"] = decode(out, c.d).to_hex();
  return j;
}

std::string dot_case_text(const DotCase& c, const Format& in, const Format& out) {
  std::string s = "a=[";
  for (std::size_t i = 0; i < c.a.size(); ++i) s += (i ? "," : "") + bits_to_hex(in, c.a[i]);
  s += "] b=[";
  for (std::size_t i = 0; i < c.b.size(); ++i) s += (i ? "," : "") + bits_to_hex(in, c.b[i]);
  s += "] c=" + bits_to_hex(out, c.c) + " -> d=" + bits_to_hex(out, c.d) + " (" + decode(out, c.d).to_hex() + ")";
  return s;
}

}  // namespace

std::string ProbeReport::to_text() const {
  std::ostringstream os;
  os << "probe of " << unit << " (" << in_format << " -> " << out_format << "), " << dot_calls << " dot calls\n";
  const bool final_add = c_entry.value == std::string("final-add");
  if (final_add)
    os << "  c is added last (c entry final-add): the lines marked [blocks, c = +0] describe one block of an "
          "instruction; c's addition is 'c added with'\n";
  auto line = [&](const char* name, const std::string& value, const std::string& evidence) {
    os << "  " << name << std::string(20 - std::string(name).size(), ' ') << value << "\n";
    if (!evidence.empty()) os << "      " << evidence << "\n";
  };
  line("subnormal inputs", finding_text(subnormal_inputs), subnormal_inputs.evidence);
  line("subnormal c", finding_text(subnormal_c), subnormal_c.evidence);
  line("subnormal outputs", finding_text(subnormal_outputs), subnormal_outputs.evidence);
  line("products exact", finding_text(products_exact), products_exact.evidence);
  line("fraction bits F", finding_text(fraction_bits), fraction_bits.evidence);
  line("result bits", finding_text(result_fraction_bits), result_fraction_bits.evidence);
  line("fma size k", finding_text(fma_size), fma_size.evidence);
  line("carry bits", finding_text(carry_bits) + (carry_bits_lower_bound && carry_bits.value ? " (at least)" : ""),
       carry_bits.evidence);
  line("alignment rounding", finding_text(alignment_rounding), alignment_rounding.evidence);
  line("sticky bit", finding_text(sticky_bit), sticky_bit.value ? "" : sticky_bit.evidence);
  line("final rounding", finding_text(final_rounding), final_rounding.evidence);
  line("c placement", finding_text(c_placement), c_placement.evidence);
  if (products_fraction_bits.known() || !products_fraction_bits.evidence.empty())
    line("products' F", finding_text(products_fraction_bits), products_fraction_bits.evidence);
  if (c_placement.value == std::string("late")) {
    line("c entry", finding_text(c_entry), c_entry.evidence);
    if (final_add) line("c added with", finding_text(final_add_rounding), final_add_rounding.evidence);
    std::string b = "unknown";
    if (blocks.value) {
      const auto& v = *blocks.value;
      const bool equal = std::all_of(v.begin(), v.end(), [&](const auto& x) { return x.size() == v.front().size(); });
      b = std::to_string(v.size()) + (v.size() == 1 ? " block" : " blocks");
      if (equal) b += " of " + std::to_string(v.front().size());
      else
        for (std::size_t i = 0; i < v.size(); ++i) b += (i ? ", " : ": ") + std::to_string(v[i].size());
      if (k_split.value) b += " (" + *k_split.value + ")";
    }
    line("instruction blocks", b, blocks.evidence);
    if (final_add) {
      line("block chain", finding_text(block_chain), block_chain.evidence);
      os << "  not observed\n      " << not_observed << "\n";
    }
  }
  line("normalization", finding_text(normalization), normalization.evidence);
  line("min exponent", min_exponent_none ? std::string("none") : finding_text(min_exponent), min_exponent.evidence);
  line("order", finding_text(order), order.evidence);
  line("monotonic", finding_text(monotonic), monotonic.evidence);
  if (monotonic_counterexample) {
    const Format& in = parse_format(in_format);
    const Format& out = parse_format(out_format);
    os << "      x: " << dot_case_text(monotonic_counterexample->first, in, out) << "\n";
    os << "      y: " << dot_case_text(monotonic_counterexample->second, in, out) << "\n";
  }
  if (!fasi2021.empty()) {
    os << "fasi2021 test vectors (" << in_format << " -> " << out_format << "):\n";
    os << fasi2021_to_text(fasi2021);
  }
  return os.str();
}

nlohmann::json ProbeReport::to_json() const {
  nlohmann::json j;
  j["unit"] = unit;
  j["in"] = in_format;
  j["out"] = out_format;
  nlohmann::json ev;
  for_each_finding(*this, [&](const char* name, const auto& f) {
    j[name] = finding_json(f);
    ev[name] = f.evidence;
  });
  if (min_exponent_none) j["min_exponent"] = "none";
  j["carry_bits_lower_bound"] = carry_bits_lower_bound;
  j["not_observed"] = not_observed.empty() ? nlohmann::json(nullptr) : nlohmann::json(not_observed);
  if (monotonic_counterexample) {
    const Format& in = parse_format(in_format);
    const Format& out = parse_format(out_format);
    j["monotonic_counterexample"] = {{"x", dot_case_json(monotonic_counterexample->first, in, out)},
                                     {"y", dot_case_json(monotonic_counterexample->second, in, out)}};
  } else {
    j["monotonic_counterexample"] = nullptr;
  }
  j["evidence"] = ev;
  j["fasi2021"] = fasi2021_to_json(fasi2021);
  j["dot_calls"] = dot_calls;
  return j;
}

}  // namespace tcsim::validation
