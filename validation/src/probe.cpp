// The black-box feature probe (probe.hpp): the order of the experiments and the entry
// points; methodology in docs/probe.md. The experiments live in probe_layout.cpp (terms as
// bit patterns), probe_inputs.cpp, probe_structure.cpp, probe_rounding.cpp,
// probe_placement.cpp and probe_accumulation.cpp; the report's text and JSON in
// probe_report.cpp.
#include <stdexcept>

#include "probe_prober.hpp"

namespace tcsim::validation {

std::string rounding_name(Rounding r) { return to_string(r); }  // sim's names: rne, rz, ...

namespace detail {

Prober::Prober(const BlackBox& box, const ProbeOptions& opt) : box_(box), in_(box.in), out_(box.out), opt_(opt) {
  rep_.unit = box.name;
  rep_.in_format = in_.name;
  rep_.out_format = out_.name;
  rng_ = opt.seed ? opt.seed : 1;
}

ProbeReport Prober::run() {
  subnormals();
  fraction_bits();
  subnormals_against_register();
  result_precision();
  fma_size();
  alignment_rounding();
  c_placement();
  instruction_structure();  // with c entry final-add, the experiments from here on see the blocks
  if (rep_.c_placement.value == std::string("late") && rep_.c_entry.value != std::string("final-add"))
    products_fraction_bits();
  carry_bits();
  final_rounding();
  products_exact();
  normalization();
  exponent_clamp();
  order();
  if (!view_.empty()) {
    for (std::string* ev : {&rep_.fraction_bits.evidence, &rep_.result_fraction_bits.evidence, &rep_.fma_size.evidence,
                            &rep_.carry_bits.evidence, &rep_.alignment_rounding.evidence, &rep_.sticky_bit.evidence,
                            &rep_.final_rounding.evidence, &rep_.normalization.evidence, &rep_.min_exponent.evidence,
                            &rep_.order.evidence})
      *ev = "[blocks, c = +0] " + *ev;
    view_.clear();  // monotonicity is a property of the whole instruction, c included
  }
  monotonicity();
  rep_.dot_calls = calls_;
  return rep_;
}

}  // namespace detail

ProbeReport probe(const BlackBox& box, const ProbeOptions& options) {
  if (!box.dot) throw std::invalid_argument("probe: the black box has no dot function");
  detail::Prober p(box, options);
  return p.run();
}

ProbeReport probe_with_fasi2021(const BlackBox& box, const ProbeOptions& options) {
  ProbeReport r = probe(box, options);
  std::vector<Fasi2021Case> mine;
  for (const auto& t : fasi2021_cases())
    if (parse_format(t.in_format) == box.in && parse_format(t.out_format) == box.out) mine.push_back(t);
  r.fasi2021 = run_fasi2021(std::span<const BlackBox>(&box, 1), mine);
  return r;
}

}  // namespace tcsim::validation
