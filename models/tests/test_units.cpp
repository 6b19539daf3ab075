// Built-in units: lookup, the format pairs and instructions of units.md section 2,
// chaining, shapes (mma = element-wise dot), error messages.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <set>

#include "models_test_helpers.hpp"
#include "tcsim/models/unit_json.hpp"
#include "tcsim/sim/literal.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::models::test;
using Catch::Matchers::Contains;

namespace {

// A random finite pattern of `f` (not NaN, not Inf).
std::uint64_t random_finite(tcsim::test::Rng& rng, const Format& f) {
  for (;;) {
    const std::uint64_t x = rng.next() & f.width_mask();
    const FpClass c = classify(f, x);
    if (c != FpClass::NaN && c != FpClass::Infinity) return x;
  }
}

// A random finite value of modest exponent (so that sums stay finite and interesting).
std::uint64_t random_modest(tcsim::test::Rng& rng, const Format& f) {
  const int lo = std::max(f.emin, -8), hi = std::min(f.emax, 6);
  const double m = 1.0 + static_cast<double>(rng.below(1u << 20)) / (1u << 20);
  const double magnitude = std::ldexp(m, rng.range(lo, hi));  // named draws: operand order is unspecified
  const double x = rng.below(2) ? -magnitude : magnitude;
  return round_bits(decode(formats::fp64(), bits_of_double(x)), f, Rounding::NearestEven);
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}

}  // namespace

TEST_CASE("builtin units: lookup by name, alias and architecture, case-insensitively") {
  CHECK(builtin_unit("v100").name() == "v100");
  CHECK(builtin_unit("VOLTA").name() == "v100");
  CHECK(builtin_unit("turing").name() == "t4");
  CHECK(builtin_unit("A30").name() == "a100");
  CHECK(builtin_unit("a2").name() == "a100");
  CHECK(builtin_unit("Ampere").name() == "a100");
  CHECK(builtin_unit("ada").name() == "l40s");
  CHECK(builtin_unit("H200").name() == "h100");
  CHECK(builtin_unit("hopper").name() == "h100");
  CHECK(builtin_unit("blackwell").name() == "b200");
  CHECK(&builtin_unit("b200") == &builtin_unit("B200"));
}

TEST_CASE("builtin units: an unknown name lists every accepted name") {
  const std::string m = message_of([] { builtin_unit("p100"); });
  CHECK_THAT(m, Contains("unknown unit 'p100'"));
  for (const char* n : {"v100", "volta", "t4", "a100", "a2", "a30", "l40s", "ada", "h100", "h200", "b200", "blackwell"})
    CHECK_THAT(m, Contains(n));
}

TEST_CASE("builtin units: format pairs per units.md section 2") {
  using V = std::vector<std::string>;
  CHECK(builtin_unit("v100").format_pairs() == V{"fp16->fp32", "fp16->fp16"});
  CHECK(builtin_unit("t4").format_pairs() == V{"fp16->fp32", "fp16->fp16"});
  CHECK(builtin_unit("a100").format_pairs() == V{"fp16->fp32", "fp16->fp16", "bf16->fp32", "tf32->fp32", "fp64->fp64"});
  CHECK(builtin_unit("l40s").format_pairs() ==
        V{"fp16->fp32", "fp16->fp16", "bf16->fp32", "tf32->fp32", "e4m3->fp32", "e4m3->fp16", "e5m2->fp32", "e5m2->fp16"});
  CHECK(builtin_unit("h100").format_pairs() == V{"fp16->fp32", "fp16->fp16", "bf16->fp32", "tf32->fp32", "e4m3->fp32",
                                                 "e5m2->fp32", "e4m3->fp16", "e5m2->fp16", "fp64->fp64"});
  CHECK(builtin_unit("b200").format_pairs() ==
        V{"fp16->fp32", "fp16->fp16", "bf16->fp32", "tf32->fp32", "e4m3->fp32", "e4m3->fp16", "e5m2->fp32",
          "e5m2->fp16", "e2m3->fp32", "e3m2->fp32", "e2m1->fp32", "fp64->fp64"});
}

TEST_CASE("builtin units: parameters per units.md section 2") {
  const Format &f16 = formats::fp16(), &f32 = formats::fp32(), &e4 = formats::e4m3(), &tf = formats::tf32();
  struct Want {
    const char* unit;
    const Format* in;
    const Format* out;
    const char* instr;
    int k, F;
    Rounding r;
    std::optional<int> min;
  };
  const Want wants[] = {
      {"v100", &f16, &f32, "", 4, 23, Rounding::TowardZero, std::nullopt},
      {"v100", &f16, &f16, "", 4, 23, Rounding::NearestEven, -19},
      {"t4", &f16, &f32, "", 8, 24, Rounding::TowardZero, -132},
      {"a100", &f16, &f32, "", 8, 24, Rounding::TowardZero, -132},
      {"a100", &f16, &f16, "", 8, 24, Rounding::NearestEven, -20},
      {"a100", &tf, &f32, "", 4, 24, Rounding::TowardZero, -132},
      {"l40s", &e4, &f32, "", 16, 13, Rounding::TowardZero, -132},
      {"l40s", &e4, &f16, "", 16, 13, Rounding::NearestEven, -20},
      {"h100", &f16, &f32, "", 16, 25, Rounding::TowardZero, -133},
      {"h100", &f16, &f16, "wgmma", 16, 25, Rounding::NearestEven, -21},
      {"h100", &tf, &f32, "", 8, 25, Rounding::TowardZero, -133},
      {"h100", &e4, &f32, "", 32, 13, Rounding::TowardZero, -133},
      {"h100", &e4, &f32, "wgmma", 32, 13, Rounding::TowardZero, -133},
      {"h100", &e4, &f16, "", 16, 25, Rounding::NearestEven, -21},
      {"h100", &e4, &f32, "mma.sync", 16, 25, Rounding::TowardZero, -133},
      {"b200", &f16, &f32, "tcgen05", 16, 25, Rounding::TowardZero, -133},
      {"b200", &e4, &f32, "", 16, 25, Rounding::TowardZero, -133},
      {"b200", &e4, &f32, "mma.sync", 16, 25, Rounding::TowardZero, -133},
      {"b200", &e4, &f16, "", 16, 25, Rounding::NearestEven, -21},
      {"b200", &e4, &f32, "tcgen05", 32, 25, Rounding::TowardZero, -133},
      {"b200", &formats::e2m1(), &f32, "", 32, 25, Rounding::TowardZero, -133},
  };
  for (const Want& w : wants) {
    INFO(w.unit << " " << w.in->name << "->" << w.out->name << " '" << w.instr << "'");
    const Unit& u = builtin_unit(w.unit);
    const DatapathSpec& row = u.datapath(*w.in, *w.out, w.instr);
    CHECK(row.fma_size == w.k);
    CHECK(row.fraction_bits == w.F);
    const AdderConfig cfg = u.adder(*w.in, *w.out, w.instr).config();
    CHECK(cfg.final_rounding == w.r);
    CHECK(cfg.min_exponent == w.min);
    CHECK(cfg.alignment_rounding == Rounding::TowardZero);
    CHECK(row.carry_bits == safe_carry_bits(w.k));
    CHECK_FALSE(row.evidence.empty());
  }
  CHECK(safe_carry_bits(4) == 4);
  CHECK(safe_carry_bits(8) == 5);
  CHECK(safe_carry_bits(16) == 6);
  CHECK(safe_carry_bits(32) == 7);
  CHECK(safe_carry_bits(64) == 8);
  // fp8 mma.sync on Hopper and Blackwell, both outputs: the fp16-tensor-core emulation, one
  // row per unit; c is added by an RNE addition for both outputs.
  for (const char* unit : {"h100", "b200"})
    for (const Format* out : {&f16, &f32}) {
      INFO(unit << " e4m3 -> " << out->name << " mma.sync");
      const DatapathSpec& emu = builtin_unit(unit).datapath(e4, *out, "mma.sync");
      CHECK(emu.k_split == KSplit::PairsMod4);
      CHECK(emu.c_entry == CEntry::FinalAdd);
      CHECK(emu.final_add_rounding.at(out->name) == Rounding::NearestEven);
      CHECK(&emu == &builtin_unit(unit).datapath(formats::e5m2(), *out, "mma.sync"));
    }
  CHECK_THAT(builtin_unit("h100").datapath(e4, f16).evidence, Contains("5000/5000"));
  CHECK_THAT(builtin_unit("h100").datapath(e4, f32, "mma.sync").evidence, Contains("PREDICTED"));
  CHECK_THAT(builtin_unit("b200").datapath(e4, f32).evidence, Contains("10,000/10,000"));
  // The H100 fp8 -> fp32 default stays the native wgmma row (the published file's).
  CHECK(builtin_unit("h100").datapath(e4, f32).instruction == "wgmma");
}

TEST_CASE("builtin units: NaN patterns 0x7fffffff / 0x7fff, Inf rules") {
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  const Unit& u = builtin_unit("a100");
  const std::vector<std::uint64_t> a = {0x7e00, 0x3c00}, b = {0x3c00, 0x3c00};
  CHECK(u.dot(f16, f32, a, b, 0) == 0x7fffffffu);
  CHECK(u.dot(f16, f16, a, b, 0) == 0x7fffu);
  const std::vector<std::uint64_t> inf = {0x7c00}, zero = {0x0000}, one = {0x3c00};
  CHECK(u.dot(f16, f32, inf, zero, 0) == 0x7fffffffu);              // Inf * 0
  CHECK(u.dot(f16, f32, inf, one, 0) == 0x7f800000u);               // Inf
  CHECK(u.dot(f16, f32, inf, one, 0xff800000u) == 0x7fffffffu);     // Inf - Inf
  // fp8 -> fp32 with 13 result bits: NaN stays the 0x7fffffff pattern.
  const std::vector<std::uint64_t> n8 = {0x7f}, o8 = {0x38};
  CHECK(builtin_unit("h100").dot(formats::e4m3(), f32, n8, o8, 0) == 0x7fffffffu);
}

TEST_CASE("builtin units: unsupported pair lists the supported ones, instruction errors list instructions") {
  const std::string m = message_of([] {
    builtin_unit("v100").dot(formats::e4m3(), formats::fp32(), std::vector<std::uint64_t>{0},
                             std::vector<std::uint64_t>{0}, 0);
  });
  CHECK(m == "unit 'v100' does not support e4m3 -> fp32; supported: fp16->fp32, fp16->fp16");
  const std::string m2 = message_of([] { builtin_unit("h100").datapath(formats::e4m3(), formats::fp32(), "tcgen05"); });
  CHECK_THAT(m2, Contains("instruction 'tcgen05'") && Contains("wgmma"));
  const std::string m3 = message_of([] { builtin_unit("a100").datapath(formats::fp16(), formats::fp32(), "wgmma"); });
  CHECK_THAT(m3, Contains("wmma") && Contains("mma.sync"));
  CHECK(builtin_unit("b200").instructions(formats::e4m3(), formats::fp32()) ==
        std::vector<std::string>{"mma.sync", "tcgen05", "tcgen05.mxf8f6f4"});
  const std::string m4 = message_of([] {
    builtin_unit("v100").dot(formats::fp16(), formats::fp32(), std::vector<std::uint64_t>{0, 0},
                             std::vector<std::uint64_t>{0}, 0);
  });
  CHECK_THAT(m4, Contains("same length") && Contains("2 and 1"));
}

TEST_CASE("chaining: K = 16 on v100 is four chained block FMAs") {
  auto seed = tcsim::test::seed("chaining v100", 7);
  tcsim::test::Rng rng(seed);
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  const Unit& u = builtin_unit("v100");
  const FixedPointAdder& adder = u.adder(f16, f32);
  for (std::uint64_t t = 0; t < tcsim::test::count(2000); ++t) {
    std::vector<std::uint64_t> a(16), b(16);
    for (auto& x : a) x = random_modest(rng, f16);
    for (auto& x : b) x = random_modest(rng, f16);
    const std::uint64_t c = random_modest(rng, f32);
    std::uint64_t manual = c;
    for (std::size_t blk = 0; blk < 4; ++blk)
      manual = adder.dot(std::span(a).subspan(blk * 4, 4), std::span(b).subspan(blk * 4, 4), manual);
    REQUIRE(u.dot(f16, f32, a, b, c) == manual);
  }
  // Deterministic: c = 1 plus sixteen 2^-24 products. Every v100 block truncates them
  // (1), one h100 block of 16 (F = 25) keeps them all: 1 + 2^-20.
  const std::vector<std::uint64_t> p(16, bits(f16, std::ldexp(1, -12)));
  CHECK(u.dot(f16, f32, p, p, 0x3f800000u) == 0x3f800000u);
  CHECK(value(f32, builtin_unit("h100").dot(f16, f32, p, p, 0x3f800000u)) == 1 + std::ldexp(1, -20));
}

TEST_CASE("chaining: a partial last block is padded with zeros, K = 0 runs one block") {
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  const Unit& u = builtin_unit("v100");
  const FixedPointAdder& adder = u.adder(f16, f32);
  const auto a = bits(f16, {1, 2, 3, 4, 5, 6}), b = bits(f16, {0.5, 0.25, -1, 2, 0.125, -0.5});
  const std::uint64_t c = bits(f32, 0.75);
  const auto a1 = std::vector<std::uint64_t>(a.begin(), a.begin() + 4), b1 = std::vector<std::uint64_t>(b.begin(), b.begin() + 4);
  const std::vector<std::uint64_t> a2 = {a[4], a[5], 0, 0}, b2 = {b[4], b[5], 0, 0};
  CHECK(u.dot(f16, f32, a, b, c) == adder.dot(a2, b2, adder.dot(a1, b1, c)));
  CHECK(value(f32, u.dot(f16, f32, a, b, c)) == 0.75 + 0.5 + 0.5 - 3 + 8 + 0.625 - 3);
  // K = 0: c through one block of +0 products (-0 + +0 = +0, as IEEE sums).
  CHECK(u.dot(f16, f32, {}, {}, 0x80000000u) == 0u);
  CHECK(u.dot(f16, f32, bits(f16, {-0.0}), bits(f16, {1.0}), 0x80000000u) == 0u);
  CHECK(u.dot(f16, f32, {}, {}, bits(f32, 1.5)) == bits(f32, 1.5));
}

TEST_CASE("dot_batch equals dot, with any number of threads") {
  auto seed = tcsim::test::seed("dot_batch", 99);
  tcsim::test::Rng rng(seed);
  const Format &bf = formats::bf16(), &f32 = formats::fp32();
  const Unit& u = builtin_unit("h100");
  const std::size_t n = tcsim::test::count(3000), K = 40;
  std::vector<std::uint64_t> a(n * K), b(n * K), c(n), d1(n), d2(n), d4(n);
  for (auto& x : a) x = random_finite(rng, bf);
  for (auto& x : b) x = random_modest(rng, bf);
  for (auto& x : c) x = random_modest(rng, f32);
  u.dot_batch(bf, f32, n, K, a.data(), b.data(), c.data(), d1.data());
  u.dot_batch(bf, f32, n, K, a.data(), b.data(), c.data(), d2.data(), "", 2);
  u.dot_batch(bf, f32, n, K, a.data(), b.data(), c.data(), d4.data(), "wgmma", 4);
  for (std::size_t i = 0; i < n; ++i) {
    REQUIRE(d1[i] == u.dot(bf, f32, std::span(a).subspan(i * K, K), std::span(b).subspan(i * K, K), c[i]));
    REQUIRE(d2[i] == d1[i]);
    REQUIRE(d4[i] == d1[i]);
  }
}

TEST_CASE("shapes: every unit x format pair x shape, mma equals the element-wise chained dot") {
  auto seed = tcsim::test::seed("mma shapes", 2026);
  tcsim::test::Rng rng(seed);
  std::size_t shapes_run = 0;
  for (const UnitSpec& spec : builtin_unit_specs()) {
    const Unit& u = builtin_unit(spec.name);
    std::set<std::string> seen;
    for (const DatapathSpec& row : u.spec().datapaths) {
      for (const auto& in_name : row.input_formats)
        for (const auto& out_name : row.output_formats) {
          const Format& in = parse_format(in_name);
          const Format& out = parse_format(out_name);
          for (const auto& text : row.shapes) {
            const ShapePattern p = parse_shape_pattern(text);
            // ":<in>,...": an ISA name serves only the formats it names; ":<a>*<b>" only a
            // mixed pair (test_isa_instructions.cpp).
            if (!p.input_formats_b.empty()) continue;
            if (!p.input_formats.empty() &&
                std::find(p.input_formats.begin(), p.input_formats.end(), in.name) == p.input_formats.end())
              continue;
            const int n = p.n ? p.n : p.n_step;
            const std::string shape = p.instruction + ".m" + std::to_string(p.m) + "n" + std::to_string(n) + "k" +
                                      std::to_string(p.k);
            INFO(spec.name << " " << in.name << "->" << out.name << " " << shape);
            const MmaShape s = u.resolve_shape(in, out, shape);
            CHECK(s.instruction == p.instruction);
            const std::size_t M = static_cast<std::size_t>(p.m), N = static_cast<std::size_t>(n),
                              K = static_cast<std::size_t>(p.k);
            std::vector<std::uint64_t> A(M * K), B(K * N), C(M * N);
            for (auto& x : A) x = random_modest(rng, in);
            for (auto& x : B) x = random_modest(rng, in);
            for (auto& x : C) x = random_modest(rng, out);
            const auto D = u.mma(in, out, shape, A, B, C);
            REQUIRE(D.size() == M * N);
            // Element-wise through the row that serves the shape's instruction.
            const std::string instr = row.instruction.empty() ? p.instruction : row.instruction;
            for (std::size_t i = 0; i < M; i += std::max<std::size_t>(1, M / 5))
              for (std::size_t j = 0; j < N; j += std::max<std::size_t>(1, N / 5)) {
                std::vector<std::uint64_t> col(K);
                for (std::size_t t = 0; t < K; ++t) col[t] = B[t * N + j];
                REQUIRE(D[i * N + j] == u.dot(in, out, std::span(A).subspan(i * K, K), col, C[i * N + j], instr));
              }
            ++shapes_run;
            seen.insert(in.name + out.name + shape);
          }
        }
    }
    CHECK_FALSE(seen.empty());
  }
  CHECK(shapes_run > 100);
}

TEST_CASE("shapes: wildcards, bare m-n-k names, refusals") {
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  const Unit& h = builtin_unit("h100");
  CHECK(h.resolve_shape(f16, f32, "m64n256k16").instruction == "wgmma");
  CHECK(h.resolve_shape(f16, f32, "m16n8k16").instruction == "mma.sync");
  CHECK(h.resolve_shape(f16, f32, "m16n16k16").instruction == "wmma");
  CHECK(h.resolve_shape(f16, f32, "wgmma.m64n8k16").n == 8);
  CHECK_THROWS_WITH(h.resolve_shape(f16, f32, "m64n12k16"), Contains("no shape m64n12k16") && Contains("wgmma.m64nNk16"));
  CHECK_THROWS_WITH(h.resolve_shape(f16, f32, "m64n264k16"), Contains("no shape"));
  CHECK_THROWS_WITH(builtin_unit("a100").resolve_shape(f16, f32, "m64n8k16"),
                    Contains("unit 'a100' has no shape m64n8k16") && Contains("mma.sync.m16n8k16"));
  CHECK_THROWS_WITH(builtin_unit("b200").resolve_shape(f16, f32, "m128n24k16"), Contains("no shape"));
  CHECK(builtin_unit("b200").resolve_shape(f16, f32, "m128n32k16").instruction == "tcgen05");
  CHECK_THROWS_WITH(h.resolve_shape(f16, f32, "m16n8"), Contains("is not a shape"));
  // Wrong matrix sizes.
  std::vector<std::uint64_t> A(16 * 8), B(16 * 8), C(16 * 8);
  CHECK_THROWS_WITH(h.mma(f16, f32, "m16n8k16", A, B, C), Contains("A of mma.sync.m16n8k16 must hold M*K = 256"));
  // m16n8k16 on a100 runs as two k = 8 steps: equal to the chained dot.
  const Unit& a = builtin_unit("a100");
  A.assign(16 * 16, bits(f16, 1.0));
  B.assign(16 * 8, bits(f16, std::ldexp(1, -12)));
  C.assign(16 * 8, bits(f32, 1.0));
  const auto D = a.mma(f16, f32, "m16n8k16", A, B, C);
  // 1 + 8*2^-12 + 8*2^-12, each block exact: 1 + 2^-8.
  CHECK(value(f32, D[0]) == 1 + std::ldexp(1, -8));
}

TEST_CASE("k_split pairs-mod4 and c_entry final-add (Hopper fp8 mma.sync -> fp16)") {
  const Format &e4 = formats::e4m3(), &f16 = formats::fp16();
  const Unit& u = builtin_unit("h100");
  auto e = [&](const char* v) { return parse_literal(v, e4); };
  // Products 1 at k = 0 and 2^-11 at k = 2 (second block) and k = 1 (first block), c = 2^-11.
  // Blocks: first {k mod 4 in {0,1}} = 1 + 2^-11 -> RNE binary16 ties to 1; second adds
  // 2^-11 -> 1 again; then c: 1 + 2^-11 -> 1. With everything in one exact sum it would be
  // 1 + 3 * 2^-11 -> 1 + 2^-9 (0x3c02).
  std::vector<std::uint64_t> a(32, 0), b(32, 0);
  a[0] = e("1"); b[0] = e("1");
  a[1] = e("0x1p-6"); b[1] = e("0x1p-5");
  a[2] = e("0x1p-6"); b[2] = e("0x1p-5");
  const std::uint64_t c = parse_literal("0x1p-11", f16);
  CHECK(bits_to_hex(f16, u.dot(e4, f16, a, b, c)) == "0x3c00");
  // Moving the k = 2 product into k = 1's block partner position (k = 4) keeps it in the
  // first block: 1 + 2 * 2^-11 = 1 + 2^-10 exactly, then + c ties to even 1 + 2^-9.
  std::swap(a[2], a[4]);
  std::swap(b[2], b[4]);
  CHECK(bits_to_hex(f16, u.dot(e4, f16, a, b, c)) == "0x3c02");
  // c enters last, so a c that cancels the products leaves the rounding of the blocks.
  CHECK(bits_to_hex(f16, u.dot(e4, f16, a, b, parse_literal("-1", f16))) == "0x1400");
  // A shorter K is padded to the instruction's 32 first: the k = 2 product still lands in
  // the second block (1 + 2^-11 ties to 1 in the first block), so the answer stays 0x3c00.
  std::swap(a[2], a[4]);
  std::swap(b[2], b[4]);
  CHECK(bits_to_hex(f16, u.dot(e4, f16, std::span(a).first(3), std::span(b).first(3), c)) == "0x3c00");
  // JSON: the optional keys round-trip and are validated.
  const auto j = to_json(u.spec());
  CHECK(j.dump().find("\"pairs-mod4\"") != std::string::npos);
  CHECK(j.dump().find("\"final-add\"") != std::string::npos);
  CHECK(parse_unit_json(j, "h100.json").datapaths == u.spec().datapaths);
  auto bad = to_json(u.spec());
  for (auto& row : bad["datapaths"])
    if (row.contains("k_split")) row["k_split"] = "zigzag";
  CHECK_THROWS_WITH(parse_unit_json(bad, "bad.json"), Catch::Contains("k_split") && Catch::Contains("pairs-mod4"));
}

TEST_CASE("fp8 mma.sync -> fp32 emulation: blocks rounded toward zero, c added with RNE") {
  const Format &e4 = formats::e4m3(), &f32 = formats::fp32();
  auto e = [&](const char* v) { return parse_literal(v, e4); };
  std::vector<std::uint64_t> a(32, 0), b(32, 0);
  // First block (k = 0, 1): 64 + 3 * 2^-18 = 64 (1 + 1.5 * 2^-23): RZ to binary32 gives
  // 64 + 2^-17 (0x42800001), RNE would give 64 + 2^-16 (0x42800002).
  a[0] = e("8"); b[0] = e("8");
  a[1] = e("0x3p-9"); b[1] = e("0x1p-9");
  for (const char* unit : {"h100", "b200"}) {
    INFO(unit);
    const Unit& u = builtin_unit(unit);
    CHECK(bits_to_hex(f32, u.dot(e4, f32, a, b, 0, "mma.sync")) == "0x42800001");
    // c = -2^-40 is added by one RNE addition: 64 + 2^-17 - 2^-40 rounds back to 0x42800001
    // (an RZ addition would give 0x42800000).
    CHECK(bits_to_hex(f32, u.dot(e4, f32, a, b, parse_literal("-0x1p-40", f32), "mma.sync")) == "0x42800001");
  }
  // The same row read from JSON with final_add_rounding rz gives the RZ addition.
  auto j = to_json(builtin_unit("b200").datapath(e4, f32, "mma.sync"), "b200-rz-add");
  j["final_add_rounding"] = "rz";
  const Unit rz(parse_unit_json(j, "rz.json"));
  CHECK(rz.spec().datapaths[0].final_add_rounding.at("fp32") == Rounding::TowardZero);
  CHECK(bits_to_hex(f32, rz.dot(e4, f32, a, b, parse_literal("-0x1p-40", f32))) == "0x42800000");
}

TEST_CASE("c_entry final-add chains whole instructions: each starts from +0 and adds the previous d") {
  const Format &e5 = formats::e5m2(), &f32 = formats::fp32();
  const Unit& u = builtin_unit("b200");
  auto e = [&](const char* v) { return parse_literal(v, e5); };
  // K = 64: instruction 1 computes 1; instruction 2's products sum to 3 * 2^-25 exactly (from
  // +0), then 1 + 3 * 2^-25 is one RNE addition: 1 + 2^-23. Had its blocks accumulated on 1,
  // the truncating F = 25 block would give 1.
  std::vector<std::uint64_t> a(64, 0), b(64, 0);
  a[0] = e("1"); b[0] = e("1");
  a[32] = e("0x3p-16"); b[32] = e("0x1p-9");
  CHECK(bits_to_hex(f32, u.dot(e5, f32, a, b, 0, "mma.sync")) == "0x3f800001");
  // K = 33 is padded to two instructions in the same way.
  CHECK(bits_to_hex(f32, u.dot(e5, f32, std::span(a).first(33), std::span(b).first(33), 0, "mma.sync")) ==
        "0x3f800001");
}

TEST_CASE("final_add_rounding: validated, defaulted to rne, written by to_json") {
  const Format &e4 = formats::e4m3(), &f16 = formats::fp16();
  auto row = builtin_unit("h100").datapath(e4, f16);
  // Missing outputs default to rne.
  row.final_add_rounding.clear();
  const Unit u(UnitSpec{"x", "user", {}, {row}});
  CHECK(u.spec().datapaths[0].final_add_rounding == std::map<std::string, Rounding>{{"fp16", Rounding::NearestEven},
                                                                                    {"fp32", Rounding::NearestEven}});
  CHECK(to_json(u.spec()).dump().find("\"final_add_rounding\"") != std::string::npos);
  // Only with c_entry final-add.
  auto acc = row;
  acc.c_entry = CEntry::Accumulator;
  acc.final_add_rounding["fp16"] = Rounding::NearestEven;
  CHECK_THROWS_WITH(Unit(UnitSpec{"x", "user", {}, {acc}}),
                    Contains("final_add_rounding") && Contains("only meaningful with c_entry 'final-add'"));
  // No stochastic rounding; keys must be output formats.
  auto sr = row;
  sr.final_add_rounding["fp16"] = Rounding::Stochastic;
  CHECK_THROWS_WITH(Unit(UnitSpec{"x", "user", {}, {sr}}), Contains("final_add_rounding") && Contains("'sr'"));
  auto j = to_json(row, "x");
  j["final_add_rounding"] = {{"bf16", "rne"}};
  CHECK_THROWS_WITH(parse_unit_json(j, "k.json"), Contains("k.json") && Contains("final_add_rounding") &&
                                                      Contains("not one of the output_formats"));
  j["final_add_rounding"] = "nearest";
  CHECK_THROWS_WITH(parse_unit_json(j, "k.json"), Contains("final_add_rounding") && Contains("rne, rz, ru, rd, ro"));
}

TEST_CASE("an output format without NaN is refused, naming the row and the field") {
  DatapathSpec row = builtin_unit("v100").spec().datapaths[0];
  row.input_formats = {"e2m1"};
  row.output_formats = {"e2m1"};
  row.final_rounding = {{"e2m1", Rounding::NearestEven}};
  row.min_exponent.clear();
  row.nan_pattern.clear();
  CHECK_THROWS_WITH(Unit(UnitSpec{"toy", "user", {}, {row}}),
                    Contains("unit 'toy' datapath 0") && Contains("output_formats: 'e2m1' has no NaN"));
}
