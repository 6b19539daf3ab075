// LuOnBreakdown::Continue (issue 22 part 4): the factorization carries on in the storage
// format's IEEE arithmetic and names the first subnormal pivot, zero pivot, overflow and NaN;
// stop keeps the breakdown; the backward errors of a non-finite x are never finite (an all-NaN
// x once had a normwise backward error of 0), and the substitutions report their own events.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tcsim/models/lu.hpp"

using namespace tcsim;
using namespace tcsim::models;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Exact comparison of factors: the same value (sign of zero and infinity included), NaN for NaN.
bool same(const std::vector<double>& got, const std::vector<double>& want) {
  if (got.size() != want.size()) return false;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i]) != std::isnan(got[i])) return false;
    if (!std::isnan(want[i]) && (got[i] != want[i] || std::signbit(got[i]) != std::signbit(want[i]))) return false;
  }
  return true;
}

LuOptions cont(LuAlgorithm alg, std::string storage = "") {
  LuOptions o;
  o.algorithm = alg;
  o.storage = std::move(storage);
  if (alg == LuAlgorithm::Rl && o.storage == "fp16") o.variant = GemmVariant::Tc16;
  o.on_breakdown = LuOnBreakdown::Continue;
  return o;
}

void check_event(const LuEvent& e, std::size_t step, std::size_t row, std::size_t col, double value,
                 const std::string& where) {
  INFO("event at step " << e.step << " entry (" << e.row << ", " << e.col << ") value " << e.value << " where "
                        << e.where);
  CHECK(e.found);
  CHECK(e.step == step);
  CHECK(e.block == (step == 0 ? 0 : 1));
  CHECK(e.row == row);
  CHECK(e.col == col);
  CHECK((std::isnan(value) ? std::isnan(e.value) : e.value == value));
  CHECK(e.where == where);
}

}  // namespace

TEST_CASE("lu continue: fp16 growth overflows to -inf in every algorithm, the first overflow named", "[lu][breakdown]") {
  // apps/tests/bad_inputs/m_growth.mtx: U[1][1] = 4 - 300 * 300 = -89996, beyond fp16.
  const std::vector<double> A = {1, 300, 300, 4};
  const Unit& u = builtin_unit("h100");
  struct Case {
    LuOptions o;
    const char* where;
  };
  std::vector<Case> cases = {{cont(LuAlgorithm::Rl, "fp16"), "the elimination"},
                             {cont(LuAlgorithm::Ll), "the elimination"},
                             {cont(LuAlgorithm::LlFp32Panel), "converting the fp32 buffer to fp16"},
                             {cont(LuAlgorithm::RefRl, "fp16"), "the elimination"},
                             {cont(LuAlgorithm::RefLl, "fp16"), "the elimination"}};
  cases.push_back({cont(LuAlgorithm::Rl), ""});
  cases.back().o.variant = GemmVariant::Fp16;  // blanchard2020's fp16 LU without tensor cores
  cases.back().where = "the elimination";
  for (LuPanel p : {LuPanel::RlFp16, LuPanel::RlFp32, LuPanel::Ll, LuPanel::LlFp32Panel}) {
    // PanelFactor rl-fp16 and ll eliminate in fp16 (lopez2022 Table 2's u_in = u16).
    const bool fp16_panel = p == LuPanel::RlFp16 || p == LuPanel::Ll;
    cases.push_back({cont(LuAlgorithm::Dp), fp16_panel ? "the elimination" : "converting the fp32 buffer to fp16"});
    cases.back().o.panel = p;
  }
  for (bool pivot : {false, true})
    for (Case cs : cases) {
      cs.o.pivot = pivot;
      INFO(lu_algorithm_name(cs.o.algorithm) << " " << lu_panel_name(cs.o.panel) << (pivot ? " pivoting" : ""));
      const LuResult lu = simulate_lu(u, formats::fp16(), 2, A, cs.o);
      CHECK(lu.on_breakdown == "continue");
      if (!pivot) {
        CHECK(same(lu.LU, {1, 300, 300, -kInf}));
        check_event(lu.events.overflow, 1, 1, 1, -kInf, cs.where);
        CHECK_FALSE(lu.events.nan.found);
      } else {  // rows swapped: l = 1/300 in fp16, U[1][1] = 300 - fl(l * 4): finite
        CHECK(lu.perm == std::vector<std::size_t>{1, 0});
        CHECK_FALSE(lu.events.any());
      }
      CHECK_FALSE(lu.events.subnormal_pivot.found);
      CHECK_FALSE(lu.events.zero_pivot.found);
    }
}

TEST_CASE("lu continue: the update through the unit overflows as the unit's fp16 output gives", "[lu][breakdown]") {
  // r = 1: U[1][1] comes from the update A22 - L21 U12 on the unit (TC16: fp16 output), whose
  // row says how it overflows; the factor must hold exactly the unit's result.
  const std::vector<double> A = {1, 300, 300, 4};
  const Unit& u = builtin_unit("h100");
  LuOptions o = cont(LuAlgorithm::Rl, "fp16");
  o.block = 1;
  const LuResult lu = simulate_lu(u, formats::fp16(), 2, A, o);
  const std::vector<double> Lneg = {-300}, U12 = {300}, C = {4};
  GemmOptions g;
  g.variant = GemmVariant::Tc16;
  const double unit_d = simulate_gemm(u, formats::fp16(), formats::fp16(), 1, 1, 1, Lneg, U12, C, g).D[0];
  INFO("the unit gives " << unit_d);
  CHECK(same(lu.LU, {1, 300, 300, unit_d}));
  if (std::isinf(unit_d)) check_event(lu.events.overflow, 1, 1, 1, unit_d, "the update A22 - L21 U12");
  else CHECK_FALSE(lu.events.any());
  o.on_breakdown = LuOnBreakdown::Stop;
  if (std::isinf(unit_d))
    CHECK_THROWS_WITH(simulate_lu(u, formats::fp16(), 2, A, o),
                      "LU breakdown at step 1 (block 1): the update A22 - L21 U12 gives A[1][1] = -inf, not finite in "
                      "fp16 storage");
}

TEST_CASE("lu continue: a subnormal pivot divides as IEEE does", "[lu][breakdown]") {
  const Unit& u = builtin_unit("v100");
  const double tiny = 0x1p-20;  // subnormal in fp16 (normal from 2^-14)
  // l = 2^-22 / 2^-20 = 0.25 exactly, U[1][1] = 1 - 0.25.
  const std::vector<double> A = {tiny, 1, 0x1p-22, 1};
  for (LuAlgorithm alg : {LuAlgorithm::Rl, LuAlgorithm::Ll, LuAlgorithm::RefRl}) {
    INFO(lu_algorithm_name(alg));
    const LuResult lu = simulate_lu(u, formats::fp16(), 2, A, cont(alg, alg == LuAlgorithm::Ll ? "" : "fp16"));
    CHECK(same(lu.LU, {tiny, 1, 0.25, 0.75}));
    check_event(lu.events.subnormal_pivot, 1, 0, 0, tiny, "the pivot");
    CHECK_FALSE(lu.events.overflow.found);
    CHECK_FALSE(lu.events.nan.found);
    LuOptions stop = cont(alg, alg == LuAlgorithm::Ll ? "" : "fp16");
    stop.on_breakdown = LuOnBreakdown::Stop;
    CHECK_THROWS_WITH(simulate_lu(u, formats::fp16(), 2, A, stop),
                      "LU breakdown at step 1 (block 1): pivot U[0][0] = 9.53674316e-07 is below the normal range of "
                      "fp16 (no pivoting: try --pivot)");
  }
  // 1 / 2^-20 = 2^20 overflows fp16: the multiplier is +inf and U[1][1] = 1 - inf = -inf.
  const LuResult lu = simulate_lu(u, formats::fp16(), 2, std::vector<double>{tiny, 1, 1, 1}, cont(LuAlgorithm::Ll));
  CHECK(same(lu.LU, {tiny, 1, kInf, -kInf}));
  check_event(lu.events.subnormal_pivot, 1, 0, 0, tiny, "the pivot");
  check_event(lu.events.overflow, 1, 1, 0, kInf, "the elimination");
}

TEST_CASE("lu continue: Inf - Inf and 0 / 0 give NaN, which spreads (the first NaN named)", "[lu][breakdown]") {
  const Unit& u = builtin_unit("h100");
  // Step 1: U[1][1..2] = 4 - 90000 = -inf; step 2: pivot -inf, l = -inf / -inf = NaN, U[2][2] = NaN.
  const std::vector<double> A = {1, 300, 300, 300, 4, 4, 300, 4, 4};
  for (LuAlgorithm alg : {LuAlgorithm::Rl, LuAlgorithm::Ll, LuAlgorithm::RefLl}) {
    INFO(lu_algorithm_name(alg));
    const LuResult lu = simulate_lu(u, formats::fp16(), 3, A, cont(alg, alg == LuAlgorithm::Ll ? "" : "fp16"));
    CHECK(same(lu.LU, {1, 300, 300, 300, -kInf, -kInf, 300, kNaN, kNaN}));
    check_event(lu.events.overflow, 1, 1, 1, -kInf, "the elimination");
    check_event(lu.events.nan, 2, 2, 1, kNaN, "the elimination");
    CHECK_FALSE(lu.events.zero_pivot.found);
    // The solution and its backward errors are NaN, never finite.
    const std::vector<double> b = {601, 308, 308};
    LuSolveEvents se;
    const std::vector<double> x = lu_solve(lu, b, "fp32", &se);
    CHECK(std::isnan(x[2]));
    CHECK(se.nan.found);
    const LuBackwardErrors e = lu_backward_errors(lu, A, x, b);
    CHECK(std::isnan(e.componentwise));
    CHECK(std::isnan(e.normwise));
  }
  // A zero pivot: 0 / 0 = NaN multiplier, U[1][1] = 1 - NaN.
  const LuResult z = simulate_lu(u, formats::fp16(), 2, std::vector<double>{0, 1, 0, 1}, cont(LuAlgorithm::RefRl, "fp16"));
  CHECK(same(z.LU, {0, 1, kNaN, kNaN}));
  check_event(z.events.zero_pivot, 1, 0, 0, 0.0, "the pivot");
  check_event(z.events.nan, 1, 1, 0, kNaN, "the elimination");
  CHECK_FALSE(z.events.overflow.found);
}

TEST_CASE("lu continue: an entry beyond the storage is +-inf from the start (step 0)", "[lu][breakdown]") {
  const Unit& u = builtin_unit("h100");
  const std::vector<double> A = {1, 1e5, 1, 2};  // apps/tests/bad_inputs/m_1e5.mtx
  const LuResult lu = simulate_lu(u, formats::fp16(), 2, A, cont(LuAlgorithm::Ll));
  check_event(lu.events.overflow, 0, 0, 1, kInf, "rounding A to the fp16 storage");
  CHECK(same(lu.LU, {1, kInf, 1, -kInf}));
}

TEST_CASE("lu backward errors: a NaN or Inf x never has a finite backward error", "[lu][breakdown]") {
  const Unit& u = builtin_unit("h100");
  const std::vector<double> A = {1, 0, 1, 1}, b = {60000, -60000};
  LuOptions o;
  o.algorithm = LuAlgorithm::RefRl;
  o.storage = "fp32";
  const LuResult lu = simulate_lu(u, formats::fp16(), 2, A, o);
  // The audit's case: an all-NaN x gave a normwise backward error of 0 (std::max drops NaN).
  const LuBackwardErrors all_nan = lu_backward_errors(lu, A, std::vector<double>{kNaN, kNaN}, b);
  CHECK(std::isnan(all_nan.normwise));
  CHECK(std::isnan(all_nan.componentwise));
  const LuBackwardErrors one_nan = lu_backward_errors(lu, A, std::vector<double>{1, kNaN}, b);
  CHECK(std::isnan(one_nan.normwise));
  // fp16 substitutions: y[1] = -60000 - 60000 = -inf, then x[0] = 60000 - 0 * -inf = NaN.
  LuSolveEvents se;
  const std::vector<double> x = lu_solve(lu, b, "fp16", &se);
  CHECK(std::isnan(x[0]));
  CHECK(x[1] == -kInf);
  check_event(se.overflow, 0, 1, 1, -kInf, "the forward substitution (y)");
  check_event(se.nan, 0, 0, 0, kNaN, "the back substitution (x)");
  CHECK(se.first.where == "the forward substitution (y)");
  CHECK(lu_solve_breakdown(se, "fp16") ==
        "LU breakdown in the substitutions: the forward substitution (y) gives y[1] = -inf, not finite in fp16");
  const LuBackwardErrors e = lu_backward_errors(lu, A, x, b);
  CHECK(std::isnan(e.normwise));
  CHECK_FALSE(std::isfinite(e.componentwise));
  // Finite x: no events, no breakdown text.
  LuSolveEvents none;
  (void)lu_solve(lu, std::vector<double>{1, 2}, "fp32", &none);
  CHECK_FALSE(none.any());
  CHECK(lu_solve_breakdown(none, "fp32").empty());
}

TEST_CASE("lu on_breakdown: names and the error for a bad value", "[lu][breakdown]") {
  CHECK(parse_lu_on_breakdown("stop") == LuOnBreakdown::Stop);
  CHECK(parse_lu_on_breakdown("continue") == LuOnBreakdown::Continue);
  CHECK(lu_on_breakdown_name(LuOnBreakdown::Continue) == "continue");
  CHECK_THROWS_WITH(parse_lu_on_breakdown("maybe", "--on-breakdown"),
                    "--on-breakdown: 'maybe' is not allowed; allowed: stop, continue");
}
