// What the differential tests of the fast paths share (test_kernel_differential.cpp,
// test_tile_*.cpp, test_amd_gemm_chain.cpp, test_pairs_mod4.cpp, test_determinism.cpp): the
// product-major copy of dot_batch_planar's operands, random GEMM inputs from an element fill,
// and a GEMM's outputs against Unit::dot (the reference adder and chaining) output by output.
#pragma once
#include <cstdint>
#include <ctime>
#include <cstdio>
#include <string>
#include <vector>

#include "operand_gen.hpp"
#include "tcsim/models/unit.hpp"
#include "tcsim/sim/format.hpp"

namespace tcsim::reftest {

// x[e K + t] (n elements of K, element-major) as product-major 16-bit patterns xt[t n + e]:
// the operands of dot_batch_planar.
inline void product_major16(const std::uint64_t* x, std::size_t n, std::size_t K, std::vector<std::uint16_t>& xt) {
  xt.resize(n * K);
  for (std::size_t s = 0; s < K; ++s)  // rows written in order: the transposition stays cheap
    for (std::size_t e = 0; e < n; ++e) xt[s * n + e] = static_cast<std::uint16_t>(x[e * K + s]);
}

// A (m x K), B (K x n) and C (m x n), all row-major, from `fill(a, b, K, c)` (one element:
// K operand pairs and its c): each row i of A and column j of B is one element's first
// operands, its partners written into a column of B or a row of A that a later draw may
// overwrite; column 0 of C from the rows' draws, the rest of C from draws with K = 0.
template <class Fill>
void fill_gemm(std::size_t m, std::size_t n, std::size_t K, std::vector<std::uint64_t>& A,
               std::vector<std::uint64_t>& B, std::vector<std::uint64_t>& C, Fill&& fill) {
  std::vector<std::uint64_t> Bt(n * K);
  std::uint64_t scratch = 0;
  for (std::size_t i = 0; i < m; ++i) fill(A.data() + i * K, Bt.data() + (i % n) * K, K, C[i * n]);
  for (std::size_t j = 0; j < n; ++j) fill(Bt.data() + j * K, A.data() + (j % m) * K, K, scratch);
  for (std::size_t e = 0; e < m * n; ++e)
    if (e % n) fill(nullptr, nullptr, 0, C[e]);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t s = 0; s < K; ++s) B[s * n + j] = Bt[j * K + s];
}

// Processor seconds (all threads) of the stages of a differential: lap(stage) adds the time
// since the previous lap to that stage; rates() says cases per second of each.
struct StageClock {
  enum Stage { kGenerate, kFast, kReference };
  double seconds[3] = {};
  std::clock_t last = std::clock();
  void lap(Stage stage) {
    const std::clock_t now = std::clock();
    seconds[stage] += static_cast<double>(now - last) / CLOCKS_PER_SEC;
    last = now;
  }
  std::string rates(std::uint64_t cases) const {
    char text[160];
    auto rate = [&](double s) { return s > 0 ? static_cast<double>(cases) / s : 0.0; };
    std::snprintf(text, sizeof text, "cpu s (cases/s): generate %.2f (%.3g), fast %.2f (%.3g), dot %.2f (%.3g)",
                  seconds[kGenerate], rate(seconds[kGenerate]), seconds[kFast], rate(seconds[kFast]),
                  seconds[kReference], rate(seconds[kReference]));
    return text;
  }
};

// Where the mismatches of gemm_mismatches go: "[tag] MISMATCH label K ...: got D, dot want".
struct GemmLabel {
  const char* tag;
  std::string label;
  const char* got = "gemm";
};

// Adds to `mismatches` the outputs D (m x n, row-major) of A (m x K) B (K x n) + C that differ
// from unit.dot of their row of A, column of B and entry of C; prints the first three of the
// running count.
inline void gemm_mismatches(const models::Unit& unit, const Format& in_a, const Format& in_b, const Format& out,
                            std::size_t m, std::size_t n, std::size_t K, const std::vector<std::uint64_t>& A,
                            const std::vector<std::uint64_t>& B, const std::vector<std::uint64_t>& C,
                            const std::vector<std::uint64_t>& D, const std::string& instruction, const GemmLabel& at,
                            std::uint64_t& mismatches) {
  std::vector<std::uint64_t> column(K);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t s = 0; s < K; ++s) column[s] = B[s * n + j];
      const std::uint64_t want = unit.dot(in_a, in_b, out, {A.data() + i * K, K}, column, C[i * n + j], instruction);
      if (want != D[i * n + j] && mismatches++ < 3)
        std::printf("[%s] MISMATCH %s K %zu: a = %s, b = %s, c = %s: %s %s, dot %s\n", at.tag, at.label.c_str(), K,
                    hex_list(in_a, A.data() + i * K, K).c_str(), hex_list(in_b, column.data(), K).c_str(),
                    bits_to_hex(out, C[i * n + j]).c_str(), at.got, bits_to_hex(out, D[i * n + j]).c_str(),
                    bits_to_hex(out, want).c_str());
    }
}

}  // namespace tcsim::reftest
