// AfterAddKernel (AMD CDNA3's c added after the products, in int64 and in SIMD lanes; issue 25)
// against the reference FixedPointAdder: the configurations of the mi300x rows (v1 and v2;
// fp16, bf16, xf32's truncated fp32, fp8 groups with c dropped, mixed fp8 x bf8) on random
// cases aimed at the floors, the renormalization, zeros, subnormal results, overflow and
// specials; the lanes also on every compiled SIMD target and in GEMM tiles.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include <hwy/targets.h>

#include "amd_lane_checks.hpp"
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
        kern.run_scalar(1, len, a.data(), x.k, b.data(), x.k, &c, &got);
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

namespace {

struct LaneCfg {
  const Format *a, *b;
  std::size_t k;
};

std::vector<LaneCfg> lane_cfgs() {
  const Format &h = formats::fp16(), &bf = formats::bf16(), &f32 = formats::fp32();
  const Format &e4 = parse_format("e4m3fnuz"), &e5 = parse_format("e5m2fnuz");
  return {{&h, &h, 8}, {&bf, &bf, 8}, {&h, &h, 4}, {&f32, &f32, 4}, {&e4, &e4, 16}, {&e5, &e5, 16}, {&e4, &e5, 16},
          {&e5, &e4, 16}};
}

// Elements aimed at the lanes' edges: c = +-1 or a power of two with tiny products (floored
// away or not), zero-heavy blocks, products near 2^128 (e_dot >= 127: the scalar fallback), c
// near binary32's overflow, even and odd groups far apart with c around E - 25 (fp8: dropped or
// not), the flush edges of tests/flush_edges.hpp; NaN/Inf sprinkled.
void fill_lane_edges(const Format& fa, const Format& fb, Rng& r, std::uint64_t* a, std::uint64_t* b, std::size_t k,
                     std::uint64_t& c) {
  const Format& f32 = formats::fp32();
  switch (r.below(7)) {
    case 0:  // c = +-1 (or a power of two) with tiny products
      for (std::size_t t = 0; t < k; ++t) {
        a[t] = r.below(2) ? random_subnormal_or_tiny(fa, r) : value_with_lead(fa, r, r.range(lowest_lead(fa), 0));
        b[t] = r.below(2) ? random_subnormal_or_tiny(fb, r) : value_with_lead(fb, r, r.range(lowest_lead(fb), 0));
      }
      {  // named draws, in GCC's order (last argument first)
        const bool negative = r.below(2) != 0;
        power_of_two(f32, r.below(2) ? 0 : r.range(-126, 20), negative, c);
      }
      break;
    case 1:  // zero-heavy
      for (std::size_t t = 0; t < k; ++t) {
        a[t] = r.below(4) ? zero_pattern(fa, r) : random_finite(fa, r);
        b[t] = r.below(3) ? zero_pattern(fb, r) : random_finite(fb, r);
      }
      c = r.below(3) ? zero_pattern(f32, r) : r.below(2) ? random_subnormal_or_tiny(f32, r) : random_finite(f32, r);
      break;
    case 2:  // the largest products: e_dot >= 127 where the formats reach it
      for (std::size_t t = 0; t < k; ++t) {
        a[t] = r.below(4) ? random_huge(fa, r) : random_finite(fa, r);
        b[t] = r.below(4) ? random_huge(fb, r) : random_finite(fb, r);
      }
      c = r.below(2) ? random_huge(f32, r) : random_finite(f32, r);
      break;
    case 3:  // c at binary32's overflow threshold, products that may push it over
      for (std::size_t t = 0; t < k; ++t) a[t] = random_finite(fa, r), b[t] = random_finite(fb, r);
      c = 0x7f7fffffu - static_cast<std::uint32_t>(r.below(4));  // named draws: operand order is unspecified
      c |= r.below(2) ? 0x80000000u : 0u;
      break;
    case 4: {  // even and odd products far apart, c around E - 25
      const int hi = r.range(fa.emin, fa.emax), lo = hi - static_cast<int>(r.below(20));
      for (std::size_t t = 0; t < k; ++t) {
        a[t] = value_with_lead(fa, r, t % 2 ? lo : hi);
        b[t] = value_with_lead(fb, r, r.range(fb.emin, fb.emin + 4));
      }
      c = value_with_lead(f32, r, hi + fb.emin + r.range(-30, 2));
      break;
    }
    default: {
      std::vector<std::uint64_t> bb(k);
      fill_flush_edges(fa, f32, r, a, bb.data(), k, c);
      for (std::size_t t = 0; t < k; ++t) b[t] = fa == fb ? bb[t] : r.below(8) ? random_finite(fb, r) : random_pattern(fb, r);
    }
  }
  if (r.below(16) == 0) a[r.below(k)] = random_special(fa, r);
  if (r.below(32) == 0) c = random_special(f32, r);
}

std::string lane_label(const LaneCfg& x, bool v2, bool ieee_zero) {
  return x.a->name + " x " + x.b->name + " k " + std::to_string(x.k) + (v2 ? " v2" : " v1") + (ieee_zero ? " ieee-zero" : "");
}

}  // namespace

// The lanes (run() on batches, gemm_tile) against the reference: every mi300x configuration, and
// one with IEEE zero signs (its zero results take the scalar block). TCSIM_TEST_SCALE=100 runs
// 10^7 batch cases per configuration (docs/reliability.md records that run).
TEST_CASE("after-add kernel: SIMD lanes against the reference (batches, GEMM tiles, edge cases)", "[after_add][lanes]") {
  Rng r(tcsim::test::seed("after-add lanes", 0xa11e5add));
  const std::uint64_t total = tcsim::test::count(100'000), gemm_total = tcsim::test::count(20'000);
  std::uint64_t cases = 0, mismatches = 0;
  for (const LaneCfg& x : lane_cfgs())
    for (bool v2 : {true, false})
      for (bool ieee_zero : {false, true}) {
        if (ieee_zero && (!v2 || x.k != 8)) continue;
        AdderConfig cfg = cdna3(*x.a, *x.b, v2);
        if (ieee_zero) cfg.zero_sign = ZeroSign::Ieee;
        const FixedPointAdder ref(cfg);
        const AfterAddKernel kern(cfg, x.k);
        REQUIRE(kern.lanes_supported());
        const LaneTally t = lanes_batches_and_gemm("after-add lanes", kern, ref, x.k, fill_lane_edges, r, total,
                                                   gemm_total, lane_label(x, v2, ieee_zero));
        cases += t.cases;
        mismatches += t.mismatches;
      }
  std::printf("[after-add lanes] %llu cases, %llu mismatches\n", static_cast<unsigned long long>(cases),
              static_cast<unsigned long long>(mismatches));
  CHECK(mismatches == 0);
}

// Each compiled SIMD target this CPU runs (AVX-512, AVX2, SSE4, SSSE3, EMU128...) forced in turn.
TEST_CASE("after-add kernel: every compiled SIMD target gives the reference's bits", "[after_add][lanes]") {
  Rng r(tcsim::test::seed("after-add lanes targets", 0xa11e7a6e));
  const std::uint64_t total = tcsim::test::count(10'000);
  std::uint64_t mismatches = 0;
  for_each_simd_target("after-add lanes", [&](const std::string& name) {
    for (const LaneCfg& x : lane_cfgs()) {
      const AdderConfig cfg = cdna3(*x.a, *x.b, true);
      const FixedPointAdder ref(cfg);
      const AfterAddKernel kern(cfg, x.k);
      const std::string label = lane_label(x, true, false) + " on " + name;
      mismatches += lanes_batches(kern, ref, x.k, fill_lane_edges, r, total, label).mismatches;
    }
  });
  CHECK(mismatches == 0);
}

namespace {

// Blocks whose group maxima e_ref(a) + e_ref(b) sit at the register tiles' limits (issue 25):
// around F - 120 (below: a counted product might leave binary32's normal range, flagged) and
// around 126 (above: products may reach 2^128, flagged), with c near the sum or far from it.
void fill_tile_limits(const Format& fa, const Format& fb, Rng& r, std::uint64_t* a, std::uint64_t* b, std::size_t k,
                      std::uint64_t& c) {
  if (r.below(3) == 0) return fill_lane_edges(fa, fb, r, a, b, k, c);
  const int target = r.below(2) ? 24 - 120 + r.range(-4, 4) : 126 + r.range(-3, 1);
  for (std::size_t t = 0; t < k; ++t) {
    if (r.below(5) == 0) {
      a[t] = zero_pattern(fa, r), b[t] = random_finite(fb, r);
      continue;
    }
    const int want = target - static_cast<int>(r.below(t % 3 == 0 ? 2 : 30));
    const int la = std::clamp(want / 2 + r.range(-8, 8), fa.emin, fa.emax);
    a[t] = value_with_lead(fa, r, la);
    b[t] = value_with_lead(fb, r, std::clamp(want - la, fb.emin, fb.emax));
  }
  const Format& f32 = formats::fp32();
  c = r.below(3) ? zero_pattern(f32, r) : value_with_lead(f32, r, std::clamp(target + r.range(-30, 3), -126, 127));
}

}  // namespace

// The binary32 register tiles of gemm_tile (issue 25: AfterAddKernel::tiles_supported) on each
// compiled SIMD target: every mi300x configuration, v1 and v2, the lanes' edge cases and blocks
// at the tiles' own limits.
TEST_CASE("after-add kernel: GEMM register tiles on every compiled SIMD target", "[after_add][lanes][tiles]") {
  Rng r(tcsim::test::seed("after-add tiles", 0xa11e711e));
  const std::uint64_t total = tcsim::test::count(20'000);
  std::uint64_t cases = 0, mismatches = 0;
  for_each_simd_target("after-add tiles", [&](const std::string& name) {
    for (const LaneCfg& x : lane_cfgs())
      for (bool v2 : {true, false}) {
        const AdderConfig cfg = cdna3(*x.a, *x.b, v2);
        const FixedPointAdder ref(cfg);
        const AfterAddKernel kern(cfg, x.k);
        REQUIRE(kern.tiles_supported());
        const std::string label = lane_label(x, v2, false) + " tiles on " + name;
        const LaneTally te = lanes_gemm(kern, ref, x.k, fill_lane_edges, r, total, label);
        const LaneTally tl = lanes_gemm(kern, ref, x.k, fill_tile_limits, r, total, label + " limits");
        cases += te.cases + tl.cases;
        mismatches += te.mismatches + tl.mismatches;
      }
  });
  std::printf("[after-add tiles] %llu outputs, %llu mismatches\n", static_cast<unsigned long long>(cases),
              static_cast<unsigned long long>(mismatches));
  CHECK(mismatches == 0);
}

TEST_CASE("after-add kernel: which configurations the register tiles take", "[after_add][tiles]") {
  CHECK(AfterAddKernel(cdna3(formats::fp16(), formats::fp16(), true), 8).tiles_supported());
  AdderConfig wide = cdna3(formats::fp32(), formats::fp32(), true);
  wide.input_fraction_bits.reset();  // 24-bit operands: products not exact in binary32
  CHECK_FALSE(AfterAddKernel(wide, 4).tiles_supported());
  AdderConfig groups = cdna3(formats::fp16(), formats::fp16(), true);
  groups.product_groups = 4;  // the tiles keep 1 or 2 groups
  CHECK_FALSE(AfterAddKernel(groups, 8).tiles_supported());
  CHECK(AfterAddKernel(cdna3(formats::fp16(), formats::fp16(), true), 16).tiles_supported());
  CHECK_FALSE(AfterAddKernel(cdna3(formats::fp16(), formats::fp16(), true), 32).tiles_supported());  // sums may pass 2^30
}
