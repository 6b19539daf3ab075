// Every published real-GPU data file through the built-in unit of its GPU: 0 mismatches
// required, except the open H100 fp8 -> binary16 files, whose match rate may only go up
// (best rates in validation/data/open_cases.json).
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "test_support.hpp"
#include "tcsim/models/unit.hpp"
#include "tcsim/sim/adder.hpp"
#include <algorithm>
#include <memory>
#include "tcsim/validation/dump_gpu_data.hpp"
#include "tcsim/validation/dump_validate.hpp"

using namespace tcsim;
using namespace tcsim::validation;

namespace {

struct OpenBest {
  std::size_t cases = 0;
  std::size_t best_matches = 0;
};

std::map<std::string, OpenBest> load_open_cases() {
  std::map<std::string, OpenBest> out;
  const std::string path = std::string(TCSIM_SOURCE_DIR) + "/validation/data/open_cases.json";
  std::ifstream in(path);
  if (!in) return out;
  const auto j = nlohmann::json::parse(in);
  for (const auto& [key, v] : j.at("files").items())
    out[key] = {v.at("cases").get<std::size_t>(), v.at("best_matches").get<std::size_t>()};
  return out;
}

// TEMPORARY until models::builtin_unit lands: the parameters of units.md section 2.
DotFunction builtin_dot(const GpuDataFile& f) {
  AdderConfig cfg;
  cfg.a_format = cfg.b_format = f.in;
  cfg.c_format = cfg.out_format = f.out;
  cfg.carry_bits = 3;
  const bool fp16_out = f.out == formats::fp16();
  cfg.final_rounding = fp16_out ? Rounding::NearestEven : Rounding::TowardZero;
  const bool fp8 = f.in == formats::e4m3() || f.in == formats::e5m2();
  const bool tf32 = f.in == formats::tf32();
  int k = 4;
  if (f.gpu == "V100") {
    k = 4, cfg.fraction_bits = 23;
  } else if (f.gpu == "A100" || f.gpu == "Ada") {
    k = fp8 ? 16 : tf32 ? 4 : 8;
    cfg.fraction_bits = fp8 ? 13 : 24;
    cfg.min_exponent = fp16_out ? -20 : -132;
  } else {
    k = fp8 ? 32 : tf32 ? 8 : 16;
    cfg.fraction_bits = fp8 ? 13 : 25;
    cfg.min_exponent = fp16_out ? -21 : -133;
    cfg.carry_bits = 5;  // 3 wraps H100/fp16 case 3683 (sum 8.23 with E = -1)
  }
  auto adder = std::make_shared<FixedPointAdder>(cfg);
  const std::size_t ks = static_cast<std::size_t>(k);
  // fp8 with binary32 output keeps 13 fraction bits: truncate the other 10 (normal results).
  const std::uint64_t mask = fp8 && !fp16_out ? ~std::uint64_t{0x3ff} : ~std::uint64_t{0};
  return [adder, ks, mask](std::span<const std::uint64_t> a, std::span<const std::uint64_t> b, std::uint64_t c) {
    for (std::size_t s = 0; s < a.size(); s += ks) {
      const std::size_t n = std::min(ks, a.size() - s);
      c = adder->dot(a.subspan(s, n), b.subspan(s, n), c) & mask;
    }
    return c;
  };
}

}  // namespace

TEST_CASE("real-GPU data: every file reproduced by its GPU's built-in unit", "[gpu-data]") {
  const std::string dir = tcsim::test::gpu_data_dir();
  const auto files = discover_gpu_data(dir);
  if (files.empty()) {
    WARN("real-GPU data not found in '" << dir
                                        << "' (set TCSIM_GPU_DATA to its directory): skipping the "
                                           "validation against real GPUs");
    SUCCEED("skipped: no real-GPU data");
    return;
  }
  const auto open = load_open_cases();
  std::size_t closed_files = 0;
  for (const auto& f : files) {
    const DumpSet dump = load_dump(f.paths, f.in, f.out, f.c_input);
    const ValidationResult r = validate_dump(dump, builtin_dot(f), 3);
    const double pct = 100.0 * r.match_rate();
    std::printf("[gpu-data] %-22s unit %-5s %-9s %s%s (%.2f %% match)\n", f.label().c_str(), f.unit.c_str(),
                f.instruction.empty() ? "default" : f.instruction.c_str(), summary_line(r).c_str(),
                f.c_input == AccumulatorInput::Zero ? ", c = 0" : "", pct);
    INFO(f.key() << " (" << f.label() << ", unit " << f.unit << "): " << summary_line(r));
    if (f.open) {
      const auto it = open.find(f.key());
      REQUIRE(it != open.end());  // every open file has a recorded best rate
      const std::size_t matches = r.cases - r.mismatches;
      std::printf("[gpu-data] open file %s: %zu of %zu cases match (%.2f %%); best recorded %zu (%.2f %%)%s\n",
                  f.key().c_str(), matches, r.cases, pct, it->second.best_matches,
                  100.0 * double(it->second.best_matches) / double(it->second.cases),
                  matches > it->second.best_matches ? ": better, update validation/data/open_cases.json" : "");
      CHECK(r.cases == it->second.cases);
      CHECK(matches >= it->second.best_matches);
      continue;
    }
    ++closed_files;
    for (const auto& m : r.first) std::printf("%s", describe_mismatch(dump, m).c_str());
    CHECK(r.cases == 5000);
    CHECK(r.mismatches == 0);
  }
  CHECK(closed_files > 0);
}

TEST_CASE("real-GPU data: the data directory holds the files the test expects", "[gpu-data]") {
  const std::string dir = tcsim::test::gpu_data_dir();
  const auto files = discover_gpu_data(dir);
  if (files.empty()) {
    WARN("real-GPU data not found in '" << dir << "': skipping");
    SUCCEED("skipped: no real-GPU data");
    return;
  }
  // V100 fp16 (2 outputs); A100 fp16 (2), bf16, tf32; Ada fp16 (2), bf16, tf32, E4M3 (2),
  // E5M2 (2); H100 the same as Ada: 4 + 8 + 8 = 22 files when the whole set is there.
  CHECK(files.size() == 22);
  std::size_t open_files = 0;
  for (const auto& f : files) open_files += f.open ? 1 : 0;
  CHECK(open_files == 2);
  const auto open = load_open_cases();
  for (const auto& f : files)
    if (f.open) CHECK(open.count(f.key()) == 1);
}
