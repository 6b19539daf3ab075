// tcsim units: the built-in units and their datapath rows (--json: in the user-unit schema,
// loadable with --unit-config after keeping one unit).
#include <algorithm>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "commands.hpp"
#include "json_output.hpp"
#include "tcsim/models/unit.hpp"
#include "tcsim/models/unit_json.hpp"
#include "tcsim/sim/fma_lanes.hpp"

namespace tcsim::cli {

namespace {

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// "v_mfma_f32_32x32x1f32 32x32x1 (2 blocks)", "wgmma.m64nNk16 64xNx16 (N = 8..256 step 8)".
std::string instruction_text(const models::NamedInstruction& e, const models::DatapathSpec& row) {
  const auto& p = e.shape;
  std::string s = e.name + " " + std::to_string(p.m) + "x" + (p.n ? std::to_string(p.n) : "N") + "x" + std::to_string(p.k);
  if (!p.n) s += " (N = " + std::to_string(p.n_step) + ".." + std::to_string(p.n_max) + " step " + std::to_string(p.n_step) + ")";
  if (p.blocks > 1) s += " (" + std::to_string(p.blocks) + " blocks)";
  if (!p.input_formats.empty() && e.input_formats.size() < row.input_formats.size()) s += " [" + join(e.input_formats, ",") + "]";
  return s;
}

// tcsim units --instructions: every named instruction with m x n x k (and the k its dot chains by).
int print_instructions(const std::vector<const models::Unit*>& units, bool json) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto* u : units) {
    if (!json) std::printf("%s%s\n", u == units.front() ? "" : "\n", u->name().c_str());
    for (const auto& e : u->named_instructions()) {
      const models::DatapathSpec& row = u->spec().datapaths[e.row];
      const auto& p = e.shape;
      // The products of one block FMA when dot/gemm run this instruction: its K where smaller.
      const int block = row.block_scale || row.k_split != models::KSplit::Consecutive ||
                                row.c_entry != models::CEntry::Accumulator
                            ? row.fma_size
                            : std::min(row.fma_size, p.k);
      if (json) {
        nlohmann::json j{{"unit", u->name()}, {"name", e.name}, {"row_instruction", row.instruction},
                         {"input_formats", e.input_formats}, {"output_formats", e.output_formats},
                         {"m", p.m}, {"k", p.k}, {"blocks", p.blocks}, {"block_fma_products", block}};
        if (p.n) j["n"] = p.n;
        else j["n"] = {{"step", p.n_step}, {"max", p.n_max}};
        arr.push_back(j);
        continue;
      }
      std::printf("  %-40s %s -> %s, row %s, block FMA of %d\n", instruction_text(e, row).c_str(),
                  join(e.input_formats, ",").c_str(), join(e.output_formats, ",").c_str(),
                  row.instruction.empty() ? "(any)" : row.instruction.c_str(), block);
    }
  }
  if (json) print_json(arr, 2);
  return 0;
}

void print_unit(const models::Unit& unit, bool evidence) {
  const auto& s = unit.spec();
  std::printf("%s (architecture %s%s%s)\n", s.name.c_str(), s.architecture.c_str(), s.aliases.empty() ? "" : "; aliases: ",
              join(s.aliases).c_str());
  const auto named = unit.named_instructions();
  for (std::size_t ri = 0; ri < s.datapaths.size(); ++ri) {
    const auto& r = s.datapaths[ri];
    std::string rounding, mins;
    for (const auto& [o, m] : r.final_rounding) rounding += (rounding.empty() ? "" : " ") + o + ":" + models::schema_string(m);
    for (const auto& [o, m] : r.min_exponent) mins += (mins.empty() ? "" : " ") + o + ":" + std::to_string(m);
    std::string extra;
    if (r.c_placement == CPlacement::Late)
      extra += ", c late" + (r.late_products_rounding ? " (products rounded " + models::schema_string(*r.late_products_rounding) + " first)" : std::string());
    if (r.c_placement == CPlacement::After) {
      const auto& aa = r.after_add;
      extra += ", c after (sum " + std::to_string(aa.sum_fraction_bits) + " bits, c " + std::to_string(aa.c_fraction_bits) +
               " bits, " + models::schema_string(aa.rounding) +
               (aa.renormalize_fraction_bits ? ", renormalized " + std::to_string(*aa.renormalize_fraction_bits) : std::string()) +
               (aa.drop_c_below ? ", c dropped below E-" + std::to_string(*aa.drop_c_below) : std::string()) + ")";
    }
    if (r.product_groups != 1) extra += ", product_groups " + std::to_string(r.product_groups);
    if (r.input_fraction_bits) extra += ", inputs truncated to " + std::to_string(*r.input_fraction_bits) + " fraction bits";
    if (r.product_rounding) extra += ", products rounded " + models::schema_string(*r.product_rounding);
    if (r.product_overflow_inf) extra += ", product_overflow inf";
    if (r.flush_inputs_positive) extra += ", flushed inputs +0";
    if (r.mixed_inputs) extra += ", mixed_inputs (a and b of any two input formats)";
    if (r.k_split != models::KSplit::Consecutive) extra += ", k_split " + models::schema_string(r.k_split);
    if (r.c_entry != models::CEntry::Accumulator) {
      std::string add;
      for (const auto& [o, m] : r.final_add_rounding) add += (add.empty() ? "" : " ") + o + ":" + models::schema_string(m);
      extra += ", c_entry " + models::schema_string(r.c_entry) + " (c added last, final_add_rounding " + add + ")";
    }
    for (const auto& [o, b] : r.result_fraction_bits) extra += ", result_fraction_bits " + o + ":" + std::to_string(b);
    if (r.block_scale)
      extra += ", block_scale " + join(r.block_scale->scale_formats, "/") + " per " +
               [&] {
                 std::string b;
                 for (int x : r.block_scale->block_sizes) b += (b.empty() ? "" : "/") + std::to_string(x);
                 return b;
               }() +
               (r.block_scale->group_size ? ", groups of " + std::to_string(r.block_scale->group_size) : "");
    // The corner rules (docs/units/README.md "Corner cases"), where not IEEE's.
    if (r.overflow != OverflowMode::Ieee) extra += ", overflow " + models::schema_string(r.overflow);
    if (r.zero_sign != ZeroSign::Ieee) extra += ", zero_sign " + models::schema_string(r.zero_sign);
    const std::string F = r.fraction_bits == models::DatapathSpec::kExactFractionBits ? "exact" : std::to_string(r.fraction_bits);
    std::printf("  %-17s %s -> %s: k=%d F=%s carry=%d %s %s%s, rounding %s%s%s\n",
                r.instruction.empty() ? "(any)" : r.instruction.c_str(), join(r.input_formats, ",").c_str(),
                join(r.output_formats, ",").c_str(), r.fma_size, F.c_str(), r.carry_bits,
                models::schema_string(r.normalization).c_str(), models::schema_string(r.order).c_str(),
                r.sticky_bit ? " sticky" : "", rounding.c_str(), mins.empty() ? "" : (", min_exponent " + mins).c_str(),
                extra.c_str());
    std::string list;
    for (const auto& e : named)
      if (e.row == ri) list += (list.empty() ? "" : ", ") + instruction_text(e, r);
    if (!list.empty()) std::printf("      shapes: %s\n", list.c_str());
    {
      const std::string path = unit.batch_path(parse_format(r.input_formats[0]), parse_format(r.output_formats[0]), r.instruction);
      std::printf("      batch path: %s\n", path.c_str());
      if (path == "fma-chain")  // gemm runs the chains in SIMD lanes where they fuse (sim fma_lanes.hpp)
        std::printf("      gemm path: %s\n", fma_lanes::gemm_path_label(r.output_formats[0] == "fp64").c_str());
    }
    if (r.mixed_inputs && r.input_formats.size() > 1) {  // the mixed pairs, grouped by their batch path
      std::vector<std::string> paths;
      std::vector<std::vector<std::string>> pairs;
      for (const auto& ia : r.input_formats)
        for (const auto& ib : r.input_formats)
          if (ia != ib) {
            const std::string path = unit.batch_path(parse_format(ia), parse_format(ib),
                                                     parse_format(r.output_formats[0]), r.instruction);
            std::size_t p = 0;
            while (p < paths.size() && paths[p] != path) ++p;
            if (p == paths.size()) paths.push_back(path), pairs.emplace_back();
            pairs[p].push_back(ia + " x " + ib);
          }
      for (std::size_t p = 0; p < paths.size(); ++p)
        std::printf("      mixed a x b %s: batch path: %s\n", join(pairs[p]).c_str(), paths[p].c_str());
    }
    if (evidence) std::printf("      evidence: %s\n", r.evidence.c_str());
  }
}

}  // namespace

int cmd_units(const Args& args) {
  ArgParser p("units",
              "list the built-in tensor-core units and their datapath rows (one per instruction and "
              "format set; the first row for a format pair is its default)");
  p.flag("json", "print a JSON array of units, each {name, architecture, aliases, datapaths: [rows in the "
                 "user-unit schema with instruction and evidence]}");
  p.option("unit", "show only this unit (name, alias or architecture)", "name");
  p.flag("evidence", "also print each row's evidence (always included with --json)");
  p.flag("instructions", "list every instruction of each unit by name with its m x n x k, blocks, formats and "
                         "serving row (with --json: an array of {unit, name, row_instruction, input_formats, "
                         "output_formats, m, n, k, blocks, block_fma_products})");
  const auto a = p.parse(args);
  if (a.help()) return p.print_help();

  std::vector<const models::Unit*> units;
  if (a.has("unit")) {
    try {
      units.push_back(&models::builtin_unit(a.get("unit")));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("--unit: ") + e.what());
    }
  } else {
    for (const auto& s : models::builtin_unit_specs()) units.push_back(&models::builtin_unit(s.name));
  }
  if (a.has("instructions")) return print_instructions(units, a.has("json"));
  if (a.has("json")) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto* u : units) {
      nlohmann::json j = models::to_json(u->spec());
      // Informational (ignored when the JSON is read back as a unit): how dot_batch and gemm
      // evaluate each format pair of the row (Unit::batch_path), and dot_batch_planar.
      for (std::size_t r = 0; r < u->spec().datapaths.size(); ++r) {
        const models::DatapathSpec& row = u->spec().datapaths[r];
        nlohmann::json paths = nlohmann::json::object(), planar = nlohmann::json::object();
        for (const auto& in : row.input_formats)
          for (const auto& out : row.output_formats) {
            const Format &fi = parse_format(in), &fo = parse_format(out);
            paths[in + "->" + out] = u->batch_path(fi, fo, row.instruction);
            // dot_batch_planar (16-bit patterns, product-major), where the input fits.
            if (fi.width <= 16)
              planar[in + "->" + out] = u->batch_path_planar(fi, fo, row.instruction);
          }
        if (row.mixed_inputs)  // mixed pairs as "<a> x <b>-><out>"
          for (const auto& ia : row.input_formats)
            for (const auto& ib : row.input_formats)
              for (const auto& out : row.output_formats)
                if (ia != ib)
                  paths[ia + " x " + ib + "->" + out] =
                      u->batch_path(parse_format(ia), parse_format(ib), parse_format(out), row.instruction);
        j["datapaths"][r]["batch_paths"] = paths;
        if (!planar.empty()) j["datapaths"][r]["planar_paths"] = planar;
      }
      arr.push_back(j);
    }
    print_json(arr, 2);
    return 0;
  }
  for (std::size_t i = 0; i < units.size(); ++i) {
    if (i) std::printf("\n");
    print_unit(*units[i], a.has("evidence"));
  }
  return 0;
}

}  // namespace tcsim::cli
