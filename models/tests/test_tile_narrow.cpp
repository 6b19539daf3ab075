// Issue 25: block_tile (sim/src/block_tile.cpp) rounds outputs narrower than binary32 (fp16,
// the 13-bit binary32 results of Ada and Hopper fp8, bf16, fp8, rz/rd/ru/rne) inside its
// binary32 epilogue, from the truncated binary32 bits and a sticky bit, flagging tiny,
// overflowing and zero results to the exact path. Unit::gemm against Unit::dot (the reference
// adder and chaining) on every built-in pair whose tiles now take that epilogue and on user rows
// with the roundings and formats the table lacks, with kernel_cases.hpp's elements and ties at
// the narrow precision (c with at most p bits and one product half an ulp of it).
// TCSIM_TILE_NARROW_BLOCKS=N checks N block FMAs per pair (default 2 x 10^5, scaled by
// TCSIM_TEST_SCALE); docs/performance.md records the long run.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "diff_checks.hpp"
#include "kernel_cases.hpp"
#include "models_test_helpers.hpp"
#include "tcsim/sim/block_kernel.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::reftest;
using tcsim::test::Rng;

namespace {

std::uint64_t blocks_per_pair() {
  if (const char* env = std::getenv("TCSIM_TILE_NARROW_BLOCKS")) return std::strtoull(env, nullptr, 0);
  return tcsim::test::count(200'000);
}

// A tie at precision p: c with at most p significant bits, one product exactly half an ulp of
// c's binade at p bits, sometimes a tiny extra term (above the tie: a sticky bit).
void fill_tie(const Format& in, const Format& out, int p, Rng& r, std::uint64_t* a, std::uint64_t* b, std::size_t K,
              std::uint64_t& c) {
  for (std::size_t t = 0; t < K; ++t) a[t] = b[t] = 0;
  const int lo = std::max(out.emin, 2 * lowest_lead(in) + p);
  const int lead = r.range(lo, std::max(lo, std::min(out.emax, 2 * in.emax - 1)));
  c = value_with_lead(out, r, lead) & ~((std::uint64_t{1} << (out.precision - p)) - 1);
  const int half = lead - p;
  const int ea = std::clamp(half / 2, lowest_lead(in), in.emax);
  std::uint64_t pa = 0, pb = 0;
  if (K > 0 && power_of_two(in, ea, r.next() & 1, pa) && power_of_two(in, half - ea, false, pb)) {
    a[0] = pa;
    b[0] = pb;
  }
  if (K > 1 && r.below(2)) {
    a[1] = value_with_lead(in, r, lowest_lead(in) + static_cast<int>(r.below(3)));
    b[1] = value_with_lead(in, r, lowest_lead(in) + static_cast<int>(r.below(3)));
  }
}

// 48 x 40 GEMMs (tiles, padding and task edges) with K of one or two instructions plus a
// remainder until `total` block FMAs are checked; returns the mismatches (the first 3 printed).
std::uint64_t gemm_check(const Unit& unit, const DatapathSpec& row, const Format& in, const Format& out, int p, Rng& r,
                         std::uint64_t total, const std::string& label) {
  const std::size_t k = static_cast<std::size_t>(row.fma_size);
  const std::size_t instruction_k = row.k_split == KSplit::PairsMod4 ? 2 * k : k;
  const std::size_t m = 48, n = 40;
  std::uint64_t blocks = 0, outputs = 0, mismatches = 0;
  auto fill = [&](std::uint64_t* a, std::uint64_t* b, std::size_t K, std::uint64_t& c) {
    if (r.below(4) == 0) fill_tie(in, out, p, r, a, b, K, c);
    else fill_element(in, out, r, a, b, K, c);
  };
  while (blocks < total) {
    std::size_t K = instruction_k * (1 + r.below(2));  // named draws: operand order is unspecified
    K += r.below(3);
    std::vector<std::uint64_t> A(m * K), B(K * n), C(m * n);
    fill_gemm(m, n, K, A, B, C, fill);
    const std::vector<std::uint64_t> D = unit.gemm(in, out, m, n, K, A, B, C, row.instruction, 1);
    gemm_mismatches(unit, in, in, out, m, n, K, A, B, C, D, row.instruction, {"tile-narrow", label}, mismatches);
    outputs += m * n;
    blocks += m * n * std::max<std::size_t>(1, (K + k - 1) / k);
  }
  std::printf("[tile-narrow] %-44s %llu GEMM outputs, %llu block FMAs, %llu mismatches\n", label.c_str(),
              static_cast<unsigned long long>(outputs), static_cast<unsigned long long>(blocks),
              static_cast<unsigned long long>(mismatches));
  return mismatches;
}

// The precision a pair's blocks round to on the tiles, or 0 when its GEMM is not on the tiles.
int tile_precision(const Unit& unit, const Format& in, const Format& out, const std::string& instruction) {
  if (unit.batch_path(in, out, instruction) != "kernel") return 0;
  const AdderConfig& cfg = unit.adder(in, out, instruction).config();
  const BlockKernel kernel(cfg, static_cast<std::size_t>(unit.datapath(in, out, instruction).fma_size));
  return kernel.tile_supported() ? cfg.out_format.precision : 0;
}

}  // namespace

TEST_CASE("tile narrow outputs: built-in pairs rounded below 24 bits on the tiles", "[kernel][differential]") {
  Rng r(tcsim::test::seed("tile narrow built-in", 0x7c5e1a00));
  const std::uint64_t total = blocks_per_pair();
  const char* only = std::getenv("TCSIM_TILE_NARROW_ONLY");  // long runs split by label
  std::size_t pairs = 0;
  for (const auto& spec : builtin_unit_specs()) {
    const Unit& unit = builtin_unit(spec.name);
    for (const auto& row : unit.spec().datapaths) {
      if (row.block_scale) continue;
      for (const auto& in_name : row.input_formats)
        for (const auto& out_name : row.output_formats) {
          const Format &in = parse_format(in_name), &out = parse_format(out_name);
          const int p = tile_precision(unit, in, out, row.instruction);
          if (p == 0 || p >= 24) continue;
          ++pairs;
          const std::string label = spec.name + " " + (row.instruction.empty() ? "(any)" : row.instruction) + " " +
                                    in.name + "->" + out.name + " p" + std::to_string(p);
          if (only && label.find(only) == std::string::npos) continue;
          INFO(label);
          CHECK(gemm_check(unit, row, in, out, p, r, total, label) == 0);
        }
    }
  }
  CHECK(pairs >= 20);  // fp16 outputs of every NVIDIA unit, Ada/Hopper fp8 -> fp32 (13 bits), the emulation's blocks
}

TEST_CASE("tile narrow outputs: user rows rz, rd, ru, rne into fp16, bf16, e4m3, e5m2 and 13-bit binary32",
          "[kernel][differential]") {
  Rng r(tcsim::test::seed("tile narrow user rows", 0x7c5e1a01));
  const std::uint64_t total = blocks_per_pair();
  const char* only = std::getenv("TCSIM_TILE_NARROW_ONLY");
  struct Variant {
    const char* out;
    Rounding rounding;
    int result_bits;  // 0: none
  };
  std::size_t pairs = 0;
  for (const Variant v : {Variant{"fp16", Rounding::TowardZero, 0}, Variant{"fp16", Rounding::Down, 0},
                          Variant{"fp16", Rounding::Up, 0}, Variant{"bf16", Rounding::NearestEven, 0},
                          Variant{"bf16", Rounding::Down, 0}, Variant{"e4m3", Rounding::NearestEven, 0},
                          Variant{"e5m2", Rounding::Up, 0}, Variant{"fp32", Rounding::NearestEven, 13},
                          Variant{"fp32", Rounding::Down, 13}, Variant{"fp32", Rounding::Up, 9}}) {
    DatapathSpec row = builtin_unit("h100").datapath(formats::fp16(), formats::fp32());
    row.output_formats = {v.out};
    row.final_rounding = {{v.out, v.rounding}};
    row.min_exponent.clear();
    if (std::string(v.out) == "fp16") row.min_exponent = {{"fp16", -21}};
    row.nan_pattern.clear();
    row.result_fraction_bits.clear();
    if (v.result_bits) row.result_fraction_bits = {{v.out, v.result_bits}};
    UnitSpec spec;
    spec.name = std::string("user-") + v.out + "-" + to_string(v.rounding) +
                (v.result_bits ? "-r" + std::to_string(v.result_bits) : "");
    spec.architecture = "user";
    spec.datapaths = {row};
    const Unit unit(spec);
    const Format &in = formats::fp16(), &out = parse_format(v.out);
    const int p = tile_precision(unit, in, out, "");
    const std::string label = spec.name + " fp16->" + out.name + " p" + std::to_string(p);
    INFO(label);
    REQUIRE(p > 0);
    REQUIRE(p < 24);
    ++pairs;
    if (only && label.find(only) == std::string::npos) continue;
    CHECK(gemm_check(unit, row, in, out, p, r, total, label) == 0);
  }
  CHECK(pairs == 10);
}
