// Distributed LU (lu.hpp): the entry point; the engine is lu_engine.hpp (rl, ref-rl, ll,
// ll-fp32-panel, ref-ll) and lu_dp.cpp (dp). Compiled with -ffp-contract=off, as models' LU
// sources: no fused operations, so every scalar step rounds as the serial code's does.
#include "tcsim/dist/lu.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "lu_engine.hpp"

namespace tcsim::dist {

using namespace lu_parts;

Grid choose_lu_grid(int ranks) { return choose_grid(ranks, 1, 1); }

double lu_bytes_model(std::size_t n, Grid grid, int rank, bool scattered) {
  const double N = static_cast<double>(n), P = grid.rows, Q = grid.cols;
  const double io = rank == 0 ? 8 * N * N * (1 - 1 / (P * Q)) : scattered ? 8 * N * N / (P * Q) : 0;
  return io + 4 * N * N * ((1 - 1 / Q) / P + (1 - 1 / P) / Q);
}

models::LuResult lu(MPI_Comm comm, Grid grid, const models::Unit& unit, const Format& in, std::size_t n,
                    std::span<const double> A, const models::LuOptions& o, LuTraffic* traffic, bool a_on_every_rank) {
  const int rank = rank_of(comm), size = size_of(comm);
  if (grid.rows < 1 || grid.cols < 1 || grid.rows * grid.cols != size)
    throw std::invalid_argument("the process grid " + std::to_string(grid.rows) + "x" + std::to_string(grid.cols) +
                                " has " + std::to_string(grid.rows * grid.cols) + " processes; the job has " +
                                std::to_string(size));
  if (n * n > static_cast<std::size_t>(INT_MAX))
    throw std::invalid_argument("A has " + std::to_string(n * n) +
                                " entries; the distributed LU moves matrices of at most 2^31 - 1 entries");
  models::LuResult res;
  agreed(comm, [&] {
    if ((rank == 0 || a_on_every_rank) && A.size() != n * n)
      throw std::invalid_argument("A: expected n * n = " + std::to_string(n * n) + " values, got " +
                                  std::to_string(A.size()));
    res = models::describe_lu(unit, in, n, o);  // the option checks, on every rank
  });
  res.perm.resize(n);
  std::iota(res.perm.begin(), res.perm.end(), std::size_t{0});
  if (n == 0) return res;
  Engine engine(comm, grid, unit, in, n, o, res);
  const auto wall0 = std::chrono::steady_clock::now();
  const std::clock_t cpu0 = std::clock();
  engine.run(A, a_on_every_rank);
  if (traffic) {
    const std::size_t ranks = rank == 0 ? static_cast<std::size_t>(size) : 0;
    traffic->bytes_received.assign(ranks, 0.0);
    MPI_Gather(&engine.received_, 1, MPI_DOUBLE, traffic->bytes_received.data(), 1, MPI_DOUBLE, 0, comm);
    // Per rank: the phases' seconds, then the total and the CPU time.
    std::vector<double> mine(engine.clock_.seconds, engine.clock_.seconds + kPhaseCount);
    mine.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count());
    mine.push_back(static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC);
    std::vector<double> all(ranks * mine.size());
    MPI_Gather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), static_cast<int>(mine.size()),
               MPI_DOUBLE, 0, comm);
    if (rank == 0) {
      traffic->phase_names.assign(kPhaseNames, kPhaseNames + kPhaseCount);
      traffic->phase_is_mpi.assign(kPhaseIsMpi, kPhaseIsMpi + kPhaseCount);
      for (std::size_t q = 0; q < ranks; ++q) {
        const double* r = &all[q * mine.size()];
        traffic->phase_seconds.emplace_back(r, r + kPhaseCount);
        traffic->total_seconds.push_back(r[kPhaseCount]);
        traffic->cpu_seconds.push_back(r[kPhaseCount + 1]);
      }
    }
  }
  return res;
}

}  // namespace tcsim::dist
