// User-defined units from JSON, and built-in units written as JSON.
//
// A row (one datapath) is an object with exactly these keys (all required unless marked):
//   "name": "my-unit", "input_formats": ["fp16", ...], "output_formats": ["fp32", ...],
//   "fma_size": 8, "fraction_bits": 24, "carry_bits": 3,
//   "alignment_rounding": "rz|rd|ru|rne", "sticky_bit": false,
//   "normalization": "deferred|per-step", "order": "largest-first|sequential|pairwise",
//   "c_placement": "aligned|late|after", "final_rounding": {"fp32": "rz", "fp16": "rne"},
//   "min_exponent": null | -132 | {"fp32": -132, "fp16": -20}          (optional),
//   "subnormal_inputs": true, "subnormal_outputs": true,
// and the optional keys "instruction", "architecture", "aliases", "evidence", "shapes",
// "nan_pattern" ({"fp32": "0x7fffffff"}), "result_fraction_bits" ({"fp32": 13}: the
// normalized result keeps only that many fraction bits), "late_products_rounding"
// ("rne": with c_placement late, the products' sum is rounded into the output format
// before c is added), "k_split" ("consecutive" | "pairs-mod4"), "c_entry" ("accumulator" |
// "final-add"; see DatapathSpec), "final_add_rounding" (final-add only: "rne" or
// {"fp32": "rne", "fp16": "rne"}; missing outputs are rne), "block_scale" ({"scale_formats": ["ue8m0"],
// "block_sizes": [32], "group_size": 0}), and the AMD keys (docs/units/amd.md; DatapathSpec):
// "fraction_bits": "exact", "c_placement": "after" with "after_add" {"sum_fraction_bits": 32,
// "c_fraction_bits": 24, "rounding": "rd", "renormalize_fraction_bits": 31 | null,
// "drop_c_below": 25 | null}, "product_groups" (1 | 2: even/odd, with "after"),
// "input_fraction_bits" (10: tf32 truncation), "flushed_input_sign" ("keep" | "positive"),
// "product_rounding" (per-step: "rne"), "product_overflow" ("exact" | "inf").
// A unit is either one row object, or {"name", "architecture"?, "aliases"?,
// "datapaths": [row, ...]} (rows may then omit "name"; if present it must match).
// A file may also hold an array of units (what `tcsim units --json` prints); the
// loaders then want exactly one unit unless told a name.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "tcsim/models/unit.hpp"

namespace tcsim::models {

// Parses one unit; `source` (a file name or "<string>") prefixes every error, which
// names the key, what was found and what is allowed. Does not validate formats etc.
// beyond types and vocabularies; Unit's constructor does the rest.
UnitSpec parse_unit_json(const nlohmann::json& j, std::string_view source = "<json>");
UnitSpec load_unit_json(const std::string& path);
// Unit form: {"name", "architecture", "aliases", "datapaths": [rows in the schema,
// each with "name", "instruction", "evidence", ...]}.
nlohmann::json to_json(const UnitSpec& spec);
nlohmann::json to_json(const DatapathSpec& row, std::string_view unit_name);

// The keys a row object may have (required first), for help texts.
const std::vector<std::string>& row_json_keys();

}  // namespace tcsim::models
