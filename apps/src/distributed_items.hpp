// Independent work items of the sweeps and campaigns (explore, monotonicity, bench verify,
// experiment), on one process or, under mpirun / srun with a TCSIM_MPI build, spread over the
// job's ranks by tcsim::dist (docs/scale.md): item i on rank i mod P, every result back on
// every rank in item order, so the command goes on identically everywhere and rank 0 alone
// prints and writes. An item's work (its seed included) depends on its index only.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace tcsim::cli {

// This process's rank in the job and the job's size (0 and 1 alone).
int job_rank();
int job_ranks();

// Runs item(i) for i < count, each returning its result as bytes (item_bytes.hpp); returns
// the count results in item order. `progress` (may be empty) is called after each item of
// this process with the items done in the job (under MPI: rank 0's share scaled by P).
std::vector<std::string> map_items(std::size_t count, const std::function<std::string(std::size_t)>& item,
                                   const std::function<void(std::size_t, std::size_t)>& progress = {});

// Runs part(rank, ranks) on every rank of the job (part(0, 1) alone); returns the results in
// rank order. For work that a command splits itself (e.g. among its threads as well).
std::vector<std::string> map_parts(const std::function<std::string(int part, int parts)>& part);

// Rank 0's `bytes` on every rank (alone: `bytes`).
std::string share_from_rank0(std::string bytes);

// Runs f on rank 0 only (e.g. preparing an output folder); an exception there is thrown on
// every rank, so that all exit together with rank 0's message.
void on_rank0(const std::function<void()>& f);

}  // namespace tcsim::cli
