// Instructions by their ISA names (issue 24): every MFMA instruction of CDNA1-3 and the RTX
// Blackwell (sm_120) mma forms resolve to their row and m x n x k; the K of one instruction
// is what dot, dot_batch and gemm chain by (a batched form's K per block, not blocks x K);
// loose AMD spellings; clear errors.
#include <catch2/catch.hpp>
#include <algorithm>
#include <tuple>

#include "models_test_helpers.hpp"
#include "tcsim/models/unit_json.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::models::test;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;

namespace {

struct Expect {
  const char* unit;
  const char* name;
  const char* in;
  int m, n, k, blocks;
  const char* row;  // the serving row's instruction ("" = generic)
};

// AMD Instinct MI100 / MI200 / MI300 ISA reference guides (MFMA opcode tables), as listed in
// ../shared/docs/units.md 3b. fp8_bf8 / bf8_fp8 (A and B in different formats): kMixed below.
const Expect kAmd[] = {
    // CDNA1
    {"mi100", "v_mfma_f32_32x32x1f32", "fp32", 32, 32, 1, 2, ""},
    {"mi100", "v_mfma_f32_16x16x1f32", "fp32", 16, 16, 1, 4, ""},
    {"mi100", "v_mfma_f32_4x4x1f32", "fp32", 4, 4, 1, 16, ""},
    {"mi100", "v_mfma_f32_32x32x2f32", "fp32", 32, 32, 2, 1, ""},
    {"mi100", "v_mfma_f32_16x16x4f32", "fp32", 16, 16, 4, 1, ""},
    {"mi100", "v_mfma_f32_32x32x4f16", "fp16", 32, 32, 4, 2, ""},
    {"mi100", "v_mfma_f32_16x16x4f16", "fp16", 16, 16, 4, 4, ""},
    {"mi100", "v_mfma_f32_4x4x4f16", "fp16", 4, 4, 4, 16, ""},
    {"mi100", "v_mfma_f32_32x32x8f16", "fp16", 32, 32, 8, 1, ""},
    {"mi100", "v_mfma_f32_16x16x16f16", "fp16", 16, 16, 16, 1, ""},
    {"mi100", "v_mfma_f32_32x32x2bf16", "bf16", 32, 32, 2, 2, ""},
    {"mi100", "v_mfma_f32_16x16x2bf16", "bf16", 16, 16, 2, 4, ""},
    {"mi100", "v_mfma_f32_4x4x2bf16", "bf16", 4, 4, 2, 16, ""},
    {"mi100", "v_mfma_f32_32x32x4bf16", "bf16", 32, 32, 4, 1, ""},
    {"mi100", "v_mfma_f32_16x16x8bf16", "bf16", 16, 16, 8, 1, ""},
    // CDNA2: CDNA1's (legacy bf16 on its own row), bf16_1k, f64
    {"mi250x", "v_mfma_f32_32x32x1f32", "fp32", 32, 32, 1, 2, ""},
    {"mi250x", "v_mfma_f32_16x16x4f32", "fp32", 16, 16, 4, 1, ""},
    {"mi250x", "v_mfma_f32_4x4x4f16", "fp16", 4, 4, 4, 16, ""},
    {"mi250x", "v_mfma_f32_16x16x16f16", "fp16", 16, 16, 16, 1, ""},
    {"mi250x", "v_mfma_f32_32x32x2bf16", "bf16", 32, 32, 2, 2, "bf16-legacy"},
    {"mi250x", "v_mfma_f32_16x16x8bf16", "bf16", 16, 16, 8, 1, "bf16-legacy"},
    {"mi250x", "v_mfma_f32_32x32x4bf16_1k", "bf16", 32, 32, 4, 2, ""},
    {"mi250x", "v_mfma_f32_16x16x4bf16_1k", "bf16", 16, 16, 4, 4, ""},
    {"mi250x", "v_mfma_f32_4x4x4bf16_1k", "bf16", 4, 4, 4, 16, ""},
    {"mi250x", "v_mfma_f32_32x32x8bf16_1k", "bf16", 32, 32, 8, 1, ""},
    {"mi250x", "v_mfma_f32_16x16x16bf16_1k", "bf16", 16, 16, 16, 1, ""},
    {"mi250x", "v_mfma_f64_16x16x4f64", "fp64", 16, 16, 4, 1, ""},
    {"mi250x", "v_mfma_f64_4x4x4f64", "fp64", 4, 4, 4, 4, ""},
    // CDNA3
    {"mi300x", "v_mfma_f32_32x32x1_2b_f32", "fp32", 32, 32, 1, 2, ""},
    {"mi300x", "v_mfma_f32_16x16x1_4b_f32", "fp32", 16, 16, 1, 4, ""},
    {"mi300x", "v_mfma_f32_4x4x1_16b_f32", "fp32", 4, 4, 1, 16, ""},
    {"mi300x", "v_mfma_f32_32x32x2_f32", "fp32", 32, 32, 2, 1, ""},
    {"mi300x", "v_mfma_f32_16x16x4_f32", "fp32", 16, 16, 4, 1, ""},
    {"mi300x", "v_mfma_f32_16x16x8_xf32", "fp32", 16, 16, 8, 1, "xf32"},
    {"mi300x", "v_mfma_f32_32x32x4_xf32", "fp32", 32, 32, 4, 1, "xf32"},
    {"mi300x", "v_mfma_f32_32x32x4_2b_f16", "fp16", 32, 32, 4, 2, ""},
    {"mi300x", "v_mfma_f32_16x16x4_4b_f16", "fp16", 16, 16, 4, 4, ""},
    {"mi300x", "v_mfma_f32_4x4x4_16b_f16", "fp16", 4, 4, 4, 16, ""},
    {"mi300x", "v_mfma_f32_32x32x8_f16", "fp16", 32, 32, 8, 1, ""},
    {"mi300x", "v_mfma_f32_16x16x16_f16", "fp16", 16, 16, 16, 1, ""},
    {"mi300x", "v_mfma_f32_32x32x4_2b_bf16", "bf16", 32, 32, 4, 2, ""},
    {"mi300x", "v_mfma_f32_16x16x4_4b_bf16", "bf16", 16, 16, 4, 4, ""},
    {"mi300x", "v_mfma_f32_4x4x4_16b_bf16", "bf16", 4, 4, 4, 16, ""},
    {"mi300x", "v_mfma_f32_32x32x8_bf16", "bf16", 32, 32, 8, 1, ""},
    {"mi300x", "v_mfma_f32_16x16x16_bf16", "bf16", 16, 16, 16, 1, ""},
    {"mi300x", "v_mfma_f32_16x16x32_fp8_fp8", "e4m3fnuz", 16, 16, 32, 1, ""},
    {"mi300x", "v_mfma_f32_32x32x16_fp8_fp8", "e4m3fnuz", 32, 32, 16, 1, ""},
    {"mi300x", "v_mfma_f32_16x16x32_bf8_bf8", "e5m2fnuz", 16, 16, 32, 1, ""},
    {"mi300x", "v_mfma_f32_32x32x16_bf8_bf8", "e5m2fnuz", 32, 32, 16, 1, ""},
    {"mi300x", "v_mfma_f64_16x16x4_f64", "fp64", 16, 16, 4, 1, ""},
    {"mi300x", "v_mfma_f64_4x4x4_4b_f64", "fp64", 4, 4, 4, 4, ""},
    // The v1 final addition of CDNA3 under the same names.
    {"mi300x", "v_mfma_f32_32x32x8_f16.v1", "fp16", 32, 32, 8, 1, "v1"},
    {"mi300x", "v_mfma_f32_4x4x4_16b_bf16.v1", "bf16", 4, 4, 4, 16, "v1"},
    {"mi300x", "v_mfma_f32_16x16x32_bf8_bf8.v1", "e5m2fnuz", 16, 16, 32, 1, "v1"},
    {"mi300x", "v_mfma_f32_16x16x8_xf32.v1", "fp32", 16, 16, 8, 1, "xf32.v1"},
};

const Format& out_of(const std::string& in) { return in == "fp64" ? formats::fp64() : formats::fp32(); }

}  // namespace

TEST_CASE("isa names: every MFMA instruction of CDNA1-3 selects its row, m x n x k and blocks", "[isa]") {
  for (const Expect& e : kAmd) {
    INFO(e.unit << " " << e.name);
    const Unit& u = builtin_unit(e.unit);
    const Format& in = parse_format(e.in);
    const InstructionSelection s = u.select_instruction(in, out_of(e.in), e.name);
    REQUIRE(s.shape);
    CHECK(s.shape->instruction == e.name);
    CHECK(std::tie(s.shape->m, s.shape->n, s.shape->k, s.shape->blocks) == std::tie(e.m, e.n, e.k, e.blocks));
    CHECK(u.spec().datapaths[s.row].instruction == e.row);
  }
  // Every named instruction of the AMD units is in the list above or its v1 twin (none missing).
  std::size_t total = 0;
  for (const char* unit : {"mi100", "mi250x", "mi300x"}) total += builtin_unit(unit).named_instructions().size();
  CHECK(total == 15 + 22 + (23 + 4) + (16 + 4));  // mi300x: + fp8_bf8 / bf8_fp8 and their v1 twins
}

namespace {

// CDNA3's mixed fp8 MFMAs (AMD MI300 ISA: fp8_bf8 = A fp8 (E4M3FNUZ), B bf8 (E5M2FNUZ)).
struct MixedExpect {
  const char* name;
  const char* a;
  const char* b;
  int m, n, k;
  const char* row;
};
const MixedExpect kMixed[] = {
    {"v_mfma_f32_16x16x32_fp8_bf8", "e4m3fnuz", "e5m2fnuz", 16, 16, 32, ""},
    {"v_mfma_f32_32x32x16_fp8_bf8", "e4m3fnuz", "e5m2fnuz", 32, 32, 16, ""},
    {"v_mfma_f32_16x16x32_bf8_fp8", "e5m2fnuz", "e4m3fnuz", 16, 16, 32, ""},
    {"v_mfma_f32_32x32x16_bf8_fp8", "e5m2fnuz", "e4m3fnuz", 32, 32, 16, ""},
    {"v_mfma_f32_16x16x32_fp8_bf8.v1", "e4m3fnuz", "e5m2fnuz", 16, 16, 32, "v1"},
    {"v_mfma_f32_32x32x16_fp8_bf8.v1", "e4m3fnuz", "e5m2fnuz", 32, 32, 16, "v1"},
    {"v_mfma_f32_16x16x32_bf8_fp8.v1", "e5m2fnuz", "e4m3fnuz", 16, 16, 32, "v1"},
    {"v_mfma_f32_32x32x16_bf8_fp8.v1", "e5m2fnuz", "e4m3fnuz", 32, 32, 16, "v1"},
};

}  // namespace

TEST_CASE("isa names: CDNA3's mixed fp8 MFMAs select the row, m x n x k and each operand's format", "[isa][mixed]") {
  const Unit& u = builtin_unit("mi300x");
  const Format& f32 = formats::fp32();
  for (const MixedExpect& e : kMixed) {
    INFO(e.name);
    const Format &fa = parse_format(e.a), &fb = parse_format(e.b);
    const InstructionSelection s = u.select_instruction(fa, fb, f32, e.name);
    REQUIRE(s.shape);
    CHECK(s.shape->instruction == e.name);
    CHECK(std::tie(s.shape->m, s.shape->n, s.shape->k, s.shape->blocks) == std::make_tuple(e.m, e.n, e.k, 1));
    CHECK(u.spec().datapaths[s.row].instruction == e.row);
    CHECK(u.spec().datapaths[s.row].mixed_inputs);
    // The pattern 0x38 is 0.5 in e4m3fnuz and 0.25 in e5m2fnuz: 0.125 either way round.
    const std::vector<std::uint64_t> p38 = {0x38};
    CHECK(hex(f32, u.dot(fa, fb, f32, p38, p38, 0, e.name)) == "0x3e000000");
  }
  // Loose spellings as for the other names.
  for (const char* name : {"mfma_f32_16x16x32_fp8_bf8", "V_MFMA_F32_16X16X32_FP8_BF8", "v_mfma_f32_16x16x32fp8bf8"}) {
    INFO(name);
    const auto s = u.select_instruction(formats::e4m3fnuz(), formats::e5m2fnuz(), f32, name);
    REQUIRE(s.shape);
    CHECK(s.shape->instruction == "v_mfma_f32_16x16x32_fp8_bf8");
  }
  // The units.md 3b vector with a in bf8 and b in fp8 (test_mixed_formats.cpp): v2 0x4adffffe
  // by name as by the row; dot_batch, planar and gemm agree (the reference path).
  const Format &bf8 = formats::e5m2fnuz(), &fp8 = formats::e4m3fnuz();
  std::vector<std::uint64_t> x, y;
  bf8_fp8_vector_3b(x, y);
  const std::uint64_t c = bits(f32, 8388608.0);
  for (const char* name : {"", "v_mfma_f32_16x16x32_bf8_fp8", "v_mfma_f32_32x32x16_bf8_fp8"}) {
    INFO(name);
    CHECK(hex(f32, u.dot(bf8, fp8, f32, x, y, c, name)) == "0x4adffffe");
    std::uint64_t d = 0;
    u.dot_batch(bf8, fp8, f32, 1, 16, x.data(), y.data(), &c, &d, name);
    CHECK(hex(f32, d) == "0x4adffffe");
    std::vector<std::uint64_t> C = {c}, D(1);
    u.gemm_into(bf8, fp8, f32, 1, 1, 16, x, y, C, D, name, 1);
    CHECK(hex(f32, D[0]) == "0x4adffffe");
  }
  // The one-format list does not name them (the mixed pair's list: the refusal test below).
  const auto one = u.instructions(fp8, f32);
  CHECK(std::find(one.begin(), one.end(), "v_mfma_f32_16x16x32_fp8_bf8") == one.end());
}

TEST_CASE("isa names: a mixed fp8 name whose formats contradict a and b is refused", "[isa][mixed]") {
  const Unit& u = builtin_unit("mi300x");
  const Format &fp8 = formats::e4m3fnuz(), &bf8 = formats::e5m2fnuz(), &f32 = formats::fp32();
  CHECK_THROWS_WITH(u.select_instruction(bf8, fp8, f32, "v_mfma_f32_16x16x32_fp8_bf8"),
                    Equals("unit 'mi300x': instruction 'v_mfma_f32_16x16x32_fp8_bf8' takes e4m3fnuz x e5m2fnuz->fp32, "
                           "not e5m2fnuz x e4m3fnuz->fp32"));
  CHECK_THROWS_WITH(u.select_instruction(fp8, f32, "v_mfma_f32_32x32x16_bf8_fp8"),
                    Equals("unit 'mi300x': instruction 'v_mfma_f32_32x32x16_bf8_fp8' takes e5m2fnuz x e4m3fnuz->fp32, "
                           "not e4m3fnuz->fp32"));
  CHECK_THROWS_WITH(u.select_instruction(fp8, bf8, f32, "v_mfma_f32_16x16x32_fp8_fp8"),
                    Equals("unit 'mi300x': instruction 'v_mfma_f32_16x16x32_fp8_fp8' takes e4m3fnuz->fp32, not "
                           "e4m3fnuz x e5m2fnuz->fp32"));
  CHECK_THROWS_WITH(u.select_instruction(fp8, bf8, f32, "v_mfma_f32_16x16x32_fp8_bf8.v1x"),
                    Equals("unit 'mi300x' has no datapath for e4m3fnuz x e5m2fnuz -> fp32 with instruction "
                           "'v_mfma_f32_16x16x32_fp8_bf8.v1x'; instructions for e4m3fnuz x e5m2fnuz -> fp32: "
                           "v_mfma_f32_16x16x32_fp8_bf8, v_mfma_f32_32x32x16_fp8_bf8, v1, v_mfma_f32_16x16x32_fp8_bf8.v1, "
                           "v_mfma_f32_32x32x16_fp8_bf8.v1 (or none for the default)"));
  // A pair shape needs a mixed_inputs row, and formats of the row.
  auto spec = u.spec();
  spec.name = "my-mi300x";
  for (auto& r : spec.datapaths)
    if (r.mixed_inputs) r.mixed_inputs = false;
  CHECK_THROWS_WITH(Unit(spec), Contains("shapes: 'v_mfma_f32_16x16x32_fp8_bf8.m16n16k32:e4m3fnuz*e5m2fnuz' names a "
                                         "pair of input formats (a*b), which needs mixed_inputs"));
  CHECK_THROWS_WITH(parse_shape_pattern("x.m16n16k32:e4m3fnuz*"),
                    Contains("'x.m16n16k32:e4m3fnuz*' is not a shape"));
  CHECK_THROWS_WITH(parse_shape_pattern("x.m16n16k32:e4m3fnuz*e5m2fnuz*fp16"), Contains("is not a shape"));
  const ShapePattern p = parse_shape_pattern("x.m16n16k32:fp8*bf8");
  CHECK(p.input_formats == std::vector<std::string>{"fp8"});
  CHECK(p.input_formats_b == std::vector<std::string>{"bf8"});
}

TEST_CASE("isa names: 'v_' optional, any case, CDNA1/2 and CDNA3 spellings", "[isa]") {
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  for (const char* name : {"v_mfma_f32_32x32x8_f16", "mfma_f32_32x32x8_f16", "V_MFMA_F32_32X32X8_F16",
                           "v_mfma_f32_32x32x8f16", "mfma_f32_32x32x8f16"}) {
    INFO(name);
    const auto s = builtin_unit("mi300x").select_instruction(f16, f32, name);
    REQUIRE(s.shape);
    CHECK(s.shape->instruction == "v_mfma_f32_32x32x8_f16");
    const auto s1 = builtin_unit("mi100").select_instruction(f16, f32, name);
    REQUIRE(s1.shape);
    CHECK(s1.shape->instruction == "v_mfma_f32_32x32x8f16");
  }
  // The CDNA1 name of a batched form is not the CDNA3 one (no guessing of the block count).
  CHECK_THROWS_WITH(builtin_unit("mi300x").select_instruction(f16, f32, "v_mfma_f32_32x32x4f16"),
                    Contains("has no datapath for fp16 -> fp32 with instruction 'v_mfma_f32_32x32x4f16'") &&
                        Contains("v_mfma_f32_32x32x4_2b_f16"));
}

TEST_CASE("isa names: a name for other formats and an unknown name are refused clearly", "[isa]") {
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  CHECK_THROWS_WITH(builtin_unit("mi300x").select_instruction(f16, f32, "v_mfma_f32_32x32x8_bf16"),
                    Equals("unit 'mi300x': instruction 'v_mfma_f32_32x32x8_bf16' takes bf16->fp32, not fp16->fp32"));
  CHECK_THROWS_WITH(builtin_unit("mi300x").select_instruction(formats::e4m3fnuz(), f32, "v_mfma_f32_16x16x32_bf8_bf8"),
                    Equals("unit 'mi300x': instruction 'v_mfma_f32_16x16x32_bf8_bf8' takes e5m2fnuz->fp32, not "
                           "e4m3fnuz->fp32"));
  CHECK_THROWS_WITH(
      builtin_unit("mi100").select_instruction(f16, f32, "v_mfma_f32_32x32x9f16"),
      Equals("unit 'mi100' has no datapath for fp16 -> fp32 with instruction 'v_mfma_f32_32x32x9f16'; instructions "
             "for fp16 -> fp32: v_mfma_f32_32x32x4f16, v_mfma_f32_16x16x4f16, v_mfma_f32_4x4x4f16, "
             "v_mfma_f32_32x32x8f16, v_mfma_f32_16x16x16f16 (or none for the default)"));
  // The NVIDIA messages are unchanged (catalogue rows B42, B202).
  CHECK_THROWS_WITH(builtin_unit("h100").select_instruction(f16, f32, "foo"),
                    Equals("unit 'h100' has no datapath for fp16 -> fp32 with instruction 'foo'; instructions for "
                           "fp16 -> fp32: wmma, mma.sync, wgmma (or none for the default)"));
}

namespace {

// One element with the instruction, and the same products as a chain of instructions of
// `per` products (each one's d the next one's c), with the row's default grouping.
std::uint64_t chained(const Unit& u, const Format& in, const std::vector<std::uint64_t>& a,
                      const std::vector<std::uint64_t>& b, std::uint64_t c, std::size_t per, const char* instruction) {
  for (std::size_t pos = 0; pos < a.size(); pos += per) {
    const std::vector<std::uint64_t> x(a.begin() + pos, a.begin() + pos + per), y(b.begin() + pos, b.begin() + pos + per);
    c = u.dot(in, formats::fp32(), x, y, c, instruction);
  }
  return c;
}

// dot, dot_batch, dot_batch_planar and gemm on one element must agree.
void check_all_paths(const Unit& u, const Format& in, const std::vector<std::uint64_t>& a,
                     const std::vector<std::uint64_t>& b, std::uint64_t c, const char* instruction, std::uint64_t want) {
  const Format& f32 = formats::fp32();
  const std::size_t K = a.size();
  CHECK(hex(f32, u.dot(in, f32, a, b, c, instruction)) == hex(f32, want));
  std::uint64_t d = 0;
  u.dot_batch(in, f32, 1, K, a.data(), b.data(), &c, &d, instruction);
  CHECK(hex(f32, d) == hex(f32, want));
  if (in.width <= 16) {
    std::vector<std::uint16_t> pa(a.begin(), a.end()), pb(b.begin(), b.end());
    u.dot_batch_planar(in, f32, 1, K, pa.data(), pb.data(), &c, &d, instruction);
    CHECK(hex(f32, d) == hex(f32, want));
  }
  // gemm: A 1 x K, B K x 1.
  CHECK(hex(f32, u.gemm(in, f32, 1, 1, K, a, b, {&c, 1}, instruction, 1)[0]) == hex(f32, want));
}

}  // namespace

TEST_CASE("isa names: the K of one instruction (per block of a batched form) is what dot and gemm chain by", "[isa]") {
  const Format& f16 = formats::fp16();
  const Unit& mi300x = builtin_unit("mi300x");
  // CDNA3 f16, blocks of 8 (row k = 8). Four products 2^-26 then 1 * 1 and -1 * 1: in one block of 8
  // the small products are truncated below 2^-24 (e_dot = 0) and d = 0; the K = 4 forms
  // (v_mfma_f32_32x32x4_2b_f16: 2 blocks of 32 x 32 x 4) chain two instructions of 4, so the first
  // one keeps 4 * 2^-26 = 2^-24 exactly and the second adds 1 - 1 = 0 to it.
  const auto a = bits(f16, {0x1p-13, 0x1p-13, 0x1p-13, 0x1p-13, 1, -1, 0, 0});
  const auto b = bits(f16, {0x1p-13, 0x1p-13, 0x1p-13, 0x1p-13, 1, 1, 0, 0});
  const std::uint64_t zero = 0;
  check_all_paths(mi300x, f16, a, b, zero, "", 0x00000000u);
  check_all_paths(mi300x, f16, a, b, zero, "v_mfma_f32_32x32x8_f16", 0x00000000u);
  for (const char* batched : {"v_mfma_f32_32x32x4_2b_f16", "v_mfma_f32_16x16x4_4b_f16", "v_mfma_f32_4x4x4_16b_f16",
                              "mfma_f32_32x32x4_2b_f16.v1"}) {
    INFO(batched);
    check_all_paths(mi300x, f16, a, b, zero, batched, 0x33800000u);  // 2^-24
    CHECK(chained(mi300x, f16, a, b, zero, 4, "") == 0x33800000u);
  }
  // CDNA1 v_mfma_f32_16x16x4f16 (4 blocks of 16 x 16 x 4): K = 4 per block, the row's k, so dot
  // over K = 16 is four chained instructions of 4 (not one of 16 = 4 blocks x 4).
  const Unit& mi100 = builtin_unit("mi100");
  const auto s = mi100.select_instruction(f16, formats::fp32(), "v_mfma_f32_16x16x4f16");
  REQUIRE(s.shape);
  CHECK(s.shape->k == 4);
  CHECK(s.shape->blocks == 4);
  std::vector<std::uint64_t> a16, b16;
  for (int i = 0; i < 16; ++i) {
    a16.push_back(bits(f16, i % 4 == 0 ? 1.0 : 0x1p-14 * (i + 1)));
    b16.push_back(bits(f16, i % 5 == 0 ? -0x1p-10 : 0x1p-3 * (i + 1)));
  }
  const std::uint64_t c1 = bits(formats::fp32(), 0x1p20);
  check_all_paths(mi100, f16, a16, b16, c1, "v_mfma_f32_16x16x4f16", chained(mi100, f16, a16, b16, c1, 4, ""));
}

TEST_CASE("isa names: RTX Blackwell mma.sync forms (sm_120)", "[isa]") {
  const Format& e4m3 = formats::e4m3();
  const Unit& rtx = builtin_unit("rtx5090");
  // m16n8k32: one block of 32, c inside (the row); m16n8k16: blocks of 16 chained. 256 * 256 -
  // 256 * 256 cancels in the first 16, then 16 products 2^-18: one block of 32 truncates them
  // below 2^(16 - 25); two blocks keep their sum 2^-14.
  std::vector<std::uint64_t> a(32, 0), b(32, 0);
  a[0] = bits(e4m3, 256);
  a[1] = bits(e4m3, -256);
  b[0] = b[1] = bits(e4m3, 256);
  for (int i = 16; i < 32; ++i) a[i] = b[i] = bits(e4m3, 0x1p-9);
  const std::uint64_t zero = 0;
  check_all_paths(rtx, e4m3, a, b, zero, "", 0x00000000u);
  check_all_paths(rtx, e4m3, a, b, zero, "mma.sync", 0x00000000u);
  check_all_paths(rtx, e4m3, a, b, zero, "mma.sync.m16n8k32", 0x00000000u);
  check_all_paths(rtx, e4m3, a, b, zero, "mma.sync.m16n8k16", 0x38800000u);  // 2^-14
  const auto s = rtx.select_instruction(e4m3, formats::fp32(), "mma.sync.m16n8k16");
  REQUIRE(s.shape);
  CHECK(s.shape->name() == "mma.sync.m16n8k16");
  // The block-scaled forms by name.
  CHECK(rtx.datapath(e4m3, formats::fp32(), "mma.sync.mxf8f6f4.m16n8k32").instruction == "mma.sync.mxf8f6f4");
  CHECK(rtx.datapath(formats::e2m1(), formats::fp32(), "mma.sync.mxf4nvf4.m16n8k64").instruction ==
        "mma.sync.mxf4nvf4");
}

TEST_CASE("isa names: rtx5090 mxf4nvf4 has b200's scale formats, block sizes and bits", "[isa]") {
  const Format &e2m1 = formats::e2m1(), &f32 = formats::fp32();
  const Unit &rtx = builtin_unit("rtx5090"), &b200 = builtin_unit("b200");
  const DatapathSpec& row = rtx.datapath(e2m1, f32, "mma.sync.mxf4nvf4");
  REQUIRE(row.block_scale);
  CHECK(*row.block_scale == *b200.datapath(e2m1, f32, "tcgen05.mxf4nvf4").block_scale);
  CHECK(row.fma_size == 64);
  CHECK(row.fraction_bits == 35);
  // 6 * 6 with ue8m0 scales 2 and 2 per 32: 144 (0x43100000), plus c = 1.
  std::vector<std::uint64_t> a(64, 0), b(64, 0);
  a[0] = b[0] = bits(e2m1, 6);
  const Format& ue8m0 = parse_format("ue8m0");
  const std::vector<std::uint64_t> s = {bits(ue8m0, 2), bits(ue8m0, 1)};
  CHECK(hex(f32, rtx.dot_scaled(e2m1, f32, a, b, ue8m0, s, s, bits(f32, 1), 32, "mma.sync.mxf4nvf4")) ==
        hex(f32, 0x43110000u));
  // ue4m3 per 16, and the same bits as b200's row on a spread of values.
  const Format& ue4m3 = parse_format("ue4m3");
  std::vector<std::uint64_t> s4(4, bits(ue4m3, 1.5));
  for (int i = 0; i < 64; ++i) {
    a[i] = static_cast<std::uint64_t>((i * 7) % 16);
    b[i] = static_cast<std::uint64_t>((i * 5 + 3) % 16);
  }
  const std::uint64_t c = bits(f32, -3.25);
  CHECK(hex(f32, rtx.dot_scaled(e2m1, f32, a, b, ue4m3, s4, s4, c, 16, "mma.sync.mxf4nvf4")) ==
        hex(f32, b200.dot_scaled(e2m1, f32, a, b, ue4m3, s4, s4, c, 16, "tcgen05.mxf4nvf4")));
}

TEST_CASE("isa names: user units name instructions with blocks and input formats", "[isa]") {
  UnitSpec s = builtin_unit("mi100").spec();
  s.name = "my-cdna1";
  const Unit u(s);
  const auto sel = u.select_instruction(formats::fp16(), formats::fp32(), "mfma_f32_4x4x4f16");
  REQUIRE(sel.shape);
  CHECK(sel.shape->blocks == 16);
  CHECK(parse_unit_json(to_json(u.spec())) == u.spec());  // the shape strings carry blocks and formats
  s.datapaths[0].shapes = {"v_mfma_f32_32x32x8f16.m32n32k8:e4m3"};
  CHECK_THROWS_WITH(Unit(s), Equals("unit 'my-cdna1' datapath 0: shapes: 'v_mfma_f32_32x32x8f16.m32n32k8:e4m3' names "
                                    "input format 'e4m3', which is not one of the input_formats (fp16)"));
  s.datapaths[0].shapes = {"v_mfma_f32_32x32x8f16.m32n32k8b0"};
  CHECK_THROWS_WITH(Unit(s), Contains("is not a shape; allowed: [<instruction>.]m<M>n<N>k<K>[b<blocks>][:<input formats>|:<a>*<b>]"));
}

TEST_CASE("isa names: the block-FMA model's b of a K = 4 form is 4", "[isa]") {
  const Unit& u = builtin_unit("mi300x");
  CHECK(block_fma_roundoff(u, formats::fp16(), formats::fp32(), "").b == 8);
  CHECK(block_fma_roundoff(u, formats::fp16(), formats::fp32(), "v_mfma_f32_32x32x8_f16").b == 8);
  CHECK(block_fma_roundoff(u, formats::fp16(), formats::fp32(), "v_mfma_f32_16x16x4_4b_f16").b == 4);
  CHECK(block_fma_roundoff(builtin_unit("rtx5090"), formats::e4m3(), formats::fp32(), "mma.sync.m16n8k16").b == 16);
}
