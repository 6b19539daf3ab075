// The generated problems of `tcsim gemm --m --n --k --dist --seed --ell`, shared with the
// Python package (tcsim.gemm_problem): the same matrices for a seed on every machine.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tcsim::cli {

extern const char* const kGemmDistributions;  // "uniform01, uniform-11, uniform0-1e-3, normal, pm10^phi"

// Throws std::invalid_argument "<field>: 'x' is not a distribution; allowed: ..." unless
// `dist` is one of kGemmDistributions.
void check_gemm_distribution(const std::string& dist, const std::string& field);

// A (m x k) then B (k x n), row-major, from one stream of sim's counter-based generator, every
// entry drawn from `dist` and rounded to binary32 (blanchard2020 section 3.3 generates the
// matrices in single precision). pm10^phi: +-10^phi, phi uniform in [-ell, ell] (mary2024
// section 5).
void generate_gemm_problem(std::size_t m, std::size_t n, std::size_t k, const std::string& dist, double ell,
                           std::uint64_t seed, std::vector<double>& A, std::vector<double>& B);

}  // namespace tcsim::cli
