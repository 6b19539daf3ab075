// The V100 adder of fasi2021 and its probe report.
#include <sstream>
#include <stdexcept>
#include <vector>

#include "tcsim/validation/probe.hpp"
#include "tcsim/validation/probe_v100_report.hpp"
#include "tcsim/validation/fasi2021_suite.hpp"

namespace tcsim::validation {
namespace {
AdderConfig nvidia_config(const Format& out, int F) {
  if (!(out == formats::fp32()) && !(out == formats::fp16()))
    throw std::invalid_argument("out = " + out.name + ": the fasi2021 adders have fp32 or fp16 output");
  AdderConfig c;
  c.a_format = c.b_format = formats::fp16();
  c.c_format = c.out_format = out;
  c.fraction_bits = F;
  c.carry_bits = 3;
  c.alignment_rounding = Rounding::TowardZero;
  c.sticky_bit = false;
  c.normalization = Normalization::Deferred;
  c.final_rounding = out == formats::fp32() ? Rounding::TowardZero : Rounding::NearestEven;
  c.subnormal_inputs = c.subnormal_outputs = true;
  return c;
}
}  // namespace

AdderConfig v100_adder_config(const Format& out) { return nvidia_config(out, 23); }
AdderConfig t4_a100_adder_config(const Format& out) { return nvidia_config(out, 24); }

BlackBox v100_adder_box(const Format& out) {
  return blackbox_from_adder(v100_adder_config(out), 4, "V100 adder fp16->" + out.name + " (F=23, k=4)");
}
BlackBox t4_a100_adder_box(const Format& out) {
  return blackbox_from_adder(t4_a100_adder_config(out), 8, "T4/A100 adder fp16->" + out.name + " (F=24, k=8)");
}

std::string v100_adder_report() {
  std::ostringstream os;
  const std::vector<BlackBox> boxes = {v100_adder_box(formats::fp32()), v100_adder_box(formats::fp16())};
  os << "V100 tensor-core adder (fasi2021 section 4, units.md): " << v100_adder_config(formats::fp32()).describe()
     << "\n  blocks of k = 4 products chained through c; fp16 output rounds to nearest even\n\n";
  os << "fasi2021 test vectors through the V100 adder (PASS/FAIL against the paper's V100 and T4/A100 "
        "findings):\n";
  os << fasi2021_to_text(run_fasi2021(boxes));
  for (const BlackBox& b : boxes) os << "\n" << probe(b).to_text();
  return os.str();
}

nlohmann::json v100_adder_report_json() {
  const std::vector<BlackBox> boxes = {v100_adder_box(formats::fp32()), v100_adder_box(formats::fp16())};
  nlohmann::json j;
  j["adder"] = v100_adder_config(formats::fp32()).describe();
  j["fasi2021"] = fasi2021_to_json(run_fasi2021(boxes));
  j["probe"] = nlohmann::json::array();
  for (const BlackBox& b : boxes) j["probe"].push_back(probe(b).to_json());
  return j;
}

}  // namespace tcsim::validation
