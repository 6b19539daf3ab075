// The fma-chain rows' GEMM (unit_gemm_fma.hpp): B packed once into strips of columns (sim
// fma_lanes.hpp), then tasks of 16 rows x 256 columns, each decoding its rows of A and running
// their chains in the lanes with the accumulators (c, then every step's result) kept as values.
#include "unit_gemm_fma.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <memory>
#include <type_traits>
#include <vector>

#include "gemm_tasks.hpp"
#include "tcsim/sim/fma_lanes.hpp"

namespace tcsim::models::detail {

namespace {

constexpr std::size_t kTaskRows = 16, kTaskColumns = 256;

template <class T>
void gemm_chains(std::size_t k, std::size_t m, std::size_t n, std::size_t K, const std::uint64_t* A,
                 const std::uint64_t* B, const std::uint64_t* C, std::uint64_t* D, std::uint64_t nan,
                 unsigned threads) {
  using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  auto value = [](std::uint64_t bits) { return std::bit_cast<T>(static_cast<U>(bits)); };
  constexpr std::size_t W = fma_lanes::kStrip<T>, kTaskStrips = kTaskColumns / W;
  const std::size_t padding = K == 0 ? k : (k - K % k) % k;
  const std::size_t S = fma_lanes::strips<T>(n);
  // B packed once (uninitialized: every entry is written before it is read); each task decodes
  // its 16 rows of A (K values each) into a buffer of its thread: O(m K n / 256) decodes in all.
  const std::unique_ptr<T[]> Bp(new T[std::max<std::size_t>(S * K * W, 1)]);
  fma_lanes::pack_b(K, n, B, n, Bp.get());
  const std::size_t row_blocks = (m + kTaskRows - 1) / kTaskRows, strip_blocks = (S + kTaskStrips - 1) / kTaskStrips;
  auto task = [&](std::size_t ib, std::size_t sb) {
    const fma_lanes::DefaultFloatEnvironment env;  // the padding's fma as std::fma in the default environment
    const std::size_t i0 = ib * kTaskRows, rows = std::min(m, i0 + kTaskRows) - i0;
    const std::size_t s0 = sb * kTaskStrips, s1 = std::min(S, s0 + kTaskStrips), width = (s1 - s0) * W;
    const std::size_t j0 = s0 * W, valid = std::min(n, j0 + width) - j0;
    thread_local std::vector<T> acc, av;
    acc.resize(kTaskRows * kTaskColumns);
    av.resize(rows * K);
    for (std::size_t x = 0; x < rows * K; ++x) av[x] = value(A[i0 * K + x]);
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t j = 0; j < valid; ++j) acc[r * width + j] = value(C[(i0 + r) * n + j0 + j]);
      std::fill(acc.begin() + static_cast<std::ptrdiff_t>(r * width + valid),
                acc.begin() + static_cast<std::ptrdiff_t>((r + 1) * width), T(0));
    }
    fma_lanes::chain(rows, K, av.data(), K, Bp.get(), s0, s1, acc.data(), width);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t j = 0; j < valid; ++j) {
        T x = acc[r * width + j];
        for (std::size_t p = 0; p < padding; ++p) x = std::fma(T(0), T(0), x);  // +0 products (the sign of a zero)
        D[(i0 + r) * n + j0 + j] = std::isnan(x) ? nan : static_cast<std::uint64_t>(std::bit_cast<U>(x));
      }
  };
  detail::run_tasks(threads, row_blocks, strip_blocks, task);  // as Unit::gemm's tasks (gemm_tasks.hpp)
}

}  // namespace

void gemm_fma_chain(bool binary32, std::size_t k, std::size_t m, std::size_t n, std::size_t K,
                    const std::uint64_t* A, const std::uint64_t* B, const std::uint64_t* C, std::uint64_t* D,
                    std::uint64_t nan, unsigned threads) {
  if (m == 0 || n == 0) return;
  if (binary32) gemm_chains<float>(k, m, n, K, A, B, C, D, nan, threads);
  else gemm_chains<double>(k, m, n, K, A, B, C, D, nan, threads);
}

}  // namespace tcsim::models::detail
