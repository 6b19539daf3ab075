// The distributed LU's engine (lu.cpp, lu_dp.cpp): the block-cyclic matrix of one rank and
// the distributed passes of the serial algorithms. Private to tcsim::dist; compiled with
// -ffp-contract=off.
#pragma once
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gemm_impl.hpp"  // huge_vector (models/src)
#include "lu_parts.hpp"
#include "tcsim/dist/gemm.hpp"

namespace tcsim::dist::lu_parts {

class Engine {
  using Update = models::lu_detail::Update;  // how a block update is computed and stored

 public:
  Engine(MPI_Comm comm, Grid grid, const models::Unit& unit, const Format& in, std::size_t n,
         const models::LuOptions& o, models::LuResult& res)
      : comm_(comm), P_(grid.rows), Q_(grid.cols), rank_(rank_of(comm)), p_(rank_ / grid.cols),
        q_(rank_ % grid.cols), comms_(comm, p_, q_), unit_(unit), in_(in), n_(n), r_(o.block), o_(o), res_(res),
        S_(models::lu_detail::precision_named(res.storage, "storage")), arith_(S_),
        cont_(o.on_breakdown == models::LuOnBreakdown::Continue), unit_update_(o.algorithm == models::LuAlgorithm::Rl) {
    rows_ = {n, r_, static_cast<std::size_t>(P_), static_cast<std::size_t>(p_)};
    cols_ = {n, r_, static_cast<std::size_t>(Q_), static_cast<std::size_t>(q_)};
    lr_ = rows_.count(rows_.me);
    lc_ = cols_.count(cols_.me);
    variant_ = o.variant;
    using models::LuAlgorithm;
    left_ = o.algorithm == LuAlgorithm::Ll || o.algorithm == LuAlgorithm::LlFp32Panel || o.algorithm == LuAlgorithm::RefLl;
    if (o.algorithm == LuAlgorithm::Ll) round_in_ = true;  // lopez2022 Algorithm 4.1: the panel in fp16
    if (o.algorithm == LuAlgorithm::LlFp32Panel) round_out_ = true, arith_ = Precision{32};  // Algorithm 5.1
    if (left_ && o.algorithm != LuAlgorithm::RefLl) variant_ = models::GemmVariant::Tc32, unit_update_ = true;
    g_.instruction = o.instruction;
    g_.threads = o.threads;
  }

  // Scatters A from rank 0, rounds it to the storage format (step 0), factorizes, gathers.
  // everywhere: every rank holds the whole A (then each takes its blocks: no scatter).
  void run(std::span<const double> A, bool everywhere) {
    struct Active {  // this engine's clock times the scopes until run() ends
      explicit Active(PhaseClock& c) { active_clock = &c, c.start(); }
      ~Active() { active_clock->enter(kOther), active_clock = nullptr; }
    } active(clock_);
    scatter(A, everywhere);
    store_a();
    if (o_.algorithm == models::LuAlgorithm::Dp) {
      run_dp();
      gather();
      return;
    }
    if (left_) {
      run_left_looking();
      gather();
      return;
    }
    for (std::size_t k0 = 0, k = 0; k0 < n_; k0 += r_, ++k) {
      const std::size_t k1 = std::min(n_, k0 + r_);
      const int pr = static_cast<int>(k % static_cast<std::size_t>(P_)), pc = static_cast<int>(k % static_cast<std::size_t>(Q_));
      panel(k0, k1, pr, pc);
      if (k1 < n_) {
        std::vector<PassReport> mine(2);  // solve_u, then the update: one agreement for both
        if (k1 - k0 >= 2) solve_u(arith_, k0, k1, k1, n_, pr, pc, mine[0]);
        update(k0, k1, pr, pc, mine[1]);
        const std::vector<PassReport> all = agree(comm_, mine, received_);
        solve_u_outcome(all[0].firsts);
        update_outcome(k1, all[1].firsts, S_);
      }
      if (rank_ == 0 && o_.progress) o_.progress(static_cast<double>(k1) / static_cast<double>(n_));
    }
    gather();
  }

 private:
  double& a(std::size_t l, std::size_t c) { return a_[l * lc_ + c]; }

  void scatter(std::span<const double> A, bool everywhere) {
    const Scope phase(kScatter);
    const int size = P_ * Q_;
    std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
    for (int r = 0, at = 0; r < size; ++r) {
      counts[r] = static_cast<int>(rows_.count(static_cast<std::size_t>(r / Q_)) * cols_.count(static_cast<std::size_t>(r % Q_)));
      displs[r] = at;
      at += counts[r];
    }
    // Fresh buffers as transparent huge pages: first touches of 4 KiB pages cost more than
    // the copies (docs/scale.md, "Measured: sweeps and bench gemm").
    orig_ = models::gemm_detail::huge_vector<double>(lr_ * lc_);
    if (everywhere) {  // a local copy, not MPI: timed as "other"
      const Scope copy(kOther);
      const auto lo = static_cast<std::size_t>(displs[rank_]), hi = lo + orig_.size();
      for_each_run([&](std::size_t b, std::size_t g, std::size_t len) {
        if (b >= lo && b < hi) std::copy_n(&A[g], len, &orig_[b - lo]);
      }, displs);
      counts_ = std::move(counts);
      displs_ = std::move(displs);
      return;
    }
    std::vector<double> packed;
    if (rank_ == 0) {
      packed.resize(n_ * n_);
      for_each_run([&](std::size_t b, std::size_t g, std::size_t len) { std::copy_n(&A[g], len, &packed[b]); }, displs);
    }
    MPI_Scatterv(packed.data(), counts.data(), displs.data(), MPI_DOUBLE, orig_.data(), counts[rank_], MPI_DOUBLE, 0,
                 comm_);
    if (rank_ != 0) received_ += static_cast<double>(orig_.size() * sizeof(double));
    counts_ = std::move(counts);
    displs_ = std::move(displs);
  }

  // f(packed index, row-major global index, length) over every rank's block in rank order,
  // by runs of entries that are contiguous in both (the columns of one block of r): the
  // packing costs a copy, not an index computation per entry.
  template <class F>
  void for_each_run(F&& f, const std::vector<int>& displs) const {
    for (int r = 0; r < P_ * Q_; ++r) {
      const auto pr = static_cast<std::size_t>(r / Q_), pc = static_cast<std::size_t>(r % Q_);
      const std::size_t nr = rows_.count(pr), nc = cols_.count(pc);
      std::size_t b = static_cast<std::size_t>(displs[static_cast<std::size_t>(r)]);
      for (std::size_t l = 0; l < nr; ++l)
        for (std::size_t c = 0, len = 0; c < nc; c += len, b += len) {
          len = std::min(r_ - c % r_, nc - c);
          f(b, rows_.global(l, pr) * n_ + cols_.global(c, pc), len);
        }
    }
  }

  void gather() {
    const Scope phase(kGatherFactors);
    if (rank_ != 0) {
      MPI_Gatherv(a_.data(), counts_[static_cast<std::size_t>(rank_)], MPI_DOUBLE, nullptr, nullptr, nullptr, MPI_DOUBLE, 0,
                  comm_);
      return;
    }
    // Rank 0's own blocks (first in the packed order) stay in a_ (MPI_IN_PLACE).
    std::vector<double> packed = models::gemm_detail::huge_vector<double>(n_ * n_);  // rank 0's part unused
    MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DOUBLE, packed.data(), counts_.data(), displs_.data(), MPI_DOUBLE, 0, comm_);
    received_ += static_cast<double>((n_ * n_ - a_.size()) * sizeof(double));
    res_.LU = models::gemm_detail::huge_vector<double>(n_ * n_);
    for_each_run([&](std::size_t b, std::size_t g, std::size_t len) {
      std::copy_n(b < a_.size() ? &a_[b] : &packed[b], len, &res_.LU[g]);
    }, displs_);
  }

  // Step 0: A rounded to the storage format; a value it cannot hold stops the run (or is an
  // event with continue), the first in row-major order as one process meets it.
  void store_a() {
    const Scope phase(kConvert);
    a_ = models::gemm_detail::huge_vector<double>(lr_ * lc_);
    PassReport mine;
    for (std::size_t l = 0; l < lr_; ++l)
      for (std::size_t c = 0; c < lc_; ++c) {
        const double v = S_(orig_[l * lc_ + c]);
        a(l, c) = v;
        if (!std::isfinite(v)) mine.firsts.note({rows_.global(l), cols_.global(c), 0, orig_[l * lc_ + c], v});
      }
    orig_.clear();
    orig_.shrink_to_fit();
    const Firsts fs = agree(comm_, std::vector<PassReport>{mine}, received_)[0].firsts;
    if (!fs.found()) return;
    if (!cont_) {
      const Failure& f = fs.first();
      throw LuBreakdown(at(f.outer, f.inner) + " = " + number(f.value) +
                        (std::isfinite(f.value) ? " overflows the " : " is not finite in the ") + S_.name() + " storage");
    }
    const std::string where = "rounding A to the " + std::string(S_.name()) + " storage";
    auto put = [&](LuEvent& ev, const Failure& f) {
      if (f.found() && !ev.found) ev = {true, 0, 0, f.outer, f.inner, f.stored, where};
    };
    put(res_.events.overflow, fs.inf);
    put(res_.events.nan, fs.nan);
  }

  [[noreturn]] void breakdown(std::size_t step, const std::string& what) const {
    throw LuBreakdown(models::lu_detail::breakdown_message(step, r_, what));
  }
  void record(const Firsts& fs, std::size_t step, const std::string& where, bool inner_column) {
    models::lu_detail::record_events(res_.events, fs, step, r_, where, inner_column);
  }

  // The block column k0..k1 on grid column pc: per column the pivot search (MPI_MAXLOC in
  // the grid column) and the row swap there, the pivot row broadcast down it, the
  // elimination. Then the pivots go along the grid rows, the other columns swap the same rows
  // in the same order, and all ranks agree on the columns' breakdowns and events, column by
  // column in order (a breakdown at column j ends the run before anything after it counts).
  void panel(std::size_t k0, std::size_t k1, int pr, int pc) {
    const Scope phase(kPanel);
    const std::size_t kb = k1 - k0;
    std::vector<PassReport> mine(kb);
    std::vector<int> pivots(kb);
    if (!o_.pivot) {
      if (q_ == pc) eliminate_unpivoted(k0, k1, pr, mine);
    } else {
      for (std::size_t j = k0; j < k1; ++j) {
        pivots[j - k0] = static_cast<int>(j);
        if (q_ == pc) eliminate(j, k1, pr, pivots[j - k0], mine[j - k0]);
      }
    }
    if (o_.pivot) {
      const Scope bcast(kPanelBcast);
      MPI_Bcast(pivots.data(), static_cast<int>(kb), MPI_INT, pc, comms_.row);
      if (q_ != pc) received_ += static_cast<double>(kb * sizeof(int));
      for (std::size_t j = k0; j < k1; ++j) {
        const auto q = static_cast<std::size_t>(pivots[j - k0]);
        if (q_ != pc) swap_rows(j, q);
        if (q != j) std::swap(res_.perm[j], res_.perm[q]);
      }
    }
    const std::vector<PassReport> all = agree(comm_, mine, received_);
    for (std::size_t j = k0; j < k1; ++j) outcome(j, all[j - k0]);
  }

  // Column j of the panel (columns j..k1 of rows j..n) on a rank of the panel's grid column:
  // the pivot q (with pivoting) and this rank's report.
  void eliminate(std::size_t j, std::size_t k1, int pr, int& pivot_row, PassReport& mine) {
    const Precision p = arith_;
    if (o_.pivot) {
      struct {
        double value;
        int index;
      } local{-1.0, INT_MAX}, best{};
      const std::size_t lj = cols_.local(j);
      for (std::size_t l = rows_.below(j); l < lr_; ++l) {
        const std::size_t i = rows_.global(l);
        const double v = a(l, lj);
        // One process keeps q = j while |A[j][j]| is NaN and never moves to a NaN: a NaN on
        // the diagonal counts as the largest value at the smallest index.
        const double key = i == j ? (std::isnan(v) ? std::numeric_limits<double>::infinity() : std::fabs(v))
                                  : (std::isnan(v) ? -1.0 : std::fabs(v));
        if (key > local.value) local = {key, static_cast<int>(i)};
      }
      const Scope search(kPivot);
      MPI_Allreduce(&local, &best, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comms_.col);  // ties: the smallest index
      received_ += sizeof(local);
      pivot_row = best.index;
      swap_rows(j, static_cast<std::size_t>(best.index));
    }
    const std::size_t lj = cols_.local(j), w = k1 - j;
    std::vector<double> prow(w);
    if (p_ == pr) std::copy_n(&a(rows_.local(j), lj), w, prow.data());
    {
      const Scope bcast(kPanelBcast);
      MPI_Bcast(prow.data(), static_cast<int>(w), MPI_DOUBLE, pr, comms_.col);
    }
    if (p_ != pr) received_ += static_cast<double>(w * sizeof(double));
    const double piv = prow[0];
    if (p_ == pr) mine.pivot = piv, mine.has_pivot = 1;
    for (std::size_t l = rows_.below(j + 1); l < lr_; ++l) {
      const std::size_t i = rows_.global(l);
      models::lu_detail::eliminate_row(p, &a(l, lj), prow.data(), piv, w,
                                       [&](std::size_t c, double v) { mine.firsts.note({i, j + c, 0, v, v}); });
    }
  }

  // Without pivoting the pivot rows are the diagonal block's: grid row pr eliminates it
  // alone, broadcasts it once down the grid column, and every rank eliminates its rows below
  // with it, column by column (each entry's operations in the same order as one process's).
  void eliminate_unpivoted(std::size_t k0, std::size_t k1, int pr, std::vector<PassReport>& mine) {
    const Precision p = arith_;
    const std::size_t kb = k1 - k0, lk = cols_.local(k0);
    std::vector<double> D(kb * kb);  // the diagonal block, eliminated
    auto eliminate_row = [&](double* row, std::size_t i, const double* d) {
      for (std::size_t j = 0; j < kb; ++j) {
        if (k0 + j >= i) break;  // rows of the diagonal block: only the columns left of i
        models::lu_detail::eliminate_row(p, row + j, &d[j * kb + j], d[j * kb + j], kb - j, [&](std::size_t c, double v) {
          mine[j].firsts.note({i, k0 + j + c, 0, v, v});
        });
      }
    };
    if (p_ == pr) {
      for (std::size_t t = 0; t < kb; ++t) {
        double* row = &a(rows_.local(k0 + t), lk);
        eliminate_row(row, k0 + t, D.data());
        std::copy_n(row, kb, &D[t * kb]);
        mine[t].pivot = D[t * kb + t], mine[t].has_pivot = 1;
      }
    }
    {
      const Scope bcast(kPanelBcast);
      MPI_Bcast(D.data(), static_cast<int>(D.size()), MPI_DOUBLE, pr, comms_.col);
    }
    if (p_ != pr) received_ += static_cast<double>(D.size() * sizeof(double));
    for (std::size_t l = rows_.below(k1); l < lr_; ++l) eliminate_row(&a(l, lk), rows_.global(l), D.data());
  }

  // Column j's agreed outcome: the pivot's checks, then the elimination's first Inf / NaN.
  void outcome(std::size_t j, const PassReport& all) {
    const Precision p = arith_;
    const double piv = all.pivot;
    if (!(std::fabs(piv) >= p.min_normal()) || !std::isfinite(piv)) {
      if (!cont_)
        breakdown(j, models::lu_detail::pivot_problem(j, piv, p, o_.pivot));
      LuEvent& ev = piv == 0 ? res_.events.zero_pivot : res_.events.subnormal_pivot;
      if (std::isfinite(piv) && !ev.found) ev = {true, j + 1, j / r_ + 1, j, j, piv, "the pivot"};
    }
    const Firsts& fs = all.firsts;
    if (!fs.found()) return;
    if (!cont_) breakdown(j, models::lu_detail::not_finite_text(fs.first().outer, fs.first().inner, fs.first().value, p));
    record(fs, j, "the elimination", false);
  }

  // Whole rows j and q exchanged (between two grid rows, or within one), on every rank's columns.
  void swap_rows(std::size_t j, std::size_t q) {
    if (q == j) return;
    const Scope swap(kPivot);
    const std::size_t oj = rows_.owner(j), oq = rows_.owner(q);
    if (oj == rows_.me && oq == rows_.me) {
      std::swap_ranges(&a(rows_.local(j), 0), &a(rows_.local(j), 0) + lc_, &a(rows_.local(q), 0));
    } else if (oj == rows_.me || oq == rows_.me) {
      const std::size_t mine = oj == rows_.me ? j : q, other = oj == rows_.me ? oq : oj;
      const int partner = static_cast<int>(other) * Q_ + q_;
      MPI_Sendrecv_replace(&a(rows_.local(mine), 0), static_cast<int>(lc_), MPI_DOUBLE, partner, 7, partner, 7, comm_,
                           MPI_STATUS_IGNORE);
      received_ += static_cast<double>(lc_ * sizeof(double));
    }
  }

  // U's block row k0..k1, columns u0..u1: L_kk (broadcast along grid row pr from grid column
  // pc) applied by forward substitution in p, each entry's products in column order.
  void solve_u(Precision p, std::size_t k0, std::size_t k1, std::size_t u0, std::size_t u1, int pr, int pc,
               PassReport& mine) {
    const Scope phase(kSolveU);
    const std::size_t kb = k1 - k0;
    if (p_ == pr) {
      std::vector<double> L(kb * kb);
      if (q_ == pc)
        for (std::size_t i = 0; i < kb; ++i) std::copy_n(&a(rows_.local(k0 + i), cols_.local(k0)), kb, &L[i * kb]);
      {
        const Scope bcast(kDiagonalBcast);
        MPI_Bcast(L.data(), static_cast<int>(L.size()), MPI_DOUBLE, pc, comms_.row);
      }
      if (q_ != pc) received_ += static_cast<double>(L.size() * sizeof(double));
      substitute(p, k0, kb, L, cols_.below(u0), cols_.below(u1), mine);
    }
  }
  // Local columns [c0, c1) of U's block row (rows k0..k0 + kb) solved with L_kk (kb x kb).
  // Columns are independent: each chunk of columns runs the whole substitution while it is
  // in cache (as models/src/lu.cpp's solve_u); each entry's products stay in column order.
  void substitute(Precision p, std::size_t k0, std::size_t kb, const std::vector<double>& L, std::size_t c0,
                  std::size_t c1, PassReport& mine) {
    const std::size_t chunk = std::max<std::size_t>(64, 16384 / kb);
    for (std::size_t b = c0; b < c1; b += chunk) {
      const std::size_t e = std::min(c1, b + chunk);
      models::lu_detail::substitute(
          p, kb, [&](std::size_t t) { return &a(rows_.local(k0 + t), 0); },
          [&](std::size_t i, std::size_t j) { return L[i * kb + j]; }, b, e, [] { return false; },
          [&](std::size_t j, std::size_t i, std::size_t c, double v) {
            mine.firsts.note({k0 + j, k0 + i, cols_.global(c), v, v});
          });
    }
  }
  void solve_u_outcome(const Firsts& fs) {
    const Precision p = arith_;
    if (!fs.found()) return;
    if (!cont_) {
      const Failure& f = fs.first();
      breakdown(f.outer, models::lu_detail::not_finite_text(f.inner, f.column, f.value, p));
    }
    record(fs, Failure::kNone, "the elimination", true);
  }

  // A22 <- A22 - L21 U12 on every rank's blocks: L21's rows along the grid rows, U12's columns
  // down the grid columns, then the unit GEMM (rl) or the entry-by-entry update (ref-rl).
  void update(std::size_t k0, std::size_t k1, int pr, int pc, PassReport& mine) {
    const std::size_t kb = k1 - k0, r0 = rows_.below(k1), c0 = cols_.below(k1);
    const std::size_t m = lr_ - r0, w = lc_ - c0;
    const Scope phase(kUpdate);
    // The step's buffers keep their memory from step to step (no page faults per step).
    std::vector<double>&L = update_L_, &U = update_U_;
    sized(L, m * kb), sized(U, kb * w);
    if (q_ == pc)
      for (std::size_t i = 0; i < m; ++i) std::copy_n(&a(r0 + i, cols_.local(k0)), kb, &L[i * kb]);
    {
      const Scope bcast(kLuBcast);
      MPI_Bcast(L.data(), static_cast<int>(L.size()), MPI_DOUBLE, pc, comms_.row);
    }
    if (q_ != pc) received_ += static_cast<double>(L.size() * sizeof(double));
    if (p_ == pr)
      for (std::size_t t = 0; t < kb; ++t) std::copy_n(&a(rows_.local(k0 + t), c0), w, &U[t * w]);
    {
      const Scope bcast(kLuBcast);
      MPI_Bcast(U.data(), static_cast<int>(U.size()), MPI_DOUBLE, pr, comms_.col);
    }
    if (p_ != pr) received_ += static_cast<double>(U.size() * sizeof(double));
    const Update u{unit_update_, variant_, S_};
    agreed(comm_, [&] { local_update(u, r0, m, c0, w, L, U, kb, mine); });
    // One process calls the unit once per update (the ieee variants not at all).
    if (unit_update_ && variant_ != models::GemmVariant::Fp16 && variant_ != models::GemmVariant::Fp32) ++res_.unit_calls;
  }
  void update_outcome(std::size_t k1, const Firsts& fs, Precision store) {
    if (!fs.found()) return;
    if (!cont_) breakdown(k1 - 1, models::lu_detail::update_failure_text(fs.first(), store));
    record(fs, k1 - 1, models::lu_detail::kUpdateWhere, false);
  }

  // Local rows [l0, l0 + m) x local columns [c0, c0 + w) minus L U (L: m x kk, U: kk x w,
  // row-major, in global k order) as one process computes them: one GEMM through the unit
  // (L is negated in place), or entry by entry in k order; non-finite results noted in mine.
  void local_update(const Update& u, std::size_t l0, std::size_t m, std::size_t c0, std::size_t w, std::vector<double>& L,
                    const std::vector<double>& U, std::size_t kk, PassReport& mine) {
    if (m == 0 || w == 0) return;
    if (!u.unit) {
      for (std::size_t i = 0; i < m; ++i) {
        double* row = &a(l0 + i, c0);
        models::lu_detail::subtract_products(u.store, row, &L[i * kk], U.data(), w, kk, 0, w, [&](std::size_t c) {
          mine.firsts.note({rows_.global(l0 + i), cols_.global(c0 + c), 0, row[c], row[c]});
        });
      }
      return;
    }
    std::vector<double>& C = update_C_;
    sized(C, m * w);
    for (std::size_t i = 0; i < m; ++i) std::copy_n(&a(l0 + i, c0), w, &C[i * w]);
    for (std::size_t i = 0; i < m * kk; ++i) L[i] = -L[i];
    models::GemmOptions g = g_;
    g.variant = u.variant;
    const models::lu_detail::UpdateFormats f = models::lu_detail::update_formats(u.variant, in_);
    const models::GemmResult up = models::simulate_gemm(unit_, f.operands, f.out, m, w, kk, L, U, C, g);
    for (std::size_t i = 0; i < m; ++i) {
      double* row = &a(l0 + i, c0);
      const double* d = &up.D[i * w];
      models::lu_detail::store_rounded(u.store, row, d, w, [&](std::size_t c) {
        mine.firsts.note({rows_.global(l0 + i), cols_.global(c0 + c), 0, d[c], row[c]});
      });
    }
  }


  // The left-looking algorithms (models/src/lu.cpp's LeftLooking scheme with an unblocked
  // panel): per step the block column and then the block row receive all earlier steps'
  // updates as one GEMM of depth k0 (ll, ll-fp32-panel: through the unit in TC32 into the fp32
  // buffer; ref-ll: entry by entry in the storage precision). The chain of each entry needs
  // its whole row of L left of the panel and its whole column of U above it: they are
  // gathered onto the ranks that own the entry (along the grid row, down the grid column).
  void run_left_looking() {
    const Precision fp16{16};
    for (std::size_t k0 = 0, k = 0; k0 < n_; k0 += r_, ++k) {
      const std::size_t k1 = std::min(n_, k0 + r_);
      const int pr = static_cast<int>(k % static_cast<std::size_t>(P_)), pc = static_cast<int>(k % static_cast<std::size_t>(Q_));
      // B = fl32(A) - L U for the block column (rows k0..n), then fl16 (ll).
      {
        std::vector<PassReport> mine(2);
        if (k0 > 0) {
          agreed(comm_, [&] { left_update(k0, pc, true, mine[0]); });
          if (unit_update_) ++res_.unit_calls;
        }
        if (round_in_ && q_ == pc) convert(fp16, rows_.below(k0), lr_, cols_.local(k0), cols_.local(k0) + (k1 - k0), mine[1]);
        const std::vector<PassReport> all = agree(comm_, mine, received_);
        if (k0 > 0) update_outcome(k0, all[0].firsts, Precision{unit_update_ ? 32 : S_.bits});
        convert_outcome(fp16, k0, all[1].firsts);
      }
      panel(k0, k1, pr, pc);
      if (k1 < n_) {
        // The block row after the panel's pivots: its update, fl16 (ll), U's solve.
        std::vector<PassReport> mine(3);
        if (k0 > 0) {
          agreed(comm_, [&] { left_update(k0, pr, false, mine[0], k1); });
          if (unit_update_) ++res_.unit_calls;
        }
        if (round_in_ && p_ == pr) convert(fp16, rows_.local(k0), rows_.local(k0) + (k1 - k0), cols_.below(k1), lc_, mine[1]);
        if (k1 - k0 >= 2) solve_u(arith_, k0, k1, k1, n_, pr, pc, mine[2]);
        const std::vector<PassReport> all = agree(comm_, mine, received_);
        if (k0 > 0) update_outcome(k0, all[0].firsts, Precision{unit_update_ ? 32 : S_.bits});
        convert_outcome(fp16, k0, all[1].firsts);
        solve_u_outcome(all[2].firsts);
      }
      if (round_out_) {  // ll-fp32-panel: the panel's L and U rounded to fp16
        std::vector<PassReport> mine(2);
        if (q_ == pc) convert(fp16, rows_.below(k0), lr_, cols_.local(k0), cols_.local(k0) + (k1 - k0), mine[0]);
        if (p_ == pr && k1 < n_) convert(fp16, rows_.local(k0), rows_.local(k0) + (k1 - k0), cols_.below(k1), lc_, mine[1]);
        const std::vector<PassReport> all = agree(comm_, mine, received_);
        convert_outcome(fp16, k0, all[0].firsts);
        convert_outcome(fp16, k0, all[1].firsts);
      }
      if (rank_ == 0 && o_.progress) o_.progress(static_cast<double>(k1) / static_cast<double>(n_));
    }
  }

  // Local rows [l0, l1) x local columns [c0, c1) rounded to p (models' convert).
  void convert(Precision p, std::size_t l0, std::size_t l1, std::size_t c0, std::size_t c1, PassReport& mine) {
    const Scope phase(kConvert);
    for (std::size_t l = l0; l < l1; ++l)
      for (std::size_t c = c0; c < c1; ++c) {
        double& x = a(l, c);
        const double v = p(x);
        if (!std::isfinite(v)) mine.firsts.note({rows_.global(l), cols_.global(c), cols_.global(c), x, v});
        x = v;
      }
  }
  void convert_outcome(Precision p, std::size_t step, const Firsts& fs) {
    if (!fs.found()) return;
    if (!cont_) breakdown(step, models::lu_detail::convert_failure_text(fs.first(), p));
    record(fs, step, models::lu_detail::convert_where(p), false);
  }

  // The left-looking update of depth k0: the block column (column = true: rows k0..n of
  // columns k0..k0 + r, on grid column `owner`) or the block row (rows k0..k1 of columns
  // k1..n, on grid row `owner`). L's rows (columns 0..k0) are gathered along the grid rows,
  // U's columns (rows 0..k0) down the grid columns, in global order.
  void left_update(std::size_t k0, int owner, bool column, PassReport& mine, std::size_t k1 = 0) {
    const std::size_t kb_col = std::min(n_, k0 + r_) - k0;
    // The entries updated: local rows [l0, l1) x local columns [c0, c1).
    std::size_t l0, l1, c0, c1;
    if (column) l0 = rows_.below(k0), l1 = lr_, c0 = cols_.local(k0), c1 = c0 + kb_col;
    else l0 = rows_.local(k0), l1 = l0 + (k1 - k0), c0 = cols_.below(k1), c1 = lc_;
    const bool mine_column = column ? q_ == owner : p_ == owner;
    const Scope phase(kUpdate);
    // L: rows [l0, l1) of this grid row, columns 0..k0 from every grid column (to grid
    // column `owner` for a block column, to all of grid row `owner` for a block row).
    std::vector<double> L, U;
    if (column || p_ == owner) L = gather_l(l0, l1, 0, k0, column ? owner : -1);
    if (!column || q_ == owner) U = gather_u(c0, c1, 0, k0, column ? -1 : owner);
    if (!mine_column) return;
    // ll, ll-fp32-panel: through the unit in TC32 into the fp32 buffer; ref-ll: entry by entry.
    const Update u{unit_update_, models::GemmVariant::Tc32, unit_update_ ? Precision{32} : S_};
    local_update(u, l0, l1 - l0, c0, c1 - c0, L, U, k0, mine);  // an exception is shared by the caller (agreed)
  }

  // L's rows [l0, l1) (local), columns k0..k1 in global order (m x (k1 - k0), row-major),
  // from every rank of the grid row: to grid column `root`, or to all (root < 0).
  std::vector<double> gather_l(std::size_t l0, std::size_t l1, std::size_t k0, std::size_t k1, int root) {
    const Scope phase(kGathers);
    const std::size_t m = l1 - l0, kk = k1 - k0, t0 = cols_.below(k0), nt = cols_.below(k1) - t0;
    std::vector<double> packed(m * nt);
    for (std::size_t i = 0; i < m; ++i) std::copy_n(&a(l0 + i, t0), nt, &packed[i * nt]);
    std::vector<int> counts(static_cast<std::size_t>(Q_)), displs(static_cast<std::size_t>(Q_));
    for (int q = 0, at = 0; q < Q_; ++q) {
      Cyclic c = cols_;
      c.me = static_cast<std::size_t>(q);
      counts[q] = static_cast<int>(m * (c.below(k1) - c.below(k0))), displs[q] = at, at += counts[q];
    }
    const bool receive = root < 0 || q_ == root;
    std::vector<double> all(receive ? m * kk : 0), L(receive ? m * kk : 0);
    if (root < 0)
      MPI_Allgatherv(packed.data(), counts[q_], MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, comms_.row);
    else
      MPI_Gatherv(packed.data(), counts[q_], MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, root, comms_.row);
    if (!receive) return L;
    received_ += static_cast<double>((m * kk - packed.size()) * sizeof(double));
    for (int q = 0; q < Q_; ++q) {
      Cyclic c = cols_;
      c.me = static_cast<std::size_t>(q);
      const std::size_t b = c.below(k0), nc = c.below(k1) - b;
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t t = 0; t < nc; ++t)
          L[i * kk + c.global(b + t) - k0] = all[static_cast<std::size_t>(displs[q]) + i * nc + t];
    }
    return L;
  }
  // U's rows k0..k1 in global order, local columns [c0, c1) ((k1 - k0) x w, row-major), from
  // every rank of the grid column: to grid row `root`, or to all (root < 0).
  std::vector<double> gather_u(std::size_t c0, std::size_t c1, std::size_t k0, std::size_t k1, int root) {
    const Scope phase(kGathers);
    const std::size_t w = c1 - c0, kk = k1 - k0, t0 = rows_.below(k0), nt = rows_.below(k1) - t0;
    std::vector<double> packed(nt * w);
    for (std::size_t t = 0; t < nt; ++t) std::copy_n(&a(t0 + t, c0), w, &packed[t * w]);
    std::vector<int> counts(static_cast<std::size_t>(P_)), displs(static_cast<std::size_t>(P_));
    for (int p = 0, at = 0; p < P_; ++p) {
      Cyclic r = rows_;
      r.me = static_cast<std::size_t>(p);
      counts[p] = static_cast<int>((r.below(k1) - r.below(k0)) * w), displs[p] = at, at += counts[p];
    }
    const bool receive = root < 0 || p_ == root;
    std::vector<double> all(receive ? kk * w : 0), U(receive ? kk * w : 0);
    if (root < 0)
      MPI_Allgatherv(packed.data(), counts[p_], MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, comms_.col);
    else
      MPI_Gatherv(packed.data(), counts[p_], MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, root, comms_.col);
    if (!receive) return U;
    received_ += static_cast<double>((kk * w - packed.size()) * sizeof(double));
    for (int p = 0; p < P_; ++p) {
      Cyclic r = rows_;
      r.me = static_cast<std::size_t>(p);
      const std::size_t b = r.below(k0), nr = r.below(k1) - b;
      for (std::size_t t = 0; t < nr; ++t)
        std::copy_n(&all[static_cast<std::size_t>(displs[p]) + t * w], w, &U[(r.global(b + t) - k0) * w]);
    }
    return U;
  }

  // dp (lopez2022 Algorithm 5.2, lu_dp.cpp): models' schemes walked pass by pass
  // (models/src/lu_steps.hpp), each pass distributed and agreed on before the next.
  struct DpPasses;
  void run_dp();
  void g_eliminate(Precision p, std::size_t k0, std::size_t k1);
  void g_solve_u(Precision p, std::size_t k0, std::size_t k1, std::size_t u0, std::size_t u1);
  void g_convert(Precision p, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1, std::size_t step);
  void g_update(const Update& u, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1, std::size_t k0,
                std::size_t k1);

  MPI_Comm comm_;
  int P_, Q_, rank_, p_, q_;
  GridComms comms_;
  const models::Unit& unit_;
  const Format& in_;
  std::size_t n_, r_;
  const models::LuOptions& o_;
  models::LuResult& res_;
  Precision S_;
  Precision arith_;  // the panel's and the substitution's precision
  bool cont_, unit_update_;
  bool left_ = false, round_in_ = false, round_out_ = false;  // ll, ll-fp32-panel, ref-ll
  models::GemmVariant variant_;
  models::GemmOptions g_;
  Cyclic rows_, cols_;
  std::size_t lr_ = 0, lc_ = 0;
  std::vector<double> a_, orig_;
  std::vector<int> counts_, displs_;
  std::vector<double> update_L_, update_U_, update_C_;  // update()'s buffers
  // v with `count` entries (values left as they are), in huge pages when it must grow.
  static void sized(std::vector<double>& v, std::size_t count) {
    if (v.capacity() < count) v = models::gemm_detail::huge_vector<double>(count);
    v.resize(count);
  }

 public:
  PhaseClock clock_;     // this rank's wall seconds per phase (run() only)
  double received_ = 0;  // payload bytes this rank received (collectives' data it needed)
};

}  // namespace tcsim::dist::lu_parts
