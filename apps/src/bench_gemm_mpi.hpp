// tcsim bench gemm under mpirun / srun (docs/scale.md): the simulated n x n GEMM distributed
// over the job's ranks (tcsim::dist::gemm) timed against the same GEMM on one rank, for the
// parallel efficiency that issue 23 asks for. Alone (or in a build without MPI): nothing.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tcsim/models/unit.hpp"

namespace tcsim::cli {

// Under mpirun: models::simulate_gemm of D = C + A B (bit patterns of in, in, out) on rank 0
// alone while the others wait, then dist::gemm over every rank, each the best of `runs`, with
// `threads` threads per rank. Returns on rank 0 {"ranks", "grid", "sim_seconds_one_rank",
// "sim_seconds_distributed", "speedup", "efficiency", "d_equal", "bytes_sent_per_rank",
// "bytes_received_per_rank"}, on the other ranks {"rank": r}; null alone.
nlohmann::json bench_gemm_distributed(const models::Unit& unit, const Format& in, const Format& out, std::size_t n,
                                      const std::vector<std::uint64_t>& A, const std::vector<std::uint64_t>& B,
                                      const std::vector<std::uint64_t>& C, const std::string& instruction,
                                      unsigned threads, int runs);

}  // namespace tcsim::cli
