// The seeds' error bounds against numbers checkable by hand from the papers' tables and
// text. Literal values were computed by hand (exact rationals, then rounded to double) and
// are given with the arithmetic in comments.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "tcsim/reference/bounds.hpp"
#include "tcsim/sim/format.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::reference::bounds;

namespace {
constexpr double u16 = 0x1p-11;
constexpr double u32 = 0x1p-24;
// Tiny synthetic unit roundoffs: second-order terms vanish, so a full bound must match its
// paper's first-order table entry to ~1e-6.
constexpr double tiny_low = 0x1p-30;
constexpr double tiny_high = 0x1p-60;

bool rel_close(double x, double y, double rel) { return std::fabs(x - y) <= rel * std::fabs(y); }
}  // namespace

TEST_CASE("bounds: gamma_k = k u / (1 - k u) and +inf when k u >= 1 (blanchard2020 section 2)") {
  CHECK(gamma(1, 0.5) == 1.0);            // 0.5 / 0.5
  CHECK(gamma(3, 0.25) == 3.0);           // 0.75 / 0.25
  CHECK(std::isinf(gamma(4, 0.25)));      // k u = 1
  CHECK(std::isinf(gamma(1e9, u16)));
  CHECK(gamma(0, u16) == 0.0);
  CHECK(gamma(-3, u16) == 0.0);
  CHECK(gamma(1000, 0) == 0.0);
  CHECK(gamma(2048, u32) == 0x1p-13 / (1 - 0x1p-13));
  CHECK(unit_roundoff(formats::fp16()) == u16);
  CHECK(unit_roundoff(formats::fp32()) == u32);
  CHECK(unit_roundoff(formats::bf16()) == 0x1p-8);
  CHECK(unit_roundoff(formats::e2m1()) == 0x1p-2);
}

TEST_CASE("bounds: blanchard2020 eq. (3.3) u~_FMA and Table 3.1 (first-order constants of Theorem 3.1)") {
  const double lo = tiny_low, hi = tiny_high;
  // Table 3.1 column u~_FMA (u <= u_FMA, here u = u_FMA).
  CHECK(blanchard_u_fma_tilde(lo, lo, lo) == 0);
  CHECK(blanchard_u_fma_tilde(lo, lo, hi) == lo);
  CHECK(blanchard_u_fma_tilde(lo, lo, 0) == lo);
  CHECK(blanchard_u_fma_tilde(hi, hi, lo) == 0);
  CHECK(blanchard_u_fma_tilde(hi, hi, hi) == 0);
  CHECK(blanchard_u_fma_tilde(hi, hi, 0) == hi);
  CHECK(blanchard_u_fma_tilde(lo, hi, hi) == lo);  // u > u_FMA takes precedence

  // Table 3.1 "Bound" column, n = 1024, b = 4, q = 256.
  const double n = 1024, q = 256;
  struct Row {
    double u_fma, u_bar, expected;
  } rows[] = {{lo, lo, n * lo}, {lo, hi, q * lo + n * hi}, {lo, 0, q * lo},
              {hi, lo, n * lo}, {hi, hi, n * hi},          {hi, 0, q * hi}};
  for (const auto& r : rows) {
    BlockFmaParams p;
    p.n = n;
    p.b = 4;
    p.u_low = lo;
    p.u_fma = r.u_fma;
    p.u_bar = r.u_bar;
    p.u = r.u_fma;
    INFO("u_fma " << r.u_fma << " u_bar " << r.u_bar);
    CHECK(rel_close(blanchard_thm31(p), r.expected, 1e-5));
  }
}

TEST_CASE("bounds: blanchard2020 Theorem 3.2 reproduces Table 3.2 to first order") {
  const double n = 1000, b = 8;  // q = 125
  const Table32Method all[] = {Table32Method::StandardLow,   Table32Method::FmaLowBarLow,
                               Table32Method::FmaLowBarHigh, Table32Method::FmaLowBarExact,
                               Table32Method::FmaHighBarLow, Table32Method::FmaHighBarHigh,
                               Table32Method::FmaHighBarExact, Table32Method::StandardHigh};
  for (auto m : all) {
    const BlockFmaParams p = blanchard_table32_params(m, n, b, tiny_low, tiny_high);
    INFO("Table 3.2 row " << static_cast<int>(m));
    CHECK(rel_close(blanchard_thm32(p), blanchard_table32(m, n, b, tiny_low, tiny_high), 1e-5));
  }
  // Printed entries, by hand: (q+2) u_low + n u_high = 127 lo + 1000 hi; 2 u_low + q u_high.
  CHECK(blanchard_table32(Table32Method::FmaLowBarHigh, n, b, 1, 1e-3) == 127 + 1.0);
  CHECK(blanchard_table32(Table32Method::FmaHighBarExact, n, b, 1, 1e-3) == 2 + 0.125);
  // Text after Table 3.2: with u_fma = u_bar = u_high the improvement over standard u_low is
  // about min(n/2, u_low/u_high). n = 64: (66 u16)/(2 u16 + 64 u32) = 66/2.0078125 = 32.87 ~ n/2.
  const double ratio = blanchard_table32(Table32Method::StandardLow, 64, 4, u16, u32) /
                       blanchard_table32(Table32Method::FmaHighBarHigh, 64, 4, u16, u32);
  CHECK(rel_close(ratio, 66 / 2.0078125, 1e-12));
}

TEST_CASE("bounds: blanchard2020 Table 3.3 (V100 tensor cores) from Theorems 3.1 and 3.2") {
  // Hand value: TC32, A and B in u32, n = 1024: 2u16 + u16^2 + g32_1024 (1 + u16)^2
  // = 2^-10 + 2^-22 + (2^-14 / (1 - 2^-14)) (1 + 2^-11)^2 = 0x1.1014405101440p-10.
  BlockFmaParams tc32;
  tc32.n = 1024;
  tc32.b = 4;
  tc32.u_low = u16;
  tc32.u_fma = tc32.u_bar = tc32.u = u32;
  CHECK(rel_close(blanchard_thm32(tc32), 0x1.1014405101440p-10, 1e-12));
  CHECK(rel_close(blanchard_thm32(tc32), blanchard_table33(TcVariant::TC32, false, 1024), 2e-3));
  // TC32 with inputs in u16 (Theorem 3.1): g32_1024 ~ n u32.
  CHECK(rel_close(blanchard_thm31(tc32), blanchard_table33(TcVariant::TC32, true, 1024), 1e-3));
  // TC16 (u_fma = u_bar = u = u16), n = 64: u~_FMA = 0, so g16_64 = (1/32)/(31/32) = 1/31.
  BlockFmaParams tc16 = tc32;
  tc16.n = 64;
  tc16.u_fma = tc16.u_bar = tc16.u = u16;
  CHECK(rel_close(blanchard_thm31(tc16), 1.0 / 31, 1e-12));
  CHECK(rel_close(blanchard_thm31(tc16), blanchard_table33(TcVariant::TC16, true, 64), 0.04));
  CHECK(rel_close(blanchard_thm32(tc16), blanchard_table33(TcVariant::TC16, false, 64), 0.05));
  // The table itself.
  CHECK(blanchard_table33(TcVariant::Fp16, true, 100) == 100 * u16);
  CHECK(blanchard_table33(TcVariant::Fp16, false, 100) == 102 * u16);
  CHECK(blanchard_table33(TcVariant::TC32, false, 100) == 2 * u16 + 100 * u32);
  CHECK(blanchard_table33(TcVariant::Fp32, false, 100) == 100 * u32);
  // Beyond n u >= 1 the bound says nothing.
  tc16.n = 4096;
  CHECK(std::isinf(blanchard_thm31(tc16)));
}

TEST_CASE("bounds: blanchard2020 Theorems 4.3 and 4.4 and Table 4.1 (LU with tensor cores)") {
  BlockFmaParams tc32;
  tc32.n = 4096;
  tc32.b = 4;
  tc32.u_low = u16;
  tc32.u_fma = tc32.u_bar = tc32.u = u32;
  // By hand: 2u16 + u16^2 + max(g32_4093, g32_4)(1+u16)^2 = 0.001221060621805492;
  // Theorem 4.4 adds 2 g32_4096 + g32_4096^2: 0.0017095207439652479.
  CHECK(rel_close(blanchard_thm43(tc32), 0.001221060621805492, 1e-12));
  CHECK(rel_close(blanchard_thm44(tc32), 0.0017095207439652479, 1e-12));
  CHECK(rel_close(blanchard_thm43(tc32), blanchard_table41(TcVariant::TC32, false, 4096), 2e-3));
  CHECK(rel_close(blanchard_thm44(tc32), blanchard_table41(TcVariant::TC32, true, 4096), 2e-3));
  // TC16, n = 64: 2u16 + u16^2 + max(g16_61, g16_4)(1+u16)^2 = 0.03170633532020634 ~ 63 u16.
  BlockFmaParams tc16 = tc32;
  tc16.n = 64;
  tc16.u_fma = tc16.u_bar = tc16.u = u16;
  CHECK(rel_close(blanchard_thm43(tc16), 0.03170633532020634, 1e-12));
  CHECK(rel_close(blanchard_thm43(tc16), blanchard_table41(TcVariant::TC16, false, 64), 0.04));
  // Table 4.1 to first order with tiny roundoffs (u16 -> 2^-30, u32 -> 2^-60).
  tc16.u_low = tc16.u_fma = tc16.u_bar = tc16.u = tiny_low;
  tc16.n = 1 << 12;
  CHECK(rel_close(blanchard_thm43(tc16), blanchard_table41(TcVariant::TC16, false, 4096, tiny_low, tiny_high), 1e-5));
  CHECK(rel_close(blanchard_thm44(tc16), blanchard_table41(TcVariant::TC16, true, 4096, tiny_low, tiny_high), 1e-5));
  // Text after Table 4.1: the TC32 LU constant is ~900 (n = 2000) to ~5500 (n = 34000) times
  // smaller than fp16's: 2000 u16 / (2u16 + 1997 u32) = 891.4; 34000: 5528.
  const double r2000 = blanchard_table41(TcVariant::Fp16, false, 2000) / blanchard_table41(TcVariant::TC32, false, 2000);
  const double r34000 =
      blanchard_table41(TcVariant::Fp16, false, 34000) / blanchard_table41(TcVariant::TC32, false, 34000);
  CHECK(r2000 > 850);
  CHECK(r2000 < 950);
  CHECK(r34000 > 5300);
  CHECK(r34000 < 5700);
  // "only starts growing with n when n >~ 2u16/u32 = 16384 (LU) or 2/3 u16/u32 ~ 5461 (Ax = b)":
  // there the n-dependent term equals the constant 2u16.
  CHECK(2 * u16 / u32 == 16384);
  CHECK(rel_close(3 * 5461 * u32, 2 * u16, 1e-4));
  // Corollary 4.1 differs from Theorem 3.1 only by g_{n+1} for g_n.
  CHECK(blanchard_cor41(tc32) > blanchard_thm31(tc32));
  CHECK(rel_close(blanchard_cor41(tc32), gamma(4097, u32), 1e-12));
}

TEST_CASE("bounds: mary2021 multiword bounds and the slide table") {
  // p = 1 is Theorem 3.2's tensor core bound 2u_low + n u_high (+ u_low^2 + u_high).
  CHECK(rel_close(mary_multiword(1000, 1, u16, u32, false), 2 * u16 + 1000 * u32, 2e-3));
  // Slide table: bfloat16 words, p = 2 with skipping: 3 x 2^-16 + n 2^-24.
  CHECK(rel_close(mary_multiword(1000, 2, 0x1p-8, u32, true), 3 * 0x1p-16 + 1000 * u32, 0.02));
  // p = 3: n 2^-24 (the u_low^3 = 2^-24 terms are part of the constant): 4 x 2^-24 + (n+9) 2^-24.
  CHECK(rel_close(mary_multiword(1000, 3, 0x1p-8, u32, true), (1000 + 13) * u32, 0.02));
  // "error to order u_low^p: constant 2 -> p+1" when products with i + j > p + 1 are skipped.
  for (int p = 1; p <= 4; ++p) {
    const double u = 0x1p-20;
    const double coef_skip = (mary_multiword(10, p, u, 0, true)) / std::pow(u, p);
    const double coef_full = (mary_multiword(10, p, u, 0, false)) / std::pow(u, p);
    INFO("p = " << p);
    CHECK(rel_close(coef_skip, p + 1, 1e-4));
    CHECK(rel_close(coef_full, 2, 1e-4));
  }
  // FABsum slide: b u32 + n u64 / b.
  CHECK(mary_fabsum(1 << 20, 32, u32, 0x1p-53) == 32 * u32 + (1 << 15) * 0x1p-53);
}

TEST_CASE("bounds: mary2024 Table 2.1 format parameters") {
  struct Row {
    const Format* f;
    double fmax, u;
    int emin;
  } rows[] = {{&formats::fp64(), 1.7976931348623157e308, 0x1p-53, -1022},
              {&formats::fp32(), 3.4028234663852886e38, 0x1p-24, -126},
              {&formats::tf32(), 3.4011621342146535e38, 0x1p-11, -126},
              {&formats::bf16(), 3.3895313892515355e38, 0x1p-8, -126},
              {&formats::fp16(), 65504, 0x1p-11, -14},
              {&formats::e4m3(), 448, 0x1p-4, -6},
              {&formats::e5m2(), 57344, 0x1p-3, -14},
              {&formats::e2m3(), 7.5, 0x1p-4, 0},
              {&formats::e3m2(), 28, 0x1p-3, -2},
              {&formats::e2m1(), 6, 0x1p-2, 0}};
  for (const auto& r : rows) {
    INFO(r.f->name);
    const RangeParams p = range_params(*r.f);
    CHECK(p.fmax == r.fmax);
    CHECK(p.u == r.u);
    CHECK(p.fmin == std::ldexp(1.0, r.emin));
    CHECK(p.gmin == p.u * p.fmin);                              // (2.1) with subnormals
    CHECK(range_params(*r.f, false).gmin == p.fmin / 2);        // (2.1) without
  }
}

TEST_CASE("bounds: mary2024 Theorems 3.1 and 4.1 (narrow range)") {
  const RangeParams e4m3 = range_params(formats::e4m3(), false);
  const RangeParams fp16 = range_params(formats::fp16());
  const RangeParams fp32 = range_params(formats::fp32());
  // (3.2): E4M3 -> binary16, theta = min(448, sqrt(65504/n)): 1 at n = 65504, < 1 beyond
  // (section 5: "when n exceeds 65504, theta becomes smaller than 1").
  CHECK(mm_theta(65504, e4m3, fp16) == 1.0);
  CHECK(mm_theta(65505, e4m3, fp16) < 1.0);
  CHECK(mm_theta(1, e4m3, fp32) == 448);
  // Section 3.2: without subnormals and theta = f_max (F_max large enough: binary32
  // accumulation, n = 1), omega = f_min/(2 f_max), "for all formats of interest smaller
  // than the corresponding unit roundoff u": E4M3 2^-7/448 = 1.74e-5 < 2^-4; E2M1 1/12 < 1/4.
  for (const Format* f : {&formats::e4m3(), &formats::e5m2(), &formats::e3m2(), &formats::e2m1(),
                          &formats::fp16()}) {
    const RangeParams in = range_params(*f, false);
    INFO(f->name);
    CHECK(mm_theta(1, in, fp32) == in.fmax);
    CHECK(mm_omega(1, in, fp32) == in.fmin / (2 * in.fmax));
    CHECK(mm_omega(1, in, fp32) < in.u);
  }
  // ... except fp6 E2M3, where the claim fails narrowly: f_min = 1, f_max = 7.5, so
  // omega = 1/15 = 0.0667 > u = 2^-4 = 0.0625 (computed from Table 2.1's own numbers).
  const RangeParams e2m3 = range_params(formats::e2m3(), false);
  CHECK(mm_omega(1, e2m3, fp32) == 1.0 / 15);
  CHECK(mm_omega(1, e2m3, fp32) > e2m3.u);
  // By hand, E4M3 without subnormals into binary16, n = 1024: theta = sqrt(65504/1024)
  // = 7.9980466365231955; (3.26) = 2/16 + 1024/2048 + 4 n^2 2^-7/theta + 8 n^2 2^-25/theta^2
  // = 4097.629274518294; (3.25) = 6536.294532538262 (a vacuous bound: the n^2 omega term).
  CHECK(rel_close(mary_mikaitis_thm31_first_order(1024, e4m3, fp16), 4097.629274518294, 1e-12));
  CHECK(rel_close(mary_mikaitis_thm31(1024, e4m3, fp16), 6536.294532538262, 1e-12));
  // Without underflow terms (g_min = G_min = 0) they reduce to (3.28) 2u + nU and (4.33).
  RangeParams in = e4m3, acc = fp32;
  in.gmin = acc.gmin = 0;
  CHECK(mary_mikaitis_thm31_first_order(1000, in, acc) == 2 * in.u + 1000 * acc.u);
  for (int p = 1; p <= 3; ++p) {
    CHECK(mary_mikaitis_thm41(1000, p, in, acc) == fasi_multiword_eq433(1000, p, in.u, acc.u));
    // (4.28) -> (4.32): 2 zeta + zeta^2 + (p-1)u^p = (p+1)u^p + u^2p (zeta = u^p here).
    CHECK(rel_close(mary_mikaitis_eq428(1000, p, in, acc) - mary_mikaitis_thm41(1000, p, in, acc),
                    std::pow(in.u, 2 * p), 1e-6));
  }
  // By hand, subnormal E4M3 inputs, fp32 accumulation, n = 64: theta = 448, g_min = 2^-10,
  // (3.26) = 2/16 + 64 2^-24 + 4 64^2 2^-10/448 + 8 64^2 2^-150/448^2 = 0.16071810041155132:
  // the input-underflow term (16/448) is already 29 % of the rounding term 2u at n = 64.
  const RangeParams e4m3s = range_params(formats::e4m3());
  CHECK(rel_close(mary_mikaitis_thm31_first_order(64, e4m3s, fp32), 0.16071810041155132, 1e-12));
  // (4.32) with p = 2: 3 2^-8 + 4 64 2^-4 2^-10/448 + 68 2^-24 + 24 64^2 2^-150/448^2
  // = 0.011757680347987584: multiword shrinks the input terms by a factor of order u.
  CHECK(rel_close(mary_mikaitis_thm41(64, 2, e4m3s, fp32), 0.011757680347987584, 1e-12));
}

TEST_CASE("bounds: lopez2022 Theorems 1-4 and Tables 1-2 (mixed precision LU)") {
  const double n = 4096, r = 256;
  // Theorem 1 with u = u32 -> (3.2) 2u16 + n u32 (dominant; here (n - r + 1) u32).
  CHECK(rel_close(lopez_mary_thm1(n, r, u16, u32, u32), lopez_mary_table1(LopezMaryAlgorithm::Alg31U32, n, r), 0.02));
  // Theorem 1 with u = u16 -> (3.3) n u16 / 4 for n >> r (tiny roundoffs, n = 2^20, r = 4).
  CHECK(rel_close(lopez_mary_thm1(1 << 20, 4, tiny_low, tiny_high, tiny_low), (1 << 20) * tiny_low / 4, 1e-3));
  // "(3.3) is roughly min(n/8, u16/(4 u32)) = min(n/8, 2048) larger than (3.2)".
  const auto ratio = [&](double nn) {
    return lopez_mary_table1(LopezMaryAlgorithm::Alg31U16, nn, r) / lopez_mary_table1(LopezMaryAlgorithm::Alg31U32, nn, r);
  };
  CHECK(rel_close(ratio(64), 64.0 / 8, 0.01));
  CHECK(rel_close(ratio(1 << 30), 2048, 0.01));
  // Theorem 2 by hand: max(u16 + g32_3841 + u16 g32_3841, g16_256) = g16_256 = 1/7.
  CHECK(rel_close(lopez_mary_thm2(n, r, u16, u32), 1.0 / 7, 1e-12));
  // Theorem 3 by hand: max(g32_3841, 2u16 + u16^2 + g32_256 (1+u16)^2) = 0.0009920748455024032.
  CHECK(rel_close(lopez_mary_thm3(n, r, u16, u32), 0.0009920748455024032, 1e-12));
  // Table 1, Alg. 4.1: n u32 >= r u16 for n >= r u16/u32 = 2,097,152 ("n >~ 2.1e6", r = 256).
  CHECK(r * u16 / u32 == 2097152);
  CHECK(lopez_mary_table1(LopezMaryAlgorithm::Alg41, 2097152, r) == u16 + r * u16);
  CHECK(lopez_mary_table1_fp32_entries(LopezMaryAlgorithm::Alg41, n, r) == n * r);
  // Theorems 2 and 3 to first order with tiny roundoffs against Table 1 / Table 2's g column.
  CHECK(rel_close(lopez_mary_thm2(1 << 20, 16, tiny_low, tiny_high),
                  std::max(tiny_low + (1 << 20) * tiny_high, 16 * tiny_low), 1e-5));
  // Table 2's g for PanelFactor = Alg. 4.1 / 5.1 is Theorem 2 / 3 on an r x r panel with
  // s x s blocks (n -> r, r -> s): max(u16 + r u32, s u16) and max(r u32, 2u16 + s u32).
  const double s = 8;
  CHECK(rel_close(lopez_mary_thm2(r, s, tiny_low, tiny_high),
                  lopez_mary_table2(PanelFactor::Alg41, n, r, s, tiny_low, tiny_high).g, 1e-5));
  CHECK(rel_close(lopez_mary_thm3(r, s, tiny_low, tiny_high),
                  lopez_mary_table2(PanelFactor::Alg51, n, r, s, tiny_low, tiny_high).g, 1e-5));
  // Theorem 4 with each Table 2 row's u~_in, u~_out and g: the table's f is the sum of the
  // max's two first-order branches, so max <= f_table <= 2 max.
  for (auto pf : {PanelFactor::Alg21U16, PanelFactor::Alg21U32, PanelFactor::Alg31U16, PanelFactor::Alg31U32,
                  PanelFactor::Alg41, PanelFactor::Alg51}) {
    const Table2Row row = lopez_mary_table2(pf, n, r, s, tiny_low, tiny_high);
    const double f = lopez_mary_thm4(n, r, row.g, row.u_in, row.u_out, tiny_high);
    INFO("PanelFactor row " << static_cast<int>(pf) << ": thm4 " << f << " table " << row.f);
    CHECK(f <= row.f * (1 + 1e-5));
    CHECK(row.f <= 2 * f * (1 + 1e-5));
  }
  // Theorem 4 with PanelFactor = Alg. 2.1 (u = u16): u_in = u16, u_out = 0, g = g16_r is
  // Theorem 2 exactly.
  CHECK(lopez_mary_thm4(n, r, gamma(r, u16), u16, 0, u32) == lopez_mary_thm2(n, r, u16, u32));
  CHECK(lopez_mary_total(0.5, 0.25) == 0.25 + 1.25 * 0.5);
}

TEST_CASE("bounds: the catalogue lists every bound with source and equation") {
  const auto& cat = bound_catalog();
  CHECK(cat.size() >= 20);
  for (const auto& b : cat) {
    INFO(b.name);
    CHECK(!b.source.empty());
    CHECK(!b.equation.empty());
    CHECK(!b.formula.empty());
    const double v = b.example(1024);
    CHECK(v > 0);
  }
}
