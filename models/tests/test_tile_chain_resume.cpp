// Issue 25 (branch h100j): a micro-tile whose chain stopped runs that block on run_tile and
// resumes the chain from the next block (models/src/unit_gemm.cpp); the resumed chain now reads
// B's strip-major copy (strip (j0 + c0) / W, row pos) instead of the row-major B. GEMMs wide
// enough for two column panels (n > 256: j0 > 0) and two or more strips per panel (c0 > 0), K
// long enough for several of the chain's K chunks (over 256 products), and rows that stop
// their micro-tile mid-chain: kernel_cases' edge elements in 1 to 3 random blocks, or (binary16
// outputs) a tiny c carried over zero blocks until a block of tiny products takes the result
// below 2^-14 (the binary16 chain's stop) and uniform blocks after it. Against Unit::dot on every
// SIMD target.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "kernel_cases.hpp"
#include "tile_chain_lines.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::reftest;
using tcsim::test::Rng;

namespace {

const ChainLine kResumeLines[] = {{"h100", "wgmma", "fp16", "fp16"},
                            {"h100", "wgmma", "fp16", "fp32"},
                            {"h100", "mma.sync", "fp16", "fp16"},
                            {"v100", "mma.sync", "fp16", "fp16"}};

// Row i of A (K products, blocks of k) and its c. kind 0: uniform; 1: uniform with edge elements
// in 1 to 3 random blocks (other: a scratch column for fill_element's other operand); 2: zeros
// before a random block j, products near 2^-15 .. 2^-20 in block j (B uniform), uniform after,
// and c with lead -14 .. -12 (block j's result often below 2^-14 or cancelled to zero).
void fill_row(const Format& in, const Format& out, Rng& r, std::size_t k, std::size_t K, std::uint64_t* a,
              std::uint64_t* other, std::uint64_t& c) {
  const std::uint64_t kind = r.below(3);
  for (std::size_t t = 0; t < K; ++t) a[t] = value_with_lead(in, r, -1 - static_cast<int>(r.below(6)));
  c = value_with_lead(out, r, -1 - static_cast<int>(r.below(6)));
  const std::size_t blocks = (K + k - 1) / k;
  if (kind == 1) {
    for (std::uint64_t e = 0, edges = 1 + r.below(3); e < edges; ++e) {
      const std::size_t at = r.below(blocks) * k, len = std::min(k, K - at);
      std::uint64_t unused = 0;
      fill_element(in, out, r, a + at, other + at, len, unused);
    }
  } else if (kind == 2) {
    const std::size_t j = r.below(blocks) * k;
    for (std::size_t t = 0; t < j; ++t) a[t] = zero_pattern(in, r);
    for (std::size_t t = j; t < std::min(K, j + k); ++t) a[t] = value_with_lead(in, r, -14 - static_cast<int>(r.below(5)));
    c = value_with_lead(out, r, -14 + static_cast<int>(r.below(3)));
  }
}

}  // namespace

TEST_CASE("tile chains: resumed chains read B's strip-major copy, every SIMD target (issue 25, h100j)",
          "[kernel][differential]") {
  Rng r(tcsim::test::seed("tile chains resumed strip-major", 0x7c5e0c53));
  const std::uint64_t best = tcsim::test::count(200'000), others = tcsim::test::count(30'000);
  auto draw = [&](const ChainLineRun& l, ChainGemm& g) {
    const Format &in = l.in, &out = l.out;
    const std::size_t k = l.k, m = 8, n = 257 + r.below(100);
    std::size_t K = k * (2 + r.below(40));
    if (r.below(4) == 0) K += 1 + r.below(k - 1);  // a shorter last block
    g.shape(m, n, K);
    std::vector<std::uint64_t> scratch(K), col(K);
    for (std::size_t i = 0; i < m; ++i) {
      std::uint64_t c = 0;
      fill_row(in, out, r, k, K, &g.A[i * K], scratch.data(), c);
      for (std::size_t j = 0; j < n; ++j)
        g.C[i * n + j] = r.below(8) ? c : value_with_lead(out, r, -1 - static_cast<int>(r.below(6)));
    }
    for (std::size_t j = 0; j < n; ++j) {
      std::uint64_t unused = 0;
      if (r.below(8) == 0) fill_row(in, out, r, k, K, col.data(), scratch.data(), unused);
      else
        for (std::size_t s = 0; s < K; ++s) col[s] = value_with_lead(in, r, -1 - static_cast<int>(r.below(6)));
      for (std::size_t s = 0; s < K; ++s) g.B[s * n + j] = col[s];
    }
  };
  CHECK(chain_lines_differential("tile-chain-resume", kResumeLines, best, others, draw) == 0);
}
