// The built-in units as data: one row per datapath, with the evidence for every number.
//
// Sources (see ../shared/docs/units.md): [fasi2021] fasi2021 (Fasi, Higham, Mikaitis,
// Pranesh 2021), [KM25] Khattak & Mikaitis 2025 (parameters validated on the real-GPU data
// in shared/data/gpu), [X25] Xie et al., MMA-Sim, arXiv:2511.10909. Parameters only; no
// code from their models.
//
// Conventions of this table:
//  - carry_bits = safe_carry_bits(k) = ceil(log2(4k+2)) - 1, so that no legitimate sum of k
//    unnormalised products (each < 4*2^E) plus c (< 2*2^E) wraps. [fasi2021] 3.1.4 proves at
//    least 3 on V100 (the 1.875+1+1.5+1.75+1.875 = 8 vector) and no paper shows fewer; a
//    sum that does not wrap is independent of the number of carry bits.
//  - final rounding RZ for fp32 output, RNE for fp16 output ([fasi2021] [KM25] [X25]).
//  - min_exponent: KM25's min_exp_limit (units.md section 2).
//  - NaN results: 0x7fffffff / 0x7fff ([X25]); the Unit fills them in by default.
//  - For each (input, output) pair the first row is the default datapath: the one the
//    published data used (shared/data/gpu/README.md).
#include <cmath>

#include "tcsim/models/unit.hpp"

namespace tcsim::models {

namespace detail {
std::vector<UnitSpec> amd_unit_specs();  // unit_table_amd.cpp
}

int safe_carry_bits(int fma_size) {
  int need = 0;  // smallest n with 2^n >= 4k+2
  while ((std::int64_t{1} << need) < 4 * static_cast<std::int64_t>(fma_size) + 2) ++need;
  return need - 1;
}

namespace {

const std::vector<std::string> kWmmaHalf = {"wmma.m16n16k16", "wmma.m32n8k16", "wmma.m8n32k16"};

std::vector<std::string> cat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The corner rules of every fused NVIDIA row (X25 = MMA-Sim's tests, commit 21090c1,
// tests/nv/behavior_test_utils.py: test_f32_output_rounding, test_f16_output_rounding).
const std::string kCorners =
    " Corners: overflow inf (binary32 output overflows to Inf under RZ: X25's hardware behaviour "
    "tests assert Inf for 2^127*1 + 2^127*1 in bf16 and tf32 on Ampere, Ada, Hopper; its random-bit "
    "tests on A100/H100/B200 agree; reachable only with bf16/tf32 inputs or an Inf); zero_sign "
    "positive (X25's tests assert 'minus zero -> +0.0' on Volta to Hopper; Blackwell by X25's model, "
    "not by a hardware assertion).";

// A deferred-normalization (fused) row.
DatapathSpec fused(std::string instruction, std::vector<std::string> ins,
                   std::vector<std::string> outs, int k, int F, std::optional<int> min_fp32,
                   std::optional<int> min_fp16, std::vector<std::string> shapes,
                   std::string evidence) {
  DatapathSpec r;
  r.instruction = std::move(instruction);
  r.input_formats = std::move(ins);
  r.output_formats = std::move(outs);
  r.fma_size = k;
  r.fraction_bits = F;
  r.carry_bits = safe_carry_bits(k);
  r.alignment_rounding = Rounding::TowardZero;
  r.sticky_bit = false;
  r.normalization = Normalization::Deferred;
  r.order = AccumulationOrder::LargestFirst;
  r.c_placement = CPlacement::Aligned;
  for (const auto& o : r.output_formats) {
    if (o == "fp32") {
      r.final_rounding[o] = Rounding::TowardZero;
      if (min_fp32) r.min_exponent[o] = *min_fp32;
      r.nan_pattern[o] = 0x7fffffffu;
    } else if (o == "fp16") {
      r.final_rounding[o] = Rounding::NearestEven;
      if (min_fp16) r.min_exponent[o] = *min_fp16;
      r.nan_pattern[o] = 0x7fffu;
    }
  }
  // The NVIDIA corner rules (docs/units/README.md "Corner cases"): overflow gives Inf
  // even under RZ, and an exact zero is +0 even when every term is -0.
  r.overflow = OverflowMode::Infinity;
  r.zero_sign = ZeroSign::Positive;
  r.shapes = std::move(shapes);
  r.evidence = std::move(evidence) + kCorners;
  return r;
}

// fp64 -> fp64: IEEE-like chain of fused multiply-adds ([fasi2021] 3.3, [X25]): every partial
// sum normalized and rounded to nearest even, sequential order. F = 160 with a sticky bit
// makes each step a correctly rounded FMA (a product of two binary64 significands has
// 106 bits; 160 >= 106 + 53 + 1 keeps guard and round bits of any alignment).
DatapathSpec fp64_chain(std::vector<std::string> shapes, std::string evidence) {
  DatapathSpec r;
  r.input_formats = {"fp64"};
  r.output_formats = {"fp64"};
  r.fma_size = 4;
  r.fraction_bits = 160;
  r.carry_bits = 3;
  r.alignment_rounding = Rounding::TowardZero;
  r.sticky_bit = true;
  r.normalization = Normalization::PerStep;
  r.order = AccumulationOrder::Sequential;
  r.c_placement = CPlacement::Aligned;
  r.final_rounding["fp64"] = Rounding::NearestEven;
  r.shapes = std::move(shapes);
  r.evidence = std::move(evidence);
  return r;
}

// fp8 through mma.sync.m16n8k32 on Hopper and Blackwell: no native fp8 mma.sync; an
// emulation on the fp16 tensor core (units.md s2, docs/research/h100_fp8_fp16.md). Per
// instruction: t = block(k mod 4 in {0,1}, acc +0), u = block({2,3}, acc t), each block the
// architecture's fp16 datapath (k 16, F 25, truncation, min_exponent -133 / -21) rounded
// into the output format (RZ binary32, RNE binary16), then d = u + c by one IEEE addition
// in the output format, RNE for both outputs.
DatapathSpec fp8_mma_sync_on_fp16_core(std::string evidence) {
  DatapathSpec r = fused("mma.sync", {"e4m3", "e5m2"}, {"fp32", "fp16"}, 16, 25, -133, -21, {"mma.sync.m16n8k32"},
                         std::move(evidence));
  r.k_split = KSplit::PairsMod4;
  r.c_entry = CEntry::FinalAdd;
  r.final_add_rounding = {{"fp32", Rounding::NearestEven}, {"fp16", Rounding::NearestEven}};
  return r;
}

const std::string kFp8Emulation =
    " Structure: k_split pairs-mod4 (two blocks of 16: products with k mod 4 in {0,1}, then "
    "{2,3}), c_entry final-add (blocks from +0, each rounded into the output format: RZ binary32 "
    "/ RNE binary16; then c added by one IEEE addition, final_add_rounding RNE). Not covered by "
    "the data: zero signs, overflow, subnormal results, the alignment mode (truncation assumed "
    "as on the fp16 rows), F beyond 18..30 for binary16 output.";

const std::string kCarry =
    " carry_bits = ceil(log2(4k+2))-1 (never wraps; fasi2021 3.1.4 shows >= 3 on V100).";
const std::string kMin132 = " min_exponent -132 (fp32) / -20 (fp16): KM25 min_exp_limit, Ampere/Ada.";
const std::string kMin133 = " min_exponent -133 (fp32) / -21 (fp16): KM25 min_exp_limit, Hopper/Blackwell.";
// The binary16-output alignment floor of the wgmma/tcgen05 fp16 rows: KM25's value is kept,
// X25's restated tables give one less; no hardware assertion decides (docs/units/README.md).
const std::string kFloorOpen =
    " Binary16 floor OPEN: min_exponent fp16 -21 is KM25's min_exp_limit (validated on mma data, "
    "none on this instruction); X25's restated tables give -22 (row instruction '%s.x25-floor'). "
    "A zero-c case of tiny products decides it (tcsim probe; validation/cuda mode corners).";

// The X25 alternative of a row's binary16 floor: fp16 -> fp16 only, selected by name.
DatapathSpec x25_floor_row(const DatapathSpec& base, const std::string& instruction, int floor) {
  DatapathSpec r = base;
  r.instruction = instruction + ".x25-floor";
  r.output_formats = {"fp16"};
  r.final_rounding = {{"fp16", base.final_rounding.at("fp16")}};
  r.min_exponent = {{"fp16", floor}};
  r.nan_pattern = {{"fp16", base.nan_pattern.at("fp16")}};
  r.shapes.clear();
  r.evidence = "X25's restated binary16 alignment floor (" + std::to_string(floor) + ") for " + instruction +
               ", as an alternative to the '" + instruction + "' row's KM25 value; evidence open "
               "(docs/units/README.md). Otherwise the '" + instruction + "' row.";
  return r;
}

std::string floor_open(const std::string& instruction) {
  std::string s = kFloorOpen;
  s.replace(s.find("%s"), 2, instruction);
  return s;
}

const std::string kRounding = " Truncated alignment, one final normalization, RZ to fp32 / RNE to fp16 (units.md s1).";

std::vector<UnitSpec> make_table() {
  std::vector<UnitSpec> units;

  // ---------------------------------------------------------------- Volta
  {
    UnitSpec u{"v100", "volta", {"volta"}, {}};
    u.datapaths.push_back(fused(
        "", {"fp16"}, {"fp32", "fp16"}, 4, 23, std::nullopt, -19,
        cat(kWmmaHalf, {"mma.sync.m8n8k4"}),
        "units.md s2 Volta; fasi2021 s3.1: k=4 (5-operand adder), register {4.23} = F 23, no guard "
        "digit, deferred normalization, RZ fp32 / RNE fp16; KM25, X25 agree. min_exponent: KM25 "
        "none (fp32), -19 (fp16)." +
            kCarry + " Data: shared/data/gpu/V100/fp16 (wmma, K=4)."));
    units.push_back(std::move(u));
  }

  // ---------------------------------------------------------------- Turing
  {
    UnitSpec u{"t4", "turing", {"turing"}, {}};
    u.datapaths.push_back(fused(
        "", {"fp16"}, {"fp32", "fp16"}, 8, 24, -132, -20,
        cat(kWmmaHalf, {"mma.sync.m8n8k4", "mma.sync.m16n8k8"}),
        "units.md s2 Turing; fasi2021 s3.2: one more bottom bit than Volta, register {4.24} = F 24; "
        "k=8 (m16n8k8) per units.md/X25." + kRounding + kCarry +
            " min_exponent -132/-20 by analogy with Ampere (fasi2021 s3.3: A100 fp16 behaves as T4; "
            "KM25 give no Turing clamp). No real-GPU data."));
    units.push_back(std::move(u));
  }

  // ---------------------------------------------------------------- Ampere (and Ada's shared rows)
  auto ampere_rows = [](const std::string& gpu, bool fp64) {
    std::vector<DatapathSpec> rows;
    const std::string src = gpu == "A100" ? "fasi2021 s3.3, KM25, X25" : "KM25, X25 (as Ampere)";
    rows.push_back(fused("", {"fp16"}, {"fp32", "fp16"}, 8, 24, -132, -20,
                         cat(kWmmaHalf, {"mma.sync.m8n8k4", "mma.sync.m16n8k8", "mma.sync.m16n8k16"}),
                         "units.md s2 " + std::string(gpu == "A100" ? "Ampere" : "Ada") +
                             " fp16: k=8, F=24 (" + src + "); m16n8k16 = two k=8 steps." +
                             kRounding + kMin132 + kCarry + " Data: shared/data/gpu/" + gpu +
                             "/fp16 (K=8)."));
    rows.push_back(fused("", {"bf16"}, {"fp32"}, 8, 24, -132, std::nullopt,
                         cat(kWmmaHalf, {"mma.sync.m16n8k8", "mma.sync.m16n8k16"}),
                         "units.md s2 bf16: as fp16, k=8, F=24 (" + src + "); subnormal inputs and "
                         "outputs honoured (fasi2021 s3.3)." + kRounding + kMin132 + kCarry +
                             " Data: shared/data/gpu/" + gpu + "/bf16 (K=8)."));
    rows.push_back(fused("", {"tf32"}, {"fp32"}, 4, 24, -132, std::nullopt,
                         {"wmma.m16n16k8", "mma.sync.m16n8k4", "mma.sync.m16n8k8"},
                         "units.md s2 tf32: k=4, F=24 (KM25, X25); m16n8k8 = two k=4 steps." +
                             kRounding + kMin132 + kCarry + " Data: shared/data/gpu/" + gpu +
                             "/tf32 (K=4)."));
    if (fp64)
      rows.push_back(fp64_chain({"mma.sync.m8n8k4", "wmma.m8n8k4"},
                                "units.md s2 Ampere fp64; fasi2021 s3.3: RNE, normalization after each "
                                "addition, not largest-first: IEEE-like chain of FMAs (X25). F=160 "
                                "+ sticky = correctly rounded FMA steps."));
    return rows;
  };
  {
    UnitSpec u{"a100", "ampere", {"ampere", "a2", "a30"}, ampere_rows("A100", true)};
    units.push_back(std::move(u));
  }

  // ---------------------------------------------------------------- Ada
  {
    UnitSpec u{"l40s", "ada", {"ada"}, ampere_rows("Ada", false)};
    u.datapaths.push_back(fused(
        "", {"e4m3", "e5m2"}, {"fp32", "fp16"}, 16, 13, -132, -20, {"mma.sync.m16n8k32"},
        "units.md s2 Ada fp8: k=16, F=13, RZ fp32 / RNE fp16 (KM25, X25); binary32 output keeps "
        "only 13 fraction bits (result_fraction_bits 13: without it only ~79 % (E4M3) / 81 % "
        "(E5M2) of the Ada fp32 data match); m16n8k32 = two k=16 steps chained through the "
        "output format." +
            kMin132 + kCarry +
            " Data: shared/data/gpu/Ada/E4M3, E5M2 (mma.sync.m16n8k32, K=32; fp16 out: c rounded "
            "to fp16)."));
    u.datapaths.back().result_fraction_bits["fp32"] = 13;
    units.push_back(std::move(u));
  }

  // ---------------------------------------------------------------- Hopper
  {
    UnitSpec u{"h100", "hopper", {"hopper", "h200"}, {}};
    u.datapaths.push_back(fused(
        "", {"fp16"}, {"fp32", "fp16"}, 16, 25, -133, -21,
        cat(kWmmaHalf, {"mma.sync.m8n8k4", "mma.sync.m16n8k8", "mma.sync.m16n8k16"}),
        "units.md s2 Hopper fp16: k=16, F=25 (KM25, X25)." + kRounding + kMin133 + kCarry +
            " Data: shared/data/gpu/H100/fp16 (K=16)."));
    u.datapaths.push_back(fused(
        "wgmma", {"fp16"}, {"fp32", "fp16"}, 16, 25, -133, -21, {"wgmma.m64nNk16"},
        "units.md s2 Hopper fp16 through wgmma: the mma.sync fp16 datapath (k=16, F=25: X25's "
        "wgmma tests, KM25)." + kRounding + kMin133 + kCarry + floor_open("wgmma")));
    u.datapaths.push_back(x25_floor_row(u.datapaths.back(), "wgmma", -22));
    u.datapaths.push_back(fused(
        "", {"bf16"}, {"fp32"}, 16, 25, -133, std::nullopt,
        cat(kWmmaHalf, {"mma.sync.m16n8k8", "mma.sync.m16n8k16", "wgmma.m64nNk16"}),
        "units.md s2 Hopper bf16: k=16, F=25 (KM25, X25)." + kRounding + kMin133 + kCarry +
            " Data: shared/data/gpu/H100/bf16 (K=16)."));
    u.datapaths.push_back(fused(
        "", {"tf32"}, {"fp32"}, 8, 25, -133, std::nullopt,
        {"wmma.m16n16k8", "mma.sync.m16n8k4", "mma.sync.m16n8k8", "wgmma.m64nNk8"},
        "units.md s2 Hopper tf32: k=8, F=25 (KM25, X25)." + kRounding + kMin133 + kCarry +
            " Data: shared/data/gpu/H100/tf32 (K=4)."));
    u.datapaths.push_back(fused(
        "wgmma", {"e4m3", "e5m2"}, {"fp32"}, 32, 13, -133, std::nullopt, {"wgmma.m64nNk32"},
        "units.md s2 Hopper fp8 (wgmma): k=32, F=13 (binary32 output keeps only 13 fraction "
        "bits: the 'fp8 accumulates in about 14 bits' effect), RZ (KM25, X25)." +
            kMin133 + kCarry +
            " Binary32 output keeps only 13 fraction bits (result_fraction_bits 13; without it "
            "only ~72 % (E4M3) / 83 % (E5M2) of the H100 fp32 data match)."
            " Data: shared/data/gpu/H100/E4M3, E5M2 d_H100_fp32 (wgmma into a zeroed D: c = 0)."));
    u.datapaths.back().result_fraction_bits["fp32"] = 13;
    u.datapaths.push_back(fp8_mma_sync_on_fp16_core(
        "units.md s2 Hopper fp8 through mma.sync.m16n8k32: no native fp8 mma.sync on sm_90 (NVIDIA, "
        "cutlass issue 1986: converted to fp16 and run on the fp16 tensor core). Model found on the data "
        "for this project (docs/research/h100_fp8_fp16.md). binary16 output: shared/data/gpu/H100/E4M3 "
        "and E5M2 d_H100_fp16, 5000/5000 each (the published 13-bit fused model: 62 % / 67 %), and "
        "held-out H200 data (units.md s2). binary32 output: PREDICTED from the same structure and "
        "confirmed on B200 (10,000/10,000 real cases); no H100 mma.sync binary32 data exists here "
        "(the H100 fp32 file is wgmma, the default row for that pair)." +
        kFp8Emulation));
    u.datapaths.push_back(fp64_chain(
        {"mma.sync.m8n8k4", "mma.sync.m16n8k4", "mma.sync.m16n8k8", "mma.sync.m16n8k16",
         "wmma.m8n8k4"},
        "units.md s2 Hopper fp64: as Ampere fp64 (X25): IEEE-like FMA chain, RNE per step, "
        "sequential order."));
    units.push_back(std::move(u));
  }

  // ---------------------------------------------------------------- Blackwell
  {
    UnitSpec u{"b200", "blackwell", {"blackwell"}, {}};
    const std::vector<std::string> tc16 = {"tcgen05.m64nNk16", "tcgen05.m128nN16k16",
                                           "tcgen05.m256nN16k16"};
    u.datapaths.push_back(fused(
        "", {"fp16"}, {"fp32", "fp16"}, 16, 25, -133, -21,
        cat(kWmmaHalf, {"mma.sync.m8n8k4", "mma.sync.m16n8k8", "mma.sync.m16n8k16"}),
        "units.md s2 Blackwell fp16: k=16, F=25 (KM25 validated on B200, X25 tcgen05)." + kRounding +
            kMin133 + kCarry));
    u.datapaths.push_back(fused(
        "tcgen05", {"fp16"}, {"fp32", "fp16"}, 16, 25, -133, -21, tc16,
        "units.md s2 Blackwell fp16 through tcgen05.mma kind::f16: k=16, F=25 (X25 tcgen05)." + kRounding +
            kMin133 + kCarry + floor_open("tcgen05")));
    u.datapaths.push_back(x25_floor_row(u.datapaths.back(), "tcgen05", -22));
    u.datapaths.push_back(fused(
        "", {"bf16"}, {"fp32"}, 16, 25, -133, std::nullopt,
        cat(cat(kWmmaHalf, {"mma.sync.m16n8k8", "mma.sync.m16n8k16"}), tc16),
        "units.md s2 Blackwell bf16: k=16, F=25 (KM25, X25)." + kRounding + kMin133 + kCarry));
    u.datapaths.push_back(fused(
        "", {"tf32"}, {"fp32"}, 8, 25, -133, std::nullopt,
        {"wmma.m16n16k8", "mma.sync.m16n8k4", "mma.sync.m16n8k8", "tcgen05.m64nNk8",
         "tcgen05.m128nN16k8", "tcgen05.m256nN16k8"},
        "units.md s2 Blackwell tf32: k=8, F=25 (KM25)." + kRounding + kMin133 + kCarry));
    u.datapaths.push_back(fp8_mma_sync_on_fp16_core(
        "units.md s2 Blackwell fp8 through legacy mma.sync.m16n8k32 (how the B200 data was made): the "
        "same fp16-tensor-core emulation as Hopper, exactly. Real B200 dumps (KM25's public set, "
        "analysed for this project): binary16 output 10,000/10,000, binary32 output 10,000/10,000; "
        "the cases that separate the candidates are in shared/data/gpu-vectors/B200 (one fused "
        "32-term sum rounded to binary16 then c added fails E4M3 cases 7, 15, 16, 25, 31; F = 17 "
        "fails E5M2 case 99; any single rounding of the exact sum fails E5M2 case 3936; a fused sum "
        "with F = 30 and c aligned fails case 4631). Superseded rows: one 32-term sum, F 30, RNE "
        "(9,998 of 10,000 binary32) and products rounded then c added (binary16: 1,830 misses). "
        "Whether sm_100 always runs this emulation or the harness build chose it is not known; "
        "tcgen05 is native (next row)." +
        kFp8Emulation));
    u.datapaths.push_back(fused(
        "tcgen05", {"e4m3", "e5m2", "e2m3", "e3m2", "e2m1"}, {"fp32"}, 32, 25, -133, std::nullopt,
        {"tcgen05.m64nNk32", "tcgen05.m128nN16k32", "tcgen05.m256nN16k32"},
        "units.md s2 Blackwell tcgen05.mma kind::f8f6f4 (fp8, fp6, fp4): k=32, F=25, RZ (X25; "
        "DeepGEMM issue 176: 'the accumulator maintains 25 bits mantissa' on B200)." +
            kMin133 + kCarry + " A and B types are chosen independently in the instruction descriptor "
            "(PTX kind::f8f6f4: e4m3 x e5m2, fp8 x fp6, fp8 x fp4, ...): mixed_inputs, each operand decoded "
            "in its own format, exact products (X25 models the pairs the same way)." +
            " Not validated against real data here."));
    u.datapaths.back().mixed_inputs = true;
    {
      auto r = fused(
          "tcgen05.mxf8f6f4", {"e4m3", "e5m2", "e2m3", "e3m2", "e2m1"}, {"fp32"}, 32, 25, -133,
          std::nullopt,
          {"tcgen05.mxf8f6f4.m128nN16k32", "tcgen05.mxf8f6f4.m256nN16k32"},
          "units.md s2 Blackwell block-scaled kind::mxf8f6f4 (X25): ue8m0 scale per 32 "
          "elements multiplied into the product exponents, k=32, F=25, RZ. min_exponent -133 as "
          "the other Blackwell fp32 rows (assumption)." + kCarry +
          " A and B types are independent here too (PTX kind::mxf8f6f4 takes the kind::f8f6f4 pairs), each "
          "with its own scales: mixed_inputs.");
      r.block_scale = BlockScaleSpec{{"ue8m0"}, {32}, 0};
      r.mixed_inputs = true;
      u.datapaths.push_back(std::move(r));
    }
    {
      auto r = fused(
          "tcgen05.mxf4nvf4", {"e2m1"}, {"fp32"}, 64, 35, -133, std::nullopt,
          {"tcgen05.mxf4nvf4.m128nN16k64", "tcgen05.mxf4nvf4.m256nN16k64"},
          "units.md s2 Blackwell block-scaled kind::mxf4nvf4 (X25): fp4 with ue8m0 or ue4m3 "
          "scales per 16 or 32 elements; each group of 16 products summed exactly, scaled, then "
          "fused with c: k=64, F=35, RZ. The alignment exponent of a scaled group sum is taken "
          "as its leading bit (a choice: not published). min_exponent -133 as the other "
          "Blackwell fp32 rows (assumption)." + kCarry);
      r.block_scale = BlockScaleSpec{{"ue8m0", "ue4m3"}, {16, 32}, 16};
      u.datapaths.push_back(std::move(r));
    }
    u.datapaths.push_back(fp64_chain(
        {"mma.sync.m8n8k4", "mma.sync.m16n8k4", "mma.sync.m16n8k8", "mma.sync.m16n8k16",
         "wmma.m8n8k4"},
        "units.md s2: fp64 as Ampere/Hopper (IEEE-like FMA chain, RNE per step, sequential "
        "order); assumed for Blackwell, not measured."));
    units.push_back(std::move(u));
  }

  // ---------------------------------------------------------------- RTX Blackwell (sm_120)
  {
    UnitSpec u{"rtx5090", "blackwell-rtx", {"rtx-blackwell", "rtxpro6000"}, {}};
    const std::string kRtx = " RTX Blackwell (sm_120a: RTX 5090, RTX PRO 6000), units.md 3b.";
    const std::string kNoRtxData =
        " No public real-GPU dumps: X25 ran its random-bit tests on sm_120a and its model matched; KM25's "
        "RTX PRO 6000 model is its B200 model. The NVIDIA corner rules (overflow Inf under RZ, +0 for all -0 "
        "sums) carried over from the other NVIDIA rows (X25's model; no sm_120 hardware assertion).";
    u.datapaths.push_back(fused(
        "", {"fp16"}, {"fp32", "fp16"}, 16, 25, -133, -21,
        cat(kWmmaHalf, {"mma.sync.m8n8k4", "mma.sync.m16n8k8", "mma.sync.m16n8k16"}),
        "units.md 3b" + kRtx + " fp16 mma.sync as Hopper/B200: k=16, F=25, RZ fp32 / RNE fp16 (X25)." +
            kMin133 + kCarry + kNoRtxData));
    u.datapaths.push_back(fused(
        "", {"bf16"}, {"fp32"}, 16, 25, -133, std::nullopt, cat(kWmmaHalf, {"mma.sync.m16n8k8", "mma.sync.m16n8k16"}),
        "units.md 3b" + kRtx + " bf16 as Hopper/B200: k=16, F=25, RZ (X25)." + kMin133 + kCarry + kNoRtxData));
    u.datapaths.push_back(fused(
        "", {"tf32"}, {"fp32"}, 8, 25, -133, std::nullopt, {"wmma.m16n16k8", "mma.sync.m16n8k4", "mma.sync.m16n8k8"},
        "units.md 3b" + kRtx + " tf32 as Hopper/B200: k=8, F=25, RZ (X25)." + kMin133 + kCarry + kNoRtxData));
    u.datapaths.push_back(fused(
        "", {"e4m3", "e5m2"}, {"fp32", "fp16"}, 32, 25, -133, -22, {"mma.sync.m16n8k32", "mma.sync.m16n8k16"},
        "units.md 3b" + kRtx + " fp8 mma.sync.m16n8k32 (also .kind::f8f6f4 with fp8 operands): one fused block "
            "of 32 products with c inside, every term truncated at F=25 below the largest, RZ to fp32 / RNE to "
            "fp16; no split into two k=16 halves (unlike Ada, unlike B200 mma.sync). Zero terms read exponent "
            "-133 (fp32 accumulator) or -22 (fp16 accumulator): min_exponent (X25 v1/v2; KM25's RTX PRO 6000 "
            "model agrees for fp32 output and has no fp16 output). The m16n8k16 fp8 form (PTX ISA 8.7, sm_89+) is "
            "one block of 16 (units.md 3b): selected by its name mma.sync.m16n8k16, dot and gemm chain "
            "instructions of 16 products. A and B types are independent (PTX mma.sync.m16n8k32 .e4m3.e5m2 and "
            ".e5m2.e4m3): mixed_inputs, each operand decoded in its own format (X25 models them; its hardware "
            "tests cover the fp8 pairs)." +
            kCarry + kNoRtxData));
    u.datapaths.back().mixed_inputs = true;
    {
      auto r = fused(
          "mma.sync.mxf8f6f4", {"e4m3", "e5m2"}, {"fp32"}, 32, 25, -133, std::nullopt,
          {"mma.sync.mxf8f6f4.m16n8k32"},
          "units.md 3b" + kRtx + " block-scaled mma...kind::mxf8f6f4.block_scale (ue8m0 per 32): as the fp8 "
              "mma, each product's exponent also adds both scale exponents (X25; hardware-checked for e4m3 x e4m3 "
              "and e5m2 x e5m2 only). A and B types are independent (PTX .e4m3.e5m2 and .e5m2.e4m3), each with "
              "its own scales: mixed_inputs (not hardware-checked)." + kCarry + kNoRtxData);
      r.block_scale = BlockScaleSpec{{"ue8m0"}, {32}, 0};
      r.mixed_inputs = true;
      u.datapaths.push_back(std::move(r));
    }
    {
      // As the b200 tcgen05.mxf4nvf4 row (the same group structure and scale formats).
      auto r = fused(
          "mma.sync.mxf4nvf4", {"e2m1"}, {"fp32"}, 64, 35, -133, std::nullopt, {"mma.sync.mxf4nvf4.m16n8k64"},
          "units.md 3b" + kRtx + " block-scaled mma...kind::mxf4nvf4.block_scale m16n8k64 (fp4 e2m1 with ue8m0 "
              "scales per 32 or ue4m3 scales per 16; PTX pairs ue8m0 with 32 and ue4m3 with 16, tcsim accepts every "
              "combination as for b200): each group of 16 products summed exactly, multiplied by its scales, then "
              "fused with c, k=64, F=35, RZ (X25; hardware-checked by X25 for block 32 + ue8m0 and block 16 + ue4m3). "
              "Alignment exponent of a scaled group sum: its leading bit, as the b200 row (a choice); X25 aligns "
              "each group by its scale exponents only and reads exponent -139 for an all-zero group: the two "
              "differ in the truncation of small groups (open, docs/units/blackwell.md)." +
              kCarry + kNoRtxData);
      r.block_scale = BlockScaleSpec{{"ue8m0", "ue4m3"}, {16, 32}, 16};
      u.datapaths.push_back(std::move(r));
    }
    u.datapaths.push_back(fp64_chain({"mma.sync.m8n8k4", "mma.sync.m16n8k4", "mma.sync.m16n8k8", "mma.sync.m16n8k16"},
                                     "units.md 3b" + kRtx + " fp64 as the other NVIDIA units: IEEE FMA chain, RNE (X25)."));
    units.push_back(std::move(u));
  }
  for (auto& u : detail::amd_unit_specs()) units.push_back(std::move(u));
  return units;
}

}  // namespace

const std::vector<UnitSpec>& builtin_unit_specs() {
  static const std::vector<UnitSpec> table = make_table();
  return table;
}

}  // namespace tcsim::models
