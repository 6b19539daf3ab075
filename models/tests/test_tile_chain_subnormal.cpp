// Issue 25 (branch h100k): the plain binary16 tile chains (F16C, AVX-512) carry block results
// below 2^-14 as subnormal c instead of stopping the micro-tile, where the row keeps subnormal
// outputs and inputs (LaneParams::out_subnormals); results below 2^-24 (which may round to
// zero) still stop. The edges: results just above and below 2^-24, subnormal c carried over
// blocks of zero products (its e_ref -14, not its exponent), subnormal results that grow
// back to normal ones, cancellation to zero, subnormal operands, Inf/NaN, zero c. Against
// Unit::dot on every SIMD target; the other targets (no F16C) stop there as before.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "operand_gen.hpp"
#include "tcsim/sim/block_kernel.hpp"
#include "tile_chain_lines.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::reftest;
using tcsim::test::Rng;

namespace {

// pairs-mod4 lines keep the 2^-14 stop in their binary16 chains; so do the user copies that
// flush subnormal outputs or inputs.
const ChainLine kSubnormalLines[] = {{"h100", "wgmma", "fp16", "fp16", false},
                            {"h100", "mma.sync", "fp16", "fp16", false},
                            {"v100", "mma.sync", "fp16", "fp16", false},
                            {"a100", "mma.sync", "fp16", "fp16", false},
                            {"rtx5090", "mma.sync", "e4m3", "fp16", false},
                            {"h100", "mma.sync", "e4m3", "fp16", true},
                            {"h100", "wgmma", "fp16", "fp16", false, "rz"},
                            {"h100", "wgmma", "fp16", "fp16", false, "ru"},
                            {"h100", "wgmma", "fp16", "fp16", false, "rd"},
                            {"h100", "wgmma", "fp16", "fp16", false, "", true},
                            {"h100", "wgmma", "fp16", "fp16", false, "", false, true}};

// One block of a row of A or a column of B (stride between its operands), by kind: 0 tiny
// (products near 2^-18 .. 2^-26: block sums in binary16's subnormal range), 1 zero (c carried),
// 2 uniform (lead -6 .. -1: back to normal results), 3 tiny with now and then a subnormal
// operand, a zero or an Inf/NaN. Random signs: sums cancel, some below 2^-24 or to zero.
// Kind 4 (fp16, tie GEMMs): a = (2^-12, 2^-20, 0, ...), b = (2^-13, 2^-24, 0, ...): products
// 2^-25 (half of binary16's subnormal quantum) and 2^-44, which truncates to 0 where E is a
// subnormal c's e_ref -14, so that c + 2^-25 is a tie (an E from c's exponent instead keeps
// part of 2^-44 and rounds the tie up).
void fill_block(const Format& f, Rng& r, std::uint64_t* x, std::size_t len, std::size_t stride, int kind, bool is_a) {
  const int top = f.emax >= 15 ? -9 : -4;  // fp16; e4m3's leads reach -9 (subnormals)
  if (kind == 4) {
    for (std::size_t t = 0; t < len; ++t) x[t * stride] = f.zero(false);
    REQUIRE(power_of_two(f, is_a ? -12 : -13, false, x[0]));
    if (len > 1) REQUIRE(power_of_two(f, is_a ? -20 : -24, false, x[stride]));
    return;
  }
  for (std::size_t t = 0; t < len; ++t) {
    std::uint64_t& v = x[t * stride];
    const std::uint64_t u = r.below(32);
    if (kind == 1) v = zero_pattern(f, r);
    else if (kind == 2) v = value_with_lead(f, r, -1 - static_cast<int>(r.below(6)));
    else if (kind == 3 && u == 0) v = random_special(f, r);
    else if (kind == 3 && u < 4) v = random_subnormal_or_tiny(f, r);
    else if (kind == 3 && u < 6) v = zero_pattern(f, r);
    else v = value_with_lead(f, r, top - static_cast<int>(r.below(5)));
  }
}

// c: subnormal (lead -24 .. -15), 2^-24 itself, just above 2^-14, zero, or uniform.
std::uint64_t small_c(const Format& out, Rng& r) {
  switch (r.below(8)) {
    case 0: return zero_pattern(out, r);
    case 1: return out.sign_mask() * (r.next() & 1) | 1;  // +-2^-24
    case 2: return value_with_lead(out, r, -14);
    case 3: return value_with_lead(out, r, -1 - static_cast<int>(r.below(6)));
    default: return value_with_lead(out, r, -15 - static_cast<int>(r.below(10)));
  }
}

}  // namespace

TEST_CASE("kernel differential: binary16 tile chains carrying subnormal results, every SIMD target (issue 25, h100k)",
          "[kernel][differential]") {
  Rng r(tcsim::test::seed("kernel differential tile chain subnormal", 0x7c5e0c54));
  const std::uint64_t best = tcsim::test::count(100'000), others = tcsim::test::count(15'000);
  auto draw = [&](const ChainLineRun& l, ChainGemm& g) {
    const Format &in = l.in, &out = l.out;
    const std::size_t k = l.k, m = 24, n = 40, K = random_chain_K(r, k, l.line.pairs);
    g.shape(m, n, K);
    // A quarter of the fp16 GEMMs: ties (kind 4) after zero blocks (kind 1) on positive
    // subnormal c, carried from block to block.
    const bool ties = in.emin <= -14 && r.below(4) == 0;
    for (std::size_t p = 0; p < K; p += k) {
      const std::size_t len = std::min(k, K - p);
      const std::uint64_t u = r.below(8);
      const int kind = ties ? (p > 0 && u < 5 ? 4 : 1) : u < 4 ? 0 : u < 6 ? 1 : u == 6 ? 3 : 2;  // both operands
      for (std::size_t i = 0; i < m; ++i) fill_block(in, r, &g.A[i * K + p], len, 1, kind, true);
      for (std::size_t j = 0; j < n; ++j) fill_block(in, r, &g.B[p * n + j], len, n, kind, false);
    }
    for (auto& x : g.C)
      x = ties ? value_with_lead(out, r, -15 - static_cast<int>(r.below(10))) & ~out.sign_mask() : small_c(out, r);
  };
  CHECK(chain_lines_differential("tile-chain-subnormal", kSubnormalLines, best, others, draw) == 0);
}

TEST_CASE("tile chains: binary16 results below 2^-14 stop the chain only below 2^-24 with F16C (issue 25, h100k)",
          "[kernel][tiles]") {
  // h100 fp16 -> fp16: a micro-tile whose c are subnormal (2^-23 and random ones) and whose
  // products are tiny and positive runs every block on AVX-512 (its results subnormal, then
  // normal); one row's block 3 taking its result from 2^-23 to 2^-26 stops it there. Targets
  // without the F16C chain stop at block 0 (a subnormal result) as before.
  const Unit& unit = builtin_unit("h100");
  const Format &in = parse_format("fp16"), &out = parse_format("fp16");
  const DatapathSpec& row = unit.datapath(in, out, "wgmma");
  const std::size_t k = static_cast<std::size_t>(row.fma_size);
  Rng r(tcsim::test::seed("tile chains subnormal stops", 0x7c5e0c55));
  std::size_t checked_f16c = 0;
  each_simd_target([&](const std::string& name, bool) {
    INFO(name);
    const BlockKernel kernel(unit.adder(in, out, row.instruction).config(), k);
    REQUIRE(kernel.tile_supported());
    const std::size_t rows = kernel.tile_rows(), cols = kernel.tile_columns(), K = 6 * k;
    // AVX-512's chains are 2 x 16 columns wide (the F16C chain); others narrower.
    const bool f16c = name.rfind("AVX3", 0) == 0 && cols == 32;
    std::vector<std::uint64_t> a(rows * K), b(K * cols), c(rows * cols), d(c.size());
    std::vector<float> av(a.size()), bv(b.size()), cv(c.size());
    std::vector<std::int16_t> ae(a.size()), be(b.size());
    std::vector<std::int32_t> ce(c.size());
    std::uint64_t p2m12 = 0;
    REQUIRE(power_of_two(in, -12, true, p2m12));  // -2^-12
    // Rows 0, 2, 3: products 2^-18 .. 2^-21, 16 of them per block: from subnormal c through
    // subnormal results to normal ones. Row 1: zero products (c carried).
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t t = 0; t < K; ++t) a[i * K + t] = i == 1 ? in.zero(false) : value_with_lead(in, r, -8) & ~in.sign_mask();
    for (auto& x : b) x = value_with_lead(in, r, -10 - static_cast<int>(r.below(2))) & ~in.sign_mask();
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j)
        c[i * cols + j] = i == 1 ? std::uint64_t{4} : value_with_lead(out, r, -24 + static_cast<int>(r.below(6))) & ~out.sign_mask();
    auto chain = [&](std::size_t& stop) {
      kernel.decode_tile(BlockKernel::Role::A, a.size(), a.data(), av.data(), ae.data());
      kernel.decode_tile(BlockKernel::Role::B, b.size(), b.data(), bv.data(), be.data());
      kernel.decode_tile(BlockKernel::Role::C, c.size(), c.data(), cv.data(), ce.data());
      return kernel.run_tile_chain(rows, cols, cols, K, k, av.data(), ae.data(), K, bv.data(), be.data(), cols,
                                   cv.data(), ce.data(), d.data(), cols, &stop);
    };
    std::size_t stop = 0;
    if (!chain(stop)) {  // HWY_SCALAR has no chain
      CHECK(name == "SCALAR");
      return;
    }
    CHECK(stop == (f16c ? K : 0));
    if (f16c) {
      // Row 1 (c = 2^-22 = pattern 4, zero products) ends as c; row 0 grew past 2^-14.
      for (std::size_t j = 0; j < cols; ++j) CHECK(d[1 * cols + j] == 4);
      CHECK(cv[0] >= 0x1p-14f);
    }
    // Row 1, block 3: one product -2^-12 (2^-11 - 2^-14) = -(2^-23 - 2^-26) on c = 2^-22 leaves
    // 2^-22 - 2^-23 + 2^-26 in the sum: above 2^-24, carried; with c = 2^-23, 2^-26: stopped.
    a[1 * K + 3 * k] = p2m12;
    for (std::size_t j = 0; j < cols; ++j) b[3 * k * cols + j] = 0x0f00;  // 1.75 x 2^-12 (field 3, fraction 0x300)
    REQUIRE(chain(stop));
    CHECK(stop == (f16c ? K : 0));
    for (std::size_t j = 0; j < cols; ++j) c[1 * cols + j] = 2;  // 2^-23
    REQUIRE(chain(stop));
    CHECK(stop == (f16c ? 3 * k : 0));
    if (f16c) ++checked_f16c;
  });
  std::printf("[tile-chain-subnormal] stops checked with the F16C chain on %zu target(s)\n", checked_f16c);
}
