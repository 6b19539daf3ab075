// The AMD CDNA units (mi100, mi250x, mi300x; units.md section 3b): the directed vectors of
// units.md 3b bit for bit, and every new datapath against an independent exact model
// (amd_exact_model.hpp: Boost rationals, written from units.md, sharing no code with the
// adder) on random cases. Case count per row and format pair: TCSIM_AMD_CASES (default
// 4,000, scaled by TCSIM_TEST_SCALE down to 500: the sanitizer pass; the million-case runs of
// docs/reliability.md set 1000000), seed TCSIM_AMD_SEED (default 24; printed, so that any run
// can be repeated).
#include <catch2/catch.hpp>
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <random>

#include "amd_exact_model.hpp"
#include "models_test_helpers.hpp"
#include "test_support.hpp"
#include "tcsim/models/unit_json.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::models::test;
namespace am = tcsim::amd_model;

namespace {

// units.md 3b: the paper's Eq. 10 example zero-padded to the block (exact result -0.875).
const std::vector<double> kA = {-8192.0, -0.5, -0.25, -0.125};
const std::vector<double> kB = {1024.0, 1.0, 1.0, 1.0};
const double kC = 8388608.0;  // 2^23

std::uint64_t eq10(const char* unit, const Format& in, std::size_t K, const char* instruction = "") {
  std::vector<std::uint64_t> a, b;
  for (std::size_t i = 0; i < K; ++i) {
    a.push_back(bits(in, i < kA.size() ? kA[i] : 0.0));
    b.push_back(bits(in, i < kB.size() ? kB[i] : 0.0));
  }
  return builtin_unit(unit).dot(in, formats::fp32(), a, b, bits(formats::fp32(), kC), instruction);
}

}  // namespace

TEST_CASE("amd units: the Eq. 10 vectors of units.md 3b", "[amd]") {
  const Format& f16 = formats::fp16();
  const Format& bf16 = formats::bf16();
  // CDNA1: exact blocks of 4 (f16) / 2 (bf16): -0.875.
  CHECK(eq10("mi100", f16, 4) == 0xBF600000u);
  CHECK(eq10("mi100", bf16, 4) == 0xBF600000u);
  // CDNA2 legacy bf16 (pairs): -0.375; bf16_1k and f16 (groups of 4): 0.
  CHECK(eq10("mi250x", bf16, 4, "bf16-legacy") == 0xBEC00000u);
  CHECK(eq10("mi250x", bf16, 4) == 0x00000000u);
  CHECK(eq10("mi250", f16, 4) == 0x00000000u);
  // CDNA3 f16 / bf16 (K = 8): -0.5, both variants.
  CHECK(eq10("mi300x", f16, 8) == 0xBF000000u);
  CHECK(eq10("mi300x", bf16, 8) == 0xBF000000u);
  CHECK(eq10("mi300x", f16, 8, "v1") == 0xBF000000u);
  // CDNA3 bf8 (K = 16): -1.0.
  CHECK(eq10("mi300x", formats::e5m2fnuz(), 16) == 0xBF800000u);
  CHECK(eq10("mi300x", formats::e5m2fnuz(), 16, "v1") == 0xBF800000u);
}

TEST_CASE("amd units: CDNA3 v1 and v2 differ by one ulp on the units.md vector", "[amd]") {
  const Format& f16 = formats::fp16();
  const std::vector<std::uint64_t> a = {0x2f67, 0x14fd, 0xacef, 0xa96a, 0x944c, 0x97f3, 0x1805, 0xaacb};
  const std::vector<std::uint64_t> b = {0x21d5, 0x2530, 0x1b5d, 0x1c83, 0x1955, 0x23aa, 0x17b0, 0x16c2};
  const Unit& u = builtin_unit("mi300x");
  CHECK(hex(formats::fp32(), u.dot(f16, formats::fp32(), a, b, 0xBF800000u)) == "0xbf7fcdff");
  CHECK(hex(formats::fp32(), u.dot(f16, formats::fp32(), a, b, 0xBF800000u, "v1")) == "0xbf7fce00");
}

TEST_CASE("amd units: CDNA3 zero products do not raise the alignment exponent", "[amd]") {
  const Format& bf = formats::bf16();
  const Unit& u = builtin_unit("mi325x");
  const auto a = bits(bf, {0.0, std::ldexp(1.0, -60)});
  const auto b = bits(bf, {std::ldexp(1.0, 100), std::ldexp(1.0, -60)});
  CHECK(u.dot(bf, formats::fp32(), a, b, 0) == 0x03800000u);  // 2^-120 (X25 v1 would give 0)
  CHECK(u.dot(bf, formats::fp32(), a, b, 0, "v1") == 0x03800000u);
}

TEST_CASE("amd units: CDNA2 flushing and CDNA3 corner rules", "[amd]") {
  const Format& f32 = formats::fp32();
  const Format& bf = formats::bf16();
  const Unit& mi250 = builtin_unit("mi210");
  // A subnormal c is flushed to +0; a product below 2^-126 to a zero of its sign.
  CHECK(mi250.dot(bf, f32, bits(bf, {0.0, 0.0}), bits(bf, {0.0, 0.0}), 0x80000001u, "bf16-legacy") == 0u);
  CHECK(mi250.dot(bf, f32, bits(bf, {-std::ldexp(1.0, -70), 0.0}), bits(bf, {std::ldexp(1.0, -70), -0.0}), 0x80000000u,
                  "bf16-legacy") == 0x80000000u);
  // (p0 + p1) = 2^-126 * 1.5 - 2^-127 would be 2^-126 exactly, but p1 = -2^-127 is flushed first.
  CHECK(mi250.dot(bf, f32, bits(bf, {1.5 * std::ldexp(1.0, -63), -std::ldexp(1.0, -64)}),
                  bits(bf, {std::ldexp(1.0, -63), std::ldexp(1.0, -63)}), 0, "bf16-legacy") == 0x00c00000u);
  // CDNA3 bf16: a product >= 2^128 is Inf (RNE overflow would give Inf anyway; with an opposite
  // finite term the exact sum would be finite).
  const Unit& mi300 = builtin_unit("mi300x");
  CHECK(mi300.dot(bf, f32, bits(bf, {std::ldexp(1.0, 64), -1.0}), bits(bf, {std::ldexp(1.0, 64), std::ldexp(1.0, 127)}),
                  0) == 0x7f800000u);
  // xf32 reads fp32 operands as tf32: 1 + 2^-15 (lost) vs 1 + 2^-10 (kept).
  using V = std::vector<std::uint64_t>;
  CHECK(mi300.dot(f32, f32, V{0x3f800100u}, V{0x3f800000u}, 0, "xf32") == 0x3f800000u);
  CHECK(mi300.dot(f32, f32, V{0x3f802000u}, V{0x3f800000u}, 0, "xf32") == 0x3f802000u);
  // the fp32 MFMA is an FMA chain: 1 + 2^-15 kept.
  CHECK(mi300.dot(f32, f32, V{0x3f800100u}, V{0x3f800000u}, 0) == 0x3f800100u);
}

// Issue 25: the AMD rows run on host-arithmetic kernels (sim after_add.hpp, ieee_tree.hpp,
// exact_block.hpp); a user row that one of them cannot prove exact falls back to the reference.
TEST_CASE("amd units: the rows name their kernels, a row they refuse falls back visibly", "[amd]") {
  const Format& f32 = formats::fp32();
  CHECK(builtin_unit("mi300x").batch_path(formats::fp16(), f32) == "after-add (lanes)");
  CHECK(builtin_unit("mi250x").batch_path(formats::fp16(), f32) == "binary32-tree");
  CHECK(builtin_unit("mi100").batch_path(formats::fp16(), f32) == "exact-block (lanes)");
  CHECK(builtin_unit("mi250x").batch_path(f32, f32) == "fma-chain");  // std::fmaf
  UnitSpec spec = builtin_unit("mi250x").spec();
  spec.name = "narrow-cdna2";
  spec.datapaths[0].fraction_bits = 30;  // additions no longer provably correctly rounded
  CHECK_THAT(Unit(spec).batch_path(formats::fp16(), f32), Catch::Matchers::StartsWith("reference: per-step"));
  // dot_batch and gemm give the bits of dot().
  const Unit& u = builtin_unit("mi300x");
  std::mt19937_64 rng(7);
  const std::size_t n = 50, K = 24;
  std::vector<std::uint64_t> a(n * K), b(n * K), c(n), d(n);
  for (auto& x : a) x = rng() & 0xffff;
  for (auto& x : b) x = rng() & 0xffff;
  for (auto& x : c) x = rng() & 0xffffffffu;
  u.dot_batch(formats::bf16(), f32, n, K, a.data(), b.data(), c.data(), d.data(), "", 2);
  for (std::size_t i = 0; i < n; ++i)
    CHECK(d[i] == u.dot(formats::bf16(), f32, {a.data() + i * K, K}, {b.data() + i * K, K}, c[i]));
}

TEST_CASE("amd units: the new row keys round-trip through JSON", "[amd]") {
  for (const char* name : {"mi100", "mi250x", "mi300x"}) {
    const UnitSpec& s = builtin_unit(name).spec();
    const UnitSpec back = parse_unit_json(to_json(s), name);
    CHECK(back == s);
  }
  CHECK_THROWS_WITH(parse_unit_json(nlohmann::json::parse(R"({"name": "x", "input_formats": ["fp16"],
      "output_formats": ["fp32"], "fma_size": 4, "fraction_bits": "huge", "carry_bits": 3,
      "alignment_rounding": "rz", "sticky_bit": false, "normalization": "deferred", "order": "largest-first",
      "c_placement": "aligned", "final_rounding": "rne", "subnormal_inputs": true, "subnormal_outputs": true})"),
                                    "u.json"),
                    "u.json: key 'fraction_bits': 'huge' is not allowed; allowed: an integer 0..100000 or \"exact\"");
}

// ---------------------------------------------------------------- differential

namespace {

// Under the sanitizers (TCSIM_TEST_SCALE 0.02) the exact model's rationals at -O0 take ~1 ms a
// case: 500 cases (100 of each operand class) keep every class and both K of each row.
std::size_t case_count() {
  const char* s = std::getenv("TCSIM_AMD_CASES");
  return s ? static_cast<std::size_t>(std::strtoull(s, nullptr, 10))
           : static_cast<std::size_t>(std::max<std::uint64_t>(tcsim::test::count(4000), 500));
}
std::uint64_t seed() {
  const char* s = std::getenv("TCSIM_AMD_SEED");
  return s ? std::strtoull(s, nullptr, 10) : 24;
}

// Random operands of `f` (width w, fraction bits m) in one of five classes: random bit
// patterns; a narrow exponent window; tiny (c = +-1 with small products, see below);
// zero-heavy; subnormal-heavy.
struct Gen {
  std::mt19937_64 rng;
  int cls = 0;
  int centre = 0;
  std::uint64_t pick(const am::Enc& f) {
    const int w = 1 + f.ebits + f.mbits;
    const std::uint64_t mask = w == 64 ? ~0ull : ((1ull << w) - 1);
    const std::uint64_t raw = rng() & mask;
    const std::uint64_t sign = raw & (1ull << (w - 1));
    const std::uint64_t frac = raw & ((1ull << f.mbits) - 1);
    const int emax_field = (1 << f.ebits) - 1 - (f.fnuz ? 0 : 1);
    auto with_field = [&](long e) {
      e = std::clamp<long>(e, 0, emax_field);
      return sign | (static_cast<std::uint64_t>(e) << f.mbits) | frac;
    };
    switch (cls) {
      case 0: return raw;
      case 1: return with_field(centre + static_cast<long>(rng() % 4));
      case 2: return with_field(static_cast<long>(rng() % 4) + 1);  // small magnitudes
      case 3: return rng() % 2 ? 0 : with_field(centre + static_cast<long>(rng() % 3));
      default: return rng() % 2 ? (sign | frac) : with_field(static_cast<long>(rng() % 3));
    }
  }
};

enum class Path { Cdna1, Cdna2, Cdna3, Fma };

struct RowCase {
  const char* unit;
  const char* instruction;
  const Format* in;
  am::Enc enc;
  std::size_t k;
  Path path;
  am::Cdna3 c3;
  bool xf32 = false;
};

std::uint32_t model(const RowCase& r, std::vector<std::uint64_t> a, std::vector<std::uint64_t> b, std::uint32_t c) {
  using namespace am;
  switch (r.path) {
    case Path::Cdna1: return chain(r.enc, a, b, c, r.k, false, [](auto& x, auto& y, std::uint32_t z) { return cdna1_block(x, y, z); });
    case Path::Cdna2: return chain(r.enc, a, b, c, r.k, true, [](auto& x, auto& y, std::uint32_t z) { return cdna2_block(x, y, z); });
    case Path::Cdna3:
      if (r.xf32)
        for (auto* v : {&a, &b})
          for (auto& x : *v) x &= ~std::uint64_t{0x1fff};
      return chain(r.enc, a, b, c, r.k, false,
                   [&](auto& x, auto& y, std::uint32_t z) { return cdna3_block(x, y, z, r.c3); });
    case Path::Fma: {
      float acc = std::bit_cast<float>(c);
      for (std::size_t i = 0; i < a.size(); ++i)
        acc = std::fma(std::bit_cast<float>(static_cast<std::uint32_t>(a[i])), std::bit_cast<float>(static_cast<std::uint32_t>(b[i])), acc);
      return std::bit_cast<std::uint32_t>(acc);
    }
  }
  return 0;
}

bool is_nan32(std::uint32_t x) { return (x & 0x7f800000u) == 0x7f800000u && (x & 0x7fffffu); }

void run_row(const RowCase& r) {
  const std::size_t n = case_count();
  const std::uint64_t s = seed();
  std::cout << "amd differential " << r.unit << " " << (r.instruction[0] ? r.instruction : "(default)") << " "
            << r.in->name << "->fp32: " << n << " cases, TCSIM_AMD_SEED=" << s << "\n";
  const Unit& u = builtin_unit(r.unit);
  Gen g{std::mt19937_64(s ^ std::hash<std::string>{}(std::string(r.unit) + r.instruction + r.in->name))};
  std::size_t mismatches = 0;
  for (std::size_t t = 0; t < n; ++t) {
    g.cls = static_cast<int>(t % 5);
    const int fields = (1 << r.enc.ebits) - 2;
    g.centre = static_cast<int>(g.rng() % static_cast<std::uint64_t>(fields > 4 ? fields - 3 : 1)) + 1;
    const std::size_t K = r.k * (1 + g.rng() % 2);
    std::vector<std::uint64_t> a(K), b(K);
    for (auto& x : a) x = g.pick(r.enc);
    for (auto& x : b) x = g.pick(r.enc);
    std::uint32_t c;
    if (g.cls == 2) c = g.rng() % 2 ? 0x3f800000u : 0xbf800000u;  // c = +-1 with small products
    else if (g.cls == 3) c = g.rng() % 2 ? static_cast<std::uint32_t>(g.rng() % 2) << 31 : static_cast<std::uint32_t>(g.rng() & 0x807fffffu);
    else if (g.cls == 1) {  // near the products' exponents
      const int field = std::clamp(127 + 2 * (g.centre - r.enc.bias) + static_cast<int>(g.rng() % 9) - 4, 1, 254);
      c = static_cast<std::uint32_t>((g.rng() & 0x807fffffu) | (static_cast<std::uint64_t>(field) << 23));
    }
    else c = static_cast<std::uint32_t>(g.rng());
    const std::uint32_t want = model(r, a, b, c);
    const auto got = static_cast<std::uint32_t>(u.dot(*r.in, formats::fp32(), a, b, c, r.instruction));
    const bool same = is_nan32(want) || is_nan32(got) ? (is_nan32(want) && is_nan32(got)) : want == got;
    if (!same && ++mismatches <= 3) {
      std::string text;
      for (std::size_t i = 0; i < K; ++i) text += hex(*r.in, a[i]) + "*" + hex(*r.in, b[i]) + " ";
      UNSCOPED_INFO("case " << t << ": a*b = " << text << " c = " << hex(formats::fp32(), c) << ": model "
                            << hex(formats::fp32(), want) << ", unit " << hex(formats::fp32(), got));
    }
  }
  std::cout << "  mismatches: " << mismatches << "\n";
  CHECK(mismatches == 0);
}

}  // namespace

TEST_CASE("amd differential: mi100 against the exact model", "[amd][differential]") {
  run_row({"mi100", "", &formats::fp16(), am::kF16, 4, Path::Cdna1, {}});
  run_row({"mi100", "", &formats::bf16(), am::kBF16, 2, Path::Cdna1, {}});
  run_row({"mi100", "", &formats::fp32(), am::kF32, 4, Path::Fma, {}});
}

TEST_CASE("amd differential: mi250x against the exact model", "[amd][differential]") {
  run_row({"mi250x", "", &formats::fp16(), am::kF16, 4, Path::Cdna2, {}});
  run_row({"mi250x", "", &formats::bf16(), am::kBF16, 4, Path::Cdna2, {}});
  run_row({"mi250x", "bf16-legacy", &formats::bf16(), am::kBF16, 2, Path::Cdna2, {}});
  run_row({"mi250x", "", &formats::fp32(), am::kF32, 4, Path::Fma, {}});
}

TEST_CASE("amd differential: mi300x f16, bf16, xf32 against the exact model", "[amd][differential]") {
  for (bool v2 : {true, false}) {
    const am::Cdna3 m{1, v2, false, true};
    run_row({"mi300x", v2 ? "" : "v1", &formats::fp16(), am::kF16, 8, Path::Cdna3, m});
    run_row({"mi300x", v2 ? "" : "v1", &formats::bf16(), am::kBF16, 8, Path::Cdna3, m});
    run_row({"mi300x", v2 ? "xf32" : "xf32.v1", &formats::fp32(), am::kF32, 4, Path::Cdna3, m, true});
  }
  run_row({"mi300x", "", &formats::fp32(), am::kF32, 4, Path::Fma, {}});
}

TEST_CASE("amd differential: mi300x fp8 (FNUZ) against the exact model", "[amd][differential]") {
  for (bool v2 : {true, false}) {
    const am::Cdna3 m{2, v2, true, false};
    run_row({"mi300x", v2 ? "" : "v1", &formats::e4m3fnuz(), am::kE4M3Fnuz, 16, Path::Cdna3, m});
    run_row({"mi300x", v2 ? "" : "v1", &formats::e5m2fnuz(), am::kE5M2Fnuz, 16, Path::Cdna3, m});
  }
}

TEST_CASE("rtx5090: the Eq. 10 vectors of units.md 3b", "[rtx]") {
  // f16 -> fp32 mma (K = 16) and e5m2 -> fp32 (K = 32): c inside, F = 25: -0.75.
  CHECK(eq10("rtx5090", formats::fp16(), 16) == 0xBF400000u);
  CHECK(eq10("rtx-blackwell", formats::e5m2(), 32) == 0xBF400000u);
  // mxf8f6f4 with unit scales (ue8m0 0x7f = 1): the same.
  const Format& e5 = formats::e5m2();
  std::vector<std::uint64_t> a(32, e5.zero(false)), b(32, e5.zero(false));
  for (std::size_t i = 0; i < kA.size(); ++i) {
    a[i] = bits(e5, kA[i]);
    b[i] = bits(e5, kB[i]);
  }
  const std::vector<std::uint64_t> one = {0x7f};
  CHECK(builtin_unit("rtxpro6000").dot_scaled(e5, formats::fp32(), a, b, formats::ue8m0(), one, one,
                                              bits(formats::fp32(), kC)) == 0xBF400000u);
  // Zero products with a tiny c (fp16 accumulator): E is clamped at -22, so 2^-24 keeps 3 bits only:
  // c = 0x0001 (2^-24) + products 0 -> 0x0001; the clamp matters when terms fall below 2^(-22-25).
  const Format& f16 = formats::fp16();
  CHECK(builtin_unit("rtx5090").dot(formats::e4m3(), f16, std::vector<std::uint64_t>(32, 0),
                                    std::vector<std::uint64_t>(32, 0), 0x0001) == 0x0001u);
  // The NVIDIA corner rules: an all -0 sum is +0; canonical NaN 0x7fffffff.
  CHECK(builtin_unit("rtx5090").dot(formats::fp16(), formats::fp32(), std::vector<std::uint64_t>(16, 0x8000),
                                    std::vector<std::uint64_t>(16, 0x3c00), 0x80000000u) == 0u);
  CHECK(builtin_unit("rtx5090").dot(formats::e5m2(), formats::fp32(), std::vector<std::uint64_t>{0x7f},
                                    std::vector<std::uint64_t>{0x3c}, 0) == 0x7fffffffu);
}

TEST_CASE("amd units: bad values of the new row keys name the key", "[amd]") {
  using Catch::Matchers::Contains;
  auto row = [](const std::string& extra) {
    return nlohmann::json::parse(R"({"name": "x", "input_formats": ["fp16"], "output_formats": ["fp32"],
      "fma_size": 8, "fraction_bits": 24, "carry_bits": 5, "alignment_rounding": "rz", "sticky_bit": false,
      "normalization": "deferred", "order": "largest-first", "final_rounding": "rne", "subnormal_inputs": true,
      "subnormal_outputs": true, )" + extra + "}");
  };
  CHECK_THROWS_WITH(parse_unit_json(row(R"("c_placement": "after", "after_add": {"sum_fraction_bits": 32, "c_bits": 24})"), "u"),
                    Contains("after_add: unknown key 'c_bits'"));
  CHECK_THROWS_WITH(parse_unit_json(row(R"("c_placement": "after", "after_add": {"sum_fraction_bits": 32, "c_fraction_bits": 24, "rounding": "up"})"), "u"),
                    Contains("key 'rounding': 'up' is not allowed; allowed: rz, rd, ru, rne"));
  // after_add only with c_placement after: elsewhere it was dropped silently (fuzz_unit_json, ci34).
  CHECK_THROWS_WITH(parse_unit_json(row(R"("c_placement": "aligned", "after_add": {"sum_fraction_bits": 32, "c_fraction_bits": 24, "rounding": "rd"})"), "u"),
                    Contains("key 'after_add': given with c_placement 'aligned'; allowed only with c_placement 'after'"));
  CHECK_NOTHROW(parse_unit_json(row(R"("c_placement": "aligned", "after_add": null)"), "u"));
  CHECK_THROWS_WITH(parse_unit_json(row(R"("c_placement": "aligned", "flushed_input_sign": "negative")"), "u"),
                    Contains("key 'flushed_input_sign': 'negative' is not allowed; allowed: keep, positive"));
  // Combinations the adder refuses: named by the unit's constructor.
  CHECK_THROWS_WITH(Unit(parse_unit_json(row(R"("c_placement": "aligned", "product_groups": 2)"), "u")),
                    Contains("'product_groups' > 1 needs c_placement after"));
  CHECK_THROWS_WITH(Unit(parse_unit_json(row(R"("c_placement": "aligned", "product_rounding": "rne")"), "u")),
                    Contains("'product_rounding' needs normalization per-step"));
  // A user row with the CDNA3 keys computes what the built-in row does.
  const Unit user(parse_unit_json(row(R"("c_placement": "after", "product_overflow": "inf", "zero_sign": "positive",
      "after_add": {"sum_fraction_bits": 31, "c_fraction_bits": 24, "rounding": "rd"})"), "u"));
  const std::vector<std::uint64_t> a = {0x2f67, 0x14fd, 0xacef, 0xa96a, 0x944c, 0x97f3, 0x1805, 0xaacb};
  const std::vector<std::uint64_t> b = {0x21d5, 0x2530, 0x1b5d, 0x1c83, 0x1955, 0x23aa, 0x17b0, 0x16c2};
  CHECK(user.dot(formats::fp16(), formats::fp32(), a, b, 0xBF800000u) == 0xBF7FCE00u);  // v1
}
