// The LU algorithms' steps, shared by the single-process engine (lu.cpp) and the distributed
// one (apps/dist/src, which adds only the data movement): how a cross is factorized (the
// schemes and their walk), the scalar arithmetic of each pass and its breakdown texts. No
// MPI here. Every file that includes this one is compiled with -ffp-contract=off.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "lu_impl.hpp"
#include "tcsim/models/lu.hpp"
#include "tcsim/sim/format.hpp"

namespace tcsim::models::lu_detail {

// ------------------------------------------------------------------ firsts of a pass

// The first non-finite value of a pass, in the order a sequential loop meets them ((outer,
// inner, column) lexicographically), so that the message depends neither on how the pass was
// split between threads nor on the process grid.
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
// Trivially copyable: the distributed LU sends it as bytes.
struct Firsts {
  Failure inf, nan;
  bool found() const { return inf.found() || nan.found(); }
  // Keeps the earlier in loop order (one loop notes in order; merged parts in any order).
  void note(const Failure& f) {
    Failure& slot = std::isnan(f.stored) ? nan : inf;
    if (!slot.found() || f.before(slot)) slot = f;
  }
  void merge(const Firsts& o) {
    if (o.inf.found()) note(o.inf);
    if (o.nan.found()) note(o.nan);
  }
  const Failure& first() const { return !nan.found() || (inf.found() && inf.before(nan)) ? inf : nan; }
};

// Continue: a pass's first Inf and NaN become the run's first overflow and NaN events unless
// an earlier pass had them (passes run in order). step kNone: the failure's outer index is
// the step. inner_column: the entry is (inner, column) (the substitution), else (outer, inner).
inline void record_events(LuEvents& ev, const Firsts& fs, std::size_t step, std::size_t r, const std::string& where,
                          bool inner_column) {
  auto put = [&](LuEvent& e, const Failure& f) {
    if (e.found || !f.found()) return;
    const std::size_t s = step == Failure::kNone ? f.outer : step;
    const std::size_t row = inner_column ? f.inner : f.outer, col = inner_column ? f.column : f.inner;
    e = {true, s + 1, s / r + 1, row, col, f.stored, where};
  };
  put(ev.overflow, fs.inf);
  put(ev.nan, fs.nan);
}

// ------------------------------------------------------------------ texts of a breakdown

inline std::string not_finite_text(std::size_t i, std::size_t c, double v, Precision p) {
  return "the elimination gives " + at(i, c) + " = " + number(v) + ", not finite in " + p.name() + " storage";
}
inline const char* const kUpdateWhere = "the update A22 - L21 U12";
inline std::string update_failure_text(const Failure& f, Precision store) {
  return std::string(kUpdateWhere) + " gives " + at(f.outer, f.inner) + " = " + number(f.value) + ", not finite in " +
         store.name() + " storage";
}
inline std::string convert_where(Precision p) { return "converting the fp32 buffer to " + std::string(p.name()); }
inline std::string convert_failure_text(const Failure& f, Precision p) {
  return convert_where(p) + " gives " + at(f.outer, f.inner) + " = " + number(f.stored) + " (from " + number(f.value) + ")";
}

// ------------------------------------------------------------------ scalar steps

// One row eliminated by one pivot row (the panel's inner loop), from the pivot's column on:
// row[0] becomes the multiplier l = fl(row[0] / piv), then row[c] <- fl(row[c] - fl(l prow[c]))
// for c in [1, w); note(c, value) for each non-finite entry, in column order.
template <class Note>
void eliminate_row(Precision p, double* row, const double* prow, double piv, std::size_t w, Note&& note) {
  const double l = p(row[0] / piv);
  row[0] = l;
  if (!std::isfinite(l)) note(std::size_t{0}, l);
  axpy_rounded(p, row, prow, l, 1, w);
  for (std::size_t c = 1; c < w; ++c)
    if (!std::isfinite(row[c])) note(c, row[c]);
}

// U's rows 0..kb (row(t): row t of the block row) solved with L_kk (l(i, j)) by forward
// substitution (unit diagonal), columns [b, e): each entry's products subtracted in column
// order, note(j, i, c, value) for each non-finite entry met; stop() ends the loops early.
template <class Row, class L, class Stop, class Note>
void substitute(Precision p, std::size_t kb, Row&& row, L&& l, std::size_t b, std::size_t e, Stop&& stop, Note&& note) {
  for (std::size_t j = 0; j < kb && !stop(); ++j)
    for (std::size_t i = j + 1; i < kb && !stop(); ++i) {
      double* ri = row(i);
      axpy_rounded(p, ri, row(j), l(i, j), b, e);
      for (std::size_t c = b; c < e; ++c)
        if (!std::isfinite(ri[c])) note(j, i, c, ri[c]);
    }
}

// row[c] -= sum_t l[t] u_t[c] entry by entry, t in order (the uniform updates): u_t =
// u + t * u_stride, columns [c0, c1); note(c) for each non-finite result.
template <class Note>
void subtract_products(Precision store, double* row, const double* l, const double* u, std::size_t u_stride, std::size_t kk,
                       std::size_t c0, std::size_t c1, Note&& note) {
  for (std::size_t t = 0; t < kk; ++t) axpy_rounded(store, row, u + t * u_stride, l[t], c0, c1);
  for (std::size_t c = c0; c < c1; ++c)
    if (!std::isfinite(row[c])) note(c);
}

// row[c] <- store(d[c]) for c < w (a unit GEMM's result into the storage); note(c) for each
// non-finite stored value.
template <class Note>
void store_rounded(Precision store, double* row, const double* d, std::size_t w, Note&& note) {
  for (std::size_t c = 0; c < w; ++c) row[c] = store(d[c]);
  for (std::size_t c = 0; c < w; ++c)
    if (!std::isfinite(row[c])) note(c);
}

// The formats of an update GEMM of `variant` with unit inputs `in`: the fp16 and fp32 variants
// are LU without tensor cores (blanchard2020 Table 4.1): their operands are not converted to
// the unit's input format.
struct UpdateFormats {
  const Format& operands;
  const Format& out;
};
inline UpdateFormats update_formats(GemmVariant v, const Format& in) {
  const bool low = v == GemmVariant::Fp16 || v == GemmVariant::Tc16;
  return {v == GemmVariant::Fp16 ? formats::fp16() : v == GemmVariant::Fp32 ? formats::fp32() : in,
          low ? formats::fp16() : formats::fp32()};
}

// ------------------------------------------------------------------ schemes

// How a block A_ij <- A_ij - L_ik U_kj is computed and stored.
struct Update {
  bool unit = true;                         // through simulate_gemm, else entry by entry in `store`
  GemmVariant variant = GemmVariant::Tc32;  // the unit's variant
  Precision store;                          // the precision the result is held in
};

// How a cross is factorized (lu.cpp's header comment).
struct Scheme {
  enum Kind { Unblocked, RightLooking, LeftLooking } kind = Unblocked;
  Precision arith;                  // Unblocked: every operation; RightLooking: the storage
  Update update;                    // RightLooking, LeftLooking
  std::size_t block = 0;            // RightLooking, LeftLooking
  const Scheme* panel = nullptr;    // LeftLooking: how each block of the cross is factorized
  bool round_in = false;            // LeftLooking: the buffer rounded to fp16 before the panel
  bool round_out = false;           // LeftLooking: the panel's factors rounded to fp16 after
};

inline Scheme unblocked(Precision p) {
  Scheme s;
  s.arith = p;
  return s;
}

// Schemes that others point to (their addresses do not move).
class SchemeParts {
 public:
  const Scheme* add(const Scheme& s) {
    parts_.push_back(std::make_unique<Scheme>(s));
    return parts_.back().get();
  }

 private:
  std::vector<std::unique_ptr<Scheme>> parts_;
};

// lopez2022 Algorithm 5.2: blocks of r, each factorized by PanelFactor `panel` with inner
// blocks s (its schemes kept in parts).
inline Scheme dp_scheme(LuPanel panel, std::size_t r, std::size_t s, SchemeParts& parts) {
  constexpr Precision fp16{16}, fp32{32};
  const Update tc32_buffer{true, GemmVariant::Tc32, fp32};
  const Scheme* pf = nullptr;
  bool in16 = true, out16 = false;  // lopez2022 Table 2: u~_in, u~_out
  switch (panel) {
    case LuPanel::RlFp16: pf = parts.add({Scheme::RightLooking, fp16, {true, GemmVariant::Tc16, fp16}, s}); break;
    case LuPanel::RlFp32:
      pf = parts.add({Scheme::RightLooking, fp32, tc32_buffer, s});
      in16 = false;
      out16 = true;
      break;
    case LuPanel::Ll:
      pf = parts.add({Scheme::LeftLooking, fp16, tc32_buffer, s, parts.add(unblocked(fp16)), true, false});
      break;
    case LuPanel::LlFp32Panel:
      pf = parts.add({Scheme::LeftLooking, fp16, tc32_buffer, s, parts.add(unblocked(fp32)), false, true});
      break;
  }
  return {Scheme::LeftLooking, fp16, tc32_buffer, r, pf, in16, out16};
}

// The cross (c0, c1) of an n x n matrix factorized by scheme s, pass by pass. Passes has
//   eliminate(p, k0, k1)                   columns k0..k1 of rows k0..n, right-looking in p
//   solve_u(p, k0, k1, u0, u1)             U's rows k0..k1, columns u0..u1, with L_kk in p
//   update(u, r0, r1, c0, c1, k0, k1)      A[r0..r1][c0..c1] -= L[r0..r1][k0..k1] U[k0..k1][c0..c1]
//   convert(p, r0, r1, c0, c1, step)       the entries rounded to p
//   step_done(k1)                          after each block of the whole matrix's cross
// and runs each pass completely before the next.
template <class Passes>
void solve_row_block(Passes& ps, const Scheme& s, std::size_t c0, std::size_t c1, std::size_t u0, std::size_t u1);

template <class Passes>
void factor_cross(Passes& ps, const Scheme& s, std::size_t n, bool pivot, std::size_t c0, std::size_t c1, std::size_t u_end) {
  constexpr Precision fp16{16};
  const bool outer = c0 == 0 && c1 == n;
  switch (s.kind) {
    case Scheme::Unblocked:
      ps.eliminate(s.arith, c0, c1);
      ps.solve_u(s.arith, c0, c1, c1, u_end);
      break;
    case Scheme::RightLooking:
      for (std::size_t k0 = c0; k0 < c1; k0 += s.block) {
        const std::size_t k1 = std::min(c1, k0 + s.block);
        ps.eliminate(s.arith, k0, k1);
        ps.solve_u(s.arith, k0, k1, k1, u_end);
        ps.update(s.update, k1, c1, k1, u_end, k0, k1);  // rows of the cross's block row
        ps.update(s.update, c1, n, k1, c1, k0, k1);      // the rest of its block column
        if (outer) ps.step_done(k1);
      }
      break;
    case Scheme::LeftLooking:
      for (std::size_t k0 = c0; k0 < c1; k0 += s.block) {
        const std::size_t k1 = std::min(c1, k0 + s.block);
        // B_ik = fl32(A_ik) - sum_j L_ij U_jk (lopez2022 Algorithm 4.1 lines 5-10), with
        // j over the blocks of this cross left of k.
        ps.update(s.update, k0, n, k0, k1, c0, k0);
        if (s.round_in) ps.convert(fp16, k0, n, k0, k1, k0);
        if (s.panel->kind == Scheme::Unblocked) {
          // The row block is updated after the column block is factorized: the same
          // operations as lines 5-13 in the paper's order, and partial pivoting can swap
          // rows before the row block is touched (as LAPACK's left-looking codes do).
          ps.eliminate(s.panel->arith, k0, k1);
          ps.update(s.update, k0, k1, k1, u_end, c0, k0);
          if (s.round_in) ps.convert(fp16, k0, k1, k1, u_end, k0);
          ps.solve_u(s.panel->arith, k0, k1, k1, u_end);
        } else if (!pivot) {
          ps.update(s.update, k0, k1, k1, u_end, c0, k0);
          if (s.round_in) ps.convert(fp16, k0, k1, k1, u_end, k0);
          factor_cross(ps, *s.panel, n, pivot, k0, k1, u_end);
        } else {
          // With pivoting, PanelFactor first factorizes the block column (choosing the
          // pivots), then the block row is updated and solved in PanelFactor's blocks with
          // the factors as stored: the order of a LAPACK-style code (panel, row swaps, row
          // block), which without pivoting would solve with the panel's factors before
          // their rounding to fp16 instead.
          factor_cross(ps, *s.panel, n, pivot, k0, k1, k1);
          if (s.round_out) ps.convert(fp16, k0, n, k0, k1, k0);
          ps.update(s.update, k0, k1, k1, u_end, c0, k0);
          if (s.round_in) ps.convert(fp16, k0, k1, k1, u_end, k0);
          solve_row_block(ps, *s.panel, k0, k1, k1, u_end);
        }
        if (s.round_out) {
          ps.convert(fp16, k0, n, k0, k1, k0);
          ps.convert(fp16, k0, k1, k1, u_end, k0);
        }
        if (outer) ps.step_done(k1);
      }
      break;
  }
}

// The block row of the cross (c0, c1), columns u0..u1, given its block column: the U-part
// passes of `s` alone (the pivoting order of the left-looking step above).
template <class Passes>
void solve_row_block(Passes& ps, const Scheme& s, std::size_t c0, std::size_t c1, std::size_t u0, std::size_t u1) {
  constexpr Precision fp16{16};
  for (std::size_t k0 = c0; k0 < c1; k0 += (s.kind == Scheme::Unblocked ? c1 - c0 : s.block)) {
    const std::size_t k1 = s.kind == Scheme::Unblocked ? c1 : std::min(c1, k0 + s.block);
    switch (s.kind) {
      case Scheme::Unblocked:
        ps.solve_u(s.arith, k0, k1, u0, u1);
        break;
      case Scheme::RightLooking:
        ps.solve_u(s.arith, k0, k1, u0, u1);
        ps.update(s.update, k1, c1, u0, u1, k0, k1);
        break;
      case Scheme::LeftLooking:
        ps.update(s.update, k0, k1, u0, u1, c0, k0);
        if (s.round_in) ps.convert(fp16, k0, k1, u0, u1, k0);
        solve_row_block(ps, *s.panel, k0, k1, u0, u1);
        if (s.round_out) ps.convert(fp16, k0, k1, u0, u1, k0);
        break;
    }
  }
}

}  // namespace tcsim::models::lu_detail
