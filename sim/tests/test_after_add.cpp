// AfterAddKernel (AMD CDNA3's c added after the products, in int64; issue 25) against the
// reference FixedPointAdder: the configurations of the mi300x rows (v1 and v2; fp16, bf16,
// xf32's truncated fp32, fp8 groups with c dropped, mixed fp8 x bf8) on random cases aimed at
// the floors, the renormalization, zeros, subnormal results, overflow and specials.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "flush_edges.hpp"
#include "operand_gen.hpp"
#include "tcsim/sim/after_add.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::reftest;
using tcsim::test::Rng;

namespace {

// The CDNA3 rows (models/src/unit_table_amd.cpp, cdna3_after / cdna3_fp8).
AdderConfig cdna3(const Format& a, const Format& b, bool v2) {
  AdderConfig c;
  c.a_format = a;
  c.b_format = b;
  c.c_format = c.out_format = formats::fp32();
  c.fraction_bits = 24;
  c.carry_bits = 4;
  c.c_placement = CPlacement::After;
  c.after.sum_fraction_bits = v2 ? 32 : 31;
  c.after.c_fraction_bits = 24;
  c.after.rounding = Rounding::Down;
  c.after.renormalize_fraction_bits = v2 ? std::optional<int>(31) : std::nullopt;
  c.product_overflow_inf = true;
  c.zero_sign = ZeroSign::Positive;
  c.final_rounding = Rounding::NearestEven;
  c.nan_pattern = 0x7fffffffu;
  if (a.precision <= 4) {  // fp8: even and odd groups, c dropped far below
    c.product_groups = 2;
    c.after.drop_c_below = 25;
    c.product_overflow_inf = false;
  }
  if (a == formats::fp32()) c.input_fraction_bits = 10;  // xf32
  return c;
}

}  // namespace

TEST_CASE("after-add kernel: which configurations it accepts", "[after_add]") {
  CHECK_FALSE(after_add_unsupported(cdna3(formats::fp16(), formats::fp16(), true), 8));
  AdderConfig x = cdna3(formats::fp16(), formats::fp16(), true);
  x.c_placement = CPlacement::Aligned;
  CHECK(*after_add_unsupported(x, 8) == "c is not added after the products");
  x = cdna3(formats::fp16(), formats::fp16(), true);
  x.after.rounding = Rounding::TowardZero;
  CHECK(*after_add_unsupported(x, 8) == "the two-operand add is not floored at <= 40 bits");
  CHECK_THROWS_WITH(AfterAddKernel(x, 8), "after-add kernel: the two-operand add is not floored at <= 40 bits");
}

TEST_CASE("after-add kernel: random cases against the reference", "[after_add]") {
  Rng r(tcsim::test::seed("after-add random", 0xaf7e2add));
  const std::uint64_t total = tcsim::test::count(20'000);
  const Format &h = formats::fp16(), &bf = formats::bf16(), &f32 = formats::fp32();
  const Format &e4 = parse_format("e4m3fnuz"), &e5 = parse_format("e5m2fnuz");
  struct Cfg {
    const Format *a, *b;
    std::size_t k;
  };
  std::uint64_t cases = 0, mismatches = 0;
  for (const Cfg& x : {Cfg{&h, &h, 8}, Cfg{&bf, &bf, 8}, Cfg{&h, &h, 4}, Cfg{&f32, &f32, 4}, Cfg{&e4, &e4, 16},
                       Cfg{&e5, &e5, 16}, Cfg{&e4, &e5, 16}})
    for (bool v2 : {true, false}) {
      const AdderConfig cfg = cdna3(*x.a, *x.b, v2);
      const FixedPointAdder ref(cfg);
      const AfterAddKernel kern(cfg, x.k);
      std::vector<std::uint64_t> a(x.k), b(x.k), bb(x.k), pa(x.k), pb(x.k);
      for (std::uint64_t i = 0; i < total; ++i) {
        std::uint64_t c = 0;
        fill_flush_edges(*x.a, f32, r, a.data(), bb.data(), x.k, c);
        if (*x.a == *x.b) b = bb;
        else
          for (std::size_t t = 0; t < x.k; ++t) b[t] = r.below(8) ? random_finite(*x.b, r) : random_pattern(*x.b, r);
        if (r.below(8) == 0) c = value_with_lead(f32, r, r.range(-149, -120));  // subnormal and tiny c
        const std::size_t len = r.below(4) ? x.k : r.below(x.k + 1);  // a padded block
        for (std::size_t t = 0; t < x.k; ++t) pa[t] = t < len ? a[t] : 0, pb[t] = t < len ? b[t] : 0;
        const std::uint64_t want = ref.dot(pa, pb, c);
        std::uint64_t got = 0;
        kern.run(1, len, a.data(), x.k, b.data(), x.k, &c, &got);
        ++cases;
        if (got != want && mismatches++ < 5)
          std::printf("[after-add] MISMATCH %s x %s %s len %zu: a = %s b = %s c = 0x%08llx: %08llx, want %08llx\n",
                      x.a->name.c_str(), x.b->name.c_str(), v2 ? "v2" : "v1", len,
                      hex_list(*x.a, a.data(), x.k).c_str(), hex_list(*x.b, b.data(), x.k).c_str(),
                      static_cast<unsigned long long>(c), static_cast<unsigned long long>(got),
                      static_cast<unsigned long long>(want));
      }
    }
  std::printf("[after-add] %llu cases, %llu mismatches\n", static_cast<unsigned long long>(cases),
              static_cast<unsigned long long>(mismatches));
  CHECK(mismatches == 0);
}
