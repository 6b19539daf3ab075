// tcsim bench gemm --all-rows: every built-in datapath row (unit, input and output format,
// instruction) through Unit::gemm_into (block-scaled rows: Unit::gemm_scaled) beside Eigen's native GEMM on the same matrices (binary32,
// binary64 for the fp64 rows), one line per row as it finishes (docs/performance.md keeps the
// table). Rows that share one datapath (a generic row serving several instructions) are one line.
#include "bench_gemm_rows.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_all_rows.hpp"
#include "bench_gemm_scaled.hpp"
#include "bench_support.hpp"
#include "json_output.hpp"
#include "progress.hpp"
#include "tcsim/sim/adder.hpp"
#include "tcsim/sim/block_kernel.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/fma_lanes.hpp"
#include "tcsim/sim/format.hpp"
#include "tcsim/sim/rounding.hpp"

namespace tcsim::cli {

namespace {

using Clock = std::chrono::steady_clock;

// Rows on the reference path run at about 3e5 block FMAs per second: a 1024^3 GEMM would
// take minutes per row, so they run at this n (and once), which their line says.
constexpr std::size_t kReferenceN = 256;

// Inputs: uniform in (-1, 1) (the same doubles for every row of an n), rounded to nearest even
// into each format once.
class Inputs {
 public:
  explicit Inputs(std::uint64_t seed) : seed_(seed) {}
  const std::vector<std::uint64_t>& get(std::size_t n, int role, const Format& f) {
    auto& v = cache_[{n, role, f.name}];
    if (v.empty()) {
      v.resize(n * n);
      for (std::size_t i = 0; i < n * n; ++i)
        v[i] = bench_uniform_value(f, counter_random(seed_ + static_cast<std::uint64_t>(role), i));
    }
    return v;
  }

 private:
  std::uint64_t seed_;
  std::map<std::tuple<std::size_t, int, std::string>, std::vector<std::uint64_t>> cache_;
};

// How Unit::gemm evaluates the row: the kernel's tiles (binary32 lanes) or binary64 lanes,
// fma-chain (lanes or scalar), or "reference: <why>" (Unit::batch_path; the kernel built as Unit builds it).
std::string gemm_path(const models::Unit& unit, const Format& in, const Format& out, const std::string& instruction,
                      bool scaled) {
  const std::string path = gemm_group_path(unit.batch_path(in, out, instruction), scaled);
  if (path == "fma-chain") return fma_lanes::gemm_path_label(out.width == 64);  // sim fma_lanes.hpp
  if (path != "kernel") return path;
  const BlockKernel kernel(unit.adder(in, out, instruction).config(),
                           static_cast<std::size_t>(unit.datapath(in, out, instruction).fma_size));
  return kernel.tile_supported() ? "kernel (tiles)" : "kernel (binary64 lanes)";
}

}  // namespace

int bench_gemm_all_rows(const ParsedArgs& a, const models::Unit* only, std::size_t n, unsigned threads,
                        std::uint64_t seed) {
  AllRows t(a, only, "tcsim bench gemm");
  Inputs inputs(seed);
  t.print_header("tcsim bench gemm --all-rows: n = " + std::to_string(n) + " (reference-path rows: n = " +
                     std::to_string(std::min(n, kReferenceN)) + ", 1 run), load average " + t.load_before + "\n",
                 "| unit | in -> out | instruction | path | n | simulated s | native GFLOP/s | ratio | check |");
  t.for_each_row([&](const BenchRow& row, const models::Unit& unit, const Format& in, const Format& out,
                     const std::string& instruction) {
    const bool reference = gemm_path(unit, in, out, instruction, false).rfind("reference", 0) == 0;
    const std::size_t rn = reference ? std::min(n, kReferenceN) : n;
    const int runs = reference ? 1 : 3;
    const bool binary64 = in.precision > 24 || out.precision > 24;
    const auto& A = inputs.get(rn, 0, in);
    const auto& B = inputs.get(rn, 1, in);
    const auto& C = inputs.get(rn, 2, out);
    std::vector<std::uint64_t> D(rn * rn);
    // Block-scaled rows: Unit::gemm_scaled with random scales (bench_gemm_scaled.hpp).
    const std::optional<BenchScales> scales = bench_scales(unit, in, out, instruction, rn, rn, rn, seed);
    const std::string path = scales ? gemm_path(unit, in, out, instruction, true) + ", " + scales->label
                                    : gemm_path(unit, in, out, instruction, false);
    // Peak resident memory of the simulated GEMM beyond what is resident before (inputs, D).
    reset_peak_resident();  // first: it frees the planes earlier rows left in this thread's cache
    const std::size_t rss_before = status_field_bytes("VmRSS");
    double sim_seconds = 1e300;
    for (int run = 0; run < runs; ++run) {
      const auto t0 = Clock::now();
      bench_gemm_run(unit, in, out, rn, rn, rn, A, B, C, D, instruction, threads, scales);
      sim_seconds = std::min(sim_seconds, std::chrono::duration<double>(Clock::now() - t0).count());
    }
    const std::size_t peak = status_field_bytes("VmHWM");
    const std::size_t peak_bytes = peak > rss_before ? peak - rss_before : 0;
    const NativeGemm native = native_baseline(in, out, binary64, rn, rn, A, B, C, threads);
    // 16 sampled entries against Unit::dot (the reference path).
    std::size_t mismatches = 0, checked = 0;
    for (std::size_t s = 0; s < 16; ++s, ++checked) {
      const std::size_t i = counter_random(seed + 7, 2 * s) % rn, j = counter_random(seed + 7, 2 * s + 1) % rn;
      mismatches += bench_gemm_entry(unit, in, out, rn, rn, A, B, C, instruction, scales, i, j) != D[i * rn + j];
    }
    t.total_mismatches += mismatches;
    const double n3 = static_cast<double>(rn) * static_cast<double>(rn) * static_cast<double>(rn);
    const double ratio = sim_seconds / native.seconds, gflops = 2 * n3 / native.seconds * 1e-9;
    const std::string native_kind = binary64 ? "binary64" : "binary32";
    if (t.json) {
      nlohmann::json j = row.json();
      j["path"] = path;
      j["n"] = rn;
      if (rn != n) j["note"] = "reference path: n = " + std::to_string(rn) + ", 1 run";
      j["sim_seconds"] = sim_seconds;
      j["native"] = native_kind;
      j["native_seconds"] = native.seconds;
      j["native_gflops"] = gflops;
      j["native_isa"] = native.isa;
      j["ratio"] = ratio;
      j["macs_per_second"] = n3 / sim_seconds;
      j["peak_bytes"] = peak_bytes;
      j["checked"] = checked;
      j["mismatches"] = mismatches;
      t.out_rows.push_back(j);
    } else {
      std::printf("| %s | %s -> %s | %s | %s | %zu%s | %.3g | %.0f (%s) | %.1f | %zu/%zu |\n", unit.name().c_str(),
                  in.name.c_str(), out.name.c_str(), join_instructions(row.instructions).c_str(), path.c_str(), rn,
                  rn != n ? " (reference: 1 run)" : "", sim_seconds, gflops, native_kind.c_str(), ratio,
                  checked - mismatches, checked);
      std::fflush(stdout);
    }
  });
  nlohmann::json j;
  j["benchmark"] = "gemm-all-rows";
  j["n"] = n;
  j["reference_n"] = std::min(n, kReferenceN);
  j["threads"] = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
  return t.finish(j, "");
}

}  // namespace tcsim::cli
