// Eigen interoperability of the simulated GEMM (header-only: the library itself does not need
// Eigen). Matrices of float or double in any storage order, and bit-pattern matrices.
//
//   Eigen::MatrixXf A = ..., B = ...;
//   auto r = tcsim::models::simulate_gemm(unit, formats::fp16(), formats::fp32(), A, B);
//   Eigen::MatrixXd D = tcsim::models::values(r);      // D = A B on the unit (C = 0)
//   tcsim::models::BitMatrix P = tcsim::models::bits(r);  // the patterns of r.storage
#pragma once
#include <Eigen/Dense>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tcsim/models/gemm.hpp"

namespace tcsim::models {

using BitMatrix = Eigen::Matrix<std::uint64_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

namespace eigen_detail {
template <class Derived>
std::vector<double> row_major(const Eigen::MatrixBase<Derived>& M) {
  std::vector<double> v(static_cast<std::size_t>(M.rows() * M.cols()));
  for (Eigen::Index i = 0; i < M.rows(); ++i)
    for (Eigen::Index j = 0; j < M.cols(); ++j) v[static_cast<std::size_t>(i * M.cols() + j)] = static_cast<double>(M(i, j));
  return v;
}
}  // namespace eigen_detail

// D = C + A B (simulate_gemm on the entries as binary64 values; float entries are exact there).
template <class DA, class DB, class DC>
GemmResult simulate_gemm(const Unit& unit, const Format& in, const Format& out, const Eigen::MatrixBase<DA>& A,
                         const Eigen::MatrixBase<DB>& B, const Eigen::MatrixBase<DC>& C, const GemmOptions& options = {}) {
  if (A.cols() != B.rows() || C.rows() != A.rows() || C.cols() != B.cols())
    throw std::invalid_argument("simulate_gemm: A is " + std::to_string(A.rows()) + " x " + std::to_string(A.cols()) +
                                ", B " + std::to_string(B.rows()) + " x " + std::to_string(B.cols()) + ", C " +
                                std::to_string(C.rows()) + " x " + std::to_string(C.cols()) + ": they do not fit C + A B");
  const auto a = eigen_detail::row_major(A), b = eigen_detail::row_major(B), c = eigen_detail::row_major(C);
  return simulate_gemm(unit, in, out, static_cast<std::size_t>(A.rows()), static_cast<std::size_t>(B.cols()),
                       static_cast<std::size_t>(A.cols()), a, b, c, options);
}

// D = A B (C = 0).
template <class DA, class DB>
GemmResult simulate_gemm(const Unit& unit, const Format& in, const Format& out, const Eigen::MatrixBase<DA>& A,
                         const Eigen::MatrixBase<DB>& B, const GemmOptions& options = {}) {
  if (A.cols() != B.rows())
    throw std::invalid_argument("simulate_gemm: A is " + std::to_string(A.rows()) + " x " + std::to_string(A.cols()) +
                                " and B " + std::to_string(B.rows()) + " x " + std::to_string(B.cols()) +
                                ": A's columns must equal B's rows");
  const auto a = eigen_detail::row_major(A), b = eigen_detail::row_major(B);
  return simulate_gemm(unit, in, out, static_cast<std::size_t>(A.rows()), static_cast<std::size_t>(B.cols()),
                       static_cast<std::size_t>(A.cols()), a, b, {}, options);
}

// The result's values (binary64) and bit patterns (of r.storage) as m x n matrices.
inline Eigen::MatrixXd values(const GemmResult& r) {
  Eigen::MatrixXd D(static_cast<Eigen::Index>(r.m), static_cast<Eigen::Index>(r.n));
  for (std::size_t i = 0; i < r.m; ++i)
    for (std::size_t j = 0; j < r.n; ++j) D(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = r.D[i * r.n + j];
  return D;
}
inline BitMatrix bits(const GemmResult& r) {
  BitMatrix P(static_cast<Eigen::Index>(r.m), static_cast<Eigen::Index>(r.n));
  for (std::size_t e = 0; e < r.m * r.n; ++e) P.data()[e] = r.bits[e];
  return P;
}

// Bit-pattern storage: A (m x K) and B (K x n) patterns of `in`, C (m x n) of `out`, through
// Unit::gemm (the unit's own semantics, no conversions).
inline BitMatrix gemm_bits(const Unit& unit, const Format& in, const Format& out, const BitMatrix& A, const BitMatrix& B,
                           const BitMatrix& C, std::string_view instruction = "", unsigned threads = 0) {
  if (A.cols() != B.rows() || C.rows() != A.rows() || C.cols() != B.cols())
    throw std::invalid_argument("gemm_bits: A, B and C do not fit C + A B");
  const auto m = static_cast<std::size_t>(A.rows()), n = static_cast<std::size_t>(B.cols()), K = static_cast<std::size_t>(A.cols());
  const auto d = unit.gemm(in, out, m, n, K, {A.data(), m * K}, {B.data(), K * n}, {C.data(), m * n}, instruction, threads);
  BitMatrix D(A.rows(), B.cols());
  std::copy(d.begin(), d.end(), D.data());
  return D;
}

}  // namespace tcsim::models
