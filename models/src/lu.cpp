// simulate_lu (lu.hpp): the LU algorithms of blanchard2020 and lopez2022 as one engine.
//
// Every algorithm factorizes "crosses": the cross (c0, c1) is the block column of L, rows
// c0..n and columns c0..c1, and the block row of U, rows c0..c1 and columns c1..u_end; the
// entries in it have received every update from the columns left of c0. A scheme says how a
// cross is factorized: unblocked in one precision, right-looking in blocks (lopez2022
// Algorithm 3.1, which with u_end = n is also PanelFactor's "stop the main loop at r/s"), or
// left-looking in blocks with fp32 buffers (Algorithms 4.1, 5.1 and, with a partitioned
// scheme as its panel, 5.2). The whole matrix is the cross (0, n) with u_end = n.
#include "tcsim/models/lu.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <numeric>
#include <utility>

#include "lu_impl.hpp"
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace tcsim::models {

using lu_detail::Precision;
using lu_detail::at;
using lu_detail::axpy_rounded;
using lu_detail::number;

namespace {

constexpr Precision kFp16{16}, kFp32{32};



// How a block A_ij <- A_ij - L_ik U_kj is computed and stored.
struct Update {
  bool unit = true;                         // through simulate_gemm, else entry by entry in `store`
  GemmVariant variant = GemmVariant::Tc32;  // the unit's variant
  Precision store;                          // the precision the result is held in
};

// How a cross is factorized.
struct Scheme {
  enum Kind { Unblocked, RightLooking, LeftLooking } kind = Unblocked;
  Precision arith;                  // Unblocked: every operation; RightLooking: the storage
  Update update;                    // RightLooking, LeftLooking
  std::size_t block = 0;            // RightLooking, LeftLooking
  const Scheme* panel = nullptr;    // LeftLooking: how each block of the cross is factorized
  bool round_in = false;            // LeftLooking: the buffer rounded to fp16 before the panel
  bool round_out = false;           // LeftLooking: the panel's factors rounded to fp16 after
};

// The first non-finite value of a pass, in the order a sequential loop meets them ((outer,
// inner, column) lexicographically), so that the error message does not depend on how the
// pass was split between threads.
struct Failure {
  static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::size_t outer = kNone, inner = kNone, column = kNone;
  double value = 0;   // the value the message names (the unit's result before storage rounding)
  double stored = 0;  // the value stored: +-Inf or NaN
  bool found() const { return outer != kNone; }
  bool before(const Failure& o) const {
    return outer != o.outer ? outer < o.outer : inner != o.inner ? inner < o.inner : column < o.column;
  }
};

// The first +-Inf and the first NaN of a pass (each in the loop order above): with
// --on-breakdown stop the earlier of the two is the breakdown, with continue both are events.
struct Firsts {
  Failure inf, nan;
  bool found() const { return inf.found() || nan.found(); }
  // Notes a non-finite stored value met in loop order (a chunk's loop: the first of a kind wins).
  void note(const Failure& f) {
    Failure& slot = std::isnan(f.stored) ? nan : inf;
    if (!slot.found()) slot = f;
  }
  void merge(const Firsts& o) {
    if (o.inf.found() && (!inf.found() || o.inf.before(inf))) inf = o.inf;
    if (o.nan.found() && (!nan.found() || o.nan.before(nan))) nan = o.nan;
  }
  const Failure& first() const { return !nan.found() || (inf.found() && inf.before(nan)) ? inf : nan; }
};

class Engine {
 public:
  Engine(const Unit& unit, const Format& in, std::size_t n, std::size_t r, bool pivot, bool cont, const GemmOptions& g,
         LuResult& res, std::function<void(double)> progress)
      : unit_(unit), in_(in), n_(n), r_(r), pivot_(pivot), cont_(cont), g_(g), res_(res), a_(res.LU),
        progress_(std::move(progress)) {
    if (g.threads > 1) arena_.emplace(static_cast<int>(g.threads));
  }

  void factor(const Scheme& s, std::size_t c0, std::size_t c1, std::size_t u_end) {
    const bool outer = c0 == 0 && c1 == n_;
    auto done = [&](std::size_t k1) {
      if (outer && progress_) progress_(static_cast<double>(k1) / static_cast<double>(n_));
    };
    switch (s.kind) {
      case Scheme::Unblocked:
        eliminate(s.arith, c0, c1);
        solve_u(s.arith, c0, c1, c1, u_end);
        break;
      case Scheme::RightLooking:
        for (std::size_t k0 = c0; k0 < c1; k0 += s.block) {
          const std::size_t k1 = std::min(c1, k0 + s.block);
          eliminate(s.arith, k0, k1);
          solve_u(s.arith, k0, k1, k1, u_end);
          update(s.update, k1, c1, k1, u_end, k0, k1);  // rows of the cross's block row
          update(s.update, c1, n_, k1, c1, k0, k1);     // the rest of its block column
          done(k1);
        }
        break;
      case Scheme::LeftLooking:
        for (std::size_t k0 = c0; k0 < c1; k0 += s.block) {
          const std::size_t k1 = std::min(c1, k0 + s.block);
          // B_ik = fl32(A_ik) - sum_j L_ij U_jk (lopez2022 Algorithm 4.1 lines 5-10), with
          // j over the blocks of this cross left of k.
          update(s.update, k0, n_, k0, k1, c0, k0);
          if (s.round_in) convert(kFp16, k0, n_, k0, k1, k0);
          if (s.panel->kind == Scheme::Unblocked) {
            // The row block is updated after the column block is factorized: the same
            // operations as lines 5-13 in the paper's order, and partial pivoting can swap
            // rows before the row block is touched (as LAPACK's left-looking codes do).
            eliminate(s.panel->arith, k0, k1);
            update(s.update, k0, k1, k1, u_end, c0, k0);
            if (s.round_in) convert(kFp16, k0, k1, k1, u_end, k0);
            solve_u(s.panel->arith, k0, k1, k1, u_end);
          } else if (!pivot_) {
            update(s.update, k0, k1, k1, u_end, c0, k0);
            if (s.round_in) convert(kFp16, k0, k1, k1, u_end, k0);
            factor(*s.panel, k0, k1, u_end);
          } else {
            // With pivoting, PanelFactor first factorizes the block column (choosing the
            // pivots), then the block row is updated and solved in PanelFactor's blocks with
            // the factors as stored: the order of a LAPACK-style code (panel, row swaps, row
            // block), which without pivoting would solve with the panel's factors before
            // their rounding to fp16 instead.
            factor(*s.panel, k0, k1, k1);
            if (s.round_out) convert(kFp16, k0, n_, k0, k1, k0);
            update(s.update, k0, k1, k1, u_end, c0, k0);
            if (s.round_in) convert(kFp16, k0, k1, k1, u_end, k0);
            solve_row_block(*s.panel, k0, k1, k1, u_end);
          }
          if (s.round_out) {
            convert(kFp16, k0, n_, k0, k1, k0);
            convert(kFp16, k0, k1, k1, u_end, k0);
          }
          done(k1);
        }
        break;
    }
  }

  // The block row of the cross (c0, c1), columns u0..u1, given its block column: the U-part
  // operations of `s` alone (the pivoting order of the left-looking step above).
  void solve_row_block(const Scheme& s, std::size_t c0, std::size_t c1, std::size_t u0, std::size_t u1) {
    for (std::size_t k0 = c0; k0 < c1; k0 += (s.kind == Scheme::Unblocked ? c1 - c0 : s.block)) {
      const std::size_t k1 = s.kind == Scheme::Unblocked ? c1 : std::min(c1, k0 + s.block);
      switch (s.kind) {
        case Scheme::Unblocked:
          solve_u(s.arith, k0, k1, u0, u1);
          break;
        case Scheme::RightLooking:
          solve_u(s.arith, k0, k1, u0, u1);
          update(s.update, k1, c1, u0, u1, k0, k1);
          break;
        case Scheme::LeftLooking:
          update(s.update, k0, k1, u0, u1, c0, k0);
          if (s.round_in) convert(kFp16, k0, k1, u0, u1, k0);
          solve_row_block(*s.panel, k0, k1, u0, u1);
          if (s.round_out) convert(kFp16, k0, k1, u0, u1, k0);
          break;
      }
    }
  }

  // Every entry rounded to p (the storage format at the start, or a conversion).
  void convert(Precision p, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1, std::size_t step) {
    if (r0 >= r1 || c0 >= c1) return;
    const Firsts fs = parallel_first(r1 - r0, grain_for(c1 - c0), [&](std::size_t b, std::size_t e) {
      Firsts first;
      for (std::size_t i = r0 + b; i < r0 + e; ++i)
        for (std::size_t c = c0; c < c1; ++c) {
          double& x = a_[i * n_ + c];
          const double v = p(x);
          if (!std::isfinite(v)) first.note({i, c, c, x, v});
          x = v;
        }
      return first;
    });
    const std::string what = "converting the fp32 buffer to " + std::string(p.name());
    if (!fs.found()) return;
    if (!cont_) {
      const Failure& f = fs.first();
      breakdown(step, what + " gives " + at(f.outer, f.inner) + " = " + number(f.stored) + " (from " +
                          number(f.value) + ")");
    }
    record(fs, step, what, [](const Failure& f) { return std::pair{f.outer, f.inner}; });
  }

 private:
  // body(b, e) -> Failure over [0, count) in chunks of at least `grain` on the run's threads
  // (the chunks write disjoint entries: the bits do not depend on the split); the earliest
  // failure of all chunks.
  template <class Body>
  Firsts parallel_first(std::size_t count, std::size_t grain, const Body& body) {
    if (count == 0) return {};
    if (g_.threads == 1 || count <= grain) return body(std::size_t{0}, count);
    Firsts first;
    std::mutex m;
    auto loop = [&] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, count, grain), [&](const tbb::blocked_range<std::size_t>& r) {
        const Firsts f = body(r.begin(), r.end());
        if (!f.found()) return;
        std::lock_guard<std::mutex> lock(m);
        first.merge(f);
      });
    };
    if (arena_) arena_->execute(loop);
    else loop();  // all cores: TBB's default arena (an arena per call costs more than small passes)
    return first;
  }
  static std::size_t grain_for(std::size_t width) { return std::max<std::size_t>(8, 32768 / std::max<std::size_t>(1, width)); }

  [[noreturn]] void breakdown(std::size_t step, const std::string& what) const {
    throw LuBreakdown(lu_detail::breakdown_message(step, r_, what));
  }
  void not_finite(std::size_t step, std::size_t i, std::size_t c, double v, Precision p) const {
    breakdown(step, "the elimination gives " + at(i, c) + " = " + number(v) + ", not finite in " + p.name() + " storage");
  }

  // Continue: the pass's first Inf and NaN become the run's first overflow and NaN events
  // unless an earlier pass had them (passes run in order). entry(f) -> (row, column).
  template <class Entry>
  void record(const Firsts& fs, std::size_t step, const std::string& where, const Entry& entry) {
    auto put = [&](LuEvent& ev, const Failure& f, std::size_t s) {
      if (ev.found || !f.found()) return;
      const auto [row, col] = entry(f);
      ev = {true, s + 1, s / r_ + 1, row, col, f.stored, where};
    };
    put(res_.events.overflow, fs.inf, step == Failure::kNone ? fs.inf.outer : step);
    put(res_.events.nan, fs.nan, step == Failure::kNone ? fs.nan.outer : step);
  }

  // Columns k0..k1 of rows k0..n, right-looking, every operation rounded to p (the panel of
  // Algorithm 3.1 line 4 and 6, or a PanelFactor's inner panel): L's multipliers and U's
  // entries of the diagonal block.
  void eliminate(Precision p, std::size_t k0, std::size_t k1) {
    std::vector<double>& a = a_;
    const std::size_t n = n_;
    for (std::size_t j = k0; j < k1; ++j) {
      if (pivot_) {
        std::size_t q = j;
        for (std::size_t i = j + 1; i < n; ++i)
          if (std::fabs(a[i * n + j]) > std::fabs(a[q * n + j])) q = i;
        if (q != j) {
          std::swap_ranges(a.begin() + static_cast<std::ptrdiff_t>(j * n), a.begin() + static_cast<std::ptrdiff_t>(j * n + n),
                           a.begin() + static_cast<std::ptrdiff_t>(q * n));
          std::swap(res_.perm[j], res_.perm[q]);
        }
      }
      const double piv = a[j * n + j];
      if (!(std::fabs(piv) >= p.min_normal()) || !std::isfinite(piv)) {
        if (!cont_)
          breakdown(j, lu_detail::pivot_problem(j, piv, p, pivot_));
        // Continue: the division below does what IEEE does (a non-finite pivot is already an
        // overflow or NaN event where it appeared).
        LuEvent& ev = piv == 0 ? res_.events.zero_pivot : res_.events.subnormal_pivot;
        if (std::isfinite(piv) && !ev.found) ev = {true, j + 1, j / r_ + 1, j, j, piv, "the pivot"};
      }
      const Firsts fs = parallel_first(n - j - 1, grain_for(k1 - j), [&](std::size_t b, std::size_t e) {
        Firsts first;
        const double* prow = &a[j * n];
        for (std::size_t i = j + 1 + b; i < j + 1 + e; ++i) {
          double* row = &a[i * n];
          const double l = p(row[j] / piv);
          row[j] = l;
          if (!std::isfinite(l)) first.note({i, j, 0, l, l});
          axpy_rounded(p, row, prow, l, j + 1, k1);
          for (std::size_t c = j + 1; c < k1; ++c)
            if (!std::isfinite(row[c])) first.note({i, c, 0, row[c], row[c]});
          if (!cont_ && first.found()) break;  // stop: the rest is not needed
        }
        return first;
      });
      if (!fs.found()) continue;
      if (!cont_) not_finite(j, fs.first().outer, fs.first().inner, fs.first().value, p);
      record(fs, j, "the elimination", [](const Failure& f) { return std::pair{f.outer, f.inner}; });
    }
  }

  // U's block row: L_kk U_ki = A_ki for columns u0..u1 by forward substitution (unit
  // diagonal), each entry's products subtracted in column order.
  void solve_u(Precision p, std::size_t k0, std::size_t k1, std::size_t u0, std::size_t u1) {
    if (u0 >= u1 || k1 - k0 < 2) return;
    // Columns are independent: each chunk of columns runs the whole substitution.
    const Firsts fs = parallel_first(u1 - u0, std::max<std::size_t>(64, 16384 / (k1 - k0)), [&](std::size_t b, std::size_t e) {
      Firsts first;
      for (std::size_t j = k0; j < k1 && (cont_ || !first.found()); ++j)
        for (std::size_t i = j + 1; i < k1 && (cont_ || !first.found()); ++i) {
          double* row = &a_[i * n_];
          axpy_rounded(p, row, &a_[j * n_], row[j], u0 + b, u0 + e);
          for (std::size_t c = u0 + b; c < u0 + e; ++c)
            if (!std::isfinite(row[c])) first.note({j, i, c, row[c], row[c]});
        }
      return first;
    });
    if (!fs.found()) return;
    if (!cont_) not_finite(fs.first().outer, fs.first().inner, fs.first().column, fs.first().value, p);
    record(fs, Failure::kNone, "the elimination", [](const Failure& f) { return std::pair{f.inner, f.column}; });
  }

  // A[r0..r1][c0..c1] -= L[r0..r1][k0..k1] U[k0..k1][c0..c1].
  void update(const Update& u, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1, std::size_t k0,
              std::size_t k1) {
    if (r0 >= r1 || c0 >= c1 || k0 >= k1) return;
    const std::size_t m = r1 - r0, w = c1 - c0, kb = k1 - k0, n = n_;
    std::vector<double>& a = a_;
    if (!u.unit) {
      const Firsts fs = parallel_first(m, grain_for(w * kb / 8 + 1), [&](std::size_t b, std::size_t e) {
        Firsts first;
        for (std::size_t i = r0 + b; i < r0 + e; ++i) {
          double* row = &a[i * n];
          for (std::size_t p = k0; p < k1; ++p) axpy_rounded(u.store, row, &a[p * n], row[p], c0, c1);
          for (std::size_t c = c0; c < c1; ++c)
            if (!std::isfinite(row[c])) first.note({i, c, 0, row[c], row[c]});
        }
        return first;
      });
      update_events(u, k1 - 1, fs);
      return;
    }
    Lneg_.resize(m * kb);
    U_.resize(kb * w);
    C_.resize(m * w);
    parallel_first(m, grain_for(w + kb), [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) {
        for (std::size_t c = 0; c < kb; ++c) Lneg_[i * kb + c] = -a[(r0 + i) * n + k0 + c];
        std::copy_n(&a[(r0 + i) * n + c0], w, &C_[i * w]);
      }
      return Firsts{};
    });
    for (std::size_t i = 0; i < kb; ++i) std::copy_n(&a[(k0 + i) * n + c0], w, &U_[i * w]);
    GemmOptions g = g_;
    g.variant = u.variant;
    const bool low = u.variant == GemmVariant::Fp16 || u.variant == GemmVariant::Tc16;
    // The fp16 and fp32 variants are LU without tensor cores (blanchard2020 Table 4.1): their
    // operands are not converted to the unit's input format.
    const Format& operands = u.variant == GemmVariant::Fp16   ? formats::fp16()
                             : u.variant == GemmVariant::Fp32 ? formats::fp32()
                                                              : in_;
    const GemmResult up = simulate_gemm(unit_, operands, low ? formats::fp16() : formats::fp32(), m, w, kb, Lneg_, U_, C_, g);
    res_.unit_calls += up.unit_calls;
    const Firsts fs = parallel_first(m, grain_for(w), [&](std::size_t b, std::size_t e) {
      Firsts first;
      for (std::size_t i = b; i < e; ++i) {
        double* row = &a[(r0 + i) * n + c0];
        const double* d = &up.D[i * w];
        for (std::size_t c = 0; c < w; ++c) row[c] = u.store(d[c]);
        for (std::size_t c = 0; c < w; ++c)
          if (!std::isfinite(row[c])) first.note({r0 + i, c0 + c, 0, d[c], row[c]});
      }
      return first;
    });
    update_events(u, k1 - 1, fs);
  }
  void update_events(const Update& u, std::size_t step, const Firsts& fs) {
    if (!fs.found()) return;
    if (!cont_)
      breakdown(step, "the update A22 - L21 U12 gives " + at(fs.first().outer, fs.first().inner) + " = " +
                          number(fs.first().value) + ", not finite in " + u.store.name() + " storage");
    record(fs, step, "the update A22 - L21 U12", [](const Failure& f) { return std::pair{f.outer, f.inner}; });
  }

  const Unit& unit_;
  const Format& in_;
  std::size_t n_, r_;
  bool pivot_;
  bool cont_;  // LuOnBreakdown::Continue
  GemmOptions g_;
  LuResult& res_;
  std::vector<double>& a_;
  std::function<void(double)> progress_;
  std::optional<tbb::task_arena> arena_;  // threads > 1 (0: the default arena; 1: serial)
  std::vector<double> Lneg_, U_, C_;
};

Scheme unblocked(Precision p) {
  Scheme s;
  s.arith = p;
  return s;
}

struct Plan {
  Precision storage;                 // what A is rounded to first and the factors are held in
  Scheme top;
  std::vector<std::unique_ptr<Scheme>> parts;  // schemes `top` points to
};

Plan make_plan(const LuOptions& o) {
  Plan plan;
  const bool ll_family = o.algorithm == LuAlgorithm::Ll || o.algorithm == LuAlgorithm::LlFp32Panel ||
                         o.algorithm == LuAlgorithm::Dp;
  const std::string alg = lu_algorithm_name(o.algorithm);
  if (o.algorithm != LuAlgorithm::Rl && o.variant != GemmVariant::Tc32)
    throw std::invalid_argument("variant: only --alg rl takes a variant; " + alg +
                                (ll_family ? " updates through the unit in TC32 (fp32 buffers)" : " runs without the unit"));
  auto scheme = [&](Scheme s) {
    plan.parts.push_back(std::make_unique<Scheme>(s));
    return plan.parts.back().get();
  };
  const Update tc32_buffer{true, GemmVariant::Tc32, kFp32};
  switch (o.algorithm) {
    case LuAlgorithm::Rl: {
      if (o.variant == GemmVariant::Unit)
        throw std::invalid_argument("variant: LU takes fp16, tc16, tc32 or fp32 (blanchard2020 Table 4.1)");
      const bool low = o.variant == GemmVariant::Fp16 || o.variant == GemmVariant::Tc16;
      plan.storage = Precision{low ? 16 : 32};
      if (o.storage == "fp16" || o.storage == "fp32") plan.storage = lu_detail::precision_named(o.storage, "storage");
      else if (!o.storage.empty())
        throw std::invalid_argument("storage: '" + o.storage + "' is not allowed with --alg rl; allowed: fp16, fp32");
      plan.top = {Scheme::RightLooking, plan.storage, {true, o.variant, plan.storage}, o.block};
      break;
    }
    case LuAlgorithm::RefRl:
    case LuAlgorithm::RefLl: {
      plan.storage = lu_detail::precision_named(o.storage.empty() ? "fp64" : o.storage, "storage");
      const Update uniform{false, GemmVariant::Tc32, plan.storage};
      if (o.algorithm == LuAlgorithm::RefRl) plan.top = {Scheme::RightLooking, plan.storage, uniform, o.block};
      else plan.top = {Scheme::LeftLooking, plan.storage, uniform, o.block, scheme(unblocked(plan.storage))};
      break;
    }
    default: {
      if (!o.storage.empty() && o.storage != "fp16")
        throw std::invalid_argument("storage: '" + o.storage + "' is not allowed with --alg " + alg +
                                    " (lopez2022 stores the matrix in fp16); allowed: fp16");
      plan.storage = kFp16;
      if (o.algorithm == LuAlgorithm::Ll) {  // Algorithm 4.1: the panel in fp16
        plan.top = {Scheme::LeftLooking, kFp16, tc32_buffer, o.block, scheme(unblocked(kFp16)), true, false};
      } else if (o.algorithm == LuAlgorithm::LlFp32Panel) {  // Algorithm 5.1: in the fp32 buffer
        plan.top = {Scheme::LeftLooking, kFp16, tc32_buffer, o.block, scheme(unblocked(kFp32)), false, true};
      } else {  // Algorithm 5.2 with PanelFactor of inner blocks s
        if (o.inner_block == 0 || o.inner_block > o.block)
          throw std::invalid_argument("inner_block: s must be between 1 and r = " + std::to_string(o.block) + ", got " +
                                      std::to_string(o.inner_block));
        const std::size_t s = o.inner_block;
        const Scheme* pf = nullptr;
        bool in16 = true, out16 = false;  // lopez2022 Table 2: u~_in, u~_out
        switch (o.panel) {
          case LuPanel::RlFp16:
            pf = scheme({Scheme::RightLooking, kFp16, {true, GemmVariant::Tc16, kFp16}, s});
            break;
          case LuPanel::RlFp32:
            pf = scheme({Scheme::RightLooking, kFp32, tc32_buffer, s});
            in16 = false;
            out16 = true;
            break;
          case LuPanel::Ll:
            pf = scheme({Scheme::LeftLooking, kFp16, tc32_buffer, s, scheme(unblocked(kFp16)), true, false});
            break;
          case LuPanel::LlFp32Panel:
            pf = scheme({Scheme::LeftLooking, kFp16, tc32_buffer, s, scheme(unblocked(kFp32)), false, true});
            break;
        }
        plan.top = {Scheme::LeftLooking, kFp16, tc32_buffer, o.block, pf, in16, out16};
      }
    }
  }
  return plan;
}

}  // namespace

std::string lu_algorithm_name(LuAlgorithm a) {
  switch (a) {
    case LuAlgorithm::Rl: return "rl";
    case LuAlgorithm::Ll: return "ll";
    case LuAlgorithm::LlFp32Panel: return "ll-fp32-panel";
    case LuAlgorithm::Dp: return "dp";
    case LuAlgorithm::RefRl: return "ref-rl";
    case LuAlgorithm::RefLl: return "ref-ll";
  }
  return "?";
}

LuAlgorithm parse_lu_algorithm(std::string_view text, std::string_view field) {
  for (LuAlgorithm a : {LuAlgorithm::Rl, LuAlgorithm::Ll, LuAlgorithm::LlFp32Panel, LuAlgorithm::Dp, LuAlgorithm::RefRl,
                        LuAlgorithm::RefLl})
    if (text == lu_algorithm_name(a)) return a;
  throw std::invalid_argument(std::string(field) + ": '" + std::string(text) +
                              "' is not allowed; allowed: rl, ll, ll-fp32-panel, dp, ref-rl, ref-ll");
}

std::string lu_panel_name(LuPanel p) {
  switch (p) {
    case LuPanel::RlFp16: return "rl-fp16";
    case LuPanel::RlFp32: return "rl-fp32";
    case LuPanel::Ll: return "ll";
    case LuPanel::LlFp32Panel: return "ll-fp32-panel";
  }
  return "?";
}

LuPanel parse_lu_panel(std::string_view text, std::string_view field) {
  for (LuPanel p : {LuPanel::RlFp16, LuPanel::RlFp32, LuPanel::Ll, LuPanel::LlFp32Panel})
    if (text == lu_panel_name(p)) return p;
  throw std::invalid_argument(std::string(field) + ": '" + std::string(text) +
                              "' is not allowed; allowed: rl-fp16, rl-fp32, ll, ll-fp32-panel");
}

std::string lu_on_breakdown_name(LuOnBreakdown b) { return b == LuOnBreakdown::Continue ? "continue" : "stop"; }

LuOnBreakdown parse_lu_on_breakdown(std::string_view text, std::string_view field) {
  if (text == "stop") return LuOnBreakdown::Stop;
  if (text == "continue") return LuOnBreakdown::Continue;
  throw std::invalid_argument(std::string(field) + ": '" + std::string(text) + "' is not allowed; allowed: stop, continue");
}

LuResult describe_lu(const Unit& unit, const Format& in, std::size_t n, const LuOptions& o) {
  if (o.block == 0) throw std::invalid_argument("block: the block size r must be at least 1");
  const Plan plan = make_plan(o);
  const Precision S = plan.storage;
  LuResult res;
  res.n = n;
  res.algorithm = lu_algorithm_name(o.algorithm);
  res.storage = S.name();
  res.block = o.block;
  const bool ref = o.algorithm == LuAlgorithm::RefRl || o.algorithm == LuAlgorithm::RefLl;
  const bool rl = o.algorithm == LuAlgorithm::Rl;
  res.variant = ref ? "uniform" : variant_name(rl ? o.variant : GemmVariant::Tc32);
  if (o.algorithm == LuAlgorithm::Dp) {
    res.panel = lu_panel_name(o.panel);
    res.inner_block = o.inner_block;
  }
  if (ref) res.path = std::string("uniform ") + S.name();
  else if (rl && (o.variant == GemmVariant::Fp16 || o.variant == GemmVariant::Fp32)) res.path = "ieee";
  else {
    const bool low = rl && o.variant == GemmVariant::Tc16;
    res.path = unit.batch_path(in, low ? formats::fp16() : formats::fp32(), o.instruction);
  }
  // lopez2022 Table 1 and the data-movement model (4.4) / (4.5), summed over the actual
  // (possibly narrower last) blocks: step k spans columns k0..k1.
  const double nd = static_cast<double>(n);
  for (std::size_t k0 = 0; k0 < n; k0 += o.block) {
    const double k1 = static_cast<double>(std::min(n, k0 + o.block)), trailing = nd - k1;
    if (rl || o.algorithm == LuAlgorithm::RefRl) res.bytes_moved += trailing * trailing * S.bytes();
    else res.bytes_moved += 2 * trailing * static_cast<double>(k0) * S.bytes();
  }
  res.bytes_model = rl || o.algorithm == LuAlgorithm::RefRl ? "lopez2022 (4.4)" : "lopez2022 (4.5)";
  const double r = static_cast<double>(std::min(n, o.block));
  if (S.bits == 32) res.fp32_buffer_entries = nd * nd;
  else if (rl && S.bits == 16 && (o.variant == GemmVariant::Tc32 || o.variant == GemmVariant::Fp32))
    res.fp32_buffer_entries = (nd - r) * (nd - r);  // the trailing update's fp32 result, lopez2022 (4.3)
  else if (!ref && !rl) res.fp32_buffer_entries = nd * r;  // lopez2022 section 4: at most n r
  res.on_breakdown = lu_on_breakdown_name(o.on_breakdown);
  return res;
}

LuResult simulate_lu(const Unit& unit, const Format& in, std::size_t n, std::span<const double> A,
                     const LuOptions& o) {
  if (A.size() != n * n)
    throw std::invalid_argument("A: expected n * n = " + std::to_string(n * n) + " values, got " +
                                std::to_string(A.size()));
  LuResult res = describe_lu(unit, in, n, o);
  const Plan plan = make_plan(o);
  const Precision S = plan.storage;
  GemmOptions g;
  g.instruction = o.instruction;
  g.threads = o.threads;

  res.perm.resize(n);
  std::iota(res.perm.begin(), res.perm.end(), std::size_t{0});
  res.LU.resize(n * n);
  const bool cont = o.on_breakdown == LuOnBreakdown::Continue;
  for (std::size_t i = 0; i < n * n; ++i) {
    res.LU[i] = S(A[i]);
    if (!std::isfinite(res.LU[i]) && cont) {  // step 0: A as stored, before any elimination
      LuEvent& ev = std::isnan(res.LU[i]) ? res.events.nan : res.events.overflow;
      if (!ev.found) ev = {true, 0, 0, i / n, i % n, res.LU[i], "rounding A to the " + std::string(S.name()) + " storage"};
    } else if (!std::isfinite(res.LU[i]))
      throw LuBreakdown("A[" + std::to_string(i / n) + "][" + std::to_string(i % n) + "] = " + number(A[i]) +
                        (std::isfinite(A[i]) ? " overflows the " : " is not finite in the ") + S.name() + " storage");
  }
  Engine engine(unit, in, n, o.block, o.pivot, cont, g, res, o.progress);
  engine.factor(plan.top, 0, n, n);
  return res;
}

}  // namespace tcsim::models
