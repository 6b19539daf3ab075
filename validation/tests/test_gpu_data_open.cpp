// The research model of the fp8 mma.sync emulation (an implementation independent of the
// unit rows: SplitModel over bare sim adders) on every emulated real-GPU file: the H100
// fp8 -> binary16 files (docs/research/h100_fp8_fp16.md) and the B200 vectors of both
// outputs. The units' own rows are checked in test_gpu_data.cpp and test_gpu_vectors.cpp.
#include <catch2/catch.hpp>

#include <cstdio>

#include "test_support.hpp"
#include "tcsim/validation/dump_gpu_data.hpp"
#include "tcsim/validation/dump_open_models.hpp"
#include "tcsim/validation/dump_validate.hpp"

using namespace tcsim;
using namespace tcsim::validation;

TEST_CASE("partitions of the split models", "[open]") {
  CHECK(split_partition("mod4", 8) == std::vector<std::vector<int>>{{0, 1, 4, 5}, {2, 3, 6, 7}});
  CHECK(split_partition("contiguous-reversed", 4) == std::vector<std::vector<int>>{{2, 3}, {0, 1}});
  CHECK(split_partition("even-odd", 4) == std::vector<std::vector<int>>{{0, 2}, {1, 3}});
  CHECK_THROWS_AS(split_partition("zigzag", 4), std::invalid_argument);
  const Format& h = formats::fp16();
  CHECK(ieee_add_rne(h, 0x3c00, 0xbc00) == 0x0000);  // 1 + -1 = +0
  CHECK(ieee_add_rne(h, 0x8000, 0x8000) == 0x8000);  // -0 + -0 = -0
  CHECK(ieee_add_rne(h, 0x3c00, 0x1000) == 0x3c00);  // 1 + 2^-11 ties to even
  CHECK(ieee_add_rne(h, 0x3c01, 0x1000) == 0x3c02);
  CHECK_THROWS_AS(fp8_mma_sync_emulation_model(formats::e4m3(), formats::bf16()), std::invalid_argument);
}

namespace {
// Runs the research model over every emulated file of `dir`; returns the files checked.
std::size_t check_emulated_files(const std::string& dir) {
  std::size_t checked = 0;
  for (const auto& f : discover_gpu_data(dir)) {
    if (!f.fp8_emulated) continue;
    const DumpSet dump = load_dump(f.paths, f.in, f.out, f.c_input);
    const SplitModel model = fp8_mma_sync_emulation_model(f.in, f.out);
    const auto r = validate_dump(dump, make_split_model(model), 3);
    std::printf("[open] %s: %s (%s)\n", f.key().c_str(), summary_line(r).c_str(), model.name.c_str());
    for (const auto& m : r.first) std::printf("%s", describe_mismatch(dump, m).c_str());
    INFO(f.key() << ": " << summary_line(r));
    CHECK(r.cases > 0);
    CHECK(r.mismatches == 0);
    ++checked;
  }
  return checked;
}
}  // namespace

TEST_CASE("real-GPU data: H100 fp8 -> binary16 mma.sync is two interleaved fp16 HMMA steps plus c",
          "[gpu-data][open]") {
  const std::string dir = tcsim::test::gpu_data_dir();
  if (discover_gpu_data(dir).empty()) {
    WARN("real-GPU data not found in '" << dir << "' (set TCSIM_GPU_DATA): skipping");
    SUCCEED("skipped: no real-GPU data");
    return;
  }
  CHECK(check_emulated_files(dir) == 2);
}

TEST_CASE("real B200 vectors: the research model of the emulation matches both outputs", "[gpu-data][open]") {
  const std::string dir = tcsim::test::gpu_vectors_dir();
  if (discover_gpu_data(dir).empty()) {
    WARN("real B200 vectors not found in '" << dir << "' (set TCSIM_GPU_VECTORS): skipping");
    SUCCEED("skipped: no B200 vectors");
    return;
  }
  CHECK(check_emulated_files(dir) == 4);
}
