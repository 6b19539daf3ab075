// householder_q and scaled_product (haar_orthogonal.hpp). Compiled with -ffp-contract=off as
// the other LU matrix sources: no fused multiply-adds, so each step rounds as written.
//
// The serial algorithm these reproduce bit for bit (the generator of tcsim up to issue 23):
//   QR: for k = 0 .. n-1: v_k from column k; for every column c >= k: dot = sum_i v_k[i] g_c[i]
//       (i ascending, from 0), g_c -= (2 dot / (v_k . v_k)) v_k.
//   Q:  Q = I; for k = n-1 down to 0: the same reflection of every column c >= k of Q.
//   A:  A[i][c] = sum_p (Q1[i][p] d[p]) Q2[p][c], p ascending, from 0.
// Column c of G thus receives the reflections H_0, H_1, ..., H_{c-1} in this order (H_c on
// column c itself only changes an entry never read again), and column c of Q starts as e_c
// and receives H_c, H_{c-1}, ..., H_0. Each column's sequence depends only on the reflectors,
// so the columns can be processed in any grouping and on any thread: here panels of
// reflectors are applied to groups of columns (the reflectors stay in cache), with the dot
// products of a group's columns interleaved (independent chains, each summed in i order).
#include "haar_orthogonal.hpp"

#include <algorithm>
#include <cmath>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace tcsim::models::detail {

namespace {

constexpr std::size_t kPanel = 32;  // reflectors applied per pass over the trailing columns
constexpr std::size_t kGroup = 4;   // columns whose dot products are interleaved

struct Reflector {
  std::vector<double> v;  // entries k .. n-1; empty: the identity (v . v = 0)
  double vv = 0;          // v . v, summed in order
};

// Applies reflector k (entries k .. n-1) to the `count` columns cols[0..count) (each of n
// entries): dot in i order from 0, f = 2 dot / vv, col -= f v.
template <std::size_t G>
void reflect(const Reflector& r, std::size_t k, std::size_t n, double* const* cols) {
  const double* v = r.v.data();
  double dot[G] = {};
  for (std::size_t i = k; i < n; ++i) {
    const double x = v[i - k];
    for (std::size_t g = 0; g < G; ++g) dot[g] += x * cols[g][i];
  }
  for (std::size_t g = 0; g < G; ++g) {
    const double f = 2 * dot[g] / r.vv;
    double* col = cols[g];
    for (std::size_t i = k; i < n; ++i) col[i] -= f * v[i - k];
  }
}

// Applies reflectors `ks` (in this order) to columns [c0, c1) of M (by columns), each
// reflector k only to the columns c with applies(k, c), in parallel over groups of columns.
template <class Applies>
void reflect_columns(const std::vector<Reflector>& R, const std::vector<std::size_t>& ks, std::size_t n,
                     std::vector<double>& M, std::size_t c0, std::size_t c1, Applies applies) {
  if (c1 <= c0 || ks.empty()) return;
  const std::size_t groups = (c1 - c0 + kGroup - 1) / kGroup;
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, groups), [&](const tbb::blocked_range<std::size_t>& range) {
    for (std::size_t gi = range.begin(); gi < range.end(); ++gi) {
      const std::size_t g0 = c0 + gi * kGroup, g1 = std::min(g0 + kGroup, c1);
      for (std::size_t k : ks) {
        if (R[k].v.empty()) continue;
        double* cols[kGroup];
        std::size_t count = 0;
        for (std::size_t c = g0; c < g1; ++c)
          if (applies(k, c)) cols[count++] = &M[c * n];
        if (count == kGroup) reflect<kGroup>(R[k], k, n, cols);
        else
          for (std::size_t j = 0; j < count; ++j) reflect<1>(R[k], k, n, cols + j);
      }
    }
  });
}

}  // namespace

std::vector<double> householder_q(std::size_t n, std::vector<double> G) {
  std::vector<Reflector> R(n);
  std::vector<double> sign(n, 1.0);
  // Blocked right-looking QR: a panel's reflectors from its columns (each brought up to date
  // by the panel's earlier reflectors, in order), then the panel applied to every later column.
  for (std::size_t k0 = 0; k0 < n; k0 += kPanel) {
    const std::size_t k1 = std::min(k0 + kPanel, n);
    std::vector<std::size_t> panel;
    for (std::size_t k = k0; k < k1; ++k) {
      double* gk = &G[k * n];
      for (std::size_t j : panel) {
        if (R[j].v.empty()) continue;
        double* cols[1] = {gk};
        reflect<1>(R[j], j, n, cols);
      }
      panel.push_back(k);
      double norm2 = 0;
      for (std::size_t i = k; i < n; ++i) norm2 += gk[i] * gk[i];
      const double norm = std::sqrt(norm2), x0 = gk[k];
      const double alpha = x0 >= 0 ? -norm : norm;  // R_kk
      sign[k] = alpha >= 0 ? 1.0 : -1.0;
      std::vector<double>& v = R[k].v;
      v.assign(gk + k, gk + n);
      v[0] -= alpha;
      double vv = 0;
      for (double x : v) vv += x * x;
      R[k].vv = vv;
      if (vv == 0) v.clear();
    }
    reflect_columns(R, panel, n, G, k1, n, [](std::size_t, std::size_t) { return true; });
  }
  G = {};
  // Q = H_0 ... H_{n-1} I: column c gets H_c, ..., H_0. Panels of reflectors from the last:
  // panel [k0, k1) goes, in descending k, to the columns c >= k0 (reflector k to c >= k).
  std::vector<double> Q(n * n, 0.0);  // by columns
  for (std::size_t i = 0; i < n; ++i) Q[i * n + i] = 1;
  for (std::size_t k1 = n; k1 > 0;) {
    const std::size_t k0 = k1 >= kPanel ? k1 - kPanel : 0;
    std::vector<std::size_t> panel;
    for (std::size_t k = k1; k-- > k0;) panel.push_back(k);
    reflect_columns(R, panel, n, Q, k0, n, [](std::size_t k, std::size_t c) { return c >= k; });
    k1 = k0;
  }
  std::vector<double> out(n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < n; ++c) out[i * n + c] = Q[c * n + i] * sign[c];
  return out;
}

std::vector<double> scaled_product(std::size_t n, std::vector<double> Q1, const std::vector<double>& d,
                                   const std::vector<double>& Q2) {
  // F = Q1 diag(d) (the same products as Q1[i][p] * d[p] in the loop), then A = F Q2 by
  // tiles of rows and columns, each entry's sum over p in order.
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t p = 0; p < n; ++p) Q1[i * n + p] *= d[p];
  const std::vector<double>& F = Q1;
  std::vector<double> A(n * n, 0.0);
  constexpr std::size_t kRows = 8, kCols = 256;
  const std::size_t row_blocks = (n + kRows - 1) / kRows, col_blocks = (n + kCols - 1) / kCols;
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, row_blocks * col_blocks), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t t = r.begin(); t < r.end(); ++t) {
      const std::size_t c0 = (t / row_blocks) * kCols, c1 = std::min(c0 + kCols, n);
      const std::size_t i0 = (t % row_blocks) * kRows, i1 = std::min(i0 + kRows, n);
      for (std::size_t p = 0; p < n; ++p) {
        const double* q = &Q2[p * n];
        for (std::size_t i = i0; i < i1; ++i) {
          const double f = F[i * n + p];
          double* a = &A[i * n];
          for (std::size_t c = c0; c < c1; ++c) a[c] += f * q[c];
        }
      }
    }
  });
  return A;
}

}  // namespace tcsim::models::detail
