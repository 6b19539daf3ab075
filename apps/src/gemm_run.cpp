// run_gemm (gemm_run.hpp): one process, or tcsim::dist when MPI is live.
#include "gemm_run.hpp"

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "gemm_report.hpp"
#include "grid_text.hpp"
#include "memory_need.hpp"

#ifdef TCSIM_HAVE_MPI
#include "tcsim/dist/gemm.hpp"
#include "tcsim/dist/memory.hpp"
#include "tcsim/dist/session.hpp"
#endif

namespace tcsim::cli {

namespace {

#ifdef TCSIM_HAVE_MPI
dist::Grid gemm_grid(const std::string& grid, int size, std::size_t m, std::size_t n) {
  const GridText g = parse_grid(grid, size);
  return g.rows ? dist::Grid{g.rows, g.cols} : dist::choose_grid(size, m, n);
}

std::vector<double> gemm_memory_per_rank(std::size_t m, std::size_t n, std::size_t k, long long check_rows,
                                         dist::Grid shape) {
  const std::size_t rows = check_rows <= 0 || static_cast<std::size_t>(check_rows) >= m ? m
                                                                                        : static_cast<std::size_t>(check_rows);
  std::vector<double> bytes;
  for (int r = 0; r < shape.rows * shape.cols; ++r) bytes.push_back(dist::gemm_memory_model(m, n, k, rows, shape, r));
  return bytes;
}
#endif

}  // namespace

void check_gemm_memory(std::size_t m, std::size_t n, std::size_t k, long long check_rows, const std::string& grid,
                       const std::string& option) {
#ifdef TCSIM_HAVE_MPI
  if (dist::active()) {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const dist::Grid shape = gemm_grid(grid, size, m, n);
    require_memory_per_rank(option, gemm_memory_per_rank(m, n, k, check_rows, shape),
                            std::to_string(shape.rows) + "x" + std::to_string(shape.cols));
    return;
  }
#endif
  (void)check_rows, (void)grid;
  // measured peak: ~40 bytes per entry of A, B, C (copies, patterns, errors) and ~400 per k (exact sums)
  const double md = static_cast<double>(m), nd = static_cast<double>(n), kd = static_cast<double>(k);
  require_memory(option, 40 * (md * kd + kd * nd + md * nd) + 400 * kd);
}

GemmRun run_gemm(const models::Unit& unit, const Format& in, const Format& out, std::size_t m, std::size_t n,
                 std::size_t k, std::span<const double> A, std::span<const double> B, std::span<const double> C,
                 const models::GemmOptions& o, const std::string& grid, long long check_rows,
                 const std::function<void(std::size_t, std::size_t)>& check_progress) {
  GemmRun run;
#ifdef TCSIM_HAVE_MPI
  if (dist::active()) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const dist::Grid shape = gemm_grid(grid, size, m, n);
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = std::chrono::steady_clock::now();
    dist::GemmTraffic traffic;
    run.r = dist::gemm(MPI_COMM_WORLD, shape, unit, in, out, m, n, k, A, B, C, o, &traffic);
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::vector<std::size_t> rows = check_rows <= 0 || static_cast<std::size_t>(check_rows) >= m
                                              ? reference::sample_rows(m, m)
                                              : reference::sample_rows(m, static_cast<std::size_t>(check_rows));
    run.err = dist::gemm_errors(MPI_COMM_WORLD, m, n, k, A, B, C, run.r.D, rows, o.threads, &traffic);
    run.report = rank == 0;
    const std::uint64_t mine[2] = {traffic.sent, traffic.received};
    std::vector<std::uint64_t> all(2 * static_cast<std::size_t>(size));
    MPI_Gather(mine, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    nlohmann::json sent = nlohmann::json::array(), received = nlohmann::json::array();
    for (int r = 0; r < size; ++r) {
      sent.push_back(all[2 * static_cast<std::size_t>(r)]);
      received.push_back(all[2 * static_cast<std::size_t>(r) + 1]);
    }
    run.mpi = {{"ranks", size},
               {"grid", std::to_string(shape.rows) + "x" + std::to_string(shape.cols)},
               {"bytes_sent_per_rank", sent},
               {"bytes_received_per_rank", received}};
    const std::vector<double> peaks = dist::gather_peak_resident_bytes(MPI_COMM_WORLD);
    if (run.report)
      run.memory = {{"bytes_per_rank", whole_bytes(gemm_memory_per_rank(m, n, k, check_rows, shape))},
                    {"peak_bytes_per_rank", whole_bytes(peaks)}};
    return run;
  }
#endif
  (void)parse_grid(grid, 1);
  const auto t0 = std::chrono::steady_clock::now();
  run.r = models::simulate_gemm(unit, in, out, m, n, k, A, B, C, o);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  run.err = checked_gemm_errors(m, n, k, A, B, C, run.r.D, check_rows, o.threads,
                                check_progress);
  return run;
}

}  // namespace tcsim::cli
