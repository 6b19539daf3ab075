// ExactBlockKernel (AMD CDNA1's exact blocks in 128-bit integers and in SIMD lanes; issue 25)
// against the reference FixedPointAdder with fraction_bits exact: the mi100 configurations on
// random cases (zeros of both signs, subnormals, cancellation, specials, wide exponent spans
// that take the fallback) and a few directed ones; the lanes also on every compiled SIMD target
// and in GEMM tiles.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include <hwy/targets.h>

#include "amd_lane_checks.hpp"
#include "flush_edges.hpp"
#include "operand_gen.hpp"
#include "tcsim/sim/exact_block.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::reftest;
using tcsim::test::Rng;

namespace {

// The CDNA1 rows (models/src/unit_table_amd.cpp, cdna1_exact).
AdderConfig cdna1(const Format& in, bool positive_zero = true) {
  AdderConfig c;
  c.a_format = c.b_format = in;
  c.c_format = c.out_format = formats::fp32();
  c.fraction_bits = c.exact_fraction_bits();
  c.carry_bits = 4;
  c.final_rounding = Rounding::NearestEven;
  if (positive_zero) c.zero_sign = ZeroSign::Positive;
  c.nan_pattern = 0x7fffffffu;
  return c;
}

// Products in a window of exponents (or anywhere), exact cancellation of pairs, c near them or
// far above or below (spans beyond 120 bits: the fallback).
void fill_window(const Format& in, const Format& out, Rng& r, std::uint64_t* a, std::uint64_t* b, std::size_t k,
                 std::uint64_t& c) {
  const int center = r.range(lowest_lead(in), in.emax), width = 1 + static_cast<int>(r.below(12));
  for (std::size_t t = 0; t < k; ++t) {
    a[t] = r.below(3) ? value_with_lead(in, r, center - static_cast<int>(r.below(static_cast<std::uint64_t>(width))))
                      : random_finite(in, r);
    b[t] = r.below(3) ? value_with_lead(in, r, center - static_cast<int>(r.below(static_cast<std::uint64_t>(width))))
                      : random_finite(in, r);
  }
  if (r.below(3) == 0)
    for (std::size_t t = 0; t + 1 < k; t += 2) a[t + 1] = negate(in, a[t]), b[t + 1] = b[t];
  c = r.below(2) ? value_with_lead(out, r, std::clamp(2 * center + r.range(-30, 10), lowest_lead(out), out.emax))
                 : random_finite(out, r);
}

}  // namespace

TEST_CASE("exact-block kernel: which configurations it accepts", "[exact_block]") {
  CHECK_FALSE(exact_block_unsupported(cdna1(formats::fp16()), 4));
  AdderConfig x = cdna1(formats::fp16());
  x.fraction_bits = 40;
  CHECK(*exact_block_unsupported(x, 4) == "the sum is not exact");
  CHECK_THROWS_WITH(ExactBlockKernel(x, 4), "exact-block kernel: the sum is not exact");
}

TEST_CASE("exact-block kernel: random cases against the reference", "[exact_block]") {
  Rng r(tcsim::test::seed("exact-block random", 0xe8ac7b10));
  const std::uint64_t total = tcsim::test::count(30'000);
  std::uint64_t cases = 0, mismatches = 0;
  for (const Format* in : {&formats::fp16(), &formats::bf16()})
    for (std::size_t k : {2u, 4u})
      for (bool positive_zero : {true, false}) {
        const AdderConfig cfg = cdna1(*in, positive_zero);
        const FixedPointAdder ref(cfg);
        const ExactBlockKernel kern(cfg, k);
        std::vector<std::uint64_t> a(k), b(k), pa(k), pb(k);
        for (std::uint64_t i = 0; i < total; ++i) {
          std::uint64_t c = 0;
          if (r.below(2)) fill_flush_edges(*in, formats::fp32(), r, a.data(), b.data(), k, c);
          else fill_window(*in, formats::fp32(), r, a.data(), b.data(), k, c);
          const std::size_t len = r.below(4) ? k : r.below(k + 1);  // a padded block
          for (std::size_t t = 0; t < k; ++t) pa[t] = t < len ? a[t] : 0, pb[t] = t < len ? b[t] : 0;
          const std::uint64_t want = ref.dot(pa, pb, c);
          std::uint64_t got = 0;
          kern.run_scalar(1, len, a.data(), k, b.data(), k, &c, &got);
          ++cases;
          if (got != want && mismatches++ < 5)
            std::printf("[exact-block] MISMATCH %s k %zu len %zu: a = %s b = %s c = 0x%08llx: %08llx, want %08llx\n",
                        in->name.c_str(), k, len, hex_list(*in, a.data(), k).c_str(), hex_list(*in, b.data(), k).c_str(),
                        static_cast<unsigned long long>(c), static_cast<unsigned long long>(got),
                        static_cast<unsigned long long>(want));
        }
      }
  std::printf("[exact-block] %llu cases, %llu mismatches\n", static_cast<unsigned long long>(cases),
              static_cast<unsigned long long>(mismatches));
  CHECK(mismatches == 0);
}

namespace {

// Elements for the lanes: the flush edges and exponent windows above, c = +-1 with tiny products
// (long exact sums: the double-double must hold them or flag them), zero-heavy blocks, terms
// spread over 60-300 bits (the chain of errors inexact: the scalar block), c near binary32's
// overflow; NaN/Inf sprinkled.
void fill_exact_lanes(const Format& fa, const Format&, Rng& r, std::uint64_t* a, std::uint64_t* b, std::size_t k,
                      std::uint64_t& c) {
  const Format& f32 = formats::fp32();
  switch (r.below(6)) {
    case 0:
      for (std::size_t t = 0; t < k; ++t)
        a[t] = value_with_lead(fa, r, r.range(lowest_lead(fa), 0)), b[t] = random_subnormal_or_tiny(fa, r);
      {  // named draws, in GCC's order (last argument first)
        const bool negative = r.below(2) != 0;
        power_of_two(f32, r.below(2) ? 0 : r.range(-126, 127), negative, c);
      }
      break;
    case 1:
      for (std::size_t t = 0; t < k; ++t) {
        a[t] = r.below(4) ? zero_pattern(fa, r) : random_finite(fa, r);
        b[t] = r.below(3) ? zero_pattern(fa, r) : random_finite(fa, r);
      }
      c = r.below(3) ? zero_pattern(f32, r) : random_finite(f32, r);
      break;
    case 2:  // terms spread apart: a few far above, a few far below
      for (std::size_t t = 0; t < k; ++t) {
        const int lead = t % 2 ? r.range(fa.emax - 6, fa.emax) : r.range(lowest_lead(fa), lowest_lead(fa) + 8);
        a[t] = value_with_lead(fa, r, lead), b[t] = value_with_lead(fa, r, r.range(lead - 20, lead));
      }
      c = value_with_lead(f32, r, r.range(-149, 127));
      break;
    case 3:
      for (std::size_t t = 0; t < k; ++t) a[t] = random_finite(fa, r), b[t] = random_finite(fa, r);
      c = 0x7f7fffffu - static_cast<std::uint32_t>(r.below(4));  // named draws: operand order is unspecified
      c |= r.below(2) ? 0x80000000u : 0u;
      break;
    case 4: fill_window(fa, f32, r, a, b, k, c); break;
    default: fill_flush_edges(fa, f32, r, a, b, k, c); break;
  }
  if (r.below(16) == 0) a[r.below(k)] = random_special(fa, r);
  if (r.below(32) == 0) c = random_special(f32, r);
}

}  // namespace

// The lanes (run() on batches, gemm_tile) against the reference, with +0 and IEEE zero signs
// (the latter's zero results take the scalar block). TCSIM_TEST_SCALE=100 runs 10^7 batch cases
// per configuration (docs/reliability.md records that run).
TEST_CASE("exact-block kernel: SIMD lanes against the reference (batches, GEMM tiles, edge cases)",
          "[exact_block][lanes]") {
  Rng r(tcsim::test::seed("exact-block lanes", 0xe8ac71a5));
  const std::uint64_t total = tcsim::test::count(100'000), gemm_total = tcsim::test::count(20'000);
  std::uint64_t cases = 0, mismatches = 0;
  for (const Format* in : {&formats::fp16(), &formats::bf16()})
    for (std::size_t k : {2u, 4u})
      for (bool positive_zero : {true, false}) {
        const AdderConfig cfg = cdna1(*in, positive_zero);
        const FixedPointAdder ref(cfg);
        const ExactBlockKernel kern(cfg, k);
        const std::string label = in->name + " k " + std::to_string(k) + (positive_zero ? "" : " ieee-zero");
        const LaneTally t =
            lanes_batches_and_gemm("exact-block lanes", kern, ref, k, fill_exact_lanes, r, total, gemm_total, label);
        cases += t.cases;
        mismatches += t.mismatches;
      }
  std::printf("[exact-block lanes] %llu cases, %llu mismatches\n", static_cast<unsigned long long>(cases),
              static_cast<unsigned long long>(mismatches));
  CHECK(mismatches == 0);
}

// Each compiled SIMD target this CPU runs forced in turn.
TEST_CASE("exact-block kernel: every compiled SIMD target gives the reference's bits", "[exact_block][lanes]") {
  Rng r(tcsim::test::seed("exact-block lanes targets", 0xe8ac7a6e));
  const std::uint64_t total = tcsim::test::count(20'000);
  std::uint64_t mismatches = 0;
  for_each_simd_target("exact-block lanes", [&](const std::string& name) {
    for (const Format* in : {&formats::fp16(), &formats::bf16()}) {
      const AdderConfig cfg = cdna1(*in);
      const FixedPointAdder ref(cfg);
      const ExactBlockKernel kern(cfg, 4);
      mismatches += lanes_batches(kern, ref, 4, fill_exact_lanes, r, total, in->name + " on " + name).mismatches;
    }
  });
  CHECK(mismatches == 0);
}

namespace {

// c and products whose terms span about span_limit bits (issue 25: the register tiles sum in
// binary64 when every term lies within 52 - ceil(log2(k + 1)) bits, else flag): c's leading
// exponent L, products with leads L - d, d chosen so that the lowest product bit is just above
// or below the limit; zeros and specials as the lanes' cases.
void fill_exact_span(const Format& fa, const Format&, Rng& r, std::uint64_t* a, std::uint64_t* b, std::size_t k,
                     std::uint64_t& c) {
  if (r.below(3) == 0) return fill_exact_lanes(fa, fa, r, a, b, k, c);
  const int p = fa.precision;
  const int L = r.range(-60, 60);
  for (std::size_t t = 0; t < k; ++t) {
    const int d = r.below(2) ? 48 - 2 * (p - 1) + r.range(-3, 3) : static_cast<int>(r.below(8));
    const int lead = L - d, la = std::clamp(lead / 2 + r.range(-4, 4), fa.emin, fa.emax);
    a[t] = value_with_lead(fa, r, la);
    b[t] = r.below(8) ? value_with_lead(fa, r, std::clamp(lead - la, fa.emin, fa.emax)) : zero_pattern(fa, r);
  }
  c = r.below(4) ? value_with_lead(formats::fp32(), r, std::clamp(L, -126, 127)) : zero_pattern(formats::fp32(), r);
}

}  // namespace

// The binary64 register tiles of gemm_tile (issue 25) on each compiled SIMD target: the lanes'
// cases and spans at the exactness limit.
TEST_CASE("exact-block kernel: GEMM register tiles on every compiled SIMD target", "[exact_block][lanes][tiles]") {
  Rng r(tcsim::test::seed("exact-block tiles", 0xe8ac711e));
  const std::uint64_t total = tcsim::test::count(20'000);
  std::uint64_t cases = 0, mismatches = 0;
  for_each_simd_target("exact-block tiles", [&](const std::string& name) {
    for (const Format* in : {&formats::fp16(), &formats::bf16()})
      for (std::size_t k : {2u, 4u})
        for (bool positive_zero : {true, false}) {
          const AdderConfig cfg = cdna1(*in, positive_zero);
          const FixedPointAdder ref(cfg);
          const ExactBlockKernel kern(cfg, k);
          const std::string label = in->name + " k " + std::to_string(k) + (positive_zero ? "" : " ieee-zero") +
                                    " tiles on " + name;
          const LaneTally te = lanes_gemm(kern, ref, k, fill_exact_lanes, r, total, label);
          const LaneTally ts = lanes_gemm(kern, ref, k, fill_exact_span, r, total, label + " spans");
          cases += te.cases + ts.cases;
          mismatches += te.mismatches + ts.mismatches;
        }
  });
  std::printf("[exact-block tiles] %llu outputs, %llu mismatches\n", static_cast<unsigned long long>(cases),
              static_cast<unsigned long long>(mismatches));
  CHECK(mismatches == 0);
}
