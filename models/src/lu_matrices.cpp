// Test matrices of the LU experiments (lu.hpp) and their scaling: seeded, and the same on every
// machine: the random numbers come from sim's counter-based generator, and the only functions
// used beyond + - * / and sqrt (all correctly rounded by IEEE 754) and the exact fabs, frexp,
// ldexp and ilogb are the log and exp below, evaluated by a fixed sequence of those operations
// instead of the system's libm.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "haar_orthogonal.hpp"
#include "tcsim/models/lu_matrices.hpp"
#include "tcsim/sim/adder.hpp"

namespace tcsim::models {

namespace {

constexpr double kLn2 = 0.6931471805599453094;

// log(x) for finite x > 0: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(z) with
// z = (m - 1)/(m + 1), |z| < 0.172: the series to z^41 is below 1e-32.
double portable_log(double x) {
  int e = 0;
  double m = std::frexp(x, &e);  // exact: m in [0.5, 1)
  if (m < 0.70710678118654752440) {
    m *= 2;
    --e;
  }
  const double z = (m - 1) / (m + 1), z2 = z * z;
  double term = z, sum = 0;
  for (int k = 1; k <= 41; k += 2) {
    sum += term / k;
    term *= z2;
  }
  return 2 * sum + e * kLn2;
}

// exp(x) for |x| < 700: x = k ln2 + t with |t| <= ln2/2, exp t by its series to t^25.
double portable_exp(double x) {
  const double k = std::nearbyint(x / kLn2);
  const double t = x - k * kLn2;
  double term = 1, sum = 1;
  for (int i = 1; i <= 25; ++i) {
    term *= t / i;
    sum += term;
  }
  return std::ldexp(sum, static_cast<int>(k));
}

struct Stream {
  std::uint64_t seed, index = 0;
  double uniform() { return static_cast<double>(counter_random(seed, index++) >> 11) * 0x1p-53; }  // [0, 1)
  // Marsaglia's polar method: one standard normal per call (the second is dropped: simple,
  // and the stream stays a fixed function of the index).
  double normal() {
    for (;;) {
      const double u = 2 * uniform() - 1, v = 2 * uniform() - 1, s = u * u + v * v;
      if (s > 0 && s < 1) return u * std::sqrt(-2 * portable_log(s) / s);
    }
  }
};

void check_n(std::size_t n) {
  if (n == 0) throw std::invalid_argument("n: the matrix size must be at least 1");
}

// A Haar-random orthogonal matrix: Q of the Householder QR of a Gaussian matrix, each column
// times the sign of R's diagonal entry (Mezzadri's correction), row-major. G is drawn row by
// row and held by columns (the reflectors run down columns); the QR and Q are blocked and
// threaded with the bits of the serial loops (haar_orthogonal.cpp).
std::vector<double> haar_orthogonal(std::size_t n, Stream& rng) {
  std::vector<double> G(n * n);  // G[c * n + i] = entry (i, c)
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < n; ++c) G[c * n + i] = rng.normal();
  return detail::householder_q(n, std::move(G));
}

void check_cond(double cond) {
  if (!(cond >= 1) || !std::isfinite(cond))
    throw std::invalid_argument("cond: the condition number must be a finite number >= 1, got " + std::to_string(cond));
}

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// fasihigham2021's A(n, alpha, beta) = L U, L = I - alpha (strictly lower ones), U = I - beta
// (strictly upper ones). Entry (i, c), from 0: -alpha + c ab below the diagonal (c products
// (-alpha)(-beta), then -alpha times U's 1), 1 + i ab on it, -beta + i ab above it.
double fh_entry(std::size_t i, std::size_t c, double alpha, double beta, double ab) {
  if (c < i) return -alpha + static_cast<double>(c) * ab;
  if (c == i) return 1 + static_cast<double>(i) * ab;
  return -beta + static_cast<double>(i) * ab;
}

// alpha = rho beta with fasihigham2021's default rho = 1/2, capped at 1 (their condition
// alpha <= 1, which keeps |l_ij| <= 1): only tiny n need beta > 2 to reach a cond.
double fh_alpha(double beta) { return std::min(beta / 2, 1.0); }

// kappa_inf(L U) in O(n), from the structure rather than fasihigham2021's closed forms.
// ||A||_inf: row i has 1 + i ab, the i entries left of the diagonal, and n - 1 - i copies of
// -beta + i ab. ||A^-1||_inf: (L^-1)_ij = alpha (1 + alpha)^(i-j-1) and (U^-1)_ij =
// beta (1 + beta)^(j-i-1) are >= 0, so A^-1 = U^-1 L^-1 >= 0 and its norm is max_i (A^-1 e)_i,
// with L^-1 e = ((1 + alpha)^i)_i and U^-1 applied by back substitution.
double fh_kappa(std::size_t n, double beta) {
  const double alpha = fh_alpha(beta), ab = alpha * beta;
  double norm = 0, left = 0;  // left: sum of |a_ij| over j < i
  for (std::size_t i = 0; i < n; ++i) {
    const double row = std::fabs(fh_entry(i, i, alpha, beta, ab)) + left +
                       static_cast<double>(n - 1 - i) * std::fabs(-beta + static_cast<double>(i) * ab);
    norm = std::max(norm, row);
    left += std::fabs(fh_entry(i + 1, i, alpha, beta, ab));
  }
  std::vector<double> y(n, 1.0);
  for (std::size_t i = 1; i < n; ++i) y[i] = y[i - 1] * (1 + alpha);
  double inv = 0, tail = 0;  // tail: sum of z_j over j > i
  for (std::size_t i = n; i-- > 0;) {
    const double z = y[i] + beta * tail;
    tail += z;
    inv = std::max(inv, z);
  }
  return norm * inv;
}

// beta with fh_kappa(n, beta) = cond, by bisection to adjacent doubles (fasihigham2021 use
// MATLAB's fzero): kappa is continuous, 1 at beta = 0 and unbounded as beta grows (n >= 2).
double fh_beta(std::size_t n, double cond) {
  if (n == 1 && cond != 1)
    throw std::invalid_argument("cond: a 1 x 1 matrix has condition number 1, got " + std::to_string(cond));
  if (cond == 1) return 0;
  auto above = [&](double beta) { return !(fh_kappa(n, beta) <= cond); };  // NaN or inf: above
  double lo = 0, hi = 1;
  while (!above(hi) && hi < 0x1p600) hi *= 2;
  for (;;) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    (above(mid) ? hi : lo) = mid;
  }
  const double k_lo = fh_kappa(n, lo), k_hi = fh_kappa(n, hi);
  const double beta = cond - k_lo <= k_hi - cond ? lo : hi, k = beta == lo ? k_lo : k_hi;
  if (!(std::fabs(k - cond) <= 1e-9 * cond))
    throw std::invalid_argument("cond: " + std::to_string(cond) + " is out of reach in binary64 for n = " +
                                std::to_string(n) + " (fasihigham2021 matrix: kappa_inf = " + number(k) + ")");
  return beta;
}

// 2^-e for v = f 2^e, f in [1/2, 1), as an exponent: v 2^-e lies in [1/2, 1). Capped at 1023
// so that the factor stays a binary64 number.
int inverse_exponent(double v) {
  int e = 0;
  std::frexp(v, &e);
  return std::min(-e, 1023);
}

}  // namespace

std::vector<double> matrix_q1dq2(std::size_t n, double cond, std::uint64_t seed) {
  check_n(n);
  check_cond(cond);
  Stream rng{seed};
  std::vector<double> Q1 = haar_orthogonal(n, rng);
  const std::vector<double> Q2 = haar_orthogonal(n, rng);
  // d_ii = cond^(-(i-1)/(n-1)) (blanchard2020 section 4.2 with cond = 10^c).
  std::vector<double> d(n, 1.0);
  const double log_cond = portable_log(cond);
  for (std::size_t i = 1; i < n; ++i) d[i] = portable_exp(-log_cond * static_cast<double>(i) / static_cast<double>(n - 1));
  return detail::scaled_product(n, std::move(Q1), d, Q2);  // A = Q1 D Q2, each sum in p order
}

std::vector<double> matrix_hpl_ai(std::size_t n, std::uint64_t seed) {
  check_n(n);
  Stream rng{seed};
  std::vector<double> A(n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < n; ++c) A[i * n + c] = i == c ? static_cast<double>(n) : rng.uniform();
  return A;
}

std::vector<double> matrix_uniform(std::size_t n, double lo, double hi, std::uint64_t seed) {
  check_n(n);
  if (!(lo < hi)) throw std::invalid_argument("uniform matrix: lo must be below hi");
  Stream rng{seed};
  std::vector<double> A(n * n);
  for (double& x : A) x = lo + (hi - lo) * rng.uniform();
  return A;
}

std::vector<double> matrix_normal(std::size_t n, std::uint64_t seed) {
  check_n(n);
  Stream rng{seed};
  std::vector<double> A(n * n);
  for (double& x : A) x = rng.normal();
  return A;
}

std::vector<double> matrix_fasi_higham(std::size_t n, double cond) {
  check_n(n);
  check_cond(cond);
  const double beta = fh_beta(n, cond), alpha = fh_alpha(beta), ab = alpha * beta;
  std::vector<double> A(n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < n; ++c) A[i * n + c] = fh_entry(i, c, alpha, beta, ab);
  return A;
}

std::vector<double> matrix_tunable(std::size_t n, double cond, std::uint64_t seed) {
  std::vector<double> A = matrix_fasi_higham(n, cond);
  Stream rng{seed};
  std::vector<double> sign(2 * n);  // rows, then columns
  for (double& d : sign) d = rng.uniform() < 0.5 ? -1.0 : 1.0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < n; ++c) A[i * n + c] *= sign[i] * sign[n + c];
  return A;
}

MatrixScaling scale_matrix(std::size_t n, std::vector<double>& A, const std::string& target, double theta) {
  check_n(n);
  if (A.size() != n * n)
    throw std::invalid_argument("A: expected n * n = " + std::to_string(n * n) + " values, got " +
                                std::to_string(A.size()));
  double x_max = 0;
  if (target == "fp16") x_max = 65504;
  else if (target == "fp32") x_max = 0x1.fffffep127;
  else throw std::invalid_argument("target: '" + target + "' is not allowed; allowed: fp16, fp32");
  if (!(theta > 0 && theta <= 1))
    throw std::invalid_argument("theta: must be in (0, 1] (higham2019 suggest 0.1), got " + number(theta));
  for (std::size_t k = 0; k < n * n; ++k)  // before A changes
    if (!std::isfinite(A[k]))
      throw std::invalid_argument("A[" + std::to_string(k / n) + "][" + std::to_string(k % n) + "] = " + number(A[k]) +
                                  ": scale_matrix takes finite entries");

  // Factors are kept as exponents and applied once per entry (ldexp), so that an entry is only
  // rounded if its final value leaves binary64's normal range.
  std::vector<int> er(n, 0), ec(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    double m = 0;
    for (std::size_t c = 0; c < n; ++c) m = std::max(m, std::fabs(A[i * n + c]));
    if (m > 0) er[i] = inverse_exponent(m);  // zero row: factor 1
  }
  std::vector<double> cmax(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < n; ++c) cmax[c] = std::max(cmax[c], std::ldexp(std::fabs(A[i * n + c]), er[i]));
  for (std::size_t c = 0; c < n; ++c)
    if (cmax[c] > 0) ec[c] = inverse_exponent(cmax[c]);
  // Every nonzero row max of R A C is now in [1/2, 1): below 1 as every column max is, and at
  // least 1/2 because the row's largest entry after row scaling (>= 1/2) is multiplied by its
  // column factor, which is >= 1 as that column's max was < 1.
  double big = 0;
  for (std::size_t c = 0; c < n; ++c) big = std::max(big, std::ldexp(cmax[c], ec[c]));
  int emu = 0;
  if (big > 0) {  // largest k with 2^k big <= theta x_max: exact comparisons of the significands
    const double limit = theta * x_max;
    int e_limit = 0, e_big = 0;
    const double f_limit = std::frexp(limit, &e_limit), f_big = std::frexp(big, &e_big);
    emu = e_limit - e_big - (f_big > f_limit ? 1 : 0);
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < n; ++c) A[i * n + c] = std::ldexp(A[i * n + c], er[i] + ec[c] + emu);

  MatrixScaling s;
  s.row.resize(n);
  s.col.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    s.row[i] = std::ldexp(1.0, er[i]);
    s.col[i] = std::ldexp(1.0, ec[i]);
  }
  s.mu = std::ldexp(1.0, emu);
  s.sweeps = 1;  // a second row-then-column pass would find every factor 1
  return s;
}

std::vector<double> scale_rhs(const MatrixScaling& s, std::span<const double> b) {
  if (b.size() != s.row.size())
    throw std::invalid_argument("b: expected n = " + std::to_string(s.row.size()) + " values, got " +
                                std::to_string(b.size()));
  std::vector<double> out(b.size());
  const int emu = std::ilogb(s.mu);
  for (std::size_t i = 0; i < b.size(); ++i) out[i] = std::ldexp(b[i], emu + std::ilogb(s.row[i]));
  return out;
}

std::vector<double> unscale_solution(const MatrixScaling& s, std::span<const double> y) {
  if (y.size() != s.col.size())
    throw std::invalid_argument("y: expected n = " + std::to_string(s.col.size()) + " values, got " +
                                std::to_string(y.size()));
  std::vector<double> x(y.size());
  for (std::size_t j = 0; j < y.size(); ++j) x[j] = s.col[j] * y[j];
  return x;
}

}  // namespace tcsim::models
