// The O(n^3) parts of the q1dq2 test matrix (lu_matrices.cpp), blocked and threaded with the
// bits of the plain serial loops: every entry receives the same IEEE operations in the same
// order whatever the block sizes and the thread count (docs/scale.md, "The q1dq2 generator").
#pragma once
#include <cstddef>
#include <vector>

namespace tcsim::models::detail {

// Q of the Householder QR of G (n x n, held by columns: G[c * n + i] = entry (i, c)), each
// column c times the sign of R's diagonal entry c (Mezzadri's correction), row-major.
std::vector<double> householder_q(std::size_t n, std::vector<double> G);

// A = Q1 diag(d) Q2 (row-major), each entry summed over p = 0, 1, ..., n - 1 from 0 with
// separately rounded products (Q1[i][p] d[p]) Q2[p][c].
std::vector<double> scaled_product(std::size_t n, std::vector<double> Q1, const std::vector<double>& d,
                                   const std::vector<double>& Q2);

}  // namespace tcsim::models::detail
