// tcsim dot: one element d = c + sum a_i b_i through a built-in or user-defined unit,
// beside the exact value (MPFR) and its correctly rounded results.
//
// Values are decimal or C99 hex-float literals ("1.5", "-0x1.8p-3", "inf", "nan", or raw
// patterns "bits:0x3c00"). A value that the format cannot hold exactly is rounded to
// nearest even and a warning names it on stderr (the GPU would be given that rounded value).
// A value the format cannot hold even approximately is refused (issue 11: nothing exits 0
// with a result for other inputs than the ones given): a finite value beyond the largest
// finite one (it would become Inf or NaN), inf where the format has no infinities, nan where
// it has no NaN.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "commands.hpp"
#include "json_output.hpp"
#include "unit_option.hpp"
#include "value_checks.hpp"
#include "tcsim/models/unit.hpp"
#include "tcsim/models/unit_json.hpp"
#include "tcsim/reference/mpfr_dot.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/format.hpp"
#include "tcsim/sim/literal.hpp"

namespace tcsim::cli {

namespace {

bool is_blank(char ch) { return std::isspace(static_cast<unsigned char>(ch)) != 0; }

// Comma-separated items, each trimmed of surrounding blanks; blanks inside an item stay, so
// that parse_value refuses them ("1 2" is not silently 12).
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto first = std::find_if_not(item.begin(), item.end(), is_blank);
    const auto last = std::find_if_not(item.rbegin(), item.rend(), is_blank).base();
    items.emplace_back(first < last ? std::string(first, last) : std::string());
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

// Throws when the literal `item`, rounded to `bits`, is not approximately representable in
// `fmt` (see the header comment); the check and its text are the shared layer's
// (value_checks.hpp), as Python's.
void refuse_out_of_range(const std::string& item, const Format& fmt, std::uint64_t bits, const std::string& field) {
  std::string word = item.substr(!item.empty() && (item[0] == '+' || item[0] == '-'));
  for (char& ch : word) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  checks::GivenValue v;
  v.inf = word == "inf" || word == "infinity";
  v.nan = word == "nan";
  v.zero = !v.inf && !v.nan && literal_is_exact(item, formats::fp64()) &&
           classify(formats::fp64(), parse_literal(item, formats::fp64())) == FpClass::Zero;
  v.negative = !v.nan && !v.zero && !item.empty() && item[0] == '-';
  if (!v.nan && !v.inf) v.magnitude = std::fabs(to_double(decode(formats::fp64(), parse_literal(item, formats::fp64(), Rounding::TowardZero))));
  const std::string why = checks::value_refusal(fmt, v, bits, field, item, checks::kCliPatterns);
  if (!why.empty()) throw std::invalid_argument(why);
}

// One trimmed literal into `fmt`; `field` ("--a[2]", "--c") names it in messages. Warns when
// the value is inexact.
std::uint64_t parse_value(const std::string& item, const Format& fmt, const std::string& field, bool list) {
  if (std::any_of(item.begin(), item.end(), is_blank))
    throw std::invalid_argument(field + ": '" + item + "' has blanks inside a value; allowed: one literal without "
                                "blanks (1.5, -0x1p-24, inf, nan, bits:0x3c00)" +
                                (list ? ", values separated by commas" : ""));
  const std::uint64_t bits = parse_literal(item, fmt, Rounding::NearestEven, field);
  if (item.rfind("bits:", 0) != 0) refuse_out_of_range(item, fmt, bits, field);
  if (item.rfind("bits:", 0) != 0 && !literal_is_exact(item, fmt))
    std::fprintf(stderr, "tcsim dot: warning: %s = %s is not exactly representable in %s; rounded to nearest even: %s (%s)\n",
                 field.c_str(), item.c_str(), fmt.name.c_str(), bits_to_hex(fmt, bits).c_str(),
                 decode(fmt, bits).to_hex().c_str());
  return bits;
}

// A comma-separated list of literals of --<option> (empty text: no values, K = 0); each item
// is named --<option>[i] in messages.
std::vector<std::uint64_t> parse_values(const std::string& text, const Format& fmt, const std::string& option) {
  std::vector<std::uint64_t> v;
  const auto items = split_list(text);
  if (items.size() == 1 && items[0].empty()) return v;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string field = "--" + option + "[" + std::to_string(i) + "]";
    if (items[i].empty()) throw std::invalid_argument(field + ": empty value in '" + text + "'");
    v.push_back(parse_value(items[i], fmt, field, true));
  }
  return v;
}

std::string decimal(const ExactValue& x) { return reference::exact_decimal(x, 0); }

nlohmann::json value_json(const ExactValue& x) {
  if (x.is_nan()) return "nan";
  if (x.is_inf()) return x.negative ? "-inf" : "inf";
  return to_double(x);
}

std::string rounding_name(Rounding r) { return models::schema_string(r); }

}  // namespace

int cmd_dot(const Args& args) {
  ArgParser p("dot",
              "evaluate d = c + sum a_i b_i through a tensor-core unit: ceil(K/k) chained block FMAs of "
              "the unit's datapath for the formats. Values: decimal or C99 hex-float literals, inf, nan, "
              "or bits:0x<pattern>; inexact values are rounded to nearest even with a warning. Prints "
              "d's bit pattern and value beside the exact value and its correctly rounded results");
  p.option("unit", "built-in unit: " + models::builtin_unit_names(), "name");
  p.option("unit-config", "user-defined unit from a JSON file (schema: tcsim units --json)", "file");
  declare_input_formats(p, "a", "b", "fp16, bf16, tf32, e4m3, e5m2, e2m1, fp64, ...; one of --in, --in-a, --in-b is required");
  p.required("out", "output format of c and d (fp32, fp16, fp64)", "fmt");
  p.required("a", "comma-separated a_1,...,a_K", "values");
  p.required("b", "comma-separated b_1,...,b_K (as many as a)", "values");
  p.option("c", "the accumulator input in the output format (default 0)", "value");
  p.option("instruction", "datapath by instruction (mma.sync, wgmma, tcgen05, ...; default: the "
                          "unit's default for the formats)", "name");
  p.option("scale-format", "block-scaled (MX) rows: format of the scale factors (ue8m0, ue4m3)", "fmt");
  p.option("scale-a", "block-scaled rows: comma-separated scales of a, one per block of --block-size "
                      "elements (ceil(K/block) values; literals like 0x1p-3 or bits:0x7c)", "values");
  p.option("scale-b", "block-scaled rows: scales of b, as --scale-a", "values");
  p.option("block-size", "block-scaled rows: elements per scale factor (default: the row's first)", "N");
  p.flag("json", "print one JSON object");
  const auto a = p.parse(args);
  if (a.help()) return p.print_help();
  a.require_one_of({"unit", "unit-config"});

  const DotSelection chosen = select_dot(a, "dot");  // format/instruction errors first
  const Format &in = *chosen.inputs.a, &in_b = *chosen.inputs.b, &out = *chosen.out;
  const models::Unit* unit = chosen.selected.unit;
  const std::string& instruction = chosen.instruction;
  const models::DatapathSpec* rowp = chosen.row;

  const auto va = parse_values(a.get("a"), in, "a");
  const auto vb = parse_values(a.get("b"), in_b, "b");
  if (va.size() != vb.size())
    throw std::invalid_argument("--a has " + std::to_string(va.size()) + " values but --b has " +
                                std::to_string(vb.size()) + "; every a_i needs its b_i");
  // c is one value, not a list: "1,2" is not c = 1, and "" is not an internal error.
  const std::string c_text = a.get_or("c", "0");
  const auto c_items = split_list(c_text);
  if (c_items.size() != 1 || c_items[0].empty())
    throw std::invalid_argument("--c takes exactly one value (the accumulator input in " + out.name + "), got '" +
                                c_text + "'");
  const std::uint64_t c = parse_value(c_items[0], out, "--c", false);

  const bool scaled = a.has("scale-format") || a.has("scale-a") || a.has("scale-b");
  if (!scaled && a.has("block-size"))  // it was ignored, whatever its text
    throw std::invalid_argument("--block-size applies to block-scaled rows only (with --scale-format, --scale-a and "
                                "--scale-b)");
  std::uint64_t d = 0;
  ExactValue exact;
  std::vector<std::uint64_t> sva, svb;  // scaled: a_i * scale, exactly, in a wide format
  if (scaled) {
    if (!a.has("scale-format") || !a.has("scale-a") || !a.has("scale-b"))
      throw std::invalid_argument("block-scaled dot needs --scale-format, --scale-a and --scale-b together");
    const Format& sf = parse_format(a.get("scale-format"), "--scale-format");
    const auto sa = parse_values(a.get("scale-a"), sf, "scale-a");
    const auto sb = parse_values(a.get("scale-b"), sf, "scale-b");
    const long long bs = a.get_int("block-size", 0, 65536, 0);
    d = unit->dot_scaled(in, in_b, out, va, vb, sf, sa, sb, c, static_cast<int>(bs), instruction);
    // Exact value: c + sum a_i b_i sa_(i/B) sb_(i/B).
    std::size_t B = static_cast<std::size_t>(bs);
    for (const auto& r : unit->spec().datapaths) {  // the row dot_scaled used (the first serving one)
      if (!r.block_scale || (!instruction.empty() && r.instruction != instruction)) continue;
      const auto has = [](const std::vector<std::string>& v, const Format& f) {
        for (const auto& n : v)
          if (parse_format(n) == f) return true;
        return false;
      };
      if (!has(r.input_formats, in) || !has(r.input_formats, in_b) || !has(r.output_formats, out)) continue;
      if (!(in == in_b) && !r.mixed_inputs) continue;
      rowp = &r;
      if (B == 0) B = static_cast<std::size_t>(r.block_scale->block_sizes.front());
      break;
    }
    if (B == 0) B = 1;
    exact = decode(out, c);
    for (std::size_t i = 0; i < va.size() && !exact.is_nan(); ++i) {
      ExactValue t = exact_mul(decode(in, va[i]), decode(in_b, vb[i]));
      t = exact_mul(t, exact_mul(decode(sf, sa.at(i / B)), decode(sf, sb.at(i / B))));
      exact = exact_add(exact, t);
    }
  } else {
    d = unit->dot(in, in_b, out, va, vb, c, instruction);
    exact = reference::exact_dot(in, in_b, out, va, vb, c);
  }
  const ExactValue dv = decode(out, d);
  const models::DatapathSpec& row = *rowp;
  const Rounding unit_mode = row.final_rounding.count(out.name) ? row.final_rounding.at(out.name) : Rounding::NearestEven;
  std::vector<Rounding> modes = {Rounding::NearestEven};
  if (unit_mode != Rounding::NearestEven && unit_mode != Rounding::ToOdd) modes.push_back(unit_mode);
  std::vector<std::pair<Rounding, std::uint64_t>> cr;
  for (Rounding m : modes)
    cr.emplace_back(m, scaled ? reference::mpfr_round_to_format(exact, out, m, OverflowMode::Ieee).bits
                              : reference::correctly_rounded_dot(in, in_b, out, out, va, vb, c, m, OverflowMode::Ieee).bits);
  // An instruction named by its ISA or full shape name fixes K per instruction (block FMAs of
  // min(k, K)); a row or family name keeps the row's k.
  const models::InstructionSelection sel = unit->select_instruction(in, in_b, out, instruction);
  const bool names_one = sel.shape && !scaled &&
                         (instruction != sel.shape->instruction || instruction.rfind("v_", 0) == 0);
  std::size_t k = static_cast<std::size_t>(row.fma_size);
  if (names_one && row.k_split == models::KSplit::Consecutive && row.c_entry == models::CEntry::Accumulator)
    k = std::min(k, static_cast<std::size_t>(sel.shape->k));
  const std::size_t K = va.size();
  const std::size_t blocks = K == 0 ? 1 : (K + k - 1) / k;
  std::string shape_text;  // " (32x32x4, 2 blocks)"
  if (names_one)
    shape_text = " (" + std::to_string(sel.shape->m) + "x" + std::to_string(sel.shape->n) + "x" +
                 std::to_string(sel.shape->k) +
                 (sel.shape->blocks > 1 ? ", " + std::to_string(sel.shape->blocks) + " independent blocks" : "") + ")";
  const std::string instruction_name =
      names_one ? sel.shape->instruction
                : (row.instruction.empty() ? (instruction.empty() ? "(default)" : instruction) : row.instruction);

  if (a.has("json")) {
    nlohmann::json j;
    j["unit"] = unit->name();
    j["in"] = chosen.inputs.name();
    if (chosen.inputs.mixed()) {
      j["in_a"] = in.name;
      j["in_b"] = in_b.name;
    }
    j["out"] = out.name;
    j["instruction"] = names_one ? sel.shape->instruction : (row.instruction.empty() ? instruction : row.instruction);
    if (names_one)
      j["instruction_shape"] = {{"m", sel.shape->m}, {"n", sel.shape->n}, {"k", sel.shape->k},
                                {"blocks", sel.shape->blocks}};
    j["K"] = K;
    j["fma_size"] = static_cast<int>(k);
    j["blocks"] = blocks;
    j["bits"] = bits_to_hex(out, d);
    j["value"] = value_json(dv);
    j["value_hex"] = dv.to_hex();
    j["value_decimal"] = decimal(dv);
    j["exact"] = {{"value", value_json(exact)}, {"hex", exact.to_hex()}, {"decimal", decimal(exact)}};
    nlohmann::json crj = nlohmann::json::object();
    for (const auto& [m, bits] : cr) {
      const ExactValue v = decode(out, bits);
      crj[rounding_name(m)] = {{"bits", bits_to_hex(out, bits)}, {"value", value_json(v)}, {"hex", v.to_hex()}};
    }
    j["correctly_rounded"] = crj;
    j["equals_correctly_rounded"] = nlohmann::json::object();
    for (const auto& [m, bits] : cr) j["equals_correctly_rounded"][rounding_name(m)] = bits == d;
    print_json(j);
    return 0;
  }

  std::printf("unit %s, %s -> %s, instruction %s%s: k = %zu, F = %d, %zu product%s in %zu block FMA%s\n",
              unit->name().c_str(), chosen.inputs.name().c_str(), out.name.c_str(),
              instruction_name.c_str(), shape_text.c_str(), k,
              unit->adder(in, in_b, out, instruction).config().fraction_bits,  // "exact" rows: the computed F
              K, K == 1 ? "" : "s", blocks, blocks == 1 ? "" : "s");
  std::printf("d                         = %s  %s  (%s)\n", bits_to_hex(out, d).c_str(), decimal(dv).c_str(),
              dv.to_hex().c_str());
  std::printf("exact c + sum a_i b_i     = %s  (%s)\n", decimal(exact).c_str(), exact.to_hex().c_str());
  for (const auto& [m, bits] : cr) {
    const ExactValue v = decode(out, bits);
    const std::string label = "correctly rounded (" + rounding_name(m) + ")";
    std::printf("%-25s = %s  %s  (%s)%s\n", label.c_str(), bits_to_hex(out, bits).c_str(), decimal(v).c_str(),
                v.to_hex().c_str(), bits == d ? "  [= d]" : "");
  }
  return 0;
}

}  // namespace tcsim::cli
