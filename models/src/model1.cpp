// mary2024's Model 1 on binary64 host arithmetic (model1.hpp): rounding, multiword
// splitting and the scaled matrix product of the paper's experiments.
#include "tcsim/models/model1.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "gemm_impl.hpp"
#include "tcsim/sim/codec.hpp"

namespace tcsim::models {

namespace {

using gemm_detail::parallel_ranges;
using gemm_detail::scale_exponent;
using gemm_detail::times_pow2;

[[noreturn]] void model1_fail(const std::string& what) { throw std::invalid_argument(what); }

// The p-word splitting of x (already scaled): w_0 = fl(x), w_i = fl(r_i) with
// r_i = (r_{i-1} - w_{i-1}) / u, u = 2^-t. Each r_i is exact in binary64: the error of a
// rounding to t <= 24 bits (or of a flush to 0 or 2^emin) is a binary64 number.
void split(double x, const Model1Format& in, int words, double* out, std::size_t stride) {
  double r = x;
  for (int i = 0; i < words; ++i) {
    const double w = model1_round(r, in);
    out[static_cast<std::size_t>(i) * stride] = w;
    r = times_pow2(r - w, in.precision);
  }
}

}  // namespace

Model1Format model1_format(const Format& fmt, bool subnormals, bool bounded, const char* field) {
  if (fmt.precision < 2 || fmt.precision > 24 || !fmt.is_signed)
    model1_fail(std::string(field) + ": Model 1 takes signed formats of 2 to 24 significant bits (fp32, tf32, bf16, fp16, fp8, " +
         "fp6, fp4), got " + fmt.name);
  Model1Format f;
  f.precision = fmt.precision;
  f.emin = fmt.emin;
  f.fmax = to_double(decode(fmt, fmt.max_finite(false)));
  f.subnormals = subnormals;
  f.bounded = bounded;
  return f;
}

// nearbyint rounds ties to even in the default floating-point environment (FE_TONEAREST),
// which tcsim never changes.
double model1_round(double x, const Model1Format& f) {
  if (x == 0 || !std::isfinite(x)) return x;
  int quantum;  // the result is a multiple of 2^quantum
  const int e = std::ilogb(x);
  if (f.bounded && e < f.emin) {
    if (!f.subnormals) {  // nearest of 0 and 2^emin, a tie to 0
      const double m = std::ldexp(1.0, f.emin);
      return std::copysign(std::fabs(x) > m / 2 ? m : 0.0, x);
    }
    quantum = f.emin - f.precision + 1;
  } else {
    quantum = e - f.precision + 1;
  }
  const double r = std::ldexp(std::nearbyint(std::ldexp(x, -quantum)), quantum);
  if (f.bounded && std::fabs(r) > f.fmax) return std::copysign(std::numeric_limits<double>::infinity(), x);
  return r;
}

std::vector<std::vector<double>> model1_gemm_words(const Format& in, const Format& acc, std::size_t m, std::size_t n,
                                                   std::size_t k, std::span<const double> A, std::span<const double> B,
                                                   int max_words, const Model1Options& o) {
  if (m == 0 || n == 0 || k == 0) model1_fail("Model 1 GEMM: m, n and k must be at least 1");
  if (A.size() != m * k) model1_fail("A: expected m x k = " + std::to_string(m * k) + " entries, got " + std::to_string(A.size()));
  if (B.size() != k * n) model1_fail("B: expected k x n = " + std::to_string(k * n) + " entries, got " + std::to_string(B.size()));
  if (max_words < 1 || max_words > 3) model1_fail("words: Model 1 takes 1, 2 or 3 words, got " + std::to_string(max_words));
  for (double v : A)
    if (!std::isfinite(v)) model1_fail("A: Model 1 takes finite entries only");
  for (double v : B)
    if (!std::isfinite(v)) model1_fail("B: Model 1 takes finite entries only");
  const Model1Format fi = model1_format(in, o.subnormals, o.bounded, "in");
  const Model1Format fa = model1_format(acc, o.subnormals, o.bounded, "accumulation");

  // Scaling (3.1)-(3.4) with the narrow formats' theta in both cases.
  const double theta = std::min(model1_format(in, true, true).fmax,
                                std::sqrt(model1_format(acc, true, true).fmax / static_cast<double>(k)));
  std::vector<int> ea(m), eb(n);
  for (std::size_t i = 0; i < m; ++i) {
    double row = 0;
    for (std::size_t t = 0; t < k; ++t) row = std::max(row, std::fabs(A[i * k + t]));
    ea[i] = scale_exponent(row, theta);
  }
  for (std::size_t j = 0; j < n; ++j) {
    double col = 0;
    for (std::size_t t = 0; t < k; ++t) col = std::max(col, std::fabs(B[t * n + j]));
    eb[j] = scale_exponent(col, theta);
  }

  // Words: Aw[w][i*k+t]; Bw[w][j*k+t] (B transposed, so both inner loops are contiguous).
  const auto words = static_cast<std::size_t>(max_words);
  std::vector<double> Aw(words * m * k), Bw(words * n * k);
  parallel_ranges(o.threads, m, 1, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i)
      for (std::size_t t = 0; t < k; ++t) split(times_pow2(A[i * k + t], ea[i]), fi, max_words, &Aw[i * k + t], m * k);
  });
  parallel_ranges(o.threads, n, 1, [&](std::size_t b, std::size_t e) {
    for (std::size_t j = b; j < e; ++j)
      for (std::size_t t = 0; t < k; ++t) split(times_pow2(B[t * n + j], eb[j]), fi, max_words, &Bw[j * k + t], n * k);
  });

  // Products P_ij (i + j < max_words) of every entry, then the sums for each p.
  std::vector<std::vector<double>> out(words, std::vector<double>(m * n));
  parallel_ranges(o.threads, m * n, 1, [&](std::size_t b, std::size_t e) {
    double P[3][3] = {};
    for (std::size_t idx = b; idx < e; ++idx) {
      const std::size_t r = idx / n, c = idx % n;
      for (int i = 0; i < max_words; ++i)
        for (int j = 0; i + j < max_words; ++j) {
          const double* a = &Aw[static_cast<std::size_t>(i) * m * k + r * k];
          const double* bb = &Bw[static_cast<std::size_t>(j) * n * k + c * k];
          double s = 0;
          for (std::size_t t = 0; t < k; ++t) s = model1_round(s + model1_round(a[t] * bb[t], fa), fa);
          P[i][j] = s;
        }
      for (int p = 1; p <= max_words; ++p) {
        double d = 0;
        for (int level = p - 1; level >= 0; --level)  // smallest u^(i+j) first, then i descending
          for (int i = level; i >= 0; --i)
            d = model1_round(d + model1_round(times_pow2(P[i][level - i], -fi.precision * level), fa), fa);
        out[static_cast<std::size_t>(p - 1)][idx] = times_pow2(d, -(ea[r] + eb[c]));
      }
    }
  });
  return out;
}

std::vector<double> model1_gemm(const Format& in, const Format& acc, std::size_t m, std::size_t n, std::size_t k,
                                std::span<const double> A, std::span<const double> B, const Model1Options& o) {
  if (o.words < 1 || o.words > 3) model1_fail("words: Model 1 takes 1, 2 or 3 words, got " + std::to_string(o.words));
  return std::move(model1_gemm_words(in, acc, m, n, k, A, B, o.words, o).back());
}

}  // namespace tcsim::models
