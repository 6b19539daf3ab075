// Unit::gemm_scaled (the block-scaled GEMM, issue 25) against dot_scaled, output by output, on
// every built-in block-scaled row, input format, scale format and block size, with scales drawn
// on purpose from the edges: NaN (ue8m0 0xff, ue4m3 0x7f), the extremes (2^-127, 2^127; ue4m3
// subnormals and 448), zero (ue4m3), around 1 and anywhere; elements with zeros, subnormals,
// cancelling groups; c = +-1 with tiny products, c near binary32's largest value.
// TCSIM_BLOCK_SCALED_GEMM_CASES=N: N outputs per configuration (ctest: 3 x 2,960).
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "block_scale_edges.hpp"
#include "models_test_helpers.hpp"
#include "operand_gen.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::reftest;
using tcsim::test::Rng;

namespace {

std::uint64_t element(const Format& in, Rng& r, int kind) {
  switch (kind) {
    case 0: return r.below(4) ? random_finite(in, r) : zero_pattern(in, r);
    case 1: return r.below(2) ? random_subnormal_or_tiny(in, r) : zero_pattern(in, r);
    default: return random_finite(in, r);
  }
}

std::uint64_t c_value(const Format& out, Rng& r) {
  std::uint64_t p = 0;
  switch (r.below(6)) {
    case 0: return zero_pattern(out, r);
    case 1: return power_of_two(out, 0, r.next() & 1, p) ? p : 0;                     // +-1
    case 2: return value_with_lead(out, r, out.emax - static_cast<int>(r.below(2)));  // near the largest
    case 3: return r.below(8) ? random_finite(out, r) : random_special(out, r);
    default: return value_with_lead(out, r, r.range(-40, 40));
  }
}

}  // namespace

TEST_CASE("gemm_scaled equals dot_scaled on every block-scaled row with edge scales", "[kernel][differential]") {
  Rng r(tcsim::test::seed("block-scaled gemm_scaled", 0x7c5e0b5e));
  const char* env = std::getenv("TCSIM_BLOCK_SCALED_GEMM_CASES");
  const std::uint64_t total = env ? std::strtoull(env, nullptr, 0) : tcsim::test::count(8'000);
  std::size_t configs = 0;
  for (const char* unit_name : {"b200", "rtx5090"}) {
    const Unit& unit = builtin_unit(unit_name);
    for (const auto& row : unit.spec().datapaths) {
      if (!row.block_scale) continue;
      for (const auto& in_name : row.input_formats)
        for (const auto& sf_name : row.block_scale->scale_formats)
          for (const int bs : row.block_scale->block_sizes) {
            const Format &in = parse_format(in_name), &out = formats::fp32(), &sf = parse_format(sf_name);
            const std::string label = std::string(unit_name) + " " + row.instruction + " " + in.name + " " + sf.name +
                                      "/" + std::to_string(bs) + " [" + unit.batch_path(in, out, row.instruction) + "]";
            INFO(label);
            ++configs;
            const std::size_t k = static_cast<std::size_t>(row.fma_size);
            std::uint64_t cases = 0, bad = 0;
            while (cases < total) {
              const std::size_t m = 19, n = 40 + r.below(3) * 8, blocks = 1 + r.below(2), K = k * blocks + r.below(3) * 8;
              const std::size_t nb = (K + bs - 1) / bs;
              std::vector<std::uint64_t> A(m * K), B(K * n), C(m * n), sa(m * nb), sb(nb * n);
              const int kind = static_cast<int>(r.below(3));
              for (auto& x : A) x = element(in, r, kind);
              for (auto& x : B) x = element(in, r, static_cast<int>(r.below(3)));
              if (r.below(3) == 0)  // some groups of 16 cancel exactly in the rows of A against B's first column
                for (std::size_t i = 0; i < m; ++i)
                  for (std::size_t t = 0; t + 1 < K; t += 2) {
                    A[i * K + t + 1] = A[i * K + t] ^ in.sign_mask();
                    B[(t + 1) * n] = B[t * n];
                  }
              for (auto& x : C) x = c_value(out, r);
              const bool edges = r.below(2);
              for (auto& x : sa) x = edges ? edge_scale(sf, r) : edge_scale(sf, r) % 2 ? 0x7f : edge_scale(sf, r);
              for (auto& x : sb) x = edge_scale(sf, r);
              if (sf.name == "ue4m3")
                for (auto& x : sa)
                  if (x == 0x7f && !edges) x = 0x38;
              const auto D = unit.gemm_scaled(in, out, m, n, K, A, B, C, sf, sa, sb, bs, row.instruction, 1);
              std::vector<std::uint64_t> col(K), sc(nb);
              for (std::size_t i = 0; i < m; ++i)
                for (std::size_t j = 0; j < n; ++j) {
                  for (std::size_t t = 0; t < K; ++t) col[t] = B[t * n + j];
                  for (std::size_t q = 0; q < nb; ++q) sc[q] = sb[q * n + j];
                  const std::uint64_t want = unit.dot_scaled(in, out, {A.data() + i * K, K}, col, sf,
                                                             {sa.data() + i * nb, nb}, sc, C[i * n + j], bs,
                                                             row.instruction);
                  if (want != D[i * n + j] && bad++ < 3)
                    std::printf("[gemm-scaled] MISMATCH %s K %zu i %zu j %zu: a = %s, b = %s, scales a %s b %s, c = %s: "
                                "gemm_scaled %s, dot_scaled %s\n",
                                label.c_str(), K, i, j, hex_list(in, A.data() + i * K, K).c_str(),
                                hex_list(in, col.data(), K).c_str(), hex_list(sf, sa.data() + i * nb, nb).c_str(),
                                hex_list(sf, sc.data(), nb).c_str(), bits_to_hex(out, C[i * n + j]).c_str(),
                                bits_to_hex(out, D[i * n + j]).c_str(), bits_to_hex(out, want).c_str());
                }
              cases += m * n;
            }
            std::printf("[gemm-scaled] %-52s %llu outputs, %llu mismatches\n", label.c_str(),
                        static_cast<unsigned long long>(cases), static_cast<unsigned long long>(bad));
            CHECK(bad == 0);
          }
    }
  }
  CHECK(configs == 15);  // b200: mxf8f6f4 x 5 (ue8m0/32), mxf4nvf4 x 4 (ue8m0/ue4m3 x 16/32); rtx5090: 2 + 4
}

TEST_CASE("gemm_scaled refuses wrong sizes and scale formats with the argument's name", "[kernel]") {
  const Unit& unit = builtin_unit("b200");
  const Format &e2 = formats::e2m1(), &f32 = formats::fp32();
  const std::vector<std::uint64_t> A(2 * 64), B(64 * 3), C(6), sa(2 * 4), sb(4 * 3), bad(5);
  CHECK_THROWS_WITH(unit.gemm_scaled(e2, f32, 2, 3, 64, A, B, C, formats::ue4m3(), bad, sb, 16, "tcgen05.mxf4nvf4"),
                    "gemm_scaled: scale_a must hold m*ceil(K/block_size) = 8 patterns, got 5");
  CHECK_THROWS_WITH(unit.gemm_scaled(e2, f32, 2, 3, 64, A, B, C, formats::ue8m0(), sa, sb, 16, "tcgen05.mxf8f6f4"),
                    Catch::Contains("block_size: 16 is not allowed for instruction 'tcgen05.mxf8f6f4'"));
  const std::vector<std::uint64_t> wide(4 * 3, 0x100);
  CHECK_THROWS_WITH(unit.gemm_scaled(e2, f32, 2, 3, 64, A, B, C, formats::ue8m0(), sa, wide, 16, "tcgen05.mxf4nvf4"),
                    "scale_b[0] = 0x100 has bits above the 8-bit width of ue8m0");
}

TEST_CASE("gemm_scaled: a hand-checked e4m3 sum over two scale blocks", "[kernel]") {
  // k = 64, A = B = 448 (e4m3's largest), scales 2^-8 and 2^-1 for block 1, 2^2 and 2^-3 for
  // block 2: 32 * 200704 * 2^-9 + 32 * 200704 * 2^-1 = 12544 + 3211264 = 3223808, exact in
  // binary32 (0x4a44c400).
  const Unit& unit = builtin_unit("b200");
  const Format &e4 = formats::e4m3(), &f32 = formats::fp32(), &ue8 = formats::ue8m0();
  const std::vector<std::uint64_t> A(64, 0x7e), B(64, 0x7e), C(1, 0);
  const std::vector<std::uint64_t> sa{127 - 8, 127 + 2}, sb{127 - 1, 127 - 3};
  const auto D = unit.gemm_scaled(e4, f32, 1, 1, 64, A, B, C, ue8, sa, sb, 32, "tcgen05.mxf8f6f4");
  CHECK(D[0] == 0x4a44c400);
  CHECK(D[0] == unit.dot_scaled(e4, f32, A, B, ue8, sa, sb, 0, 32, "tcgen05.mxf8f6f4"));
}
