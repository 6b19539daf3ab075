// Issue 25 (branch h100h): what a differential GEMM test over the SIMD targets needs besides
// diff_checks.hpp: the loop over the targets and a run's tally and summary line.
#pragma once
#include <cstdint>
#include <cstdio>
#include <hwy/targets.h>
#include <string>
#include <vector>

#include "diff_checks.hpp"

namespace tcsim::reftest {

// body(target's name, whether it is the CPU's best) on every SIMD target Highway compiled and the
// CPU runs, the best first; then dispatch goes back to the CPU's own.
template <class Body>
void each_simd_target(Body&& body) {
  const auto targets = hwy::SupportedAndGeneratedTargets();
  for (const std::int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    body(std::string(hwy::TargetName(target)), target == targets.front());
  }
  hwy::SetSupportedTargetsForTest(0);
}

// A differential GEMM run's outputs, block FMAs (blocks of k) and mismatches: Unit::gemm on one
// thread (or `threads`) against Unit::dot (gemm_mismatches), and its summary line.
struct GemmTally {
  std::uint64_t outputs = 0, blocks = 0, mismatches = 0;
  void run(const models::Unit& unit, const Format& in, const Format& out, std::size_t m, std::size_t n, std::size_t K,
           std::size_t k, const std::vector<std::uint64_t>& A, const std::vector<std::uint64_t>& B,
           const std::vector<std::uint64_t>& C, const std::string& instruction, const GemmLabel& at,
           unsigned threads = 1) {
    const std::vector<std::uint64_t> D = unit.gemm(in, out, m, n, K, A, B, C, instruction, threads);
    gemm_mismatches(unit, in, in, out, m, n, K, A, B, C, D, instruction, at, mismatches);
    outputs += m * n;
    blocks += m * n * ((K + k - 1) / k);
  }
  void print(const GemmLabel& at) const {
    std::printf("[%s] %-36s gemm %llu outputs, %llu block FMAs, %llu mismatches\n", at.tag, at.label.c_str(),
                static_cast<unsigned long long>(outputs), static_cast<unsigned long long>(blocks),
                static_cast<unsigned long long>(mismatches));
  }
};

}  // namespace tcsim::reftest
