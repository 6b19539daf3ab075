// Research models for real-GPU files, built from sim adders so that the validator can run
// them: how the fp8 mma.sync emulation was found (docs/research/h100_fp8_fp16.md), and the
// candidate models that the B200 vectors separate.
//
// SplitModel: the K products are split into groups (a partition of 0..K-1, in order); each
// group is one block FMA of `block` (a fixed-point adder whose c and output format is the
// output format), chained through the output format. The accumulator input c either enters
// the first block (CEntry::First) or the chain starts from +0 and c is added at the end by
// one IEEE addition rounded to nearest even in the output format (CEntry::LateAdd), or c is
// added after the first block (CEntry::AfterFirst). Each block rounds with block.final_rounding.
#pragma once
#include <string>
#include <vector>

#include "tcsim/sim/adder.hpp"
#include "tcsim/sim/format.hpp"
#include "tcsim/validation/dump_validate.hpp"

namespace tcsim::validation {

enum class CEntry { First, LateAdd, AfterFirst };

struct SplitModel {
  std::vector<std::vector<int>> groups;  // indices of the products, one vector per block
  AdderConfig block;                     // formats, F, rounding of one block FMA
  CEntry c_entry = CEntry::First;
  std::string name;
};

// Named partitions of 0..K-1 into two halves: "contiguous" (first K/2, last K/2),
// "even-odd" (k even, k odd), "mod4" (k mod 4 in {0,1}, then {2,3}), "mod8" (k mod 8 < 4,
// then >= 4), "mod16"; with the suffix "-reversed" the second group goes first.
// Throws std::invalid_argument listing the names.
std::vector<std::vector<int>> split_partition(const std::string& name, int K);

// IEEE addition x + y of two patterns of `fmt`, rounded to nearest even (+0 for an exact
// zero sum unless both are -0), as a binary16 HADD does.
std::uint64_t ieee_add_rne(const Format& fmt, std::uint64_t x, std::uint64_t y);

DotFunction make_split_model(const SplitModel& model);

// An independent second implementation of the units' fp8 mma.sync row on Hopper and
// Blackwell (k_split pairs-mod4, c_entry final-add): fp8 converted to fp16 (exact), two fp16
// HMMA k = 16 steps (F = 25, truncation; rounded RZ to binary32 / RNE to binary16) from a
// zero accumulator over k mod 4 in {0,1} and then {2,3}, and c added at the end by one
// IEEE addition, RNE. Reproduces both H100 binary16 files (5,000/5,000 each) and the B200
// vectors. `in` is e4m3 or e5m2, `out` fp32 or fp16; K must be 32.
SplitModel fp8_mma_sync_emulation_model(const Format& in, const Format& out);

}  // namespace tcsim::validation
