// gemm_errors / sample_rows / gemm_bound beyond test_gemm_errors.cpp: exact values where the
// exact sum leaves binary64's range, non-finite entries, k = 65536 against a double-double
// evaluation, what sampling checks, thread determinism bit for bit, and the bounds against
// blanchard2020 Table 3.3 and mary2021's multiword and FABsum slides.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "tcsim/reference/bounds.hpp"
#include "tcsim/reference/gemm_error.hpp"
#include "test_support.hpp"

using namespace tcsim::reference;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Error-free a + b (Knuth's TwoSum).
std::pair<double, double> two_sum(double a, double b) {
  const double s = a + b, bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}

// Random binary64 in [0, 1) with all 53 bits used.
double unit(tcsim::test::Rng& r) { return static_cast<double>(r.next() >> 11) * 0x1p-53; }

// D^ = C + A B computed in binary32, product by product in order: an m x n D^ whose errors
// gemm_errors can measure.
std::vector<double> binary32_gemm(std::size_t m, std::size_t n, std::size_t k, const std::vector<double>& A,
                                  const std::vector<double>& B, const std::vector<double>& C) {
  std::vector<double> D(m * n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      float s = static_cast<float>(C[i * n + j]);
      for (std::size_t t = 0; t < k; ++t) s += static_cast<float>(A[i * k + t] * B[t * n + j]);
      D[i * n + j] = s;
    }
  return D;
}

}  // namespace

TEST_CASE("gemm_error: one ulp off in one known entry, C empty", "[gemm_error]") {
  // A (2x3), B (3x2) small integers: every binary64 operation below is exact.
  const std::vector<double> A{1, 2, 3, -4, 5, -6}, B{7, 8, 9, 10, 11, 12};
  const std::vector<double> D{58, 64, -49, -54};  // A B by hand
  auto e = gemm_errors(2, 2, 3, A, B, {}, D);
  CHECK(e.componentwise == 0);
  CHECK(e.normwise == 0);
  std::vector<double> Dh = D;
  Dh[2] = std::nextafter(-49.0, 0.0);  // one ulp of 49 (2^(5-52)) toward zero
  e = gemm_errors(2, 2, 3, A, B, {}, Dh);
  const double ulp = 0x1p-47;
  CHECK(e.componentwise == ulp / (4 * 7 + 5 * 9 + 6 * 11));  // (|A||B|)_21 = 139
  // ||A||_inf = 15, ||B||_inf = 23, C = 0.
  CHECK(e.normwise == ulp / (15 * 23));
  // An error where the exact entry is 0 but |A||B| is not: A = [1 -1], B = [1; 1].
  const std::vector<double> a{1, -1}, b{1, 1}, d{0x1p-40};
  CHECK(gemm_errors(1, 1, 2, a, b, {}, d).componentwise == 0x1p-41);
}

TEST_CASE("gemm_error: exact sums beyond binary64's range and its cancellation", "[gemm_error]") {
  // Products 2^1020, 1, -2^1020: binary64's left-to-right sum gives 0, the exact sum is 1.
  const std::vector<double> A{0x1p1000, 1, -0x1p1000}, B{0x1p20, 1, 0x1p20};
  std::vector<double> D{0};
  // |error| = 1, denominator 2^1021 + 1 rounded once to binary64 precision: 2^1021.
  CHECK(gemm_errors(1, 1, 3, A, B, {}, D).componentwise == 0x1p-1021);
  D[0] = 1;
  CHECK(gemm_errors(1, 1, 3, A, B, {}, D).componentwise == 0);
  // Products +-2^1100 are not binary64 numbers, yet the ratio is: 2^1000 / 2^1101.
  const std::vector<double> A2{0x1p1000, 0x1p1000}, B2{0x1p100, -0x1p100}, D2{0x1p1000};
  CHECK(gemm_errors(1, 1, 2, A2, B2, {}, D2).componentwise == 0x1p-101);
  // A C of its own: D = C + A B = 2^-60 + 2^-60 exactly, D^ = C alone misses half.
  const std::vector<double> A3{1, 0x1p-60, -1}, B3{1, 1, 1}, C3{0x1p-60}, D3{0x1p-60};
  CHECK(gemm_errors(1, 1, 3, A3, B3, C3, D3).componentwise == 0x1p-60 / (2 + 0x1p-59));
}

TEST_CASE("gemm_error: NaN and Inf count as error +inf", "[gemm_error]") {
  const std::vector<double> B{1, 2, 3, 4}, D{7, 10, 15, 22};  // A = [1 2; 3 4]: A B = D
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(gemm_errors(2, 2, 2, std::vector<double>{1, 2, 3, 4}, B, {}, D).componentwise == 0);
  // A NaN input with a finite D^: the exact entry is NaN (an old version reported 0 here).
  auto e = gemm_errors(2, 2, 2, std::vector<double>{1, 2, nan, 4}, B, {}, D);
  CHECK(e.componentwise == kInf);
  CHECK(e.normwise == kInf);
  // An infinite input with a finite D^: |error| = Inf over a denominator Inf.
  e = gemm_errors(2, 2, 2, std::vector<double>{1, 2, kInf, 4}, B, {}, D);
  CHECK(e.componentwise == kInf);
  CHECK(e.normwise == kInf);
  // Inf * 0 in the exact sum.
  CHECK(gemm_errors(1, 1, 1, std::vector<double>{kInf}, std::vector<double>{0}, {}, std::vector<double>{0})
            .componentwise == kInf);
  // Non-finite D^ in one entry, and in a row that is not checked.
  std::vector<double> Dh = D;
  Dh[1] = kInf;
  CHECK(gemm_errors(2, 2, 2, std::vector<double>{1, 2, 3, 4}, B, {}, Dh).componentwise == kInf);
  const std::size_t row1[] = {1};
  e = gemm_errors(2, 2, 2, std::vector<double>{1, 2, 3, 4}, B, {}, Dh, row1);
  CHECK(e.componentwise == 0);
  CHECK(e.sampled);
}

TEST_CASE("gemm_error: k = 65536 against a double-double evaluation", "[gemm_error]") {
  tcsim::test::Rng r(tcsim::test::seed("gemm_error k65536", 20200311));
  const std::size_t m = 8, n = 8, k = 65536;
  std::vector<double> A(m * k), B(k * n), C(m * n), D(m * n);
  for (auto& x : A) x = unit(r);
  for (auto& x : B) x = unit(r) - 0.25;  // mostly positive: errors of float accumulation show
  for (auto& x : C) x = unit(r);
  double expect_cw = 0, expect_num = 0;  // componentwise and the normwise numerator
  for (std::size_t i = 0; i < m; ++i) {
    double row = 0;
    for (std::size_t j = 0; j < n; ++j) {
      // D^: binary32 recursive summation. Exact value: double-double sum of TwoProducts
      // (relative error about k 2^-106, far below the 1e-9 tolerance).
      float f = static_cast<float>(C[i * n + j]);
      double hi = C[i * n + j], lo = 0, den = std::fabs(C[i * n + j]);
      for (std::size_t t = 0; t < k; ++t) {
        const double a = A[i * k + t], b = B[t * n + j], p = a * b;
        f += static_cast<float>(p);
        const auto [s, e] = two_sum(hi, p);
        hi = s;
        lo += e + std::fma(a, b, -p);
        den += std::fabs(p);
      }
      D[i * n + j] = f;
      const auto [dh, dl] = two_sum(D[i * n + j], -hi);
      const double err = std::fabs(dh + (dl - lo));
      expect_cw = std::max(expect_cw, err / den);
      row += err;
    }
    expect_num = std::max(expect_num, row);
  }
  double nA = 0, nB = 0, nC = 0;  // infinity norms
  for (std::size_t i = 0; i < m; ++i) {
    double s = 0, c = 0;
    for (std::size_t t = 0; t < k; ++t) s += std::fabs(A[i * k + t]);
    for (std::size_t j = 0; j < n; ++j) c += std::fabs(C[i * n + j]);
    nA = std::max(nA, s), nC = std::max(nC, c);
  }
  for (std::size_t t = 0; t < k; ++t) {
    double s = 0;
    for (std::size_t j = 0; j < n; ++j) s += std::fabs(B[t * n + j]);
    nB = std::max(nB, s);
  }
  const auto e = gemm_errors(m, n, k, A, B, C, D);
  CHECK(e.componentwise > 1e-6);  // float accumulation over 65536 terms is visibly off
  CHECK(e.componentwise == Approx(expect_cw).epsilon(1e-9));
  CHECK(e.normwise == Approx(expect_num / (nC + nA * nB)).epsilon(1e-9));
  CHECK(e.rows_checked == m);
  CHECK_FALSE(e.sampled);
}

TEST_CASE("gemm_error: sample_rows spreads rows, sampling checks only those", "[gemm_error]") {
  for (std::size_t m : {2, 3, 10, 97, 1024, 1000003})
    for (std::size_t count : {2, 3, 7, 16, 64, 1000}) {
      const auto rows = sample_rows(m, count);
      INFO("m = " << m << ", count = " << count);
      REQUIRE(rows.size() == std::min(m, count));
      CHECK(rows.front() == 0);
      CHECK(rows.back() == m - 1);
      for (std::size_t s = 1; s < rows.size(); ++s) CHECK(rows[s - 1] < rows[s]);
    }
  CHECK(sample_rows(1024, 4) == std::vector<std::size_t>{0, 341, 682, 1023});
  CHECK(sample_rows(0, 4).empty());
  // 5 x 1 x 1: the error sits in row 2 only; ||A||_inf comes from row 4 (not checked).
  const std::vector<double> A{1, 1, 1, 1, 8}, B{1}, D{1, 1, 1.5, 1, 8};
  const auto all = gemm_errors(5, 1, 1, A, B, {}, D);
  CHECK(all.componentwise == 0.5);
  CHECK(all.normwise == 0.5 / 8);
  CHECK(all.rows_checked == 5);
  CHECK_FALSE(all.sampled);
  const auto s = sample_rows(5, 3);  // {0, 2, 4}
  CHECK(s == std::vector<std::size_t>{0, 2, 4});
  auto e = gemm_errors(5, 1, 1, A, B, {}, D, s);
  CHECK(e.componentwise == 0.5);
  CHECK(e.normwise == 0.5 / 8);  // norms of A, B over the whole matrices
  CHECK(e.rows_checked == 3);
  CHECK(e.sampled);
  const std::size_t miss[] = {0, 4};
  e = gemm_errors(5, 1, 1, A, B, {}, D, miss);
  CHECK(e.componentwise == 0);  // the maxima are over the checked rows only
  CHECK(e.normwise == 0);
  const std::size_t every[] = {4, 3, 2, 1, 0};  // all rows given explicitly: not sampled
  CHECK_FALSE(gemm_errors(5, 1, 1, A, B, {}, D, every).sampled);
}

TEST_CASE("gemm_error: threads 0, 1 and 2 give the same doubles bit for bit", "[gemm_error]") {
  tcsim::test::Rng r(tcsim::test::seed("gemm_error threads", 4242));
  const std::size_t m = 67, n = 13, k = 257;
  std::vector<double> A(m * k), B(k * n), C(m * n);
  for (auto& x : A) x = unit(r) * 2 - 1;
  for (auto& x : B) {  // the exponent first (named: argument order is unspecified; GCC's order kept)
    const int e = r.range(-30, 30);
    x = std::ldexp(unit(r) - 0.5, e);
  }
  for (auto& x : C) x = unit(r);
  const std::vector<double> D = binary32_gemm(m, n, k, A, B, C);
  const auto rows = sample_rows(m, 20);
  for (std::span<const std::size_t> rs : {std::span<const std::size_t>{}, std::span<const std::size_t>(rows)}) {
    const auto one = gemm_errors(m, n, k, A, B, C, D, rs, 1);
    CHECK(one.componentwise > 0);
    for (unsigned t : {0u, 2u}) {
      const auto e = gemm_errors(m, n, k, A, B, C, D, rs, t);
      CHECK(std::bit_cast<std::uint64_t>(e.componentwise) == std::bit_cast<std::uint64_t>(one.componentwise));
      CHECK(std::bit_cast<std::uint64_t>(e.normwise) == std::bit_cast<std::uint64_t>(one.normwise));
      CHECK(e.rows_checked == one.rows_checked);
    }
  }
}

TEST_CASE("gemm_error: maxima of row parts, folded, give gemm_errors bit for bit", "[gemm_error]") {
  // What tcsim::dist does: each rank holds some rows of A, C and D^ (packed) and all of B.
  tcsim::test::Rng r(tcsim::test::seed("gemm_error parts", 2311));
  const std::size_t m = 41, n = 11, k = 97;
  std::vector<double> A(m * k), B(k * n), C(m * n);
  for (auto& x : A) {  // the exponent first (named: argument order is unspecified; GCC's order kept)
    const int e = r.range(-20, 20);
    x = std::ldexp(unit(r) * 2 - 1, e);
  }
  for (auto& x : B) x = unit(r) - 0.5;
  for (auto& x : C) x = unit(r);
  const std::vector<double> D = binary32_gemm(m, n, k, A, B, C);
  const std::vector<std::size_t> rows = sample_rows(m, 23);
  const GemmErrors whole = gemm_errors(m, n, k, A, B, C, D, rows, 1);
  for (std::size_t parts : {1u, 2u, 5u, 23u}) {
    GemmErrorMaxima folded;
    for (std::size_t p = 0; p < parts; ++p) {
      const std::size_t b = p * rows.size() / parts, e = (p + 1) * rows.size() / parts;
      std::vector<double> Ap, Cp, Dp;
      for (std::size_t s = b; s < e; ++s) {
        Ap.insert(Ap.end(), A.begin() + rows[s] * k, A.begin() + (rows[s] + 1) * k);
        Cp.insert(Cp.end(), C.begin() + rows[s] * n, C.begin() + (rows[s] + 1) * n);
        Dp.insert(Dp.end(), D.begin() + rows[s] * n, D.begin() + (rows[s] + 1) * n);
      }
      if (e == b) continue;
      const GemmErrorMaxima x = gemm_error_maxima(e - b, n, k, Ap, B, Cp, Dp, {}, 2);
      folded.componentwise = std::max(folded.componentwise, x.componentwise);
      folded.row_abs_sum = std::max(folded.row_abs_sum, x.row_abs_sum);
    }
    INFO("parts " << parts);
    CHECK(std::bit_cast<std::uint64_t>(folded.componentwise) == std::bit_cast<std::uint64_t>(whole.componentwise));
    CHECK(std::bit_cast<std::uint64_t>(gemm_normwise(folded.row_abs_sum, m, n, k, A, B, C)) ==
          std::bit_cast<std::uint64_t>(whole.normwise));
  }
  CHECK(whole.normwise > 0);
}

TEST_CASE("gemm_error: wrong B, D_hat and rows name the argument", "[gemm_error]") {
  const std::vector<double> A(6), B(6), D(4);
  CHECK_THROWS_AS(gemm_errors(2, 2, 3, A, std::vector<double>(5), {}, D), std::invalid_argument);
  CHECK_THROWS_WITH(gemm_errors(2, 2, 3, A, std::vector<double>(5), {}, D),
                    Catch::Contains("B has 5 entries, k*n = 6"));
  CHECK_THROWS_WITH(gemm_errors(2, 2, 3, A, B, {}, std::vector<double>(5)),
                    Catch::Contains("D_hat has 5 entries, m*n = 4"));
  const std::size_t bad[] = {0, 2};
  CHECK_THROWS_WITH(gemm_errors(2, 2, 3, A, B, {}, D, bad), Catch::Contains("row 2 is out of range (m = 2)"));
  CHECK_NOTHROW(gemm_errors(0, 0, 0, {}, {}, {}, {}));
}

TEST_CASE("gemm_bound: blanchard2020 Table 3.3 to first order, gamma where k u is large", "[gemm_error]") {
  using namespace tcsim::reference::bounds;
  const std::pair<const char*, TcVariant> variants[] = {
      {"fp16", TcVariant::Fp16}, {"tc16", TcVariant::TC16}, {"tc32", TcVariant::TC32}, {"fp32", TcVariant::Fp32}};
  GemmBoundQuery q;
  q.k = 1024;
  for (bool exact : {true, false}) {
    q.inputs_exact = exact;
    // Small unit roundoffs: second-order terms vanish, every row matches to first order.
    q.u_low = 0x1p-40, q.u_high = 0x1p-60;
    for (auto [name, v] : variants) {
      q.variant = name;
      INFO(name << (exact ? ", inputs exact" : ", inputs converted"));
      // Table 3.3's fp32 row takes A and B in binary32; the fp32 variant rounds them to the
      // input format first, which adds 2u_low when they are not exact in it.
      const double convert = v == TcVariant::Fp32 && !exact ? 2 * 0x1p-40 : 0;
      CHECK(gemm_bound(q).componentwise ==
            Approx(blanchard_table33(v, exact, 1024, 0x1p-40, 0x1p-60) + convert).epsilon(1e-6));
    }
    // V100's u16, u32: tc32 and fp32 are within 1e-3 of Table 3.3 at n = 1024 ...
    q.u_low = u_fp16, q.u_high = u_fp32;
    for (auto [name, v] : {variants[2], variants[3]}) {
      q.variant = name;
      INFO(name);
      const double convert = v == TcVariant::Fp32 && !exact ? 2 * u_fp16 : 0;
      CHECK(gemm_bound(q).componentwise == Approx(blanchard_table33(v, exact, 1024) + convert).epsilon(1e-3));
    }
  }
  // ... while fp16 and tc16 are gamma_1024(2^-11) = 0.5 / (1 - 0.5) = 1, twice n u16.
  q.inputs_exact = true;
  for (const char* name : {"fp16", "tc16"}) {
    q.variant = name;
    CHECK(gemm_bound(q).componentwise == 1.0);
  }
  q.k = 2048;  // k u16 = 1: the theorem's assumption fails
  CHECK(gemm_bound(q).componentwise == kInf);
  q.variant = "tc32";
  CHECK(std::isfinite(gemm_bound(q).componentwise));
  q.variant = "tc16";
  q.k = 1000;
  const double tc16 = gemm_bound(q).componentwise;
  q.variant = "tc32";
  CHECK(gemm_bound(q).componentwise < tc16 / 100);
  // Thm 3.1 with the query's b (no effect here: u = u_fma = u_bar makes u~_FMA = 0, eq. (3.3)).
  q.k = 1024, q.b = 8;
  BlockFmaParams p;
  p.n = 1024, p.b = 8, p.u_low = u_fp16, p.u_fma = p.u_bar = p.u = u_fp32;
  CHECK(gemm_bound(q).componentwise == blanchard_thm31(p));
  CHECK(gemm_bound(q).source == "blanchard2020 Thm 3.1 eq. (3.5), block FMA (tc32)");
  q.variant = "fp16";
  CHECK(gemm_bound(q).source == "blanchard2020 Thm 3.1 eq. (3.5), standard summation (fp16)");
  q.variant = "";
  CHECK_THROWS_WITH(gemm_bound(q), Catch::Contains("variant") && Catch::Contains("fp16, tc16, tc32, fp32"));
}

TEST_CASE("gemm_bound: mary2021 multiword and FABsum", "[gemm_error]") {
  using namespace tcsim::reference::bounds;
  GemmBoundQuery q;
  q.variant = "tc32";
  q.k = 4096;
  q.words = 2;
  auto b = gemm_bound(q);
  CHECK(b.componentwise == mary_multiword(4096, 2, u_fp16, u_fp32, true));
  // Skipping A_2 B_2: 2u^2 + u^4 + (n + 4) u32 + u^2 (1 + u)^2, u = u16.
  const double u = u_fp16;
  CHECK(b.componentwise == Approx(2 * u * u + u * u * u * u + 4100 * u_fp32 + u * u * (1 + u) * (1 + u)));
  CHECK(b.source == "mary2021 slide 'General error analysis' (multiword, first order), p = 2");
  q.all_word_products = true;
  CHECK(gemm_bound(q).componentwise == mary_multiword(4096, 2, u_fp16, u_fp32, false));
  CHECK(gemm_bound(q).componentwise < b.componentwise);
  q.words = 1;
  q.all_word_products = false;
  q.fabsum_block = 64;
  q.u_combine = u_fp64;
  q.inputs_exact = true;
  b = gemm_bound(q);
  CHECK(b.componentwise == mary_fabsum(4096, 64, u_fp32, u_fp64));  // 64 u32 + 64 u64
  CHECK(b.source == "mary2021 slide 'A proposed cure' (FABsum, first order), b = 64");
  // A and B rounded to the input format first: + 2u_low + u_low^2 (blanchard2020 Thm 3.2).
  q.inputs_exact = false;
  b = gemm_bound(q);
  CHECK(b.componentwise == mary_fabsum(4096, 64, u_fp32, u_fp64) + 2 * u_fp16 + u_fp16 * u_fp16);
  CHECK(b.source == "mary2021 slide 'A proposed cure' (FABsum, first order), b = 64, + 2u_low + u_low^2 for rounding "
                    "A and B to the input format (blanchard2020 Thm 3.2)");
}
