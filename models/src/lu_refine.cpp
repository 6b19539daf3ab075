// refine_solution (lu_refine.hpp): LU-IR and GMRES-IR around the simulated LU factors.
#include "tcsim/models/lu_refine.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace tcsim::models {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The working precision: values held in binary64, rounded to nearest even after each operation.
// A sum of two fp32 values computed in binary64 and rounded again is correctly rounded
// (53 >= 2 * 24 + 2), so x + d is one rounding in either precision.
struct Working {
  bool fp32 = false;
  double operator()(double v) const { return fp32 ? static_cast<double>(static_cast<float>(v)) : v; }
  double unit_roundoff() const { return fp32 ? 0x1p-24 : 0x1p-53; }
  const char* name() const { return fp32 ? "fp32" : "fp64"; }
};

std::string number(double v, int digits = 2) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

double norm_inf(std::span<const double> v) {
  double m = 0;
  for (double e : v) m = std::isnan(e) || std::fabs(e) > m ? std::fabs(e) : m;  // NaN wins
  return m;
}

// sqrt(a^2 + b^2) by scaling, with IEEE operations only (std::hypot's last bit may vary).
double pythag(double a, double b) {
  const double m = std::max(std::fabs(a), std::fabs(b));
  if (m == 0 || !std::isfinite(m)) return m;
  const double p = a / m, q = b / m;
  return m * std::sqrt(p * p + q * q);
}

double dot(std::span<const double> a, std::span<const double> b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// b - A x and (|A||x| + |b|), row by row. The residual is Ogita-Rump-Oishi Dot2: TwoSum and
// TwoProduct (std::fma: exact error of the product) carry the rounding errors in a second sum,
// so the result is as if accumulated in twice binary64 and rounded once more (u_r ~ u64^2),
// with the same bits on every IEEE machine (no long double, whose width varies).
struct Residual {
  std::vector<double> r, scale;
};
Residual residual(std::span<const double> A, std::span<const double> x, std::span<const double> b) {
  const std::size_t n = b.size();
  Residual out{std::vector<double>(n), std::vector<double>(n)};
  for (std::size_t i = 0; i < n; ++i) {
    double p = b[i], s = 0, ax = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const double a = -A[i * n + j];
      const double h = a * x[j];
      const double e = std::fma(a, x[j], -h);  // TwoProduct
      const double t = p + h;                  // TwoSum (Knuth): no ordering of |p|, |h| needed
      const double z = t - p;
      s += ((p - (t - z)) + (h - z)) + e;
      p = t;
      ax += std::fabs(a) * std::fabs(x[j]);
    }
    out.r[i] = p + s;
    out.scale[i] = ax + std::fabs(b[i]);
  }
  return out;
}

struct Errors {
  double normwise, componentwise;
};
Errors backward_errors(const Residual& res, double a_inf, std::span<const double> x, std::span<const double> b) {
  auto ratio = [](double num, double den) { return den > 0 ? num / den : (num == 0 ? 0.0 : INFINITY); };
  Errors e{ratio(norm_inf(res.r), a_inf * norm_inf(x) + norm_inf(b)), 0};
  for (std::size_t i = 0; i < b.size(); ++i) {
    const double c = ratio(std::fabs(res.r[i]), res.scale[i]);
    if (!std::isnan(e.componentwise) && (std::isnan(c) || c > e.componentwise)) e.componentwise = c;
  }
  return e;
}

double forward_error(std::span<const double> x, std::span<const double> x_true) {
  if (x_true.empty()) return kNaN;
  double diff = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double d = std::fabs(x[i] - x_true[i]);
    diff = std::isnan(d) || d > diff ? d : diff;
  }
  const double t = norm_inf(x_true);
  return t > 0 ? diff / t : (diff == 0 ? 0.0 : INFINITY);
}

// GMRES (x0 = 0) on M^-1 A d = M^-1 r with M^-1 v = lu_solve(lu, v, working): the
// preconditioner rounds in the working precision as in GMRES-IR; the Krylov vectors, products
// with A, modified Gram-Schmidt Arnoldi and Givens rotations are binary64 (for fp64 working
// precision that is u itself; for fp32 it is extra precision, which keeps GMRES from limiting
// the refinement). Stops when the Givens estimate of the preconditioned residual reaches
// tol * ||M^-1 r||_2, after max_k steps, or at a (happy) breakdown.
std::vector<double> gmres(const LuResult& lu, std::span<const double> A, std::span<const double> r,
                          const Working& w, int max_k, double tol, int& steps) {
  const std::size_t n = lu.n;
  steps = 0;
  std::vector<double> z = lu_solve(lu, r, w.name());
  const double beta = std::sqrt(dot(z, z));
  if (beta == 0 || !std::isfinite(beta)) return z;  // zero correction, or non-finite: the caller stops
  const std::size_t m = static_cast<std::size_t>(max_k);
  std::vector<double> V((m + 1) * n), H((m + 1) * m, 0.0), cs(m), sn(m), g(m + 1, 0.0);
  for (std::size_t i = 0; i < n; ++i) V[i] = z[i] / beta;
  g[0] = beta;
  std::vector<double> av(n);
  std::size_t k = 0;
  while (k < m) {
    const std::span<const double> vk(&V[k * n], n);
    for (std::size_t i = 0; i < n; ++i) av[i] = dot(A.subspan(i * n, n), vk);
    std::vector<double> wv = lu_solve(lu, av, w.name());
    auto h = [&](std::size_t row) -> double& { return H[row * m + k]; };
    for (std::size_t j = 0; j <= k; ++j) {  // modified Gram-Schmidt
      const std::span<const double> vj(&V[j * n], n);
      h(j) = dot(vj, wv);
      for (std::size_t i = 0; i < n; ++i) wv[i] -= h(j) * vj[i];
    }
    const double next = std::sqrt(dot(wv, wv));
    h(k + 1) = next;
    for (std::size_t j = 0; j < k; ++j) {  // earlier rotations on the new column
      const double t = cs[j] * h(j) + sn[j] * h(j + 1);
      h(j + 1) = -sn[j] * h(j) + cs[j] * h(j + 1);
      h(j) = t;
    }
    const double rho = pythag(h(k), h(k + 1));
    if (rho == 0 || !std::isfinite(rho)) break;  // singular or non-finite column: keep the k before
    cs[k] = h(k) / rho;
    sn[k] = h(k + 1) / rho;
    h(k) = rho;
    h(k + 1) = 0;
    g[k + 1] = -sn[k] * g[k];
    g[k] = cs[k] * g[k];
    ++k;
    if (std::fabs(g[k]) <= tol * beta || next == 0 || k == m) break;
    for (std::size_t i = 0; i < n; ++i) V[k * n + i] = wv[i] / next;
  }
  steps = static_cast<int>(k);
  std::vector<double> y(k), d(n, 0.0);
  for (std::size_t i = k; i-- > 0;) {  // H(0:k, 0:k) y = g(0:k), upper triangular
    double s = g[i];
    for (std::size_t j = i + 1; j < k; ++j) s -= H[i * m + j] * y[j];
    y[i] = s / H[i * m + i];
  }
  for (std::size_t j = 0; j < k; ++j)
    for (std::size_t i = 0; i < n; ++i) d[i] += y[j] * V[j * n + i];
  return d;
}

}  // namespace

std::string refine_method_name(RefineMethod method) { return method == RefineMethod::LuIr ? "lu-ir" : "gmres-ir"; }

RefineMethod parse_refine_method(std::string_view text) {
  if (text == "lu-ir") return RefineMethod::LuIr;
  if (text == "gmres-ir") return RefineMethod::GmresIr;
  throw std::invalid_argument("refine: '" + std::string(text) + "' is not allowed; allowed: lu-ir, gmres-ir");
}

RefineResult refine_solution(const LuResult& lu, std::span<const double> A, std::span<const double> b,
                             std::span<const double> x_true, const RefineOptions& o) {
  const std::size_t n = lu.n;
  if (lu.LU.size() != n * n || lu.perm.size() != n)
    throw std::invalid_argument("lu: expected n * n = " + std::to_string(n * n) + " factor values and n = " +
                                std::to_string(n) + " perm entries, got " + std::to_string(lu.LU.size()) + " and " +
                                std::to_string(lu.perm.size()));
  if (A.size() != n * n)
    throw std::invalid_argument("A: expected n * n = " + std::to_string(n * n) + " values, got " +
                                std::to_string(A.size()));
  if (b.size() != n)
    throw std::invalid_argument("b: expected n = " + std::to_string(n) + " values, got " + std::to_string(b.size()));
  if (!x_true.empty() && x_true.size() != n)
    throw std::invalid_argument("x_true: expected n = " + std::to_string(n) + " values or none, got " +
                                std::to_string(x_true.size()));
  if (o.working != "fp32" && o.working != "fp64")
    throw std::invalid_argument("working: '" + o.working + "' is not allowed; allowed: fp32, fp64");
  if (o.max_iterations < 1)
    throw std::invalid_argument("max_iterations: must be at least 1, got " + std::to_string(o.max_iterations));
  if (o.gmres_max_iterations < 0)
    throw std::invalid_argument("gmres_max_iterations: must be >= 0 (0: min(n, 500)), got " +
                                std::to_string(o.gmres_max_iterations));
  if (!(o.gmres_tolerance >= 0 && o.gmres_tolerance < 1))
    throw std::invalid_argument("gmres_tolerance: must be in [0, 1) (0: the working unit roundoff), got " +
                                number(o.gmres_tolerance));
  const Working W{o.working == "fp32"};
  const double u = W.unit_roundoff();
  // More than n Arnoldi steps cannot enlarge the Krylov space; the default bounds the basis memory.
  const int n_int = static_cast<int>(std::min<std::size_t>(n, std::numeric_limits<int>::max()));
  const int gmres_k =
      std::max(1, o.gmres_max_iterations == 0 ? std::min(n_int, 500) : std::min(n_int, o.gmres_max_iterations));
  const double gmres_tol = o.gmres_tolerance == 0 ? u : o.gmres_tolerance;

  double a_inf = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double row = 0;
    for (std::size_t j = 0; j < n; ++j) row += std::fabs(A[i * n + j]);
    a_inf = std::max(a_inf, row);
  }

  // The residual takes A and b as given (binary64, not rounded to u): x then tends to the
  // solution of the system asked for, whatever the working precision.
  RefineResult res;
  res.x = lu_solve(lu, b, W.name());
  auto all_finite = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double e) { return std::isfinite(e); });
  };
  double prev_d = kNaN;
  int slow = 0;  // consecutive steps whose correction did not halve
  double ratios[2] = {kNaN, kNaN};
  for (int it = 0;; ++it) {
    const bool finite = all_finite(res.x);
    const Residual rr =
        finite ? residual(A, res.x, b) : Residual{std::vector<double>(n, kNaN), std::vector<double>(n, kNaN)};
    const Errors e = backward_errors(rr, a_inf, res.x, b);
    RefineStep& step = it == 0 ? res.history.emplace_back() : res.history.back();
    step.iteration = it;
    step.normwise_backward_error = e.normwise;
    step.componentwise_backward_error = e.componentwise;
    step.forward_error = forward_error(res.x, x_true);
    if (it == 0) step.correction_norm = kNaN;
    res.iterations = it;
    res.normwise_backward_error = e.normwise;
    res.componentwise_backward_error = e.componentwise;
    res.forward_error = step.forward_error;
    const std::string at = " at iteration " + std::to_string(it);
    if (!finite) {
      res.stop_reason = "diverged: x is not finite" + at;
      break;
    }
    if (e.normwise <= u) {
      res.converged = true;
      res.stop_reason = "converged: normwise backward error " + number(e.normwise) + " <= u = " + number(u);
      break;
    }
    const std::string nbe = "normwise backward error " + number(e.normwise);
    if (it > 0 && prev_d == 0) {  // x did not change: every later step would repeat this one
      res.stop_reason = "stagnated: the correction is zero" + at + " (" + nbe + ")";
      break;
    }
    if (slow >= 2) {
      const bool grew = ratios[0] > 1 && ratios[1] > 1;
      res.stop_reason = std::string(grew ? "diverged: the correction grew"
                                         : "stagnated: the correction did not halve") +
                        " on two steps in a row (||d_i|| / ||d_i-1|| = " + number(ratios[0], 4) + ", " +
                        number(ratios[1], 4) + " at iterations " + std::to_string(it - 1) + ", " + std::to_string(it) +
                        "; " + nbe + ")";
      break;
    }
    if (it == o.max_iterations) {
      res.stop_reason = "did not converge in " + std::to_string(it) + " iterations (" + nbe + ")";
      break;
    }
    // The next step: r in the working precision, then the correction d.
    std::vector<double> r = rr.r;
    for (double& v : r) v = W(v);
    RefineStep next;
    std::vector<double> d;
    if (o.method == RefineMethod::LuIr) {
      d = lu_solve(lu, r, W.name());
    } else {
      d = gmres(lu, A, r, W, gmres_k, gmres_tol, next.gmres_iterations);
      res.gmres_iterations_total += next.gmres_iterations;
    }
    for (double& v : d) v = W(v);
    for (std::size_t i = 0; i < n; ++i) res.x[i] = W(res.x[i] + d[i]);
    const double dn = norm_inf(d);
    next.correction_norm = dn / norm_inf(res.x);
    const double ratio = prev_d > 0 ? dn / prev_d : kNaN;
    slow = ratio > 0.5 ? slow + 1 : 0;
    ratios[0] = ratios[1];
    ratios[1] = ratio;
    prev_d = dn;
    res.history.push_back(next);
  }
  return res;
}

}  // namespace tcsim::models
