// Mixed operand formats (issue 24 part 2): a and b in different formats on the rows with
// mixed_inputs (mi300x fp8_bf8 / bf8_fp8, rtx5090 fp8 mma, b200 tcgen05 kind::f8f6f4, and the
// block-scaled kind::mxf8f6f4 rows of both, each operand with its own ue8m0 scales).
//  - every mixed pair against an independent exact model (mixed_exact_model.hpp; CDNA3 through
//    amd_exact_model.hpp's cdna3_block): TCSIM_MIXED_CASES cases per row and pair (default
//    10,000; the million-case run of docs/reliability.md sets 1000000), seed TCSIM_MIXED_SEED
//    (default 24, printed); TCSIM_MIXED_ONLY=<text> runs only the pairs whose printed label
//    ("b200 tcgen05 e4m3 x e5m2->fp32") contains it (the million-case runs go one pair at a time);
//  - dot_batch, dot_batch_planar and gemm give dot()'s bits on mixed pairs (the fast kernel
//    where batch_path says "kernel", the reference fallback where it does not);
//  - pairs no row serves are refused naming the pair and listing the mixed pairs.
#include <catch2/catch.hpp>

#include "test_support.hpp"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <random>

#include "mixed_exact_model.hpp"
#include "models_test_helpers.hpp"
#include "tcsim/models/unit_json.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::models::test;
namespace mm = tcsim::mixed_model;
namespace am = tcsim::amd_model;

namespace {

std::size_t case_count() {
  const char* s = std::getenv("TCSIM_MIXED_CASES");
  // Default 10^4, scaled by TCSIM_TEST_SCALE (the sanitizer pass: 200 per pair).
  return s ? static_cast<std::size_t>(std::strtoull(s, nullptr, 10)) : tcsim::test::count(10000);
}
std::uint64_t seed() {
  const char* s = std::getenv("TCSIM_MIXED_SEED");
  return s ? std::strtoull(s, nullptr, 10) : 24;
}

// Random operand patterns in five classes (as test_amd_units.cpp): random bits (subnormals and
// specials included); a narrow exponent window around `centre`; small magnitudes (with
// c = +-1); zero-heavy; subnormal-heavy.
struct Gen {
  std::mt19937_64 rng;
  int cls = 0;
  int centre = 0;
  std::uint64_t pick(const mm::Enc& f) {
    const int w = f.width();
    const std::uint64_t raw = rng() & ((1ull << w) - 1);
    const std::uint64_t sign = raw & (1ull << (w - 1));
    const std::uint64_t frac = raw & ((1ull << f.mbits) - 1);
    const long top = (1L << f.ebits) - 1 - (f.sp == mm::Specials::Ieee ? 1 : 0);
    auto with_field = [&](long e) {
      e = std::clamp<long>(e, 0, top);
      return sign | (static_cast<std::uint64_t>(e) << f.mbits) | frac;
    };
    switch (cls) {
      case 0: return raw;
      case 1: return with_field(centre + static_cast<long>(rng() % 3));
      case 2: return with_field(static_cast<long>(rng() % 3) + 1);
      case 3: return rng() % 2 ? 0 : with_field(centre + static_cast<long>(rng() % 3));
      default: return rng() % 2 ? (sign | frac) : with_field(static_cast<long>(rng() % 2));
    }
  }
};

struct MixedRow {
  const char* unit;
  const char* instruction;
  const Format* fa;
  const Format* fb;
  mm::Enc ea, eb;
  const Format* out;
  std::size_t k;
  bool cdna3 = false;  // else the NVIDIA fused block
  am::Cdna3 c3{};
  mm::Fused fused{};
  bool scaled = false;  // block-scaled: ue8m0 scales per 32 products (dot_scaled)
};

constexpr std::size_t kScaleBlock = 32;

std::uint64_t model(const MixedRow& r, const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b,
                    std::uint64_t c, const std::vector<std::uint64_t>& sa = {}, const std::vector<std::uint64_t>& sb = {}) {
  if (r.scaled)
    return mm::chain_scaled(r.ea, r.eb, a, b, sa, sb, kScaleBlock, c, r.k,
                            [&](auto& x, auto& y, std::uint64_t z) { return mm::fused_block(x, y, z, r.fused); });
  if (r.cdna3)
    return mm::chain(r.ea, r.eb, a, b, c, r.k,
                     [&](auto& x, auto& y, std::uint64_t z) { return am::cdna3_block(x, y, static_cast<std::uint32_t>(z), r.c3); });
  return mm::chain(r.ea, r.eb, a, b, c, r.k, [&](auto& x, auto& y, std::uint64_t z) { return mm::fused_block(x, y, z, r.fused); });
}

bool is_nan_out(const Format& out, std::uint64_t x) { return decode(out, x).is_nan(); }

// A random accumulator of the output format, by class.
std::uint64_t pick_c(Gen& g, const MixedRow& r) {
  const Format& o = *r.out;
  const bool f32 = o == formats::fp32();
  const std::uint64_t one = f32 ? 0x3f800000u : 0x3c00u, sign = f32 ? 0x80000000u : 0x8000u;
  const std::uint64_t mask = o.width_mask();
  switch (g.cls) {
    case 2: return one | (g.rng() % 2 ? sign : 0);
    case 3: return g.rng() % 2 ? (g.rng() % 2 ? sign : 0) : (g.rng() & (sign | (f32 ? 0x7fffffu : 0x3ffu)));
    case 1: {  // near the products' exponents
      const int e = 2 * (g.centre - r.ea.bias) + static_cast<int>(g.rng() % 9) - 4;
      const int bias = f32 ? 127 : 15, mb = f32 ? 23 : 10, top = f32 ? 254 : 30;
      const std::uint64_t field = static_cast<std::uint64_t>(std::clamp(e + bias, 1, top));
      return (g.rng() & (sign | ((1ull << mb) - 1))) | (field << mb);
    }
    default: return g.rng() & mask;
  }
}

void run_mixed(const MixedRow& r) {
  const std::size_t n = case_count();
  const std::uint64_t s = seed();
  const std::string label = std::string(r.unit) + " " + (r.instruction[0] ? r.instruction : "(default)") + " " +
                            r.fa->name + " x " + r.fb->name + "->" + r.out->name;
  if (const char* only = std::getenv("TCSIM_MIXED_ONLY"); only && label.find(only) == std::string::npos) return;
  std::cout << "mixed differential " << label << ": " << n << " cases, TCSIM_MIXED_SEED=" << s << "\n";
  const auto start = std::chrono::steady_clock::now();
  const Unit& u = builtin_unit(r.unit);
  Gen g{std::mt19937_64(s ^ std::hash<std::string>{}(std::string(r.unit) + r.instruction + r.fa->name + r.fb->name +
                                                       r.out->name))};
  std::size_t mismatches = 0;
  for (std::size_t t = 0; t < n; ++t) {
    g.cls = static_cast<int>(t % 5);
    const int fields = (1 << std::min(r.ea.ebits, r.eb.ebits)) - 2;
    g.centre = static_cast<int>(g.rng() % static_cast<std::uint64_t>(fields > 3 ? fields - 2 : 1)) + 1;
    std::size_t K = r.k * (1 + g.rng() % 2);  // named draws: operand order is unspecified
    if (t % 7 == 0) K -= g.rng() % r.k;
    std::vector<std::uint64_t> a(K), b(K);
    for (auto& x : a) x = g.pick(r.ea);
    for (auto& x : b) x = g.pick(r.eb);
    const std::uint64_t c = pick_c(g, r);
    // Scales (block-scaled rows): mostly near 1 (127 +- 3), one in eight anywhere (0xff = NaN
    // included), one in sixteen at an end of the range (2^-127, 2^127).
    std::vector<std::uint64_t> sa, sb;
    if (r.scaled)
      for (std::size_t i = 0; i < (K + kScaleBlock - 1) / kScaleBlock; ++i)
        for (auto* s : {&sa, &sb}) {
          const std::uint64_t roll = g.rng() % 16;
          s->push_back(roll == 0 ? (g.rng() % 2 ? 0 : 254) : roll < 3 ? g.rng() % 256 : 124 + g.rng() % 7);
        }
    const std::uint64_t want = model(r, a, b, c, sa, sb);
    const std::uint64_t got = r.scaled ? u.dot_scaled(*r.fa, *r.fb, *r.out, a, b, parse_format("ue8m0"), sa, sb, c,
                                                      static_cast<int>(kScaleBlock), r.instruction)
                                       : u.dot(*r.fa, *r.fb, *r.out, a, b, c, r.instruction);
    // AMD: NaN-ness (payloads unvalidated); NVIDIA: the canonical NaN bits.
    const bool same = r.cdna3 && (is_nan_out(*r.out, want) || is_nan_out(*r.out, got))
                          ? is_nan_out(*r.out, want) && is_nan_out(*r.out, got)
                          : want == got;
    if (!same && ++mismatches <= 3) {
      std::string text;
      for (std::size_t i = 0; i < K; ++i) text += hex(*r.fa, a[i]) + "*" + hex(*r.fb, b[i]) + " ";
      for (std::size_t i = 0; i < sa.size(); ++i) text += "scales " + std::to_string(sa[i]) + "," + std::to_string(sb[i]) + " ";
      UNSCOPED_INFO("case " << t << ": a*b = " << text << " c = " << hex(*r.out, c) << ": model " << hex(*r.out, want)
                            << ", unit " << hex(*r.out, got));
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "  mismatches: " << mismatches << " (" << secs << " s)\n";
  CHECK(mismatches == 0);
}

struct Named {
  const Format* f;
  mm::Enc e;
};

}  // namespace

TEST_CASE("mixed formats: mi300x fp8_bf8 and bf8_fp8 against the exact model", "[mixed][differential]") {
  const Named fp8{&formats::e4m3fnuz(), mm::kE4m3Fnuz}, bf8{&formats::e5m2fnuz(), mm::kE5m2Fnuz};
  for (bool v2 : {true, false})
    for (const auto& [x, y] : {std::pair{fp8, bf8}, std::pair{bf8, fp8}}) {
      MixedRow r{"mi300x", v2 ? "" : "v1", x.f, y.f, x.e, y.e, &formats::fp32(), 16, true};
      r.c3 = am::Cdna3{2, v2, true, false};
      run_mixed(r);
    }
}

TEST_CASE("mixed formats: rtx5090 e4m3 x e5m2 mma against the exact model", "[mixed][differential]") {
  const Named e4{&formats::e4m3(), mm::kE4m3}, e5{&formats::e5m2(), mm::kE5m2};
  for (const Format* out : {&formats::fp32(), &formats::fp16()})
    for (const auto& [x, y] : {std::pair{e4, e5}, std::pair{e5, e4}}) {
      MixedRow r{"rtx5090", "", x.f, y.f, x.e, y.e, out, 32};
      const bool f32 = *out == formats::fp32();
      r.fused = mm::Fused{f32 ? &mm::kF32 : &mm::kF16, 25, f32 ? -133 : -22, f32, f32 ? 0x7fffffffu : 0x7fffu};
      run_mixed(r);
    }
}

TEST_CASE("mixed formats: b200 tcgen05 kind::f8f6f4 pairs against the exact model", "[mixed][differential]") {
  const std::vector<Named> all = {{&formats::e4m3(), mm::kE4m3}, {&formats::e5m2(), mm::kE5m2},
                                  {&parse_format("e2m3"), mm::kE2m3}, {&parse_format("e3m2"), mm::kE3m2},
                                  {&parse_format("e2m1"), mm::kE2m1}};
  for (const auto& x : all)
    for (const auto& y : all) {
      if (x.f == y.f) continue;
      MixedRow r{"b200", "tcgen05", x.f, y.f, x.e, y.e, &formats::fp32(), 32};
      r.fused = mm::Fused{&mm::kF32, 25, -133, true, 0x7fffffffu};
      run_mixed(r);
    }
}

TEST_CASE("mixed formats: block-scaled kind::mxf8f6f4 pairs with each operand's scales against the exact model",
          "[mixed][differential][scaled]") {
  const std::vector<Named> all = {{&formats::e4m3(), mm::kE4m3}, {&formats::e5m2(), mm::kE5m2},
                                  {&parse_format("e2m3"), mm::kE2m3}, {&parse_format("e3m2"), mm::kE3m2},
                                  {&parse_format("e2m1"), mm::kE2m1}};
  const mm::Fused f32{&mm::kF32, 25, -133, true, 0x7fffffffu};
  for (const auto& x : all)
    for (const auto& y : all) {
      // Same-format pairs too: the rows served them before mixed_inputs (a check of the model).
      MixedRow r{"b200", "tcgen05.mxf8f6f4", x.f, y.f, x.e, y.e, &formats::fp32(), 32};
      r.fused = f32;
      r.scaled = true;
      run_mixed(r);
    }
  for (const auto& x : {all[0], all[1]})
    for (const auto& y : {all[0], all[1]}) {
      MixedRow r{"rtx5090", "mma.sync.mxf8f6f4", x.f, y.f, x.e, y.e, &formats::fp32(), 32};
      r.fused = f32;
      r.scaled = true;
      run_mixed(r);
    }
}

TEST_CASE("mixed formats: block-scaled directed vectors", "[mixed][scaled]") {
  const Format &e4 = formats::e4m3(), &e5 = formats::e5m2(), &f32 = formats::fp32(), &ue8 = parse_format("ue8m0");
  const Format& e2m1 = parse_format("e2m1");
  // Each operand's scale applies to its own operand: a = 448 (e4m3) with scale 2^-3, b = 6
  // (e2m1) with scale 2^2: 448 * 6 * 2^-1 = 1344 (0x44a80000) through both rows and orders.
  const std::vector<std::uint64_t> a = {0x7e}, b = {0x7}, s_a = {124}, s_b = {129};
  CHECK(hex(f32, builtin_unit("b200").dot_scaled(e4, e2m1, f32, a, b, ue8, s_a, s_b, 0, 32, "tcgen05.mxf8f6f4")) ==
        "0x44a80000");
  CHECK(hex(f32, builtin_unit("b200").dot_scaled(e2m1, e4, f32, b, a, ue8, s_b, s_a, 0, 32, "tcgen05.mxf8f6f4")) ==
        "0x44a80000");
  // The pattern 0x38 is 1.0 in e4m3 and 0.5 in e5m2; scales 2^1 and 2^3: 0.5 * 16 = 8 (0x41000000).
  const std::vector<std::uint64_t> p38 = {0x38}, s1 = {128}, s3 = {130};
  CHECK(hex(f32, builtin_unit("rtx5090").dot_scaled(e4, e5, f32, p38, p38, ue8, s1, s3, 0)) == "0x41000000");
  CHECK(hex(f32, builtin_unit("rtx5090").dot_scaled(e5, e4, f32, p38, p38, ue8, s1, s3, 0)) == "0x41000000");
  // The units.md Eq. 10 vector of the unscaled test with scales: a (e5m2) -2^15, -0.5, -0.25,
  // -0.125 with scale 2^-4, b (e4m3) 256, 1, 1, 1 with scale 2^4: the products are unchanged,
  // so the result is the unscaled one, -0.75 (0xbf400000); with b's scale 2^5 every product
  // doubles (-2^24, -1, -0.5, -0.25): at F = 25 below 2^24 the last one truncates to 0, and
  // 2^23 - 2^24 - 1.5 = -8388609.5 rounds toward zero to 0xcb000001.
  std::vector<std::uint64_t> x(32, 0), y(32, 0);
  const double va[] = {-32768.0, -0.5, -0.25, -0.125}, vb[] = {256.0, 1.0, 1.0, 1.0};
  for (int i = 0; i < 4; ++i) {
    x[i] = bits(e5, va[i]);
    y[i] = bits(e4, vb[i]);
  }
  const std::vector<std::uint64_t> m4 = {123}, p4 = {131}, p5 = {132};
  CHECK(hex(f32, builtin_unit("rtx5090").dot_scaled(e5, e4, f32, x, y, ue8, m4, p4, bits(f32, 8388608.0))) ==
        "0xbf400000");
  CHECK(hex(f32, builtin_unit("b200").dot_scaled(e5, e4, f32, x, y, ue8, m4, p5, bits(f32, 8388608.0), 32,
                                                 "tcgen05.mxf8f6f4")) == "0xcb000001");
  // dot() on the block-scaled row with a mixed pair: unit scales.
  CHECK(hex(f32, builtin_unit("rtx5090").dot(e5, e4, f32, x, y, bits(f32, 8388608.0), "mma.sync.mxf8f6f4")) ==
        "0xbf400000");
  // The fp4 row takes one format: a mixed pair is refused naming the pair and the instructions.
  const std::vector<std::uint64_t> z = {0}, one = {127};
  CHECK_THROWS_WITH(builtin_unit("b200").dot_scaled(e2m1, e4, f32, z, z, ue8, one, one, 0, 32, "tcgen05.mxf4nvf4"),
                    Catch::Matchers::Equals(
                        "unit 'b200' has no datapath for e2m1 x e4m3 -> fp32 with instruction 'tcgen05.mxf4nvf4'; "
                        "instructions for e2m1 x e4m3 -> fp32: tcgen05, tcgen05.mxf8f6f4 (or none for the default)"));
}

TEST_CASE("mixed formats: the model agrees with same-format rows (a check of the model)", "[mixed]") {
  // The exact model on pairs the units served before mixed_inputs: it must agree there too.
  MixedRow r{"rtx5090", "", &formats::e5m2(), &formats::e5m2(), mm::kE5m2, mm::kE5m2, &formats::fp32(), 32};
  r.fused = mm::Fused{&mm::kF32, 25, -133, true, 0x7fffffffu};
  run_mixed(r);
  MixedRow q{"b200", "tcgen05", &parse_format("e2m1"), &parse_format("e2m1"), mm::kE2m1, mm::kE2m1, &formats::fp32(), 32};
  q.fused = r.fused;
  run_mixed(q);
}

TEST_CASE("mixed formats: directed vectors", "[mixed]") {
  // units.md 3b's Eq. 10 vector with a in e5m2 and b in e4m3: the same products (-2^23 as
  // -2^15 x 2^8: e4m3 ends at 448), c = 2^23 inside at F = 25 gives -0.75 as the e5m2 form.
  const Format &e4 = formats::e4m3(), &e5 = formats::e5m2(), &f32 = formats::fp32();
  std::vector<std::uint64_t> a(32, 0), b(32, 0);
  const double va[] = {-32768.0, -0.5, -0.25, -0.125}, vb[] = {256.0, 1.0, 1.0, 1.0};
  for (int i = 0; i < 4; ++i) {
    a[i] = bits(e5, va[i]);
    b[i] = bits(e4, vb[i]);
  }
  CHECK(hex(f32, builtin_unit("rtx5090").dot(e5, e4, f32, a, b, bits(f32, 8388608.0))) == "0xbf400000");
  CHECK(hex(f32, builtin_unit("b200").dot(e5, e4, f32, a, b, bits(f32, 8388608.0), "tcgen05")) == "0xbf400000");
  // Each operand is decoded in its own format: the pattern 0x38 is 1.0 in e4m3 and 0.5 in e5m2;
  // 0x38 (e4m3) x 0x38 (e5m2) = 0.5, 0x38 (e5m2) x 0x38 (e4m3) = 0.5, e4m3 x e4m3 = 1.
  const std::vector<std::uint64_t> one = {0x38};
  CHECK(hex(f32, builtin_unit("rtx5090").dot(e4, e5, f32, one, one, 0)) == "0x3f000000");
  CHECK(hex(f32, builtin_unit("rtx5090").dot(e5, e4, f32, one, one, 0)) == "0x3f000000");
  CHECK(hex(f32, builtin_unit("rtx5090").dot(e4, e4, f32, one, one, 0)) == "0x3f800000");
  // fp8 x fp4 (tcgen05): e2m1 0x7 = 6, e4m3 0x7e = 448: 2688.
  const Format& e2m1 = parse_format("e2m1");
  CHECK(hex(f32, builtin_unit("b200").dot(e4, e2m1, f32, std::vector<std::uint64_t>{0x7e},
                                          std::vector<std::uint64_t>{0x7}, 0, "tcgen05")) == "0x45280000");
  // CDNA3 bf8 x fp8: the units.md 3b vector with b in fp8 (2^10 is beyond e4m3fnuz: 2^7 instead):
  // products -2^20, -0.5, -0.25, -0.125 in even/odd groups, c = 2^23 added after; exact
  // 2^23 - 2^20 - 0.875, RNE to fp32 = 7340031 (0x4adffffe).
  const Format &bf8 = formats::e5m2fnuz(), &fp8 = formats::e4m3fnuz();
  std::vector<std::uint64_t> x, y;
  bf8_fp8_vector_3b(x, y);
  const std::uint64_t d = builtin_unit("mi300x").dot(bf8, fp8, f32, x, y, bits(f32, 8388608.0));
  const std::uint64_t want = am::cdna3_block(
      [&] {
        std::vector<am::Val> v;
        for (auto p : x) v.push_back(mm::decode(mm::kE5m2Fnuz, p));
        return v;
      }(),
      [&] {
        std::vector<am::Val> v;
        for (auto p : y) v.push_back(mm::decode(mm::kE4m3Fnuz, p));
        return v;
      }(),
      0x4b000000u, am::Cdna3{2, true, true, false});
  CHECK(hex(f32, d) == hex(f32, want));
  CHECK(hex(f32, d) == "0x4adffffe");
  // The pattern 0x38 is 0.5 in e4m3fnuz and 0.25 in e5m2fnuz.
  const std::vector<std::uint64_t> p38 = {0x38};
  CHECK(hex(f32, builtin_unit("mi300x").dot(bf8, fp8, f32, p38, p38, 0)) == "0x3e000000");
}

TEST_CASE("mixed formats: batches and gemm give dot()'s bits on every mixed pair", "[mixed][kernel]") {
  std::mt19937_64 rng(seed());
  std::cout << "mixed batch/gemm: TCSIM_MIXED_SEED=" << seed() << "\n";
  for (const char* name : {"rtx5090", "b200", "mi300x"}) {
    const Unit& u = builtin_unit(name);
    for (std::size_t ri = 0; ri < u.spec().datapaths.size(); ++ri) {
      const DatapathSpec& row = u.spec().datapaths[ri];
      if (!row.mixed_inputs) continue;
      for (const auto& an : row.input_formats)
        for (const auto& bn : row.input_formats)
          for (const auto& on : row.output_formats) {
            if (an == bn) continue;
            const Format &fa = parse_format(an), &fb = parse_format(bn), &fo = parse_format(on);
            const std::string path = u.batch_path(fa, fb, fo, row.instruction);
            INFO(name << " " << row.instruction << " " << an << " x " << bn << "->" << on << ": " << path);
            const std::size_t n = 300, K = static_cast<std::size_t>(row.fma_size) + 5;
            std::vector<std::uint64_t> a(n * K), b(n * K), c(n), d(n), e(n);
            for (auto& x : a) x = rng() & fa.width_mask();
            for (auto& x : b) x = rng() & fb.width_mask();
            for (std::size_t i = 0; i < n; ++i) {
              // Small operands so that most results are finite and inexact.
              if (i % 2) a[i * K] &= ~(fa.width_mask() >> 2);
              c[i] = i % 3 ? (rng() & fo.width_mask() & ~(fo.width_mask() >> 2)) : 0;
            }
            u.dot_batch(fa, fb, fo, n, K, a.data(), b.data(), c.data(), d.data(), row.instruction, 2);
            std::size_t bad = 0;
            for (std::size_t i = 0; i < n; ++i) {
              const std::uint64_t want = u.dot(fa, fb, fo, {a.data() + i * K, K}, {b.data() + i * K, K}, c[i], row.instruction);
              if (d[i] != want) ++bad;
            }
            CHECK(bad == 0);
            // Planar (product-major 16-bit patterns).
            std::vector<std::uint16_t> at(n * K), bt(n * K);
            for (std::size_t i = 0; i < n; ++i)
              for (std::size_t t = 0; t < K; ++t) {
                at[t * n + i] = static_cast<std::uint16_t>(a[i * K + t]);
                bt[t * n + i] = static_cast<std::uint16_t>(b[i * K + t]);
              }
            u.dot_batch_planar(fa, fb, fo, n, K, at.data(), bt.data(), c.data(), e.data(), row.instruction, 1);
            CHECK(e == d);
            // GEMM: A (m x K) of fa, B (K x nn) of fb.
            const std::size_t m = 7, nn = 9;
            std::vector<std::uint64_t> A(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(m * K)), B(K * nn), C(m * nn, 0),
                D(m * nn);
            for (auto& x : B) x = rng() & fb.width_mask();
            u.gemm_into(fa, fb, fo, m, nn, K, A, B, C, D, row.instruction, 2);
            std::size_t gbad = 0;
            for (std::size_t i = 0; i < m; ++i)
              for (std::size_t j = 0; j < nn; ++j) {
                std::vector<std::uint64_t> col(K);
                for (std::size_t t = 0; t < K; ++t) col[t] = B[t * nn + j];
                if (D[i * nn + j] != u.dot(fa, fb, fo, {A.data() + i * K, K}, col, 0, row.instruction)) ++gbad;
              }
            CHECK(gbad == 0);
          }
    }
  }
  // The paths: the NVIDIA rows keep the fast kernel, the CDNA3 fp8 rows after-add (issue 25).
  CHECK(builtin_unit("rtx5090").batch_path(formats::e4m3(), formats::e5m2(), formats::fp32()) == "kernel");
  CHECK(builtin_unit("b200").batch_path(formats::e5m2(), parse_format("e2m1"), formats::fp32(), "tcgen05") == "kernel");
  CHECK(builtin_unit("mi300x").batch_path(formats::e4m3fnuz(), formats::e5m2fnuz(), formats::fp32()) == "after-add (lanes)");
}

TEST_CASE("mixed formats: pairs no row serves are refused with the allowed pairs", "[mixed]") {
  using Catch::Matchers::Equals;
  const Format &f32 = formats::fp32(), &f16 = formats::fp16();
  const std::vector<std::uint64_t> z = {0};
  CHECK_THROWS_WITH(builtin_unit("mi300x").dot(formats::e4m3fnuz(), f16, f32, z, z, 0),
                    Equals("unit 'mi300x' does not support e4m3fnuz x fp16 -> fp32; mixed pairs (a x b): e4m3fnuz x "
                           "e5m2fnuz -> fp32, e5m2fnuz x e4m3fnuz -> fp32"));
  CHECK_THROWS_WITH(builtin_unit("v100").dot(f16, formats::bf16(), f32, z, z, 0),
                    Equals("unit 'v100' does not support fp16 x bf16 -> fp32; it has no mixed-format datapath (a and b "
                           "share one format)"));
  // A mixed pair with an instruction whose row is not mixed (the fp4 block-scaled row takes one format).
  CHECK_THROWS_WITH(builtin_unit("rtx5090").dot(formats::e4m3(), formats::e5m2(), f32, z, z, 0, "mma.sync.mxf4nvf4"),
                    Equals("unit 'rtx5090' has no datapath for e4m3 x e5m2 -> fp32 with instruction "
                           "'mma.sync.mxf4nvf4'; instructions for e4m3 x e5m2 -> fp32: mma.sync, mma.sync.mxf8f6f4 (or "
                           "none for the default)"));
  // b200: the default row of e4m3 -> fp32 is the mma.sync emulation (one format); a mixed pair's
  // default is the first row serving it, tcgen05.
  CHECK(builtin_unit("b200").datapath(formats::e4m3(), formats::e5m2(), f32).instruction == "tcgen05");
  CHECK(builtin_unit("b200").datapath(formats::e4m3(), formats::e4m3(), f32).instruction == "mma.sync");
}

TEST_CASE("mixed formats: mixed_inputs in JSON units", "[mixed]") {
  auto spec = builtin_unit("rtx5090").spec();
  spec.name = "my-rtx";
  const UnitSpec back = parse_unit_json(to_json(spec));
  CHECK(back == spec);
  CHECK(to_json(spec).dump().find("\"mixed_inputs\":true") != std::string::npos);
  const Unit u(back);
  const std::vector<std::uint64_t> one = {0x38};
  CHECK(u.dot(formats::e4m3(), formats::e5m2(), formats::fp32(), one, one, 0) == 0x3f000000u);
  // A block-scaled row takes it too (kind::mxf8f6f4); the JSON key round-trips there.
  auto scaled = builtin_unit("b200").spec();
  scaled.name = "my-b200";
  const Unit s(parse_unit_json(to_json(scaled)));
  const std::vector<std::uint64_t> x = {0x38}, y = {0x2}, sc = {128};  // e4m3 1.0 x e2m1 1.0, scales 2 and 2
  CHECK(s.dot_scaled(formats::e4m3(), parse_format("e2m1"), formats::fp32(), x, y, parse_format("ue8m0"), sc, sc, 0,
                     32, "tcgen05.mxf8f6f4") == 0x40800000u);
}
