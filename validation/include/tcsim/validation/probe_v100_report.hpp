// The V100 adder of fasi2021 as a black box, and its report: the fasi2021 test vectors
// and the probe, as `tcsim report` prints them.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "tcsim/sim/adder.hpp"
#include "tcsim/validation/probe_blackbox.hpp"

namespace tcsim::validation {

// fasi2021's V100 datapath (section 4, units.md row "Volta"): binary16 a and b, F = 23,
// 3 carry bits, truncation in alignment, deferred normalization, RZ into binary32 and
// RNE into binary16. `out` is fp32 or fp16 (std::invalid_argument otherwise).
AdderConfig v100_adder_config(const Format& out);
// T4/A100 (section 3.2/3.3): the same with F = 24.
AdderConfig t4_a100_adder_config(const Format& out);
// Black boxes of these adders chained in blocks of k = 4 (V100) and k = 8 (T4/A100).
BlackBox v100_adder_box(const Format& out);
BlackBox t4_a100_adder_box(const Format& out);

// fasi2021 cases over the V100 adder (fp16->fp32 and fp16->fp16) and the probe of both
// pairs, as text / JSON {"adder", "fasi2021", "probe": [..]}.
std::string v100_adder_report();
nlohmann::json v100_adder_report_json();

}  // namespace tcsim::validation
