// Issue 25 (branch h100m): the tile chains take a block's E from the maxima of its row of A and
// column of B (sim/src/block_tile_emax-inl.h) in the rows of a micro-tile where those decide
// every lane (the maxima at a shared position, or c's e_ref at least their sum); in the other
// rows the product loop.
// The GEMMs here are built to reach both sides: in each block every row of A and column of B
// has its largest operand at one random position (now and then at two), so the maxima are
// often at different positions, and the operands below it spread over 12 binades (a wrong,
// larger E truncates their terms differently); each block moves its leads by up to 2 binades,
// so c's e_ref falls below, at and above the maxima's sum; zeros, rows and columns of zeros,
// subnormal and tiny operands, Inf/NaN, short last blocks; c zero, tiny, near the first block's
// bound or large; and blocks whose products all lie 12 binades below the maxima's sum, with the
// maxima at different positions. Lines: blocks of 16 products (binary32 and binary16 outputs),
// and as controls (no maxima: the product loop) the pairs-mod4 chain, blocks of 4 and 8 and of
// two int32 chunks; against Unit::dot on every SIMD target.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "tile_chain_lines.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::reftest;
using tcsim::test::Rng;

namespace {

const ChainLine kEmaxLines[] = {
    {"h100", "wgmma", "fp16", "fp32", false},    {"h100", "wgmma", "fp16", "fp16", false},
    {"h100", "mma.sync", "fp16", "fp16", false}, {"a100", "mma.sync", "fp16", "fp32", false},
    {"h100", "mma.sync", "e4m3", "fp16", true},  {"v100", "mma.sync", "fp16", "fp32", false},
    {"a100", "mma.sync", "bf16", "fp32", false}, {"rtx5090", "mma.sync", "e4m3", "fp16", false}};

// One block of a row of A or a column of B (stride between its operands), leads around `base`:
// the largest at one random position (in one block of 8 at a second one too), the others 1 to
// 12 binades below; now and then a zero, a subnormal or tiny value, rarely Inf/NaN; in one
// block of 16 all zeros.
void fill_block(const Format& f, Rng& r, std::uint64_t* x, std::size_t len, std::size_t stride, int base) {
  if (r.below(16) == 0) {
    for (std::size_t t = 0; t < len; ++t) x[t * stride] = zero_pattern(f, r);
    return;
  }
  for (std::size_t t = 0; t < len; ++t) {
    const std::uint64_t u = r.below(64);
    std::uint64_t& v = x[t * stride];
    if (u < 4) v = zero_pattern(f, r);
    else if (u < 6) v = random_subnormal_or_tiny(f, r);
    else if (u == 6 && r.below(4) == 0) v = random_special(f, r);
    else v = value_with_lead(f, r, base - 1 - static_cast<int>(r.below(12)));
  }
  x[r.below(len) * stride] = value_with_lead(f, r, base);
  if (r.below(8) == 0) x[r.below(len) * stride] = value_with_lead(f, r, base);
}

// A block in which every product has about the same lead, base_a + base_b - 12, while A's
// rows peak (lead base_a) at one position and B's columns (base_b) at another: operand t of
// each row has lead base_a - x_t, of each column base_b - (12 - x_t). The maxima's sum lies 11-12
// binades above every product, so E taken from it (c below it) would truncate the products'
// low bits: the binary16 outputs see that too.
void fill_complementary(const Format& in, Rng& r, std::uint64_t* A, std::size_t lda, std::size_t m, std::uint64_t* B,
                        std::size_t ldb, std::size_t n, std::size_t len, int base_a, int base_b) {
  std::vector<int> x(len);
  for (int& v : x) v = 1 + static_cast<int>(r.below(11));
  const std::size_t ta = r.below(len), tb = (ta + 1 + r.below(len - 1)) % len;
  x[ta] = 0, x[tb] = 12;
  for (std::size_t t = 0; t < len; ++t) {
    for (std::size_t i = 0; i < m; ++i) A[i * lda + t] = value_with_lead(in, r, base_a - x[t]);
    for (std::size_t j = 0; j < n; ++j) B[t * ldb + j] = value_with_lead(in, r, base_b - (12 - x[t]));
  }
}

// c by the GEMM's mode: 0 near the first block's bound (lead bound - 2 .. bound + 1), zero or
// tiny; 1 large (above every bound: the maxima always decide); 2 zero or tiny.
std::uint64_t emax_c(const Format& out, Rng& r, int bound, int mode) {
  const int tiny = lowest_lead(out) + static_cast<int>(r.below(4));
  if (mode == 1) return value_with_lead(out, r, std::min(out.emax, bound + 8 + static_cast<int>(r.below(4))));
  if (mode == 2 || r.below(4) == 0) return r.below(2) ? zero_pattern(out, r) : value_with_lead(out, r, tiny);
  return value_with_lead(out, r, bound - 2 + static_cast<int>(r.below(4)));
}

// A GEMM's operands (A m x K, B K x n, blocks of k) and C for the maxima: each block by
// fill_block or (one in four) fill_complementary, leads moved per block; c by emax_c's modes.
void fill_emax_gemm(const Format& in, const Format& out, Rng& r, std::size_t m, std::size_t n, std::size_t K,
                    std::size_t k, std::vector<std::uint64_t>& A, std::vector<std::uint64_t>& B,
                    std::vector<std::uint64_t>& C) {
  A.assign(m * K, 0), B.assign(K * n, 0), C.assign(m * n, 0);
  // Leads near -2 (products near 2^-4: binary16 sums stay normal over 12 blocks), each
  // block's moved by -2 .. 2 per operand.
  const int base = std::min(-2, in.emax - 2);
  int bound0 = 0;
  for (std::size_t p = 0; p < K; p += k) {
    const std::size_t len = std::min(k, K - p);
    const int sa = base + static_cast<int>(r.below(5)) - 2, sb = base + static_cast<int>(r.below(5)) - 2;
    if (p == 0) bound0 = sa + sb;
    if (len > 1 && r.below(4) == 0) {
      // Maxima near 2^4 each: products near 2^-4, binary16 sums well inside the normal range.
      fill_complementary(in, r, &A[p], K, m, &B[p * n], n, n, len, std::min(sa + 6, in.emax), std::min(sb + 6, in.emax));
      continue;
    }
    for (std::size_t i = 0; i < m; ++i) fill_block(in, r, &A[i * K + p], len, 1, sa);
    for (std::size_t j = 0; j < n; ++j) fill_block(in, r, &B[p * n + j], len, n, sb);
  }
  const std::uint64_t g = r.below(8);
  const int c_mode = g == 0 ? 1 : g == 1 ? 2 : 0;
  for (auto& x : C) x = emax_c(out, r, bound0, c_mode);
}

// One block of a row of A or column of B (stride between its operands) whose largest operand
// (lead `lead`) is at position t0, the others 1 to 12 binades below or now and then zero.
void fill_peaked(const Format& f, Rng& r, std::uint64_t* x, std::size_t len, std::size_t stride, int lead,
                 std::size_t t0) {
  for (std::size_t t = 0; t < len; ++t)
    x[t * stride] = r.below(16) == 0 ? zero_pattern(f, r) : value_with_lead(f, r, lead - 1 - static_cast<int>(r.below(12)));
  x[t0 * stride] = value_with_lead(f, r, lead);
}

// A GEMM in which the maxima decide every lane: in each block all rows of A and columns of B
// peak at one shared position, so E = max(c, amax + bmax) exactly, and maxima taken from
// another block, strip or row give another E. Before block `first` (0: none) A is +0 (c
// carried unchanged) and B's peaks lie 16 binades above the later ones: maxima read from those
// blocks in place of later ones give an E that high, which truncates most of the products'
// bits. Leads move by -4 .. 4 per block and operand; c lies 1-4 binades below block first's
// maxima's sum, or (one GEMM in four) far above every block's.
void fill_shared_peak_gemm(const Format& in, const Format& out, Rng& r, std::size_t m, std::size_t n, std::size_t K,
                           std::size_t k, std::size_t first, std::vector<std::uint64_t>& A,
                           std::vector<std::uint64_t>& B, std::vector<std::uint64_t>& C) {
  A.assign(m * K, 0), B.assign(K * n, 0), C.assign(m * n, 0);
  const int base = std::min(-6, in.emax - 18);
  int bound = 0;
  for (std::size_t p = 0; p < K; p += k) {
    const std::size_t len = std::min(k, K - p), t0 = r.below(len);
    const int sa = base + static_cast<int>(r.below(9)) - 4, sb = base + static_cast<int>(r.below(9)) - 4;
    if (p == first * k) bound = sa + sb;
    if (p < first * k) {
      for (std::size_t j = 0; j < n; ++j) fill_peaked(in, r, &B[p * n + j], len, n, sb + 16, t0);
      continue;
    }
    for (std::size_t i = 0; i < m; ++i) fill_peaked(in, r, &A[i * K + p], len, 1, sa, t0);
    for (std::size_t j = 0; j < n; ++j) fill_peaked(in, r, &B[p * n + j], len, n, sb, t0);
  }
  const bool large = r.below(4) == 0;
  for (auto& x : C)
    x = value_with_lead(out, r, large ? std::min(out.emax, bound + 20) : bound - 1 - static_cast<int>(r.below(4)));
}

}  // namespace

TEST_CASE("kernel differential: tile chains taking E from the blocks' maxima, every SIMD target (issue 25, h100m)",
          "[kernel][differential]") {
  Rng r(tcsim::test::seed("kernel differential tile chain block maxima", 0x3e5a11d7));
  const std::uint64_t best = tcsim::test::count(60'000), others = tcsim::test::count(10'000);
  auto draw = [&](const ChainLineRun& l, ChainGemm& g) {
    g.m = 24, g.n = 40, g.K = random_chain_K(r, l.k, l.line.pairs);
    fill_emax_gemm(l.in, l.out, r, g.m, g.n, g.K, l.k, g.A, g.B, g.C);
  };
  CHECK(chain_lines_differential("tile-chain-emax", kEmaxLines, best, others, draw) == 0);
}

// Issue 25 (h100n): the GEMM driver makes the maxima once per GEMM (sim block_kernel.hpp:
// TileChainMaxima) and each chain call, a resumed one too, reads its rows', strips' and
// blocks' part of them. GEMMs with several tasks of 16 rows (and a tail of 1-3 rows, whose
// micro-tile keeps the product loop), several column strips and a partial one, K over two or
// more of the chain's chunks (256 products) and not a multiple of them, now and then a
// shorter last block; on 1 to 3 threads (the maxima are made in parallel, the bits the same).
// Half the GEMMs as the test above (the maxima decide some rows, the product loop the others),
// half by fill_shared_peak_gemm (the maxima decide every row; often from a random block on,
// in any chunk of K).
// The lines whose chains take the maxima (the h100 fp16 rows, blocks of 16 products).
TEST_CASE("kernel differential: tile chains reading the GEMM's maxima across row tasks, strips and chunks, every "
          "SIMD target (issue 25, h100n)",
          "[kernel][differential]") {
  const ChainLine lines[] = {{"h100", "wgmma", "fp16", "fp32"},
                             {"h100", "wgmma", "fp16", "fp16"},
                             {"h100", "mma.sync", "fp16", "fp16"}};
  Rng r(tcsim::test::seed("kernel differential tile chain GEMM maxima", 0x68313030));
  const std::uint64_t best = tcsim::test::count(150'000), others = tcsim::test::count(30'000);
  auto draw = [&](const ChainLineRun& l, ChainGemm& g) {
    const std::size_t k = l.k, m = 17 + r.below(32), n = 33 + r.below(72);
    std::size_t K = (17 + r.below(24)) * k;
    if (r.below(3) == 0) K += 1 + r.below(k - 1);  // a shorter last block
    g.m = m, g.n = n, g.K = K;
    if (r.below(2)) fill_shared_peak_gemm(l.in, l.out, r, m, n, K, k, r.below(2) ? r.below(K / k - 1) : 0, g.A, g.B, g.C);
    else fill_emax_gemm(l.in, l.out, r, m, n, K, k, g.A, g.B, g.C);
    g.threads = 1 + static_cast<unsigned>(r.below(3));
  };
  CHECK(chain_lines_differential("tile-chain-gemm-maxima", lines, best, others, draw) == 0);
}
