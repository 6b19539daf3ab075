// gemm_errors, sample_rows and gemm_bound (gemm_error.hpp). Each entry's exact value is never
// formed: the error |D^ - (C + sum a b)| and the denominator |C| + sum |a b| are each one
// mpfr_sum over the exact products (106-bit: a binary64 product is exact there), correctly
// rounded once to binary64 precision. Their quotient is taken in MPFR too (unbounded exponent), so
// entries whose exact value lies beyond binary64's range still get a finite, meaningful ratio.
//
// Non-finite results: a NaN or Inf in D^, or a NaN exact value (NaN in A, B or C, Inf * 0,
// Inf - Inf), counts as error +inf, never as 0 (std::max would silently drop a NaN).
#include <mpfr.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "tcsim/reference/bounds.hpp"
#include "tcsim/reference/gemm_error.hpp"
#include "tcsim/reference/mpfr_dot.hpp"

namespace tcsim::reference {

namespace {

// Per-row scratch: k + 2 exact terms and their pointers.
struct RowScratch {
  std::vector<Mpfr> terms;
  std::vector<mpfr_ptr> ptrs;
  Mpfr err{53}, den{53}, ratio{53};
  explicit RowScratch(std::size_t k) : terms(k + 2, Mpfr(106)), ptrs(k + 2) {
    for (std::size_t t = 0; t < k + 2; ++t) ptrs[t] = terms[t].get();
  }
};

struct RowError {
  double componentwise = 0;  // max over the row
  double abs_sum = 0;        // sum_j |D^ - D|_ij (the row's part of ||D^ - D||_inf)
};

RowError row_error(std::size_t i, std::size_t n, std::size_t k, std::span<const double> A, std::span<const double> B,
                   std::span<const double> C, std::span<const double> D_hat, RowScratch& s) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  RowError r;
  for (std::size_t j = 0; j < n; ++j) {
    const double d = D_hat[i * n + j];
    if (!std::isfinite(d)) {  // NaN or Inf: no accuracy at all (even if the exact value is that Inf)
      r.componentwise = r.abs_sum = inf;
      continue;
    }
    // Negated exact products -a b (106 bits hold a binary64 product exactly), then -C.
    for (std::size_t t = 0; t < k; ++t) mpfr_set_d(s.terms[t].get(), -A[i * k + t], MPFR_RNDN);
    for (std::size_t t = 0; t < k; ++t) mpfr_mul_d(s.terms[t].get(), s.terms[t].get(), B[t * n + j], MPFR_RNDN);
    mpfr_set_d(s.terms[k].get(), C.empty() ? 0.0 : -C[i * n + j], MPFR_RNDN);
    // Error: D^ - C - sum a b.
    mpfr_set_d(s.terms[k + 1].get(), d, MPFR_RNDN);
    mpfr_sum(s.err.get(), s.ptrs.data(), k + 2, MPFR_RNDN);
    if (mpfr_nan_p(s.err.get())) {
      r.componentwise = r.abs_sum = inf;
      continue;
    }
    mpfr_abs(s.err.get(), s.err.get(), MPFR_RNDN);
    // Denominator: |C| + sum |a b|.
    for (std::size_t t = 0; t <= k; ++t) mpfr_abs(s.terms[t].get(), s.terms[t].get(), MPFR_RNDN);
    mpfr_sum(s.den.get(), s.ptrs.data(), k + 1, MPFR_RNDN);
    double ratio = 0;
    if (!mpfr_zero_p(s.err.get())) {
      if (mpfr_zero_p(s.den.get()) || mpfr_inf_p(s.err.get())) {
        ratio = inf;  // x/0, and Inf/Inf (an infinite operand met by a finite D^)
      } else {
        mpfr_div(s.ratio.get(), s.err.get(), s.den.get(), MPFR_RNDN);
        ratio = mpfr_get_d(s.ratio.get(), MPFR_RNDN);
      }
    }
    r.componentwise = std::max(r.componentwise, ratio);
    r.abs_sum += mpfr_get_d(s.err.get(), MPFR_RNDN);
  }
  return r;
}

double inf_norm(std::size_t rows, std::size_t cols, std::span<const double> M) {
  double norm = 0;
  for (std::size_t i = 0; i < rows; ++i) {
    double s = 0;
    for (std::size_t j = 0; j < cols; ++j) s += std::fabs(M[i * cols + j]);
    norm = std::max(norm, s);
  }
  return norm;
}

}  // namespace

GemmErrorMaxima gemm_error_maxima(std::size_t m, std::size_t n, std::size_t k, std::span<const double> A,
                                  std::span<const double> B, std::span<const double> C,
                                  std::span<const double> D_hat, std::span<const std::size_t> rows,
                                  unsigned threads,
                                  const std::function<void(std::size_t, std::size_t)>& progress) {
  auto need = [](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument("gemm_errors: " + what);
  };
  need(A.size() == m * k, "A has " + std::to_string(A.size()) + " entries, m*k = " + std::to_string(m * k));
  need(B.size() == k * n, "B has " + std::to_string(B.size()) + " entries, k*n = " + std::to_string(k * n));
  need(C.empty() || C.size() == m * n, "C has " + std::to_string(C.size()) + " entries, m*n = " + std::to_string(m * n));
  need(D_hat.size() == m * n, "D_hat has " + std::to_string(D_hat.size()) + " entries, m*n = " + std::to_string(m * n));
  std::vector<std::size_t> all;
  if (rows.empty()) {
    all.resize(m);
    for (std::size_t i = 0; i < m; ++i) all[i] = i;
    rows = all;
  }
  for (std::size_t i : rows) need(i < m, "row " + std::to_string(i) + " is out of range (m = " + std::to_string(m) + ")");

  std::vector<RowError> per_row(rows.size());
  std::atomic<std::size_t> done{0};
  auto body = [&](std::size_t r0, std::size_t r1) {
    RowScratch s(k);
    for (std::size_t r = r0; r < r1; ++r) {
      per_row[r] = row_error(rows[r], n, k, A, B, C, D_hat, s);
      if (progress) progress(++done, rows.size());
    }
  };
  if (threads == 1 || !mpfr_is_thread_safe()) {
    body(0, rows.size());
  } else {
    tbb::task_arena arena(threads ? static_cast<int>(threads) : tbb::task_arena::automatic);
    arena.execute([&] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, rows.size()),
                        [&](const tbb::blocked_range<std::size_t>& r) { body(r.begin(), r.end()); });
    });
  }
  GemmErrorMaxima e;
  for (const auto& r : per_row) {  // serial maxima: the same for any thread count
    e.componentwise = std::max(e.componentwise, r.componentwise);
    e.row_abs_sum = std::max(e.row_abs_sum, r.abs_sum);
  }
  return e;
}

double gemm_normwise(double row_abs_sum, std::size_t m, std::size_t n, std::size_t k, std::span<const double> A,
                     std::span<const double> B, std::span<const double> C) {
  const double den = (C.empty() ? 0.0 : inf_norm(m, n, C)) + inf_norm(m, k, A) * inf_norm(k, n, B);
  double normwise = row_abs_sum == 0 ? 0.0 : (den == 0 ? std::numeric_limits<double>::infinity() : row_abs_sum / den);
  if (std::isnan(normwise)) normwise = std::numeric_limits<double>::infinity();  // Inf / Inf
  return normwise;
}

GemmErrors gemm_errors(std::size_t m, std::size_t n, std::size_t k, std::span<const double> A,
                       std::span<const double> B, std::span<const double> C, std::span<const double> D_hat,
                       std::span<const std::size_t> rows, unsigned threads,
                       const std::function<void(std::size_t, std::size_t)>& progress) {
  const GemmErrorMaxima x = gemm_error_maxima(m, n, k, A, B, C, D_hat, rows, threads, progress);
  GemmErrors e;
  e.componentwise = x.componentwise;
  e.normwise = gemm_normwise(x.row_abs_sum, m, n, k, A, B, C);
  e.rows_checked = rows.empty() ? m : rows.size();
  e.sampled = e.rows_checked < m;
  return e;
}

std::vector<std::size_t> sample_rows(std::size_t m, std::size_t count) {
  std::vector<std::size_t> r;
  if (m == 0) return r;
  if (count >= m) {
    for (std::size_t i = 0; i < m; ++i) r.push_back(i);
    return r;
  }
  if (count <= 1) return {0};
  for (std::size_t s = 0; s < count; ++s) r.push_back(s * (m - 1) / (count - 1));  // first and last included
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

GemmBound gemm_bound(const GemmBoundQuery& q) {
  using namespace bounds;
  BlockFmaParams p;
  p.n = q.k;
  p.b = q.b;
  p.u_low = q.u_low;
  std::string what;
  if (q.variant == "fp16" || q.variant == "fp32") {  // standard recursive summation (b = 1)
    const double u = q.variant == "fp16" ? q.u_low : q.u_high;
    p = blanchard_table32_params(q.variant == "fp16" ? Table32Method::StandardLow : Table32Method::StandardHigh, q.k,
                                 q.b, q.u_low, q.u_high);
    p.u = p.u_fma = p.u_bar = u;
    p.u_low = q.u_low;  // both variants round A and B to the input format (Thm 3.2 when inexact)
    what = "standard summation";
  } else if (q.variant == "tc16" || q.variant == "tc32" || q.variant == "unit") {
    // "unit": C and D held in the unit's own output format, whose unit roundoff the caller
    // passes as u_high (binary64 for the fp64 rows).
    const double u = q.variant == "tc16" ? q.u_low : q.u_high;
    p.u = p.u_fma = p.u_bar = u;
    what = "block FMA";
  } else {
    throw std::invalid_argument("variant: '" + q.variant + "' has no bound; allowed: fp16, tc16, tc32, fp32, unit");
  }
  const bool unit_roundoffs = q.u_fma > 0 && q.u_bar > 0 && what == "block FMA";
  if (unit_roundoffs) {
    p.u_fma = q.u_fma;
    p.u_bar = q.u_bar;
    p.u = std::max(q.u_fma, q.u_bar);
  }
  GemmBound b;
  if (q.words > 1) {
    b.componentwise = mary_multiword(q.k, q.words, q.u_low, unit_roundoffs ? p.u : q.u_high, !q.all_word_products);
    b.source = "mary2021 slide 'General error analysis' (multiword, first order), p = " + std::to_string(q.words);
    if (unit_roundoffs) b.source += ", u_high = max(u_fma, u_bar) of the row's " + q.roundoff_how;
    return b;
  }
  if (q.fabsum_block > 0) {
    b.componentwise = mary_fabsum(q.k, q.fabsum_block, p.u, q.u_combine);
    b.source = "mary2021 slide 'A proposed cure' (FABsum, first order), b = " + std::to_string(q.fabsum_block);
    if (unit_roundoffs) b.source += ", u_block = max(u_fma, u_bar) of the row's " + q.roundoff_how;
    if (!q.inputs_exact) {  // A and B rounded to the input format first: |a^b^ - ab| <= (2u + u^2)|a||b|
      b.componentwise += 2 * q.u_low + q.u_low * q.u_low;
      b.source += ", + 2u_low + u_low^2 for rounding A and B to the input format (blanchard2020 Thm 3.2)";
    }
    return b;
  }
  double thm31 = blanchard_thm31(p);
  if (unit_roundoffs) {  // eq. (3.5) with u~_fma = u_fma
    const double q_blocks = std::ceil(q.k / q.b);
    const double gt = gamma(q_blocks, p.u_fma), gb = gamma(q.k, p.u_bar);
    thm31 = std::isinf(gt) || std::isinf(gb) ? std::numeric_limits<double>::infinity() : gt + gb + gt * gb;
  }
  if (q.inputs_exact) {
    b.componentwise = thm31;
    b.source = "blanchard2020 Thm 3.1 eq. (3.5), " + what + " (" + q.variant + ")";
  } else {
    b.componentwise = 2 * p.u_low + p.u_low * p.u_low + thm31 * (1 + p.u_low) * (1 + p.u_low);
    b.source = "blanchard2020 Thm 3.2 eq. (3.6), " + what + " (" + q.variant + ")";
  }
  if (unit_roundoffs) b.source += " with the row's " + q.roundoff_how;
  return b;
}

}  // namespace tcsim::reference
