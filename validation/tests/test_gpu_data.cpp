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

// The built-in unit of the file's GPU, for the instruction the data was made with.
DotFunction builtin_dot(const GpuDataFile& f) {
  const models::Unit* unit = &models::builtin_unit(f.unit);
  const Format in = f.in, out = f.out;
  const std::string instruction = f.instruction;
  return [unit, in, out, instruction](std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                                      std::uint64_t c) { return unit->dot(in, out, a, b, c, instruction); };
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
