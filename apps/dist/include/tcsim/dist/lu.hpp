// Distributed LU factorization (docs/scale.md "Distributed LU"): models::simulate_lu on a
// P x Q grid of MPI ranks, bit for bit the single process for every grid.
//
// Layout: ScaLAPACK's 2D block-cyclic distribution with the algorithm's block size r: block
// (I, J) of r x r entries lives on grid row I mod P and grid column J mod Q (rank p Q + q).
// Step k of the right-looking algorithms (rl in every variant and storage, ref-rl): the
// block column k is factorized by its grid column (a distributed pivot search per column,
// MPI_MAXLOC with the serial tie rule: the first largest |entry|, a NaN on the diagonal kept;
// whole rows swapped between grid rows; the pivot row broadcast down the grid column), the
// diagonal block is broadcast along its grid row and U's block row solved there, then L's
// block column is broadcast along the grid rows and U's block row down the grid columns, and
// every rank updates its blocks of the trailing matrix through the unit GEMM
// (models::simulate_gemm). Each entry receives the same operations in the same order as on
// one process (the same k-chunks per step, the same roundings to storage); only the rank
// that does them changes. Breakdowns and --on-breakdown continue events are noted by the
// ranks that own the entries and agreed after each panel and each step (an allgather of each
// rank's first Inf and NaN in the serial loop order), so every rank throws the same
// LuBreakdown or records the same events, and none waits for another.
//
// The left-looking algorithms ll, ll-fp32-panel and ref-ll: per step the block column and
// then the block row receive all earlier steps' updates as one GEMM of depth k0 (one
// block-FMA chain per entry, lopez2022 Algorithm 4.1 lines 7-10), so the ranks owning them
// gather L's rows left of the panel along their grid row and U's columns above it down their
// grid column; the panel, its pivots and U's solve as above, with the fp16 / fp32 buffer
// conversions of the serial schemes. dp (PanelFactor's nested schemes) replays the serial
// schemes pass by pass with general passes (any ranges: L's rows and U's columns gathered
// with MPI_Allgatherv), each agreed on before the next.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "tcsim/dist/gemm.hpp"
#include "tcsim/models/lu.hpp"

namespace tcsim::dist {

// The default grid of an LU on `ranks` processes: as square as possible, P >= Q.
Grid choose_lu_grid(int ranks);

// The data a distributed LU moved: per rank, the payload bytes it received (the blocks of A
// scattered to it, the panels, pivot rows, diagonal blocks and U block rows broadcast to it,
// the rows swapped into it, the agreements' reports; on rank 0 the gathered factors). The
// same for any broadcast algorithm MPI picks; what each rank sends depends on it.
struct LuTraffic {
  std::vector<double> bytes_received;  // on rank 0: one entry per rank (empty elsewhere)
  // Where each rank's factorization spent its wall time (docs/scale.md "Where the time
  // goes"): phase_names[i] (lu_phase_names()) took phase_seconds[rank][i] seconds on that
  // rank; phase_is_mpi[i] says the phase is an MPI call, including the time the rank waits
  // there for the others. total_seconds: the rank's whole factorization (scatter to gather),
  // cpu_seconds: the CPU time its process used meanwhile (below total when the machine is
  // loaded). On rank 0: one entry per rank (empty elsewhere).
  std::vector<std::string> phase_names;
  std::vector<bool> phase_is_mpi;
  std::vector<std::vector<double>> phase_seconds;
  std::vector<double> total_seconds, cpu_seconds;
};

// The model of LuTraffic without pivoting (docs/scale.md): rank `rank` of `grid` receives its
// blocks of A (8 n^2 / (P Q) bytes; rank 0 instead the others' factors, 8 n^2 (1 - 1/(P Q))),
// and per step L's block column along its grid row and U's block row down its grid column
// when it is not their owner: about 4 n^2 ((1 - 1/Q) / P + (1 - 1/P) / Q) bytes in all.
// scattered = false: A was on every rank (lu's a_on_every_rank), no blocks of A are received.
double lu_bytes_model(std::size_t n, Grid grid, int rank, bool scattered = true);

// simulate_lu(unit, in, n, A, options) with A (n x n, row-major) significant on rank 0 only
// (other ranks may pass an empty span). grid.rows * grid.cols must be comm's size. Returns
// on rank 0 the whole result (LU, perm, events and the description), on the other ranks the
// description without LU. Every rank throws the same LuBreakdown or std::invalid_argument.
// options.progress is called on rank 0 only. a_on_every_rank: every rank passes the same whole
// A (tcsim bench lu generates it on each), so each takes its blocks and nothing is scattered.
models::LuResult lu(MPI_Comm comm, Grid grid, const models::Unit& unit, const Format& in, std::size_t n,
                    std::span<const double> A, const models::LuOptions& options, LuTraffic* traffic = nullptr,
                    bool a_on_every_rank = false);

}  // namespace tcsim::dist
