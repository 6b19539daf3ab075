// Generated GEMM problems (gemm_problem.hpp).
#include "gemm_problem.hpp"

#include <cmath>
#include <stdexcept>

#include "tcsim/sim/adder.hpp"

namespace tcsim::cli {

const char* const kGemmDistributions = "uniform01, uniform-11, uniform0-1e-3, normal, pm10^phi";

namespace {

// Uniform in [0, 1) with 53 random bits.
struct Uniform {
  std::uint64_t seed, index = 0;
  double next() { return static_cast<double>(counter_random(seed, index++) >> 11) * 0x1p-53; }
};

double sample(const std::string& dist, Uniform& u, double ell) {
  double x;
  if (dist == "uniform01") {
    x = u.next();
  } else if (dist == "uniform-11") {
    x = 2 * u.next() - 1;
  } else if (dist == "uniform0-1e-3") {
    x = 1e-3 * u.next();
  } else if (dist == "normal") {  // Box-Muller; libm's log and cos
    const double u1 = 1 - u.next(), u2 = u.next();
    x = std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  } else {  // pm10^phi
    const double sign = u.next() < 0.5 ? -1 : 1;
    x = sign * std::pow(10.0, ell * (2 * u.next() - 1));
  }
  return static_cast<double>(static_cast<float>(x));
}

}  // namespace

void check_gemm_distribution(const std::string& dist, const std::string& field) {
  if (std::string(kGemmDistributions).find(dist) == std::string::npos || dist.empty() ||
      dist.find(',') != std::string::npos || dist.find(' ') != std::string::npos)
    throw std::invalid_argument(field + ": '" + dist + "' is not a distribution; allowed: " + kGemmDistributions);
}

void generate_gemm_problem(std::size_t m, std::size_t n, std::size_t k, const std::string& dist, double ell,
                           std::uint64_t seed, std::vector<double>& A, std::vector<double>& B) {
  check_gemm_distribution(dist, "dist");
  Uniform u{seed};
  A.resize(m * k);
  B.resize(k * n);
  for (auto& x : A) x = sample(dist, u, ell);
  for (auto& x : B) x = sample(dist, u, ell);
}

}  // namespace tcsim::cli
