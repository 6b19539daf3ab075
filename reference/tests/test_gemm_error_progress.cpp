// gemm_errors' progress hook (issue 22): called once per checked row with (rows done, rows to
// check), from any thread, ending at (rows, rows); the errors do not depend on it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <mutex>
#include <vector>

#include "tcsim/reference/gemm_error.hpp"

using namespace tcsim::reference;

TEST_CASE("gemm_error: the progress hook counts every checked row", "[gemm_error][progress]") {
  const std::size_t m = 40, n = 3, k = 5;
  std::vector<double> A(m * k), B(k * n), D(m * n);
  for (std::size_t i = 0; i < A.size(); ++i) A[i] = static_cast<double>(i % 7) - 3;
  for (std::size_t i = 0; i < B.size(); ++i) B[i] = static_cast<double>(i % 5) * 0.25;
  for (std::size_t i = 0; i < D.size(); ++i) D[i] = static_cast<double>(i % 3);
  const std::vector<std::size_t> rows = sample_rows(m, 9);
  for (unsigned threads : {1u, 0u}) {
    std::mutex mutex;
    std::vector<std::size_t> seen;
    std::size_t totals_wrong = 0;
    const GemmErrors with = gemm_errors(m, n, k, A, B, {}, D, rows, threads, [&](std::size_t done, std::size_t total) {
      const std::lock_guard lock(mutex);
      seen.push_back(done);
      totals_wrong += total != rows.size();
    });
    const GemmErrors without = gemm_errors(m, n, k, A, B, {}, D, rows, threads);
    std::sort(seen.begin(), seen.end());
    std::vector<std::size_t> want(rows.size());
    for (std::size_t i = 0; i < want.size(); ++i) want[i] = i + 1;
    INFO("threads " << threads);
    CHECK(seen == want);
    CHECK(totals_wrong == 0);
    CHECK(with.componentwise == without.componentwise);
    CHECK(with.normwise == without.normwise);
    CHECK(with.rows_checked == 9);
  }
}
