// Every published real-GPU data file through the built-in unit of its GPU: 0 mismatches
// required in all 22 files, the H100 fp8 -> binary16 mma.sync files included (the
// fp16-tensor-core emulation, docs/research/h100_fp8_fp16.md). The B200 vectors:
// test_gpu_vectors.cpp.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <string>

#include "test_support.hpp"
#include "tcsim/models/unit.hpp"
#include "tcsim/validation/dump_gpu_data.hpp"
#include "tcsim/validation/dump_validate.hpp"

using namespace tcsim;
using namespace tcsim::validation;

namespace {

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
  std::size_t checked = 0;
  for (const auto& f : files) {
    const DumpSet dump = load_dump(f.paths, f.in, f.out, f.c_input);
    const ValidationResult r = validate_dump(dump, builtin_dot(f), 3);
    const double pct = 100.0 * r.match_rate();
    std::printf("[gpu-data] %-22s unit %-5s %-9s %s%s (%.2f %% match)\n", f.label().c_str(), f.unit.c_str(),
                f.instruction.empty() ? "default" : f.instruction.c_str(), summary_line(r).c_str(),
                f.c_input == AccumulatorInput::Zero ? ", c = 0" : "", pct);
    INFO(f.key() << " (" << f.label() << ", unit " << f.unit << "): " << summary_line(r));
    ++checked;
    for (const auto& m : r.first) std::printf("%s", describe_mismatch(dump, m).c_str());
    CHECK(r.cases == 5000);
    CHECK(r.mismatches == 0);
  }
  CHECK(checked == files.size());
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
  std::size_t emulated = 0;
  for (const auto& f : files) emulated += f.fp8_emulated ? 1 : 0;
  CHECK(emulated == 2);
}
