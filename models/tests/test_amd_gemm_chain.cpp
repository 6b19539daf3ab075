// Unit::gemm of the after-add rows (AMD CDNA3, mi300x) on the chain tiles with c in registers
// and the int32 epilogue (sim/src/amd_chain.cpp, issue 25) against Unit::dot (the reference
// adder, chained): every mi300x after-add row and format pair, the fp16/bf16 K = 4 instruction
// forms too, on every compiled SIMD target. Likewise the exact-block rows (AMD CDNA1, mi100) on
// their binary64 chain tiles (sim/src/exact_chain.cpp, i25mi100), with c also placed up to 70
// binades below and 40 above the products (terms beyond the exact span: the scalar block). GEMMs of 1-40 x 1-300 outputs (tiles, padding,
// panel edges) with chains of 1 to 9 instructions or of 1 to 40 blocks, plus a remainder; the
// fp8 rows (two groups, even/odd products) and xf32 run on the chain too (mi300); each row of A, column of B
// and entry of C drawn from one kind: kernel_cases.hpp and flush_edges.hpp elements (zeros,
// subnormals, cancellation, ties, NaN/Inf), "GEMM-like" values (leads -6..0, c -8..6: the
// accumulator grows over the products), or c placed 30 binades below to 10 above the
// products (E = e_dot or e_c, D around 4, far and dropped c), or c at a binade's edge. Seed logged; TCSIM_TEST_SCALE
// scales the counts (docs/performance.md, section "i25amdgemm"). The runs test (mi100b) draws
// long chains of one lead band per GEMM, so that exact_chain.cpp's runs without a test per
// block are taken, with edges sprinkled that end them, spread GEMMs the bound must refuse and
// tie GEMMs that only an exact sum rounds right. The spread test (mi300f8) draws fp8 GEMMs whose
// blocks' exponent spreads sit at, below and above the bound under which the two even/odd
// groups run on the one-group chain (sim/src/after_add_spread.cpp; since mi300g the pair chain,
// with its int16 limit at, below and above too). The edge test (mi300c) draws c far above the
// products and products at the scale flags' edges (amd_chain.cpp). The short test (mi300d) aims at
// ShortEpilogue's bounds, ties at the floors, cancellation and the range edges.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <hwy/targets.h>
#include <iterator>
#include <string>
#include <vector>

#include "flush_edges.hpp"
#include "diff_checks.hpp"
#include "kernel_fills.hpp"
#include "models_test_helpers.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::reftest;
using tcsim::test::Rng;

namespace {

struct ChainPair {
  const char *a, *b, *instruction;
};

// One operand vector of K entries (stride st) of format f, and optionally c, of one kind.
// Kind 3: c from 70 binades below to 40 above the products.
void fill_kind(int kind, const Format& f, const Format& out, Rng& r, std::uint64_t* x, std::size_t st, std::size_t K,
               std::uint64_t* c) {
  std::vector<std::uint64_t> a(K), b(K);
  std::uint64_t cc = 0;
  if (kind == 0) {
    half_with_elements<fill_flush_edges>(f, out, r, a.data(), b.data(), K, cc);
  } else {
    for (std::size_t t = 0; t < K; ++t) a[t] = r.below(16) == 0 ? zero_pattern(f, r) : value_with_lead(f, r, r.range(-6, 0));
    const int lead = kind == 1 ? r.range(-8, 6) : kind == 2 ? r.range(-30, 10) : r.range(-70, 40);
    cc = r.below(32) == 0 ? zero_pattern(out, r) : value_with_lead(out, r, lead);
  }
  for (std::size_t t = 0; t < K; ++t) x[t * st] = a[t];
  if (c) *c = cc;
}

// Runs mode (mi100b): one lead band per GEMM (base - 0..5; c around the products' sum), so that
// whole tiles pass the run bound of exact_chain.cpp, with edges sprinkled per element: zeros,
// tiny (subnormal) and huge values, any pattern (NaN/Inf), c far from the products.
struct RunsMix {
  int base_a = 0, base_b = 0, base_c = 0, drop_a = 0, drop_b = 0;
};

// drop: half the values this many binades lower (spread GEMMs: products of one block spanning
// up to the binary64 limit and beyond, which the run bound must refuse).
std::uint64_t run_element(const Format& f, Rng& r, int base, int drop = 0) {
  switch (r.below(512)) {
    case 0: return random_subnormal_or_tiny(f, r);
    case 1: return random_huge(f, r);
    case 2: return random_pattern(f, r);
    case 3: return value_with_lead(f, r, base - 40 + static_cast<int>(r.below(80)));
    default: break;
  }
  if (drop && r.below(2)) base -= drop;
  return r.below(64) == 0 ? zero_pattern(f, r) : value_with_lead(f, r, base - static_cast<int>(r.below(6)));
}

// A finite pattern of f: sign, leading exponent lead and a significand of p bits (top bit set;
// lead >= emin), or the power of two 2^lead (subnormal too) when sig is 0.
std::uint64_t exact_pattern(const Format& f, bool negative, int lead, std::uint64_t sig) {
  const std::uint64_t sign = negative ? f.sign_mask() : 0;
  if (lead >= f.emin) {
    const std::uint64_t frac = sig ? sig & ((std::uint64_t{1} << f.fraction_bits) - 1) : 0;
    return sign | (static_cast<std::uint64_t>(lead + f.bias) << f.fraction_bits) | frac;
  }
  return sign | (std::uint64_t{1} << (f.fraction_bits - (f.emin - lead)));
}

// Tie GEMMs (mi100b, blocks of 4): one block per output, c = +0, products P1 (binary32-exact,
// leading bit at E, last bit at E - 20 at most), P2 = 2^(E-24) (P1 + P2 a binary32 midpoint),
// P3 = +-2^t and P4 = -+(2^(2p-2) - 1) 2^(t-2p+2) with t = E - 54 + 2p - 2: P3 + P4 =
// +-2^(E-54), below half a binary64 ulp of the midpoint. The exact sum (56 bits) rounds away
// from the tie; a binary64 sum rounds to the midpoint and then to even, wrong for half the
// signs. The run bound and the lane test must refuse the span (a run bound relaxed by 9 bits
// fails here).
void fill_ties(const Format& f, Rng& r, std::size_t m, std::size_t n, std::uint64_t* A, std::uint64_t* B) {
  const int p = f.precision, E = r.range(8, 28), t = E - 54 + 2 * p - 2, q4 = t - (2 * p - 2);
  const int la = E / 2, lb = E - la, x2 = (E - 24) / 2, i3 = t / 2, qa = q4 / 2, qb = q4 - qa;
  const std::uint64_t top = std::uint64_t{1} << (p - 1);
  for (std::size_t i = 0; i < m; ++i) {
    const bool neg = r.below(2) != 0;
    A[i * 4] = exact_pattern(f, false, la, top | (2 * r.below(top / 8) + 1));
    A[i * 4 + 1] = exact_pattern(f, false, x2, 0);
    A[i * 4 + 2] = exact_pattern(f, neg, i3, 0);
    A[i * 4 + 3] = exact_pattern(f, !neg, qa + p - 2, (top - 1) << 1);  // 2^(p-1) - 1, times 2^qa
  }
  for (std::size_t j = 0; j < n; ++j) {
    B[j] = exact_pattern(f, false, lb, top | 1);
    B[n + j] = exact_pattern(f, false, E - 24 - x2, 0);
    B[2 * n + j] = exact_pattern(f, false, t - i3, 0);
    B[3 * n + j] = exact_pattern(f, false, qb + p - 1, top | 1);  // 2^(p-1) + 1, times 2^qb
  }
}

// Spread GEMMs (mi300f8): every k-aligned block b of A's row i has finite nonzero operands whose
// e_ref span exactly sA_b (its largest at top[i], its least at top[i] - sA_b; the others between,
// zeros, now and then a NaN/Inf pattern), every column of B exactly sB_b, sA_b + sB_b = S_b: the
// one-group chain's bound for two groups (after_add_spread.cpp) is S <= F - o. At S = F - o + 1
// a least product's last bit lies one below e_dot - F: where it is in the other group than
// e_dot's, the two-group floor and the one-group truncation differ (a bound one too large fails):
// most lines put their largest and least operands at the GEMM's shared positions hl[2 b], hl[2 b
// + 1] per block b, so that the least products meet.
void fill_spread_line(const Format& f, Rng& r, int top, const std::vector<int>& spreads, std::size_t K,
                      std::size_t k, const std::vector<std::size_t>& hl, std::uint64_t* x, std::size_t st) {
  const std::uint64_t p1 = std::uint64_t{1} << (f.precision - 1);
  auto value = [&](int lead) {
    if (lead == f.emin && r.below(4) == 0)  // a subnormal: e_ref emin as well
      return (r.below(2) ? f.sign_mask() : 0) | (1 + r.below(p1 - 1));
    return exact_pattern(f, r.below(2) != 0, lead, p1 | r.below(p1));
  };
  for (std::size_t t0 = 0; t0 < K; t0 += k) {
    const std::size_t len = std::min(K, t0 + k) - t0;
    const int s = spreads[t0 / k];
    std::size_t hi = hl[2 * (t0 / k)], lo = hl[2 * (t0 / k) + 1];
    if (r.below(4) == 0) hi = r.below(len), lo = len > 1 ? (hi + 1 + r.below(len - 1)) % len : hi;
    for (std::size_t t = 0; t < len; ++t) {
      std::uint64_t& v = x[(t0 + t) * st];
      // The largest often a power of two and half the others zeros: sums of few bits, whose last
      // unit survives the rounding to binary32.
      if (t == hi) v = r.below(2) ? exact_pattern(f, r.below(2) != 0, top, 0) : value(top);
      else if (t == lo) v = value(top - s);
      else if (r.below(256) == 0) v = random_pattern(f, r);
      else if (r.below(2) == 0) v = zero_pattern(f, r);
      else v = value(top - static_cast<int>(r.below(static_cast<std::uint64_t>(s) + 1)));
    }
  }
}

void fill_spread(const Format& fa, const Format& fb, const Format& out, Rng& r, std::size_t m, std::size_t n,
                 std::size_t K, std::size_t k, std::uint64_t* A, std::uint64_t* B, std::uint64_t* C) {
  const int o = fa.precision + fb.precision - 2, bound = 24 - o;
  const int span_a = fa.emax - fa.emin, span_b = fb.emax - fb.emin;
  // Per block: S = sa + sb, for a third of the GEMMs one S for all blocks, else one per block
  // (chains cut into runs of either path).
  std::vector<std::size_t> hl;
  std::vector<int> sa, sb;
  const bool one_s = r.below(3) == 0;
  for (std::size_t t0 = 0; t0 < K; t0 += k) {
    const std::size_t len = std::min(K, t0 + k) - t0, hi = r.below(len);
    hl.push_back(hi), hl.push_back(len > 1 ? (hi + 1 + r.below(len - 1)) % len : hi);
    if (one_s && t0 > 0) {
      sa.push_back(sa.back()), sb.push_back(sb.back());
      continue;
    }
    const int S = r.below(4) == 0 ? r.range(0, span_a + span_b) : bound + r.range(-2, 1);
    const int lo_a = std::max(0, S - span_b), hi_a = std::min(S, span_a);
    int a = r.range(lo_a, hi_a);
    // mi300g: the pair chain's int16 operands hold spreads up to 15 - p: A's or B's spread at
    // that limit or one above (an operand 2^15 or more wraps int16 where the limit is too large).
    const int lim_a = 15 - fa.precision, lim_b = 15 - fb.precision;
    switch (r.below(4)) {
      case 0: a = lim_a + r.range(0, 1); break;
      case 1: a = S - lim_b - r.range(0, 1); break;
      default: break;
    }
    sa.push_back(std::clamp(a, lo_a, hi_a)), sb.push_back(S - sa.back());
  }
  const int max_a = *std::max_element(sa.begin(), sa.end()), max_b = *std::max_element(sb.begin(), sb.end());
  std::vector<int> ta(m), tb(n);
  for (std::size_t i = 0; i < m; ++i) {
    ta[i] = r.range(fa.emin + max_a, fa.emax);
    fill_spread_line(fa, r, ta[i], sa, K, k, hl, A + i * K, 1);
  }
  for (std::size_t j = 0; j < n; ++j) {
    tb[j] = r.range(fb.emin + max_b, fb.emax);
    fill_spread_line(fb, r, tb[j], sb, K, k, hl, B + j, n);
  }
  for (std::size_t i = 0; i < m; ++i)  // c: +-0 for half, else up to 30 binades below the products
    for (std::size_t j = 0; j < n; ++j)
      C[i * n + j] = r.below(2) ? zero_pattern(out, r) : value_with_lead(out, r, ta[i] + tb[j] + r.range(-30, 6));
}

// Edge GEMMs (mi300c): the chain's epilogue leaves its shift counts unclamped above on AVX2 and
// AVX-512 and its scale pass forms e_g's flags in int16 lanes (sim/src/amd_chain.cpp). Per GEMM one
// row lead la and column lead lb (the operands at them or one below, signed, zeros now and then),
// and either c 26 to 46 binades above the products (D - 4 from 22 to 42: the shift counts cross
// 32 and the sticky window 31 bits; half the block sums negative) or, where both formats reach
// them, la + lb at -98..-95 or 125..128 (e_g at the flags' edges -96 and 126), c near the products,
// far above them or zero.
void fill_edges(const Format& fa, const Format& fb, const Format& out, Rng& r, std::size_t m, std::size_t n,
                std::size_t K, std::uint64_t* A, std::uint64_t* B, std::uint64_t* C) {
  const bool wide = std::min(fa.emin, fb.emin) < -60 && std::min(fa.emax, fb.emax) > 70;
  int la = r.range(-6, 0), lb = r.range(-6, 0), lo_c = 26, hi_c = 46;
  if (wide && r.below(2)) {
    const int e = r.below(2) ? r.range(-98, -95) : r.range(125, 128);
    la = e / 2, lb = e - la;
    if (r.below(2)) lo_c = -30, hi_c = e > 0 ? 0 : 6;
  }
  for (std::size_t x = 0; x < m * K; ++x) A[x] = r.below(8) == 0 ? zero_pattern(fa, r) : value_with_lead(fa, r, la - static_cast<int>(r.below(2)));
  for (std::size_t x = 0; x < K * n; ++x) B[x] = r.below(8) == 0 ? zero_pattern(fb, r) : value_with_lead(fb, r, lb - static_cast<int>(r.below(2)));
  for (std::size_t x = 0; x < m * n; ++x)
    C[x] = r.below(16) == 0 ? zero_pattern(out, r) : value_with_lead(out, r, la + lb + r.range(lo_c, hi_c));
}

// Rounding GEMMs (edge25: the runs round each block's binary64 sum to binary32 by adding and
// subtracting 1.5 2^(e+29), sim/src/exact_chain.cpp RoundToBinary32InRun). One lead L per GEMM,
// c of lead L (random significands, binade edges +-2^L and +-(2 - 2^-23) 2^L, either sign); per
// block the first product +-2^(L-24+d), d in -1..1 (binary32 midpoints of c where d = 0: ties
// to even, carries across 2^(L+1), half and quarter ulps), the second a tie-breaker +-2^(L-24-s)
// or 0, the others 0: long chains whose every block rounds at a tie or next to one, inside the
// run bound (U >= L - 49), L from binary32's low normal range to 2^127 (the bound refuses
// m_e > U + 51 there). For bf16 a quarter of the GEMMs instead have c in binary32's subnormals
// and products +-2^(-149+s): results across 2^-126, exact (the rounding must leave them).
void fill_round_edges(const Format& f, const Format& out, Rng& r, std::size_t m, std::size_t n, std::size_t K,
                      std::size_t k, std::uint64_t* A, std::uint64_t* B, std::uint64_t* C) {
  const bool wide = f.emax > 100, sub = wide && r.below(4) == 0;
  const int L = wide ? r.range(-95, 127) : r.range(9, 38), smax = wide ? 10 : 5;
  const std::uint64_t top = std::uint64_t{1} << (out.precision - 1), ones = (top << 1) - 1;
  for (std::size_t x = 0; x < m * n; ++x) {
    const bool neg = r.below(2) != 0;
    if (sub) C[x] = (neg ? out.sign_mask() : 0) | r.below(top);
    else if (r.below(4) == 0) C[x] = exact_pattern(out, neg, L, r.below(2) ? 0 : ones);
    else C[x] = exact_pattern(out, neg, L, top | r.below(top));
  }
  const auto pow2 = [&](int e) { return exact_pattern(f, r.below(2) != 0, e, 0); };
  for (std::size_t t = 0; t < K; ++t) {
    const std::size_t pos = t % k;
    for (std::size_t i = 0; i < m; ++i) {
      std::uint64_t& a = A[i * K + t];
      if (sub) a = pos < 2 && r.below(4) ? pow2(-133 + r.range(0, 15)) : zero_pattern(f, r);
      else if (pos == 0) a = pow2(L - 24 + r.range(-1, 1));
      else if (pos == 1 && r.below(2)) a = pow2(L - 24 - r.range(1, smax));
      else a = zero_pattern(f, r);
    }
    for (std::size_t j = 0; j < n; ++j)
      B[t * n + j] = sub ? pow2(-16) : pos == 0 ? pow2(r.range(wide ? -1 : 0, 1)) : pow2(0);
  }
}

// Short-epilogue GEMMs (mi300d): amd_chain.cpp's ShortEpilogue serves a vector where every lane has
// c 2^(24 - e_dot) normal and below 2^59 (D' = e_c - e_dot <= 34), and no sticky bit with a total
// below 2^26 units. Per GEMM one row lead la, one column lead lb and one of four kinds:
// 0: c from 40 binades below the products to 37 above (D' at the bound 34, one off, 4 and 5 where
//    the shift of s starts), operands at their lead or one below;
// 1: ties: operands +-2^(lead - 0..11), c +-2^L (1 + few bits), L 8 to 34 above the products, so
//    that sums end at the floor's last bit, just below it and at binary32 midpoints;
// 2: cancellation: products of one sign near their largest (significands near 2), c of the
//    other sign 3 to 6 binades above, now and then one operand 4 to 12 binades lower (a sticky
//    bit under a total of 2^25 to 2^26 units; ShortEpilogue's flag at 2^26 is needed on the k = 8
//    rows: fp16 totals fall below 2^25 units there, the cancellation test below aims at them);
// 3: range edges (formats reaching them): products at 2^-98..-88 or 2^120..126 with c near them,
//    c up to 2^127 (results overflowing to Inf), subnormal c, rows of A zero for whole blocks (no
//    products: e_dot reads -103) with c at 2^-100..-80.
void fill_short(const Format& fa, const Format& fb, const Format& out, Rng& r, std::size_t m, std::size_t n,
                std::size_t K, std::size_t block, std::uint64_t* A, std::uint64_t* B, std::uint64_t* C) {
  const bool wide = std::min(fa.emin, fb.emin) < -60 && std::min(fa.emax, fb.emax) > 70;
  const int kind = static_cast<int>(r.below(wide ? 4 : 3));
  int la = r.range(-6, 0), lb = r.range(-6, 0);
  if (kind == 3) {
    const int e = r.below(2) ? r.range(-98, -88) : r.range(120, 126);
    la = e / 2, lb = e - la;
  }
  const std::uint64_t p1 = std::uint64_t{1} << (out.precision - 1);
  auto operand = [&](const Format& f, int lead, bool neg) -> std::uint64_t {
    if (kind == 2)  // now and then one far below: its last bit under U (a sticky bit)
      return r.below(8) == 0 ? exact_pattern(f, neg, lead - r.range(4, 12), (std::uint64_t{1} << (f.precision - 1)) | r.below(256))
                             : exact_pattern(f, neg, lead, (std::uint64_t{2} << (f.precision - 1)) - 1 - r.below(8));
    if (r.below(8) == 0) return zero_pattern(f, r);
    if (kind == 1) return exact_pattern(f, r.below(2) != 0, lead - static_cast<int>(r.below(12)), 0);
    return value_with_lead(f, r, lead - static_cast<int>(r.below(2)));
  };
  for (std::size_t i = 0; i < m; ++i) {
    const bool zero_blocks = kind == 3 && r.below(4) == 0;
    for (std::size_t t = 0; t < K; ++t)
      A[i * K + t] = zero_blocks && (t / block) % 2 == 0 ? zero_pattern(fa, r) : operand(fa, la, true);
  }
  for (std::size_t x = 0; x < K * n; ++x) B[x] = operand(fb, lb, false);
  static const int kD[] = {33, 34, 35, 36, 37, 3, 4, 5, 6, 9};
  for (std::size_t x = 0; x < m * n; ++x) {
    const bool neg = r.below(2) != 0;
    int lead = la + lb;
    std::uint64_t sig = p1 | r.below(p1);
    switch (kind) {
      case 0: lead += r.below(2) ? kD[r.below(std::size(kD))] : r.range(-40, 37); break;
      case 1:
        lead += r.range(8, 34);
        sig = r.below(2) ? 0 : p1 | (std::uint64_t{1} << r.below(out.precision - 1)) | r.below(2);
        break;
      case 2: lead += r.range(3, 6), sig = r.below(2) ? 0 : p1 | r.below(256); break;
      default:
        if (r.below(4) == 0) lead = r.range(120, out.emax);
        else if (r.below(4) == 0) lead = r.range(-100, -80);
        else if (r.below(8) == 0) lead = r.range(out.emin - out.precision + 1, out.emin - 1);
        else lead += r.range(-30, 6);
        break;
    }
    lead = std::clamp(lead, out.emin - out.precision + 1, out.emax);
    C[x] = r.below(32) == 0 ? zero_pattern(out, r) : exact_pattern(out, kind != 2 && neg, lead, lead < out.emin ? 0 : sig);
  }
}

struct Tally {
  std::uint64_t outputs = 0, blocks = 0, mismatches = 0;
};

Tally run_pair(const Unit& unit, const ChainPair& p, Rng& r, std::uint64_t total, unsigned threads, int far_kind,
               bool runs = false, bool spread = false, bool edges = false, bool short_cases = false) {
  const Format &in_a = parse_format(p.a), &in_b = parse_format(p.b), &out = formats::fp32();
  const InstructionSelection sel = unit.select_instruction(in_a, in_b, out, p.instruction);
  const std::size_t row_k = static_cast<std::size_t>(unit.spec().datapaths[sel.row].fma_size);
  const std::size_t k = sel.shape ? sel.shape->k : row_k, block = std::min(k, row_k);
  Tally t;
  while (t.outputs < total) {
    // runs: GEMMs for the exact-block runs (mi100b). Otherwise half the GEMMs with chains of 1-9
    // instructions plus a remainder, half with 1-40 blocks (long chains: c carried in registers
    // over many blocks).
    const bool small = runs || spread || edges || short_cases;
    // runs: now and then over 64 rows (edge25: the operands are decoded in parallel parts of 64
    // rows of A and 64 blocks of B, exact_block.cpp gemm_operand_part).
    const bool tall = runs && r.below(24) == 0;
    const std::size_t m = tall ? 60 + r.below(80) : small ? 1 + r.below(12) : 1 + r.below(40);
    const std::size_t n = tall ? 1 + r.below(20) : small ? 1 + r.below(80) : 1 + r.below(300);
    std::size_t K = 0;
    if (runs) {
      K = 1 + r.below(200 * block);
    } else {  // named draws: operand order is unspecified
      const bool chains = r.below(2) != 0;
      const std::size_t unit_k = chains ? k : block;
      K = unit_k * (1 + r.below(chains ? 9 : 40));
      K += r.below(unit_k);
    }
    std::vector<std::uint64_t> A(m * K), B(K * n), C(m * n), D(m * n);
    if (spread) fill_spread(in_a, in_b, out, r, m, n, K, block, A.data(), B.data(), C.data());
    if (edges) fill_edges(in_a, in_b, out, r, m, n, K, A.data(), B.data(), C.data());
    if (short_cases) fill_short(in_a, in_b, out, r, m, n, K, block, A.data(), B.data(), C.data());
    auto kind = [&] { const auto x = r.below(4); return x == 0 ? 0 : x == 3 ? far_kind : 1; };
    if (runs && block == 4 && r.below(4) == 0) {  // one block of tie cases, c = +0
      A.resize(m * 4), B.resize(4 * n);
      fill_ties(in_a, r, m, n, A.data(), B.data());
      std::fill(C.begin(), C.end(), 0);
      unit.gemm_into(in_a, in_b, out, m, n, 4, A, B, C, D, p.instruction, threads);
      gemm_mismatches(unit, in_a, in_b, out, m, n, 4, A, B, C, D, p.instruction,
                      {"amd-gemm-chain", std::string(p.a) + "*" + p.b + " " + p.instruction + " ties"}, t.mismatches);
      t.outputs += m * n, t.blocks += m * n;
      continue;
    }
    if (spread || edges || short_cases) {
    } else if (runs && r.below(4) == 0) {
      fill_round_edges(in_a, out, r, m, n, K, block, A.data(), B.data(), C.data());
    } else if (runs) {  // leads: fp16 -8..4, bf16 (and wider) from near binary32's subnormals to its overflow
      const int lo = in_a.emax > 100 ? -70 : -8, hi = in_a.emax > 100 ? 60 : 4;
      RunsMix mix{r.range(lo, hi), r.range(lo, hi), 0};
      mix.base_c = mix.base_a + mix.base_b + r.range(-12, 10);
      if (r.below(2)) {  // spread: 2 (p - 1) + drop_a + drop_b from 40 to 60 bits
        const int spread = r.range(40, 60) - 2 * (in_a.precision - 1);
        mix.drop_a = r.range(0, spread), mix.drop_b = spread - mix.drop_a;
      }
      for (auto& x : A) x = run_element(in_a, r, mix.base_a, mix.drop_a);
      for (auto& x : B) x = run_element(in_b, r, mix.base_b, mix.drop_b);
      for (auto& x : C) x = r.below(64) == 0 ? run_element(out, r, mix.base_c) : value_with_lead(out, r, mix.base_c - static_cast<int>(r.below(20)));
      // a row or column of kernel_cases / flush_edges elements now and then (ties, cancellation)
      for (std::size_t i = 0; i < m; ++i)
        if (r.below(16) == 0) fill_kind(0, in_a, out, r, A.data() + i * K, 1, K, nullptr);
      for (std::size_t j = 0; j < n; ++j)
        if (r.below(16) == 0) fill_kind(0, in_b, out, r, B.data() + j, n, K, nullptr);
    } else {
      for (std::size_t i = 0; i < m; ++i) fill_kind(kind(), in_a, out, r, A.data() + i * K, 1, K, nullptr);
      for (std::size_t j = 0; j < n; ++j) fill_kind(kind(), in_b, out, r, B.data() + j, n, K, nullptr);
      std::vector<std::uint64_t> ignored(1);
      for (std::size_t e = 0; e < m * n; ++e) fill_kind(kind(), in_a, out, r, ignored.data(), 1, 1, &C[e]);
      // Binade edges of c (mi300aa): +-2^L and +-(2 - 2^-23) 2^L, L from 8 below to 40 above the
      // products' leads, so that X = c + sum lies within a unit of 2^E, 2^(E+1) (the v2
      // renormalization's thresholds, decided from |T0|) and c's binade changes.
      for (auto& c : C)
        if (r.below(8) == 0)
          c = exact_pattern(out, r.below(2) != 0, r.range(-8, 40), r.below(2) ? 0 : (std::uint64_t{1} << out.precision) - 1);
    }
    unit.gemm_into(in_a, in_b, out, m, n, K, A, B, C, D, p.instruction, threads);
    gemm_mismatches(unit, in_a, in_b, out, m, n, K, A, B, C, D, p.instruction,
                    {"amd-gemm-chain", std::string(p.a) + "*" + p.b + " " + p.instruction}, t.mismatches);
    t.outputs += m * n;
    t.blocks += m * n * ((K + block - 1) / block);
  }
  return t;
}

const ChainPair kPairs[] = {
    {"fp16", "fp16", ""},
    {"fp16", "fp16", "v1"},
    {"fp16", "fp16", "v_mfma_f32_32x32x4_2b_f16"},
    {"fp16", "fp16", "v_mfma_f32_32x32x4_2b_f16.v1"},
    {"bf16", "bf16", ""},
    {"bf16", "bf16", "v1"},
    {"bf16", "bf16", "v_mfma_f32_32x32x4_2b_bf16"},
    {"bf16", "bf16", "v_mfma_f32_32x32x4_2b_bf16.v1"},
    {"e4m3fnuz", "e4m3fnuz", ""},
    {"e4m3fnuz", "e4m3fnuz", "v1"},
    {"e5m2fnuz", "e5m2fnuz", ""},
    {"e5m2fnuz", "e5m2fnuz", "v1"},
    {"e4m3fnuz", "e5m2fnuz", ""},
    {"e5m2fnuz", "e4m3fnuz", "v1"},
    {"fp32", "fp32", "xf32"},
    {"fp32", "fp32", "xf32.v1"},
};

// Every pair on every compiled SIMD target (the CPU's own first, with `best` outputs per pair).
std::uint64_t run_targets(const char* unit_name, const char* path, const ChainPair* pairs, std::size_t count, Rng& r,
                          std::uint64_t best, std::uint64_t others, int far_kind, bool runs = false,
                          bool spread = false, bool edges = false, bool short_cases = false) {
  const Unit& unit = builtin_unit(unit_name);
  std::uint64_t mismatches = 0;
  const auto targets = hwy::SupportedAndGeneratedTargets();
  for (const std::int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string name = hwy::TargetName(target);
    for (std::size_t i = 0; i < count; ++i) {
      const ChainPair& p = pairs[i];
      INFO(std::string(unit_name) + " " + p.a + "*" + p.b + " " + p.instruction + " on " + name);
      REQUIRE(unit.batch_path(parse_format(p.a), formats::fp32(), p.instruction).rfind(path, 0) == 0);
      const Tally t =
          run_pair(unit, p, r, target == targets.front() ? best : others, 1 + r.below(2), far_kind, runs, spread, edges,
                   short_cases);
      std::printf("[amd-gemm-chain%s] %s %s %s*%s %-30s %llu outputs (%llu block FMAs), %llu mismatches\n",
                  runs ? " runs" : spread ? " spread" : edges ? " edges" : short_cases ? " short" : "", unit_name,
                  name.c_str(), p.a, p.b, p.instruction, static_cast<unsigned long long>(t.outputs),
                  static_cast<unsigned long long>(t.blocks), static_cast<unsigned long long>(t.mismatches));
      mismatches += t.mismatches;
    }
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the CPU's own
  return mismatches;
}

const ChainPair kExactPairs[] = {
    {"fp16", "fp16", ""},
    {"fp16", "fp16", "v_mfma_f32_16x16x16f16"},
    {"bf16", "bf16", ""},
    {"bf16", "bf16", "v_mfma_f32_16x16x8bf16"},
};

}  // namespace

TEST_CASE("after-add gemm chain: c in registers, int32 epilogue, every SIMD target, against Unit::dot",
          "[kernel][differential][amd]") {
  Rng r(tcsim::test::seed("after-add gemm chain", 0xa7c4a1d0));
  const std::uint64_t best = tcsim::test::count(20'000), others = tcsim::test::count(3'000);
  CHECK(run_targets("mi300x", "after-add", kPairs, std::size(kPairs), r, best, others, 2) == 0);
}

TEST_CASE("exact-block gemm chain: c in registers, binary64 lanes, every SIMD target, against Unit::dot",
          "[kernel][differential][amd]") {
  Rng r(tcsim::test::seed("exact-block gemm chain", 0xe8ac7c10));
  const std::uint64_t best = tcsim::test::count(40'000), others = tcsim::test::count(6'000);
  CHECK(run_targets("mi100", "exact-block", kExactPairs, std::size(kExactPairs), r, best, others, 3) == 0);
}

// mi100b: long chains (1-200 blocks at the row's k) of one lead band per GEMM, where whole tiles
// take exact_chain.cpp's runs without a test per block, with edges sprinkled per element (zeros,
// subnormal and huge values, NaN/Inf, far values, kernel_cases / flush_edges rows and columns)
// that end runs; bf16 bands from binary32's subnormal results to its overflow. edge25: a quarter
// of the GEMMs are rounding GEMMs (fill_round_edges: every block at or next to a binary32 tie,
// carries, binade edges, subnormal results), and now and then one over 64 rows.
TEST_CASE("exact-block gemm chain: runs of blocks proven exact by the tile bound, every SIMD target, against Unit::dot",
          "[kernel][differential][amd]") {
  Rng r(tcsim::test::seed("exact-block gemm runs", 0xe8ac7c11));
  const std::uint64_t best = tcsim::test::count(12'000), others = tcsim::test::count(2'000);
  CHECK(run_targets("mi100", "exact-block", kExactPairs, std::size(kExactPairs), r, best, others, 3, true) == 0);
}

// mi300f8: the fp8 rows (two groups) on the one-group chain where the operands' spreads allow
// (sim/src/after_add_spread.cpp), the register tiles elsewhere; spreads at the bound, one
// below and one above it, and random ones, on the row names and the instruction forms. Since
// mi300g the admitted blocks run on the pair chain (sim/src/amd_pair_chain-inl.h: int16
// operands, pair dot products), whose second limit (spreads of A and B each at most 15 - p)
// the draws also put at and one above.
const ChainPair kFp8Pairs[] = {
    {"e4m3fnuz", "e4m3fnuz", ""},
    {"e4m3fnuz", "e4m3fnuz", "v1"},
    {"e4m3fnuz", "e4m3fnuz", "v_mfma_f32_16x16x32_fp8_fp8"},
    {"e4m3fnuz", "e4m3fnuz", "v_mfma_f32_32x32x16_fp8_fp8.v1"},
    {"e5m2fnuz", "e5m2fnuz", ""},
    {"e5m2fnuz", "e5m2fnuz", "v1"},
    {"e5m2fnuz", "e5m2fnuz", "v_mfma_f32_32x32x16_bf8_bf8"},
    {"e5m2fnuz", "e5m2fnuz", "v_mfma_f32_16x16x32_bf8_bf8.v1"},
    {"e4m3fnuz", "e5m2fnuz", ""},
    {"e5m2fnuz", "e4m3fnuz", "v1"},
};

TEST_CASE("after-add gemm chain: fp8 two groups on the one-group chain at the spread bound, every SIMD target",
          "[kernel][differential][amd]") {
  Rng r(tcsim::test::seed("after-add gemm fp8 spread", 0xf8f8a1d0));
  const std::uint64_t best = tcsim::test::count(12'000), others = tcsim::test::count(2'000);
  CHECK(run_targets("mi300x", "after-add", kFp8Pairs, std::size(kFp8Pairs), r, best, others, 2, false, true) == 0);
}

// mi300c: c far above the products (unclamped shift counts on AVX2/AVX-512) and e_g at the
// scale flags' edges (the int16 scale pass), every one-group mi300x line and the fp8 lines too
// (their epilogue is the same).
TEST_CASE("after-add gemm chain: far c and e_g at the flags' edges, every SIMD target", "[kernel][differential][amd]") {
  Rng r(tcsim::test::seed("after-add gemm edges", 0xc300ed9e));
  const std::uint64_t best = tcsim::test::count(12'000), others = tcsim::test::count(2'000);
  CHECK(run_targets("mi300x", "after-add", kPairs, std::size(kPairs), r, best, others, 2, false, false, true) == 0);
}

// mi300d: the short epilogue's bounds (D' at 34 and one above, at 4 and 5), ties at the floors,
// cancellation against c and the range edges, on the one-group lines it serves (fp16, bf16, the
// K = 4 forms, xf32; v2 and v1).
const ChainPair kShortPairs[] = {
    {"fp16", "fp16", ""},
    {"fp16", "fp16", "v1"},
    {"fp16", "fp16", "v_mfma_f32_32x32x4_2b_f16"},
    {"fp16", "fp16", "v_mfma_f32_32x32x4_2b_f16.v1"},
    {"bf16", "bf16", ""},
    {"bf16", "bf16", "v1"},
    {"bf16", "bf16", "v_mfma_f32_32x32x4_2b_bf16"},
    {"bf16", "bf16", "v_mfma_f32_32x32x4_2b_bf16.v1"},
    {"fp32", "fp32", "xf32"},
    {"fp32", "fp32", "xf32.v1"},
};

TEST_CASE("after-add gemm chain: the short epilogue's bounds, ties, cancellation and range edges, every SIMD target",
          "[kernel][differential][amd]") {
  Rng r(tcsim::test::seed("after-add gemm short", 0x300d5e01));
  const std::uint64_t best = tcsim::test::count(12'000), others = tcsim::test::count(2'000);
  CHECK(run_targets("mi300x", "after-add", kShortPairs, std::size(kShortPairs), r, best, others, 2, false, false, false,
                    true) == 0);
}

namespace {

// Cancellation under a sticky bit (mi300e): one block of k products per output, k - 1 of them at
// their largest (significands near 2, all of one sign), one at the lead where its last bit falls
// on s's bit 0 (2^(e_dot - 24); xf32: any product, truncated there), and c of the other sign at
// 2^L with L = bit_width(4 (k - 1) - 1): D' = 5 for k = 8, so U = 2^(e_dot - 23), the sticky bit
// is s's bit 0 and |X| lies near 2^25 units, under ShortEpilogue's bound 2^26 (and under 2^25
// too, where T0 | sticky has one bit too few for round to odd). For k = 4, D' = 4: no sticky
// bit, the kSmallK form without the check (its argument: a sticky bit leaves |T0| >= 2^27).
void fill_cancel(const Format& f, const Format& out, Rng& r, std::size_t m, std::size_t n, std::size_t k,
                 std::uint64_t* A, std::uint64_t* B, std::uint64_t* C) {
  const std::uint64_t p1 = std::uint64_t{1} << (f.precision - 1), po = std::uint64_t{1} << (out.precision - 1);
  const int small = std::min(0, 2 * (f.precision - 1) - 24);
  const std::size_t ts = r.below(k);  // the small product's position
  auto big = [&](bool neg) { return exact_pattern(f, neg, 0, 2 * p1 - 1 - r.below(8)); };
  for (std::size_t i = 0; i < m; ++i) {
    const bool neg = r.below(2) != 0;
    for (std::size_t t = 0; t < k; ++t) A[i * k + t] = t == ts ? exact_pattern(f, neg, small, p1 | r.below(p1) | 1) : big(neg);
    for (std::size_t j = 0; j < n; ++j) {
      const int L = std::bit_width(4 * (k - 1) - 1);
      C[i * n + j] = exact_pattern(out, !neg, L, r.below(2) ? 0 : po | r.below(4));
    }
  }
  for (std::size_t t = 0; t < k; ++t)
    for (std::size_t j = 0; j < n; ++j) B[t * n + j] = t == ts ? exact_pattern(f, false, 0, p1 | r.below(p1) | 1) : big(false);
}

}  // namespace

TEST_CASE("after-add gemm chain: cancellation under a sticky bit (the short epilogue's check), every SIMD target",
          "[kernel][differential][amd]") {
  Rng r(tcsim::test::seed("after-add gemm cancel", 0x300e5e01));
  const Unit& unit = builtin_unit("mi300x");
  const Format& out = formats::fp32();
  std::uint64_t mismatches = 0;
  const auto targets = hwy::SupportedAndGeneratedTargets();
  for (const std::int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    for (const ChainPair& p : kShortPairs) {
      const Format &fa = parse_format(p.a), &fb = parse_format(p.b);
      INFO(std::string(p.a) + " " + p.instruction + " on " + hwy::TargetName(target));
      REQUIRE(unit.batch_path(fa, out, p.instruction).rfind("after-add", 0) == 0);
      const InstructionSelection sel = unit.select_instruction(fa, fb, out, p.instruction);
      const std::size_t row_k = static_cast<std::size_t>(unit.spec().datapaths[sel.row].fma_size);
      const std::size_t k = std::min(sel.shape ? sel.shape->k : row_k, row_k);
      std::uint64_t before = mismatches, outputs = 0;
      while (outputs < tcsim::test::count(target == targets.front() ? 4'000 : 1'000)) {
        const std::size_t m = 1 + r.below(12), n = 1 + r.below(80);
        std::vector<std::uint64_t> A(m * k), B(k * n), C(m * n), D(m * n);
        fill_cancel(fa, out, r, m, n, k, A.data(), B.data(), C.data());
        unit.gemm_into(fa, fb, out, m, n, k, A, B, C, D, p.instruction, 1 + r.below(2));
        gemm_mismatches(unit, fa, fb, out, m, n, k, A, B, C, D, p.instruction,
                        {"amd-gemm-chain", std::string(p.a) + " " + p.instruction + " cancel"}, mismatches);
        outputs += m * n;
      }
      std::printf("[amd-gemm-chain cancel] mi300x %s %s %-30s k = %zu: %llu outputs, %llu mismatches\n",
                  hwy::TargetName(target), p.a, p.instruction, k, static_cast<unsigned long long>(outputs),
                  static_cast<unsigned long long>(mismatches - before));
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  CHECK(mismatches == 0);
}
