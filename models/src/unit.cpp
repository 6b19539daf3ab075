// class Unit: validation of the rows, adder cache, row lookup, chaining, shapes, mma.
#include <algorithm>
#include <cctype>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "block_scaled.hpp"
#include "tcsim/models/unit.hpp"
#include "tcsim/sim/codec.hpp"

namespace tcsim::models {

namespace {

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& ch : r) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return r;
}

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

void push_unique(std::vector<std::string>& v, const std::string& s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

std::string pair_text(const Format& in, const Format& out) { return in.name + "->" + out.name; }

int parse_int(std::string_view s, std::size_t& pos) {
  std::size_t start = pos;
  int v = 0;
  while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
    v = v * 10 + (s[pos] - '0');
    if (v > 1000000) return -1;
    ++pos;
  }
  return pos == start ? -1 : v;
}

}  // namespace

// ------------------------------------------------------------------ shapes

std::string MmaShape::name() const {
  std::string mnk = "m" + std::to_string(m) + "n" + std::to_string(n) + "k" + std::to_string(k);
  return instruction.empty() ? mnk : instruction + "." + mnk;
}

bool ShapePattern::matches(int m_, int n_, int k_) const {
  if (m_ != m || k_ != k) return false;
  if (n != 0) return n_ == n;
  return n_ >= n_step && n_ <= n_max && n_ % n_step == 0;
}

ShapePattern parse_shape_pattern(std::string_view text, std::string_view field) {
  auto fail = [&]() -> ShapePattern {
    throw std::invalid_argument(std::string(field) + ": '" + std::string(text) +
                                "' is not a shape; allowed: [<instruction>.]m<M>n<N>k<K> with N a "
                                "number, 'N' (8, 16, ..., 256) or 'N16' (16, 32, ..., 256), e.g. "
                                "mma.sync.m16n8k16, wgmma.m64nNk16");
  };
  ShapePattern p;
  p.text = std::string(text);
  const auto dot = text.rfind('.');
  std::string_view mnk = text;
  if (dot != std::string_view::npos) {
    p.instruction = std::string(text.substr(0, dot));
    mnk = text.substr(dot + 1);
    if (p.instruction.empty()) return fail();
  }
  std::size_t pos = 0;
  if (pos >= mnk.size() || mnk[pos] != 'm') return fail();
  ++pos;
  p.m = parse_int(mnk, pos);
  if (p.m <= 0 || pos >= mnk.size() || mnk[pos] != 'n') return fail();
  ++pos;
  if (pos < mnk.size() && mnk[pos] == 'N') {
    ++pos;
    p.n_step = 8;
    if (pos < mnk.size() && std::isdigit(static_cast<unsigned char>(mnk[pos]))) p.n_step = parse_int(mnk, pos);
    if (p.n_step <= 0) return fail();
    p.n_max = 256;
  } else {
    p.n = parse_int(mnk, pos);
    if (p.n <= 0) return fail();
  }
  if (pos >= mnk.size() || mnk[pos] != 'k') return fail();
  ++pos;
  p.k = parse_int(mnk, pos);
  if (p.k <= 0 || pos != mnk.size()) return fail();
  return p;
}

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
std::string schema_string(CPlacement c) { return c == CPlacement::Aligned ? "aligned" : "late"; }
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
  AdderConfig c;
  c.a_format = in;
  c.b_format = in;
  c.c_format = out;
  const std::optional<Format> narrow = narrow_format(row, out);
  c.out_format = narrow ? *narrow : out;
  c.fraction_bits = row.fraction_bits;
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
  c.overflow = OverflowMode::Ieee;
  c.subnormal_inputs = row.subnormal_inputs;
  c.subnormal_outputs = row.subnormal_outputs;
  if (narrow) return c;  // NaN: the narrow format's canonical NaN, re-encoded by the Unit
  if (const std::uint64_t* p = find_by_format(row.nan_pattern, out)) c.nan_pattern = *p;
  else if (out == formats::fp32()) c.nan_pattern = 0x7fffffffu;
  else if (out == formats::fp16()) c.nan_pattern = 0x7fffu;
  return c;
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

// ------------------------------------------------------------------ Unit

struct Unit::Impl {
  struct Row {
    std::vector<Format> ins, outs;
    std::vector<ShapePattern> shapes;
    std::vector<std::string> shape_instructions;  // unique, in order
    std::vector<FixedPointAdder> adders;          // index i * outs.size() + o
    std::vector<std::optional<Format>> narrow;    // per output: result_fraction_bits format
    std::vector<std::uint64_t> nan_out;           // per output: NaN pattern
    std::vector<Format> scale_formats;
    std::size_t out_index(const Format& out) const {
      return static_cast<std::size_t>(std::find(outs.begin(), outs.end(), out) - outs.begin());
    }
    // A block's result in the output format (re-encoding a narrow result).
    std::uint64_t to_out(std::size_t o, std::uint64_t bits) const {
      if (!narrow[o]) return bits;
      const ExactValue v = decode(*narrow[o], bits);
      if (v.is_nan()) return nan_out[o];
      return round_bits(v, outs[o], Rounding::NearestEven);  // exact
    }
    bool has(const Format& in, const Format& out) const {
      return std::find(ins.begin(), ins.end(), in) != ins.end() &&
             std::find(outs.begin(), outs.end(), out) != outs.end();
    }
    const FixedPointAdder& adder(const Format& in, const Format& out) const {
      const auto i = static_cast<std::size_t>(std::find(ins.begin(), ins.end(), in) - ins.begin());
      const auto o = static_cast<std::size_t>(std::find(outs.begin(), outs.end(), out) - outs.begin());
      return adders[i * outs.size() + o];
    }
  };
  std::vector<Row> rows;
};

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
    if (row.fma_size < 1 || row.fma_size > 65536)
      fail("fma_size", std::to_string(row.fma_size) + " is out of range; allowed: 1..65536");
    if (row.fraction_bits < 0 || row.fraction_bits > AdderConfig::kMaxFractionBits)
      fail("fraction_bits", std::to_string(row.fraction_bits) + " is out of range; allowed: 0.." +
                                std::to_string(AdderConfig::kMaxFractionBits));
    if (row.carry_bits < 0 || row.carry_bits > AdderConfig::kMaxCarryBits)
      fail("carry_bits", std::to_string(row.carry_bits) + " is out of range; allowed: 0.." +
                             std::to_string(AdderConfig::kMaxCarryBits));
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
      if (value < 0 || value > f.fraction_bits)
        fail("result_fraction_bits", std::to_string(value) + " for '" + key + "' is out of range; allowed: 0.." +
                                         std::to_string(f.fraction_bits));
    }
    for (const auto& o : r.outs) {
      r.narrow.push_back(narrow_format(row, o));
      r.nan_out.push_back(nan_pattern_of(row, o));
    }
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
      if (row.c_entry != CEntry::Accumulator) fail("c_entry", "block-scaled rows support only 'accumulator'");
    }
    if (row.k_split == KSplit::PairsMod4 && row.fma_size % 2 != 0)
      fail("k_split", "'pairs-mod4' needs an even fma_size, got " + std::to_string(row.fma_size));
    // One adder per (input, output).
    for (const auto& in : r.ins)
      for (const auto& out : r.outs) {
        try {
          r.adders.emplace_back(make_adder_config(row, in, out));
        } catch (const std::invalid_argument& e) {
          fail(in.name + "->" + out.name, e.what());
        }
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

std::vector<std::string> Unit::instructions(const Format& in, const Format& out) const {
  std::vector<std::string> v;
  for (std::size_t i = 0; i < impl_->rows.size(); ++i) {
    const auto& r = impl_->rows[i];
    if (!r.has(in, out)) continue;
    const auto& row = spec_.datapaths[i];
    if (!row.instruction.empty()) push_unique(v, row.instruction);
    else
      for (const auto& s : r.shape_instructions)
        if (!s.empty()) push_unique(v, s);
  }
  return v;
}

std::size_t Unit::datapath_index(const Format& in, const Format& out, std::string_view instruction) const {
  const auto& rows = impl_->rows;
  std::vector<std::size_t> serving;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].has(in, out)) serving.push_back(i);
  if (serving.empty())
    throw std::invalid_argument("unit '" + spec_.name + "' does not support " + in.name + " -> " + out.name +
                                "; supported: " + join(format_pairs()));
  if (instruction.empty()) {
    // The default: the first row of the pair that needs no scale factors.
    for (std::size_t i : serving)
      if (!spec_.datapaths[i].block_scale) return i;
    return serving.front();
  }
  for (std::size_t i : serving)
    if (spec_.datapaths[i].instruction == instruction) return i;
  for (std::size_t i : serving) {
    if (!spec_.datapaths[i].instruction.empty()) continue;
    const auto& si = rows[i].shape_instructions;
    if (std::find(si.begin(), si.end(), instruction) != si.end()) return i;
  }
  auto list = instructions(in, out);
  std::string text;
  for (std::size_t j = 0; j < list.size(); ++j) text += (j ? ", " : "") + list[j];
  throw std::invalid_argument("unit '" + spec_.name + "' has no datapath for " + in.name + " -> " + out.name +
                              " with instruction '" + std::string(instruction) + "'; instructions for " +
                              in.name + " -> " + out.name + ": " + (text.empty() ? "(none named)" : text) +
                              " (or none for the default)");
}

const DatapathSpec& Unit::datapath(const Format& in, const Format& out, std::string_view instruction) const {
  return spec_.datapaths[datapath_index(in, out, instruction)];
}

const FixedPointAdder& Unit::adder(const Format& in, const Format& out, std::string_view instruction) const {
  return impl_->rows[datapath_index(in, out, instruction)].adder(in, out);
}

namespace {

// ceil(K/k) block FMAs; the last one padded with +0 products; K = 0 runs one block.
// `to_out` re-encodes a block's result in the output format (the next block's c).
template <class ToOut>
std::uint64_t chain(const FixedPointAdder& adder, std::size_t k, std::span<const std::uint64_t> a,
                    std::span<const std::uint64_t> b, std::uint64_t c, const ToOut& to_out) {
  const std::size_t K = a.size();
  if (K == k) return to_out(adder.dot(a, b, c));
  std::size_t pos = 0;
  do {
    const std::size_t len = std::min(k, K - pos);
    if (len == k) {
      c = to_out(adder.dot(a.subspan(pos, k), b.subspan(pos, k), c));
    } else {
      std::vector<std::uint64_t> pa(k, 0), pb(k, 0);
      std::copy_n(a.begin() + static_cast<std::ptrdiff_t>(pos), len, pa.begin());
      std::copy_n(b.begin() + static_cast<std::ptrdiff_t>(pos), len, pb.begin());
      c = to_out(adder.dot(pa, pb, c));
    }
    pos += len;
  } while (pos < K);
  return c;
}

// Reorders one instruction's products for KSplit::PairsMod4 (a.size() <= group = 2k):
// indices with i mod 4 in {0,1} first, then those in {2,3}, each in index order, padded
// with +0 products to `group` (the instruction's K is fixed), so that the two halves always
// fall into two block FMAs of k.
void split_pairs_mod4(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b, std::size_t group,
                      std::vector<std::uint64_t>& pa, std::vector<std::uint64_t>& pb) {
  pa.clear();
  pb.clear();
  for (std::size_t half = 0; half < 2; ++half)
    for (std::size_t j = 0; j < group; ++j)
      if ((j % 4) / 2 == half) {
        pa.push_back(j < a.size() ? a[j] : 0);
        pb.push_back(j < b.size() ? b[j] : 0);
      }
}

// d + c as one IEEE addition in `out` (CEntry::FinalAdd): exact sum, one rounding.
std::uint64_t ieee_add(const Format& out, std::uint64_t d, std::uint64_t c, Rounding mode, std::uint64_t nan) {
  const ExactValue x = decode(out, d), y = decode(out, c);
  ExactValue s = exact_add(x, y);
  if (s.is_nan()) return nan;
  // IEEE 754 6.3: an exact zero sum of operands of different signs is -0 only under RD.
  if (s.is_zero() && !(x.is_zero() && y.is_zero() && x.negative == y.negative))
    s = ExactValue::zero(mode == Rounding::Down);
  RoundingOptions o;
  o.mode = mode;
  o.overflow = OverflowMode::Ieee;
  return round_to_format(s, out, o).bits;
}

void check_lengths(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b) {
  if (a.size() != b.size())
    throw std::invalid_argument("a and b must have the same length (one product per pair), got " +
                                std::to_string(a.size()) + " and " + std::to_string(b.size()));
}

}  // namespace

std::uint64_t Unit::dot(const Format& in, const Format& out, std::span<const std::uint64_t> a,
                        std::span<const std::uint64_t> b, std::uint64_t c, std::string_view instruction) const {
  check_lengths(a, b);
  return dot_in_row(datapath_index(in, out, instruction), in, out, a, b, c);
}

std::uint64_t Unit::dot_in_row(std::size_t i, const Format& in, const Format& out, std::span<const std::uint64_t> a,
                               std::span<const std::uint64_t> b, std::uint64_t c) const {
  const DatapathSpec& row = spec_.datapaths[i];
  if (row.block_scale) {
    // A block-scaled row without scales: every scale is 1.
    const Format& sf = impl_->rows[i].scale_formats.front();
    const int bs = row.block_scale->block_sizes.front();
    const std::size_t nscales = (a.size() + static_cast<std::size_t>(bs) - 1) / static_cast<std::size_t>(bs);
    const std::uint64_t one = round_bits(ExactValue::finite(false, 1, 0), sf, Rounding::NearestEven);
    std::vector<std::uint64_t> s(nscales, one);
    return dot_scaled(in, out, a, b, sf, s, s, c, bs, row.instruction);
  }
  const auto& r = impl_->rows[i];
  const std::size_t o = r.out_index(out);
  const std::size_t k = static_cast<std::size_t>(row.fma_size);
  const FixedPointAdder& adder = r.adder(in, out);
  auto blocks = [&](std::span<const std::uint64_t> x, std::span<const std::uint64_t> y, std::uint64_t acc) {
    return r.narrow[o] ? chain(adder, k, x, y, acc, [&](std::uint64_t v) { return r.to_out(o, v); })
                       : chain(adder, k, x, y, acc, [](std::uint64_t v) { return v; });
  };
  // One instruction: its products (at most `group`) through the blocks from `acc`.
  const std::size_t group = row.k_split == KSplit::PairsMod4 ? 2 * k : k;
  std::vector<std::uint64_t> pa, pb;
  auto instruction_blocks = [&](std::span<const std::uint64_t> x, std::span<const std::uint64_t> y,
                                std::uint64_t acc) {
    if (row.k_split != KSplit::PairsMod4) return blocks(x, y, acc);
    split_pairs_mod4(x, y, group, pa, pb);
    return blocks(pa, pb, acc);
  };
  const std::size_t K = a.size();
  if (row.c_entry == CEntry::Accumulator && row.k_split == KSplit::Consecutive) return blocks(a, b, c);
  // Instructions in sequence (K = 0 runs one); each one's d is the next one's c.
  const Rounding add_mode = row.c_entry == CEntry::FinalAdd ? row.final_add_rounding.at(out.name) : Rounding::NearestEven;
  std::size_t pos = 0;
  do {
    const std::size_t len = std::min(group, K - pos);
    const auto x = a.subspan(pos, len), y = b.subspan(pos, len);
    if (row.c_entry == CEntry::Accumulator) c = instruction_blocks(x, y, c);
    else c = ieee_add(out, instruction_blocks(x, y, out.zero(false)), c, add_mode, r.nan_out[o]);
    pos += len;
  } while (pos < K);
  return c;
}

void Unit::dot_batch(const Format& in, const Format& out, std::size_t n, std::size_t K, const std::uint64_t* a,
                     const std::uint64_t* b, const std::uint64_t* c, std::uint64_t* d,
                     std::string_view instruction, unsigned threads) const {
  const std::size_t i = datapath_index(in, out, instruction);
  auto run = [&](std::size_t lo, std::size_t hi) {
    for (std::size_t e = lo; e < hi; ++e) d[e] = dot_in_row(i, in, out, {a + e * K, K}, {b + e * K, K}, c[e]);
  };
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  if (threads <= 1 || n < 64) {
    run(0, n);
    return;
  }
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, n / 32));
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(threads);
  const std::size_t chunk = (n + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t) {
    const std::size_t lo = t * chunk, hi = std::min(n, lo + chunk);
    pool.emplace_back([&, t, lo, hi] {
      try {
        run(lo, hi);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  }
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

std::vector<std::string> Unit::shapes(const Format& in, const Format& out, std::string_view instruction) const {
  std::vector<std::string> v;
  for (std::size_t i = 0; i < impl_->rows.size(); ++i) {
    const auto& r = impl_->rows[i];
    if (!r.has(in, out)) continue;
    for (const auto& p : r.shapes) {
      const std::string& pi = p.instruction.empty() ? spec_.datapaths[i].instruction : p.instruction;
      if (!instruction.empty() && pi != instruction && spec_.datapaths[i].instruction != instruction) continue;
      push_unique(v, p.text);
    }
  }
  return v;
}

MmaShape Unit::resolve_shape(const Format& in, const Format& out, std::string_view shape,
                             std::string_view instruction) const {
  const ShapePattern want = parse_shape_pattern(shape, "shape");
  if (want.n == 0) throw std::invalid_argument("shape: '" + std::string(shape) + "' must give N as a number");
  if (!want.instruction.empty() && !instruction.empty() && want.instruction != instruction)
    throw std::invalid_argument("shape '" + std::string(shape) + "' names instruction '" + want.instruction +
                                "' but instruction '" + std::string(instruction) + "' was asked for");
  const std::string_view instr = want.instruction.empty() ? instruction : std::string_view(want.instruction);
  (void)datapath_index(in, out);  // unsupported pair: the format error first
  for (std::size_t i = 0; i < impl_->rows.size(); ++i) {
    const auto& r = impl_->rows[i];
    if (!r.has(in, out)) continue;
    const auto& row = spec_.datapaths[i];
    for (const auto& p : r.shapes) {
      const std::string& pi = p.instruction.empty() ? row.instruction : p.instruction;
      if (!instr.empty() && pi != instr && row.instruction != instr) continue;
      if (p.matches(want.m, want.n, want.k)) return MmaShape{pi, want.m, want.n, want.k};
    }
  }
  const auto list = shapes(in, out, instr);
  throw std::invalid_argument("unit '" + spec_.name + "' has no shape " + std::string(shape) + " for " + in.name +
                              " -> " + out.name + (instr.empty() ? "" : " (instruction '" + std::string(instr) + "')") +
                              "; shapes: " + (list.empty() ? std::string("(none)") : join(list)));
}

std::vector<std::uint64_t> Unit::mma(const Format& in, const Format& out, std::string_view shape,
                                     std::span<const std::uint64_t> A, std::span<const std::uint64_t> B,
                                     std::span<const std::uint64_t> C, std::string_view instruction) const {
  const MmaShape s = resolve_shape(in, out, shape, instruction);
  // The row serving the shape: the one resolve_shape found (same search).
  std::size_t row_index = impl_->rows.size();
  for (std::size_t i = 0; i < impl_->rows.size() && row_index == impl_->rows.size(); ++i) {
    const auto& r = impl_->rows[i];
    if (!r.has(in, out)) continue;
    for (const auto& p : r.shapes) {
      const std::string& pi = p.instruction.empty() ? spec_.datapaths[i].instruction : p.instruction;
      if (pi == s.instruction && p.matches(s.m, s.n, s.k)) {
        row_index = i;
        break;
      }
    }
  }
  const auto M = static_cast<std::size_t>(s.m), N = static_cast<std::size_t>(s.n), K = static_cast<std::size_t>(s.k);
  auto check = [&](const char* what, std::size_t got, std::size_t want, const char* dims) {
    if (got != want)
      throw std::invalid_argument(std::string(what) + " of " + s.name() + " must hold " + dims + " = " +
                                  std::to_string(want) + " elements, got " + std::to_string(got));
  };
  check("A", A.size(), M * K, "M*K");
  check("B", B.size(), K * N, "K*N");
  check("C", C.size(), M * N, "M*N");
  std::vector<std::uint64_t> D(M * N), col(K);
  for (std::size_t j = 0; j < N; ++j) {
    for (std::size_t t = 0; t < K; ++t) col[t] = B[t * N + j];
    for (std::size_t i = 0; i < M; ++i) D[i * N + j] = dot_in_row(row_index, in, out, A.subspan(i * K, K), col, C[i * N + j]);
  }
  return D;
}

std::uint64_t Unit::dot_scaled(const Format& in, const Format& out, std::span<const std::uint64_t> a,
                               std::span<const std::uint64_t> b, const Format& scale_format,
                               std::span<const std::uint64_t> scale_a, std::span<const std::uint64_t> scale_b,
                               std::uint64_t c, int block_size, std::string_view instruction) const {
  check_lengths(a, b);
  std::size_t index = datapath_index(in, out, instruction);
  if (!spec_.datapaths[index].block_scale) {
    bool found = false;
    if (instruction.empty())
      for (std::size_t i = 0; i < impl_->rows.size(); ++i)
        if (impl_->rows[i].has(in, out) && spec_.datapaths[i].block_scale) {
          index = i;
          found = true;
          break;
        }
    if (!found) {
      std::vector<std::string> scaled;
      for (std::size_t i = 0; i < impl_->rows.size(); ++i)
        if (impl_->rows[i].has(in, out) && spec_.datapaths[i].block_scale) scaled.push_back(spec_.datapaths[i].instruction);
      throw std::invalid_argument("unit '" + spec_.name + "': the datapath for " + in.name + " -> " + out.name +
                                  (instruction.empty() ? "" : " with instruction '" + std::string(instruction) + "'") +
                                  " takes no scale factors; block-scaled instructions for the pair: " +
                                  (scaled.empty() ? std::string("(none)") : join(scaled)));
    }
  }
  const DatapathSpec& row = spec_.datapaths[index];
  const auto& r = impl_->rows[index];
  const BlockScaleSpec& bs = *row.block_scale;
  if (std::find(r.scale_formats.begin(), r.scale_formats.end(), scale_format) == r.scale_formats.end())
    throw std::invalid_argument("scale_format: '" + scale_format.name + "' is not allowed for instruction '" +
                                row.instruction + "'; allowed: " + join(bs.scale_formats));
  if (block_size == 0) block_size = bs.block_sizes.front();
  if (std::find(bs.block_sizes.begin(), bs.block_sizes.end(), block_size) == bs.block_sizes.end()) {
    std::string allowed;
    for (int x : bs.block_sizes) allowed += (allowed.empty() ? "" : ", ") + std::to_string(x);
    throw std::invalid_argument("block_size: " + std::to_string(block_size) + " is not allowed for instruction '" +
                                row.instruction + "'; allowed: " + allowed);
  }
  const std::size_t K = a.size(), B = static_cast<std::size_t>(block_size);
  const std::size_t nscales = (K + B - 1) / B;
  if (scale_a.size() != nscales || scale_b.size() != nscales)
    throw std::invalid_argument("scale_a and scale_b must hold ceil(K / " + std::to_string(B) + ") = " +
                                std::to_string(nscales) + " scale factors each, got " +
                                std::to_string(scale_a.size()) + " and " + std::to_string(scale_b.size()));
  const FixedPointAdder& adder = r.adder(in, out);
  const std::size_t k = static_cast<std::size_t>(row.fma_size);
  const std::uint64_t one = round_bits(ExactValue::finite(false, 1, 0), scale_format, Rounding::NearestEven);
  std::size_t pos = 0;
  std::vector<std::uint64_t> pa(k), pb(k), sa(k), sb(k);
  do {
    const std::size_t len = std::min(k, K - pos);
    for (std::size_t t = 0; t < k; ++t) {
      const bool real = t < len;
      pa[t] = real ? a[pos + t] : 0;
      pb[t] = real ? b[pos + t] : 0;
      sa[t] = real ? scale_a[(pos + t) / B] : one;
      sb[t] = real ? scale_b[(pos + t) / B] : one;
    }
    c = r.to_out(r.out_index(out), detail::scaled_block_fma(adder.config(), bs.group_size, scale_format, pa, pb, sa, sb, c));
    pos += len;
  } while (pos < K);
  return c;
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
