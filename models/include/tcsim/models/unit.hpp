// Unit models: a tensor-core unit is a table of datapaths (data) over the fixed-point
// adder, plus chaining of block FMAs. Adding a GPU is adding rows (unit_table.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tcsim/sim/adder.hpp"
#include "tcsim/sim/format.hpp"

namespace tcsim::models {

// One datapath of a unit: the user-defined-unit JSON schema of issue 3, one row.
// A row covers every (input, output) pair of its format lists.
struct DatapathSpec {
  std::string instruction;                  // "" (default datapath), "mma.sync", "tcgen05", "wgmma", ...
  std::vector<std::string> input_formats;   // names as parse_format accepts
  std::vector<std::string> output_formats;
  int fma_size = 4;                         // products per block FMA (k)
  int fraction_bits = 23;                   // F
  int carry_bits = 3;
  Rounding alignment_rounding = Rounding::TowardZero;
  bool sticky_bit = false;
  Normalization normalization = Normalization::Deferred;
  AccumulationOrder order = AccumulationOrder::LargestFirst;
  CPlacement c_placement = CPlacement::Aligned;
  std::map<std::string, Rounding> final_rounding;        // per output format name
  std::map<std::string, int> min_exponent;              // optional clamp per output format
  bool subnormal_inputs = true;
  bool subnormal_outputs = true;
  std::optional<std::uint64_t> nan_pattern_fp32;         // e.g. 0x7fffffff (X25)
  std::optional<std::uint64_t> nan_pattern_fp16;         // e.g. 0x7fff
  std::string evidence;                                  // sources: data files, papers, probes
};

struct UnitSpec {
  std::string name;                     // canonical: v100, t4, a100, l40s, h100, b200, or user's
  std::string architecture;             // volta, turing, ampere, ada, hopper, blackwell, user
  std::vector<std::string> aliases;     // accepted names (a2, a30, ada, h200, ...)
  std::vector<DatapathSpec> datapaths;
};

}  // namespace tcsim::models
