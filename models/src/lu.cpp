// simulate_lu (lu.hpp): blanchard2020 Algorithm 4.1 / lopez2022 Algorithm 3.1 with the
// updates through simulate_gemm; substitutions and backward errors.
#include "tcsim/models/lu.hpp"

#include <cmath>
#include <cstdio>
#include <numeric>
#include <utility>

#include "gemm_impl.hpp"

namespace tcsim::models {

namespace {

// The storage precision: every scalar result rounded to it (RNE). Operands are values of the
// format held in binary64; a product, difference or quotient of two of them is computed in
// binary64 and rounded once more: innocuous double rounding, since 53 >= 2p + 2 for p = 11
// and p = 24 (Figueroa's condition for +, -, *, /).
struct Storage {
  bool half = false;
  double operator()(double x) const {
    return half ? gemm_detail::round_binary16(x) : static_cast<double>(static_cast<float>(x));
  }
  double min_normal() const { return half ? 0x1p-14 : 0x1p-126; }
  const char* name() const { return half ? "fp16" : "fp32"; }
};

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

[[noreturn]] void breakdown(std::size_t step, std::size_t r, const std::string& what) {
  throw LuBreakdown("LU breakdown at step " + std::to_string(step + 1) + " (block " + std::to_string(step / r + 1) +
                    "): " + what);
}

}  // namespace

LuResult simulate_lu(const Unit& unit, const Format& in, std::size_t n, std::span<const double> A,
                     const LuOptions& o) {
  if (A.size() != n * n)
    throw std::invalid_argument("A: expected n * n = " + std::to_string(n * n) + " values, got " +
                                std::to_string(A.size()));
  if (o.block == 0) throw std::invalid_argument("block: the block size r must be at least 1");
  if (o.variant == GemmVariant::Unit)
    throw std::invalid_argument("variant: LU takes fp16, tc16, tc32 or fp32 (blanchard2020 Table 4.1)");
  const bool low_variant = o.variant == GemmVariant::Fp16 || o.variant == GemmVariant::Tc16;
  Storage S;
  if (o.storage.empty()) S.half = low_variant;
  else if (o.storage == "fp16" || o.storage == "fp32") S.half = o.storage == "fp16";
  else throw std::invalid_argument("storage: '" + o.storage + "' is not allowed; allowed: fp16, fp32");
  const Format& gemm_out = parse_format(low_variant ? "fp16" : "fp32");
  GemmOptions g;
  g.instruction = o.instruction;
  g.variant = o.variant;
  g.threads = o.threads;

  LuResult res;
  res.n = n;
  res.storage = S.name();
  res.variant = variant_name(o.variant);
  res.path = o.variant == GemmVariant::Fp16 || o.variant == GemmVariant::Fp32 ? "ieee" : unit.batch_path(in, gemm_out, o.instruction);
  res.perm.resize(n);
  std::iota(res.perm.begin(), res.perm.end(), std::size_t{0});
  std::vector<double>& a = res.LU;
  a.resize(n * n);
  for (std::size_t i = 0; i < n * n; ++i) {
    a[i] = S(A[i]);
    if (!std::isfinite(a[i]))
      throw LuBreakdown("A[" + std::to_string(i / n) + "][" + std::to_string(i % n) + "] = " + number(A[i]) +
                        (std::isfinite(A[i]) ? " overflows the " : " is not finite in the ") + S.name() + " storage");
  }
  const std::size_t r = o.block;
  auto not_finite = [&](std::size_t step, std::size_t i, std::size_t c, double v) {
    breakdown(step, r, "the elimination gives A[" + std::to_string(i) + "][" + std::to_string(c) + "] = " + number(v) +
                           ", not finite in " + S.name() + " storage");
  };
  std::vector<double> Lneg, U, C;
  for (std::size_t k0 = 0; k0 < n; k0 += r) {
    const std::size_t k1 = std::min(n, k0 + r);
    // The panel (rows k0.., columns k0..k1): L_kk U_kk = A_kk and L_ik U_kk = A_ik, right-looking.
    for (std::size_t j = k0; j < k1; ++j) {
      if (o.pivot) {
        std::size_t p = j;
        for (std::size_t i = j + 1; i < n; ++i)
          if (std::fabs(a[i * n + j]) > std::fabs(a[p * n + j])) p = i;
        if (p != j) {
          for (std::size_t c = 0; c < n; ++c) std::swap(a[j * n + c], a[p * n + c]);
          std::swap(res.perm[j], res.perm[p]);
        }
      }
      const double piv = a[j * n + j];
      if (!(std::fabs(piv) >= S.min_normal()) || !std::isfinite(piv))
        breakdown(j, r, "pivot U[" + std::to_string(j) + "][" + std::to_string(j) + "] = " + number(piv) +
                            (piv == 0 ? " is zero" : (std::isfinite(piv) ? " is below the normal range of " + std::string(S.name())
                                                                         : " is not finite")) +
                            (o.pivot ? "" : " (no pivoting: try --pivot)"));
      for (std::size_t i = j + 1; i < n; ++i) {
        const double l = S(a[i * n + j] / piv);
        if (!std::isfinite(l)) not_finite(j, i, j, l);
        a[i * n + j] = l;
        for (std::size_t c = j + 1; c < k1; ++c) {
          const double v = S(a[i * n + c] - S(l * a[j * n + c]));
          if (!std::isfinite(v)) not_finite(j, i, c, v);
          a[i * n + c] = v;
        }
      }
    }
    if (k1 == n) break;
    // U_ki: L_kk U_ki = A_ki by forward substitution (unit diagonal), products in order.
    for (std::size_t j = k0; j < k1; ++j)
      for (std::size_t i = j + 1; i < k1; ++i) {
        const double l = a[i * n + j];
        for (std::size_t c = k1; c < n; ++c) {
          const double v = S(a[i * n + c] - S(l * a[j * n + c]));
          if (!std::isfinite(v)) not_finite(j, i, c, v);
          a[i * n + c] = v;
        }
      }
    // A22 <- A22 - L21 U12 through the unit (blanchard2020 Algorithm 4.1 lines 8-9).
    const std::size_t m2 = n - k1, kb = k1 - k0;
    Lneg.resize(m2 * kb);
    U.resize(kb * m2);
    C.resize(m2 * m2);
    for (std::size_t i = 0; i < m2; ++i)
      for (std::size_t c = 0; c < kb; ++c) Lneg[i * kb + c] = -a[(k1 + i) * n + k0 + c];
    for (std::size_t i = 0; i < kb; ++i)
      for (std::size_t c = 0; c < m2; ++c) U[i * m2 + c] = a[(k0 + i) * n + k1 + c];
    for (std::size_t i = 0; i < m2; ++i)
      for (std::size_t c = 0; c < m2; ++c) C[i * m2 + c] = a[(k1 + i) * n + k1 + c];
    const GemmResult up = simulate_gemm(unit, in, gemm_out, m2, m2, kb, Lneg, U, C, g);
    res.unit_calls += up.unit_calls;
    for (std::size_t i = 0; i < m2; ++i)
      for (std::size_t c = 0; c < m2; ++c) {
        const double v = S(up.D[i * m2 + c]);
        if (!std::isfinite(v))
          breakdown(k1 - 1, r, "the update A22 - L21 U12 gives A[" + std::to_string(k1 + i) + "][" +
                                   std::to_string(k1 + c) + "] = " + number(up.D[i * m2 + c]) + ", not finite in " +
                                   S.name() + " storage");
        a[(k1 + i) * n + k1 + c] = v;
      }
  }
  return res;
}

std::vector<double> lu_solve(const LuResult& lu, std::span<const double> b) {
  const std::size_t n = lu.n;
  if (b.size() != n) throw std::invalid_argument("b: expected n = " + std::to_string(n) + " values, got " + std::to_string(b.size()));
  Storage S;
  S.half = lu.storage == "fp16";
  const std::vector<double>& a = lu.LU;
  std::vector<double> y(n), x(n);
  for (std::size_t i = 0; i < n; ++i) {  // L y = P b, unit diagonal
    double s = S(b[lu.perm[i]]);
    for (std::size_t p = 0; p < i; ++p) s = S(s - S(a[i * n + p] * y[p]));
    y[i] = s;
  }
  for (std::size_t i = n; i-- > 0;) {  // U x = y
    double s = y[i];
    for (std::size_t p = i + 1; p < n; ++p) s = S(s - S(a[i * n + p] * x[p]));
    x[i] = S(s / a[i * n + i]);
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
  double res_inf = 0, a_inf = 0, x_inf = 0, b_inf = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double r = -b[i], ax = 0, row = 0;
    for (std::size_t p = 0; p < n; ++p) {
      r += A[i * n + p] * x[p];
      ax += std::fabs(A[i * n + p]) * std::fabs(x[p]);
      row += std::fabs(A[i * n + p]);
    }
    const double den = ax + lux[i];
    const double ce = den > 0 ? std::fabs(r) / den : (r == 0 ? 0.0 : INFINITY);
    if (!std::isnan(e.componentwise) && (std::isnan(ce) || ce > e.componentwise)) e.componentwise = ce;  // NaN stays
    res_inf = std::max(res_inf, std::fabs(r));
    a_inf = std::max(a_inf, row);
    x_inf = std::max(x_inf, std::fabs(x[i]));
    b_inf = std::max(b_inf, std::fabs(b[i]));
  }
  const double den = a_inf * x_inf + b_inf;
  e.normwise = den > 0 ? res_inf / den : (res_inf == 0 ? 0.0 : INFINITY);
  return e;
}

}  // namespace tcsim::models
