// Research models for the real-GPU files no unit row reproduces yet (the H100 fp8 ->
// binary16 mma.sync files), built from sim adders so that the validator can run them
// (docs/research/h100_fp8_fp16.md).
//
// SplitModel: the K products are split into groups (a partition of 0..K-1, in order); each
// group is one block FMA of `block` (a fixed-point adder whose c and output format is the
// output format), chained through the output format. The accumulator input c either enters
// the first block (CEntry::First) or the chain starts from +0 and c is added at the end by
// one IEEE addition rounded to nearest even in the output format (CEntry::LateAdd), or c is
// added after the first block (CEntry::AfterFirst).
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

// The model that reproduces all 5,000 cases of both H100 fp8 -> binary16 files: Hopper has
// no fp8 mma.sync; the compiler converts fp8 to fp16 (exact) and runs two fp16 HMMA k = 16
// steps (the Hopper fp16 datapath: F = 25, truncation, RNE to binary16) from a zero
// accumulator over k mod 4 in {0,1} and then k mod 4 in {2,3}, and adds c (binary16) at the
// end with one binary16 addition (RNE). `in` is e4m3 or e5m2; K must be 32.
SplitModel h100_fp8_fp16_mma_sync_model(const Format& in);

}  // namespace tcsim::validation
