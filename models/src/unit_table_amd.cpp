// The built-in AMD CDNA units (matrix cores, MFMA instructions) as data: mi100 (CDNA1),
// mi250x (CDNA2), mi300x (CDNA3). Facts from ../shared/docs/units.md section 3b: [X25] =
// MMA-Sim (v1.0 snapshot and the v2 package, "Bit-Accurate Modeling of GPU Matrix
// Multiply-Accumulate Units"), [KM25] = Khattak & Mikaitis's MATLAB models (MI100MC.m,
// MI210MC.m, MI300MC.m). No public real-GPU dumps exist for these parts: every row rests on
// the two models and the vendor statements quoted in its evidence (docs/units/amd.md).
#include "tcsim/models/unit.hpp"

namespace tcsim::models::detail {

namespace {

const std::string kNoData =
    " No public real-GPU data: X25 ran random-bit kernels on the GPU (its AMD tests ignore NaN "
    "results, so NaN payloads are unvalidated); tcsim checks the model against an independent "
    "exact model of units.md 3b (models/tests/test_amd_units.cpp).";

DatapathSpec base_row(std::string instruction, std::vector<std::string> ins, int k, std::vector<std::string> shapes) {
  DatapathSpec r;
  r.instruction = std::move(instruction);
  r.input_formats = std::move(ins);
  r.output_formats = {"fp32"};
  r.fma_size = k;
  r.carry_bits = safe_carry_bits(k);
  r.alignment_rounding = Rounding::TowardZero;
  r.final_rounding["fp32"] = Rounding::NearestEven;
  r.shapes = std::move(shapes);
  return r;
}

// IEEE FMA chain (v_mfma_f32_*f32, v_mfma_f64_*f64): c, then one fused multiply-add per
// product in k order, each correctly rounded (RNE). F with a sticky bit large enough that
// each step is a correctly rounded FMA (2p product bits + p + guard bits), as the NVIDIA fp64 rows.
DatapathSpec fma_chain(const std::string& fmt, std::vector<std::string> shapes, std::string evidence) {
  DatapathSpec r = base_row("", {fmt}, 1, std::move(shapes));
  r.output_formats = {fmt};
  r.final_rounding = {{fmt, Rounding::NearestEven}};
  r.fraction_bits = fmt == "fp64" ? 160 : 80;
  r.carry_bits = 3;
  r.sticky_bit = true;
  r.normalization = Normalization::PerStep;
  r.order = AccumulationOrder::Sequential;
  r.evidence = "units.md 3b: a chain of IEEE fused multiply-adds from c, k ascending, RNE, subnormals kept "
               "(X25 v1/v2; KM25 'sequential FMAs')." + std::move(evidence) + kNoData;
  return r;
}

// CDNA1: each block of k products and c summed exactly, one RNE to fp32 (X25 v2's E-FDPA, the
// paper, KM25's Kulisch mode).
DatapathSpec cdna1_exact(std::vector<std::string> ins, int k, std::vector<std::string> shapes, std::string evidence) {
  DatapathSpec r = base_row("", std::move(ins), k, std::move(shapes));
  r.fraction_bits = DatapathSpec::kExactFractionBits;
  r.zero_sign = ZeroSign::Positive;  // an exact zero sum: X25 v2 sums exactly (no -0)
  r.evidence = std::move(evidence) + kNoData;
  return r;
}

// CDNA2: products rounded to fp32, (p0 + p1) (+ (p2 + p3)) then + acc, every operation an IEEE
// binary32 RNE add; subnormal inputs (c included) flushed to +0, every product and addition
// below 2^-126 flushed to a zero of its sign (X25 Algorithms 1-2, KM25, MIOpen).
DatapathSpec cdna2_pairwise(std::string instruction, std::vector<std::string> ins, int k,
                            std::vector<std::string> shapes, std::string evidence) {
  DatapathSpec r = base_row(std::move(instruction), std::move(ins), k, std::move(shapes));
  r.fraction_bits = 50;  // >= 24 + 2 with a sticky bit: each addition correctly rounded
  r.carry_bits = 3;
  r.sticky_bit = true;
  r.normalization = Normalization::PerStep;
  r.order = AccumulationOrder::Pairwise;
  r.product_rounding = Rounding::NearestEven;
  r.subnormal_inputs = false;
  r.subnormal_outputs = false;
  r.flush_inputs_positive = true;
  r.evidence = std::move(evidence) +
               " Flushing: MIOpen 'MI200 MFMA behavior specifics': MFMA_F16, MFMA_BF16 and MFMA_BF16_1K flush "
               "subnormal input/output data to zero; inputs (and c) to +0, products and sums keep their sign (X25 "
               "Algorithm 1). Zero products keep IEEE signs (X25 v1 forms leaf products as fma(a, b, +0), which "
               "makes an exact zero product +0: differs only in the sign of an all-zero result)." +
               kNoData;
  return r;
}

// CDNA3: products truncated at F = 24 below e_dot and summed exactly; c added after in a
// two-operand add of floored operands; RNE to fp32. v2 (default): sum at 32 bits, renormalized
// and floored at 31; v1: sum at 31 bits.
DatapathSpec cdna3_after(std::string instruction, std::vector<std::string> ins, int k, bool v2,
                         std::vector<std::string> shapes, std::string evidence) {
  DatapathSpec r = base_row(std::move(instruction), std::move(ins), k, std::move(shapes));
  r.fraction_bits = 24;
  r.c_placement = CPlacement::After;
  r.after_add.sum_fraction_bits = v2 ? 32 : 31;
  r.after_add.c_fraction_bits = 24;
  r.after_add.rounding = Rounding::Down;
  r.after_add.renormalize_fraction_bits = v2 ? std::optional<int>(31) : std::nullopt;
  r.product_overflow_inf = true;   // |a b| >= 2^128 is Inf (X25 Sec. 4.2; reachable with bf16, xf32)
  r.zero_sign = ZeroSign::Positive;  // X25's integer sums give +0 for every exact zero
  r.evidence = std::move(evidence) +
               (v2 ? " Variant v2 (X25 v2 package: the sum floored at 32 bits, added to c, renormalized and "
                     "floored at 31 bits): the later reference, the default. Row instruction 'v1' is X25 v1.0 / the "
                     "paper's Algorithm 10 / KM25 (sum floored at 31 bits, no renormalization); they differ by one "
                     "ulp in rare cases (units.md 3b vector, docs/units/amd.md). Which one an MI300 returns is open."
                   : " Variant v1 (X25 v1.0 snapshot c785138, the paper's Algorithm 10, KM25 MI300MC.m): the "
                     "product sum floored at 31 bits, no renormalization; the default row is v2.") +
               " Zero products do not raise e_dot (X25 v2, KM25; X25 v1 lets a zero product's exponent count). "
               "c = 0 reads exponent -126. Not modelled: X25 v2's fp8 quirk of dropping an Inf/NaN c when "
               "e_dot > 24 (a model artifact as far as known)." +
               kNoData;
  return r;
}

DatapathSpec cdna3_fp8(std::string instruction, bool v2, std::vector<std::string> shapes) {
  DatapathSpec r = cdna3_after(
      std::move(instruction), {"e4m3fnuz", "e5m2fnuz"}, 16, v2, std::move(shapes),
      "units.md 3b CDNA3 fp8/bf8 (E4M3FNUZ, E5M2FNUZ; AMD: 'CDNA3 uses FNUZ variants for both E4M3 and "
      "E5M2'): block of 16; the even- and odd-indexed products are two truncated fused sums (F = 24, each "
      "against its own largest product; product_groups 2), floored to 24 bits against their common maximum "
      "and added; then c as for f16, but dropped when e_c < E - 25 (after_add.drop_c_below 25). X25 v1/v2, "
      "KM25 (odd/even grouping, exp check 25). A and B formats are chosen independently "
      "(v_mfma_f32_*_fp8_bf8, *_bf8_fp8; units.md 3b): mixed_inputs, each operand decoded in its own format.");
  r.product_groups = 2;
  r.mixed_inputs = true;
  r.after_add.drop_c_below = 25;
  r.product_overflow_inf = false;  // fp8 products stay far below 2^128
  return r;
}

// The MFMA instructions by their ISA names, as shape entries "<name>.m<M>n<N>k<K>[b<B>]:<in>"
// (models/include/tcsim/models/unit.hpp). Names, m x n x k and blocks: AMD's "AMD Instinct
// MI100 Instruction Set Architecture" (CDNA1), "AMD Instinct MI200 ISA" (CDNA2) and "AMD
// Instinct MI300 ISA" (CDNA3) reference guides, MFMA opcode tables, as tabulated by AMD's
// Matrix Instruction Calculator (ROCm/amd_matrix_instruction_calculator, commit 2ef9189);
// units.md 3b lists the same. A batched form (b > 1) is b independent m x n x k blocks.
struct Isa {
  const char* name;
  int m, n, k, blocks;
};

std::vector<std::string> isa_shapes(const std::vector<Isa>& list, const std::string& in, const std::string& suffix = "") {
  std::vector<std::string> v;
  for (const Isa& x : list)
    v.push_back(std::string(x.name) + suffix + ".m" + std::to_string(x.m) + "n" + std::to_string(x.n) + "k" +
                std::to_string(x.k) + (x.blocks > 1 ? "b" + std::to_string(x.blocks) : "") + ":" + in);
  return v;
}

std::vector<std::string> cat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// CDNA1 (and CDNA2, which keeps them).
const std::vector<Isa> kCdna1F32 = {{"v_mfma_f32_32x32x1f32", 32, 32, 1, 2}, {"v_mfma_f32_16x16x1f32", 16, 16, 1, 4},
                                    {"v_mfma_f32_4x4x1f32", 4, 4, 1, 16},    {"v_mfma_f32_32x32x2f32", 32, 32, 2, 1},
                                    {"v_mfma_f32_16x16x4f32", 16, 16, 4, 1}};
const std::vector<Isa> kCdna1F16 = {{"v_mfma_f32_32x32x4f16", 32, 32, 4, 2}, {"v_mfma_f32_16x16x4f16", 16, 16, 4, 4},
                                    {"v_mfma_f32_4x4x4f16", 4, 4, 4, 16},    {"v_mfma_f32_32x32x8f16", 32, 32, 8, 1},
                                    {"v_mfma_f32_16x16x16f16", 16, 16, 16, 1}};
const std::vector<Isa> kCdna1Bf16 = {{"v_mfma_f32_32x32x2bf16", 32, 32, 2, 2}, {"v_mfma_f32_16x16x2bf16", 16, 16, 2, 4},
                                     {"v_mfma_f32_4x4x2bf16", 4, 4, 2, 16},    {"v_mfma_f32_32x32x4bf16", 32, 32, 4, 1},
                                     {"v_mfma_f32_16x16x8bf16", 16, 16, 8, 1}};
// CDNA2 additions.
const std::vector<Isa> kCdna2Bf16_1k = {
    {"v_mfma_f32_32x32x4bf16_1k", 32, 32, 4, 2}, {"v_mfma_f32_16x16x4bf16_1k", 16, 16, 4, 4},
    {"v_mfma_f32_4x4x4bf16_1k", 4, 4, 4, 16},    {"v_mfma_f32_32x32x8bf16_1k", 32, 32, 8, 1},
    {"v_mfma_f32_16x16x16bf16_1k", 16, 16, 16, 1}};
const std::vector<Isa> kCdna2F64 = {{"v_mfma_f64_16x16x4f64", 16, 16, 4, 1}, {"v_mfma_f64_4x4x4f64", 4, 4, 4, 4}};
// CDNA3 (renamed: an underscore before the type, the block count in the name).
const std::vector<Isa> kCdna3F32 = {{"v_mfma_f32_32x32x1_2b_f32", 32, 32, 1, 2},
                                    {"v_mfma_f32_16x16x1_4b_f32", 16, 16, 1, 4},
                                    {"v_mfma_f32_4x4x1_16b_f32", 4, 4, 1, 16},
                                    {"v_mfma_f32_32x32x2_f32", 32, 32, 2, 1},
                                    {"v_mfma_f32_16x16x4_f32", 16, 16, 4, 1}};
const std::vector<Isa> kCdna3F16 = {{"v_mfma_f32_32x32x4_2b_f16", 32, 32, 4, 2},
                                    {"v_mfma_f32_16x16x4_4b_f16", 16, 16, 4, 4},
                                    {"v_mfma_f32_4x4x4_16b_f16", 4, 4, 4, 16},
                                    {"v_mfma_f32_32x32x8_f16", 32, 32, 8, 1},
                                    {"v_mfma_f32_16x16x16_f16", 16, 16, 16, 1}};
const std::vector<Isa> kCdna3Bf16 = {{"v_mfma_f32_32x32x4_2b_bf16", 32, 32, 4, 2},
                                     {"v_mfma_f32_16x16x4_4b_bf16", 16, 16, 4, 4},
                                     {"v_mfma_f32_4x4x4_16b_bf16", 4, 4, 4, 16},
                                     {"v_mfma_f32_32x32x8_bf16", 32, 32, 8, 1},
                                     {"v_mfma_f32_16x16x16_bf16", 16, 16, 16, 1}};
const std::vector<Isa> kCdna3Xf32 = {{"v_mfma_f32_16x16x8_xf32", 16, 16, 8, 1}, {"v_mfma_f32_32x32x4_xf32", 32, 32, 4, 1}};
const std::vector<Isa> kCdna3Fp8 = {{"v_mfma_f32_16x16x32_fp8_fp8", 16, 16, 32, 1},
                                    {"v_mfma_f32_32x32x16_fp8_fp8", 32, 32, 16, 1}};
const std::vector<Isa> kCdna3Bf8 = {{"v_mfma_f32_16x16x32_bf8_bf8", 16, 16, 32, 1},
                                    {"v_mfma_f32_32x32x16_bf8_bf8", 32, 32, 16, 1}};
// A of one fp8 format, B of the other (a shape ":<a>*<b>": the name fixes each operand).
const std::vector<Isa> kCdna3Fp8Bf8 = {{"v_mfma_f32_16x16x32_fp8_bf8", 16, 16, 32, 1},
                                       {"v_mfma_f32_32x32x16_fp8_bf8", 32, 32, 16, 1}};
const std::vector<Isa> kCdna3Bf8Fp8 = {{"v_mfma_f32_16x16x32_bf8_fp8", 16, 16, 32, 1},
                                       {"v_mfma_f32_32x32x16_bf8_fp8", 32, 32, 16, 1}};
const std::vector<Isa> kCdna3F64 = {{"v_mfma_f64_16x16x4_f64", 16, 16, 4, 1}, {"v_mfma_f64_4x4x4_4b_f64", 4, 4, 4, 4}};

}  // namespace

std::vector<UnitSpec> amd_unit_specs() {
  std::vector<UnitSpec> units;
  const std::vector<std::string> f16_shapes = isa_shapes(kCdna1F16, "fp16");
  const std::vector<std::string> bf16_cdna1_shapes = isa_shapes(kCdna1Bf16, "bf16");
  const std::vector<std::string> f32_shapes = isa_shapes(kCdna1F32, "fp32");
  const std::vector<std::string> f64_shapes = isa_shapes(kCdna2F64, "fp64");

  // ---------------------------------------------------------------- CDNA1
  {
    UnitSpec u{"mi100", "cdna1", {"cdna1"}, {}};
    u.datapaths.push_back(cdna1_exact(
        {"fp16"}, 4, f16_shapes,
        "units.md 3b CDNA1 f16: blocks of 4 products and c summed exactly (fraction_bits exact), one RNE to "
        "fp32; blocks chained (X25 v2 E-FDPA, the paper, KM25 MI100MC.m Kulisch mode agree; X25 v1.0 instead "
        "sums pairwise)."));
    u.datapaths.push_back(cdna1_exact(
        {"bf16"}, 2, bf16_cdna1_shapes,
        "units.md 3b CDNA1 bf16: blocks of 2 products and c summed exactly, one RNE to fp32 (X25 v2, the "
        "paper, KM25; X25 v1.0 differs)."));
    u.datapaths.push_back(fma_chain("fp32", f32_shapes, " CDNA1 v_mfma_f32_*f32."));
    units.push_back(std::move(u));
  }

  // ---------------------------------------------------------------- CDNA2
  {
    UnitSpec u{"mi250x", "cdna2", {"mi210", "mi250", "cdna2"}, {}};
    u.datapaths.push_back(cdna2_pairwise(
        "", {"fp16"}, 4, f16_shapes,
        "units.md 3b CDNA2 f16: groups of 4, acc + ((p0 + p1) + (p2 + p3)), binary32 RNE adds (X25 v1/v2, "
        "KM25 MI210MC.m)."));
    u.datapaths.push_back(cdna2_pairwise(
        "", {"bf16"}, 4, isa_shapes(kCdna2Bf16_1k, "bf16"),
        "units.md 3b CDNA2 bf16_1k (v_mfma_f32_*bf16_1k, the default bf16 row): groups of 4 as f16 (X25 v1/v2, "
        "KM25)."));
    u.datapaths.push_back(cdna2_pairwise(
        "bf16-legacy", {"bf16"}, 2, bf16_cdna1_shapes,  // the CDNA1 bf16 names run here
        "units.md 3b CDNA2 legacy bf16 (no _1k, including the CDNA1-named bf16 ops run on CDNA2): pairs, "
        "acc + (p0 + p1) (X25; KM25 has no P = 2 case)."));
    u.datapaths.push_back(fma_chain("fp32", f32_shapes, " CDNA2 v_mfma_f32_*f32."));
    u.datapaths.push_back(fma_chain("fp64", f64_shapes, " CDNA2 v_mfma_f64_{16x16x4,4x4x4}f64."));
    units.push_back(std::move(u));
  }

  // ---------------------------------------------------------------- CDNA3
  {
    UnitSpec u{"mi300x", "cdna3", {"mi300a", "mi325x", "cdna3"}, {}};
    // The K = 4 forms (_2b, _4b, _16b) run blocks of 4: selected by name, dot and gemm chain by
    // their K (Unit::select_instruction); the row's k = 8 serves the K = 8 and 16 forms.
    const std::vector<std::string> h8 = cat(isa_shapes(kCdna3F16, "fp16"), isa_shapes(kCdna3Bf16, "bf16"));
    const std::vector<std::string> h8v1 =
        cat(isa_shapes(kCdna3F16, "fp16", ".v1"), isa_shapes(kCdna3Bf16, "bf16", ".v1"));
    const std::string f16_text =
        "units.md 3b CDNA3 f16/bf16: blocks of 8 (the K = 4 forms: blocks of 4, the same result since +0 "
        "padding products do not count); products truncated (RZ) at F = 24 below the largest product "
        "exponent e_dot and summed exactly; c added after in a two-operand add aligned to E = max(e_dot, e_c) "
        "with both operands floored (c at 24 fraction bits); RNE to fp32; products >= 2^128 are Inf. Structure "
        "agreed by X25 v1/v2 and KM25 MI300MC.m.";
    const std::string xf32_text =
        "units.md 3b CDNA3 xf32 (v_mfma_f32_{16x16x8,32x32x4}_xf32): fp32 operands first truncated to tf32 "
        "(input_fraction_bits 10: 13 low fraction bits cleared), then blocks of 4 as f16 (X25, agreed).";
    // fp8 = e4m3fnuz, bf8 = e5m2fnuz; fp8_bf8 is A fp8, B bf8 (AMD MI300 ISA: SRC0 = A, SRC1 = B).
    auto fp8_isa = [&](const std::string& suffix) {
      return cat(cat(isa_shapes(kCdna3Fp8, "e4m3fnuz", suffix), isa_shapes(kCdna3Bf8, "e5m2fnuz", suffix)),
                 cat(isa_shapes(kCdna3Fp8Bf8, "e4m3fnuz*e5m2fnuz", suffix),
                     isa_shapes(kCdna3Bf8Fp8, "e5m2fnuz*e4m3fnuz", suffix)));
    };
    const std::vector<std::string> fp8_shapes = fp8_isa(""), fp8_shapes_v1 = fp8_isa(".v1");
    u.datapaths.push_back(cdna3_after("", {"fp16", "bf16"}, 8, true, h8, f16_text));
    u.datapaths.push_back(cdna3_fp8("", true, fp8_shapes));
    // The FMA chain first: it is the default fp32 -> fp32 row; xf32 is chosen by name.
    u.datapaths.push_back(fma_chain("fp32", isa_shapes(kCdna3F32, "fp32"), " CDNA3 v_mfma_f32_*_f32."));
    {
      DatapathSpec x = cdna3_after("xf32", {"fp32"}, 4, true, isa_shapes(kCdna3Xf32, "fp32"), xf32_text);
      x.input_fraction_bits = 10;
      u.datapaths.push_back(std::move(x));
    }
    u.datapaths.push_back(fma_chain("fp64", isa_shapes(kCdna3F64, "fp64"), " CDNA3 v_mfma_f64_16x16x4_f64, 4x4x4_4b_f64."));
    // The v1 rows: the same instructions, named "<ISA name>.v1".
    u.datapaths.push_back(cdna3_after("v1", {"fp16", "bf16"}, 8, false, h8v1, f16_text));
    u.datapaths.push_back(cdna3_fp8("v1", false, fp8_shapes_v1));
    {
      DatapathSpec x = cdna3_after("xf32.v1", {"fp32"}, 4, false, isa_shapes(kCdna3Xf32, "fp32", ".v1"), xf32_text);
      x.input_fraction_bits = 10;
      u.datapaths.push_back(std::move(x));
    }
    units.push_back(std::move(u));
  }
  return units;
}

}  // namespace tcsim::models::detail
