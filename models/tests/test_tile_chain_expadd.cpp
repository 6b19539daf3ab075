// Issue 25 (branch h100i): the tile chains scale each product by adding d = F - E' to the
// exponent field of a b's binary32 bits where every live lane of a micro-tile's block has
// d >= 0, and multiply by 2^d as before in blocks with a lane of E' > F (sim/src/
// block_tile_chain.cpp, MicroChain's exp_add). The edges: d = 0 and d < 0 in some lanes (c or
// products of 2^F and more: the multiplying path), d near 120 (wide formats: E near F - 120,
// with products below 2^-126 in binary32 beside it, which truncate to 0 on both paths), zero
// products at every d, subnormal operands, Inf/NaN operands (a special must stop the chain in
// its own block), c zero, small, uniform or large. In ordinary blocks each row of A and column
// of B has one product of larger exponent at its own random position, so each output's E moves
// between products from block to block. Lines: binary32 output (kChainB32Rz), binary16 output
// (F16C on AVX-512, the generic epilogue on the other targets), blocks of two int32 chunks
// (kMulti) and the pairs-mod4 chains (kAdd); against Unit::dot on every SIMD target.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "tile_chain_lines.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::reftest;
using tcsim::test::Rng;

namespace {

const ChainLine kExpaddLines[] = {{"h100", "wgmma", "fp16", "fp32", false},       {"h100", "wgmma", "fp16", "fp16", false},
                            {"h100", "mma.sync", "fp16", "fp16", false},    {"v100", "mma.sync", "fp16", "fp32", false},
                            {"a100", "mma.sync", "bf16", "fp32", false},    {"h100", "mma.sync", "tf32", "fp32", false},
                            {"rtx5090", "mma.sync", "e4m3", "fp16", false}, {"h100", "mma.sync", "e4m3", "fp16", true},
                            {"h100", "mma.sync", "e5m2", "fp32", true}};

// One block of a row of A or a column of B (stride between its operands). kind 0: lead -6 .. -1
// with one operand of lead 2 .. 4 at a random position (the block's largest), now and then a
// zero, a subnormal or tiny value, rarely an Inf/NaN; kind 1: leads near (F + 1) / 2, products
// of 2^F and more (E' > F: the multiplying path); kind 2: leads near (F - 118) / 2 (d near 120 for
// formats that reach it) and some far below (products under 2^-126 in binary32).
void fill_block(const Format& f, Rng& r, std::uint64_t* x, std::size_t len, std::size_t stride, int kind, int F) {
  for (std::size_t t = 0; t < len; ++t) {
    const std::uint64_t u = r.below(64);
    std::uint64_t& v = x[t * stride];
    if (u < 4) v = zero_pattern(f, r);
    else if (u < 7) v = random_subnormal_or_tiny(f, r);
    else if (u == 7 && kind == 0) v = random_special(f, r);
    else if (kind == 1) v = value_with_lead(f, r, (F + 1) / 2 - static_cast<int>(r.below(3)));
    else if (kind == 2) v = value_with_lead(f, r, (F - 118) / 2 - (r.below(4) ? static_cast<int>(r.below(2)) : 20));
    else v = value_with_lead(f, r, -1 - static_cast<int>(r.below(6)));
  }
  if (kind == 0) x[r.below(len) * stride] = value_with_lead(f, r, 2 + static_cast<int>(r.below(3)));
}

// c, by the GEMM's mode: 0 zero, small or uniform; 1 those or large (lead F - 1 .. F + 2 where
// the output reaches it: E' = F and past it from c alone, the multiplying path for its
// micro-tile); 2 zero or tiny (below every product: d near 120 in the wide formats' kind 2
// blocks). One large c sends its micro-tile's block to the multiplying path, and one ordinary
// block lifts c above the tiny products for the blocks after it: hence modes per GEMM.
std::uint64_t expadd_c(const Format& out, Rng& r, int F, int mode) {
  if (mode == 2) return r.below(2) ? zero_pattern(out, r) : value_with_lead(out, r, lowest_lead(out) + static_cast<int>(r.below(4)));
  switch (r.below(6)) {
    case 0: return zero_pattern(out, r);
    case 1: return value_with_lead(out, r, -8 - static_cast<int>(r.below(4)));
    case 2:
      if (mode == 1) return value_with_lead(out, r, std::min(out.emax, F - 1 + static_cast<int>(r.below(4))));
      [[fallthrough]];
    default: return value_with_lead(out, r, -1 - static_cast<int>(r.below(6)));
  }
}

}  // namespace

TEST_CASE("kernel differential: tile chains scaling products by their exponent field, every SIMD target (issue 25, h100i)",
          "[kernel][differential]") {
  Rng r(tcsim::test::seed("kernel differential tile chain exponent add", 0x7c5e0c52));
  const std::uint64_t best = tcsim::test::count(60'000), others = tcsim::test::count(10'000);
  auto draw = [&](const ChainLineRun& l, ChainGemm& g) {
    const std::size_t k = l.k, m = 24, n = 40, K = random_chain_K(r, k, l.line.pairs);
    g.shape(m, n, K);
    // A GEMM of tiny operands and c (kind 2 blocks, c mode 2: d near 120 in every block), one
    // with large c, or one of ordinary blocks with now and then a block of large operands.
    const std::uint64_t u = r.below(4);
    const int c_mode = u == 0 ? 2 : u == 1 ? 1 : 0;
    for (std::size_t p = 0; p < K; p += k) {
      const std::size_t len = std::min(k, K - p);
      const int kind = u == 0 ? 2 : r.below(4) == 0 ? 1 : 0;  // this block's, both operands
      for (std::size_t i = 0; i < m; ++i) fill_block(l.in, r, &g.A[i * K + p], len, 1, kind, l.F);
      for (std::size_t j = 0; j < n; ++j) fill_block(l.in, r, &g.B[p * n + j], len, n, kind, l.F);
    }
    for (auto& x : g.C) x = expadd_c(l.out, r, l.F, c_mode);
  };
  CHECK(chain_lines_differential("tile-chain-expadd", kExpaddLines, best, others, draw) == 0);
}
