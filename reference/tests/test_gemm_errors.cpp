// gemm_errors against hand-computed errors (exact by construction), cancellation that binary64
// evaluation gets wrong, sampling, thread-count determinism; gemm_bound's values and sources.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "tcsim/reference/bounds.hpp"
#include "tcsim/reference/gemm_error.hpp"
#include "test_support.hpp"

using namespace tcsim::reference;

TEST_CASE("gemm_errors: the exact product has error 0, one ulp off gives ulp / (|C| + |A||B|)", "[gemm_errors]") {
  // A = [1 2; 3 4], B = [5 6; 7 8], C = [1 -1; 0.5 0]: D = [20 21; 43.5 50].
  const std::vector<double> A{1, 2, 3, 4}, B{5, 6, 7, 8}, C{1, -1, 0.5, 0};
  std::vector<double> D{20, 21, 43.5, 50};
  auto e = gemm_errors(2, 2, 2, A, B, C, D);
  CHECK(e.componentwise == 0);
  CHECK(e.normwise == 0);
  CHECK(e.rows_checked == 2);
  CHECK_FALSE(e.sampled);
  D[3] = std::nextafter(50.0, 100.0);  // + 2^-47 * ... one ulp of 50: 2^(5-52)
  e = gemm_errors(2, 2, 2, A, B, C, D);
  const double ulp = std::ldexp(1.0, 5 - 52);
  CHECK(e.componentwise == ulp / 50);  // (|C| + |A||B|)_22 = 0 + 3*6 + 4*8 = 50
  // ||D^ - D||_inf = ulp; ||C||_inf = 2, ||A||_inf = 7, ||B||_inf = 15.
  CHECK(e.normwise == ulp / (2 + 7 * 15));
}

TEST_CASE("gemm_errors: exact where binary64 evaluation cancels", "[gemm_errors]") {
  // Row [1, 2^-60, -1] times ones: the exact sum is 2^-60, binary64's left-to-right sum 0.
  const std::vector<double> A{1, 0x1p-60, -1}, B{1, 1, 1};
  std::vector<double> D{0.0};
  auto e = gemm_errors(1, 1, 3, A, B, {}, D);
  CHECK(e.componentwise == 0x1p-60 / (2 + 0x1p-60));
  D[0] = 0x1p-60;
  CHECK(gemm_errors(1, 1, 3, A, B, {}, D).componentwise == 0);
  D[0] = std::numeric_limits<double>::quiet_NaN();
  CHECK(std::isinf(gemm_errors(1, 1, 3, A, B, {}, D).componentwise));
}

TEST_CASE("gemm_errors: sampled rows, the same maxima for any thread count", "[gemm_errors]") {
  tcsim::test::Rng r(tcsim::test::seed("gemm_errors threads", 8101));
  const std::size_t m = 40, n = 9, k = 300;
  std::vector<double> A(m * k), B(k * n), D(m * n);
  for (auto& x : A) x = static_cast<double>(r.next() >> 11) * 0x1p-53;
  for (auto& x : B) x = static_cast<double>(r.next() >> 11) * 0x1p-53 - 0.5;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      float s = 0;  // a binary32 product: errors of about k u32
      for (std::size_t t = 0; t < k; ++t) s += static_cast<float>(A[i * k + t] * B[t * n + j]);
      D[i * n + j] = s;
    }
  const auto one = gemm_errors(m, n, k, A, B, {}, D, {}, 1), two = gemm_errors(m, n, k, A, B, {}, D, {}, 2);
  CHECK(one.componentwise == two.componentwise);
  CHECK(one.normwise == two.normwise);
  CHECK(one.componentwise > 0);
  CHECK(one.componentwise < 300 * 0x1p-24);
  const auto rows = sample_rows(m, 5);
  CHECK(rows == std::vector<std::size_t>{0, 9, 19, 29, 39});
  const auto s = gemm_errors(m, n, k, A, B, {}, D, rows);
  CHECK(s.sampled);
  CHECK(s.rows_checked == 5);
  CHECK(s.componentwise <= one.componentwise);
  CHECK(sample_rows(3, 10) == std::vector<std::size_t>{0, 1, 2});
}

TEST_CASE("gemm_errors: wrong sizes name the argument", "[gemm_errors]") {
  const std::vector<double> A(6), B(6), D(4);
  CHECK_THROWS_WITH(gemm_errors(2, 2, 4, A, B, {}, D), Catch::Contains("A has 6 entries, m*k = 8"));
  CHECK_THROWS_WITH(gemm_errors(2, 2, 3, A, B, std::vector<double>(3), D), Catch::Contains("C has 3 entries, m*n = 4"));
  const std::size_t bad[] = {5};
  CHECK_THROWS_WITH(gemm_errors(2, 2, 3, A, B, {}, D, bad), Catch::Contains("row 5 is out of range (m = 2)"));
}

TEST_CASE("gemm_bound: blanchard2020 Thm 3.1/3.2 per variant, with sources", "[gemm_errors]") {
  using namespace tcsim::reference::bounds;
  GemmBoundQuery q;
  q.k = 1024;
  q.b = 4;
  q.variant = "tc32";
  q.inputs_exact = true;
  BlockFmaParams p;
  p.n = 1024, p.b = 4, p.u_low = 0x1p-11, p.u_fma = p.u_bar = p.u = 0x1p-24;
  auto b = gemm_bound(q);
  CHECK(b.componentwise == blanchard_thm31(p));
  CHECK(b.source == "blanchard2020 Thm 3.1 eq. (3.5), block FMA (tc32)");
  q.inputs_exact = false;
  b = gemm_bound(q);
  CHECK(b.componentwise == blanchard_thm32(p));
  CHECK(b.source == "blanchard2020 Thm 3.2 eq. (3.6), block FMA (tc32)");
  // First order against Table 3.3 (A, B converted from binary32).
  for (auto [name, v] : {std::pair{"fp16", TcVariant::Fp16}, {"tc16", TcVariant::TC16}, {"tc32", TcVariant::TC32}, {"fp32", TcVariant::Fp32}}) {
    q.variant = name;
    q.k = 256;
    // Table 3.3's fp32 takes A and B in binary32; the fp32 variant rounds them to the input
    // format, so the table's row is the bound with a binary32 input format.
    q.u_low = v == TcVariant::Fp32 ? 0x1p-24 : 0x1p-11;
    INFO(name);
    CHECK(gemm_bound(q).componentwise == Approx(blanchard_table33(v, false, 256)).epsilon(0.15));
  }
  q.u_low = 0x1p-11;
  q.variant = "fp32";  // binary16 inputs: 2 u16 + n u32
  CHECK(gemm_bound(q).componentwise == Approx(2 * 0x1p-11 + 256 * 0x1p-24).epsilon(0.01));
  q.variant = "tc16";
  const double tc16 = gemm_bound(q).componentwise;
  q.variant = "tc32";
  CHECK(gemm_bound(q).componentwise < tc16);
  q.variant = "tc64";
  CHECK_THROWS_WITH(gemm_bound(q), Catch::Contains("variant: 'tc64' has no bound; allowed: fp16, tc16, tc32, fp32, unit"));
}
