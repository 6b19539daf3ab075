// block_fma_roundoff (unit.hpp) row by row, and the bound tcsim gemm prints (reference
// gemm_bound fed with the row's roundoffs) against exact MPFR errors of simulated GEMMs on
// every built-in kind of row: the error must never exceed the bound. Without the row's own
// roundoffs (the IEEE binary32 model) the h100 fp8 multiword case below exceeds it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tcsim/models/gemm.hpp"
#include "tcsim/reference/bounds.hpp"
#include "tcsim/reference/gemm_error.hpp"
#include "tcsim/sim/codec.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using tcsim::test::Rng;

TEST_CASE("block_fma_roundoff: u_fma and u_bar of built-in rows", "[gemm_bounds]") {
  SECTION("h100 fp16 -> fp32: RZ to 24 bits, 16 products truncated to F = 25") {
    const auto r = block_fma_roundoff(builtin_unit("h100"), formats::fp16(), formats::fp32());
    CHECK(r.b == 16);
    CHECK(r.u_fma == 0x1p-23);
    CHECK(r.u_bar == 0x1p-25 * 17 / 16);
  }
  SECTION("v100 fp16 -> fp16: RNE to 11 bits, F = 23, b = 4") {
    const auto r = block_fma_roundoff(builtin_unit("v100"), formats::fp16(), formats::fp16());
    CHECK(r.u_fma == 0x1p-11);
    CHECK(r.u_bar == 0x1p-23 * 5 / 4);
  }
  SECTION("h100 e4m3 -> fp32 (wgmma): the result keeps 13 fraction bits") {
    const auto r = block_fma_roundoff(builtin_unit("h100"), formats::e4m3(), formats::fp32());
    CHECK(r.u_fma == 0x1p-13);
    CHECK(r.u_bar == 0x1p-13 * 33 / 32);
  }
  SECTION("h100 e4m3 -> fp32 (mma.sync emulation): block rounding plus the addition of c") {
    const auto r = block_fma_roundoff(builtin_unit("h100"), formats::e4m3(), formats::fp32(), "mma.sync");
    CHECK(r.u_fma == 0x1p-23 + 0x1p-24);
    CHECK(r.how.find("final addition") != std::string::npos);
  }
  SECTION("a100 fp64: normalized at every step, RNE to 53 bits") {
    const auto r = block_fma_roundoff(builtin_unit("a100"), formats::fp64(), formats::fp64());
    CHECK(r.u_fma == 0x1p-53);
    CHECK(r.u_bar == 0x1p-53);
  }
  SECTION("a pair the unit does not have is refused") {
    CHECK_THROWS_WITH(block_fma_roundoff(builtin_unit("v100"), formats::bf16(), formats::fp32()),
                      Catch::Contains("does not support bf16 -> fp32"));
  }
}

namespace {
struct BoundCase {
  std::string unit, in, out, instruction;
  GemmVariant variant = GemmVariant::Unit;
  int words = 1;
  int fabsum = 0;
};

// The bound of the run as tcsim gemm computes it (inputs binary32, so rounded to `in`).
reference::GemmBound bound_of(const Unit& unit, const Format& in, const Format& out, const GemmResult& r,
                              const BoundCase& c, std::size_t k) {
  reference::GemmBoundQuery q;
  q.variant = r.variant;
  q.k = static_cast<double>(k);
  q.b = unit.datapath(in, out, c.instruction).fma_size;
  q.u_low = reference::bounds::unit_roundoff(in);
  q.u_high = reference::bounds::unit_roundoff(r.variant == "unit" ? out : formats::fp32());
  q.words = c.words;
  q.fabsum_block = c.fabsum;
  const Format& acc = r.variant == "tc16" ? formats::fp16() : r.variant == "tc32" ? formats::fp32() : out;
  const BlockFmaRoundoff ro = block_fma_roundoff(unit, in, acc, c.instruction);
  q.u_fma = ro.u_fma;
  q.u_bar = ro.u_bar;
  q.roundoff_how = ro.how;
  return reference::gemm_bound(q);
}
}  // namespace

TEST_CASE("gemm: the componentwise error never exceeds the printed bound", "[gemm_bounds]") {
  const std::vector<BoundCase> cases = {
      {"v100", "fp16", "fp32", "", GemmVariant::Tc16},
      {"v100", "fp16", "fp32", "", GemmVariant::Tc32},
      {"h100", "fp16", "fp32", ""},
      {"h100", "bf16", "fp32", "", GemmVariant::Unit, 1, 32},
      {"h100", "e4m3", "fp32", ""},
      {"h100", "e4m3", "fp32", "", GemmVariant::Unit, 2},  // above the binary32-model bound
      {"h100", "e5m2", "fp32", "mma.sync"},
      {"b200", "e2m1", "fp32", "tcgen05.mxf4nvf4"},
      {"a100", "fp64", "fp64", ""},
  };
  const std::uint64_t seed = tcsim::test::seed("gemm error <= bound", 20261123);
  Rng rng(seed);
  const std::size_t m = 4, n = 4, k = 1024;
  for (const auto& c : cases) {
    const Unit& unit = builtin_unit(c.unit);
    const Format& in = parse_format(c.in, "in");
    const Format& out = parse_format(c.out, "out");
    for (int dist = 0; dist < 2; ++dist) {  // all positive (no cancellation: the tight case), then [-1, 1)
      std::vector<double> A(m * k), B(k * n), C(m * n, 0.0);
      for (auto* v : {&A, &B})
        for (auto& x : *v) {
          const double r01 = static_cast<double>(rng.next() >> 11) * 0x1p-53;
          x = static_cast<float>(dist == 0 ? r01 : 2 * r01 - 1);
        }
      GemmOptions o;
      o.instruction = c.instruction;
      o.variant = c.variant;
      o.words = c.words;
      o.fabsum_block = c.fabsum;
      o.threads = 1;
      const GemmResult r = simulate_gemm(unit, in, out, m, n, k, A, B, C, o);
      const auto err = reference::gemm_errors(m, n, k, A, B, C, r.D, {}, 1);
      const auto bound = bound_of(unit, in, out, r, c, k);
      INFO(c.unit << " " << c.in << " -> " << c.out << " " << c.instruction << " variant " << r.variant << " words "
                  << c.words << " fabsum " << c.fabsum << " dist " << dist << ": error " << err.componentwise
                  << " bound " << bound.componentwise << " (" << bound.source << ")");
      CHECK(err.componentwise > 0);
      CHECK(err.componentwise <= bound.componentwise);
    }
  }
}

TEST_CASE("gemm_bound: the row's roundoffs enter eq. (3.5) with both errors present", "[gemm_bounds]") {
  reference::GemmBoundQuery q;
  q.variant = "tc32";
  q.k = 1024;
  q.b = 32;
  q.u_low = 0x1p-4;
  q.inputs_exact = true;
  q.u_fma = 0x1p-13;
  q.u_bar = 0x1p-13 * 33 / 32;  // u_bar >= u_fma: blanchard2020 would drop the final rounding
  q.roundoff_how = "test";
  const double gt = reference::bounds::gamma(32, q.u_fma), gb = reference::bounds::gamma(1024, q.u_bar);
  const auto b = reference::gemm_bound(q);
  CHECK(b.componentwise == gt + gb + gt * gb);
  CHECK(b.source == "blanchard2020 Thm 3.1 eq. (3.5), block FMA (tc32) with the row's test");
  q.inputs_exact = false;
  CHECK(reference::gemm_bound(q).componentwise ==
        2 * q.u_low + q.u_low * q.u_low + (gt + gb + gt * gb) * (1 + q.u_low) * (1 + q.u_low));
}
