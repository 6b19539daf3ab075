// lu_solve and lu_backward_errors (lu.hpp): substitutions with every operation correctly
// rounded, and backward errors in binary64.
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "lu_impl.hpp"
#include "tcsim/models/lu.hpp"

namespace tcsim::models {

using lu_detail::Precision;

namespace {

// The first +-Inf and NaN of a substitution, in the order the entries are computed.
void note(LuSolveEvents* events, double v, std::size_t i, const char* where) {
  if (!events || std::isfinite(v)) return;
  LuEvent& ev = std::isnan(v) ? events->nan : events->overflow;
  if (!ev.found) ev = {true, 0, 0, i, i, v, where};
  if (!events->first.found) events->first = ev;
}

std::string number(double v) {
  if (std::isnan(v)) return "nan";  // no sign: the sign of a NaN is not a result
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

std::string lu_solve_breakdown(const LuSolveEvents& e, std::string_view precision) {
  if (!e.any()) return "";
  const LuEvent& f = e.first;
  const char name = f.where[4] == 'f' ? 'y' : 'x';
  return "LU breakdown in the substitutions: " + f.where + " gives " + name + "[" + std::to_string(f.row) +
         "] = " + number(f.value) + ", not finite in " + std::string(precision);
}

std::vector<double> lu_solve(const LuResult& lu, std::span<const double> b, std::string_view precision,
                             LuSolveEvents* events) {
  const std::size_t n = lu.n;
  if (b.size() != n) throw std::invalid_argument("b: expected n = " + std::to_string(n) + " values, got " + std::to_string(b.size()));
  const Precision S = lu_detail::precision_named(precision.empty() ? std::string_view(lu.storage) : precision, "precision");
  const std::vector<double>& a = lu.LU;
  std::vector<double> y(n), x(n);
  for (std::size_t i = 0; i < n; ++i) {  // L y = P b, unit diagonal
    double s = S(b[lu.perm[i]]);
    for (std::size_t p = 0; p < i; ++p) s = S(s - S(a[i * n + p] * y[p]));
    y[i] = s;
    note(events, s, i, "the forward substitution (y)");
  }
  for (std::size_t i = n; i-- > 0;) {  // U x = y
    double s = y[i];
    for (std::size_t p = i + 1; p < n; ++p) s = S(s - S(a[i * n + p] * x[p]));
    x[i] = S(s / a[i * n + i]);
    note(events, x[i], i, "the back substitution (x)");
  }
  return x;
}

LuBackwardErrors lu_backward_errors(const LuResult& lu, std::span<const double> A, std::span<const double> x,
                                    std::span<const double> b) {
  const std::size_t n = lu.n;
  if (A.size() != n * n || x.size() != n || b.size() != n)
    throw std::invalid_argument("lu_backward_errors: A must hold n * n values, x and b n each (n = " +
                                std::to_string(n) + ")");
  const std::vector<double>& a = lu.LU;
  // |U||x|, then |L|(|U||x|): row i of the factors is row perm[i] of A.
  std::vector<double> ux(n, 0.0), lux(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t p = i; p < n; ++p) ux[i] += std::fabs(a[i * n + p]) * std::fabs(x[p]);
  for (std::size_t i = 0; i < n; ++i) {
    double s = ux[i];  // the unit diagonal of L
    for (std::size_t p = 0; p < i; ++p) s += std::fabs(a[i * n + p]) * ux[p];
    lux[lu.perm[i]] = s;
  }
  LuBackwardErrors e;
  // NaN must win every max (std::max(0.0, NaN) is 0.0: an all-NaN x once gave a normwise
  // backward error of 0), and a NaN or Inf denominator gives NaN or 0, never a made-up value.
  auto nan_max = [](double m, double v) { return std::isnan(m) || std::isnan(v) || v > m ? (std::isnan(m) ? m : v) : m; };
  double res_inf = 0, a_inf = 0, x_inf = 0, b_inf = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double r = -b[i], ax = 0, row = 0;
    for (std::size_t p = 0; p < n; ++p) {
      r += A[i * n + p] * x[p];
      ax += std::fabs(A[i * n + p]) * std::fabs(x[p]);
      row += std::fabs(A[i * n + p]);
    }
    const double den = ax + lux[i];
    const double ce = std::isnan(den) ? den : den > 0 ? std::fabs(r) / den : (r == 0 ? 0.0 : std::fabs(r) * INFINITY);
    if (!std::isnan(e.componentwise) && (std::isnan(ce) || ce > e.componentwise)) e.componentwise = ce;  // NaN stays
    res_inf = nan_max(res_inf, std::fabs(r));
    a_inf = nan_max(a_inf, row);
    x_inf = nan_max(x_inf, std::fabs(x[i]));
    b_inf = nan_max(b_inf, std::fabs(b[i]));
  }
  const double den = a_inf * x_inf + b_inf;
  e.normwise = std::isnan(den) ? den : den > 0 ? res_inf / den : (res_inf == 0 ? 0.0 : res_inf * INFINITY);
  return e;
}

}  // namespace tcsim::models
