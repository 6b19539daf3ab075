// Test matrices of the LU experiments (lu.hpp): seeded, and the same on every machine: the
// random numbers come from sim's counter-based generator, and the only functions used beyond
// + - * / and sqrt (all correctly rounded by IEEE 754) are the log and exp below, evaluated by
// a fixed sequence of those operations instead of the system's libm.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

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
// times the sign of R's diagonal entry (Mezzadri's correction), row-major.
std::vector<double> haar_orthogonal(std::size_t n, Stream& rng) {
  std::vector<double> G(n * n);
  for (double& g : G) g = rng.normal();
  std::vector<std::vector<double>> V(n);  // Householder vectors (entries k..n-1)
  std::vector<double> sign(n, 1.0);
  for (std::size_t k = 0; k < n; ++k) {
    double norm2 = 0;
    for (std::size_t i = k; i < n; ++i) norm2 += G[i * n + k] * G[i * n + k];
    const double norm = std::sqrt(norm2), x0 = G[k * n + k];
    const double alpha = x0 >= 0 ? -norm : norm;  // R_kk
    sign[k] = alpha >= 0 ? 1.0 : -1.0;
    std::vector<double>& v = V[k];
    v.assign(n - k, 0.0);
    for (std::size_t i = k; i < n; ++i) v[i - k] = G[i * n + k];
    v[0] -= alpha;
    double vv = 0;
    for (double x : v) vv += x * x;
    if (vv == 0) {
      v.clear();
      continue;
    }
    for (std::size_t c = k; c < n; ++c) {  // G <- (I - 2 v v^T / v^T v) G
      double dot = 0;
      for (std::size_t i = k; i < n; ++i) dot += v[i - k] * G[i * n + c];
      const double f = 2 * dot / vv;
      for (std::size_t i = k; i < n; ++i) G[i * n + c] -= f * v[i - k];
    }
  }
  // Q = H_0 H_1 ... H_{n-1}, applied to I from the last reflector back.
  std::vector<double> Q(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i) Q[i * n + i] = 1;
  for (std::size_t k = n; k-- > 0;) {
    const std::vector<double>& v = V[k];
    if (v.empty()) continue;
    double vv = 0;
    for (double x : v) vv += x * x;
    for (std::size_t c = 0; c < n; ++c) {
      double dot = 0;
      for (std::size_t i = k; i < n; ++i) dot += v[i - k] * Q[i * n + c];
      const double f = 2 * dot / vv;
      for (std::size_t i = k; i < n; ++i) Q[i * n + c] -= f * v[i - k];
    }
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < n; ++c) Q[i * n + c] *= sign[c];
  return Q;
}

}  // namespace

std::vector<double> matrix_q1dq2(std::size_t n, double cond, std::uint64_t seed) {
  check_n(n);
  if (!(cond >= 1) || !std::isfinite(cond))
    throw std::invalid_argument("cond: the condition number must be a finite number >= 1, got " + std::to_string(cond));
  Stream rng{seed};
  const std::vector<double> Q1 = haar_orthogonal(n, rng), Q2 = haar_orthogonal(n, rng);
  // d_ii = cond^(-(i-1)/(n-1)) (blanchard2020 section 4.2 with cond = 10^c).
  std::vector<double> d(n, 1.0);
  const double log_cond = portable_log(cond);
  for (std::size_t i = 1; i < n; ++i) d[i] = portable_exp(-log_cond * static_cast<double>(i) / static_cast<double>(n - 1));
  std::vector<double> A(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t p = 0; p < n; ++p) {
      const double f = Q1[i * n + p] * d[p];
      for (std::size_t c = 0; c < n; ++c) A[i * n + c] += f * Q2[p * n + c];
    }
  return A;
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

}  // namespace tcsim::models
