// Iterative refinement of Ax = b with the simulated LU factors as the solver (issue 8).
//
// Three precisions in the sense of Carson & Higham (cited in blanchard2020 section 4.1 as [6],
// [7]): the factorization precision u_f is that of `lu` (simulate_lu's storage, the updates on
// the unit), the working precision u holds x, r and d (fp32 or fp64), and the residual
// r = b - A x is computed in about u_r = u64^2 (Ogita-Rump-Oishi Dot2, binary64 only: the same
// bits on every machine) from A and b as given (not rounded to u), then rounded to u.
//
// lu-ir: d solves L U d = P r by substitution in u (lu_solve).
// gmres-ir: d from GMRES on the left-preconditioned system (U^-1 L^-1 P) A d = (U^-1 L^-1 P) r,
// the preconditioner applied by lu_solve in u, GMRES itself (products with A, modified
// Gram-Schmidt Arnoldi, Givens rotations) in binary64; blanchard2020 section 4.1 relates the
// GMRES iterations this takes to the accuracy of the tensor-core factorization. The default
// GMRES tolerance u is often out of reach of the preconditioned residual: GMRES then runs to n
// steps; a looser one (1e-4 .. 1e-8) gives GMRES step counts that measure the preconditioner.
// Each step ends with x <- fl_u(x + fl_u(d)).
//
// Stopping: converged when the normwise backward error ||b - A x||_inf / (||A||_inf ||x||_inf +
// ||b||_inf) <= u; otherwise stagnated when the correction fails to halve on two steps in a row
// (||d_i||_inf > ||d_{i-1}||_inf / 2: the ratio test of LAPACK xGERFSX with rthresh = 1/2, made
// twice to let one noisy step through) or is zero, diverged when both of those steps grew the
// correction or x is not finite, and "did not converge" after max_iterations steps.
#pragma once
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tcsim/models/lu.hpp"

namespace tcsim::models {

enum class RefineMethod { LuIr, GmresIr };
std::string refine_method_name(RefineMethod method);  // "lu-ir", "gmres-ir"
// Throws std::invalid_argument "refine: 'x' is not allowed; allowed: lu-ir, gmres-ir".
RefineMethod parse_refine_method(std::string_view text);

struct RefineOptions {
  RefineMethod method = RefineMethod::LuIr;
  std::string working = "fp64";  // working precision u: "fp32" (2^-24) | "fp64" (2^-53)
  int max_iterations = 20;       // refinement steps (>= 1)
  int gmres_max_iterations = 0;  // GMRES steps per refinement step: 0 = min(n, 500); at most n
  double gmres_tolerance = 0;    // relative preconditioned residual; 0 = u
};

struct RefineStep {
  int iteration = 0;                          // 0: the initial solve
  double normwise_backward_error = 0;         // of x after this step
  double componentwise_backward_error = 0;    // max_i |b - A x|_i / (|A||x| + |b|)_i
  double correction_norm = 0;                 // ||d||_inf / ||x||_inf (NaN at iteration 0)
  double forward_error = 0;                   // ||x - x_true||_inf / ||x_true||_inf (NaN without x_true)
  int gmres_iterations = 0;                   // 0 for lu-ir and at iteration 0
};

struct RefineResult {
  std::vector<double> x;  // the final iterate: values of the working precision
  bool converged = false;
  int iterations = 0;  // refinement steps taken (history.size() - 1)
  int gmres_iterations_total = 0;
  double normwise_backward_error = 0;
  double componentwise_backward_error = 0;
  double forward_error = 0;  // NaN without x_true
  // "converged: normwise backward error 3.4e-18 <= u = 1.1e-16", "did not converge in 20
  // iterations (...)", "stagnated: ...", "diverged: ..." (see the top of this file).
  std::string stop_reason;
  std::vector<RefineStep> history;  // every step, iteration 0 first
};

// Refines x0 = lu_solve(lu, b, working) for A (n x n row-major binary64 values, n = lu.n, the
// matrix that was factorized) and b. x_true (n values or empty) gives the forward errors.
// Throws std::invalid_argument naming A, b, x_true or lu with the expected size, or the option
// with what is allowed.
RefineResult refine_solution(const LuResult& lu, std::span<const double> A, std::span<const double> b,
                             std::span<const double> x_true, const RefineOptions& options = {});

}  // namespace tcsim::models
