// tcsim bench lu: simulated rl TC32 LU against Eigen's native binary32 LU (issue 8's speed
// target: ratio <= 20 at n = 4096 on h100; docs/performance.md).
#include "bench_lu.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "json_output.hpp"
#include "native_gemm.hpp"
#include "progress.hpp"
#include "tcsim/models/lu.hpp"

namespace tcsim::cli {

int bench_lu(const ParsedArgs& a, const models::Unit& unit, std::size_t n, std::size_t r, unsigned threads,
             std::uint64_t seed) {
  const bool json = a.has("json");
  const std::vector<double> A = models::matrix_hpl_ai(n, seed);
  std::vector<float> Af(A.size());
  for (std::size_t i = 0; i < A.size(); ++i) Af[i] = static_cast<float>(A[i]);
  models::LuOptions o;
  o.block = r;
  o.threads = threads;
  o.instruction = a.get_or("instruction", "");
  Progress progress("tcsim bench lu", !a.has("quiet"));
  o.progress = [&](double f) { progress.update("simulated LU", f); };
  const auto t0 = std::chrono::steady_clock::now();
  const models::LuResult lu = models::simulate_lu(unit, formats::fp16(), n, A, o);
  const double sim_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  progress.update("native LU", 1.0);
  const NativeGemm native = native_lu_f32(n, Af.data(), 3, static_cast<int>(threads));
  progress.done();
  const double ratio = sim_seconds / native.seconds;
  const double flops = 2.0 / 3.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  if (json) {
    nlohmann::json j;
    j["benchmark"] = "lu";
    j["unit"] = unit.name();
    j["n"] = n;
    j["r"] = r;
    j["algorithm"] = lu.algorithm;
    j["variant"] = lu.variant;
    j["storage"] = lu.storage;
    j["matrix"] = "hpl-ai";
    j["seed"] = seed;
    j["threads"] = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
    j["path"] = lu.path;
    j["unit_calls"] = lu.unit_calls;
    j["sim_seconds"] = sim_seconds;
    j["native_seconds"] = native.seconds;
    j["ratio"] = ratio;
    j["native_gflops"] = flops / native.seconds * 1e-9;
    j["native_isa"] = native.isa;
    j["native_threads"] = native.threads;
    print_json(j);
  } else {
    std::printf("unit %s, LU of an hpl-ai matrix, n = %zu: rl (blanchard2020 Algorithm 4.1), TC32 updates, fp32 "
                "storage, r = %zu (%s)\n",
                unit.name().c_str(), n, r, lu.path.c_str());
    std::printf("simulated LU: %.3f s (%zu GEMMs through the unit)\n", sim_seconds, lu.unit_calls);
    std::printf("native binary32 LU (Eigen PartialPivLU, %s, %d threads): %.4f s (%.1f GFLOP/s)\n", native.isa.c_str(),
                native.threads, native.seconds, flops / native.seconds * 1e-9);
    std::printf("ratio simulated / native: %.1f\n", ratio);
  }
  return 0;
}

}  // namespace tcsim::cli
