// dp on the grid (lu_engine.hpp): models' schemes and their walk (models/src/lu_steps.hpp)
// with general distributed passes; this file adds only the data movement. Compiled with
// -ffp-contract=off.
#include <algorithm>
#include <cmath>
#include <vector>

#include "lu_engine.hpp"

namespace tcsim::dist::lu_parts {

namespace lu_detail = models::lu_detail;

// The passes lu_detail::factor_cross calls, on the grid.
struct Engine::DpPasses {
  Engine& e;
  void eliminate(Precision p, std::size_t k0, std::size_t k1) { e.g_eliminate(p, k0, k1); }
  void solve_u(Precision p, std::size_t k0, std::size_t k1, std::size_t u0, std::size_t u1) { e.g_solve_u(p, k0, k1, u0, u1); }
  void update(const Update& u, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1, std::size_t k0,
              std::size_t k1) {
    e.g_update(u, r0, r1, c0, c1, k0, k1);
  }
  void convert(Precision p, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1, std::size_t step) {
    e.g_convert(p, r0, r1, c0, c1, step);
  }
  void step_done(std::size_t k1) {
    if (e.rank_ == 0 && e.o_.progress) e.o_.progress(static_cast<double>(k1) / static_cast<double>(e.n_));
  }
};

void Engine::run_dp() {
  lu_detail::SchemeParts parts;
  const lu_detail::Scheme top = lu_detail::dp_scheme(o_.panel, r_, o_.inner_block, parts);
  DpPasses passes{*this};
  lu_detail::factor_cross(passes, top, n_, o_.pivot, 0, n_, n_);
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
  PassReport mine;
  solve_u(p, k0, k1, u0, u1, static_cast<int>(rows_.owner(k0)), static_cast<int>(cols_.owner(k0)), mine);
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
// then each rank updates its entries as one process does.
void Engine::g_update(const Update& u, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1, std::size_t k0,
                      std::size_t k1) {
  if (r0 >= r1 || c0 >= c1 || k0 >= k1) return;
  const std::size_t l0 = rows_.below(r0), l1 = rows_.below(r1), lc0 = cols_.below(c0), lc1 = cols_.below(c1);
  const Scope phase(kUpdate);
  std::vector<double> L = gather_l(l0, l1, k0, k1, -1), U = gather_u(lc0, lc1, k0, k1, -1);
  PassReport mine;
  agreed(comm_, [&] { local_update(u, l0, l1 - l0, lc0, lc1 - lc0, L, U, k1 - k0, mine); });
  if (u.unit && u.variant != models::GemmVariant::Fp16 && u.variant != models::GemmVariant::Fp32) ++res_.unit_calls;
  update_outcome(k1, agree(comm_, std::vector<PassReport>{mine}, received_)[0].firsts, u.store);
}

}  // namespace tcsim::dist::lu_parts
