// Private parts of the distributed LU (lu.cpp): the serial code's texts and rounded axpy,
// the agreement on a pass's first Inf / NaN, the block-cyclic index maps and the grid's
// communicators. Included by lu.cpp only, which is compiled with -ffp-contract=off.
#pragma once
#include <mpi.h>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "lu_steps.hpp"  // models' private Precision and LU steps: the same code as the serial LU
#include "tcsim/dist/session.hpp"
#include "tcsim/models/lu.hpp"

namespace tcsim::dist::lu_parts {

using models::LuBreakdown;
using models::LuEvent;
using models::lu_detail::Precision;

inline int rank_of(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}
inline int size_of(MPI_Comm comm) {
  int s = 1;
  MPI_Comm_size(comm, &s);
  return s;
}

// Where one rank's factorization spends its wall time (--json "phases_per_rank",
// docs/scale.md): every moment belongs to exactly one phase; a Scope switches to its phase
// and back, so nested scopes (an agreement inside an update) split the time, never count it
// twice. The MPI phases include the time a rank waits there for the others.
enum Phase : int {
  kOther, kScatter, kPanel, kPivot, kPanelBcast, kSolveU, kDiagonalBcast, kLuBcast, kUpdate, kConvert, kGathers,
  kAgreement, kGatherFactors, kPhaseCount
};
inline constexpr const char* kPhaseNames[kPhaseCount] = {
    "other",     "scatter",      "panel",   "pivot_search", "panel_broadcast", "solve_u",        "diagonal_broadcast",
    "lu_broadcast", "update",    "convert", "gathers",      "agreement",       "gather_factors"};
inline constexpr bool kPhaseIsMpi[kPhaseCount] = {false, true,  false, true, true,  false, true,
                                                  true,  false, false, true, true,  true};
class PhaseClock {
 public:
  double seconds[kPhaseCount] = {};
  Phase current = kOther;
  void enter(Phase p) {
    const auto now = std::chrono::steady_clock::now();
    seconds[current] += std::chrono::duration<double>(now - since_).count();
    since_ = now, current = p;
  }
  void start() { since_ = std::chrono::steady_clock::now(), current = kOther; }

 private:
  std::chrono::steady_clock::time_point since_ = std::chrono::steady_clock::now();
};
inline PhaseClock* active_clock = nullptr;  // the running Engine's (one LU per process at a time)
class Scope {
 public:
  explicit Scope(Phase p) : prev_(active_clock ? active_clock->current : kOther) {
    if (active_clock) active_clock->enter(p);
  }
  ~Scope() {
    if (active_clock) active_clock->enter(prev_);
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  Phase prev_;
};

// The serial code's texts and rounded axpy (models/src/lu_impl.hpp).
using models::lu_detail::at;
using models::lu_detail::axpy_rounded;
using models::lu_detail::number;

// Runs f() on every rank; a LuBreakdown or another exception on some rank is thrown on every
// rank with the lowest such rank's message and its type (collectively keeps only the text).
template <class F>
void agreed(MPI_Comm comm, F&& f) {
  std::string failure;
  bool failed = false;
  try {
    f();
  } catch (const LuBreakdown& e) {
    failure = std::string("B") + e.what(), failed = true;
  } catch (const std::exception& e) {
    failure = std::string("E") + e.what(), failed = true;
  }
  try {
    const Scope s(kAgreement);
    agree_on_failure(comm, failed ? &failure : nullptr);
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    if (!m.empty() && m[0] == 'B') throw LuBreakdown(m.substr(1));
    throw std::invalid_argument(m.substr(1));
  }
}

// The first non-finite value of a pass in the serial loop order (models/src/lu_steps.hpp):
// each rank notes its own entries' firsts, and the merge of all ranks' is the serial pass's.
using models::lu_detail::Failure;
using models::lu_detail::Firsts;

// One rank's view of a pass: its firsts and, on the rank holding it, the pivot.
struct PassReport {
  Firsts firsts;
  double pivot = 0;
  int has_pivot = 0;
};

// Every rank's reports of `mine.size()` passes, merged pass by pass identically on every rank.
inline std::vector<PassReport> agree(MPI_Comm comm, const std::vector<PassReport>& mine, double& received) {
  const std::size_t size = static_cast<std::size_t>(size_of(comm)), count = mine.size();
  std::vector<PassReport> all(size * count);
  const int bytes = static_cast<int>(count * sizeof(PassReport));
  const Scope s(kAgreement);
  MPI_Allgather(mine.data(), bytes, MPI_BYTE, all.data(), bytes, MPI_BYTE, comm);
  received += static_cast<double>(bytes) * static_cast<double>(size - 1);
  std::vector<PassReport> r(count);
  for (std::size_t rank = 0; rank < size; ++rank)
    for (std::size_t t = 0; t < count; ++t) {
      const PassReport& o = all[rank * count + t];
      r[t].firsts.merge(o.firsts);
      if (o.has_pivot) r[t].pivot = o.pivot, r[t].has_pivot = 1;
    }
  return r;
}

// One dimension of the block-cyclic layout: global index i lives in part (i / r) mod parts.
struct Cyclic {
  std::size_t n = 0, r = 1;
  std::size_t parts = 1, me = 0;
  std::size_t owner(std::size_t i) const { return (i / r) % parts; }
  std::size_t local(std::size_t i) const { return (i / (r * parts)) * r + i % r; }
  std::size_t global(std::size_t l, std::size_t p) const { return (l / r) * r * parts + p * r + l % r; }
  std::size_t global(std::size_t l) const { return global(l, me); }
  // Entries of part p.
  std::size_t count(std::size_t p) const {
    const std::size_t blocks = (n + r - 1) / r;
    if (p >= blocks) return 0;
    const std::size_t mine = (blocks - 1 - p) / parts + 1;
    const std::size_t last = n - (blocks - 1) * r;
    return mine * r - (owner(n - 1) == p ? r - last : 0);
  }
  // Local entries (of this part) with a global index below i.
  std::size_t below(std::size_t i) const {
    if (i >= n) return count(me);
    const std::size_t b = i / r;
    const std::size_t blocks_before = b > me ? (b - me - 1) / parts + 1 : 0;
    return blocks_before * r + (b % parts == me ? i % r : 0);
  }
};

// The grid's row and column communicators.
struct GridComms {
  MPI_Comm row = MPI_COMM_NULL, col = MPI_COMM_NULL;
  GridComms(MPI_Comm comm, int p, int q) {
    MPI_Comm_split(comm, p, q, &row);  // rank q in it
    MPI_Comm_split(comm, q, p, &col);  // rank p in it
  }
  ~GridComms() {
    MPI_Comm_free(&row);
    MPI_Comm_free(&col);
  }
  GridComms(const GridComms&) = delete;
  GridComms& operator=(const GridComms&) = delete;
};

}  // namespace tcsim::dist::lu_parts
