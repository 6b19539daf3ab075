// LU test-matrix tools: matrix_tunable (fasihigham2021, lopez2022 section 6.1) checked against
// kappa_inf from an explicit binary64 inverse and the growth of LU without pivoting; and the
// higham2019 two-sided scaling (lopez2022 section 6.2): ranges, power-of-two exactness, the
// solve round trip, zero rows and columns, and the error messages.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "tcsim/models/lu_matrices.hpp"

using namespace tcsim::models;

namespace {

double norm_inf(const std::vector<double>& A, std::size_t n) {
  double best = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double row = 0;
    for (std::size_t c = 0; c < n; ++c) row += std::fabs(A[i * n + c]);
    best = std::max(best, row);
  }
  return best;
}

// Gauss-Jordan with partial pivoting on [A | I], binary64.
std::vector<double> inverse(std::vector<double> A, std::size_t n) {
  std::vector<double> X(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i) X[i * n + i] = 1;
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t p = k;
    for (std::size_t i = k + 1; i < n; ++i)
      if (std::fabs(A[i * n + k]) > std::fabs(A[p * n + k])) p = i;
    for (std::size_t c = 0; c < n; ++c) {
      std::swap(A[k * n + c], A[p * n + c]);
      std::swap(X[k * n + c], X[p * n + c]);
    }
    const double piv = A[k * n + k];
    for (std::size_t c = 0; c < n; ++c) {
      A[k * n + c] /= piv;
      X[k * n + c] /= piv;
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (i == k) continue;
      const double f = A[i * n + k];
      for (std::size_t c = 0; c < n; ++c) {
        A[i * n + c] -= f * A[k * n + c];
        X[i * n + c] -= f * X[k * n + c];
      }
    }
  }
  return X;
}

double kappa_inf(const std::vector<double>& A, std::size_t n) { return norm_inf(A, n) * norm_inf(inverse(A, n), n); }

struct NoPivot {
  std::vector<double> LU;  // unit L below the diagonal, U on and above
  double max_l = 0;        // max |l_ij|
  double growth = 0;       // max over every step's active matrix of |a_ij|, over max |a_ij|
};

NoPivot lu_no_pivot(const std::vector<double>& A, std::size_t n) {
  NoPivot r{A};
  double a_max = 0;
  for (double x : A) a_max = std::max(a_max, std::fabs(x));
  double seen = a_max;
  std::vector<double>& M = r.LU;
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t i = k + 1; i < n; ++i) {
      const double l = M[i * n + k] / M[k * n + k];
      M[i * n + k] = l;
      r.max_l = std::max(r.max_l, std::fabs(l));
      for (std::size_t c = k + 1; c < n; ++c) {
        M[i * n + c] -= l * M[k * n + c];
        seen = std::max(seen, std::fabs(M[i * n + c]));
      }
    }
  r.growth = seen / a_max;
  return r;
}

std::vector<double> solve_no_pivot(const std::vector<double>& A, std::size_t n, std::vector<double> b) {
  const std::vector<double> M = lu_no_pivot(A, n).LU;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < i; ++k) b[i] -= M[i * n + k] * b[k];
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t k = i + 1; k < n; ++k) b[i] -= M[i * n + k] * b[k];
    b[i] /= M[i * n + i];
  }
  return b;
}

bool power_of_two(double x) {
  int e = 0;
  return std::frexp(x, &e) == 0.5;
}

// max |a_ij| over row i (by_row) or column i.
double line_max(const std::vector<double>& A, std::size_t n, std::size_t i, bool by_row) {
  double m = 0;
  for (std::size_t k = 0; k < n; ++k) m = std::max(m, std::fabs(by_row ? A[i * n + k] : A[k * n + i]));
  return m;
}

}  // namespace

TEST_CASE("lu matrices: tunable meets kappa_inf and its LU needs no pivoting", "[lu][matrices]") {
  for (std::size_t n : {std::size_t{3}, std::size_t{10}, std::size_t{64}, std::size_t{100}})
    for (double cond : {10.0, 1e3, 1e6}) {
      const std::vector<double> A = matrix_tunable(n, cond, 7);
      const double kappa = kappa_inf(A, n);
      INFO("n = " << n << ", cond = " << cond << ", kappa_inf = " << kappa);
      // The inverse is computed in binary64: its error is of order kappa 2^-53.
      CHECK(std::fabs(kappa / cond - 1) < 1e-7);
      const NoPivot f = lu_no_pivot(A, n);
      CHECK(f.max_l <= 1 + 1e-12);     // |l_ij| <= 1: partial pivoting would keep the order
      CHECK(f.growth <= 1 + 1e-12);    // no Schur complement entry above max |a_ij|
      // The seed only sets signs: the magnitudes are fasihigham2021's matrix.
      const std::vector<double> F = matrix_fasi_higham(n, cond);
      bool same_magnitudes = true;
      for (std::size_t k = 0; k < n * n; ++k) same_magnitudes = same_magnitudes && std::fabs(A[k]) == std::fabs(F[k]);
      CHECK(same_magnitudes);
    }
  CHECK(std::fabs(matrix_tunable(1, 1, 3).at(0)) == 1);
  CHECK(std::fabs(kappa_inf(matrix_tunable(5, 1, 3), 5) - 1) < 1e-15);  // cond 1: a signed identity
}

TEST_CASE("lu matrices: tunable is the same for a seed and pinned to its bits", "[lu][matrices]") {
  const std::vector<double> A = matrix_tunable(12, 1e3, 21);
  CHECK(matrix_tunable(12, 1e3, 21) == A);
  CHECK(matrix_tunable(12, 1e3, 22) != A);
  // fasihigham2021 structure: constant below the diagonal down each column, constant right of
  // it along each row (up to the seeded signs).
  const std::vector<double> F = matrix_fasi_higham(12, 1e3);
  CHECK(F[5 * 12 + 2] == F[11 * 12 + 2]);
  CHECK(F[3 * 12 + 4] == F[3 * 12 + 11]);
  // Pinned bits: only + - * / and comparisons, no libm, so the same on every machine.
  CHECK(std::bit_cast<std::uint64_t>(A[1 * 12 + 0]) == 0xbfc8fe9fa75046c6ULL);
  CHECK(std::bit_cast<std::uint64_t>(A[7 * 12 + 9]) == 0x3fc2573a016925b4ULL);
}

TEST_CASE("lu matrices: tunable errors name the argument", "[lu][matrices]") {
  CHECK_THROWS_WITH(matrix_tunable(0, 10, 1), "n: the matrix size must be at least 1");
  CHECK_THROWS_WITH(matrix_tunable(4, 0.5, 1), "cond: the condition number must be a finite number >= 1, got 0.500000");
  CHECK_THROWS_WITH(matrix_tunable(4, std::numeric_limits<double>::infinity(), 1),
                    "cond: the condition number must be a finite number >= 1, got inf");
  CHECK_THROWS_AS(matrix_tunable(4, std::numeric_limits<double>::quiet_NaN(), 1), std::invalid_argument);
  CHECK_THROWS_WITH(matrix_tunable(1, 10, 1), "cond: a 1 x 1 matrix has condition number 1, got 10.000000");
}

namespace {

// hpl-ai's diagonally dominant matrix with rows and columns times 2^k, k in [-40, 40]: entries
// from about 2^-85 to 2^85, far outside fp16's [2^-24, 65504].
std::vector<double> badly_scaled(std::size_t n) {
  std::vector<double> A = matrix_hpl_ai(n, 5);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < n; ++c)
      A[i * n + c] = std::ldexp(A[i * n + c], static_cast<int>((i * 37) % 81 + (c * 53) % 81) - 80);
  return A;
}

}  // namespace

TEST_CASE("lu matrices: scaling brings a badly scaled matrix into fp16 with power-of-two factors", "[lu][matrices]") {
  const std::size_t n = 24;
  const std::vector<double> A0 = badly_scaled(n);
  double a_max = 0, a_min = 1;
  for (double x : A0) {
    a_max = std::max(a_max, std::fabs(x));
    if (x != 0) a_min = std::min(a_min, std::fabs(x));
  }
  REQUIRE(a_max > 65504);
  REQUIRE(a_min < 0x1p-24);

  for (const char* target : {"fp16", "fp32"}) {
    INFO("target " << target);
    const double limit = 0.1 * (std::string(target) == "fp16" ? 65504 : 0x1.fffffep127);
    std::vector<double> A = A0;
    const MatrixScaling s = scale_matrix(n, A, target);
    CHECK(s.sweeps == 1);
    CHECK(power_of_two(s.mu));
    bool exact = true, factors = true, rows = true, cols = true;
    for (std::size_t i = 0; i < n; ++i) {
      factors = factors && power_of_two(s.row[i]) && power_of_two(s.col[i]);
      for (std::size_t c = 0; c < n; ++c) {  // each factor a power of two: no rounding
        const int e = std::ilogb(s.mu) + std::ilogb(s.row[i]) + std::ilogb(s.col[c]);
        exact = exact && A[i * n + c] == std::ldexp(A0[i * n + c], e);
      }
      const double r = line_max(A, n, i, true), k = line_max(A, n, i, false);
      rows = rows && r >= s.mu / 2 && r < s.mu;
      cols = cols && k >= s.mu / 2 && k < s.mu;
    }
    CHECK(exact);
    CHECK(factors);
    CHECK(rows);  // every row and column max in [mu / 2, mu)
    CHECK(cols);
    double big = 0;
    for (double x : A) big = std::max(big, std::fabs(x));
    CHECK(big <= limit);
    CHECK(big > limit / 2);
    if (std::string(target) == "fp16") {  // this matrix: nothing left below fp16's normal range
      double low = s.mu;
      for (double x : A)
        if (x != 0) low = std::min(low, std::fabs(x));
      CHECK(low >= 0x1p-14);
    }
  }
}

TEST_CASE("lu matrices: scale_rhs and unscale_solution give the direct solve bit for bit", "[lu][matrices]") {
  // Without pivoting every operation of the scaled solve is the unscaled one times a power of
  // two, so x = C y holds exactly (hpl-ai is diagonally dominant: no pivoting needed).
  const std::size_t n = 24;
  const std::vector<double> A0 = badly_scaled(n);
  std::vector<double> x_true(n), b(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) x_true[i] = std::ldexp(1 + static_cast<double>(i) / 7, static_cast<int>(i % 9) - 4);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < n; ++c) b[i] += A0[i * n + c] * x_true[c];
  const std::vector<double> x = solve_no_pivot(A0, n, b);
  for (const char* target : {"fp16", "fp32"}) {
    std::vector<double> A = A0;
    const MatrixScaling s = scale_matrix(n, A, target);
    const std::vector<double> y = solve_no_pivot(A, n, scale_rhs(s, b));
    CHECK(unscale_solution(s, y) == x);
  }
  // The columns scaled by 2^+-40 make the forward error of x componentwise meaningless; the
  // componentwise backward error is scaling-invariant.
  double berr = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double r = b[i], d = std::fabs(b[i]);
    for (std::size_t c = 0; c < n; ++c) {
      r -= A0[i * n + c] * x[c];
      d += std::fabs(A0[i * n + c] * x[c]);
    }
    berr = std::max(berr, std::fabs(r) / d);
  }
  CHECK(berr < 1e-14);
}

TEST_CASE("lu matrices: scaling leaves zero rows and columns with factor 1", "[lu][matrices]") {
  const std::size_t n = 4;
  std::vector<double> A = {3e6, 0, 0, -1e-7,  //
                           0,   0, 0, 0,      // zero row
                           5,   0, 0, 2e-3,   //
                           -7,  0, 0, 8};     // columns 1 and 2 zero
  const MatrixScaling s = scale_matrix(n, A, "fp16");
  CHECK(s.row[1] == 1);
  CHECK(s.col[1] == 1);
  CHECK(s.col[2] == 1);
  for (double x : A) CHECK(std::isfinite(x));
  for (std::size_t i : {0, 2, 3}) {
    CHECK(line_max(A, n, i, true) >= s.mu / 2);
    CHECK(line_max(A, n, i, true) < s.mu);
  }
  for (std::size_t c : {0, 3}) {
    CHECK(line_max(A, n, c, false) >= s.mu / 2);
    CHECK(line_max(A, n, c, false) < s.mu);
  }
  std::vector<double> Z(9, 0.0);
  const MatrixScaling z = scale_matrix(3, Z, "fp16");
  CHECK(z.mu == 1);
  CHECK(z.row == std::vector<double>(3, 1.0));
  CHECK(z.col == std::vector<double>(3, 1.0));
  CHECK(Z == std::vector<double>(9, 0.0));
}

TEST_CASE("lu matrices: scaling errors name the entry or the argument", "[lu][matrices]") {
  std::vector<double> A = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const std::vector<double> A0 = A;
  A[5] = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH(scale_matrix(3, A, "fp16"), "A[1][2] = inf: scale_matrix takes finite entries");
  A[5] = 6;
  A[6] = -std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH(scale_matrix(3, A, "fp16"), "A[2][0] = -inf: scale_matrix takes finite entries");
  A[6] = 7;
  CHECK(A == A0);  // untouched by a rejected call
  std::vector<double> short_A(8, 1.0);
  CHECK_THROWS_WITH(scale_matrix(3, short_A, "fp16"), "A: expected n * n = 9 values, got 8");
  CHECK_THROWS_WITH(scale_matrix(3, A, "bf16"), "target: 'bf16' is not allowed; allowed: fp16, fp32");
  CHECK_THROWS_WITH(scale_matrix(3, A, "fp16", 0), "theta: must be in (0, 1] (higham2019 suggest 0.1), got 0");
  CHECK_THROWS_WITH(scale_matrix(3, A, "fp16", 1.5), "theta: must be in (0, 1] (higham2019 suggest 0.1), got 1.5");
  CHECK(A == A0);
  const MatrixScaling s = scale_matrix(3, A, "fp16");
  CHECK_THROWS_WITH(scale_rhs(s, std::vector<double>(2, 1.0)), "b: expected n = 3 values, got 2");
  CHECK_THROWS_WITH(unscale_solution(s, std::vector<double>(4, 1.0)), "y: expected n = 3 values, got 4");
}
