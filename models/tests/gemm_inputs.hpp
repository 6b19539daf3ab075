// Random binary32 matrices and their patterns for the simulate_gemm tests (test_gemm.cpp,
// test_gemm_words.cpp).
#pragma once
#include <cstdint>
#include <vector>

#include "models_test_helpers.hpp"
#include "tcsim/sim/format.hpp"
#include "test_support.hpp"

namespace tcsim::models::test {

// Uniform in [lo, hi) from 53 bits of r.
inline double uniform(tcsim::test::Rng& r, double lo, double hi) {
  return lo + (hi - lo) * static_cast<double>(r.next() >> 11) * 0x1p-53;
}

// binary32 entries (exact in binary64), uniform in [lo, hi).
inline std::vector<double> random_matrix(tcsim::test::Rng& r, std::size_t count, double lo, double hi) {
  std::vector<double> v(count);
  for (auto& x : v) x = static_cast<float>(uniform(r, lo, hi));
  return v;
}

// The pattern of x in f, rounded to nearest even (bits() with the arguments of the GEMM tests).
inline std::uint64_t rne(double x, const Format& f) { return bits(f, x); }

}  // namespace tcsim::models::test
