// Errors of a computed GEMM against the exact one, and the bound each variant has in the
// seed papers. The exact D = C + A B is computed with MPFR (exact dot products: every product
// and partial sum held exactly, one rounding at the end to binary64 for the error's
// numerator), so it is right for any k.
//
//   componentwise = max_ij |D^ - D|_ij / (|C| + |A||B|)_ij   (0/0 counts as 0, x/0 as +inf)
//   normwise      = ||D^ - D||_inf / (||C||_inf + ||A||_inf ||B||_inf)
//
// These are the measures blanchard2020 section 3.3 (Figs 3.1, 3.2) and mary2024 section 5 plot.
#pragma once
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace tcsim::reference {

struct GemmErrors {
  double componentwise = 0;
  double normwise = 0;
  std::size_t rows_checked = 0;  // rows of D compared with the exact product
  bool sampled = false;          // rows_checked < m: the maxima are over those rows only
};

// A (m x k), B (k x n), C (m x n, or empty for C = 0) and the computed D^ (m x n):
// row-major binary64. `rows`: the rows to check (empty: all). Norms ||A||_inf, ||B||_inf and
// ||C||_inf are always over the whole matrices. Threads (TBB, 0 = all cores) split rows; the
// result is the same for any count. `progress` (progress bars) is called with (rows done,
// rows to check) after each row, from any of the threads (the callee must be thread-safe).
GemmErrors gemm_errors(std::size_t m, std::size_t n, std::size_t k, std::span<const double> A,
                       std::span<const double> B, std::span<const double> C, std::span<const double> D_hat,
                       std::span<const std::size_t> rows = {}, unsigned threads = 0,
                       const std::function<void(std::size_t done, std::size_t total)>& progress = {});

// The two maxima gemm_errors divides, for callers that hold only some rows of A, C and D^
// (tcsim::dist spreads the checked rows over MPI ranks): the largest componentwise ratio and
// the largest row sum of |D^ - D| over `rows` (empty: all), without the whole matrices' norms.
// A is rows x k here (m = its row count), B the whole k x n. The maxima of several calls are
// their std::max, in any order.
struct GemmErrorMaxima {
  double componentwise = 0;
  double row_abs_sum = 0;
};
GemmErrorMaxima gemm_error_maxima(std::size_t m, std::size_t n, std::size_t k, std::span<const double> A,
                                  std::span<const double> B, std::span<const double> C,
                                  std::span<const double> D_hat, std::span<const std::size_t> rows = {},
                                  unsigned threads = 0,
                                  const std::function<void(std::size_t done, std::size_t total)>& progress = {});
// gemm_errors' normwise error from the largest row sum and the whole matrices.
double gemm_normwise(double row_abs_sum, std::size_t m, std::size_t n, std::size_t k, std::span<const double> A,
                     std::span<const double> B, std::span<const double> C);

// `count` rows of m spread evenly (first and last included), for sampled checks of large m.
std::vector<std::size_t> sample_rows(std::size_t m, std::size_t count);

// A bound with where it comes from.
struct GemmBound {
  double componentwise = 0;  // constant c with |D^ - D| <= c (|C| + |A||B|); +inf: no bound
  std::string source;        // "blanchard2020 Thm 3.2 eq. (3.6), Table 3.3", ...
};

// What the bound depends on, in the papers' terms.
struct GemmBoundQuery {
  std::string variant = "tc32";  // fp16 | tc16 | tc32 | fp32 | unit (C, D in the output format)
  double k = 0;                  // inner dimension n of the papers
  double b = 4;                  // block FMA size of the unit
  double u_low = 0x1p-11;        // unit roundoff of the input format
  double u_high = 0x1p-24;       // unit roundoff of binary32 (of the output format for "unit")
  bool inputs_exact = false;     // A, B representable in the input format (Thm 3.1) or not (Thm 3.2)
  int words = 1;                 // multiword p (mary2021 / mary2024 Thm 4.1)
  bool all_word_products = false;
  int fabsum_block = 0;          // FABsum b (mary2021)
  double u_combine = 0x1p-24;    // FABsum's combining precision
  // The unit's own block-FMA roundoffs (models::block_fma_roundoff) for tc16/tc32/unit; 0:
  // blanchard2020's IEEE model with u_fma = u_bar = the accumulation format's unit roundoff.
  // Given, eq. (3.5) is evaluated with both errors present (u~_fma = u_fma: the internal sum
  // is not a number of the output format, so its final rounding is never free).
  double u_fma = 0;
  double u_bar = 0;
  std::string roundoff_how;      // where u_fma and u_bar come from (quoted in the source)
};
GemmBound gemm_bound(const GemmBoundQuery& q);

}  // namespace tcsim::reference
