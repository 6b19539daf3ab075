// Unit::gemm against Unit::dot element by element (row i of A, column j of B, C[i][j]) on
// every built-in row and format pair, for sizes that are not multiples of anything (K = 0,
// K shorter than a block, several instructions), and for any thread count.
#include <catch2/catch.hpp>

#include <cstdio>
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

// Matrices of mostly finite values near one exponent, with zeros, specials and
// cancellation in some rows: what a GEMM on real data looks like, plus its corner cases.
std::vector<std::uint64_t> matrix(const Format& f, std::size_t count, Rng& r, int center) {
  std::vector<std::uint64_t> v(count);
  for (auto& x : v) {
    const auto pick = r.below(64);
    if (pick == 0) x = random_special(f, r);
    else if (pick < 4) x = zero_pattern(f, r);
    else if (pick < 6) x = random_subnormal_or_tiny(f, r);
    else x = value_with_lead(f, r, center + r.range(-6, 1));
  }
  return v;
}

// The number of D's elements that differ from dot(); prints the first few.
std::size_t check_gemm(const Unit& u, const Format& in, const Format& out, const std::string& instruction,
                       std::size_t m, std::size_t n, std::size_t K, Rng& r, unsigned threads, const std::string& label) {
  const int center = std::clamp(0, lowest_lead(in), in.emax);
  const auto A = matrix(in, m * K, r, center), B = matrix(in, K * n, r, center);
  const auto C = matrix(out, m * n, r, 2 * center);
  const auto D = u.gemm(in, out, m, n, K, A, B, C, instruction, threads);
  std::size_t bad = 0;
  std::vector<std::uint64_t> column(K);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t t = 0; t < K; ++t) column[t] = B[t * n + j];
      const std::uint64_t want = u.dot(in, out, std::span(A).subspan(i * K, K), column, C[i * n + j], instruction);
      if (want != D[i * n + j] && ++bad <= 3)
        std::printf("[gemm] MISMATCH %s m %zu n %zu K %zu at (%zu, %zu): a = %s, b = %s, c = %s: gemm %s, dot %s\n",
                    label.c_str(), m, n, K, i, j, hex_list(in, A.data() + i * K, K).c_str(),
                    hex_list(in, column.data(), K).c_str(), bits_to_hex(out, C[i * n + j]).c_str(),
                    bits_to_hex(out, D[i * n + j]).c_str(), bits_to_hex(out, want).c_str());
    }
  return bad;
}

}  // namespace

TEST_CASE("gemm equals dot element by element on every built-in row", "[gemm]") {
  Rng r(tcsim::test::seed("gemm every row", 1234));
  for (const auto& spec : builtin_unit_specs()) {
    const Unit& u = builtin_unit(spec.name);
    for (const auto& row : spec.datapaths) {
      if (row.block_scale) continue;
      for (const auto& in_name : row.input_formats)
        for (const auto& out_name : row.output_formats) {
          const Format &in = parse_format(in_name), &out = parse_format(out_name);
          const std::size_t k = static_cast<std::size_t>(row.fma_size);
          const std::string label = spec.name + " " + (row.instruction.empty() ? "(any)" : row.instruction) + " " +
                                    in.name + "->" + out.name + " [" + u.batch_path(in, out, row.instruction) + "]";
          INFO(label);
          for (std::size_t K : {std::size_t{0}, k - 1, 2 * k + 5}) {
            const std::size_t m = 1 + r.below(40), n = 1 + r.below(70);
            CHECK(check_gemm(u, in, out, row.instruction, m, n, K, r, 2, label) == 0);
          }
        }
    }
  }
}

TEST_CASE("gemm: panels wider than one task, and the same bits for any thread count", "[gemm]") {
  Rng r(tcsim::test::seed("gemm threads", 99));
  const Unit& u = builtin_unit("h100");
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  const std::size_t m = 7, n = 600, K = 40;  // n spans three column panels
  CHECK(check_gemm(u, f16, f32, "", m, n, K, r, 2, "h100 fp16->fp32") == 0);
  const auto A = matrix(f16, m * K, r, 0), B = matrix(f16, K * n, r, 0), C = matrix(f32, m * n, r, 0);
  const auto D1 = u.gemm(f16, f32, m, n, K, A, B, C, "", 1);
  CHECK(D1 == u.gemm(f16, f32, m, n, K, A, B, C, "", 2));
  CHECK(D1 == u.gemm(f16, f32, m, n, K, A, B, C, "", 5));
}

TEST_CASE("gemm: wrong operand sizes name the operand", "[gemm]") {
  const Unit& u = builtin_unit("v100");
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  std::vector<std::uint64_t> A(6), B(6), C(4);
  CHECK_NOTHROW(u.gemm(f16, f32, 2, 2, 3, A, B, C));
  CHECK_THROWS_WITH(u.gemm(f16, f32, 2, 2, 4, A, B, C), Catch::Contains("gemm: A must hold m*K = 8 patterns, got 6"));
  CHECK_THROWS_WITH(u.gemm(f16, f32, 2, 3, 3, A, B, C), Catch::Contains("gemm: B must hold K*n = 9 patterns, got 6"));
  CHECK_THROWS_WITH(u.gemm(formats::e4m3(), f32, 2, 2, 3, A, B, C), Catch::Contains("does not support e4m3 -> fp32"));
}
