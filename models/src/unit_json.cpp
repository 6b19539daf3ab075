// User-defined units from JSON (schema in unit_json.hpp) and built-in units as JSON.
#include "tcsim/models/unit_json.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "unit_impl.hpp"

namespace tcsim::models {

namespace {

using nlohmann::json;

const std::vector<std::string> kRequired = {
    "name",        "input_formats", "output_formats", "fma_size",         "fraction_bits",
    "carry_bits",  "alignment_rounding", "sticky_bit", "normalization",   "order",
    "c_placement", "final_rounding", "subnormal_inputs", "subnormal_outputs"};
const std::vector<std::string> kOptional = {"min_exponent", "instruction", "architecture", "aliases",
                                            "evidence",     "shapes",      "nan_pattern",  "block_scale",
                                            "result_fraction_bits", "late_products_rounding", "k_split", "c_entry",
                                            "final_add_rounding", "overflow", "zero_sign", "batch_paths",
                                            "planar_paths", "after_add", "product_groups", "input_fraction_bits",
                                            "flushed_input_sign", "product_rounding", "product_overflow",
                                            "mixed_inputs"};
const std::vector<std::string> kUnitKeys = {"name", "architecture", "aliases", "datapaths"};

std::string type_name(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean (" + v.dump() + ")";
  if (v.is_number_integer() || v.is_number_unsigned()) return "an integer (" + v.dump() + ")";
  if (v.is_number()) return "a number (" + v.dump() + ")";
  if (v.is_string()) return "a string (" + v.dump() + ")";
  if (v.is_array()) return "an array";
  return "an object";
}

// Error context: "<source>: datapaths[1]: key 'fma_size'".
struct Ctx {
  std::string source;
  std::string path;  // "" or "datapaths[1]: "
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw std::invalid_argument(source + ": " + path + "key '" + key + "': " + what);
  }
  [[noreturn]] void fail_here(const std::string& what) const {
    throw std::invalid_argument(source + ": " + path + what);
  }
};

void check_keys(const Ctx& ctx, const json& obj, const std::vector<std::string>& allowed,
                const std::vector<std::string>& required) {
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end())
      ctx.fail_here("unknown key '" + it.key() + "'; allowed keys: " + detail::join(allowed));
  for (const auto& k : required)
    if (!obj.contains(k)) ctx.fail_here("missing required key '" + k + "'; required keys: " + detail::join(required));
}

std::string get_string(const Ctx& ctx, const json& v, const std::string& key) {
  if (!v.is_string()) ctx.fail(key, "expected a string, got " + type_name(v));
  return v.get<std::string>();
}

long long get_int(const Ctx& ctx, const json& v, const std::string& key, long long lo, long long hi) {
  if (!(v.is_number_integer() || v.is_number_unsigned())) ctx.fail(key, "expected an integer, got " + type_name(v));
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi))
    ctx.fail(key, v.dump() + " is out of range; allowed: " + std::to_string(lo) + ".." + std::to_string(hi));
  const long long x = v.get<long long>();
  if (x < lo || x > hi)
    ctx.fail(key, std::to_string(x) + " is out of range; allowed: " + std::to_string(lo) + ".." + std::to_string(hi));
  return x;
}

bool get_bool(const Ctx& ctx, const json& v, const std::string& key) {
  if (!v.is_boolean()) ctx.fail(key, "expected true or false, got " + type_name(v));
  return v.get<bool>();
}

std::vector<std::string> get_strings(const Ctx& ctx, const json& v, const std::string& key) {
  if (!v.is_array()) ctx.fail(key, "expected an array of strings, got " + type_name(v));
  std::vector<std::string> r;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) ctx.fail(key, "element " + std::to_string(i) + ": expected a string, got " + type_name(v[i]));
    r.push_back(v[i].get<std::string>());
  }
  return r;
}

template <class E>
E vocab(const Ctx& ctx, const json& v, const std::string& key,
        const std::vector<std::pair<std::string, E>>& words) {
  const std::string s = detail::lower(get_string(ctx, v, key));
  std::vector<std::string> allowed;
  for (const auto& [w, e] : words) {
    if (w == s) return e;
    allowed.push_back(w);
  }
  ctx.fail(key, "'" + v.get<std::string>() + "' is not allowed; allowed: " + detail::join(allowed));
}

const std::vector<std::pair<std::string, Rounding>> kAlignWords = {
    {"rz", Rounding::TowardZero}, {"rd", Rounding::Down}, {"ru", Rounding::Up}, {"rne", Rounding::NearestEven}};
const std::vector<std::pair<std::string, Rounding>> kFinalWords = {{"rne", Rounding::NearestEven},
                                                                   {"rz", Rounding::TowardZero},
                                                                   {"ru", Rounding::Up},
                                                                   {"rd", Rounding::Down},
                                                                   {"ro", Rounding::ToOdd}};
const std::vector<std::pair<std::string, Normalization>> kNormWords = {{"deferred", Normalization::Deferred},
                                                                       {"per-step", Normalization::PerStep}};
const std::vector<std::pair<std::string, AccumulationOrder>> kOrderWords = {
    {"largest-first", AccumulationOrder::LargestFirst},
    {"sequential", AccumulationOrder::Sequential},
    {"pairwise", AccumulationOrder::Pairwise}};
const std::vector<std::pair<std::string, CPlacement>> kCWords = {
    {"aligned", CPlacement::Aligned}, {"late", CPlacement::Late}, {"after", CPlacement::After}};
const std::vector<std::pair<std::string, bool>> kFlushSignWords = {{"keep", false}, {"positive", true}};
const std::vector<std::pair<std::string, bool>> kProductOverflowWords = {{"exact", false}, {"inf", true}};
const std::vector<std::pair<std::string, OverflowMode>> kOverflowWords = {{"ieee", OverflowMode::Ieee},
                                                                         {"inf", OverflowMode::Infinity},
                                                                         {"saturate", OverflowMode::Saturate},
                                                                         {"nan", OverflowMode::ToNaN}};
const std::vector<std::pair<std::string, ZeroSign>> kZeroSignWords = {{"ieee", ZeroSign::Ieee},
                                                                     {"positive", ZeroSign::Positive}};
const std::vector<std::pair<std::string, KSplit>> kSplitWords = {{"consecutive", KSplit::Consecutive},
                                                                 {"pairs-mod4", KSplit::PairsMod4}};
const std::vector<std::pair<std::string, CEntry>> kEntryWords = {{"accumulator", CEntry::Accumulator},
                                                                 {"final-add", CEntry::FinalAdd}};

std::uint64_t parse_pattern(const Ctx& ctx, const json& v, const std::string& key) {
  if (v.is_number_unsigned() || (v.is_number_integer() && v.get<long long>() >= 0)) return v.get<std::uint64_t>();
  if (!v.is_string()) ctx.fail(key, "expected a bit pattern (\"0x7fffffff\" or an integer), got " + type_name(v));
  const std::string s = v.get<std::string>();
  std::size_t used = 0;
  std::uint64_t x = 0;
  try {
    x = std::stoull(s, &used, 0);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || s.empty()) ctx.fail(key, "'" + s + "' is not a bit pattern; expected e.g. \"0x7fffffff\"");
  return x;
}

DatapathSpec parse_row(const Ctx& ctx, const json& j, bool in_unit, std::string* name, std::string* architecture,
                       std::vector<std::string>* aliases) {
  if (!j.is_object()) ctx.fail_here("expected a datapath object, got " + type_name(j));
  std::vector<std::string> allowed = kRequired;
  allowed.insert(allowed.end(), kOptional.begin(), kOptional.end());
  std::vector<std::string> required = kRequired;
  if (in_unit) {
    // Rows inside a unit object: the unit holds name, architecture and aliases.
    allowed.erase(std::remove_if(allowed.begin(), allowed.end(),
                                 [](const std::string& k) { return k == "architecture" || k == "aliases"; }),
                  allowed.end());
    required.erase(std::find(required.begin(), required.end(), "name"));
  }
  check_keys(ctx, j, allowed, required);

  DatapathSpec r;
  if (j.contains("name")) {
    const std::string n = get_string(ctx, j["name"], "name");
    if (n.empty()) ctx.fail("name", "must not be empty");
    if (in_unit && n != *name) ctx.fail("name", "'" + n + "' differs from the unit's name '" + *name + "'");
    *name = n;
  }
  if (j.contains("architecture")) *architecture = get_string(ctx, j["architecture"], "architecture");
  if (j.contains("aliases")) *aliases = get_strings(ctx, j["aliases"], "aliases");
  if (j.contains("instruction")) r.instruction = get_string(ctx, j["instruction"], "instruction");
  if (j.contains("evidence")) r.evidence = get_string(ctx, j["evidence"], "evidence");
  r.input_formats = get_strings(ctx, j["input_formats"], "input_formats");
  r.output_formats = get_strings(ctx, j["output_formats"], "output_formats");
  if (r.input_formats.empty()) ctx.fail("input_formats", "must list at least one format; allowed: " + builtin_format_names());
  if (r.output_formats.empty()) ctx.fail("output_formats", "must list at least one format; allowed: " + builtin_format_names());
  auto check_format = [&](const std::string& key, const std::string& f) {
    try {
      (void)parse_format(f, key);
    } catch (const std::invalid_argument& e) {
      ctx.fail(key, e.what());
    }
  };
  for (const auto& f : r.input_formats) check_format("input_formats", f);
  for (const auto& f : r.output_formats) check_format("output_formats", f);
  auto row_int = [&](const char* key) {  // the range rule Unit and tcsim explore share (row_int_range)
    const RowIntRange range = row_int_range(key);
    return static_cast<int>(get_int(ctx, j[key], key, range.lo, range.hi));
  };
  r.fma_size = row_int("fma_size");
  if (j["fraction_bits"].is_string()) {  // "exact": F large enough that alignment loses nothing
    if (j["fraction_bits"].get<std::string>() != "exact")
      ctx.fail("fraction_bits", "'" + j["fraction_bits"].get<std::string>() + "' is not allowed; allowed: an integer 0.." +
                                    std::to_string(AdderConfig::kMaxFractionBits) + " or \"exact\"");
    r.fraction_bits = DatapathSpec::kExactFractionBits;
  } else {
    r.fraction_bits = row_int("fraction_bits");
  }
  r.carry_bits = row_int("carry_bits");
  r.alignment_rounding = vocab(ctx, j["alignment_rounding"], "alignment_rounding", kAlignWords);
  r.sticky_bit = get_bool(ctx, j["sticky_bit"], "sticky_bit");
  r.normalization = vocab(ctx, j["normalization"], "normalization", kNormWords);
  r.order = vocab(ctx, j["order"], "order", kOrderWords);
  r.c_placement = vocab(ctx, j["c_placement"], "c_placement", kCWords);
  r.subnormal_inputs = get_bool(ctx, j["subnormal_inputs"], "subnormal_inputs");
  r.subnormal_outputs = get_bool(ctx, j["subnormal_outputs"], "subnormal_outputs");

  // Per-output-format objects: keys must be output formats.
  auto output_key = [&](const std::string& key, const std::string& f) {
    if (std::find(r.output_formats.begin(), r.output_formats.end(), f) != r.output_formats.end()) return;
    try {
      const Format& want = parse_format(f, key);
      for (const auto& o : r.output_formats)
        if (parse_format(o) == want) return;
    } catch (const std::invalid_argument&) {
    }
    ctx.fail(key, "'" + f + "' is not one of the output_formats; allowed: " + detail::join(r.output_formats));
  };
  // A rounding per output format: one string for all, or an object covering every output
  // (`complete`) or some of them.
  auto roundings = [&](const std::string& key, bool complete) {
    std::map<std::string, Rounding> m;
    const json& v = j[key];
    if (v.is_string()) {
      const Rounding mode = vocab(ctx, v, key, kFinalWords);
      for (const auto& o : r.output_formats) m[o] = mode;
    } else if (v.is_object()) {
      for (auto it = v.begin(); it != v.end(); ++it) {
        output_key(key, it.key());
        m[it.key()] = vocab(ctx, it.value(), key + "." + it.key(), kFinalWords);
      }
      if (complete)
        for (const auto& o : r.output_formats)
          if (!m.count(o))
            ctx.fail(key, "no entry for output format '" + o + "'; expected an object such as "
                          "{\"fp32\": \"rz\", \"fp16\": \"rne\"} covering every output format");
    } else {
      ctx.fail(key, "expected an object {\"<output format>\": \"rne|rz|ru|rd|ro\"} (or one string for all "
                    "outputs), got " + type_name(v));
    }
    return m;
  };
  r.final_rounding = roundings("final_rounding", true);
  if (j.contains("final_add_rounding")) r.final_add_rounding = roundings("final_add_rounding", false);
  if (j.contains("min_exponent")) {
    const json& me = j["min_exponent"];
    if (me.is_null()) {
    } else if (me.is_number_integer()) {
      const int v = static_cast<int>(get_int(ctx, me, "min_exponent", -100000, 100000));
      for (const auto& o : r.output_formats) r.min_exponent[o] = v;
    } else if (me.is_object()) {
      for (auto it = me.begin(); it != me.end(); ++it) {
        output_key("min_exponent", it.key());
        if (it.value().is_null()) continue;
        r.min_exponent[it.key()] =
            static_cast<int>(get_int(ctx, it.value(), "min_exponent." + it.key(), -100000, 100000));
      }
    } else {
      ctx.fail("min_exponent", "expected null, an integer or an object {\"<output format>\": integer}, got " +
                                   type_name(me));
    }
  }
  if (j.contains("k_split")) r.k_split = vocab(ctx, j["k_split"], "k_split", kSplitWords);
  if (j.contains("c_entry")) r.c_entry = vocab(ctx, j["c_entry"], "c_entry", kEntryWords);
  if (j.contains("overflow")) r.overflow = vocab(ctx, j["overflow"], "overflow", kOverflowWords);
  if (j.contains("zero_sign")) r.zero_sign = vocab(ctx, j["zero_sign"], "zero_sign", kZeroSignWords);
  if (j.contains("late_products_rounding") && !j["late_products_rounding"].is_null())
    r.late_products_rounding = vocab(ctx, j["late_products_rounding"], "late_products_rounding", kFinalWords);
  if (j.contains("result_fraction_bits")) {
    const json& rf = j["result_fraction_bits"];
    if (rf.is_null()) {
    } else if (rf.is_number_integer()) {
      const int v = static_cast<int>(get_int(ctx, rf, "result_fraction_bits", 0, 63));
      for (const auto& o : r.output_formats) r.result_fraction_bits[o] = v;
    } else if (rf.is_object()) {
      for (auto it = rf.begin(); it != rf.end(); ++it) {
        output_key("result_fraction_bits", it.key());
        if (it.value().is_null()) continue;
        r.result_fraction_bits[it.key()] =
            static_cast<int>(get_int(ctx, it.value(), "result_fraction_bits." + it.key(), 0, 63));
      }
    } else {
      ctx.fail("result_fraction_bits", "expected null, an integer or an object {\"<output format>\": integer}, got " +
                                           type_name(rf));
    }
  }
  if (j.contains("nan_pattern")) {
    const json& np = j["nan_pattern"];
    if (!np.is_object() && !np.is_null())
      ctx.fail("nan_pattern", "expected an object {\"<output format>\": \"0x7fffffff\"}, got " + type_name(np));
    if (np.is_object())
      for (auto it = np.begin(); it != np.end(); ++it) {
        output_key("nan_pattern", it.key());
        r.nan_pattern[it.key()] = parse_pattern(ctx, it.value(), "nan_pattern." + it.key());
      }
  }
  if (j.contains("shapes")) {
    r.shapes = get_strings(ctx, j["shapes"], "shapes");
    for (const auto& s : r.shapes) {
      try {
        (void)parse_shape_pattern(s, "shapes");
      } catch (const std::invalid_argument& e) {
        ctx.fail("shapes", e.what());
      }
    }
  }
  if (j.contains("after_add") && !j["after_add"].is_null()) {
    const json& aa = j["after_add"];
    if (!aa.is_object())
      ctx.fail("after_add", "expected an object {\"sum_fraction_bits\": 32, \"c_fraction_bits\": 24, \"rounding\": \"rd\", "
                            "\"renormalize_fraction_bits\": 31, \"drop_c_below\": null}, got " + type_name(aa));
    // Only the after-add datapath reads these fields: anywhere else they would be dropped
    // without a word (and to_json would not write them back).
    if (r.c_placement != CPlacement::After)
      ctx.fail("after_add", "given with c_placement '" + j["c_placement"].get<std::string>() +
                                "'; allowed only with c_placement 'after'");
    Ctx inner{ctx.source, ctx.path + "after_add: "};
    const std::vector<std::string> keys = {"sum_fraction_bits", "c_fraction_bits", "rounding", "renormalize_fraction_bits",
                                           "drop_c_below"};
    check_keys(inner, aa, keys, {"sum_fraction_bits", "c_fraction_bits", "rounding"});
    AfterAdd a;
    a.sum_fraction_bits = static_cast<int>(get_int(inner, aa["sum_fraction_bits"], "sum_fraction_bits", 0, 4096));
    a.c_fraction_bits = static_cast<int>(get_int(inner, aa["c_fraction_bits"], "c_fraction_bits", 0, 4096));
    a.rounding = vocab(inner, aa["rounding"], "rounding", kAlignWords);
    a.renormalize_fraction_bits.reset();
    if (aa.contains("renormalize_fraction_bits") && !aa["renormalize_fraction_bits"].is_null())
      a.renormalize_fraction_bits =
          static_cast<int>(get_int(inner, aa["renormalize_fraction_bits"], "renormalize_fraction_bits", 0, 4096));
    if (aa.contains("drop_c_below") && !aa["drop_c_below"].is_null())
      a.drop_c_below = static_cast<int>(get_int(inner, aa["drop_c_below"], "drop_c_below", 0, 4096));
    r.after_add = a;
  }
  if (j.contains("product_groups"))
    r.product_groups = static_cast<int>(get_int(ctx, j["product_groups"], "product_groups", 1, 64));
  if (j.contains("input_fraction_bits") && !j["input_fraction_bits"].is_null())
    r.input_fraction_bits = static_cast<int>(get_int(ctx, j["input_fraction_bits"], "input_fraction_bits", 0, 62));
  if (j.contains("flushed_input_sign"))
    r.flush_inputs_positive = vocab(ctx, j["flushed_input_sign"], "flushed_input_sign", kFlushSignWords);
  if (j.contains("mixed_inputs")) r.mixed_inputs = get_bool(ctx, j["mixed_inputs"], "mixed_inputs");
  if (j.contains("product_rounding") && !j["product_rounding"].is_null())
    r.product_rounding = vocab(ctx, j["product_rounding"], "product_rounding", kFinalWords);
  if (j.contains("product_overflow"))
    r.product_overflow_inf = vocab(ctx, j["product_overflow"], "product_overflow", kProductOverflowWords);
  if (j.contains("block_scale") && !j["block_scale"].is_null()) {
    const json& bs = j["block_scale"];
    if (!bs.is_object())
      ctx.fail("block_scale", "expected an object {\"scale_formats\": [...], \"block_sizes\": [...], \"group_size\": 0}, got " +
                                  type_name(bs));
    Ctx inner{ctx.source, ctx.path + "block_scale: "};
    check_keys(inner, bs, {"scale_formats", "block_sizes", "group_size"}, {"scale_formats", "block_sizes", "group_size"});
    BlockScaleSpec spec;
    spec.scale_formats = get_strings(inner, bs["scale_formats"], "scale_formats");
    for (const auto& f : spec.scale_formats) {
      try {
        (void)parse_format(f, "scale_formats");
      } catch (const std::invalid_argument& e) {
        inner.fail("scale_formats", e.what());
      }
    }
    const json& sizes = bs["block_sizes"];
    if (!sizes.is_array()) inner.fail("block_sizes", "expected an array of integers, got " + type_name(sizes));
    for (const auto& s : sizes) spec.block_sizes.push_back(static_cast<int>(get_int(inner, s, "block_sizes", 1, 65536)));
    spec.group_size = static_cast<int>(get_int(inner, bs["group_size"], "group_size", 0, 65536));
    r.block_scale = spec;
  }
  return r;
}

}  // namespace

const std::vector<std::string>& row_json_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k = kRequired;
    k.insert(k.end(), kOptional.begin(), kOptional.end());
    return k;
  }();
  return keys;
}

UnitSpec parse_unit_json(const json& j0, std::string_view source) {
  Ctx ctx{std::string(source), ""};
  const json* jp = &j0;
  if (j0.is_array()) {
    if (j0.size() != 1) {
      std::vector<std::string> names;
      for (const auto& u : j0)
        if (u.is_object() && u.contains("name") && u["name"].is_string()) names.push_back(u["name"].get<std::string>());
      ctx.fail_here("holds " + std::to_string(j0.size()) + " units (" + detail::join(names) +
                    "); allowed: a single unit object or a one-element array");
    }
    jp = &j0[0];
    ctx.path = "[0]: ";
  }
  const json& j = *jp;
  if (!j.is_object()) ctx.fail_here("expected a unit object, got " + type_name(j));
  UnitSpec u;
  if (!j.contains("datapaths")) {
    // One row.
    u.datapaths.push_back(parse_row(ctx, j, false, &u.name, &u.architecture, &u.aliases));
    if (u.architecture.empty()) u.architecture = "user";
    return u;
  }
  check_keys(ctx, j, kUnitKeys, {"name", "datapaths"});
  u.name = get_string(ctx, j["name"], "name");
  if (u.name.empty()) ctx.fail("name", "must not be empty");
  u.architecture = j.contains("architecture") ? get_string(ctx, j["architecture"], "architecture") : "user";
  if (j.contains("aliases")) u.aliases = get_strings(ctx, j["aliases"], "aliases");
  const json& rows = j["datapaths"];
  if (!rows.is_array() || rows.empty())
    ctx.fail("datapaths", "expected a non-empty array of datapath objects, got " + type_name(rows));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    Ctx rc{ctx.source, ctx.path + "datapaths[" + std::to_string(i) + "]: "};
    std::string arch, name = u.name;
    std::vector<std::string> al;
    u.datapaths.push_back(parse_row(rc, rows[i], true, &name, &arch, &al));
  }
  return u;
}

namespace {

// Finds where json::parse stopped: its out_of_range error (a number beyond binary64, e.g.
// 1e400) carries no position, but the SAX parser hands parse_error the offset and the token.
// Tracks the key path of the value being read ("datapaths[0].fma_size").
class ErrorLocator final : public json::json_sax_t {
 public:
  bool found = false;
  std::size_t offset = 0;  // characters read when the error was seen (the token included)
  std::string token;
  std::string key_path;

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(false); }
  bool key(string_t& k) override {
    frames_.back().key = k;
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t position, const std::string& last_token, const json::exception&) override {
    found = true;
    offset = position;
    token = last_token;
    for (const auto& f : frames_) {
      if (f.array) {
        key_path.append("[").append(std::to_string(f.index)).append("]");
      } else {
        key_path.append(key_path.empty() ? "" : ".").append(f.key);
      }
    }
    return false;
  }

 private:
  struct Frame {
    bool array;
    std::string key;
    std::size_t index = 0;  // arrays: values completed so far (the index of the next one)
  };
  std::vector<Frame> frames_;
  bool value() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
    return true;
  }
  bool open(bool array) {
    frames_.push_back({array, "", 0});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return value();
  }
};

// "line 3: key 'fma_size': the number 1e400 is beyond binary64", for the out_of_range error
// json::parse met in the file (reparsed with ErrorLocator to find it).
std::string describe_number_overflow(const std::string& path) {
  ErrorLocator loc;
  {
    std::ifstream f(path);
    json::sax_parse(f, &loc);
  }
  if (!loc.found) return "a number is beyond binary64";
  std::ifstream f(path);
  std::size_t line = 1;
  const std::size_t start = loc.offset > loc.token.size() ? loc.offset - loc.token.size() : 0;
  for (std::size_t i = 0; i < start && f; ++i)
    if (f.get() == '\n') ++line;
  return "line " + std::to_string(line) + ": " + (loc.key_path.empty() ? "" : "key '" + loc.key_path + "': ") +
         "the number " + loc.token + " is beyond binary64";
}

}  // namespace

UnitSpec load_unit_json(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw std::invalid_argument("unit file '" + path + "' is a directory; give a JSON file");
  std::ifstream f(path);
  if (!f) throw std::invalid_argument("unit file '" + path + "': cannot be opened: " + std::strerror(errno));
  json j;
  try {
    j = json::parse(f);
  } catch (const json::parse_error& e) {  // its message gives the line and column
    // Without the parser's "[json.exception.parse_error.101] " tag: line, column and reason stay.
    std::string why = e.what();
    if (why.rfind("[json.exception.", 0) == 0 && why.find("] ") != std::string::npos) why.erase(0, why.find("] ") + 2);
    throw std::invalid_argument("unit file '" + path + "': not valid JSON: " + why);
  } catch (const json::out_of_range&) {  // e.g. 1e400
    throw std::invalid_argument("unit file '" + path + "': " + describe_number_overflow(path) +
                                "; allowed: the schema's numbers are small integers, e.g. \"fma_size\": 16");
  } catch (const std::ios_base::failure& e) {  // a read error: the file buffer throws past json::parse
    throw std::invalid_argument("unit file '" + path + "': cannot be read (" + e.code().message() + ")");
  }
  return parse_unit_json(j, path);
}

json to_json(const DatapathSpec& r, std::string_view unit_name) {
  json j = json::object();
  j["name"] = std::string(unit_name);
  j["instruction"] = r.instruction;
  j["input_formats"] = r.input_formats;
  j["output_formats"] = r.output_formats;
  j["fma_size"] = r.fma_size;
  if (r.fraction_bits == DatapathSpec::kExactFractionBits) j["fraction_bits"] = "exact";
  else j["fraction_bits"] = r.fraction_bits;
  j["carry_bits"] = r.carry_bits;
  j["alignment_rounding"] = schema_string(r.alignment_rounding);
  j["sticky_bit"] = r.sticky_bit;
  j["normalization"] = schema_string(r.normalization);
  j["order"] = schema_string(r.order);
  j["c_placement"] = schema_string(r.c_placement);
  if (r.late_products_rounding) j["late_products_rounding"] = schema_string(*r.late_products_rounding);
  if (r.c_placement == CPlacement::After) {
    const AfterAdd& a = r.after_add;
    json aa = {{"sum_fraction_bits", a.sum_fraction_bits}, {"c_fraction_bits", a.c_fraction_bits},
               {"rounding", schema_string(a.rounding)}};
    aa["renormalize_fraction_bits"] = a.renormalize_fraction_bits ? json(*a.renormalize_fraction_bits) : json(nullptr);
    aa["drop_c_below"] = a.drop_c_below ? json(*a.drop_c_below) : json(nullptr);
    j["after_add"] = aa;
  }
  if (r.product_groups != 1) j["product_groups"] = r.product_groups;
  if (r.input_fraction_bits) j["input_fraction_bits"] = *r.input_fraction_bits;
  if (r.flush_inputs_positive) j["flushed_input_sign"] = "positive";
  if (r.mixed_inputs) j["mixed_inputs"] = true;
  if (r.product_rounding) j["product_rounding"] = schema_string(*r.product_rounding);
  if (r.product_overflow_inf) j["product_overflow"] = "inf";
  if (r.k_split != KSplit::Consecutive) j["k_split"] = schema_string(r.k_split);
  if (r.c_entry != CEntry::Accumulator) j["c_entry"] = schema_string(r.c_entry);
  auto roundings = [](const std::map<std::string, Rounding>& m) {
    json o = json::object();
    for (const auto& [k, v] : m) o[k] = schema_string(v);
    return o;
  };
  j["final_rounding"] = roundings(r.final_rounding);
  if (!r.final_add_rounding.empty()) j["final_add_rounding"] = roundings(r.final_add_rounding);
  if (r.min_exponent.empty()) {
    j["min_exponent"] = nullptr;
  } else {
    json me = json::object();
    for (const auto& [k, v] : r.min_exponent) me[k] = v;
    j["min_exponent"] = me;
  }
  j["subnormal_inputs"] = r.subnormal_inputs;
  j["subnormal_outputs"] = r.subnormal_outputs;
  j["overflow"] = schema_string(r.overflow);
  j["zero_sign"] = schema_string(r.zero_sign);
  if (!r.nan_pattern.empty()) {
    json np = json::object();
    for (const auto& [k, v] : r.nan_pattern) {
      char buf[24];
      std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
      np[k] = buf;
    }
    j["nan_pattern"] = np;
  }
  if (!r.result_fraction_bits.empty()) {
    json rf = json::object();
    for (const auto& [k, v] : r.result_fraction_bits) rf[k] = v;
    j["result_fraction_bits"] = rf;
  }
  if (!r.shapes.empty()) j["shapes"] = r.shapes;
  if (r.block_scale)
    j["block_scale"] = {{"scale_formats", r.block_scale->scale_formats},
                        {"block_sizes", r.block_scale->block_sizes},
                        {"group_size", r.block_scale->group_size}};
  j["evidence"] = r.evidence;
  return j;
}

json to_json(const UnitSpec& u) {
  json j = json::object();
  j["name"] = u.name;
  j["architecture"] = u.architecture;
  j["aliases"] = u.aliases;
  json rows = json::array();
  for (const auto& r : u.datapaths) rows.push_back(to_json(r, u.name));
  j["datapaths"] = rows;
  return j;
}

}  // namespace tcsim::models
