// Issue 25 (branch v100e): the plain binary16 tile chains' epilogue (F16C, AVX-512) scales by an
// exponent-field subtraction and compares its flags once per block. Its edges, made on purpose:
// binary16 ties (c + p1 a midpoint, a p2 of either sign 1-30 places below the rounding bit or
// none: the sticky bit of the 24-bit conversion decides), carries into the next binade and
// ties just below a power of two, results at 65504 / 65520 / 2^16 (Inf or max finite), results
// at and below 2^-14 (subnormal ties, 2^-24, cancellation), with rne and user rz/ru/rd rows.
// The edge block comes after zero blocks (c carried by the chain) and before random ones.
// Against Unit::dot on every SIMD target.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "operand_gen.hpp"
#include "tile_chain_lines.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::reftest;
using tcsim::test::Rng;

namespace {

// The binary16 output's rounding of a user copy ("" keeps the row's); flush-out: subnormal
// outputs flushed (the chain's 2^-14 stop).
const ChainLine kHalfRoundLines[] = {{"v100", "mma.sync", "fp16", "fp16"},
                            {"v100", "mma.sync", "fp16", "fp16", false, "rz"},
                            {"v100", "mma.sync", "fp16", "fp16", false, "ru"},
                            {"v100", "mma.sync", "fp16", "fp16", false, "rd"},
                            {"v100", "mma.sync", "fp16", "fp16", false, "", true},
                            {"h100", "wgmma", "fp16", "fp16"},
                            {"h100", "mma.sync", "fp16", "fp16"},
                            {"h100", "wgmma", "fp16", "fp16", false, "rz"},
                            {"h100", "wgmma", "fp16", "fp16", false, "ru"},
                            {"h100", "wgmma", "fp16", "fp16", false, "rd"},
                            {"a100", "mma.sync", "fp16", "fp16"}};

const Format& half() { return parse_format("fp16"); }

// +-2^e as a binary16 pattern, or a zero where 2^e is not representable.
std::uint64_t half_pow2(int e, bool negative) {
  std::uint64_t x = 0;
  return power_of_two(half(), e, negative, x) ? x : half().zero(negative);
}

// The binary16 pattern of q 2^(lead - 10) (q an integer in [1, 2047]; subnormal below 2^-14).
std::uint64_t from_q(std::uint64_t q, int lead, bool negative) {
  const std::uint64_t sign = negative ? half().sign_mask() : 0;
  while (lead > -14 && q < 1024) q <<= 1, --lead;  // normalize
  if (lead < -14) q >>= -14 - lead, lead = -14;    // only exact shifts are asked for
  if (q < 1024) return sign | q;                   // subnormal: q 2^-24
  return sign | (static_cast<std::uint64_t>(lead + 15) << 10) | (q - 1024);
}

double value(std::uint64_t h) {
  const int field = static_cast<int>(h >> 10 & 31);
  const double m = field ? static_cast<double>((h & 1023) | 1024) : static_cast<double>(h & 1023);
  const double v = std::ldexp(m, (field ? field : 1) - 25);
  return h & 0x8000 ? -v : v;
}

// A binary16 midpoint (finite, below 65520), for the coverage count.
bool midpoint(double v) {
  v = std::fabs(v);
  if (v == 0 || v >= 65520) return false;
  const double ulp = std::ldexp(1.0, std::max(std::ilogb(v), -14) - 10);
  const double q = v / ulp;
  return q - std::floor(q) == 0.5;
}

// The edge GEMM's operands: per row i a lead x_i and scalings, per column j a lead and the
// first product's operand; c from p1 = a_i0 b_0j by mode (0 ties, 1 carries and binade edges,
// 2 the top of the range, 3 results at and below 2^-14, 4 cancellation: c + p1 = j ulp(p1),
// j <= 8, a small sum whose p2 may make ties several binades below p1's).
struct EdgeGemm {
  int mode = 0;
  std::vector<int> x, d, d3;        // rows
  std::vector<int> e, e3;           // columns
  std::vector<std::uint64_t> b0;    // columns
  std::vector<bool> sa, sa3, sb3, s2;
};

EdgeGemm make_edges(Rng& r, std::size_t m, std::size_t n) {
  EdgeGemm g;
  g.mode = static_cast<int>(r.below(5));
  for (std::size_t i = 0; i < m; ++i) {
    g.x.push_back(r.range(-2, 2));
    g.d.push_back(r.below(5) == 0 ? 99 : r.range(0, 10));  // 99: no p2
    g.d3.push_back(r.below(2) ? 99 : r.range(0, 20));
    g.sa.push_back(r.below(2));
    g.sa3.push_back(r.below(2));
  }
  for (std::size_t j = 0; j < n; ++j) {
    int lam = 0;
    switch (g.mode) {
      case 0:
      case 4: lam = r.range(-12, 12); break;
      case 1: lam = r.range(-22, 2); break;
      case 2: lam = r.range(2, 5); break;
      case 3: lam = r.range(-24, -10); break;
    }
    g.e.push_back(r.range(0, 20));
    g.e3.push_back(r.range(0, 20));
    g.sb3.push_back(r.below(2));
    g.s2.push_back(r.below(2));
    g.b0.push_back(g.mode == 0 || g.mode == 4 ? value_with_lead(half(), r, lam) : half_pow2(lam, r.below(2)));
  }
  return g;
}

// c for output (i, j) by mode, from p1 = 2^x_i b0_j (exact; returned in p1).
std::uint64_t edge_c(const EdgeGemm& g, Rng& r, std::size_t i, std::size_t j, double& p1) {
  p1 = std::ldexp(value(g.b0[j]), g.x[i]) * (g.sa[i] ? -1 : 1);
  if (p1 == 0) return half().zero(false);
  const bool neg = p1 < 0;
  const int P = std::ilogb(p1);
  const bool same = r.below(8) != 0;  // c's sign as p1's (else a cancellation)
  switch (g.mode) {
    case 0: {  // c of p1's lead with the other parity: c + p1 a tie one binade up
      const auto qp = static_cast<std::uint64_t>(std::ldexp(std::fabs(p1), 10 - P));
      std::uint64_t q = 1024 + r.below(1024);
      if ((q ^ qp ^ 1) & 1) q ^= 1;
      return from_q(q, P, same ? neg : !neg);
    }
    case 1:
    case 2: {  // p1 = 2^P: c of lead P + 11 - s near a binade's edges (s = 0: p1 half an ulp)
      const int L = std::min(15, P + 11 - static_cast<int>(r.below(3)));
      const std::uint64_t qs[] = {2047, 2046, 1024, 1025, 2045, 1024 + r.below(1024)};
      return from_q(qs[r.below(6)], L, same ? neg : !neg);
    }
    case 3: {  // results at and below 2^-14: c = q 2^-24 (q < 2048), p1 = 2^P
      const std::uint64_t q = r.below(3) == 0 ? 1 + r.below(4) : 1 + r.below(2047);
      return from_q(q, -14, same ? neg : !neg);
    }
    default: {  // cancellation: c = -(q_p - j) 2^(P - 10)
      const auto qp = static_cast<std::uint64_t>(std::ldexp(std::fabs(p1), 10 - P));
      return from_q(qp - 1 - r.below(8), P, !neg);
    }
  }
}

}  // namespace

TEST_CASE("kernel differential: binary16 tile chains at the rounding edges, every SIMD target (issue 25, v100e)",
          "[kernel][differential]") {
  Rng r(tcsim::test::seed("kernel differential tile chain binary16 rounding", 0x7c5e0c56));
  const std::uint64_t best = tcsim::test::count(100'000), others = tcsim::test::count(15'000);
  const Format& in = half();
  std::uint64_t ties = 0;  // per line
  auto draw = [&](const ChainLineRun& l, ChainGemm& gemm) {
    const std::size_t k = l.k, m = 24, n = 40;
    REQUIRE(k >= 4);
    const std::size_t blocks = 1 + r.below(8);
    std::size_t K = blocks * k;
    const bool short_last = r.below(4) == 0;
    if (short_last) K -= k - 3 - r.below(k - 3);  // a last block of 3 .. k - 1 products
    const std::size_t edge = r.below(blocks);     // zero blocks before it, random ones after
    gemm.shape(m, n, K, in.zero(false));
    auto &A = gemm.A, &B = gemm.B, &C = gemm.C;
    const EdgeGemm g = make_edges(r, m, n);
    for (std::size_t p = (edge + 1) * k; p < K; p += k) {
      const int kind = static_cast<int>(r.below(3));  // 0 zero, 1 small uniform, 2 a tiny p
      const std::size_t len = std::min(k, K - p);
      for (std::size_t t2 = 0; t2 < len; ++t2) {
        for (std::size_t i = 0; i < m; ++i)
          A[i * K + p + t2] = kind == 0 ? zero_pattern(in, r) : value_with_lead(in, r, kind == 1 ? -3 : -10);
        for (std::size_t j = 0; j < n; ++j)
          B[(p + t2) * n + j] = kind == 0 ? zero_pattern(in, r) : value_with_lead(in, r, kind == 1 ? -3 - static_cast<int>(r.below(6)) : -12);
      }
    }
    // The edge block: p1 = 2^x_i b0_j, p2 = +-2^(lead(p1) - 11 - d_i - e_j) (or none), p3
    // another such (or none); the other products zero.
    const std::size_t p0 = edge * k;
    for (std::size_t i = 0; i < m; ++i) {
      A[i * K + p0] = half_pow2(g.x[i], g.sa[i]);
      A[i * K + p0 + 1] = g.d[i] == 99 ? in.zero(false) : half_pow2(g.x[i] - g.d[i], false);
      A[i * K + p0 + 2] = g.d3[i] == 99 ? in.zero(false) : half_pow2(g.x[i] - g.d3[i], g.sa3[i]);
    }
    for (std::size_t j = 0; j < n; ++j) {
      const int lead = std::ilogb(value(g.b0[j]));
      B[p0 * n + j] = g.b0[j];
      B[(p0 + 1) * n + j] = half_pow2(std::max(lead - 11 - g.e[j], -24), g.s2[j]);
      B[(p0 + 2) * n + j] = half_pow2(std::max(lead - 11 - g.e3[j], -24), g.sb3[j]);
    }
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        double p1 = 0;
        C[i * n + j] = edge_c(g, r, i, j, p1);
        if (midpoint(value(C[i * n + j]) + p1)) ++ties;
      }
  };
  auto count_ties = [&](const ChainLineRun& l) {
    std::printf("[tile-chain-half-round] %-36s c + p1 a binary16 midpoint in %llu outputs\n", l.label.c_str(),
                static_cast<unsigned long long>(ties));
    ties = 0;
  };
  CHECK(chain_lines_differential("tile-chain-half-round", kHalfRoundLines, best, others, draw, count_ties) == 0);
}
