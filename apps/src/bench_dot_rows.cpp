// tcsim bench dot --all-rows: every built-in datapath row (unit, input and output format,
// instruction) through Unit::dot_batch (element-major 64-bit patterns) and, for operands of at
// most 16 bits, Unit::dot_batch_planar (product-major 16-bit patterns), one line per row as it
// finishes, beside issue 25's target (docs/performance.md keeps the table). Rows that share one
// datapath (a generic row serving several instructions) are one line.
#include "bench_dot_rows.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_all_rows.hpp"
#include "bench_support.hpp"
#include "json_output.hpp"
#include "progress.hpp"
#include "tcsim/sim/adder.hpp"
#include "tcsim/sim/format.hpp"

namespace tcsim::cli {

namespace {

// Issue 25's targets for `tcsim bench dot`, elements per second on the 2-core machine.
constexpr double kTarget = 1e8, kTargetH100Fp16 = 3e8;

}  // namespace

int bench_dot_all_rows(const ParsedArgs& a, const models::Unit* only, std::size_t n, unsigned threads,
                       double min_seconds, std::uint64_t seed) {
  AllRows t(a, only, "tcsim bench dot");
  const unsigned used_threads = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
  std::size_t below = 0;
  t.print_header("tcsim bench dot --all-rows: " + std::to_string(n) + " elements per call, " +
                     std::to_string(used_threads) + " thread" + (used_threads == 1 ? "" : "s") + ", load average " +
                     t.load_before + "\n",
                 "| unit | in -> out | instruction | K | layout, path | elements/s | target | check |");
  t.for_each_row([&](const BenchRow& row, const models::Unit& unit, const Format& in, const Format& out,
                     const std::string& instruction) {
    const models::DatapathSpec& spec = unit.datapath(in, out, instruction);
    // One instruction's K, as `tcsim bench dot`: 2k for the pairs-mod4 rows.
    const std::size_t K = static_cast<std::size_t>(spec.k_split == models::KSplit::PairsMod4 ? 2 * spec.fma_size
                                                                                              : spec.fma_size);
    std::uint64_t index = 0;
    std::vector<std::uint64_t> A(n * K), B(n * K), C(n), D(n), D_planar(n);
    for (auto& x : A) x = bench_random_value(in, seed, index, -4, 1);
    for (auto& x : B) x = bench_random_value(in, seed, index, -4, 1);
    for (auto& x : C) x = bench_random_value(out, seed, index, -4, 1);
    const double rate = measure_rate(
        [&] { unit.dot_batch(in, out, n, K, A.data(), B.data(), C.data(), D.data(), instruction, threads); }, n,
        min_seconds).per_second;
    const bool planar = in.width <= 16;
    double planar_rate = 0;
    if (planar) {
      const Planar16 At = product_major16(A.data(), n, K), Bt = product_major16(B.data(), n, K);
      planar_rate = measure_rate([&] {
        unit.dot_batch_planar(in, out, n, K, At.data(), Bt.data(), C.data(), D_planar.data(), instruction, threads);
      }, n, min_seconds).per_second;
    }
    // A sample of both layouts' results against Unit::dot (the reference path).
    const std::size_t sample = std::min<std::size_t>(n, 2000);
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < sample; ++i) {
      const std::uint64_t want = unit.dot(in, out, {A.data() + i * K, K}, {B.data() + i * K, K}, C[i], instruction);
      mismatches += want != D[i] || (planar && want != D_planar[i]);
    }
    t.total_mismatches += mismatches;
    const bool planar_faster = planar_rate > rate;
    const double best = std::max(rate, planar_rate);
    const double target = unit.name() == "h100" && in.name == "fp16" ? kTargetH100Fp16 : kTarget;
    below += best < target;
    const std::string path = planar_faster ? unit.batch_path_planar(in, out, instruction) : unit.batch_path(in, out, instruction);
    const std::string layout = planar_faster ? "planar" : "element-major";
    if (t.json) {
      nlohmann::json j = row.json();
      j["K"] = K;
      j["layout"] = layout;
      j["path"] = path;
      j["elements_per_second"] = best;
      j["element_major_elements_per_second"] = rate;
      if (planar) j["planar_elements_per_second"] = planar_rate;
      j["target"] = target;
      j["meets_target"] = best >= target;
      j["checked"] = sample;
      j["mismatches"] = mismatches;
      t.out_rows.push_back(j);
    } else {
      std::printf("| %s | %s -> %s | %s | %zu | %s, %s | %.3g | %.0e%s | %zu/%zu |\n", unit.name().c_str(), in.name.c_str(),
                  out.name.c_str(), join_instructions(row.instructions).c_str(), K, layout.c_str(), path.c_str(), best, target,
                  best >= target ? " (met)" : "", sample - mismatches, sample);
      std::fflush(stdout);
    }
  });
  nlohmann::json j;
  j["benchmark"] = "dot-all-rows";
  j["elements"] = n;
  j["threads"] = used_threads;
  j["below_target"] = below;
  return t.finish(j, std::to_string(below) + " of " + std::to_string(t.rows.size()) + " rows below their target; ");
}

}  // namespace tcsim::cli
