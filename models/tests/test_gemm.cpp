// simulate_gemm (models/gemm.hpp): the tensor-core variants against Unit::dot entry by entry,
// the fp32 variant against std::fmaf loops, split-K and FABsum against compositions of
// Unit::dot with binary32/binary64 sums, thread-count determinism, every validation error,
// Eigen interop and Unit::gemm under each SIMD target. Multiword and scaling:
// test_gemm_words.cpp; the host arithmetic and the fp16 variant: test_gemm_convert.cpp.
#include <catch2/catch.hpp>
#include <hwy/targets.h>

#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "gemm_inputs.hpp"
#include "tcsim/models/gemm.hpp"
#include "tcsim/models/gemm_eigen.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/exact.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using tcsim::test::Rng;
using namespace tcsim::models::test;  // gemm_inputs.hpp: uniform, random_matrix, rne, value

namespace {

// Unit::dot on row i of A and column j of B (converted with RNE) and C[i][j] in `out`.
std::uint64_t dot_entry(const Unit& unit, const Format& in, const Format& out, std::size_t n, std::size_t k,
                        const std::vector<double>& A, const std::vector<double>& B, std::uint64_t c, std::size_t i,
                        std::size_t j, const std::string& instruction = "", std::size_t k0 = 0,
                        std::size_t kk = ~std::size_t{0}) {
  kk = std::min(kk, k - k0);
  std::vector<std::uint64_t> a(kk), b(kk);
  for (std::size_t t = 0; t < kk; ++t) a[t] = rne(A[i * k + k0 + t], in), b[t] = rne(B[(k0 + t) * n + j], in);
  return unit.dot(in, out, a, b, c, instruction);
}

}  // namespace

TEST_CASE("gemm: tc32/tc16 give the bits of Unit::dot on each row and column", "[gemm]") {
  Rng r(tcsim::test::seed("gemm vs dot", 7001));
  struct Case {
    const char* unit;
    const char* in;
    const char* out;
    const char* instruction;
    GemmVariant variant;
    const char* name;     // the variant reported
    const char* storage;  // the format D is held in
  };
  const Case cases[] = {
      {"v100", "fp16", "fp32", "", GemmVariant::Unit, "tc32", "fp32"},
      {"v100", "fp16", "fp16", "", GemmVariant::Unit, "tc16", "fp16"},
      {"v100", "fp16", "fp32", "", GemmVariant::Tc16, "tc16", "fp16"},  // tc16 holds C and D in binary16
      {"a100", "tf32", "fp32", "", GemmVariant::Tc32, "tc32", "fp32"},
      {"a100", "bf16", "fp32", "", GemmVariant::Unit, "tc32", "fp32"},
      {"a100", "fp64", "fp64", "", GemmVariant::Unit, "unit", "fp64"},  // neither binary16 nor binary32
      {"h100", "fp16", "fp32", "", GemmVariant::Unit, "tc32", "fp32"},
      {"h100", "bf16", "fp32", "", GemmVariant::Unit, "tc32", "fp32"},
      {"h100", "e4m3", "fp32", "wgmma", GemmVariant::Unit, "tc32", "fp32"},
      {"h100", "e5m2", "fp16", "", GemmVariant::Unit, "tc16", "fp16"},
  };
  for (const Case& c : cases) {
    INFO(c.unit << " " << c.in << " -> " << c.out << " " << c.instruction << ", variant " << variant_name(c.variant));
    const Unit& unit = builtin_unit(c.unit);
    const Format& in = parse_format(c.in);
    const Format& acc = parse_format(c.storage);
    const std::size_t m = 5, n = 19, k = 37;  // k not a multiple of any block size
    const auto A = random_matrix(r, m * k, -2, 2), B = random_matrix(r, k * n, -2, 2), C = random_matrix(r, m * n, -1, 1);
    GemmOptions o;
    o.variant = c.variant;
    o.instruction = c.instruction;
    for (bool with_c : {true, false}) {
      const GemmResult g = simulate_gemm(unit, in, parse_format(c.out), m, n, k, A, B, with_c ? C : std::vector<double>{}, o);
      CHECK(g.variant == c.name);
      CHECK(g.storage == c.storage);
      CHECK(g.unit_calls == 1);
      CHECK(g.path == unit.batch_path(in, acc, c.instruction));
      REQUIRE(g.bits.size() == m * n);
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
          const std::uint64_t cb = with_c ? rne(C[i * n + j], acc) : acc.zero(false);
          const std::uint64_t want = dot_entry(unit, in, acc, n, k, A, B, cb, i, j, c.instruction);
          REQUIRE(bits_to_hex(acc, g.bits[i * n + j]) == bits_to_hex(acc, want));
          REQUIRE(bits_of_double(g.D[i * n + j]) == bits_of_double(value(acc, want)));
        }
    }
  }
}

TEST_CASE("gemm: the fp32 variant is a binary32 FMA chain in k order", "[gemm]") {
  Rng r(tcsim::test::seed("gemm fp32 variant", 7002));
  struct Size {
    std::size_t m, n, k;
  };
  // Whole 4 x 16 register tiles, and edges of both (rows and columns left over).
  for (const Size s : {Size{8, 32, 300}, Size{7, 37, 301}, Size{1, 1, 1}, Size{33, 50, 17}})
    for (const Format* in : {&formats::fp16(), &formats::bf16(), &formats::e4m3()}) {
      const std::size_t m = s.m, n = s.n, k = s.k;
      INFO(in->name << " " << m << " x " << n << " x " << k);
      const auto A = random_matrix(r, m * k, -1, 1), B = random_matrix(r, k * n, -1, 1), C = random_matrix(r, m * n, -1, 1);
      GemmOptions o;
      o.variant = GemmVariant::Fp32;
      const GemmResult g = simulate_gemm(builtin_unit("v100"), *in, formats::fp16(), m, n, k, A, B, C, o);
      CHECK(g.path == "ieee");
      CHECK(g.variant == "fp32");
      CHECK(g.storage == "fp32");
      CHECK(g.unit_calls == 0);
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
          float d = static_cast<float>(C[i * n + j]);
          for (std::size_t t = 0; t < k; ++t)
            d = std::fmaf(static_cast<float>(value(*in, rne(A[i * k + t], *in))),
                          static_cast<float>(value(*in, rne(B[t * n + j], *in))), d);
          REQUIRE(g.bits[i * n + j] == std::bit_cast<std::uint32_t>(d));
          REQUIRE(g.D[i * n + j] == static_cast<double>(d));
        }
    }
  // C overflowing binary32 on conversion, and an invalid operation: Inf, -Inf and the
  // canonical binary32 NaN.
  GemmOptions o;
  o.variant = GemmVariant::Fp32;
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> A = {65504, 65504, 1, 0}, B = {65504, 65504, 65504, -65504};  // 2 x 2, 2 x 2
  const GemmResult g = simulate_gemm(builtin_unit("v100"), formats::fp16(), formats::fp32(), 2, 2, 2, A, B,
                                     std::vector<double>{1e39, 0, -1e39, 0}, o);
  CHECK(g.bits[0] == 0x7f800000u);
  CHECK(g.bits[1] == 0u);  // 65504^2 - 65504^2, exactly
  CHECK(g.bits[2] == 0xff800000u);
  const std::vector<double> An = {1, 0, 1, 0}, Bn = {inf, 0, 0, 0};
  const GemmResult nan =
      simulate_gemm(builtin_unit("v100"), formats::fp16(), formats::fp32(), 2, 2, 2, An, Bn, std::vector<double>{inf, 0, -inf, 0}, o);
  CHECK(nan.bits[0] == 0x7f800000u);  // Inf + Inf
  CHECK(nan.bits[2] == 0x7fc00000u);  // -Inf + Inf: NaN, canonical
  CHECK(std::isnan(nan.D[2]));
}

TEST_CASE("gemm: split-K and FABsum are slices through the unit combined in binary32/binary64", "[gemm]") {
  Rng r(tcsim::test::seed("gemm split-k fabsum", 7004));
  const Unit& unit = builtin_unit("v100");
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  const std::size_t m = 3, n = 4, k = 50;
  const auto A = random_matrix(r, m * k, 0, 1), B = random_matrix(r, k * n, 0, 1), C = random_matrix(r, m * n, 0, 1);
  // Slices of `len` through Unit::dot from C = +0, summed with C (binary32 or binary64, RNE).
  auto slices = [&](std::size_t len, bool fp64) {
    std::vector<double> acc(m * n);
    for (std::size_t e = 0; e < m * n; ++e) acc[e] = fp64 ? C[e] : static_cast<float>(C[e]);
    for (std::size_t k0 = 0; k0 < k; k0 += len)
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
          const double s = value(f32, dot_entry(unit, f16, f32, n, k, A, B, 0, i, j, "", k0, len));
          acc[i * n + j] = fp64 ? acc[i * n + j] + s : static_cast<float>(static_cast<float>(acc[i * n + j]) + static_cast<float>(s));
        }
    return acc;
  };
  GemmOptions o;
  o.split_k = 3;  // slices of 17, 17, 16
  GemmResult g = simulate_gemm(unit, f16, f32, m, n, k, A, B, C, o);
  CHECK(g.unit_calls == 3);
  CHECK(g.storage == "fp32");
  CHECK(g.variant == "tc32");
  auto want = slices(17, false);
  for (std::size_t e = 0; e < m * n; ++e) {
    REQUIRE(bits_of_double(g.D[e]) == bits_of_double(want[e]));
    REQUIRE(g.bits[e] == std::bit_cast<std::uint32_t>(static_cast<float>(want[e])));
  }
  o.split_k = 50;  // slices of one product
  CHECK(simulate_gemm(unit, f16, f32, m, n, k, A, B, C, o).D == slices(1, false));
  o.split_k = 0;
  o.fabsum_block = 8;  // 6 blocks of 8 and one of 2
  o.fabsum_combine = "fp64";
  g = simulate_gemm(unit, f16, f32, m, n, k, A, B, C, o);
  CHECK(g.unit_calls == 7);
  CHECK(g.storage == "fp64");
  want = slices(8, true);
  for (std::size_t e = 0; e < m * n; ++e) REQUIRE(g.bits[e] == bits_of_double(want[e]));
  o.fabsum_combine = "fp32";
  g = simulate_gemm(unit, f16, f32, m, n, k, A, B, C, o);
  CHECK(g.storage == "fp32");
  CHECK(g.D == slices(8, false));
  o.fabsum_block = 64;  // one block: the unit's GEMM from 0, then C added in binary32
  g = simulate_gemm(unit, f16, f32, m, n, k, A, B, C, o);
  CHECK(g.unit_calls == 1);
  CHECK(g.D == slices(50, false));
}

// Split-K and FABsum on the IEEE variants (blanchard2020's "blocked summation", the order a
// cuBLAS-like split-K GEMM uses): each slice one FMA chain from +0, computed here by std::fmaf
// (fp32) or by the unsplit variant on the slice (fp16), summed with C in binary32 in order.
TEST_CASE("gemm: split-K and FABsum on the fp16 and fp32 variants", "[gemm]") {
  Rng r(tcsim::test::seed("gemm split-k ieee", 7011));
  const Unit& unit = builtin_unit("v100");
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  const std::size_t m = 3, n = 5, k = 41;
  std::vector<double> A = random_matrix(r, m * k, -1, 1), B = random_matrix(r, k * n, -1, 1),
                      C = random_matrix(r, m * n, -1, 1);
  for (auto& x : A) x = static_cast<float>(x);
  for (auto& x : B) x = static_cast<float>(x);  // binary32 data
  auto fp32_slices = [&](std::size_t len) {
    std::vector<double> acc(m * n);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        float d = static_cast<float>(C[i * n + j]);
        for (std::size_t k0 = 0; k0 < k; k0 += len) {
          float s = 0;
          for (std::size_t t = k0; t < std::min(k, k0 + len); ++t)
            s = std::fmaf(static_cast<float>(A[i * k + t]), static_cast<float>(B[t * n + j]), s);
          d += s;
        }
        acc[i * n + j] = d;
      }
    return acc;
  };
  GemmOptions o;
  o.variant = GemmVariant::Fp32;
  o.split_k = 4;  // slices of 11, 11, 11, 8
  GemmResult g = simulate_gemm(unit, f32, f32, m, n, k, A, B, C, o);
  CHECK(g.variant == "fp32");
  CHECK(g.storage == "fp32");
  CHECK(g.unit_calls == 0);  // IEEE FMAs, not the unit
  std::vector<double> want = fp32_slices(11);
  for (std::size_t e = 0; e < m * n; ++e) REQUIRE(bits_of_double(g.D[e]) == bits_of_double(want[e]));
  o.split_k = 0;
  o.fabsum_block = 6;
  CHECK(simulate_gemm(unit, f32, f32, m, n, k, A, B, C, o).D == fp32_slices(6));
  // The slices differ from the unsplit chain on this data (the test can fail).
  o.fabsum_block = 0;
  CHECK(simulate_gemm(unit, f32, f32, m, n, k, A, B, C, o).D != fp32_slices(6));

  // fp16: each slice is the unsplit fp16 variant on the slice's columns and rows, from +0.
  o = {};
  o.variant = GemmVariant::Fp16;
  o.split_k = 3;  // slices of 14, 14, 13
  g = simulate_gemm(unit, f16, f16, m, n, k, A, B, C, o);
  CHECK(g.storage == "fp32");
  std::vector<float> acc(m * n);
  for (std::size_t e = 0; e < m * n; ++e) acc[e] = static_cast<float>(C[e]);
  GemmOptions whole;
  whole.variant = GemmVariant::Fp16;
  for (std::size_t k0 = 0; k0 < k; k0 += 14) {
    const std::size_t kk = std::min<std::size_t>(14, k - k0);
    std::vector<double> As(m * kk), Bs(B.begin() + static_cast<std::ptrdiff_t>(k0 * n),
                                       B.begin() + static_cast<std::ptrdiff_t>((k0 + kk) * n));
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t t = 0; t < kk; ++t) As[i * kk + t] = A[i * k + k0 + t];
    const GemmResult s = simulate_gemm(unit, f16, f16, m, n, kk, As, Bs, {}, whole);
    for (std::size_t e = 0; e < m * n; ++e) acc[e] += static_cast<float>(s.D[e]);  // binary16 + binary32: exact in binary64
  }
  for (std::size_t e = 0; e < m * n; ++e) REQUIRE(g.bits[e] == std::bit_cast<std::uint32_t>(acc[e]));
}

// Slices whose results are binary64 (a100 fp64 -> fp64) summed into binary32: one rounding of
// the exact sum per slice (no rounding of the slice into binary32 first).
TEST_CASE("gemm: split-K rounds the exact sum of binary32 C and binary64 slices once", "[gemm]") {
  Rng r(tcsim::test::seed("gemm split-k fp64", 7010));
  const Unit& unit = builtin_unit("a100");
  const Format &f64 = formats::fp64(), &f32 = formats::fp32();
  const std::size_t m = 4, n = 5, k = 10;
  std::vector<double> A(m * k), B(k * n), C(m * n);
  for (auto& x : A) x = uniform(r, -1, 1);  // binary64 entries: the slices carry more than 24 bits
  for (auto& x : B) x = uniform(r, -1, 1);
  for (auto& x : C) x = uniform(r, -1, 1);
  GemmOptions o;
  o.split_k = 6;  // ceil(10 / 6) = 2: five slices of 2
  const GemmResult g = simulate_gemm(unit, f64, f64, m, n, k, A, B, C, o);
  CHECK(g.unit_calls == 5);
  CHECK(g.storage == "fp32");
  CHECK(g.variant == "unit");
  std::size_t differs = 0;  // entries where rounding each slice to binary32 first would differ
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      std::uint64_t acc = rne(C[i * n + j], f32), naive = acc;
      for (std::size_t k0 = 0; k0 < k; k0 += 2) {
        const std::uint64_t s = dot_entry(unit, f64, f64, n, k, A, B, 0, i, j, "", k0, 2);
        acc = round_bits(exact_add(decode(f32, acc), decode(f64, s)), f32, Rounding::NearestEven);
        naive = std::bit_cast<std::uint32_t>(float_of_bits(static_cast<std::uint32_t>(naive)) + static_cast<float>(value(f64, s)));
      }
      REQUIRE(g.bits[i * n + j] == acc);
      differs += naive != acc;
    }
  INFO("entries where per-slice binary32 rounding differs: " << differs);
  CHECK(differs > 0);  // the data do tell one rounding from two (8 of 20 entries with the default seed)
}

TEST_CASE("gemm: the bits do not depend on the thread count", "[gemm]") {
  Rng r(tcsim::test::seed("gemm threads", 7007));
  const std::size_t m = 37, n = 70, k = 45;
  const auto A = random_matrix(r, m * k, -1, 1), B = random_matrix(r, k * n, -1, 1), C = random_matrix(r, m * n, -1, 1);
  std::vector<GemmOptions> options(8);
  options[0].variant = GemmVariant::Tc32;
  options[1].variant = GemmVariant::Fp16;
  options[2].variant = GemmVariant::Fp32;
  options[3].split_k = 4;
  options[4].fabsum_block = 8;
  options[5].words = 3;
  options[5].all_word_products = true;
  options[6].words = 2;
  options[6].scaled_words = true;
  options[6].scaling = true;
  options[7].variant = GemmVariant::Tc16;
  options[7].scaling = true;
  for (std::size_t c = 0; c < options.size(); ++c) {
    INFO("options " << c);
    GemmOptions o = options[c];
    o.threads = 1;
    const GemmResult one = simulate_gemm(builtin_unit("h100"), formats::fp16(), formats::fp32(), m, n, k, A, B, C, o);
    for (unsigned t : {2u, 3u, 0u}) {
      o.threads = t;
      const GemmResult many = simulate_gemm(builtin_unit("h100"), formats::fp16(), formats::fp32(), m, n, k, A, B, C, o);
      CHECK(many.bits == one.bits);
      CHECK(many.storage == one.storage);
    }
  }
}

TEST_CASE("gemm: invalid options name the field and what is allowed", "[gemm]") {
  const Unit& v100 = builtin_unit("v100");
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  const std::vector<double> A(6, 1.0), B(6, 1.0);
  auto run = [&](GemmOptions o, std::size_t k = 3) { return simulate_gemm(v100, f16, f32, 2, 2, k, A, B, {}, o); };
  GemmOptions o;
  CHECK_THROWS_WITH(simulate_gemm(v100, f16, f32, 0, 2, 3, {}, B, {}, o),
                    Catch::Contains("m, n and k must be at least 1, got m = 0, n = 2, k = 3"));
  CHECK_THROWS_WITH(run(o, 4), Catch::Contains("A has 6 entries; m * k = 8"));
  CHECK_THROWS_WITH(simulate_gemm(v100, f16, f32, 2, 3, 3, A, B, {}, o), Catch::Contains("B has 6 entries; k * n = 9"));
  CHECK_THROWS_WITH(simulate_gemm(v100, f16, f32, 2, 2, 3, A, B, std::vector<double>(3), o),
                    Catch::Contains("C has 3 entries; m * n = 4 (or none: C = 0)"));
  o.split_k = 9;
  CHECK_THROWS_WITH(run(o), Catch::Contains("split_k must be between 1 and k = 3, got 9"));
  o.split_k = -1;
  CHECK_THROWS_WITH(run(o), Catch::Contains("split_k must be between 1 and k = 3, got -1"));
  o = {};
  o.fabsum_block = -2;
  CHECK_THROWS_WITH(run(o), Catch::Contains("fabsum_block must be 0 (off) or a block size of at least 1, got -2"));
  o = {};
  o.fabsum_block = 2;
  o.fabsum_combine = "fp16";
  CHECK_THROWS_WITH(run(o), Catch::Contains("fabsum_combine: 'fp16' is not allowed; allowed: fp32, fp64"));
  o.fabsum_combine = "binary64";  // an alias of fp64
  CHECK(run(o).storage == "fp64");
  o = {};
  o.split_k = 2;
  o.fabsum_block = 2;
  CHECK_THROWS_WITH(run(o), Catch::Contains("split_k and fabsum_block cannot be combined"));
  o = {};
  o.words = 0;
  CHECK_THROWS_WITH(run(o), Catch::Contains("words must be between 1 and 8, got 0"));
  o.words = 9;
  CHECK_THROWS_WITH(run(o), Catch::Contains("words must be between 1 and 8, got 9"));
  o.words = 2;
  o.split_k = 2;
  CHECK_THROWS_WITH(run(o), Catch::Contains("words > 1 cannot be combined with split_k or fabsum_block"));
  o = {};
  o.input_rounding = Rounding::Stochastic;
  CHECK_THROWS_WITH(run(o), Catch::Contains("input_rounding: sr (stochastic)") && Catch::Contains("allowed: rne, rz, ru, rd, ro"));
  o = {};
  o.variant = GemmVariant::Fp16;
  CHECK_THROWS_WITH(simulate_gemm(v100, formats::bf16(), f32, 2, 2, 3, A, B, {}, o),
                    Catch::Contains("variant fp16 needs the input format fp16") && Catch::Contains("got bf16"));
  o.words = 2;
  CHECK_THROWS_WITH(run(o), Catch::Contains("variant fp16 (no tensor core) cannot be combined with words > 1"));
  o = {};
  o.variant = GemmVariant::Fp32;
  CHECK_THROWS_WITH(simulate_gemm(v100, formats::fp64(), f32, 2, 2, 3, A, B, {}, o),
                    Catch::Contains("variant fp32 needs an input format whose values are binary32 numbers") &&
                        Catch::Contains("got fp64"));
  CHECK_THROWS_WITH(parse_variant("tc64", "--variant"),
                    Catch::Contains("--variant: 'tc64' is not a variant; allowed: unit, fp16, tc16, tc32, fp32"));
  o = {};
  CHECK_THROWS_WITH(simulate_gemm(v100, formats::bf16(), f32, 2, 2, 3, A, B, {}, o),
                    Catch::Contains("variant tc32 needs bf16 -> fp32 on the unit: unit 'v100'"));
  o.variant = GemmVariant::Tc16;
  CHECK_THROWS_WITH(simulate_gemm(builtin_unit("a100"), formats::tf32(), f32, 2, 2, 3, A, B, {}, o),
                    Catch::Contains("variant tc16 needs tf32 -> fp16 on the unit: unit 'a100'"));
  o = {};
  o.instruction = "tcgen05";
  CHECK_THROWS_WITH(run(o), Catch::Contains("variant tc32 needs fp16 -> fp32 on the unit"));
  for (GemmVariant v : {GemmVariant::Unit, GemmVariant::Fp16, GemmVariant::Tc16, GemmVariant::Tc32, GemmVariant::Fp32})
    CHECK(parse_variant(variant_name(v)) == v);
}

TEST_CASE("gemm: Eigen matrices (float, double, either storage order, bit patterns) give the same bits", "[gemm]") {
  Rng r(tcsim::test::seed("gemm eigen", 7008));
  const std::size_t m = 6, n = 5, k = 19;
  const auto A = random_matrix(r, m * k, -1, 1), B = random_matrix(r, k * n, -1, 1), C = random_matrix(r, m * n, -1, 1);
  const Unit& unit = builtin_unit("h100");
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  const GemmResult want = simulate_gemm(unit, f16, f32, m, n, k, A, B, C);
  Eigen::MatrixXf Af(m, k);  // column-major
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> Bd(k, n);
  Eigen::MatrixXd Cd(m, n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t t = 0; t < k; ++t) Af(i, t) = static_cast<float>(A[i * k + t]);
  for (std::size_t t = 0; t < k; ++t)
    for (std::size_t j = 0; j < n; ++j) Bd(t, j) = B[t * n + j];
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) Cd(i, j) = C[i * n + j];
  const GemmResult got = simulate_gemm(unit, f16, f32, Af, Bd, Cd);
  CHECK(got.bits == want.bits);
  const BitMatrix P = bits(got);
  const Eigen::MatrixXd V = values(got);
  CHECK(P(2, 3) == want.bits[2 * n + 3]);
  CHECK(V(4, 1) == want.D[4 * n + 1]);
  // Bit-pattern storage through Unit::gemm.
  BitMatrix Ab(m, k), Bb(k, n), Cb(m, n);
  for (std::size_t e = 0; e < m * k; ++e) Ab.data()[e] = rne(A[e], f16);
  for (std::size_t e = 0; e < k * n; ++e) Bb.data()[e] = rne(B[e], f16);
  for (std::size_t e = 0; e < m * n; ++e) Cb.data()[e] = rne(C[e], f32);
  const BitMatrix D = gemm_bits(unit, f16, f32, Ab, Bb, Cb);
  for (std::size_t e = 0; e < m * n; ++e) CHECK(D.data()[e] == want.bits[e]);
  CHECK_THROWS_WITH(simulate_gemm(unit, f16, f32, Af, Af), Catch::Contains("A's columns must equal B's rows"));
}

// Unit::gemm's tile kernel and dot_batch's pattern path under each compiled SIMD target this
// CPU supports (the machine would otherwise run only its best one).
TEST_CASE("gemm: every compiled SIMD target gives the bits of Unit::dot", "[gemm]") {
  Rng r(tcsim::test::seed("gemm targets", 7009));
  const std::size_t m = 9, n = 70, k = 53;
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    INFO("target " << hwy::TargetName(target));
    // b200 tcgen05 e4m3: blocks of 32 at F = 25, summed in two int32 chunks (issue 25).
    for (const auto& [unit_name, in_name, instruction] :
         {std::tuple{"h100", "fp16", ""}, std::tuple{"h100", "e4m3", "wgmma"}, std::tuple{"b200", "e4m3", "tcgen05"}}) {
      const Unit& unit = builtin_unit(unit_name);
      const Format &in = parse_format(in_name), &out = formats::fp32();
      std::vector<std::uint64_t> A(m * k), B(k * n), C(m * n);
      for (auto& x : A) x = rne(uniform(r, -3, 3), in);
      for (auto& x : B) x = rne(uniform(r, -3, 3), in);
      for (auto& x : C) x = rne(uniform(r, -1, 1), out);
      const auto D = unit.gemm(in, out, m, n, k, A, B, C, instruction, 2);
      std::vector<std::uint64_t> a(m * n * k), b(m * n * k), c(m * n), d(m * n);
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
          for (std::size_t t = 0; t < k; ++t) a[(i * n + j) * k + t] = A[i * k + t], b[(i * n + j) * k + t] = B[t * n + j];
          c[i * n + j] = C[i * n + j];
        }
      unit.dot_batch(in, out, m * n, k, a.data(), b.data(), c.data(), d.data(), instruction, 2);
      for (std::size_t e = 0; e < m * n; ++e) {
        const std::uint64_t want = unit.dot(in, out, {a.data() + e * k, k}, {b.data() + e * k, k}, c[e], instruction);
        REQUIRE(D[e] == want);
        REQUIRE(d[e] == want);
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}
