// ExactBlockKernel (AMD CDNA1's exact blocks in 128-bit integers; issue 25) against the
// reference FixedPointAdder with fraction_bits exact: the mi100 configurations on random cases
// (zeros of both signs, subnormals, cancellation, specials, wide exponent spans that take the
// fallback) and a few directed ones.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <vector>

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
          kern.run(1, len, a.data(), k, b.data(), k, &c, &got);
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
