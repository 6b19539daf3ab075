// Issue 25: the fma-chain rows' GEMM in SIMD lanes (models/src/unit_gemm_fma.cpp, sim
// fma_lanes) against the scalar chain (Unit::dot_batch: detail::fma_chain, std::fmaf / std::fma
// in index order) on every built-in fma-chain row, and a sample against Unit::dot (the reference
// adder). Shapes across the task and strip edges and the 128-product chunks, K = 0 and K not a
// multiple of k; operands with zeros of both signs, subnormals, the smallest normals, values
// near overflow, Inf and NaN, and products that cancel the accumulator, on purpose.
// ctest runs tcsim::test::count(300'000) outputs per row; TCSIM_FMA_LANES_CASES=N runs N
// (docs/reliability.md records the long runs).
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "models_test_helpers.hpp"
#include "operand_gen.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::reftest;
using tcsim::test::Rng;

namespace {

std::uint64_t edge_value(const Format& f, Rng& r, int center) {
  switch (r.below(24)) {
    case 0: return zero_pattern(f, r);
    case 1: return random_subnormal_or_tiny(f, r);
    case 2: return random_special(f, r);
    case 3: return random_huge(f, r);                                // products overflow
    case 4: return value_with_lead(f, r, f.emin + r.range(0, 3));    // subnormal products
    default: return value_with_lead(f, r, center + r.range(-12, 12));
  }
}

struct Tally {
  std::uint64_t cases = 0, mismatches = 0, reference_cases = 0, reference_mismatches = 0;
};

// `total` GEMM outputs of random shapes: gemm against dot_batch (every output), and against
// Unit::dot (the reference adder) on `reference_every`-th output.
Tally campaign(const Unit& u, const Format& f, const std::string& instruction, Rng& r, std::uint64_t total,
               std::uint64_t reference_every, const std::string& label) {
  Tally t;
  while (t.cases < total) {
    const std::size_t m = 1 + r.below(40), n = 1 + r.below(r.below(4) ? 70 : 300);
    const std::size_t K = r.below(4) ? r.below(10) : r.below(r.below(4) ? 300 : 40);
    const int center = r.range(-30, 30);
    std::vector<std::uint64_t> A(m * K), B(K * n), C(m * n);
    for (auto& x : A) x = edge_value(f, r, center);
    for (auto& x : B) x = edge_value(f, r, center);
    for (auto& x : C) x = edge_value(f, r, 2 * center);
    if (r.below(3))  // products that cancel the step before: a_{t+1} = -a_t, b_{t+1} = b_t
      for (std::size_t s = 0; s + 1 < K; s += 2) {
        for (std::size_t i = 0; i < m; ++i) A[i * K + s + 1] = negate(f, A[i * K + s]);
        for (std::size_t j = 0; j < n; ++j) B[(s + 1) * n + j] = B[s * n + j];
      }
    const std::vector<std::uint64_t> D = u.gemm(f, f, m, n, K, A, B, C, instruction, r.below(2) ? 1 : 2);
    // The same elements element-major through dot_batch (the scalar chain).
    std::vector<std::uint64_t> ea(m * n * K), eb(m * n * K), want(m * n);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j)
        for (std::size_t s = 0; s < K; ++s) {
          ea[(i * n + j) * K + s] = A[i * K + s];
          eb[(i * n + j) * K + s] = B[s * n + j];
        }
    u.dot_batch(f, f, m * n, K, ea.data(), eb.data(), C.data(), want.data(), instruction, 1);
    for (std::size_t e = 0; e < m * n; ++e) {
      if (want[e] != D[e] && t.mismatches++ < 3)
        std::printf("[fma-lanes-gemm] MISMATCH %s m %zu n %zu K %zu at %zu: a = %s, b = %s, c = %s: gemm %s, chain %s\n",
                    label.c_str(), m, n, K, e, hex_list(f, ea.data() + e * K, K).c_str(),
                    hex_list(f, eb.data() + e * K, K).c_str(), bits_to_hex(f, C[e]).c_str(),
                    bits_to_hex(f, D[e]).c_str(), bits_to_hex(f, want[e]).c_str());
      if ((t.cases + e) % reference_every == 0) {
        ++t.reference_cases;
        const std::uint64_t ref = u.dot(f, f, {ea.data() + e * K, K}, {eb.data() + e * K, K}, C[e], instruction);
        if (ref != D[e] && t.reference_mismatches++ < 3)
          std::printf("[fma-lanes-gemm] REFERENCE MISMATCH %s K %zu: gemm %s, dot %s\n", label.c_str(), K,
                      bits_to_hex(f, D[e]).c_str(), bits_to_hex(f, ref).c_str());
      }
    }
    t.cases += m * n;
  }
  return t;
}

}  // namespace

TEST_CASE("fma-chain gemm lanes equal the scalar chain on every fma-chain row", "[gemm][fma-lanes][differential]") {
  Rng r(tcsim::test::seed("fma-chain gemm lanes", 0x25fa0001));
  const char* env = std::getenv("TCSIM_FMA_LANES_CASES");
  const std::uint64_t total = env ? std::strtoull(env, nullptr, 10) : tcsim::test::count(300'000);
  std::size_t rows = 0;
  for (const auto& spec : builtin_unit_specs()) {
    const Unit& u = builtin_unit(spec.name);
    for (const auto& row : spec.datapaths)
      for (const auto& in_name : row.input_formats)
        for (const auto& out_name : row.output_formats) {
          const Format &in = parse_format(in_name), &out = parse_format(out_name);
          if (!(in == out) || u.batch_path(in, out, row.instruction) != "fma-chain") continue;
          ++rows;
          const std::string label = spec.name + " " + (row.instruction.empty() ? "(any)" : row.instruction) + " " +
                                    in.name + "->" + out.name;
          INFO(label);
          const Tally t = campaign(u, in, row.instruction, r, total, 997, label);
          std::printf("[fma-lanes-gemm] %-28s %llu outputs, %llu mismatches against the scalar chain; %llu against "
                      "Unit::dot, %llu mismatches\n",
                      label.c_str(), static_cast<unsigned long long>(t.cases),
                      static_cast<unsigned long long>(t.mismatches), static_cast<unsigned long long>(t.reference_cases),
                      static_cast<unsigned long long>(t.reference_mismatches));
          CHECK(t.mismatches == 0);
          CHECK(t.reference_mismatches == 0);
        }
  }
  CHECK(rows >= 9);  // fp64 on a100, h100, b200, rtx5090, mi250x, mi300x; fp32 on mi100, mi250x, mi300x
}
