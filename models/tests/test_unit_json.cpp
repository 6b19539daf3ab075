// User-defined units from JSON: the schema, its error messages, round trips of every
// built-in unit.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "models_test_helpers.hpp"
#include "tcsim/models/unit_json.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::models::test;
using Catch::Matchers::Contains;
using nlohmann::json;

namespace {

json v100_like() {
  return json::parse(R"({
    "name": "my-volta", "input_formats": ["fp16"], "output_formats": ["fp32", "fp16"],
    "fma_size": 4, "fraction_bits": 23, "carry_bits": 3, "alignment_rounding": "rz",
    "sticky_bit": false, "normalization": "deferred", "order": "largest-first",
    "c_placement": "aligned", "final_rounding": {"fp32": "rz", "fp16": "rne"},
    "min_exponent": {"fp16": -19}, "subnormal_inputs": true, "subnormal_outputs": true})");
}

std::string parse_error(const json& j) {
  try {
    UnitSpec s = parse_unit_json(j, "unit.json");
    Unit u(std::move(s));
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no exception)";
}

}  // namespace

TEST_CASE("unit json: a user row reproduces the built-in v100") {
  const Unit mine(parse_unit_json(v100_like(), "test"));
  CHECK(mine.name() == "my-volta");
  CHECK(mine.spec().architecture == "user");
  const Unit& v100 = builtin_unit("v100");
  auto seed = tcsim::test::seed("json v100", 5);
  tcsim::test::Rng rng(seed);
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  for (std::uint64_t t = 0; t < tcsim::test::count(3000); ++t) {
    std::vector<std::uint64_t> a(4), b(4);
    for (auto& x : a) x = rng.next() & 0x7bff;  // finite, positive or not below
    for (auto& x : b) {  // named draws: operand order is unspecified
      x = rng.next() & 0x7bff;
      x |= rng.below(2) ? 0x8000 : 0;
    }
    const std::uint64_t c = rng.next() & 0x7f7fffffu;
    // Carry bits 3 vs 4 differ only when the register overflows 16 * 2^E: skip those.
    const std::uint64_t want = v100.dot(f16, f32, a, b, c);
    const std::uint64_t got = mine.dot(f16, f32, a, b, c);
    AdderTrace tr;
    v100.adder(f16, f32).dot(a, b, c, &tr);
    const BigInt mag = tr.register_value < 0 ? BigInt(-tr.register_value) : tr.register_value;
    if (!tr.special && mag >= (BigInt(1) << (23 + 4))) continue;
    REQUIRE(got == want);
  }
  // The 8 vector needs only 3 carry bits.
  const auto a = bits(f16, {1, 1, 1, 1}), b = bits(f16, {1, 1.5, 1.75, 1.875});
  CHECK(value(f32, mine.dot(f16, f32, a, b, bits(f32, 1.875))) == 8.0);
}

TEST_CASE("unit json: a 2-carry-bit register wraps the 8 vector to 0 (fasi2021 3.1.4)") {
  json j = v100_like();
  j["carry_bits"] = 2;
  const Unit u(parse_unit_json(j, "test"));
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  const auto a = bits(f16, {1, 1, 1, 1}), b = bits(f16, {1, 1.5, 1.75, 1.875});
  CHECK(value(f32, u.dot(f16, f32, a, b, bits(f32, 1.875))) == 0.0);
}

TEST_CASE("unit json: every built-in unit round-trips through the schema") {
  for (const UnitSpec& spec : builtin_unit_specs()) {
    INFO(spec.name);
    const json j = to_json(spec);
    const UnitSpec back = parse_unit_json(j, "roundtrip");
    CHECK(back == spec);
    // Text round trip too, and each row alone is a valid single-row unit.
    CHECK(parse_unit_json(json::parse(j.dump(2)), "text") == spec);
    for (const auto& row : j["datapaths"]) {
      const UnitSpec one = parse_unit_json(row, "row");
      CHECK(one.name == spec.name);
      CHECK_NOTHROW(Unit(one));
    }
    CHECK_NOTHROW(Unit(back));
  }
}

TEST_CASE("unit json: missing, unknown and ill-typed keys are named") {
  for (const char* key : {"name", "input_formats", "output_formats", "fma_size", "fraction_bits", "carry_bits",
                          "alignment_rounding", "sticky_bit", "normalization", "order", "c_placement",
                          "final_rounding", "subnormal_inputs", "subnormal_outputs"}) {
    json j = v100_like();
    j.erase(key);
    const std::string m = parse_error(j);
    INFO(m);
    CHECK_THAT(m, Contains("unit.json") && Contains(std::string("missing required key '") + key + "'"));
  }
  {
    json j = v100_like();
    j.erase("min_exponent");  // optional
    CHECK(parse_error(j) == "(no exception)");
    j["min_exponent"] = nullptr;
    CHECK(parse_error(j) == "(no exception)");
    j["min_exponent"] = -20;
    CHECK(parse_unit_json(j).datapaths[0].min_exponent == std::map<std::string, int>{{"fp16", -20}, {"fp32", -20}});
  }
  {
    json j = v100_like();
    j["fma_sise"] = 4;
    const std::string m = parse_error(j);
    CHECK_THAT(m, Contains("unknown key 'fma_sise'") && Contains("allowed keys: name, input_formats") &&
                      Contains("subnormal_outputs"));
  }
  struct Bad {
    const char* key;
    json value;
    const char* want;
  };
  const Bad bads[] = {
      {"fma_size", "8", "key 'fma_size': expected an integer, got a string"},
      {"fma_size", 0, "key 'fma_size': 0 is out of range; allowed: 1..65536"},
      {"fraction_bits", 1.5, "key 'fraction_bits': expected an integer, got a number"},
      {"carry_bits", -1, "key 'carry_bits': -1 is out of range"},
      {"sticky_bit", "no", "key 'sticky_bit': expected true or false"},
      {"alignment_rounding", "nearest", "key 'alignment_rounding': 'nearest' is not allowed; allowed: rz, rd, ru, rne"},
      {"normalization", "eager", "allowed: deferred, per-step"},
      {"order", "random", "allowed: largest-first, sequential, pairwise"},
      {"c_placement", "early", "allowed: aligned, late, after"},
      {"final_rounding", json::parse(R"({"fp32": "rz"})"), "key 'final_rounding': no entry for output format 'fp16'"},
      {"final_rounding", json::parse(R"({"fp32": "rz", "fp16": "rne", "bf16": "rz"})"),
       "key 'final_rounding': 'bf16' is not one of the output_formats"},
      {"final_rounding", json::parse(R"({"fp32": "sr", "fp16": "rne"})"), "'sr' is not allowed; allowed: rne, rz"},
      {"final_rounding", 3, "key 'final_rounding': expected an object"},
      {"input_formats", "fp16", "key 'input_formats': expected an array of strings"},
      {"input_formats", json::array({"fp17"}), "unknown input_formats 'fp17'; allowed: fp64"},
      {"output_formats", json::array(), "key 'output_formats': must list at least one format"},
      {"min_exponent", "low", "key 'min_exponent': expected null, an integer or an object"},
      {"subnormal_inputs", 1, "key 'subnormal_inputs': expected true or false, got an integer"},
  };
  for (const Bad& b : bads) {
    json j = v100_like();
    j[b.key] = b.value;
    const std::string m = parse_error(j);
    INFO(b.key << ": " << m);
    CHECK_THAT(m, Contains("unit.json: ") && Contains(b.want));
  }
}

TEST_CASE("unit json: Unit validation names the field (formats, shapes, duplicate rows)") {
  UnitSpec s = parse_unit_json(v100_like());
  s.datapaths[0].shapes = {"mma.m16n8"};
  CHECK_THROWS_WITH(Unit(s), Contains("unit 'my-volta' datapath 0: shapes:") && Contains("is not a shape"));
  s = parse_unit_json(v100_like());
  s.datapaths.push_back(s.datapaths[0]);
  CHECK_THROWS_WITH(Unit(s), Contains("datapath 1: instruction:") && Contains("already serves fp16->fp32"));
  s.datapaths[1].instruction = "mma.sync";
  CHECK_NOTHROW(Unit(s));
  s = parse_unit_json(v100_like());
  s.datapaths[0].output_formats = {"fp32", "binary32"};
  CHECK_THROWS_WITH(Unit(s), Contains("output_formats: 'fp32' is listed twice"));
}

TEST_CASE("unit json: unit form with several rows, files, arrays") {
  const json unit = {{"name", "two"},
                     {"architecture", "test"},
                     {"aliases", {"second"}},
                     {"datapaths", {v100_like(), v100_like()}}};
  json u2 = unit;
  u2["datapaths"][1]["instruction"] = "other";
  u2["datapaths"][0].erase("name");
  u2["datapaths"][1]["name"] = "two";
  u2["datapaths"][0]["name"] = "two";
  const UnitSpec s = parse_unit_json(u2, "x");
  CHECK(s.datapaths.size() == 2);
  CHECK(s.aliases == std::vector<std::string>{"second"});
  CHECK_THROWS_WITH(parse_unit_json(unit, "x"), Contains("differs from the unit's name 'two'"));
  json bad = u2;
  bad["datapaths"][0]["aliases"] = json::array();
  CHECK_THROWS_WITH(parse_unit_json(bad, "x"), Contains("datapaths[0]: unknown key 'aliases'"));
  CHECK_THROWS_WITH(parse_unit_json(json::array({u2, u2}), "x"), Contains("holds 2 units"));
  CHECK(parse_unit_json(json::array({u2}), "x") == s);

  const auto dir = std::filesystem::temp_directory_path();
  const std::string path = (dir / "tcsim_models_test_unit.json").string();
  {
    std::ofstream f(path);
    f << v100_like().dump(2);
  }
  CHECK(load_unit_json(path).name == "my-volta");
  {
    std::ofstream f(path);
    f << "{ \"name\": ";
  }
  CHECK_THROWS_WITH(load_unit_json(path), Contains(path) && Contains("not valid JSON"));
  std::filesystem::remove(path);
  CHECK_THROWS_WITH(load_unit_json(path), Contains("cannot be opened"));
}

TEST_CASE("unit json: per-step, late c and result_fraction_bits rows work") {
  json j = v100_like();
  j["normalization"] = "per-step";
  j["order"] = "sequential";
  j["fraction_bits"] = 60;
  j["sticky_bit"] = true;
  j["final_rounding"] = "rne";
  const Unit u(parse_unit_json(j));
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  // An IEEE fp32 FMA chain.
  const auto a = bits(f16, {1, std::ldexp(1, -12)}), b = bits(f16, {1, std::ldexp(1, -12)});
  CHECK(value(f32, u.dot(f16, f32, a, b, bits(f32, std::ldexp(1, -25)))) == 1.0);
  json r = v100_like();
  r["result_fraction_bits"] = {{"fp32", 10}};
  const Unit u2(parse_unit_json(r));
  const auto a2 = bits(f16, {1 + std::ldexp(1, -10)}), b2 = bits(f16, {1 + std::ldexp(1, -10)});
  // (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20, truncated to 10 fraction bits: 1 + 2^-9.
  CHECK(value(f32, u2.dot(f16, f32, a2, b2, 0)) == 1 + std::ldexp(1, -9));
  CHECK(parse_unit_json(to_json(u2.spec())) == u2.spec());
}

TEST_CASE("unit json: files that are directories, unreadable or hold numbers beyond binary64 are named") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "tcsim_models_test_unit_files";
  fs::create_directories(dir);
  CHECK_THROWS_WITH(load_unit_json(dir.string()), "unit file '" + dir.string() + "' is a directory; give a JSON file");
  const auto write = [&](const std::string& name, const std::string& text) {
    const std::string path = (dir / name).string();
    std::ofstream(path) << text;
    return path;
  };
  const std::string allowed = "; allowed: the schema's numbers are small integers, e.g. \"fma_size\": 16";
  // json::parse reports no position for 1e400 (out_of_range.406): the line and key are found.
  const std::string flat = write("flat.json", "{\"name\": \"toy\",\n \"fma_size\": 1e400,\n \"carry_bits\": 3}");
  CHECK_THROWS_WITH(load_unit_json(flat),
                    "unit file '" + flat + "': line 2: key 'fma_size': the number 1e400 is beyond binary64" + allowed);
  const std::string nested = write("nested.json", "{\"name\": \"two\", \"datapaths\": [{},\n {\"block_scale\":\n"
                                                  "  {\"block_sizes\": [32, -1e999]}}]}");
  CHECK_THROWS_WITH(load_unit_json(nested),
                    "unit file '" + nested + "': line 3: key 'datapaths[1].block_scale.block_sizes[1]': the number "
                    "-1e999 is beyond binary64" + allowed);
  const std::string bare = write("bare.json", "\n\n1e400");
  CHECK_THROWS_WITH(load_unit_json(bare), "unit file '" + bare + "': line 3: the number 1e400 is beyond binary64" + allowed);
  if (fs::exists("/proc/self/mem"))  // read() fails with EIO at offset 0: a read error, not EOF
    CHECK_THROWS_WITH(load_unit_json("/proc/self/mem"), "unit file '/proc/self/mem': cannot be read (Input/output error)");
  fs::remove_all(dir);
}
