// simulate_gemm (models/gemm.hpp): each variant against an independent composition of the
// same steps (Unit::dot per element, std::fmaf loops, exact ExactValue FMAs), multiword and
// scaling on cases whose answer is known, thread-count determinism and the validation errors.
#include <catch2/catch.hpp>
#include <hwy/targets.h>

#include <cmath>
#include <string>
#include <vector>

#include "tcsim/models/gemm.hpp"
#include "tcsim/models/gemm_eigen.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/exact.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using tcsim::test::Rng;

namespace {

double uniform(Rng& r, double lo, double hi) { return lo + (hi - lo) * static_cast<double>(r.next() >> 11) * 0x1p-53; }

std::vector<double> random_matrix(Rng& r, std::size_t count, double lo, double hi) {
  std::vector<double> v(count);
  for (auto& x : v) x = static_cast<float>(uniform(r, lo, hi));
  return v;
}

std::uint64_t rne(double x, const Format& f) { return round_bits(decode(formats::fp64(), bits_of_double(x)), f, Rounding::NearestEven); }

}  // namespace

TEST_CASE("gemm: tc32/tc16 give the bits of Unit::dot on each row and column", "[gemm]") {
  Rng r(tcsim::test::seed("gemm vs dot", 7001));
  struct Case {
    const char* unit;
    const char* in;
    const char* out;
  };
  for (const Case c : {Case{"v100", "fp16", "fp32"}, Case{"v100", "fp16", "fp16"}, Case{"a100", "tf32", "fp32"},
                       Case{"h100", "bf16", "fp32"}, Case{"h100", "e4m3", "fp32"}}) {
    INFO(c.unit << " " << c.in << " -> " << c.out);
    const Unit& unit = builtin_unit(c.unit);
    const Format &in = parse_format(c.in), &out = parse_format(c.out);
    const std::size_t m = 5, n = 7, k = 37;  // k not a multiple of any block size
    const auto A = random_matrix(r, m * k, -2, 2), B = random_matrix(r, k * n, -2, 2), C = random_matrix(r, m * n, -1, 1);
    const GemmResult g = simulate_gemm(unit, in, out, m, n, k, A, B, C);
    CHECK(g.variant == (out == formats::fp16() ? "tc16" : "tc32"));
    CHECK(g.storage == out.name);
    CHECK(g.unit_calls == 1);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        std::vector<std::uint64_t> a(k), b(k);
        for (std::size_t t = 0; t < k; ++t) a[t] = rne(A[i * k + t], in), b[t] = rne(B[t * n + j], in);
        const std::uint64_t want = unit.dot(in, out, a, b, rne(C[i * n + j], out));
        REQUIRE(g.bits[i * n + j] == want);
        REQUIRE(bits_of_double(g.D[i * n + j]) == bits_of_double(to_double(decode(out, want))));
      }
  }
}

TEST_CASE("gemm: the fp32 variant is a binary32 FMA chain in k order", "[gemm]") {
  Rng r(tcsim::test::seed("gemm fp32 variant", 7002));
  const std::size_t m = 4, n = 6, k = 300;
  const auto A = random_matrix(r, m * k, -1, 1), B = random_matrix(r, k * n, -1, 1), C = random_matrix(r, m * n, -1, 1);
  GemmOptions o;
  o.variant = GemmVariant::Fp32;
  const Format& f16 = formats::fp16();
  const GemmResult g = simulate_gemm(builtin_unit("v100"), f16, formats::fp32(), m, n, k, A, B, C, o);
  CHECK(g.path == "ieee");
  CHECK(g.unit_calls == 0);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      float d = static_cast<float>(C[i * n + j]);
      for (std::size_t t = 0; t < k; ++t)
        d = std::fmaf(static_cast<float>(to_double(decode(f16, rne(A[i * k + t], f16)))),
                      static_cast<float>(to_double(decode(f16, rne(B[t * n + j], f16)))), d);
      REQUIRE(g.bits[i * n + j] == std::bit_cast<std::uint32_t>(d));
    }
}

// The fp16 variant's FMA (round to odd in binary64, then to binary16) against exact FMAs:
// random binary16 chains with subnormals, ties (exact halfway sums), overflow and cancellation.
TEST_CASE("gemm: the fp16 variant equals exact binary16 FMAs (round to nearest even)", "[gemm]") {
  Rng r(tcsim::test::seed("gemm fp16 variant", 7003));
  const Format& f16 = formats::fp16();
  const std::size_t chains = tcsim::test::count(2000), k = 100;
  std::size_t fmas = 0;
  for (std::size_t c = 0; c < chains; ++c) {
    std::vector<double> a(k), b(k);
    for (std::size_t t = 0; t < k; ++t) {
      auto pick = [&]() -> double {
        switch (r.below(6)) {
          case 0: return std::ldexp(static_cast<double>(r.range(-1023, 1023)), r.range(-34, -24));  // subnormal range
          case 1: return std::ldexp(static_cast<double>(r.range(1, 2047)), r.range(-10, 5));         // 11-bit values
          case 2: return r.below(2) ? 0.0 : -0.0;
          case 3: return std::ldexp(static_cast<double>(r.range(-2047, 2047)), r.range(0, 5));       // towards overflow
          default: return to_double(decode(f16, rne(uniform(r, -4, 4), f16)));
        }
      };
      a[t] = to_double(decode(f16, rne(pick(), f16)));
      b[t] = to_double(decode(f16, rne(pick(), f16)));
    }
    const double c0 = to_double(decode(f16, rne(uniform(r, -8, 8), f16)));
    GemmOptions o;
    o.variant = GemmVariant::Fp16;
    o.threads = 1;
    const GemmResult g = simulate_gemm(builtin_unit("v100"), f16, formats::fp16(), 1, 1, k, a, b, std::vector<double>{c0}, o);
    ExactValue d = decode(f16, rne(c0, f16));
    for (std::size_t t = 0; t < k; ++t) {
      const ExactValue p = exact_mul(decode(f16, rne(a[t], f16)), decode(f16, rne(b[t], f16)));
      d = decode(f16, round_bits(exact_add(p, d), f16, Rounding::NearestEven));
      ++fmas;
    }
    const std::uint64_t want = round_bits(d, f16, Rounding::NearestEven);
    INFO("chain " << c);
    REQUIRE(g.bits[0] == want);
  }
  CHECK(fmas == chains * k);
}

TEST_CASE("gemm: split-K and FABsum are slices through the unit combined in binary32/binary64", "[gemm]") {
  Rng r(tcsim::test::seed("gemm split-k fabsum", 7004));
  const Unit& unit = builtin_unit("v100");
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  const std::size_t m = 3, n = 4, k = 50;
  const auto A = random_matrix(r, m * k, 0, 1), B = random_matrix(r, k * n, 0, 1), C = random_matrix(r, m * n, 0, 1);
  std::vector<std::uint64_t> Ab(m * k), Bb(k * n);
  for (std::size_t e = 0; e < m * k; ++e) Ab[e] = rne(A[e], f16);
  for (std::size_t e = 0; e < k * n; ++e) Bb[e] = rne(B[e], f16);
  auto slices = [&](std::size_t len, bool fp64) {
    std::vector<double> acc(m * n);
    for (std::size_t e = 0; e < m * n; ++e) acc[e] = fp64 ? C[e] : static_cast<float>(C[e]);
    for (std::size_t k0 = 0; k0 < k; k0 += len) {
      const std::size_t kk = std::min(len, k - k0);
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
          std::vector<std::uint64_t> a(kk), b(kk);
          for (std::size_t t = 0; t < kk; ++t) a[t] = Ab[i * k + k0 + t], b[t] = Bb[(k0 + t) * n + j];
          const double s = to_double(decode(f32, unit.dot(f16, f32, a, b, 0)));
          acc[i * n + j] = fp64 ? acc[i * n + j] + s : static_cast<float>(static_cast<float>(acc[i * n + j]) + static_cast<float>(s));
        }
    }
    return acc;
  };
  GemmOptions o;
  o.split_k = 3;  // slices of 17, 17, 16
  GemmResult g = simulate_gemm(unit, f16, f32, m, n, k, A, B, C, o);
  CHECK(g.unit_calls == 3);
  CHECK(g.storage == "fp32");
  auto want = slices(17, false);
  for (std::size_t e = 0; e < m * n; ++e) REQUIRE(bits_of_double(g.D[e]) == bits_of_double(want[e]));
  o.split_k = 0;
  o.fabsum_block = 8;
  o.fabsum_combine = "fp64";
  g = simulate_gemm(unit, f16, f32, m, n, k, A, B, C, o);
  CHECK(g.unit_calls == 7);
  CHECK(g.storage == "fp64");
  want = slices(8, true);
  for (std::size_t e = 0; e < m * n; ++e) REQUIRE(bits_of_double(g.D[e]) == bits_of_double(want[e]));
}

TEST_CASE("gemm: multiword fp16 words recover binary32-accurate products", "[gemm]") {
  Rng r(tcsim::test::seed("gemm multiword", 7005));
  const Unit& unit = builtin_unit("a100");
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  const std::size_t m = 4, n = 4, k = 64;
  const auto A = random_matrix(r, m * k, 0.5, 1), B = random_matrix(r, k * n, 0.5, 1);
  auto max_rel_error = [&](const GemmResult& g) {
    double worst = 0;
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        long double exact = 0;  // 64-bit significand: these 48-bit products sum exactly enough
        for (std::size_t t = 0; t < k; ++t) exact += static_cast<long double>(A[i * k + t]) * B[t * n + j];
        worst = std::max(worst, static_cast<double>(std::fabs((g.D[i * n + j] - exact) / exact)));
      }
    return worst;
  };
  GemmOptions o;
  const double one = max_rel_error(simulate_gemm(unit, f16, f32, m, n, k, A, B, {}, o));
  o.words = 2;
  const GemmResult two = simulate_gemm(unit, f16, f32, m, n, k, A, B, {}, o);
  CHECK(two.unit_calls == 3);  // i + j <= 3
  o.all_word_products = true;
  CHECK(simulate_gemm(unit, f16, f32, m, n, k, A, B, {}, o).unit_calls == 4);
  o.all_word_products = false;
  o.scaled_words = true;
  const GemmResult scaled = simulate_gemm(unit, f16, f32, m, n, k, A, B, {}, o);
  CHECK(scaled.storage == "fp64");
  INFO("p = 1: " << one << ", p = 2: " << max_rel_error(two) << ", scaled: " << max_rel_error(scaled));
  CHECK(one > 2e-5);  // fp16 inputs: of the order of u16
  CHECK(max_rel_error(two) < 1e-5);
  CHECK(max_rel_error(scaled) < 1e-5);
  CHECK(max_rel_error(two) < one / 50);
}

TEST_CASE("gemm: scaling brings tiny data into e4m3's range", "[gemm]") {
  Rng r(tcsim::test::seed("gemm scaling", 7006));
  const Unit& unit = builtin_unit("h100");
  const Format &e4 = formats::e4m3(), &f32 = formats::fp32();
  const std::size_t m = 3, n = 3, k = 32;
  auto A = random_matrix(r, m * k, 1e-9, 2e-9), B = random_matrix(r, k * n, 1e-9, 2e-9);
  GemmOptions o;
  o.instruction = "wgmma";
  const GemmResult plain = simulate_gemm(unit, e4, f32, m, n, k, A, B, {}, o);
  for (double d : plain.D) CHECK(d == 0);  // every entry underflows in e4m3
  o.scaling = true;
  const GemmResult scaled = simulate_gemm(unit, e4, f32, m, n, k, A, B, {}, o);
  CHECK(scaled.storage == "fp64");
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double exact = 0;
      for (std::size_t t = 0; t < k; ++t) exact += A[i * k + t] * B[t * n + j];
      CHECK(std::fabs(scaled.D[i * n + j] - exact) / exact < 0.15);  // e4m3: u = 2^-4 per input
    }
}

TEST_CASE("gemm: the bits do not depend on the thread count", "[gemm]") {
  Rng r(tcsim::test::seed("gemm threads", 7007));
  const std::size_t m = 33, n = 70, k = 45;
  const auto A = random_matrix(r, m * k, -1, 1), B = random_matrix(r, k * n, -1, 1), C = random_matrix(r, m * n, -1, 1);
  for (GemmVariant v : {GemmVariant::Tc32, GemmVariant::Fp16, GemmVariant::Fp32}) {
    GemmOptions o;
    o.variant = v;
    o.threads = 1;
    const auto one = simulate_gemm(builtin_unit("v100"), formats::fp16(), formats::fp32(), m, n, k, A, B, C, o).bits;
    o.threads = 2;
    CHECK(simulate_gemm(builtin_unit("v100"), formats::fp16(), formats::fp32(), m, n, k, A, B, C, o).bits == one);
  }
}

TEST_CASE("gemm: invalid options name the field and what is allowed", "[gemm]") {
  const Unit& v100 = builtin_unit("v100");
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  const std::vector<double> A(6, 1.0), B(6, 1.0);
  auto run = [&](GemmOptions o, std::size_t k = 3) { return simulate_gemm(v100, f16, f32, 2, 2, k, A, B, {}, o); };
  GemmOptions o;
  CHECK_THROWS_WITH(run(o, 4), Catch::Contains("A has 6 entries; m * k = 8"));
  o.split_k = 9;
  CHECK_THROWS_WITH(run(o), Catch::Contains("split_k must be between 1 and k = 3, got 9"));
  o = {};
  o.fabsum_block = 2;
  o.fabsum_combine = "fp16";
  CHECK_THROWS_WITH(run(o), Catch::Contains("fabsum_combine: 'fp16' is not allowed; allowed: fp32, fp64"));
  o = {};
  o.split_k = 2;
  o.fabsum_block = 2;
  CHECK_THROWS_WITH(run(o), Catch::Contains("split_k and fabsum_block cannot be combined"));
  o = {};
  o.words = 0;
  CHECK_THROWS_WITH(run(o), Catch::Contains("words must be between 1 and 8, got 0"));
  o = {};
  o.variant = GemmVariant::Fp16;
  CHECK_THROWS_WITH(simulate_gemm(v100, formats::bf16(), f32, 2, 2, 3, A, B, {}, o), Catch::Contains("variant fp16 needs --in fp16"));
  CHECK_THROWS_WITH(parse_variant("tc64", "--variant"), Catch::Contains("--variant: 'tc64' is not a variant; allowed: unit, fp16, tc16, tc32, fp32"));
  o = {};
  CHECK_THROWS_WITH(simulate_gemm(v100, formats::bf16(), f32, 2, 2, 3, A, B, {}, o), Catch::Contains("variant tc32 needs bf16 -> fp32 on the unit"));
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
    for (const char* in_name : {"fp16", "e4m3"}) {
      const Unit& unit = builtin_unit("h100");
      const Format &in = parse_format(in_name), &out = formats::fp32();
      const std::string instruction = in == formats::fp16() ? "" : "wgmma";
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
