// The GEMM of `tcsim gemm` and its exact errors, on one process or, under mpirun / srun with
// a TCSIM_MPI build, distributed over the job's ranks (tcsim::dist, docs/scale.md): the same
// bits and numbers either way.
#pragma once
#include <cstddef>
#include <functional>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "tcsim/models/gemm.hpp"
#include "tcsim/reference/gemm_error.hpp"

namespace tcsim::cli {

struct GemmRun {
  models::GemmResult r;        // the whole result (on rank 0 under MPI)
  reference::GemmErrors err;   // against the exact product (MPFR)
  double seconds = 0;          // wall time of the simulation (communication included)
  bool report = true;          // false on ranks other than 0: rank 0 prints and writes
  // Under mpirun (rank 0): {"ranks", "grid": "PxQ", "bytes_sent_per_rank", "bytes_received_per_rank"}
  // (dist::GemmTraffic, GEMM and exact errors together); null alone.
  nlohmann::json mpi;
  // Under mpirun (rank 0): {"bytes_per_rank": the model's estimate (dist::gemm_memory_model),
  // "peak_bytes_per_rank": each rank's measured peak (VmHWM) after the GEMM and its check}.
  nlohmann::json memory;
};

// Checks up front that the run fits (require_memory_per_rank, memory_need.hpp): alone, the
// single process's measured 40 bytes per entry of A, B, C and 400 per k; under mpirun,
// dist::gemm_memory_model per rank on the grid `grid` would give ("" automatic), with
// `check_rows` as run_gemm takes it. `option` names the sizes.
void check_gemm_memory(std::size_t m, std::size_t n, std::size_t k, long long check_rows, const std::string& grid,
                       const std::string& option);

// `grid`: "" (automatic) or "PxQ" (--grid; P Q must be the number of ranks, 1 alone).
// `check_rows` and `check_progress` as checked_gemm_errors (gemm_report.hpp); the simulation
// reports through o.progress.
GemmRun run_gemm(const models::Unit& unit, const Format& in, const Format& out, std::size_t m, std::size_t n,
                 std::size_t k, std::span<const double> A, std::span<const double> B, std::span<const double> C,
                 const models::GemmOptions& o, const std::string& grid, long long check_rows,
                 const std::function<void(std::size_t, std::size_t)>& check_progress);

}  // namespace tcsim::cli
