// simulate_gemm with multiword products (mary2021; scaled words: mary2024 eq. (4.3)-(4.7)),
// power-of-two scaling (mary2024 eq. (3.1)-(3.2)) and flushed subnormal inputs: compositions
// of Unit::gemm written out by hand, cases whose exact answer is known, and accuracy on data
// far outside the input format's range.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "gemm_inputs.hpp"
#include "tcsim/models/gemm.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/exact.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using tcsim::test::Rng;
using namespace tcsim::models::test;  // gemm_inputs.hpp: uniform, random_matrix, rne, value

namespace {

using Bits = std::vector<std::uint64_t>;

// Words of binary32 data in `in` (residuals exact in binary64): w_i = fl(R_i * 2^(i t)) scaled,
// fl(R_i) unscaled; R_{i+1} = R_i - w_i 2^(-i t).
std::vector<Bits> hand_words(const std::vector<double>& x, const Format& in, int p, bool scaled) {
  std::vector<Bits> w(static_cast<std::size_t>(p), Bits(x.size()));
  for (std::size_t e = 0; e < x.size(); ++e) {
    double R = x[e];
    for (int i = 0; i < p; ++i) {
      const double s = scaled ? std::ldexp(1.0, i * in.precision) : 1.0;
      w[static_cast<std::size_t>(i)][e] = rne(R * s, in);
      R -= value(in, w[static_cast<std::size_t>(i)][e]) / s;
    }
  }
  return w;
}

// The word products (0-based i, j) in the documented order.
std::vector<std::pair<int, int>> hand_pairs(int p, bool all, WordOrder order) {
  std::vector<std::pair<int, int>> v;
  for (int step = 0; step <= 2 * (p - 1); ++step) {
    const int s = order == WordOrder::SmallestFirst ? 2 * (p - 1) - step : step;
    for (int i = 0; i < p; ++i)
      if (s - i >= 0 && s - i < p && (all || s <= p - 1)) v.emplace_back(i, s - i);
  }
  return v;
}

// sum_t A[i][t] B[t][j] (+ C) exactly, rounded once to binary64.
std::vector<double> exact_product(std::size_t m, std::size_t n, std::size_t k, const std::vector<double>& A,
                                  const std::vector<double>& B, const std::vector<double>& C = {}) {
  std::vector<double> D(m * n);
  const Format& f64 = formats::fp64();
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      ExactValue s = C.empty() ? ExactValue::zero() : decode(f64, bits_of_double(C[i * n + j]));
      for (std::size_t t = 0; t < k; ++t)
        s = exact_add(s, exact_mul(decode(f64, bits_of_double(A[i * k + t])), decode(f64, bits_of_double(B[t * n + j]))));
      D[i * n + j] = to_double(s);
    }
  return D;
}

double max_relative_error(const std::vector<double>& got, const std::vector<double>& exact) {
  double worst = 0;
  for (std::size_t e = 0; e < got.size(); ++e) {
    const double err = std::fabs(got[e] - exact[e]) / std::fabs(exact[e]);
    worst = std::max(worst, std::isnan(err) ? std::numeric_limits<double>::infinity() : err);
  }
  return worst;
}

}  // namespace

TEST_CASE("gemm: multiword products are Unit::gemm calls in the documented order", "[gemm]") {
  Rng r(tcsim::test::seed("gemm multiword composition", 7201));
  const std::size_t m = 6, n = 5, k = 21;
  const auto A = random_matrix(r, m * k, -1, 1), B = random_matrix(r, k * n, -1, 1), C = random_matrix(r, m * n, -1, 1);
  struct Case {
    const char* unit;
    const char* in;
  };
  for (const Case c : {Case{"v100", "fp16"}, Case{"h100", "bf16"}})
    for (int p : {2, 3})
      for (bool all : {false, true})
        for (bool scaled : {false, true})
          for (WordOrder order : {WordOrder::SmallestFirst, WordOrder::LargestFirst}) {
            const Unit& unit = builtin_unit(c.unit);
            const Format &in = parse_format(c.in), &out = formats::fp32();
            INFO(c.unit << " " << c.in << " p = " << p << (all ? " all" : "") << (scaled ? " scaled" : "")
                        << (order == WordOrder::SmallestFirst ? " smallest-first" : " largest-first"));
            GemmOptions o;
            o.words = p;
            o.all_word_products = all;
            o.scaled_words = scaled;
            o.word_order = order;
            const GemmResult g = simulate_gemm(unit, in, out, m, n, k, A, B, C, o);
            const auto Aw = hand_words(A, in, p, scaled), Bw = hand_words(B, in, p, scaled);
            const auto pairs = hand_pairs(p, all, order);
            CHECK(g.unit_calls == pairs.size());
            CHECK(g.unit_calls == static_cast<std::size_t>(all ? p * p : p * (p + 1) / 2));
            if (!scaled) {  // chained through the unit's accumulator, C first
              Bits acc(m * n);
              for (std::size_t e = 0; e < m * n; ++e) acc[e] = rne(C[e], out);
              for (auto [i, j] : pairs) acc = unit.gemm(in, out, m, n, k, Aw[i], Bw[j], acc);
              CHECK(g.storage == "fp32");
              REQUIRE(g.bits == acc);
            } else {  // each product from +0, times u^(i+j), summed in binary64 after C
              std::vector<double> D = C;
              for (auto [i, j] : pairs) {
                const Bits P = unit.gemm(in, out, m, n, k, Aw[i], Bw[j], Bits(m * n, 0));
                for (std::size_t e = 0; e < m * n; ++e) D[e] += value(out, P[e]) * std::ldexp(1.0, -(i + j) * in.precision);
              }
              CHECK(g.storage == "fp64");
              for (std::size_t e = 0; e < m * n; ++e) REQUIRE(g.bits[e] == bits_of_double(D[e]));
            }
          }
}

// a = h + l with h a small integer and l = +-2^-12 or +-2^-13: the binary16 words are exactly
// h and l (scaled: l 2^11), and every partial sum is exact in binary32, so the result is known.
TEST_CASE("gemm: multiword products of exactly split data give the exact sums", "[gemm]") {
  Rng r(tcsim::test::seed("gemm multiword exact", 7202));
  const std::size_t m = 3, n = 4, k = 8;
  std::vector<double> Ah(m * k), Al(m * k), Bh(k * n), Bl(k * n), A(m * k), B(k * n);
  for (std::size_t e = 0; e < m * k; ++e) {
    Ah[e] = r.range(1, 7);
    Al[e] = r.below(2) ? 1 : -1;  // named draws: operand order is unspecified
    Al[e] *= std::ldexp(1.0, -r.range(12, 13));
    A[e] = Ah[e] + Al[e];
  }
  for (std::size_t e = 0; e < k * n; ++e) {
    Bh[e] = r.range(1, 7);
    Bl[e] = r.below(2) ? 1 : -1;  // named draws: operand order is unspecified
    Bl[e] *= std::ldexp(1.0, -r.range(12, 13));
    B[e] = Bh[e] + Bl[e];
  }
  std::vector<double> three(m * n, 0.0), one(m * n, 0.0);  // sum of h h' + h l' + l h'; of h h'
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t t = 0; t < k; ++t) {
        const double hh = Ah[i * k + t] * Bh[t * n + j];
        one[i * n + j] += hh;
        three[i * n + j] += hh + Ah[i * k + t] * Bl[t * n + j] + Al[i * k + t] * Bh[t * n + j];
      }
  const std::vector<double> exact = exact_product(m, n, k, A, B);
  for (const char* unit : {"v100", "a100", "h100"}) {
    INFO(unit);
    GemmOptions o;
    const GemmResult p1 = simulate_gemm(builtin_unit(unit), formats::fp16(), formats::fp32(), m, n, k, A, B, {}, o);
    CHECK(p1.D == one);
    o.words = 2;
    for (WordOrder order : {WordOrder::SmallestFirst, WordOrder::LargestFirst}) {
      o.word_order = order;
      const GemmResult p2 = simulate_gemm(builtin_unit(unit), formats::fp16(), formats::fp32(), m, n, k, A, B, {}, o);
      CHECK(p2.D == three);
      for (std::size_t e = 0; e < m * n; ++e) CHECK(p2.bits[e] == std::bit_cast<std::uint32_t>(static_cast<float>(three[e])));
    }
    // Scaled words with all four products: l l' enters as (l 2^11)(l' 2^11) 2^-22 in binary64.
    o.scaled_words = true;
    o.all_word_products = true;
    const GemmResult all = simulate_gemm(builtin_unit(unit), formats::fp16(), formats::fp32(), m, n, k, A, B, {}, o);
    CHECK(all.storage == "fp64");
    CHECK(all.D == exact);
  }
}

// Dyadic binary32 data in [1/2, 1): p = 2 binary16 words (a100, binary32 accumulation) recover
// the products to binary32 accuracy, p = 1 only to binary16 accuracy.
TEST_CASE("gemm: two binary16 words are far more accurate than one", "[gemm]") {
  Rng r(tcsim::test::seed("gemm multiword accuracy", 7005));
  const Unit& unit = builtin_unit("a100");
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  const std::size_t m = 8, n = 8, k = 64;
  const auto A = random_matrix(r, m * k, 0.5, 1), B = random_matrix(r, k * n, 0.5, 1);
  const std::vector<double> exact = exact_product(m, n, k, A, B);
  GemmOptions o;
  const double one = max_relative_error(simulate_gemm(unit, f16, f32, m, n, k, A, B, {}, o).D, exact);
  o.words = 2;
  const double two = max_relative_error(simulate_gemm(unit, f16, f32, m, n, k, A, B, {}, o).D, exact);
  o.scaled_words = true;
  const double scaled = max_relative_error(simulate_gemm(unit, f16, f32, m, n, k, A, B, {}, o).D, exact);
  o.scaled_words = false;
  o.words = 3;
  const double three = max_relative_error(simulate_gemm(unit, f16, f32, m, n, k, A, B, {}, o).D, exact);
  INFO("p = 1: " << one << ", p = 2: " << two << ", p = 2 scaled: " << scaled << ", p = 3: " << three);
  // p = 1: the binary16 rounding of the inputs (u16 = 4.9e-4, averaged over k); p = 2: u16^2 =
  // 2.4e-7 plus the a100's binary32 accumulation (truncated block sums); p = 3 gains nothing
  // more: the binary32 accumulation dominates. Measured: 6.3e-5, 6.4e-7, 6.1e-7, 6.4e-7.
  CHECK(one > 3e-5);
  CHECK(two < 1.5e-6);
  CHECK(scaled < 1.5e-6);
  CHECK(one / two > 30);
  CHECK(three < 1.5e-6);
}

// mary2024: data far outside the range of fp8 inputs. Without scaling everything underflows
// (1e-8 in e4m3) or overflows (1e6 in e5m2); with the power-of-two scaling of eq. (3.1) the
// error is that of the input rounding, and scaled words (eq. (4.7)) reduce it further.
TEST_CASE("gemm: scaling and scaled words rescue fp8 data far outside the range", "[gemm]") {
  Rng r(tcsim::test::seed("gemm narrow range", 7006));
  const Unit& unit = builtin_unit("h100");
  const Format& f32 = formats::fp32();
  const std::size_t m = 4, n = 5, k = 64;
  struct Case {
    const Format* in;
    double scale;
    double u;  // unit roundoff of the input format
  };
  for (const Case c : {Case{&formats::e4m3(), 1e-8, 0x1p-4}, Case{&formats::e5m2(), 1e6, 0x1p-3}}) {
    INFO(c.in->name << ", data of magnitude " << c.scale);
    std::vector<double> A(m * k), B(k * n);
    for (auto& x : A) x = uniform(r, 1, 2) * c.scale;
    for (auto& x : B) x = uniform(r, 1, 2) * c.scale;
    const std::vector<double> exact = exact_product(m, n, k, A, B);
    GemmOptions o;
    o.instruction = "wgmma";
    const GemmResult plain = simulate_gemm(unit, *c.in, f32, m, n, k, A, B, {}, o);
    for (double d : plain.D) {
      if (c.scale < 1)
        CHECK(d == 0);  // every entry underflows in e4m3 (smallest subnormal 2^-9)
      else
        CHECK(std::isinf(d));  // every entry overflows e5m2 (largest 57344) to Inf
    }
    o.scaling = true;
    const GemmResult scaled = simulate_gemm(unit, *c.in, f32, m, n, k, A, B, {}, o);
    CHECK(scaled.storage == "fp64");
    const double e1 = max_relative_error(scaled.D, exact);
    o.words = 2;
    o.scaled_words = true;
    const GemmResult words = simulate_gemm(unit, *c.in, f32, m, n, k, A, B, {}, o);
    const double e2 = max_relative_error(words.D, exact);
    INFO("scaling: " << e1 << ", scaling and 2 scaled words: " << e2);
    CHECK(e1 < 2 * c.u);
    CHECK(e1 > c.u * c.u / 4);
    CHECK(e2 < 4 * c.u * c.u);
    CHECK(e2 < e1 / 4);
    // Scaled words without the scaling: the first words still underflow / overflow.
    o.scaling = false;
    const GemmResult unscaled = simulate_gemm(unit, *c.in, f32, m, n, k, A, B, {}, o);
    CHECK_FALSE(max_relative_error(unscaled.D, exact) < 0.5);
  }
}

// The scaling rule of mary2024 eq. (3.4): the largest magnitude of a row (column) lands in
// (theta/2, theta], theta = min(f_max, sqrt(F_max / k)) (eq. (3.2)).
TEST_CASE("gemm: the scaling factors follow mary2024 eq. (3.1)-(3.4)", "[gemm]") {
  const Format &e5 = formats::e5m2(), &f16 = formats::fp16(), &f32 = formats::fp32();
  GemmOptions o;
  o.scaling = true;
  // e5m2 -> fp32, k = 1: theta = f_max = 57344. 62000 is scaled by 1/2 to 31000, which rounds
  // to 32768: D = 65536 (beyond e5m2, exact in binary64). Unscaled, 62000 > 61440 overflows
  // to Inf. 57344 = theta keeps the scale 1; the column [1] is scaled by 2^15.
  const Unit& h100 = builtin_unit("h100");
  const std::vector<double> A = {62000, 57344, 0}, B = {1};
  GemmResult g = simulate_gemm(h100, e5, f32, 3, 1, 1, A, B, {}, o);
  CHECK(g.D == std::vector<double>{65536, 57344, 0});
  CHECK(g.storage == "fp64");
  CHECK(g.bits[0] == bits_of_double(65536));
  o.scaling = false;
  g = simulate_gemm(h100, e5, f32, 3, 1, 1, A, B, {}, o);
  CHECK(std::isinf(g.D[0]));
  CHECK(g.D[1] == 57344);
  // fp16 -> fp16 (tc16 on the V100), k = 4: theta = sqrt(65504 / 4) = 127.97 < f_max. Entries
  // 1024 are scaled by 2^-4 to 64, the sums 4 * 64 * 64 = 16384 stay finite, and D = 4 * 1024^2
  // + C exactly; unscaled, the products overflow binary16. C is scaled by 2^-8 as well.
  const Unit& v100 = builtin_unit("v100");
  const std::vector<double> A4(2 * 4, 1024), B4(4 * 2, 1024), C4 = {4096, -8192, 0, 12288};
  o.scaling = true;
  g = simulate_gemm(v100, f16, f16, 2, 2, 4, A4, B4, C4, o);
  CHECK(g.variant == "tc16");
  CHECK(g.D == std::vector<double>{4194304 + 4096, 4194304 - 8192, 4194304, 4194304 + 12288});
  o.scaling = false;
  g = simulate_gemm(v100, f16, f16, 2, 2, 4, A4, B4, C4, o);
  for (double d : g.D) CHECK((std::isinf(d) || d == 65504));
  // Entries 100 (in (theta/2, theta]) keep the factor 1: 4 * 100 * 100 = 40000 < 65504. A theta
  // of f_max alone would scale them by 2^9 and overflow the binary16 sums.
  const std::vector<double> A100(4, 100), B100(4, 100);
  o.scaling = true;
  CHECK(simulate_gemm(v100, f16, f16, 1, 1, 4, A100, B100, {}, o).D == std::vector<double>{40000});
}

TEST_CASE("gemm: subnormals off flushes subnormal inputs to zero", "[gemm]") {
  const Unit& v100 = builtin_unit("v100");
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  const std::vector<double> A = {0x1p-20, 1.0, -0x1p-20, 0x1p-14}, B = {1.0, 1.0};  // 2 x 2 times 2 x 1
  GemmOptions o;
  GemmResult g = simulate_gemm(v100, f16, f32, 2, 1, 2, A, B, {}, o);
  CHECK(g.D == std::vector<double>{1 + 0x1p-20, 0x1p-14 - 0x1p-20});
  o.subnormals = false;
  g = simulate_gemm(v100, f16, f32, 2, 1, 2, A, B, {}, o);
  CHECK(g.D == std::vector<double>{1, 0x1p-14});  // 2^-20 is subnormal in binary16, 2^-14 is not
  o.variant = GemmVariant::Fp32;
  CHECK(simulate_gemm(v100, f16, f32, 2, 1, 2, A, B, {}, o).D == std::vector<double>{1, 0x1p-14});
  // Multiword: the flushed first word leaves the value to the next one (2^-20 * 2^11 is normal).
  o.variant = GemmVariant::Unit;
  o.words = 2;
  o.scaled_words = true;
  g = simulate_gemm(v100, f16, f32, 2, 1, 2, A, B, {}, o);
  CHECK(g.D == std::vector<double>{1 + 0x1p-20, 0x1p-14 - 0x1p-20});
}
