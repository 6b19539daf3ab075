// class Unit: the schema vocabulary, the adder configuration of a row, validation of the
// rows and their caches, row lookup, the built-in units. Evaluation: unit_dot.cpp; shapes
// and mma: unit_shapes.cpp.
#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "unit_groups.hpp"
#include "unit_impl.hpp"

namespace tcsim::models {

namespace detail {

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& ch : r) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return r;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

void push_unique(std::vector<std::string>& v, const std::string& s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

}  // namespace detail

using detail::join;
using detail::lower;
using detail::pair_text;
using detail::push_unique;

// ------------------------------------------------------------------ schema vocabulary

std::string schema_string(Rounding r) { return to_string(r); }  // sim's names: rne, rz, ...
std::string schema_string(Normalization n) { return n == Normalization::Deferred ? "deferred" : "per-step"; }
std::string schema_string(AccumulationOrder o) {
  switch (o) {
    case AccumulationOrder::LargestFirst: return "largest-first";
    case AccumulationOrder::Sequential: return "sequential";
    case AccumulationOrder::Pairwise: return "pairwise";
  }
  return "?";
}
std::string schema_string(CPlacement c) {
  return c == CPlacement::Aligned ? "aligned" : c == CPlacement::Late ? "late" : "after";
}
std::string schema_string(OverflowMode m) { return to_string(m); }
std::string schema_string(ZeroSign z) { return to_string(z); }
std::string schema_string(KSplit k) { return k == KSplit::Consecutive ? "consecutive" : "pairs-mod4"; }
std::string schema_string(CEntry c) { return c == CEntry::Accumulator ? "accumulator" : "final-add"; }

// ------------------------------------------------------------------ adder configuration

namespace {

template <class V>
const V* find_by_format(const std::map<std::string, V>& m, const Format& f) {
  for (const auto& [key, value] : m) {
    try {
      if (parse_format(key) == f) return &value;
    } catch (const std::invalid_argument&) {
    }
  }
  return nullptr;
}

}  // namespace

Format result_format(const Format& out, int fraction_bits) {
  return make_format(out.name + "r" + std::to_string(fraction_bits), fraction_bits + 1, out.emin, out.emax,
                     out.subnormals, out.infinities, out.nan, out.saturate, out.is_signed);
}

namespace {
// The narrower result format of a row for `out`, if any.
std::optional<Format> narrow_format(const DatapathSpec& row, const Format& out);
}  // namespace

AdderConfig make_adder_config(const DatapathSpec& row, const Format& in, const Format& out) {
  return make_adder_config(row, in, in, out);
}

AdderConfig make_adder_config(const DatapathSpec& row, const Format& in_a, const Format& in_b, const Format& out) {
  AdderConfig c;
  c.a_format = in_a;
  c.b_format = in_b;
  c.c_format = out;
  const std::optional<Format> narrow = narrow_format(row, out);
  c.out_format = narrow ? *narrow : out;
  c.fraction_bits = row.fraction_bits;
  c.after = row.after_add;
  c.product_groups = row.product_groups;
  c.input_fraction_bits = row.input_fraction_bits;
  c.flush_inputs_positive = row.flush_inputs_positive;
  c.product_rounding = row.product_rounding;
  c.product_overflow_inf = row.product_overflow_inf;
  c.carry_bits = row.carry_bits;
  c.alignment_rounding = row.alignment_rounding;
  c.sticky_bit = row.sticky_bit;
  if (const int* m = find_by_format(row.min_exponent, out)) c.min_exponent = *m;
  c.product_exponent = ProductExponent::Unnormalized;
  c.c_placement = row.c_placement;
  c.late_products_rounding = row.late_products_rounding;
  c.normalization = row.normalization;
  c.order = row.order;
  const Rounding* r = find_by_format(row.final_rounding, out);
  if (!r) throw std::invalid_argument("final_rounding: no entry for output format '" + out.name + "'");
  c.final_rounding = *r;
  c.overflow = row.overflow;
  c.zero_sign = row.zero_sign;
  c.subnormal_inputs = row.subnormal_inputs;
  c.subnormal_outputs = row.subnormal_outputs;
  if (row.fraction_bits == DatapathSpec::kExactFractionBits) c.fraction_bits = c.exact_fraction_bits();
  if (narrow) return c;  // NaN: the narrow format's canonical NaN, re-encoded by the Unit
  if (const std::uint64_t* p = find_by_format(row.nan_pattern, out)) c.nan_pattern = *p;
  else if (out == formats::fp32()) c.nan_pattern = 0x7fffffffu;
  else if (out == formats::fp16()) c.nan_pattern = 0x7fffu;
  return c;
}

RowIntRange row_int_range(std::string_view key) {
  if (key == "fma_size") return {1, 65536};
  if (key == "fraction_bits") return {0, AdderConfig::kMaxFractionBits};
  if (key == "carry_bits") return {0, AdderConfig::kMaxCarryBits};
  throw std::logic_error("row_int_range: '" + std::string(key) + "' is not an integer key of a row");
}

std::string row_int_refusal(std::string_view key, long long value) {
  const RowIntRange r = row_int_range(key);
  if (value >= r.lo && value <= r.hi) return "";
  if (key == "fraction_bits" && value == DatapathSpec::kExactFractionBits) return "";  // "exact" (CDNA1)
  return std::to_string(value) + " is out of range; allowed: " + std::to_string(r.lo) + ".." + std::to_string(r.hi);
}

namespace {
std::optional<Format> narrow_format(const DatapathSpec& row, const Format& out) {
  const int* bits = find_by_format(row.result_fraction_bits, out);
  if (!bits || *bits >= out.fraction_bits) return std::nullopt;
  return result_format(out, *bits);
}

std::uint64_t nan_pattern_of(const DatapathSpec& row, const Format& out) {
  if (const std::uint64_t* p = find_by_format(row.nan_pattern, out)) return *p;
  if (out == formats::fp32()) return 0x7fffffffu;
  if (out == formats::fp16()) return 0x7fffu;
  return out.canonical_nan();
}
}  // namespace

Unit::~Unit() = default;
Unit::Unit(Unit&&) noexcept = default;
Unit& Unit::operator=(Unit&&) noexcept = default;

Unit::Unit(UnitSpec spec) : spec_(std::move(spec)), impl_(std::make_unique<Impl>()) {
  if (spec_.name.empty()) throw std::invalid_argument("unit: name must not be empty");
  const std::string unit_where = "unit '" + spec_.name + "'";
  if (spec_.datapaths.empty())
    throw std::invalid_argument(unit_where + ": datapaths must hold at least one row");
  for (std::size_t ri = 0; ri < spec_.datapaths.size(); ++ri) {
    DatapathSpec& row = spec_.datapaths[ri];
    const std::string where = unit_where + " datapath " + std::to_string(ri) +
                              (row.instruction.empty() ? "" : " (instruction '" + row.instruction + "')");
    auto fail = [&](const std::string& field, const std::string& what) {
      throw std::invalid_argument(where + ": " + field + ": " + what);
    };
    Impl::Row r;
    // Formats (canonical names are written back into the stored spec).
    auto formats_of = [&](std::vector<std::string>& names, const char* field) {
      std::vector<Format> fs;
      if (names.empty()) fail(field, "must list at least one format; allowed: " + builtin_format_names());
      for (auto& n : names) {
        try {
          fs.push_back(parse_format(n, field));
        } catch (const std::invalid_argument& e) {
          fail(field, e.what());
        }
        n = fs.back().name;
        if (std::count(fs.begin(), fs.end(), fs.back()) > 1) fail(field, "'" + n + "' is listed twice");
      }
      return fs;
    };
    r.ins = formats_of(row.input_formats, "input_formats");
    r.outs = formats_of(row.output_formats, "output_formats");
    for (const auto& [key, value] : {std::pair<const char*, int>{"fma_size", row.fma_size},
                                      {"fraction_bits", row.fraction_bits}, {"carry_bits", row.carry_bits}})
      if (const std::string why = row_int_refusal(key, value); !why.empty()) fail(key, why);
    switch (row.alignment_rounding) {
      case Rounding::TowardZero: case Rounding::Down: case Rounding::Up: case Rounding::NearestEven: break;
      default: fail("alignment_rounding", "'" + schema_string(row.alignment_rounding) + "' is not allowed; allowed: rz, rd, ru, rne");
    }
    // Per-output maps: keys must be output formats; final_rounding must cover all.
    auto canon_keys = [&](auto& m, const char* field) {
      std::remove_reference_t<decltype(m)> out;
      for (auto& [key, value] : m) {
        Format f;
        try {
          f = parse_format(key, field);
        } catch (const std::invalid_argument& e) {
          fail(field, e.what());
        }
        if (std::find(r.outs.begin(), r.outs.end(), f) == r.outs.end())
          fail(field, "'" + key + "' is not one of the output_formats (" + join(row.output_formats) + ")");
        out[f.name] = value;
      }
      m = std::move(out);
    };
    canon_keys(row.final_rounding, "final_rounding");
    canon_keys(row.final_add_rounding, "final_add_rounding");
    canon_keys(row.min_exponent, "min_exponent");
    canon_keys(row.nan_pattern, "nan_pattern");
    canon_keys(row.result_fraction_bits, "result_fraction_bits");
    for (const auto& [key, value] : row.result_fraction_bits) {
      const Format& f = parse_format(key);
      const int lowest = f.nan == NanEncoding::Ieee ? 1 : 0;  // an IEEE NaN needs a fraction bit
      if (value < lowest || value > f.fraction_bits)
        fail("result_fraction_bits", std::to_string(value) + " for '" + key + "' is out of range; allowed: " +
                                         std::to_string(lowest) + ".." + std::to_string(f.fraction_bits));
    }
    for (const auto& o : r.outs)
      if (!o.has_nan() && !row.nan_pattern.count(o.name))
        fail("output_formats", "'" + o.name + "' has no NaN, which the unit's results need (NaN operands, Inf - Inf, "
                               "Inf * 0); allowed: output formats with a NaN (fp64, fp32, fp16, bf16, e4m3, e5m2, ...)");
    for (const auto& o : r.outs) {
      r.narrow.push_back(narrow_format(row, o));
      r.nan_out.push_back(nan_pattern_of(row, o));
    }
    r.overflow = row.overflow;
    for (const auto& o : r.outs) {
      auto it = row.final_rounding.find(o.name);
      if (it == row.final_rounding.end())
        fail("final_rounding", "no entry for output format '" + o.name + "'; allowed values: rne, rz, ru, rd, ro");
      if (it->second == Rounding::Stochastic)
        fail("final_rounding", "'sr' is not allowed for '" + o.name + "'; allowed: rne, rz, ru, rd, ro");
    }
    if (row.c_entry == CEntry::FinalAdd) {
      for (const auto& o : r.outs) row.final_add_rounding.try_emplace(o.name, Rounding::NearestEven);
      for (const auto& [key, mode] : row.final_add_rounding)
        if (mode == Rounding::Stochastic)
          fail("final_add_rounding", "'sr' is not allowed for '" + key + "'; allowed: rne, rz, ru, rd, ro");
    } else if (!row.final_add_rounding.empty()) {
      fail("final_add_rounding", "is only meaningful with c_entry 'final-add' (c_entry is '" +
                                     schema_string(row.c_entry) + "')");
    }
    for (const auto& [key, value] : row.min_exponent)
      if (value < -100000 || value > 100000)
        fail("min_exponent", std::to_string(value) + " for '" + key + "' is out of range; allowed: -100000..100000");
    for (const auto& s : row.shapes) {
      try {
        r.shapes.push_back(parse_shape_pattern(s));
      } catch (const std::invalid_argument& e) {
        fail("shapes", e.what());
      }
      ShapePattern& added = r.shapes.back();
      if (!added.input_formats_b.empty() && !row.mixed_inputs)
        fail("shapes", "'" + s + "' names a pair of input formats (a*b), which needs mixed_inputs");
      for (auto* names : {&added.input_formats, &added.input_formats_b})
      for (auto& name : *names) {  // ":<in>,...": canonical, and the row's
        Format f;
        try {
          f = parse_format(name, "shapes");
        } catch (const std::invalid_argument& e) {
          fail("shapes", e.what());
        }
        if (std::find(r.ins.begin(), r.ins.end(), f) == r.ins.end())
          fail("shapes", "'" + s + "' names input format '" + name + "', which is not one of the input_formats (" +
                             join(row.input_formats) + ")");
        name = f.name;
      }
      push_unique(r.shape_instructions, r.shapes.back().instruction.empty() ? row.instruction
                                                                             : r.shapes.back().instruction);
    }
    if (row.block_scale) {
      const BlockScaleSpec& bs = *row.block_scale;
      if (bs.scale_formats.empty()) fail("block_scale.scale_formats", "must list at least one format (ue8m0, ue4m3)");
      for (const auto& n : bs.scale_formats) {
        try {
          r.scale_formats.push_back(parse_format(n, "block_scale.scale_formats"));
        } catch (const std::invalid_argument& e) {
          fail("block_scale.scale_formats", e.what());
        }
      }
      if (bs.block_sizes.empty()) fail("block_scale.block_sizes", "must list at least one block size");
      for (int b : bs.block_sizes) {
        if (b < 1 || row.fma_size % b != 0)
          fail("block_scale.block_sizes", std::to_string(b) + " must be positive and divide fma_size " +
                                              std::to_string(row.fma_size));
        if (bs.group_size > 0 && b % bs.group_size != 0)
          fail("block_scale.group_size", std::to_string(bs.group_size) + " must divide every block size (" +
                                             std::to_string(b) + ")");
      }
      if (bs.group_size < 0) fail("block_scale.group_size", "must be >= 0 (0: no groups)");
      if (row.normalization != Normalization::Deferred)
        fail("normalization", "block-scaled rows support only 'deferred'");
      if (row.c_placement != CPlacement::Aligned)
        fail("c_placement", "block-scaled rows support only 'aligned'");
      if (row.k_split != KSplit::Consecutive) fail("k_split", "block-scaled rows support only 'consecutive'");
      if (row.product_groups != 1 || row.input_fraction_bits || row.flush_inputs_positive || row.product_rounding ||
          row.product_overflow_inf || row.fraction_bits == DatapathSpec::kExactFractionBits)
        fail("block_scale", "block-scaled rows do not support product_groups, input_fraction_bits, flushed_input_sign, "
                            "product_rounding, product_overflow or fraction_bits 'exact'");
      if (row.c_entry != CEntry::Accumulator) fail("c_entry", "block-scaled rows support only 'accumulator'");
    }
    if (row.k_split == KSplit::PairsMod4 && row.fma_size % 2 != 0)
      fail("k_split", "'pairs-mod4' needs an even fma_size, got " + std::to_string(row.fma_size));
    r.mixed = row.mixed_inputs;
    // One adder per (input, output), then per mixed pair (a row with mixed_inputs; mixed_index).
    std::vector<std::pair<const Format*, const Format*>> in_pairs;
    for (const auto& in : r.ins) in_pairs.emplace_back(&in, &in);
    if (row.mixed_inputs)
      for (const auto& ia : r.ins)
        for (const auto& ib : r.ins)
          if (!(ia == ib)) in_pairs.emplace_back(&ia, &ib);
    for (const auto& [ina, inb] : in_pairs)
      for (const auto& out : r.outs) {
        const Format &in = *ina, &in_b = *inb;
        try {
          r.adders.emplace_back(make_adder_config(row, in, in_b, out));
        } catch (const std::invalid_argument& e) {
          fail(in == in_b ? in.name + "->" + out.name : in.name + " x " + in_b.name + "->" + out.name, e.what());
        }
        const AdderConfig& cfg = r.adders.back().config();
        // Block-scaled rows without scales (dot, dot_batch, gemm: every scale 1): a row without
        // groups is then the plain block FMA of its adder, so its kernel serves it; a row with
        // group sums has its own lanes (BlockKernel::run_row_groups, gemm only).
        const std::size_t k = static_cast<std::size_t>(row.fma_size);
        const int groups = row.block_scale ? row.block_scale->group_size : 0;
        std::optional<std::string> why = block_kernel_unsupported(cfg, k);
        std::shared_ptr<const BlockKernel> group_kernel;
        if (!why && groups > 0) {
          auto gk = std::make_shared<const BlockKernel>(cfg, k);
          if (gk->groups_supported(static_cast<std::size_t>(groups))) group_kernel = std::move(gk);
          else why = "block-scaled row: its group sums are not exact in binary64";
        }
        r.kernels.push_back(why || groups > 0 ? nullptr : std::make_shared<const BlockKernel>(cfg, k));
        r.group_kernels.push_back(std::move(group_kernel));
        r.kernel_refusals.push_back(why.value_or(""));
        r.fma_chains.push_back(!row.block_scale && detail::is_fma_chain(cfg, row));
        const bool tree = why && !row.block_scale && row.c_entry == CEntry::Accumulator &&
                          row.k_split == KSplit::Consecutive &&
                          !binary32_tree_unsupported(cfg, static_cast<std::size_t>(row.fma_size));
        r.trees.push_back(tree ? std::make_shared<const Binary32TreeKernel>(cfg, static_cast<std::size_t>(row.fma_size))
                               : nullptr);
        const bool after = why && !row.block_scale && row.c_entry == CEntry::Accumulator &&
                           row.k_split == KSplit::Consecutive &&
                           !after_add_unsupported(cfg, static_cast<std::size_t>(row.fma_size));
        r.afters.push_back(after ? std::make_shared<const AfterAddKernel>(cfg, static_cast<std::size_t>(row.fma_size))
                                 : nullptr);
        const bool exact = why && !row.block_scale && row.c_entry == CEntry::Accumulator &&
                           row.k_split == KSplit::Consecutive &&
                           !exact_block_unsupported(cfg, static_cast<std::size_t>(row.fma_size));
        r.exacts.push_back(exact ? std::make_shared<const ExactBlockKernel>(cfg, static_cast<std::size_t>(row.fma_size))
                                 : nullptr);
      }
    // Two rows with the same pair and instruction would make the second unreachable.
    for (std::size_t pj = 0; pj < ri; ++pj) {
      const auto& other = spec_.datapaths[pj];
      if (other.instruction != row.instruction) continue;
      for (const auto& in : r.ins)
        for (const auto& out : r.outs)
          if (impl_->rows[pj].has(in, out))
            fail("instruction", "datapath " + std::to_string(pj) + " already serves " + pair_text(in, out) +
                                    " with instruction '" + row.instruction +
                                    "'; give one of them another instruction name");
    }
    impl_->rows.push_back(std::move(r));
  }
}

std::vector<std::string> Unit::format_pairs() const {
  std::vector<std::string> pairs;
  for (const auto& r : impl_->rows)
    for (const auto& in : r.ins)
      for (const auto& out : r.outs) push_unique(pairs, pair_text(in, out));
  return pairs;
}

// Unit::instructions, datapath_index and the resolution of instruction names: unit_instructions.cpp.

std::vector<std::string> Unit::mixed_pairs() const {
  std::vector<std::string> pairs;
  for (const auto& r : impl_->rows)
    if (r.mixed)
      for (const auto& a : r.ins)
        for (const auto& b : r.ins)
          if (!(a == b))
            for (const auto& out : r.outs) push_unique(pairs, a.name + " x " + b.name + " -> " + out.name);
  return pairs;
}

const DatapathSpec& Unit::datapath(const Format& in, const Format& out, std::string_view instruction) const {
  return spec_.datapaths[datapath_index(in, out, instruction)];
}

const DatapathSpec& Unit::datapath(const Format& in_a, const Format& in_b, const Format& out,
                                   std::string_view instruction) const {
  return spec_.datapaths[datapath_index(in_a, in_b, out, instruction)];
}

const FixedPointAdder& Unit::adder(const Format& in, const Format& out, std::string_view instruction) const {
  return impl_->rows[datapath_index(in, out, instruction)].adder(in, out);
}

const FixedPointAdder& Unit::adder(const Format& in_a, const Format& in_b, const Format& out,
                                   std::string_view instruction) const {
  return impl_->rows[datapath_index(in_a, in_b, out, instruction)].adder(in_a, in_b, out);
}

std::string Unit::batch_path(const Format& in, const Format& out, std::string_view instruction) const {
  return batch_path(in, in, out, instruction);
}

std::string Unit::batch_path(const Format& in_a, const Format& in_b, const Format& out,
                             std::string_view instruction) const {
  const std::size_t i = datapath_index(in_a, in_b, out, instruction);
  const auto& r = impl_->rows[i];
  const std::size_t p = r.pair_index(in_a, in_b, out);
  if (r.kernels[p]) return "kernel";
  // Group sums (mxf4nvf4, every scale 1): dot_batch's binary32 lanes where they run (issue 25),
  // else the binary64 ones. gemm runs the binary64 group lanes and gemm_scaled the group tiles
  // (the CLI's GEMM lines say so: apps/src/bench_gemm_scaled.hpp, gemm_group_path).
  if (r.group_kernels[p])
    return detail::groups_planar_run(*r.group_kernels[p], r.adder(in_a, in_b, out).config(),
                                     static_cast<std::size_t>(spec_.datapaths[i].block_scale->group_size))
               ? "kernel (group sums, binary32 lanes)"
               : "kernel (group sums)";
  if (r.trees[p]) return "binary32-tree";
  if (r.afters[p]) return r.afters[p]->lanes_supported() ? "after-add (lanes)" : "after-add";
  if (r.exacts[p]) return r.exacts[p]->lanes_supported() ? "exact-block (lanes)" : "exact-block";
  return r.fma_chains[p] ? "fma-chain" : "reference: " + r.kernel_refusals[p];
}

std::string Unit::batch_path_planar(const Format& in, const Format& out, std::string_view instruction) const {
  return batch_path_planar(in, in, out, instruction);
}

std::string Unit::batch_path_planar(const Format& in_a, const Format& in_b, const Format& out,
                                    std::string_view instruction) const {
  const std::size_t i = datapath_index(in_a, in_b, out, instruction);
  const auto& r = impl_->rows[i];
  const BlockKernel* kernel = r.kernels[r.pair_index(in_a, in_b, out)].get();
  if (kernel && kernel->planar_supported() && spec_.datapaths[i].k_split == KSplit::PairsMod4)
    return "kernel (planar, pairs-mod4 rows permuted per instruction)";
  if (kernel && kernel->planar_supported() && spec_.datapaths[i].k_split != KSplit::PairsMod4) return "kernel (planar)";
  // The AMD lanes read the product-major patterns themselves (dot_batch_planar, issue 25).
  const std::size_t pair = r.pair_index(in_a, in_b, out);
  if (!kernel && r.trees[pair]) return "binary32-tree (lanes, planar)";
  if (!kernel && r.afters[pair] && r.afters[pair]->lanes_supported()) return "after-add (lanes, planar)";
  if (!kernel && !r.afters[pair] && r.exacts[pair] && r.exacts[pair]->lanes_supported()) return "exact-block (lanes, planar)";
  if (!kernel && in_a == in_b && r.group_kernels[pair])
    return detail::groups_planar_run(*r.group_kernels[pair], r.adder(in_a, in_b, out).config(),
                                     static_cast<std::size_t>(spec_.datapaths[i].block_scale->group_size))
               ? "kernel (group sums, binary32 lanes, planar)"
               : "kernel (group sums, planar)";
  return "regrouped for dot_batch: " + batch_path(in_a, in_b, out, instruction);
}

// ------------------------------------------------------------------ built-in lookup

namespace {
const std::vector<Unit>& builtin_units() {
  static const std::vector<Unit> units = [] {
    std::vector<Unit> v;
    for (const auto& s : builtin_unit_specs()) v.emplace_back(s);
    return v;
  }();
  return units;
}
}  // namespace

std::string builtin_unit_names() {
  std::string s;
  for (const auto& u : builtin_unit_specs()) {
    std::vector<std::string> other = u.aliases;
    if (std::find(other.begin(), other.end(), u.architecture) == other.end()) other.insert(other.begin(), u.architecture);
    s += (s.empty() ? "" : ", ") + u.name + " (" + join(other) + ")";
  }
  return s;
}

const Unit& builtin_unit(std::string_view name) {
  const std::string want = lower(name);
  for (const auto& u : builtin_units()) {
    const auto& s = u.spec();
    if (lower(s.name) == want || lower(s.architecture) == want) return u;
    for (const auto& a : s.aliases)
      if (lower(a) == want) return u;
  }
  throw std::invalid_argument("unknown unit '" + std::string(name) + "'; built-in units: " + builtin_unit_names());
}

}  // namespace tcsim::models
