// Issue 25: every real-GPU case of the fp8 mma.sync emulation (the pairs-mod4 / final-add rows:
// H100/H200 fp8 -> fp16 in ../shared/data/gpu, the B200 vectors in ../shared/data/gpu-vectors)
// through the fast paths: dot_batch, dot_batch_planar (the planar lanes on each instruction's
// permuted rows) and gemm (the tiles, the final addition in SIMD lanes; each case a 1 x 1 GEMM),
// against the hardware's results.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>

#include "test_support.hpp"
#include "tcsim/models/unit.hpp"
#include "tcsim/validation/dump_gpu_data.hpp"
#include "tcsim/validation/dump_validate.hpp"

using namespace tcsim;
using namespace tcsim::validation;

TEST_CASE("real GPU data: the fp8 mma.sync emulation rows on the fast paths reproduce every case", "[gpu-data][pairs]") {
  std::size_t files = 0, cases = 0;
  for (const std::string& dir : {tcsim::test::gpu_data_dir(), tcsim::test::gpu_vectors_dir()}) {
    if (!std::filesystem::exists(dir)) {
      WARN("real-GPU data not found in '" << dir << "' (set TCSIM_GPU_DATA / TCSIM_GPU_VECTORS); skipped");
      continue;
    }
    for (const auto& f : discover_gpu_data(dir)) {
      if (!f.fp8_emulated) continue;
      const DumpSet dump = load_dump(f.paths, f.in, f.out, f.c_input);
      const models::Unit& unit = models::builtin_unit(f.unit);
      const std::size_t n = dump.n, K = dump.k;
      INFO(f.key());
      REQUIRE(unit.datapath(f.in, f.out, f.instruction).k_split == models::KSplit::PairsMod4);
      std::vector<std::uint64_t> batch(n), planar(n);
      std::vector<std::uint16_t> at(n * K), bt(n * K);
      for (std::size_t t = 0; t < K; ++t)
        for (std::size_t i = 0; i < n; ++i) {
          at[t * n + i] = static_cast<std::uint16_t>(dump.a[i * K + t]);
          bt[t * n + i] = static_cast<std::uint16_t>(dump.b[i * K + t]);
        }
      unit.dot_batch(f.in, f.out, n, K, dump.a.data(), dump.b.data(), dump.c.data(), batch.data(), f.instruction, 2);
      unit.dot_batch_planar(f.in, f.out, n, K, at.data(), bt.data(), dump.c.data(), planar.data(), f.instruction, 2);
      std::size_t batch_bad = 0, planar_bad = 0, gemm_bad = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const std::vector<std::uint64_t> d =
            unit.gemm(f.in, f.out, 1, 1, K, {dump.a.data() + i * K, K}, {dump.b.data() + i * K, K}, {dump.c.data() + i, 1},
                      f.instruction, 1);
        batch_bad += batch[i] != dump.d[i];
        planar_bad += planar[i] != dump.d[i];
        gemm_bad += d[0] != dump.d[i];
      }
      std::printf("[gpu-pairs] %-34s %zu cases via %s: batch %zu mismatches, planar %zu, gemm %zu\n", f.key().c_str(), n,
                  unit.batch_path_planar(f.in, f.out, f.instruction).c_str(), batch_bad, planar_bad, gemm_bad);
      CHECK(batch_bad == 0);
      CHECK(planar_bad == 0);
      CHECK(gemm_bad == 0);
      ++files;
      cases += n;
    }
  }
  std::printf("[gpu-pairs] %zu files, %zu cases\n", files, cases);
}
