// tcsim report: the main job. A few dot products of fasi2021's test vectors through the
// V100 adder with their bit patterns, then the fasi2021 suite and the black-box probe of
// that adder (validation/probe_v100_report.hpp).
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "commands.hpp"
#include "json_output.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/literal.hpp"
#include "tcsim/validation/probe_v100_report.hpp"
#include "tcsim/validation/fasi2021_suite.hpp"

namespace tcsim::cli {

namespace {

// The fasi2021 vectors shown as examples (ids of fasi2021_cases()).
const char* const kExamples[] = {
    "3.1.2/exact-products",          "3.1.2/four-rounding-errors/c=1",  "3.1.3/rz-vs-rn/positive",
    "3.1.3/rz-vs-rd/negative",       "3.1.3/fp16-output-rounding",      "3.1.4/no-guard-digit",
    "3.1.4/normalization-in-addition", "3.1.4/three-carry-bits",        "3.1.4/monotonicity/x",
    "3.1.4/monotonicity/y",
};

struct Example {
  const validation::Fasi2021Case* test;
  std::vector<std::uint64_t> a, b;
  std::uint64_t c, d;
  const Format* in;
  const Format* out;
};

std::vector<Example> run_examples() {
  const std::vector<validation::BlackBox> boxes = {validation::v100_adder_box(formats::fp32()),
                                                   validation::v100_adder_box(formats::fp16())};
  std::vector<Example> out;
  for (const char* id : kExamples)
    for (const auto& t : validation::fasi2021_cases()) {
      if (t.id != id) continue;
      const Format& fin = parse_format(t.in_format);
      const Format& fout = parse_format(t.out_format);
      const validation::BlackBox& box = fout == formats::fp32() ? boxes[0] : boxes[1];
      Example e{&t, {}, {}, parse_literal(t.c, fout), 0, &fin, &fout};
      for (std::size_t i = 0; i < t.a.size(); ++i) {
        e.a.push_back(parse_literal(t.a[i], fin));
        e.b.push_back(parse_literal(t.b[i], fin));
      }
      e.d = box.dot(e.a, e.b, e.c);
      out.push_back(std::move(e));
    }
  return out;
}

std::string hex_list(const Format& f, const std::vector<std::uint64_t>& v) {
  std::string s;
  for (auto x : v) s += (s.empty() ? "" : " ") + bits_to_hex(f, x);
  return s;
}

}  // namespace

int cmd_report(const Args& args) {
  ArgParser p("report",
              "the V100 tensor-core adder of fasi2021: example dot products (fasi2021 vectors, bit "
              "patterns), the fasi2021 test suite (PASS/FAIL against the V100 and T4/A100 findings) "
              "and the black-box feature probe of the adder");
  p.flag("json", "print one JSON object {examples, adder, fasi2021, probe}");
  const auto a = p.parse(args);
  if (a.help()) return p.print_help();
  const auto examples = run_examples();
  if (a.has("json")) {
    nlohmann::json j = validation::v100_adder_report_json();
    j["examples"] = nlohmann::json::array();
    for (const auto& e : examples) {
      nlohmann::json x;
      x["test"] = e.test->id;
      x["section"] = e.test->section;
      x["in"] = e.in->name;
      x["out"] = e.out->name;
      x["a"] = nlohmann::json::array();
      x["b"] = nlohmann::json::array();
      for (auto v : e.a) x["a"].push_back(bits_to_hex(*e.in, v));
      for (auto v : e.b) x["b"].push_back(bits_to_hex(*e.in, v));
      x["c"] = bits_to_hex(*e.out, e.c);
      x["d"] = bits_to_hex(*e.out, e.d);
      x["d_value"] = decode(*e.out, e.d).to_hex();
      x["expected_v100"] = e.test->v100;
      j["examples"].push_back(std::move(x));
    }
    print_json(j, 2);
    return 0;
  }
  std::printf("Example dot products d = c + sum a_i b_i through the V100 adder (fasi2021 vectors):\n");
  for (const auto& e : examples) {
    std::printf("\n  %s (section %s): %s\n", e.test->id.c_str(), e.test->section.c_str(), e.test->title.c_str());
    std::printf("    %s -> %s\n", e.in->name.c_str(), e.out->name.c_str());
    std::printf("    a = %s\n    b = %s\n    c = %s (%s)\n", hex_list(*e.in, e.a).c_str(), hex_list(*e.in, e.b).c_str(),
                bits_to_hex(*e.out, e.c).c_str(), decode(*e.out, e.c).to_hex().c_str());
    std::printf("    d = %s (%s); fasi2021 reports %s on V100\n", bits_to_hex(*e.out, e.d).c_str(),
                decode(*e.out, e.d).to_hex().c_str(), e.test->v100.c_str());
  }
  std::printf("\n%s", validation::v100_adder_report().c_str());
  return 0;
}

}  // namespace tcsim::cli
