// bench_gemm_distributed (bench_gemm_mpi.hpp).
#include "bench_gemm_mpi.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include "tcsim/models/gemm.hpp"
#include "tcsim/sim/codec.hpp"

#ifdef TCSIM_HAVE_MPI
#include "tcsim/dist/gemm.hpp"
#include "tcsim/dist/session.hpp"
#endif

namespace tcsim::cli {

nlohmann::json bench_gemm_distributed([[maybe_unused]] const models::Unit& unit, [[maybe_unused]] const Format& in,
                                      [[maybe_unused]] const Format& out, [[maybe_unused]] std::size_t n,
                                      [[maybe_unused]] const std::vector<std::uint64_t>& A,
                                      [[maybe_unused]] const std::vector<std::uint64_t>& B,
                                      [[maybe_unused]] const std::vector<std::uint64_t>& C,
                                      [[maybe_unused]] const std::string& instruction, [[maybe_unused]] unsigned threads,
                                      [[maybe_unused]] int runs) {
#ifdef TCSIM_HAVE_MPI
  if (!dist::active()) return nullptr;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // The values of the patterns: the distributed GEMM takes values, exact in their formats.
  auto values = [](const Format& f, const std::vector<std::uint64_t>& v) {
    std::vector<double> r(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) r[i] = to_double(decode(f, v[i]));
    return r;
  };
  std::vector<double> Av, Bv, Cv;
  if (rank == 0) Av = values(in, A), Bv = values(in, B), Cv = values(out, C);
  models::GemmOptions o;
  o.instruction = instruction;
  o.threads = threads;
  o.variant = models::GemmVariant::Unit;
  auto seconds_since = [](std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  double one = 1e300, many = 1e300;
  models::GemmResult alone, spread;
  // A barrier that sleeps while it waits: Open MPI's MPI_Barrier spins, and a spinning rank
  // would take a core from rank 0's one-rank run on a machine with fewer free cores than ranks.
  auto quiet_barrier = [] {
    MPI_Request request;
    MPI_Ibarrier(MPI_COMM_WORLD, &request);
    for (int done = 0; MPI_Test(&request, &done, MPI_STATUS_IGNORE), !done;)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  };
  for (int r = 0; r < runs; ++r) {  // rank 0 alone; the others wait (asleep) at the barrier
    if (rank == 0) {
      const auto t0 = std::chrono::steady_clock::now();
      alone = models::simulate_gemm(unit, in, out, n, n, n, Av, Bv, Cv, o);
      one = std::min(one, seconds_since(t0));
    }
    quiet_barrier();
  }
  const dist::Grid grid = dist::choose_grid(size, n, n);
  dist::GemmTraffic traffic;
  for (int r = 0; r < runs; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = std::chrono::steady_clock::now();
    dist::GemmTraffic t;
    spread = dist::gemm(MPI_COMM_WORLD, grid, unit, in, out, n, n, n, Av, Bv, Cv, o, &t);
    MPI_Barrier(MPI_COMM_WORLD);  // the time of the slowest rank
    many = std::min(many, seconds_since(t0));
    traffic = t;  // the same every run
  }
  const std::uint64_t mine[2] = {traffic.sent, traffic.received};
  std::vector<std::uint64_t> all(2 * static_cast<std::size_t>(size));
  MPI_Gather(mine, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rank != 0) return {{"rank", rank}};
  nlohmann::json sent = nlohmann::json::array(), received = nlohmann::json::array();
  for (std::size_t r = 0; r < static_cast<std::size_t>(size); ++r) {
    sent.push_back(all[2 * r]);
    received.push_back(all[2 * r + 1]);
  }
  return {{"ranks", size},
          {"grid", std::to_string(grid.rows) + "x" + std::to_string(grid.cols)},
          {"sim_seconds_one_rank", one},
          {"sim_seconds_distributed", many},
          {"speedup", one / many},
          {"efficiency", one / (many * size)},
          {"d_equal", alone.bits == spread.bits},
          {"bytes_sent_per_rank", sent},
          {"bytes_received_per_rank", received}};
#else
  return nullptr;
#endif
}

}  // namespace tcsim::cli
