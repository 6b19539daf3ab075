// Distributed GEMM D = C + A B (docs/scale.md) on a P x Q grid of MPI ranks, bit for bit
// models::simulate_gemm on one process for every grid and thread count.
//
// Layout: D and C in blocks, rows of D cut into P nearly equal ranges (the first ones one row
// longer), columns into Q. Rank r sits at grid row r / Q, column r % Q and owns the block of
// its row range and column range. Every entry of D depends only on its row of A, its column of
// B and its entry of C (the k order of the chain, split-K and FABsum slices, the scaling of
// the row and the column included), so the rank gets A's whole row panel (rows of its range,
// all of k) and B's whole column panel and runs the unit GEMM on them: the same chains, in
// the same order, as one process. Panels move by collectives: rank 0 scatters A's row panels
// down the first grid column and B's column panels along the first grid row, then each is
// broadcast along its grid row / column (SUMMA's panel broadcasts with the whole k at once).
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tcsim/models/gemm.hpp"
#include "tcsim/reference/gemm_error.hpp"

namespace tcsim::dist {

struct Grid {
  int rows = 1;  // P
  int cols = 1;  // Q
};

// P x Q = ranks with P and Q as close as possible, the longer side along D's longer side
// (P >= Q when m >= n).
Grid choose_grid(int ranks, std::size_t m, std::size_t n);

// Part `index` of `parts` nearly equal consecutive ranges of 0 .. n-1.
struct Range {
  std::size_t begin = 0, size = 0;
};
Range block_range(std::size_t n, int parts, int index);

// The payload bytes one rank moved in gemm and gemm_errors (matrices, panels, blocks, the
// error maxima and the "C given" flag): received, exactly (the same for any algorithm MPI
// picks for a collective); sent, as if each collective's root sent every other rank its part
// itself (a tree broadcast spreads the same total over more senders). Added to, not reset.
struct GemmTraffic {
  std::uint64_t sent = 0, received = 0;
};

// D = C + A B with A (m x k), B (k x n), C (m x n or empty) significant on rank 0 only (the
// other ranks pass empty spans). grid.rows * grid.cols must be comm's size. Returns on rank 0
// the whole result (D, bits and the run's description), on the other ranks m, n, k only.
// An error on any rank (e.g. an option the unit cannot run) is thrown on every rank
// (collectively, session.hpp).
models::GemmResult gemm(MPI_Comm comm, Grid grid, const models::Unit& unit, const Format& in, const Format& out,
                        std::size_t m, std::size_t n, std::size_t k, std::span<const double> A,
                        std::span<const double> B, std::span<const double> C, const models::GemmOptions& options,
                        GemmTraffic* traffic = nullptr);

// reference::gemm_errors over `rows` of D (the same list on every rank) with A, B, C and D^
// significant on rank 0 only: the rows are cut into comm's size consecutive parts, each rank
// gets its rows of A, C and D^ and the whole B, computes their MPFR maxima, and rank 0 folds
// them: the same numbers as one process. Returns the errors on rank 0 (zeros elsewhere).
reference::GemmErrors gemm_errors(MPI_Comm comm, std::size_t m, std::size_t n, std::size_t k,
                                  std::span<const double> A, std::span<const double> B, std::span<const double> C,
                                  std::span<const double> D_hat, std::span<const std::size_t> rows, unsigned threads,
                                  GemmTraffic* traffic = nullptr);

}  // namespace tcsim::dist
