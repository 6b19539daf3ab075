// Instruction names: which row (and which instruction shape, hence which K per instruction)
// an `instruction` argument selects. Names are table data: a row's instruction, the family
// of its shapes ("mma.sync" of "mma.sync.m16n8k16"), a full shape name, or an ISA name that
// a shape carries as its family ("v_mfma_f32_32x32x8_f16.m32n32k8:fp16").
#include <algorithm>
#include <stdexcept>

#include "unit_impl.hpp"

namespace tcsim::models {

using detail::join;
using detail::lower;
using detail::push_unique;

namespace {

// AMD ISA names are matched loosely: any case, "v_" optional, underscores ignored (CDNA1/2
// write v_mfma_f32_32x32x8f16, CDNA3 v_mfma_f32_32x32x8_f16). Table names start with "v_".
bool is_isa_name(std::string_view table_name) { return lower(table_name.substr(0, 2)) == "v_"; }

std::string isa_key(std::string_view name) {
  std::string s = lower(name);
  if (s.rfind("v_", 0) == 0) s.erase(0, 2);
  s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
  return s;
}

bool same_name(std::string_view table_name, std::string_view asked) {
  if (table_name == asked) return true;
  return is_isa_name(table_name) && !asked.empty() && isa_key(table_name) == isa_key(asked);
}

MmaShape to_shape(const ShapePattern& p, const std::string& family) {
  return MmaShape{family, p.m, p.n, p.k, p.blocks};
}

// A shape serves a x b when it serves both operands' formats; a shape naming a pair
// (":<a>*<b>", v_mfma_f32_16x16x32_fp8_bf8) serves that pair only.
bool serves_both(const ShapePattern& p, const Format& in_a, const Format& in_b) {
  if (!p.input_formats_b.empty()) return p.input_formats[0] == in_a.name && p.input_formats_b[0] == in_b.name;
  return detail::shape_serves(p, in_a) && (in_a == in_b || detail::shape_serves(p, in_b));
}

// The input formats a shape names, as listed: "fp16", "bf16" or one pair "e4m3fnuz x e5m2fnuz".
std::vector<std::string> shape_inputs(const ShapePattern& p, const std::vector<std::string>& row_inputs) {
  if (!p.input_formats_b.empty()) return {p.input_formats[0] + " x " + p.input_formats_b[0]};
  return p.input_formats.empty() ? row_inputs : p.input_formats;
}

}  // namespace

std::vector<std::string> Unit::instructions(const Format& in, const Format& out) const {
  return instructions(in, in, out);
}

std::vector<std::string> Unit::instructions(const Format& in_a, const Format& in_b, const Format& out) const {
  std::vector<std::string> v;
  for (std::size_t i = 0; i < impl_->rows.size(); ++i) {
    const auto& r = impl_->rows[i];
    if (!r.has(in_a, in_b, out)) continue;
    const auto& row = spec_.datapaths[i];
    if (!row.instruction.empty()) push_unique(v, row.instruction);
    for (const auto& p : r.shapes) {
      const std::string& family = p.instruction.empty() ? row.instruction : p.instruction;
      if (!family.empty() && serves_both(p, in_a, in_b)) push_unique(v, family);
    }
  }
  return v;
}

std::vector<NamedInstruction> Unit::named_instructions() const {
  std::vector<NamedInstruction> v;
  for (std::size_t i = 0; i < impl_->rows.size(); ++i) {
    const auto& row = spec_.datapaths[i];
    for (const auto& p : impl_->rows[i].shapes) {
      NamedInstruction e;
      const std::string& family = p.instruction.empty() ? row.instruction : p.instruction;
      // An ISA name is the instruction; other families are named with their shape.
      e.name = is_isa_name(family) ? family : to_shape(p, family).name();
      if (p.n == 0) e.name = (family.empty() ? "" : family + ".") + p.text.substr(p.text.rfind('.') + 1);
      e.row = i;
      e.input_formats = shape_inputs(p, row.input_formats);
      e.output_formats = row.output_formats;
      e.shape = p;
      v.push_back(std::move(e));
    }
  }
  return v;
}

std::size_t Unit::instruction_k(const InstructionSelection& s) const {
  if (!s.shape) return 0;
  const DatapathSpec& row = spec_.datapaths[s.row];
  if (row.block_scale || row.k_split != KSplit::Consecutive || row.c_entry != CEntry::Accumulator) return 0;
  return static_cast<std::size_t>(s.shape->k);
}

InstructionSelection Unit::select_instruction(const Format& in, const Format& out, std::string_view instruction) const {
  return select_instruction(in, in, out, instruction);
}

InstructionSelection Unit::select_instruction(const Format& in, const Format& in_b, const Format& out,
                                              std::string_view instruction) const {
  const auto& rows = impl_->rows;
  const bool mixed = !(in == in_b);
  // "e4m3 x e5m2" for a mixed pair, else the one format's name.
  const std::string operands = mixed ? in.name + " x " + in_b.name : in.name;
  std::vector<std::size_t> serving;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].has(in, in_b, out)) serving.push_back(i);
  if (serving.empty() && mixed) {
    const auto pairs = mixed_pairs();
    throw std::invalid_argument("unit '" + spec_.name + "' does not support " + operands + " -> " + out.name +
                                (pairs.empty() ? "; it has no mixed-format datapath (a and b share one format)"
                                               : "; mixed pairs (a x b): " + join(pairs)));
  }
  if (serving.empty())
    throw std::invalid_argument("unit '" + spec_.name + "' does not support " + in.name + " -> " + out.name +
                                "; supported: " + join(format_pairs()));
  if (instruction.empty()) {
    // The default: the first row of the pair that needs no scale factors.
    for (std::size_t i : serving)
      if (!spec_.datapaths[i].block_scale) return {i, std::nullopt};
    return {serving.front(), std::nullopt};
  }
  // A row's own instruction: its grouping, no shape.
  for (std::size_t i : serving)
    if (spec_.datapaths[i].instruction == instruction) return {i, std::nullopt};
  // A shape family (generic rows first, as the table's defaults); one shape fixes K.
  for (const bool generic : {true, false})
    for (std::size_t i : serving) {
      const auto& row = spec_.datapaths[i];
      if (row.instruction.empty() != generic) continue;
      std::vector<const ShapePattern*> hits;
      for (const auto& p : rows[i].shapes)
        if (serves_both(p, in, in_b) && same_name(p.instruction.empty() ? row.instruction : p.instruction, instruction))
          hits.push_back(&p);
      if (hits.empty()) continue;
      const std::string& family = hits[0]->instruction.empty() ? row.instruction : hits[0]->instruction;
      if (hits.size() == 1 && hits[0]->n != 0) return {i, to_shape(*hits[0], family)};
      return {i, std::nullopt};
    }
  // A full shape name: "mma.sync.m16n8k16".
  ShapePattern want;
  bool parsed = false;
  try {
    want = parse_shape_pattern(instruction, "instruction");
    parsed = !want.instruction.empty() && want.n != 0;
  } catch (const std::invalid_argument&) {
  }
  if (parsed)
    for (std::size_t i : serving) {
      const auto& row = spec_.datapaths[i];
      for (const auto& p : rows[i].shapes) {
        const std::string& family = p.instruction.empty() ? row.instruction : p.instruction;
        if (serves_both(p, in, in_b) && same_name(family, want.instruction) && p.matches(want.m, want.n, want.k))
          return {i, MmaShape{family, want.m, want.n, want.k, p.blocks}};
      }
    }
  // A name the unit knows for other formats: say which.
  std::vector<std::string> pairs;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = spec_.datapaths[i];
    for (const auto& p : rows[i].shapes) {
      const std::string& family = p.instruction.empty() ? row.instruction : p.instruction;
      if (!same_name(family, instruction) && !(parsed && same_name(family, want.instruction) &&
                                                p.matches(want.m, want.n, want.k)))
        continue;
      for (const auto& fi : shape_inputs(p, row.input_formats))
        for (const auto& fo : row.output_formats) push_unique(pairs, fi + "->" + fo);
    }
    if (row.instruction == instruction)
      for (const auto& fi : row.input_formats)
        for (const auto& fo : row.output_formats) push_unique(pairs, fi + "->" + fo);
  }
  // (ISA names only: the NVIDIA messages keep listing the pair's instructions.)
  const std::string asked = lower(instruction), asked_pair = operands + "->" + out.name;
  if (!pairs.empty() && std::find(pairs.begin(), pairs.end(), asked_pair) == pairs.end() &&
      (asked.rfind("v_", 0) == 0 || asked.rfind("mfma_", 0) == 0))
    throw std::invalid_argument("unit '" + spec_.name + "': instruction '" + std::string(instruction) + "' takes " +
                                join(pairs) + ", not " + asked_pair);
  auto list = instructions(in, in_b, out);
  throw std::invalid_argument("unit '" + spec_.name + "' has no datapath for " + operands + " -> " + out.name +
                              " with instruction '" + std::string(instruction) + "'; instructions for " + operands +
                              " -> " + out.name + ": " + (list.empty() ? std::string("(none named)") : join(list)) +
                              " (or none for the default)");
}

std::size_t Unit::datapath_index(const Format& in, const Format& out, std::string_view instruction) const {
  return select_instruction(in, out, instruction).row;
}

std::size_t Unit::datapath_index(const Format& in_a, const Format& in_b, const Format& out,
                                 std::string_view instruction) const {
  return select_instruction(in_a, in_b, out, instruction).row;
}

}  // namespace tcsim::models
