// Research models for the open real-GPU files (see dump_open_models.hpp).
#include <memory>
#include <stdexcept>

#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/exact.hpp"
#include "tcsim/sim/rounding.hpp"
#include "tcsim/validation/dump_open_models.hpp"

namespace tcsim::validation {

std::vector<std::vector<int>> split_partition(const std::string& name, int K) {
  std::string base = name;
  bool reversed = false;
  const std::string suffix = "-reversed";
  if (base.size() > suffix.size() && base.compare(base.size() - suffix.size(), suffix.size(), suffix) == 0) {
    reversed = true;
    base.resize(base.size() - suffix.size());
  }
  std::vector<std::vector<int>> g(2);
  for (int k = 0; k < K; ++k) {
    bool second;
    if (base == "contiguous") second = k >= K / 2;
    else if (base == "even-odd") second = k % 2 == 1;
    else if (base == "mod4") second = k % 4 >= 2;
    else if (base == "mod8") second = k % 8 >= 4;
    else if (base == "mod16") second = k % 16 >= 8;
    else
      throw std::invalid_argument("partition '" + name +
                                  "' is unknown; allowed: contiguous, even-odd, mod4, mod8, mod16 "
                                  "(each optionally with -reversed)");
    g[second ? 1 : 0].push_back(k);
  }
  if (reversed) std::swap(g[0], g[1]);
  return g;
}

std::uint64_t ieee_add_rne(const Format& fmt, std::uint64_t x, std::uint64_t y) {
  const ExactValue vx = decode(fmt, x), vy = decode(fmt, y);
  if (vx.is_nan() || vy.is_nan()) return fmt.canonical_nan();
  if (vx.is_inf() && vy.is_inf() && vx.negative != vy.negative) return fmt.canonical_nan();
  if (vx.is_inf()) return x;
  if (vy.is_inf()) return y;
  const ExactValue s = exact_add(vx, vy);
  if (s.is_zero()) return fmt.zero(vx.is_zero() && vy.is_zero() && vx.negative && vy.negative);
  RoundingOptions o;
  o.mode = Rounding::NearestEven;
  o.overflow = OverflowMode::Ieee;
  return round_to_format(s, fmt, o).bits;
}

DotFunction make_split_model(const SplitModel& model) {
  auto adder = std::make_shared<FixedPointAdder>(model.block);
  const Format out = model.block.out_format;
  const auto groups = model.groups;
  const CEntry entry = model.c_entry;
  return [adder, out, groups, entry](std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                                     std::uint64_t c) {
    std::uint64_t acc = entry == CEntry::First ? c : out.zero(false);
    std::vector<std::uint64_t> ga, gb;
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      ga.clear();
      gb.clear();
      for (int k : groups[gi]) {
        if (static_cast<std::size_t>(k) >= a.size())
          throw std::invalid_argument("split model: product index " + std::to_string(k) + " >= K = " +
                                      std::to_string(a.size()));
        ga.push_back(a[static_cast<std::size_t>(k)]);
        gb.push_back(b[static_cast<std::size_t>(k)]);
      }
      acc = adder->dot(ga, gb, acc);
      if (gi == 0 && entry == CEntry::AfterFirst) acc = ieee_add_rne(out, acc, c);
    }
    if (entry == CEntry::LateAdd) acc = ieee_add_rne(out, acc, c);
    return acc;
  };
}

SplitModel fp8_mma_sync_emulation_model(const Format& in, const Format& out) {
  const bool binary32 = out == formats::fp32();
  if (!binary32 && out != formats::fp16())
    throw std::invalid_argument("fp8 mma.sync emulation: output '" + out.name + "' is not allowed; allowed: fp32, fp16");
  SplitModel m;
  m.name = std::string("fp8 mma.sync ") + (binary32 ? ".f32" : ".f16") +
           ": fp16 HMMA k=16 (F=25) over k mod 4 in {0,1}, then {2,3}, from 0, each rounded " +
           (binary32 ? "RZ" : "RNE") + "; + c (RNE)";
  m.groups = split_partition("mod4", 32);
  m.block.a_format = m.block.b_format = in;
  m.block.c_format = m.block.out_format = out;
  m.block.fraction_bits = 25;
  m.block.carry_bits = 5;
  m.block.alignment_rounding = Rounding::TowardZero;
  m.block.final_rounding = binary32 ? Rounding::TowardZero : Rounding::NearestEven;
  m.block.min_exponent = binary32 ? -133 : -21;  // the Hopper fp16 row's clamps (KM25)
  m.c_entry = CEntry::LateAdd;
  return m;
}

}  // namespace tcsim::validation
