// Memory per rank of the distributed GEMM and LU (docs/scale.md "Memory per rank"): the
// models' estimates, which tcsim checks up front against each node's memory, and the peak
// each rank measured (VmHWM), which `--json` reports beside them.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <vector>

#include "tcsim/dist/gemm.hpp"
#include "tcsim/models/lu.hpp"

namespace tcsim::dist {

// Bytes rank `rank` of `grid` needs for `tcsim gemm` (m x n x k, `check_rows` rows checked
// against MPFR): its panels of A and B, its block of C and D through the unit GEMM at the
// single process's measured 40 bytes per entry, plus 400 per k (exact sums); for the check,
// the whole of B and its share of the rows. Rank 0 also holds the whole problem and result,
// as one process does (40 bytes per entry of A, B and C).
double gemm_memory_model(std::size_t m, std::size_t n, std::size_t k, std::size_t check_rows, Grid grid, int rank);

// Bytes rank `rank` of `grid` needs for `tcsim lu` of order n with `o` (block size o.block):
// its block-cyclic share (the blocks and their original values, 16 bytes per entry) and one
// step's update through the unit GEMM at 40 bytes per entry of its operands (rl: the r-wide
// L block column and U block row; the left-looking algorithms and dp gather L's rows and U's
// columns over all of k: n (rows + columns) entries). Rank 0 also holds what one process
// holds (the matrix, its generator's temporaries, the gathered factors, the substitutions:
// the single process's measured 44 n^2 bytes).
double lu_memory_model(std::size_t n, const models::LuOptions& o, Grid grid, int rank);

// This process's peak resident memory in bytes (VmHWM of /proc/self/status; 0 if unknown).
double peak_resident_bytes();

// Every rank's peak_resident_bytes(), on rank 0 in rank order (empty elsewhere).
std::vector<double> gather_peak_resident_bytes(MPI_Comm comm);

}  // namespace tcsim::dist
