// dp on the grid (lu_engine.hpp): models/src/lu.cpp's schemes replayed pass by pass with
// general distributed passes. Compiled with -ffp-contract=off.
#include <algorithm>
#include <cmath>
#include <vector>

#include "lu_engine.hpp"

namespace tcsim::dist::lu_parts {

void Engine::run_dp() {
  const Precision fp16{16}, fp32{32};
  const Update tc32_buffer{true, models::GemmVariant::Tc32, fp32};
  const std::size_t s = o_.inner_block;
  Scheme unb16, unb32, pf;  // unblocked panels in fp16 and fp32, PanelFactor
  unb16.arith = fp16, unb32.arith = fp32;
  bool in16 = true, out16 = false;  // lopez2022 Table 2: u~_in, u~_out
  switch (o_.panel) {
    case models::LuPanel::RlFp16: pf = {Scheme::RightLooking, fp16, {true, models::GemmVariant::Tc16, fp16}, s}; break;
    case models::LuPanel::RlFp32:
      pf = {Scheme::RightLooking, fp32, tc32_buffer, s};
      in16 = false, out16 = true;
      break;
    case models::LuPanel::Ll: pf = {Scheme::LeftLooking, fp16, tc32_buffer, s, &unb16, true, false}; break;
    case models::LuPanel::LlFp32Panel: pf = {Scheme::LeftLooking, fp16, tc32_buffer, s, &unb32, false, true}; break;
  }
  const Scheme top{Scheme::LeftLooking, fp16, tc32_buffer, r_, &pf, in16, out16};
  factor(top, 0, n_, n_);
}

// models/src/lu.cpp's Engine::factor, pass by pass.
void Engine::factor(const Scheme& s, std::size_t c0, std::size_t c1, std::size_t u_end) {
  const Precision fp16{16};
  const bool outer = c0 == 0 && c1 == n_;
  auto done = [&](std::size_t k1) {
    if (outer && rank_ == 0 && o_.progress) o_.progress(static_cast<double>(k1) / static_cast<double>(n_));
  };
  switch (s.kind) {
    case Scheme::Unblocked:
      g_eliminate(s.arith, c0, c1);
      g_solve_u(s.arith, c0, c1, c1, u_end);
      break;
    case Scheme::RightLooking:
      for (std::size_t k0 = c0; k0 < c1; k0 += s.block) {
        const std::size_t k1 = std::min(c1, k0 + s.block);
        g_eliminate(s.arith, k0, k1);
        g_solve_u(s.arith, k0, k1, k1, u_end);
        g_update(s.update, k1, c1, k1, u_end, k0, k1);
        g_update(s.update, c1, n_, k1, c1, k0, k1);
        done(k1);
      }
      break;
    case Scheme::LeftLooking:
      for (std::size_t k0 = c0; k0 < c1; k0 += s.block) {
        const std::size_t k1 = std::min(c1, k0 + s.block);
        g_update(s.update, k0, n_, k0, k1, c0, k0);
        if (s.round_in) g_convert(fp16, k0, n_, k0, k1, k0);
        if (s.panel->kind == Scheme::Unblocked) {
          g_eliminate(s.panel->arith, k0, k1);
          g_update(s.update, k0, k1, k1, u_end, c0, k0);
          if (s.round_in) g_convert(fp16, k0, k1, k1, u_end, k0);
          g_solve_u(s.panel->arith, k0, k1, k1, u_end);
        } else if (!o_.pivot) {
          g_update(s.update, k0, k1, k1, u_end, c0, k0);
          if (s.round_in) g_convert(fp16, k0, k1, k1, u_end, k0);
          factor(*s.panel, k0, k1, u_end);
        } else {
          factor(*s.panel, k0, k1, k1);
          if (s.round_out) g_convert(fp16, k0, n_, k0, k1, k0);
          g_update(s.update, k0, k1, k1, u_end, c0, k0);
          if (s.round_in) g_convert(fp16, k0, k1, k1, u_end, k0);
          solve_row_block(*s.panel, k0, k1, k1, u_end);
        }
        if (s.round_out) {
          g_convert(fp16, k0, n_, k0, k1, k0);
          g_convert(fp16, k0, k1, k1, u_end, k0);
        }
        done(k1);
      }
      break;
  }
}

// models/src/lu.cpp's Engine::solve_row_block.
void Engine::solve_row_block(const Scheme& s, std::size_t c0, std::size_t c1, std::size_t u0, std::size_t u1) {
  const Precision fp16{16};
  for (std::size_t k0 = c0; k0 < c1; k0 += (s.kind == Scheme::Unblocked ? c1 - c0 : s.block)) {
    const std::size_t k1 = s.kind == Scheme::Unblocked ? c1 : std::min(c1, k0 + s.block);
    switch (s.kind) {
      case Scheme::Unblocked: g_solve_u(s.arith, k0, k1, u0, u1); break;
      case Scheme::RightLooking:
        g_solve_u(s.arith, k0, k1, u0, u1);
        g_update(s.update, k1, c1, u0, u1, k0, k1);
        break;
      case Scheme::LeftLooking:
        g_update(s.update, k0, k1, u0, u1, c0, k0);
        if (s.round_in) g_convert(fp16, k0, k1, u0, u1, k0);
        solve_row_block(*s.panel, k0, k1, u0, u1);
        if (s.round_out) g_convert(fp16, k0, k1, u0, u1, k0);
        break;
    }
  }
}

// Columns k0..k1 (within one block of r) eliminated in p: the panel pass above.
void Engine::g_eliminate(Precision p, std::size_t k0, std::size_t k1) {
  if (k0 >= k1) return;
  arith_ = p;
  panel(k0, k1, static_cast<int>(rows_.owner(k0)), static_cast<int>(cols_.owner(k0)));
}

// U's rows k0..k1 (within one block), columns u0..u1, solved with L_kk in p.
void Engine::g_solve_u(Precision p, std::size_t k0, std::size_t k1, std::size_t u0, std::size_t u1) {
  if (u0 >= u1 || k1 - k0 < 2) return;
  const int pr = static_cast<int>(rows_.owner(k0)), pc = static_cast<int>(cols_.owner(k0));
  const std::size_t kb = k1 - k0;
  PassReport mine;
  const Scope phase(kSolveU);
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
  arith_ = p;
  solve_u_outcome(agree(comm_, std::vector<PassReport>{mine}, received_)[0].firsts);
}

// Rows r0..r1 x columns c0..c1 rounded to p (step: the messages' step).
void Engine::g_convert(Precision p, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1, std::size_t step) {
  if (r0 >= r1 || c0 >= c1) return;
  PassReport mine;
  convert(p, rows_.below(r0), rows_.below(r1), cols_.below(c0), cols_.below(c1), mine);
  convert_outcome(p, step, agree(comm_, std::vector<PassReport>{mine}, received_)[0].firsts);
}

// A[r0..r1][c0..c1] -= L[r0..r1][k0..k1] U[k0..k1][c0..c1] for any ranges: L's rows are
// gathered along the grid rows and U's columns down the grid columns (in global k order),
// then each rank updates its entries as one process does (one GEMM through the unit, or
// entry by entry in k order).
void Engine::g_update(const Engine::Update& u, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1, std::size_t k0,
              std::size_t k1) {
  if (r0 >= r1 || c0 >= c1 || k0 >= k1) return;
  const std::size_t l0 = rows_.below(r0), m = rows_.below(r1) - l0, lc0 = cols_.below(c0), w = cols_.below(c1) - lc0;
  const std::size_t kk = k1 - k0;
  const Scope phase(kUpdate);
  // L: this grid row's rows [l0, l0 + m), columns k0..k1 from every grid column.
  std::vector<double> L(m * kk), U(kk * w);
  {
    const std::size_t t0 = cols_.below(k0), nt = cols_.below(k1) - t0;
    std::vector<double> packed(m * nt);
    for (std::size_t i = 0; i < m; ++i) std::copy_n(&a(l0 + i, t0), nt, &packed[i * nt]);
    std::vector<int> counts(static_cast<std::size_t>(Q_)), displs(static_cast<std::size_t>(Q_));
    for (int q = 0, at = 0; q < Q_; ++q) {
      Cyclic c = cols_;
      c.me = static_cast<std::size_t>(q);
      counts[q] = static_cast<int>(m * (c.below(k1) - c.below(k0))), displs[q] = at, at += counts[q];
    }
    std::vector<double> all(m * kk);
    const Scope gathers(kGathers);
    MPI_Allgatherv(packed.data(), counts[q_], MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, comms_.row);
    received_ += static_cast<double>((all.size() - packed.size()) * sizeof(double));
    for (int q = 0; q < Q_; ++q) {
      Cyclic c = cols_;
      c.me = static_cast<std::size_t>(q);
      const std::size_t b = c.below(k0), nq = c.below(k1) - b;
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t t = 0; t < nq; ++t) L[i * kk + c.global(b + t) - k0] = all[static_cast<std::size_t>(displs[q]) + i * nq + t];
    }
  }
  {  // U: rows k0..k1 from every grid row, this grid column's columns [lc0, lc0 + w).
    const std::size_t t0 = rows_.below(k0), nt = rows_.below(k1) - t0;
    std::vector<double> packed(nt * w);
    for (std::size_t t = 0; t < nt; ++t) std::copy_n(&a(t0 + t, lc0), w, &packed[t * w]);
    std::vector<int> counts(static_cast<std::size_t>(P_)), displs(static_cast<std::size_t>(P_));
    for (int q = 0, at = 0; q < P_; ++q) {
      Cyclic r = rows_;
      r.me = static_cast<std::size_t>(q);
      counts[q] = static_cast<int>((r.below(k1) - r.below(k0)) * w), displs[q] = at, at += counts[q];
    }
    std::vector<double> all(kk * w);
    const Scope gathers(kGathers);
    MPI_Allgatherv(packed.data(), counts[p_], MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, comms_.col);
    received_ += static_cast<double>((all.size() - packed.size()) * sizeof(double));
    for (int q = 0; q < P_; ++q) {
      Cyclic r = rows_;
      r.me = static_cast<std::size_t>(q);
      const std::size_t b = r.below(k0), nq = r.below(k1) - b;
      for (std::size_t t = 0; t < nq; ++t)
        std::copy_n(&all[static_cast<std::size_t>(displs[q]) + t * w], w, &U[(r.global(b + t) - k0) * w]);
    }
  }
  PassReport mine;
  agreed(comm_, [&] {
    if (m == 0 || w == 0) return;
    if (!u.unit) {
      for (std::size_t i = 0; i < m; ++i) {
        double* row = &a(l0 + i, lc0);
        for (std::size_t t = 0; t < kk; ++t) axpy_rounded(u.store, row, &U[t * w], L[i * kk + t], 0, w);
        for (std::size_t c = 0; c < w; ++c)
          if (!std::isfinite(row[c])) mine.firsts.note({rows_.global(l0 + i), cols_.global(lc0 + c), 0, row[c], row[c]});
      }
      return;
    }
    std::vector<double> C(m * w);
    for (std::size_t i = 0; i < m; ++i) std::copy_n(&a(l0 + i, lc0), w, &C[i * w]);
    for (double& x : L) x = -x;
    models::GemmOptions g = g_;
    g.variant = u.variant;
    const bool low = u.variant == models::GemmVariant::Fp16 || u.variant == models::GemmVariant::Tc16;
    const Format& operands = u.variant == models::GemmVariant::Fp16   ? formats::fp16()
                             : u.variant == models::GemmVariant::Fp32 ? formats::fp32()
                                                                      : in_;
    const models::GemmResult up =
        models::simulate_gemm(unit_, operands, low ? formats::fp16() : formats::fp32(), m, w, kk, L, U, C, g);
    for (std::size_t i = 0; i < m; ++i) {
      double* row = &a(l0 + i, lc0);
      const double* d = &up.D[i * w];
      for (std::size_t c = 0; c < w; ++c) {
        row[c] = u.store(d[c]);
        if (!std::isfinite(row[c])) mine.firsts.note({rows_.global(l0 + i), cols_.global(lc0 + c), 0, d[c], row[c]});
      }
    }
  });
  if (u.unit && u.variant != models::GemmVariant::Fp16 && u.variant != models::GemmVariant::Fp32) ++res_.unit_calls;
  update_outcome(k1, agree(comm_, std::vector<PassReport>{mine}, received_)[0].firsts, u.store);
}

}  // namespace tcsim::dist::lu_parts
