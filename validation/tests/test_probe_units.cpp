// The probe on every built-in unit: it must read back each datapath row of the table
// (units.md section 2) and fasi2021's conclusions for V100, T4 and A100.
#include <catch2/catch.hpp>

#include <vector>

#include "test_support.hpp"
#include "tcsim/models/unit.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/validation/probe.hpp"

using namespace tcsim;
using namespace tcsim::validation;

namespace {
// The probe's reading of a c_entry final-add row: every field of the row it can observe.
void check_final_add_row(const ProbeReport& r, const models::DatapathSpec& row, const Format& out) {
  CHECK(r.c_placement.value == std::string("late"));
  CHECK(r.c_entry.value == std::string("final-add"));
  CHECK(r.final_add_rounding.value == row.final_add_rounding.at(out.name));
  CHECK(r.k_split.value == models::schema_string(row.k_split));
  const int k = row.fma_size;
  const int K = row.k_split == models::KSplit::PairsMod4 ? 2 * k : k;
  std::vector<std::vector<int>> blocks(static_cast<std::size_t>(K / k));
  for (int i = 0; i < K; ++i)
    blocks[static_cast<std::size_t>(row.k_split == models::KSplit::PairsMod4 ? (i % 4) / 2 : 0)].push_back(i);
  CHECK(r.blocks.value == blocks);
  if (blocks.size() > 1) CHECK(r.block_chain.value == std::string("rounded"));
  CHECK(r.fma_size.value == k);
  CHECK(r.fraction_bits.value == row.fraction_bits);
  CHECK(r.final_rounding.value == row.final_rounding.at(out.name));
  CHECK(r.alignment_rounding.value == row.alignment_rounding);
  CHECK(r.sticky_bit.value == row.sticky_bit);
  CHECK(r.normalization.value == std::string("deferred"));
  REQUIRE(r.carry_bits.known());
  CHECK(*r.carry_bits.value <= row.carry_bits);
  CHECK_THAT(r.not_observed, Catch::Contains("zero signs"));
}
}  // namespace

TEST_CASE("probe units: every built-in unit, pair and instruction reads back its table row", "[probe][units]") {
  int probed = 0, final_known = 0, open_rows = 0, final_add_rows = 0;
  for (const auto& spec : models::builtin_unit_specs()) {
    // AMD rows (pairwise IEEE trees, c added after, exact blocks) are outside the probe's
    // block-FMA model: they are checked against an exact model in test_amd_units.cpp.
    if (spec.architecture.rfind("cdna", 0) == 0) continue;
    const models::Unit& unit = models::builtin_unit(spec.name);
    for (const std::string& pair : unit.format_pairs()) {
      const auto arrow = pair.find("->");
      const Format& in = parse_format(pair.substr(0, arrow));
      const Format& out = parse_format(pair.substr(arrow + 2));
      for (const std::string& instr : unit.instructions(in, out)) {
        const models::DatapathSpec& row = unit.datapath(in, out, instr);
        if (row.block_scale) continue;  // block-scaled ops need scales: not a plain dot
        // Rows the table marks as open problems (units.md: fp8 -> fp16 on Hopper/Blackwell) are
        // research datapaths that change while they are studied: probed, not checked.
        if (row.evidence.find("OPEN PROBLEM") != std::string::npos) {
          (void)probe(blackbox_from_unit(unit, in, out, instr));
          ++open_rows;
          continue;
        }
        // c added by an IEEE addition of its own after the blocks (the Hopper/Blackwell fp8
        // mma.sync emulation): the probe reads back the row through its block view.
        if (row.c_entry == models::CEntry::FinalAdd) {
          const ProbeReport r = probe(blackbox_from_unit(unit, in, out, instr));
          INFO(spec.name << " " << pair << " instruction '" << instr << "'\n" << r.to_text());
          check_final_add_row(r, row, out);
          ++final_add_rows;
          continue;
        }
        const ProbeReport r = probe(blackbox_from_unit(unit, in, out, instr));
        ++probed;
        INFO(spec.name << " " << pair << " instruction '" << instr << "'\n" << r.to_text());
        CHECK(r.subnormal_inputs.value.value_or(row.subnormal_inputs) == row.subnormal_inputs);
        CHECK(r.products_exact.value == true);
        const auto fr = row.final_rounding.find(out.name);
        REQUIRE(fr != row.final_rounding.end());
        if (row.normalization == Normalization::PerStep) {
          CHECK(r.normalization.value == std::string("per-step"));
          if (row.order == AccumulationOrder::Sequential) CHECK(r.order.value == std::string("sequential"));
          CHECK(r.final_rounding.value == fr->second);
          final_known += r.final_rounding.known();
          continue;
        }
        CHECK(r.c_placement.value == std::string(row.c_placement == CPlacement::Aligned ? "aligned" : "late"));
        // Without a final addition: c is the accumulator, and the c-last findings stay empty.
        CHECK(r.c_entry.value == std::string("accumulator"));
        CHECK_FALSE(r.final_add_rounding.known());
        CHECK(r.not_observed.empty());
        if (row.c_placement == CPlacement::Aligned) CHECK_FALSE(r.blocks.known());
        if (row.c_placement == CPlacement::Late) continue;  // the products' sum may be rounded before c: F is hidden
        CHECK(r.normalization.value == std::string("deferred"));
        CHECK(r.fma_size.value == row.fma_size);
        CHECK(r.fraction_bits.value == row.fraction_bits);
        CHECK(r.alignment_rounding.value == row.alignment_rounding);
        CHECK(r.sticky_bit.value == row.sticky_bit);
        REQUIRE(r.carry_bits.known());
        if (r.carry_bits_lower_bound) CHECK(*r.carry_bits.value <= row.carry_bits);
        else CHECK(*r.carry_bits.value == row.carry_bits);
        const auto clamp = row.min_exponent.find(out.name);
        if (r.min_exponent.known()) {
          REQUIRE(clamp != row.min_exponent.end());
          CHECK(*r.min_exponent.value == clamp->second);
        }
        if (r.min_exponent_none && clamp != row.min_exponent.end()) {
          // Only when the row's clamp cuts no bit any term can have: m - F at or below the
          // lowest bit of every product and of c.
          const int lowest = std::min(2 * (in.emin - in.precision + 1), out.emin - out.precision + 1);
          CHECK(clamp->second - row.fraction_bits <= lowest);
        }
        if (clamp != row.min_exponent.end() && in.precision <= 11 && !(in == formats::fp16() && out == formats::fp32()) &&
            in.exponent_bits >= 8)
          CHECK(r.min_exponent.known());  // bf16/tf32 inputs reach the clamp
        const auto rfb = row.result_fraction_bits.find(out.name);
        CHECK(r.result_fraction_bits.value == (rfb != row.result_fraction_bits.end() ? rfb->second : out.precision - 1));
        // Every built-in row keeps at least as many bits as its output, or reduces the output: the
        // final rounding is observable.
        CHECK(r.final_rounding.value == fr->second);
        final_known += r.final_rounding.known();
        if (r.order.known()) CHECK(r.order.value == std::string("largest-first"));
      }
    }
  }
  std::printf("[probe units] %d datapaths checked, final rounding determined on %d; %d final-add rows read back; %d "
              "open-problem rows probed\n",
              probed, final_known, final_add_rows, open_rows);
  CHECK(probed >= 30);
  CHECK(final_add_rows == 8);  // h100, b200 x e4m3, e5m2 x fp32, fp16
}

TEST_CASE("probe units: v100, t4 and a100 agree with fasi2021's conclusions", "[probe][units][fasi2021]") {
  const auto& v100 = models::builtin_unit("v100");
  const auto& t4 = models::builtin_unit("t4");
  const auto& a100 = models::builtin_unit("a100");
  const Format &h = formats::fp16(), &s = formats::fp32();
  SECTION("V100 (section 3.1 and 4)") {
    const ProbeReport r = probe_with_fasi2021(blackbox_from_unit(v100, h, s));
    INFO(r.to_text());
    CHECK(r.products_exact.value == true);            // conclusion 1
    CHECK(r.final_rounding.value == Rounding::TowardZero);  // conclusion 2
    CHECK(r.alignment_rounding.value == Rounding::TowardZero);
    CHECK(r.subnormal_inputs.value == true);          // conclusion 3
    CHECK(r.subnormal_outputs.value == true);
    CHECK(r.order.value == std::string("largest-first"));  // conclusion 4
    CHECK(r.normalization.value == std::string("deferred"));  // conclusion 5
    CHECK(r.fraction_bits.value == 23);               // {4.23}
    CHECK(r.carry_bits.value >= 3);
    CHECK(r.fma_size.value == 4);
    CHECK(r.monotonic.value == false);                // conclusion 6
    for (const auto& c : r.fasi2021) {
      INFO(c.test.id << " -> " << c.result);
      CHECK(c.v100_pass.value_or(true));
    }
    const ProbeReport r16 = probe_with_fasi2021(blackbox_from_unit(v100, h, h));
    CHECK(r16.final_rounding.value == Rounding::NearestEven);  // 3.1.3, binary16 output
    for (const auto& c : r16.fasi2021) CHECK(c.v100_pass.value_or(true));
  }
  SECTION("T4 and A100 (sections 3.2, 3.3): one more alignment bit") {
    for (const models::Unit* u : {&t4, &a100}) {
      const ProbeReport r = probe_with_fasi2021(blackbox_from_unit(*u, h, s));
      INFO(u->name() << "\n" << r.to_text());
      CHECK(r.fraction_bits.value == 24);  // {4.24}
      CHECK(r.final_rounding.value == Rounding::TowardZero);
      CHECK(r.normalization.value == std::string("deferred"));
      CHECK(r.order.value == std::string("largest-first"));
      CHECK(r.monotonic.value == false);
      for (const auto& c : r.fasi2021) {
        INFO(c.test.id << " -> " << c.result);
        CHECK(c.t4_a100_pass.value_or(true));
      }
    }
    // A100 bf16 and tf32 behave as fp16 (3.3); bf16 subnormal output 2^-127.
    for (const Format* in : {&formats::bf16(), &formats::tf32()}) {
      const ProbeReport r = probe_with_fasi2021(blackbox_from_unit(a100, *in, s));
      INFO(r.to_text());
      CHECK(r.fraction_bits.value == 24);
      CHECK(r.final_rounding.value == Rounding::TowardZero);
      CHECK(r.subnormal_inputs.value == true);
      CHECK(r.subnormal_outputs.value == true);
      for (const auto& c : r.fasi2021) CHECK(c.t4_a100_pass.value_or(true));
    }
  }
  SECTION("A100 fp64 (3.3): IEEE-like, RNE, per-step normalization, not largest-first") {
    const ProbeReport r = probe(blackbox_from_unit(a100, formats::fp64(), formats::fp64()));
    INFO(r.to_text());
    CHECK(r.normalization.value == std::string("per-step"));
    CHECK(r.final_rounding.value == Rounding::NearestEven);
    CHECK(r.order.value != std::string("largest-first"));
    CHECK(r.monotonic.value != false);
  }
}

TEST_CASE("probe units: h100 and b200 fp8 mma.sync read back as the emulation on the fp16 tensor core", "[probe][units]") {
  // Two blocks of 16 (i mod 4 in {0,1}, then {2,3}), F = 25, truncated alignment, each block
  // rounded into the output (rz binary32, rne binary16), then c added with rne.
  std::vector<std::vector<int>> blocks(2);
  for (int i = 0; i < 32; ++i) blocks[static_cast<std::size_t>((i % 4) / 2)].push_back(i);
  for (const char* name : {"h100", "b200"})
    for (const Format* in : {&formats::e4m3(), &formats::e5m2()})
      for (const Format* out : {&formats::fp32(), &formats::fp16()}) {
        const ProbeReport r = probe(blackbox_from_unit(models::builtin_unit(name), *in, *out, "mma.sync"));
        INFO(name << " " << in->name << " -> " << out->name << "\n" << r.to_text());
        CHECK(r.c_entry.value == std::string("final-add"));
        CHECK(r.blocks.value == blocks);
        CHECK(r.k_split.value == std::string("pairs-mod4"));
        CHECK(r.block_chain.value == std::string("rounded"));
        CHECK(r.fma_size.value == 16);
        CHECK(r.fraction_bits.value == 25);
        CHECK(r.alignment_rounding.value == Rounding::TowardZero);
        CHECK(r.sticky_bit.value == false);
        CHECK(r.final_rounding.value == (*out == formats::fp32() ? Rounding::TowardZero : Rounding::NearestEven));
        CHECK(r.final_add_rounding.value == Rounding::NearestEven);
        CHECK(r.result_fraction_bits.value == out->precision - 1);
        const auto j = r.to_json();
        CHECK(j["c_entry"] == "final-add");
        CHECK(j["final_add_rounding"] == "rne");
        CHECK(j["k_split"] == "pairs-mod4");
        CHECK(j["blocks"] == nlohmann::json(blocks));
        CHECK(j["fraction_bits"] == 25);
        CHECK(j["fma_size"] == 16);
      }
}
