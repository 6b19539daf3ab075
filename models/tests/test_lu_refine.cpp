// refine_solution (lu_refine.hpp): LU-IR and GMRES-IR around simulate_lu's TC32 factors
// (Carson & Higham's three precisions; blanchard2020 section 4.1). q1dq2 matrices of n = 200
// with partial pivoting: without it their growth defeats LU-IR at any condition number
// (checked below). The TC32 factors carry errors of order u16 (L and U are rounded to fp16 for
// the updates), so LU-IR converges only while cond * u16 stays well below 1; GMRES-IR
// converges far beyond that.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "tcsim/models/lu.hpp"
#include "tcsim/models/lu_refine.hpp"

using namespace tcsim;
using namespace tcsim::models;

namespace {

constexpr std::size_t kN = 200;
constexpr std::uint64_t kSeed = 20261124;

std::vector<double> times(const std::vector<double>& A, const std::vector<double>& x) {
  const std::size_t n = x.size();
  std::vector<double> b(n, 0.0);  // binary64, in column order
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < n; ++c) b[i] += A[i * n + c] * x[c];
  return b;
}

std::vector<double> solution() {  // x_true: standard normal entries, pinned
  std::vector<double> x = matrix_normal(kN, 5);
  x.resize(kN);
  return x;
}

LuResult factor(const std::vector<double>& A, GemmVariant v = GemmVariant::Tc32, bool pivot = true) {
  LuOptions o;
  o.variant = v;
  o.storage = "fp32";
  o.pivot = pivot;
  return simulate_lu(builtin_unit("v100"), formats::fp16(), kN, A, o);
}

RefineResult run(const LuResult& lu, const std::vector<double>& A, const std::vector<double>& b,
                 const std::vector<double>& x, RefineMethod m, std::string working = "fp64", double tol = 0) {
  RefineOptions o;
  o.method = m;
  o.working = std::move(working);
  o.gmres_tolerance = tol;
  return refine_solution(lu, A, b, x, o);
}

void print(const char* what, double cond, const RefineResult& r) {
  std::printf("[refine] %s cond %.0e: %s after %d steps, %d GMRES steps; backward errors %.2e (normwise) %.2e "
              "(componentwise), forward error %.2e; %s\n",
              what, cond, r.converged ? "converged" : "stopped", r.iterations, r.gmres_iterations_total,
              r.normwise_backward_error, r.componentwise_backward_error, r.forward_error, r.stop_reason.c_str());
}

// What refinement cost: its steps, or more than any run when it did not converge.
int cost(const RefineResult& r, int max_iterations) { return r.converged ? r.iterations : max_iterations + 1; }

}  // namespace

TEST_CASE("lu refine: LU-IR on TC32 factors reaches the fp64 backward error at cond 1e3", "[lu][refine]") {
  const std::vector<double> A = matrix_q1dq2(kN, 1e3, kSeed), x = solution(), b = times(A, x);
  const LuResult lu = factor(A);
  const RefineResult r = run(lu, A, b, x, RefineMethod::LuIr);
  print("lu-ir fp64", 1e3, r);
  for (const RefineStep& s : r.history)
    std::printf("[refine]   step %d: normwise %.2e componentwise %.2e correction %.2e forward %.2e\n", s.iteration,
                s.normwise_backward_error, s.componentwise_backward_error, s.correction_norm, s.forward_error);
  CHECK(r.converged);
  CHECK(r.stop_reason.rfind("converged: normwise backward error ", 0) == 0);
  CHECK(r.iterations <= 10);  // 9 measured: each step gains ~1.5 digits (cond * u16-sized factor errors)
  CHECK(r.normwise_backward_error <= 0x1p-53);
  CHECK(r.componentwise_backward_error <= 0x1p-50);
  CHECK(r.forward_error <= 1e3 * 1e-15);
  CHECK(r.history.front().normwise_backward_error > 1e-6);  // the initial solve is far from u
  REQUIRE(r.history.size() == static_cast<std::size_t>(r.iterations) + 1);
  for (std::size_t i = 1; i < r.history.size(); ++i) {
    INFO("step " << i);
    CHECK(r.history[i].iteration == static_cast<int>(i));
    CHECK(r.history[i].normwise_backward_error * 4 <= r.history[i - 1].normwise_backward_error);
    CHECK(r.history[i].gmres_iterations == 0);
  }
  CHECK(std::isnan(r.history[0].correction_norm));
  CHECK(r.gmres_iterations_total == 0);
  // The same bits on a second run (no state kept between calls).
  const RefineResult again = run(lu, A, b, x, RefineMethod::LuIr);
  CHECK(again.x == r.x);
  CHECK(again.stop_reason == r.stop_reason);
}

TEST_CASE("lu refine: without pivoting the growth of q1dq2 defeats LU-IR but not GMRES-IR", "[lu][refine]") {
  const std::vector<double> A = matrix_q1dq2(kN, 1e3, kSeed), x = solution(), b = times(A, x);
  const LuResult lu = simulate_lu(builtin_unit("v100"), formats::fp16(), kN, A);  // default LuOptions
  double a_max = 0, lu_max = 0;
  for (double v : A) a_max = std::max(a_max, std::fabs(v));
  for (double v : lu.LU) lu_max = std::max(lu_max, std::fabs(v));
  const RefineResult lu_ir = run(lu, A, b, x, RefineMethod::LuIr);
  const RefineResult gm_ir = run(lu, A, b, x, RefineMethod::GmresIr);
  std::printf("[refine] no pivoting: max |LU| / max |A| = %.2e\n", lu_max / a_max);
  print("lu-ir fp64 no pivoting", 1e3, lu_ir);
  print("gmres-ir fp64 no pivoting", 1e3, gm_ir);
  CHECK(lu_max > 100 * a_max);  // 3.6e3 measured: the fp16-rounded L and U lose everything
  CHECK_FALSE(lu_ir.converged);
  CHECK((lu_ir.stop_reason.rfind("diverged: ", 0) == 0 || lu_ir.stop_reason.rfind("stagnated: ", 0) == 0));
  CHECK(lu_ir.forward_error > 1);
  CHECK(gm_ir.converged);
  CHECK(gm_ir.normwise_backward_error <= 0x1p-53);
  CHECK(gm_ir.forward_error <= 1e3 * 1e-15);
}

// Carson & Higham: LU-IR contracts the error by about cond * (the factorization's relative
// error) per step, so it slows and then fails as cond grows; GMRES-IR only needs the
// preconditioned matrix to be reasonably conditioned and keeps converging to u, with more GMRES
// steps as cond grows (blanchard2020 section 4.1 takes the GMRES steps as the cost).
TEST_CASE("lu refine: LU-IR slows then fails as cond grows while GMRES-IR converges", "[lu][refine]") {
  const std::vector<double> x = solution();
  const double conds[] = {1e1, 1e2, 1e3, 1e4, 1e5, 1e7, 1e9};
  int last_cost = 0, last_gmres = 0;
  for (double cond : conds) {
    INFO("cond " << cond);
    const std::vector<double> A = matrix_q1dq2(kN, cond, kSeed), b = times(A, x);
    const LuResult lu = factor(A);
    const RefineResult lu_ir = run(lu, A, b, x, RefineMethod::LuIr);
    const RefineResult gm_ir = run(lu, A, b, x, RefineMethod::GmresIr);
    const RefineResult gm_loose = run(lu, A, b, x, RefineMethod::GmresIr, "fp64", 1e-8);
    print("lu-ir fp64", cond, lu_ir);
    print("gmres-ir fp64", cond, gm_ir);
    print("gmres-ir fp64 gmres tol 1e-8", cond, gm_loose);
    const int c = cost(lu_ir, 20);
    CHECK(c >= last_cost);
    last_cost = c;
    if (cond <= 1e3) {
      CHECK(lu_ir.converged);
      CHECK(lu_ir.iterations <= 10);  // 5, 6, 9 measured
    }
    if (cond >= 1e5) {
      CHECK_FALSE(lu_ir.converged);
      CHECK((lu_ir.stop_reason.rfind("diverged: ", 0) == 0 || lu_ir.stop_reason.rfind("stagnated: ", 0) == 0));
    }
    for (const RefineResult* g : {&gm_ir, &gm_loose}) {
      CHECK(g->converged);
      CHECK(g->iterations <= 3);  // 1-2 measured (1e-8: 2)
      CHECK(g->normwise_backward_error <= 0x1p-53);
      CHECK(g->forward_error <= cond * 1e-15);
      int sum = 0;
      for (const RefineStep& s : g->history) sum += s.gmres_iterations;
      CHECK(sum == g->gmres_iterations_total);
    }
    CHECK(gm_loose.gmres_iterations_total >= last_gmres);  // 7, 8, 12, 22, 56, 214, 293 measured
    last_gmres = gm_loose.gmres_iterations_total;
  }
  CHECK(last_cost == 21);  // LU-IR fails at the largest cond
}

// blanchard2020 section 4.1: the more accurate TC32 factorization should need fewer GMRES steps
// than fp16 products (Haidar et al. measured at most half). Same fp32 storage for all three.
TEST_CASE("lu refine: GMRES-IR needs fewer GMRES steps with TC32 factors than with TC16 or fp16", "[lu][refine]") {
  const std::vector<double> x = solution();
  for (double cond : {1e3, 1e4, 1e5, 1e6, 1e7}) {
    INFO("cond " << cond);
    const std::vector<double> A = matrix_q1dq2(kN, cond, kSeed), b = times(A, x);
    int steps[3];
    const GemmVariant variants[3] = {GemmVariant::Tc32, GemmVariant::Tc16, GemmVariant::Fp16};
    for (int v = 0; v < 3; ++v) {
      const RefineResult r = run(factor(A, variants[v]), A, b, x, RefineMethod::GmresIr, "fp64", 1e-8);
      CHECK(r.converged);
      steps[v] = r.gmres_iterations_total;
    }
    std::printf("[refine] gmres-ir cond %.0e, GMRES tol 1e-8, total GMRES steps: tc32 %d, tc16 %d, fp16 %d\n", cond,
                steps[0], steps[1], steps[2]);
    CHECK(steps[0] < steps[1]);
    CHECK(steps[1] < steps[2]);
    if (cond == 1e5) CHECK(2 * steps[0] <= steps[2]);  // 56 against 145 measured
  }
}

TEST_CASE("lu refine: fp32 working precision converges to 2^-24", "[lu][refine]") {
  const std::vector<double> x = solution();
  {
    const std::vector<double> A = matrix_q1dq2(kN, 1e3, kSeed), b = times(A, x);
    const RefineResult r = run(factor(A), A, b, x, RefineMethod::LuIr, "fp32");
    print("lu-ir fp32", 1e3, r);
    CHECK(r.converged);
    CHECK(r.iterations <= 4);  // 3 measured
    CHECK(r.normwise_backward_error <= 0x1p-24);
    CHECK(r.forward_error <= 1e3 * 1e-7);
    bool fp32_values = true;
    for (double v : r.x) fp32_values = fp32_values && static_cast<double>(static_cast<float>(v)) == v;
    CHECK(fp32_values);
  }
  {
    const std::vector<double> A = matrix_q1dq2(kN, 1e6, kSeed), b = times(A, x);
    const LuResult lu = factor(A);
    const RefineResult lu_ir = run(lu, A, b, x, RefineMethod::LuIr, "fp32");
    const RefineResult gm_ir = run(lu, A, b, x, RefineMethod::GmresIr, "fp32");
    print("lu-ir fp32", 1e6, lu_ir);
    print("gmres-ir fp32", 1e6, gm_ir);
    CHECK_FALSE(lu_ir.converged);
    CHECK(gm_ir.converged);
    CHECK(gm_ir.normwise_backward_error <= 0x1p-24);
  }
}

// A = [2 1; 1 2 + 2^-30]: fp32 storage rounds a22 to 2, so the factors L = [1 0; 0.5 1],
// U = [2 1; 0 1.5] are exact for A~ = [2 1; 1 2]. For b = A (1, 1) = (3, 3 + 2^-30) the
// initial solve gives x2 = 1 + (2/3) 2^-30, x1 = 1 - (1/3) 2^-30 (forward error (4/3) 2^-31);
// one step leaves an error of order 2^-60, below half an ulp of 1: x = (1, 1) exactly.
TEST_CASE("lu refine: a 2x2 with inexact fp32 factors refines to the exact solution", "[lu][refine]") {
  const std::vector<double> A = {2, 1, 1, 2 + 0x1p-30}, b = {3, 3 + 0x1p-30}, x = {1, 1};
  const LuResult lu = simulate_lu(builtin_unit("v100"), formats::fp16(), 2, A);
  REQUIRE(lu.LU == std::vector<double>{2, 1, 0.5, 1.5});
  for (RefineMethod m : {RefineMethod::LuIr, RefineMethod::GmresIr}) {
    INFO(refine_method_name(m));
    const RefineResult r = run(lu, A, b, x, m);
    std::printf("[refine] 2x2 %s: initial forward error %a, then x = (%a, %a) after %d step(s)\n",
                refine_method_name(m).c_str(), r.history[0].forward_error, r.x[0], r.x[1], r.iterations);
    CHECK(r.history[0].forward_error == Approx(0x1p-31 * 4 / 3).epsilon(1e-6));
    CHECK(r.x == x);
    CHECK(r.converged);
    CHECK(r.iterations == 1);
    CHECK(r.normwise_backward_error == 0);
    CHECK(r.componentwise_backward_error == 0);
    CHECK(r.forward_error == 0);
    CHECK(r.stop_reason == "converged: normwise backward error 0 <= u = 1.1e-16");
  }
  // Exact factors and b: nothing to refine.
  const std::vector<double> A3 = {4, 3, 2, 6, 3, 4, -2, -4.5, 1.25}, b3 = {9, 13, -5.25};
  const RefineResult r3 = refine_solution(simulate_lu(builtin_unit("v100"), formats::fp16(), 3, A3), A3, b3, {});
  CHECK(r3.x == std::vector<double>{1, 1, 1});
  CHECK(r3.iterations == 0);
  CHECK(r3.converged);
  CHECK(std::isnan(r3.forward_error));
}

TEST_CASE("lu refine: a non-finite iterate stops as diverged", "[lu][refine]") {
  LuResult lu;  // 1 x 1 factors far off A = [1]: x0 = 1e10 / 1e-300 overflows
  lu.n = 1;
  lu.LU = {1e-300};
  lu.perm = {0};
  lu.storage = "fp64";
  const RefineResult r = refine_solution(lu, std::vector<double>{1}, std::vector<double>{1e10}, {});
  CHECK_FALSE(r.converged);
  CHECK(r.iterations == 0);
  CHECK(r.stop_reason == "diverged: x is not finite at iteration 0");
}

TEST_CASE("lu refine: invalid options and sizes name what is wrong", "[lu][refine]") {
  const std::vector<double> A = {2, 1, 1, 2}, b = {3, 3};
  const LuResult lu = simulate_lu(builtin_unit("v100"), formats::fp16(), 2, A);
  CHECK(refine_method_name(parse_refine_method("lu-ir")) == "lu-ir");
  CHECK(refine_method_name(parse_refine_method("gmres-ir")) == "gmres-ir");
  CHECK_THROWS_WITH(parse_refine_method("gmres"), "refine: 'gmres' is not allowed; allowed: lu-ir, gmres-ir");
  CHECK_THROWS_WITH(refine_solution(lu, std::vector<double>{1, 2, 3}, b, {}), "A: expected n * n = 4 values, got 3");
  CHECK_THROWS_WITH(refine_solution(lu, A, std::vector<double>{3}, {}), "b: expected n = 2 values, got 1");
  CHECK_THROWS_WITH(refine_solution(lu, A, b, std::vector<double>{1, 1, 1}),
                    "x_true: expected n = 2 values or none, got 3");
  RefineOptions o;
  o.working = "fp16";
  CHECK_THROWS_WITH(refine_solution(lu, A, b, {}, o), "working: 'fp16' is not allowed; allowed: fp32, fp64");
  o = {};
  o.max_iterations = 0;
  CHECK_THROWS_WITH(refine_solution(lu, A, b, {}, o), "max_iterations: must be at least 1, got 0");
  o = {};
  o.gmres_max_iterations = -1;
  CHECK_THROWS_WITH(refine_solution(lu, A, b, {}, o), "gmres_max_iterations: must be >= 0 (0: min(n, 500)), got -1");
  o = {};
  o.gmres_tolerance = 1;
  CHECK_THROWS_WITH(refine_solution(lu, A, b, {}, o),
                    "gmres_tolerance: must be in [0, 1) (0: the working unit roundoff), got 1");
  LuResult broken = lu;
  broken.perm.pop_back();
  CHECK_THROWS_WITH(refine_solution(broken, A, b, {}),
                    "lu: expected n * n = 4 factor values and n = 2 perm entries, got 4 and 1");
}
