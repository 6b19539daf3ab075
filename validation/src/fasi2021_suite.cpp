// fasi2021's test vectors as data (see fasi2021_suite.hpp), and a small runner.
#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/exact.hpp"
#include "tcsim/sim/literal.hpp"
#include "tcsim/validation/probe_blackbox.hpp"
#include "tcsim/validation/fasi2021_suite.hpp"

namespace tcsim::validation {
namespace {

using Strings = std::vector<std::string>;
const std::string kPaper = "paper";

Fasi2021Case make(std::string id, std::string section, std::string title, Strings a, Strings b, std::string c,
                 std::string v100, std::string t4, std::string source = kPaper, std::string in = "fp16",
                 std::string out = "fp32") {
  // Pad to the paper's four products (the 4x4x4 element (2)).
  while (a.size() < 4) a.push_back("0");
  while (b.size() < 4) b.push_back("0");
  return Fasi2021Case{std::move(id), std::move(section), std::move(title), std::move(in), std::move(out),
                     std::move(a), std::move(b), std::move(c), std::move(v100), std::move(t4), std::move(source)};
}

std::vector<Fasi2021Case> build_cases() {
  std::vector<Fasi2021Case> v;
  const std::string one_m24 = "0x1.fffffep-1";  // 1 - 2^-24
  const std::string c_carry = "0x1.000006p+0";  // 1 + 2^-22 + 2^-23

  // 3.1.1 Subnormal numbers.
  v.push_back(make("3.1.1/subnormal-input-a", "3.1.1", "binary16 subnormal a11 = 2^-24 times 4", {"0x1p-24"},
                   {"0x1p+2"}, "0", "0x1p-22", "0x1p-22"));
  v.push_back(make("3.1.1/subnormal-input-a/fp16-out", "3.1.1", "the same with binary16 output", {"0x1p-24"},
                   {"0x1p+2"}, "0", "0x1p-22", "0x1p-22", kPaper, "fp16", "fp16"));
  v.push_back(make("3.1.1/subnormal-c", "3.1.1", "binary32 subnormal c = 2^-149 passes unchanged", {}, {},
                   "0x1p-149", "0x1p-149", "0x1p-149"));
  v.push_back(make("3.1.1/subnormal-output/fp16-out", "3.1.1", "2^-14 * 2^-1 = 2^-15 (binary16 subnormal)",
                   {"0x1p-14"}, {"0x1p-1"}, "0", "0x1p-15", "0x1p-15", kPaper, "fp16", "fp16"));
  v.push_back(make("3.1.1/subnormal-output", "3.1.1", "2^-14 * 2^-1 = 2^-15 in binary32 mode", {"0x1p-14"},
                   {"0x1p-1"}, "0", "0x1p-15", "0x1p-15"));
  v.push_back(make("3.1.1/subnormal-output-c/fp16-out", "3.1.1", "2^-14 * 1 + (-2^-15) = 2^-15", {"0x1p-14"},
                   {"0x1p+0"}, "-0x1p-15", "0x1p-15", "0x1p-15", kPaper, "fp16", "fp16"));
  v.push_back(make("3.1.1/subnormal-rounded-in-unit", "3.1.1",
                   "1*(2^-23+2^-24) + 1*2: the subnormal is truncated (RZ), not rounded to nearest",
                   {"0x1p+0", "0x1p+0"}, {"0x1.8p-23", "0x1p+1"}, "0", "0x1p+1", "0x1p+1"));
  v.push_back(make("3.3/bf16-subnormal-output", "3.3", "bfloat16 2^-126 * 2^-1 = 2^-127 (binary32 subnormal)",
                   {"0x1p-126"}, {"0x1p-1"}, "0", "", "0x1p-127", kPaper, "bf16", "fp32"));

  // 3.1.2 Accuracy of the dot products.
  const std::string q = "0x1.ffcp-1";  // 1 - 2^-11
  v.push_back(make("3.1.2/exact-products", "3.1.2", "(1-2^-11)^2 four times: 4(1-2^-10+2^-22) exactly", {q, q, q, q},
                   {q, q, q, q}, "0", "0x1.ff8008p+1", "0x1.ff8008p+1"));
  v.push_back(make("3.1.2/exact-products/fp16-out", "3.1.2",
                   "(1-2^-11)^2 + (1-2^-11)2^-11 = 1-2^-11 in binary16 mode", {q, q}, {q, "0x1p-11"}, "0", q, q,
                   kPaper, "fp16", "fp16"));
  {
    // One of c, b1..b4 is 1 and the others 2^-24 (a = 1): 1 on V100 (four truncations); T4
    // and A100 keep 2^-24 (section 3.2: "1 + 2^-24 + 2^-24 can now be performed exactly").
    const char* where[] = {"c", "b1", "b2", "b3", "b4"};
    for (int big = 0; big < 5; ++big) {
      Strings b(4, "0x1p-24");
      std::string c = "0x1p-24";
      if (big == 0) c = "0x1p+0";
      else b[big - 1] = "0x1p+0";
      v.push_back(make(std::string("3.1.2/four-rounding-errors/") + where[big] + "=1", "3.1.2",
                       "one addend 1, four addends 2^-24: largest-first, truncated", Strings(4, "0x1p+0"), b, c,
                       "0x1p+0", "0x1.000004p+0",
                       "paper (V100); derived for T4/A100 from 3.2 (F = 24 keeps 2^-24)"));
    }
    for (int big = 0; big < 5; ++big) {
      Strings a(4, "0x1p-1"), b(4, "0x1p-24");  // products 2^-25
      std::string c = "0x1p-25";
      if (big == 0) c = "0x1p+0";
      else a[big - 1] = "0x1p+0", b[big - 1] = "0x1p+0";
      v.push_back(make(std::string("3.2/four-rounding-errors/") + where[big] + "=1", "3.2",
                       "the same with 2^-25 (one more alignment bit): 1 on T4/A100", a, b, c, "0x1p+0", "0x1p+0",
                       "paper 3.2 (constant 2^-24 -> 2^-25)"));
    }
  }

  // 3.1.3 Rounding modes.
  v.push_back(make("3.1.3/rz-vs-rn/positive", "3.1.3", "2 + 3/4*2^-22: RN/RU give 2+2^-22, RZ/RD give 2",
                   {"0x1p+0", "0x1p+0"}, {"0x1p+1", "0x1.8p-23"}, "0", "0x1p+1", "0x1p+1"));
  v.push_back(make("3.1.3/rz-vs-rd/negative", "3.1.3", "-2 - 3/4*2^-22: RZ gives -2, RD -2-2^-22",
                   {"0x1p+0", "0x1p+0"}, {"-0x1p+1", "-0x1.8p-23"}, "0", "-0x1p+1", "-0x1p+1"));
  v.push_back(make("3.2/rz-vs-rn/positive", "3.2", "2 + 3/4*2^-23 (T4/A100 constants): truncated",
                   {"0x1p+0", "0x1p-1"}, {"0x1p+1", "0x1.8p-23"}, "0", "0x1p+1", "0x1p+1",
                   "derived: 3.1.3 with the 3.2 constant change"));
  v.push_back(make("3.2/rz-vs-rd/negative", "3.2", "-2 - 3/4*2^-23 (T4/A100 constants): truncated toward zero",
                   {"0x1p+0", "0x1p-1"}, {"-0x1p+1", "-0x1.8p-23"}, "0", "-0x1p+1", "-0x1p+1",
                   "derived: 3.1.3 with the 3.2 constant change"));
  v.push_back(make("3.1.3/fp16-output-rounding", "3.1.3", "2^-25 + 2^-26 to binary16: RN gives 2^-24 (not RZ)",
                   {"0x1p-24", "0x1p-24"}, {"0x1p-1", "0x1p-2"}, "0", "0x1p-24", "0x1p-24", kPaper, "fp16",
                   "fp16"));

  // 3.1.4 Features of the accumulator.
  v.push_back(make("3.1.4/no-guard-digit", "3.1.4", "1 + (-1 + 2^-24) = 2^-23 on V100 (relative error 1)",
                   {"0x1p+0"}, {"0x1p+0"}, "-" + one_m24, "0x1p-23", "0x1p-24",
                   "paper (V100); derived for T4/A100 (F = 24 holds 2^-24 exactly)"));
  v.push_back(make("3.2/no-guard-digit", "3.2", "1 + (-1 + 2^-24) - 2^-25: the 2^-25 term is lost on T4/A100",
                   {"0x1p+0", "0x1p-1"}, {"0x1p+0", "-0x1p-24"}, "-" + one_m24, "0x1p-23", "0x1p-24",
                   "derived: 3.1.4 with the 3.2 constant change (exact result 2^-25)"));
  v.push_back(make("3.1.4/normalization-in-addition", "3.1.4",
                   "c = 1-2^-24 plus four 2^-24: 1+2^-23 without normalization of partial sums",
                   Strings(4, "0x1p+0"), Strings(4, "0x1p-24"), one_m24, "0x1.000002p+0", "0x1.000002p+0",
                   "paper (V100); derived for T4/A100"));
  v.push_back(make("3.2/normalization-in-addition", "3.2",
                   "c = 1-2^-24 plus four 2^-25: 2^-25 is below V100's register, kept by T4/A100",
                   Strings(4, "0x1p-1"), Strings(4, "0x1p-24"), one_m24, one_m24, "0x1p+0",
                   "derived: 3.1.4 with the 3.2 constant change"));
  v.push_back(make("3.1.4/normalization-in-subtraction", "3.1.4",
                   "c = -1+2^-24, products 1 and -2^-24: 2^-23 (0 if partial sums were normalized)",
                   {"0x1p+0", "0x1p+0"}, {"0x1p+0", "-0x1p-24"}, "-" + one_m24, "0x1p-23", "0",
                   "paper (V100); derived for T4/A100 (F = 24: exact 0)"));
  {
    const char* names[] = {"2^-23-first", "2^-23-second", "2^-23-third", "2^-23-last"};
    for (int pos = 0; pos < 4; ++pos) {
      Strings b(4, "0x1p+0");
      b[pos] = "0x1p-23";
      v.push_back(make(std::string("3.1.4/two-carry-bits/") + names[pos], "3.1.4",
                       "c = 1+2^-22+2^-23 plus 1, 1, 1, 2^-23 in any order: exactly 4+2^-21", Strings(4, "0x1p+0"),
                       b, c_carry, "0x1.000002p+2", "0x1.000002p+2"));
    }
  }
  v.push_back(make("3.1.4/three-carry-bits", "3.1.4", "1.875 + 1 + 1.5 + 1.75 + 1.875 = 8 (0 with two carry bits)",
                   Strings(4, "0x1p+0"), {"0x1p+0", "0x1.8p+0", "0x1.cp+0", "0x1.ep+0"}, "0x1.ep+0", "0x1p+3",
                   "0x1p+3"));
  v.push_back(make("3.1.4/final-rounding-rz", "3.1.4", "c = 1+2^-22+2^-23 plus four 1: 5 + 3/4 ulp rounds to 5 (RZ)",
                   Strings(4, "0x1p+0"), Strings(4, "0x1p+0"), c_carry, "0x1.4p+2", "0x1.4p+2"));
  v.push_back(make("3.1.4/final-rounding-rz/negative", "3.1.4",
                   "the same negated: -5 (RZ; RD would give -5-2^-21)", Strings(4, "0x1p+0"), Strings(4, "-0x1p+0"),
                   "-" + c_carry, "-0x1.4p+2", "-0x1.4p+2", "derived: negative counterpart (RZ vs RD)"));
  v.push_back(make("3.1.4/monotonicity/x", "3.1.4", "c = 1-2^-24 plus four 2^-24 gives 1+2^-23 ...",
                   Strings(4, "0x1p+0"), Strings(4, "0x1p-24"), one_m24, "0x1.000002p+0", "0x1.000002p+0",
                   "paper (V100); derived for T4/A100"));
  v.push_back(make("3.1.4/monotonicity/y", "3.1.4", "... while the larger c = 1 gives 1 (non-monotonic on V100)",
                   Strings(4, "0x1p+0"), Strings(4, "0x1p-24"), "0x1p+0", "0x1p+0", "0x1.000004p+0",
                   "paper (V100); derived for T4/A100 (F = 24 keeps 2^-24: monotonic here)"));
  // T4/A100 (k = 8) with eight 2^-25: x gives 1+2^-23, y gives 1. On V100 (k = 4 chained)
  // every 2^-25 is truncated.
  v.push_back(make("3.2/monotonicity/x", "3.2", "c = 1-2^-24 plus eight 2^-25: 1+2^-23 on T4/A100 ...",
                   Strings(8, "0x1p-1"), Strings(8, "0x1p-24"), one_m24, one_m24, "0x1.000002p+0",
                   "derived: 3.1.4 with the 3.2 constant change, eight products (k = 8)"));
  v.push_back(make("3.2/monotonicity/y", "3.2", "... while c = 1 gives 1 (non-monotonic on T4/A100)",
                   Strings(8, "0x1p-1"), Strings(8, "0x1p-24"), "0x1p+0", "0x1p+0", "0x1p+0",
                   "derived: 3.1.4 with the 3.2 constant change, eight products (k = 8)"));
  return v;
}

bool formats_match(const BlackBox& box, const Fasi2021Case& t) {
  return box.in == parse_format(t.in_format) && box.out == parse_format(t.out_format);
}

std::uint64_t exact_literal(const std::string& text, const Format& f, const std::string& field) {
  if (!literal_is_exact(text, f))
    throw std::invalid_argument(field + " = '" + text + "' is not exactly representable in " + f.name);
  return parse_literal(text, f, Rounding::NearestEven, field);
}

// binary16 operands (a, b) with a*b = sig * 2^k exactly (sig 1 or 3).
std::pair<std::string, std::string> fp16_product(int sig, int k) {
  const Format& h = formats::fp16();
  for (int x = 0; x >= -30; --x) {
    const std::string a = ExactValue::finite(false, 1, x).to_hex();
    const std::string b = ExactValue::finite(false, sig, k - x).to_hex();
    if (literal_is_exact(a, h) && literal_is_exact(b, h)) return {a, b};
  }
  throw std::invalid_argument("no binary16 product equals " + std::to_string(sig) + "*2^" + std::to_string(k));
}

std::string rz32(const ExactValue& v) {
  return decode(formats::fp32(), round_bits(v, formats::fp32(), Rounding::TowardZero)).to_hex();
}
ExactValue val(int sig, int e) { return ExactValue::finite(sig < 0, sig < 0 ? -sig : sig, e); }
ExactValue sum(std::initializer_list<ExactValue> xs) {
  ExactValue s = ExactValue::zero();
  for (const auto& x : xs) s = exact_add(s, x);
  return s;
}

}  // namespace

const std::vector<Fasi2021Case>& fasi2021_cases() {
  static const std::vector<Fasi2021Case> cases = build_cases();
  return cases;
}

std::vector<Fasi2021Case> fasi2021_cases_for_fraction_bits(int F) {
  if (F < 10 || F > 40)
    throw std::invalid_argument("F = " + std::to_string(F) + ": fasi2021_cases_for_fraction_bits needs 10..40");
  std::vector<Fasi2021Case> v;
  const std::string src = "generalized from fasi2021 by F (expected for a V100-like unit with F = " +
                          std::to_string(F) + ")";
  const std::string tag = "F=" + std::to_string(F) + "/";
  const auto [sa, sb] = fp16_product(1, -(F + 1));  // 2^-(F+1)
  const std::string s_hex = val(1, -(F + 1)).to_hex();
  const char* where[] = {"c", "b1", "b2", "b3", "b4"};
  for (int big = 0; big < 5; ++big) {
    Strings a(4, sa), b(4, sb);
    std::string c = s_hex;
    if (big == 0) c = "0x1p+0";
    else a[big - 1] = "0x1p+0", b[big - 1] = "0x1p+0";
    v.push_back(make(tag + "four-rounding-errors/" + where[big] + "=1", "3.1.2",
                     "one addend 1, four addends 2^-(F+1): all truncated", a, b, c, "0x1p+0", "", src));
  }
  {
    const auto [ra, rb] = fp16_product(3, -(F + 1));  // 3/4 * 2^(1-F)
    const std::string neg_rb = "-" + rb;
    v.push_back(make(tag + "rz-vs-rn/positive", "3.1.3", "2 + 3/4 of the register's last bit: truncated",
                     {"0x1p+0", ra}, {"0x1p+1", rb}, "0", "0x1p+1", "", src));
    v.push_back(make(tag + "rz-vs-rd/negative", "3.1.3", "-2 - 3/4 of the register's last bit: toward zero",
                     {"0x1p+0", ra}, {"-0x1p+1", neg_rb}, "0", "-0x1p+1", "", src));
  }
  {
    // 1 + (-(1-2^-24)) - 2^-(F+1): c is truncated to F bits, the last term is lost.
    v.push_back(make(tag + "no-guard-digit", "3.1.4", "1 - (1-2^-24) - 2^-(F+1): 2^-min(F,24)",
                     {"0x1p+0", sa}, {"0x1p+0", "-" + sb}, "-0x1.fffffep-1", val(1, -std::min(F, 24)).to_hex(), "",
                     src));
  }
  {
    // c = 1 - 2^-min(F+1,24) plus four 2^-(F+1), all kept (E = -1): one rounding at the end.
    const int cl = std::min(F + 1, 24);
    const ExactValue c = sum({val(1, 0), val(-1, -cl)});
    const std::string c_hex = c.to_hex();
    const ExactValue x = sum({c, val(4, -(F + 1))});
    v.push_back(make(tag + "normalization-in-addition", "3.1.4",
                     "c = 1-2^-min(F+1,24) plus four 2^-(F+1): one normalization at the end", Strings(4, sa),
                     Strings(4, sb), c_hex, rz32(x), "", src));
    v.push_back(make(tag + "monotonicity/x", "3.1.4", "the same (x) ...", Strings(4, sa), Strings(4, sb), c_hex,
                     rz32(x), "", src));
    v.push_back(make(tag + "monotonicity/y", "3.1.4", "... and c = 1 (y): the 2^-(F+1) terms are lost",
                     Strings(4, sa), Strings(4, sb), "0x1p+0", "0x1p+0", "", src));
  }
  return v;
}

std::vector<Fasi2021Result> run_fasi2021(std::span<const BlackBox> boxes, const std::vector<Fasi2021Case>& cases) {
  std::vector<Fasi2021Result> out;
  out.reserve(cases.size());
  for (const Fasi2021Case& t : cases) {
    Fasi2021Result r;
    r.test = t;
    const BlackBox* box = nullptr;
    for (const BlackBox& bb : boxes)
      if (formats_match(bb, t)) {
        box = &bb;
        break;
      }
    if (!box) {
      r.skipped = "no " + t.in_format + "->" + t.out_format + " datapath";
      out.push_back(std::move(r));
      continue;
    }
    std::vector<std::uint64_t> a, b;
    for (std::size_t i = 0; i < t.a.size(); ++i) {
      a.push_back(exact_literal(t.a[i], box->in, t.id + ": a[" + std::to_string(i) + "]"));
      b.push_back(exact_literal(t.b[i], box->in, t.id + ": b[" + std::to_string(i) + "]"));
    }
    const std::uint64_t c = exact_literal(t.c, box->out, t.id + ": c");
    r.d = box->dot(a, b, c);
    r.ran = true;
    const ExactValue dv = decode(box->out, r.d);
    r.result = dv.to_hex();
    auto check = [&](const std::string& expected) -> std::optional<bool> {
      if (expected.empty()) return std::nullopt;
      const std::uint64_t e = exact_literal(expected, box->out, t.id + ": expected");
      return decode(box->out, e).equals(dv);
    };
    r.v100_pass = check(t.v100);
    r.t4_a100_pass = check(t.t4_a100);
    out.push_back(std::move(r));
  }
  return out;
}

std::string pass_text(const std::optional<bool>& pass) { return !pass ? "n/a" : (*pass ? "PASS" : "FAIL"); }

std::string fasi2021_to_text(const std::vector<Fasi2021Result>& results) {
  std::ostringstream os;
  std::size_t width = 0;
  for (const auto& r : results) width = std::max(width, r.test.id.size());
  int v_pass = 0, v_total = 0, t_pass = 0, t_total = 0;
  for (const auto& r : results) {
    os << "  " << r.test.id << std::string(width - r.test.id.size() + 2, ' ');
    if (!r.ran) {
      os << "skipped (" << r.skipped << ")\n";
      continue;
    }
    os << "d = " << r.result;
    os << "   V100 " << pass_text(r.v100_pass);
    if (r.v100_pass && !*r.v100_pass) os << " (expected " << r.test.v100 << ")";
    os << "   T4/A100 " << pass_text(r.t4_a100_pass);
    if (r.t4_a100_pass && !*r.t4_a100_pass) os << " (expected " << r.test.t4_a100 << ")";
    os << "\n";
    if (r.v100_pass) ++v_total, v_pass += *r.v100_pass;
    if (r.t4_a100_pass) ++t_total, t_pass += *r.t4_a100_pass;
  }
  os << "  summary: V100 expectations " << v_pass << "/" << v_total << " PASS, T4/A100 expectations " << t_pass
     << "/" << t_total << " PASS\n";
  return os.str();
}

nlohmann::json fasi2021_to_json(const std::vector<Fasi2021Result>& results) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& r : results) {
    nlohmann::json j;
    j["test"] = r.test.id;
    j["section"] = r.test.section;
    j["title"] = r.test.title;
    j["in"] = r.test.in_format;
    j["out"] = r.test.out_format;
    if (r.ran) {
      j["result"] = r.result;
      j["result_bits"] = bits_to_hex(parse_format(r.test.out_format), r.d);
    } else {
      j["result"] = nullptr;
      j["skipped"] = r.skipped;
    }
    j["expected_v100"] = r.test.v100.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.test.v100);
    j["expected_t4_a100"] = r.test.t4_a100.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.test.t4_a100);
    j["v100"] = pass_text(r.v100_pass);
    j["t4_a100"] = pass_text(r.t4_a100_pass);
    j["source"] = r.test.source;
    arr.push_back(std::move(j));
  }
  return arr;
}

}  // namespace tcsim::validation
