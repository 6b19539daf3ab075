// simulate_lu (blanchard2020 Algorithm 4.1 / lopez2022 Algorithm 3.1) and its matrices:
// exact factors of small matrices, breakdowns named with step, block and value, backward
// errors below blanchard2020 Theorem 4.4's bound, the ordering of blanchard2020 Fig. 4.2,
// thread-count determinism, and generators that give the same bits everywhere.
#include <catch2/catch.hpp>

#include <bit>
#include <cstdio>
#include <string>
#include <vector>

#include "models_test_helpers.hpp"
#include "test_support.hpp"
#include "tcsim/models/lu.hpp"
#include "tcsim/reference/bounds.hpp"

using namespace tcsim;
using namespace tcsim::models;

namespace {

std::vector<double> ones_rhs(const std::vector<double>& A, std::size_t n) {
  std::vector<double> b(n, 0.0);  // b = A * ones, in binary64
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < n; ++c) b[i] += A[i * n + c];
  return b;
}

double backward_error(const Unit& u, const std::vector<double>& A, std::size_t n, LuOptions o) {
  const LuResult lu = simulate_lu(u, formats::fp16(), n, A, o);
  const std::vector<double> b = ones_rhs(A, n);
  const std::vector<double> x = lu_solve(lu, b);
  return lu_backward_errors(lu, A, x, b).componentwise;
}

}  // namespace

TEST_CASE("lu: exact factors of a small matrix for every variant and block size", "[lu]") {
  const Unit& u = builtin_unit("v100");
  // A = L U with L = [1 0 0; 1.5 1 0; -0.5 2 1], U = [4 3 2; 0 -1.5 1; 0 0 0.25]: every
  // operation exact in binary16.
  const std::vector<double> A = {4, 3, 2, 6, 3, 4, -2, -4.5, 1.25};
  const std::vector<double> want = {4, 3, 2, 1.5, -1.5, 1, -0.5, 2, 0.25};
  for (GemmVariant v : {GemmVariant::Fp16, GemmVariant::Tc16, GemmVariant::Tc32, GemmVariant::Fp32})
    for (std::size_t r : {1, 2, 3, 8}) {
      LuOptions o;
      o.variant = v;
      o.block = r;
      const LuResult lu = simulate_lu(u, formats::fp16(), 3, A, o);
      INFO(variant_name(v) << " r " << r);
      CHECK(lu.LU == want);
      CHECK(lu.storage == (v == GemmVariant::Fp16 || v == GemmVariant::Tc16 ? "fp16" : "fp32"));
      const std::vector<double> x = lu_solve(lu, std::vector<double>{9, 13, -5.25});
      CHECK(x == std::vector<double>{1, 1, 1});
    }
}

TEST_CASE("lu: zero pivots and overflow stop with the step, the block and the value", "[lu]") {
  const Unit& u = builtin_unit("v100");
  const std::vector<double> A = {1, 2, 0, 1, 2, 4, 5, 0, 3, 1, 1, 1, 0, 1, 1, 1};  // U[1][1] = 0 at step 2
  LuOptions o;
  o.block = 2;
  CHECK_THROWS_WITH(simulate_lu(u, formats::fp16(), 4, A, o),
                    "LU breakdown at step 2 (block 1): pivot U[1][1] = 0 is zero (no pivoting: try --pivot)");
  o.pivot = true;
  const LuResult lu = simulate_lu(u, formats::fp16(), 4, A, o);
  CHECK(lu.perm == std::vector<std::size_t>{2, 1, 0, 3});  // row 2 leads column 0
  const std::vector<double> b = ones_rhs(A, 4);
  const std::vector<double> x = lu_solve(lu, b);
  // TC32 rounds L and U to binary16 for the updates: 2 u16 dominates (blanchard2020 Table 4.1).
  CHECK(lu_backward_errors(lu, A, x, b).componentwise < 2 * 0x1p-11);
  // 1e5 is above binary16's largest finite value (65504).
  LuOptions h;
  h.variant = GemmVariant::Tc16;
  CHECK_THROWS_WITH(simulate_lu(u, formats::fp16(), 2, std::vector<double>{1e5, 1, 1, 1}, h),
                    "A[0][0] = 100000 overflows the fp16 storage");
  // The update overflows: 1 + 300 * 300 in A22 (r = 1: through the unit), or in the panel.
  h.block = 1;
  CHECK_THROWS_WITH(simulate_lu(u, formats::fp16(), 2, std::vector<double>{1, 300, -300, 1}, h),
                    "LU breakdown at step 1 (block 1): the update A22 - L21 U12 gives A[1][1] = inf, not finite in fp16 storage");
  h.block = 2;
  CHECK_THROWS_WITH(simulate_lu(u, formats::fp16(), 2, std::vector<double>{1, 300, -300, 1}, h),
                    "LU breakdown at step 1 (block 1): the elimination gives A[1][1] = inf, not finite in fp16 storage");
}

TEST_CASE("lu: invalid options name the option and what is allowed", "[lu]") {
  const Unit& u = builtin_unit("v100");
  const std::vector<double> A = {1, 0, 0, 1};
  LuOptions o;
  o.block = 0;
  CHECK_THROWS_WITH(simulate_lu(u, formats::fp16(), 2, A, o), "block: the block size r must be at least 1");
  o = {};
  o.storage = "fp8";
  CHECK_THROWS_WITH(simulate_lu(u, formats::fp16(), 2, A, o), "storage: 'fp8' is not allowed with --alg rl; allowed: fp16, fp32");
  o = {};
  o.variant = GemmVariant::Unit;
  CHECK_THROWS_WITH(simulate_lu(u, formats::fp16(), 2, A, o),
                    "variant: LU takes fp16, tc16, tc32 or fp32 (blanchard2020 Table 4.1)");
  CHECK_THROWS_WITH(simulate_lu(u, formats::fp16(), 3, A, {}), "A: expected n * n = 9 values, got 4");
}

// blanchard2020 Fig. 4.2 (q1dq2, cond 1e3, v100, no pivoting), at n = 256 with blocks of 32:
// the backward errors order as fp16 >= TC16 > TC32 > fp32, TC32 at least 10 times below TC16,
// and each is below its Theorem 4.4 bound (4.7).
TEST_CASE("lu: blanchard2020 Fig. 4.2 ordering and Theorem 4.4 bounds on q1dq2", "[lu]") {
  const Unit& u = builtin_unit("v100");
  const std::size_t n = 256, r = 32;
  const std::vector<double> A = matrix_q1dq2(n, 1e3, 20261123);
  double err[4];
  const GemmVariant variants[4] = {GemmVariant::Fp16, GemmVariant::Tc16, GemmVariant::Tc32, GemmVariant::Fp32};
  for (int v = 0; v < 4; ++v) {
    LuOptions o;
    o.variant = variants[v];
    o.block = r;
    err[v] = backward_error(u, A, n, o);
    reference::bounds::BlockFmaParams p;
    p.n = static_cast<double>(n);
    p.b = 4;
    const bool low = v < 2;
    p.u_fma = p.u_bar = low ? reference::bounds::u_fp16 : reference::bounds::u_fp32;
    p.u = low ? reference::bounds::u_fp16 : reference::bounds::u_fp32;
    if (v == 0 || v == 3) p.u_low = p.u;  // no tensor core: one precision throughout
    const double bound = reference::bounds::blanchard_thm44(p);
    std::printf("[lu] q1dq2 n %zu r %zu %s: componentwise backward error %.3e, Thm 4.4 bound %.3e\n", n, r,
                variant_name(variants[v]).c_str(), err[v], bound);
    CHECK(err[v] <= bound);
  }
  CHECK(err[0] >= err[1]);
  CHECK(err[1] > err[2]);
  CHECK(err[2] > err[3]);
  CHECK(err[2] * 10 <= err[1]);
}

TEST_CASE("lu: the factors do not depend on the thread count", "[lu]") {
  const Unit& u = builtin_unit("h100");
  const std::vector<double> A = matrix_hpl_ai(150, 7);
  LuOptions o;
  o.block = 16;
  o.threads = 1;
  const LuResult one = simulate_lu(u, formats::fp16(), 150, A, o);
  o.threads = 2;
  const LuResult two = simulate_lu(u, formats::fp16(), 150, A, o);
  CHECK(one.LU == two.LU);
  CHECK(one.unit_calls == 9);  // ceil(150 / 16) - 1 trailing updates
}

TEST_CASE("lu matrices: structure, and the same bits for a seed on every machine", "[lu]") {
  const std::vector<double> H = matrix_hpl_ai(5, 3);
  for (std::size_t i = 0; i < 5; ++i)
    for (std::size_t c = 0; c < 5; ++c) {
      if (i == c) CHECK(H[i * 5 + c] == 5.0);
      else CHECK((H[i * 5 + c] >= 0 && H[i * 5 + c] < 1));
    }
  // q1dq2: ||A||_F^2 = sum d_i^2 (orthogonal factors), d from 1 down to 1/cond.
  const std::size_t n = 20;
  const std::vector<double> A = matrix_q1dq2(n, 1e3, 11);
  double fro = 0, want = 0;
  for (double x : A) fro += x * x;
  for (std::size_t i = 0; i < n; ++i) want += std::pow(1e3, -2.0 * static_cast<double>(i) / (n - 1));
  CHECK(fro == Approx(want).epsilon(1e-12));
  CHECK(matrix_q1dq2(n, 1e3, 11) == A);
  CHECK(matrix_q1dq2(n, 1e3, 12) != A);
  // Pinned bits: the generators use no libm function whose last bit may vary between systems.
  CHECK(std::bit_cast<std::uint64_t>(A[0]) == 0x3fbfe345fb6c0a85ULL);
  CHECK(std::bit_cast<std::uint64_t>(matrix_normal(3, 5)[4]) == 0xbff5b6646fadd3fbULL);
  CHECK_THROWS_WITH(matrix_q1dq2(4, 0.5, 1), "cond: the condition number must be a finite number >= 1, got 0.500000");
}

// blanchard2020 Fig. 4.2 at the size, n = 1024 (q1dq2, cond 1e3, v100, r = 32):
// without pivoting the variants that store the matrix in fp16 break down on this instance (a
// pivot below fp16's normal range, a zero pivot), which the paper does not report; with partial
// pivoting all four run, and TC32 is one to two orders of magnitude below TC16 and above fp32.
// Measured: fp16 7.6e-5, TC16 3.1e-4, TC32 3.7e-6, fp32 1.6e-8: TC16 is above fp16 here, where
// the paper has it below (it credits cuBLAS's blocked summation; our fp16 variant sums with
// binary16 FMAs rounding to nearest, while V100's TC16 block FMAs truncate).
TEST_CASE("lu: blanchard2020 Fig. 4.2 at n 1024 with and without pivoting", "[lu]") {
  const Unit& u = builtin_unit("v100");
  const std::size_t n = 1024, r = 32;
  const std::vector<double> A = matrix_q1dq2(n, 1e3, 20261123);
  LuOptions o;
  o.block = r;
  o.variant = GemmVariant::Fp16;
  CHECK_THROWS_WITH(simulate_lu(u, formats::fp16(), n, A, o),
                    "LU breakdown at step 101 (block 4): pivot U[100][100] = 3.05175781e-05 is below the normal range of "
                    "fp16 (no pivoting: try --pivot)");
  o.variant = GemmVariant::Tc16;
  CHECK_THROWS_WITH(simulate_lu(u, formats::fp16(), n, A, o),
                    "LU breakdown at step 162 (block 6): pivot U[161][161] = 0 is zero (no pivoting: try --pivot)");
  // The sanitizer pass stops here: the four pivoted factorizations at n 1024 (52 of its 66 s
  // there) run the code of the small pivoted tests above, at the claim's size.
  if (tcsim::test::reduced_scale()) return;
  o.pivot = true;
  double err[4];
  const GemmVariant variants[4] = {GemmVariant::Fp16, GemmVariant::Tc16, GemmVariant::Tc32, GemmVariant::Fp32};
  for (int v = 0; v < 4; ++v) {
    o.variant = variants[v];
    err[v] = backward_error(u, A, n, o);
    std::printf("[lu] q1dq2 n %zu r %zu %s with pivoting: componentwise backward error %.3e\n", n, r,
                variant_name(variants[v]).c_str(), err[v]);
  }
  CHECK(err[1] > err[2]);
  CHECK(err[2] > err[3]);
  CHECK(err[2] * 10 <= err[1]);   // one to two orders of magnitude
  CHECK(err[2] * 100 >= err[1]);
  CHECK(err[2] * 10 <= err[0]);
}
