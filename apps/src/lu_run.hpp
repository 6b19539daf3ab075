// The factorization of `tcsim lu` on one process or, under mpirun / srun with a TCSIM_MPI
// build, distributed over the job's ranks (tcsim::dist::lu, docs/scale.md): the same bits
// either way. The substitutions, backward errors and refinement then run on rank 0.
#pragma once
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tcsim/models/lu.hpp"

#ifdef TCSIM_HAVE_MPI
#include "tcsim/dist/lu.hpp"
#endif

namespace tcsim::cli {

struct LuRun {
  models::LuResult lu;  // the whole result (on rank 0 under MPI)
  bool report = true;   // false on ranks other than 0: rank 0 prints and writes
  // Under mpirun (rank 0): {"bytes_per_rank": the model's estimate (dist::lu_memory_model),
  // "peak_bytes_per_rank": each rank's measured peak (VmHWM) after the factorization}; null alone.
  nlohmann::json memory;
  // Under mpirun (rank 0): lu_phases_json of the run; null alone.
  nlohmann::json phases;
};

#ifdef TCSIM_HAVE_MPI
// "phases_per_rank" of --json under mpirun (docs/scale.md "Where the time goes"): per rank
// {"total_seconds", "cpu_seconds", "mpi_seconds" (the MPI phases, waiting included),
// "mpi_fraction" (mpi_seconds / total_seconds), "seconds": {phase: seconds}}.
nlohmann::json lu_phases_json(const dist::LuTraffic& traffic);
#endif

// Checks up front that the run fits (require_memory_per_rank, memory_need.hpp): alone, the
// single process's measured 44 n^2 bytes; under mpirun, dist::lu_memory_model per rank on
// the grid `grid` would give ("" automatic). `option` names the size ("--n 4096").
void check_lu_memory(std::size_t n, const models::LuOptions& o, const std::string& grid, const std::string& option);

// `grid`: "" (automatic) or "PxQ" (--grid; P Q must be the number of ranks, 1 alone). Throws
// LuBreakdown on every rank as simulate_lu does on one.
LuRun run_lu(const models::Unit& unit, const Format& in, std::size_t n, std::span<const double> A,
             const models::LuOptions& o, const std::string& grid);

// --write-lu: the factors as n lines of n binary64 bit patterns (hex), then "perm" and the
// row permutation, for bit-for-bit comparisons (the MPI tests).
void write_lu(const std::string& path, const models::LuResult& lu);

}  // namespace tcsim::cli
