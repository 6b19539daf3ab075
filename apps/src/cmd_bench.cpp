// tcsim bench dot: block FMAs per second through Unit::dot_batch (the path the unit row takes:
// the block kernel or the reference adder), beside the reference path measured in the same
// run, and a bit-for-bit check of a sample against Unit::dot. Speed targets live here, not in
// timed tests (docs/performance.md).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "bench_dot_rows.hpp"
#include "bench_gemm_mpi.hpp"
#include "bench_fit.hpp"
#include "bench_gemm_rows.hpp"
#include "bench_gemm_scaled.hpp"
#include "distributed_items.hpp"
#include "bench_lu.hpp"
#include "bench_support.hpp"
#include "bench_verify.hpp"
#include "json_output.hpp"
#include "native_gemm.hpp"
#include "progress.hpp"
#include "commands.hpp"
#include "unit_option.hpp"
#include "tcsim/models/unit.hpp"
#include "tcsim/sim/adder.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/fma_lanes.hpp"
#include "tcsim/sim/rounding.hpp"

namespace tcsim::cli {

namespace {

using Clock = std::chrono::steady_clock;

// sim's counter-based generator: the bench's inputs are the same for a seed on every machine.
struct Rng {
  std::uint64_t seed, index = 0;
  std::uint64_t next() { return counter_random(seed, index++); }
};

template <class F>
double seconds_of(F&& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// --seconds: the minimum measuring time of each call (bench dot).
double bench_seconds(const ParsedArgs& a) {
  const std::string text = a.get_or("seconds", "1");
  std::size_t used = 0;
  double v = -1;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
  }
  if (used != text.size() || !(v >= 0.01 && v <= 600))
    throw std::invalid_argument("option '--seconds' for 'tcsim bench' must be a number in 0.01..600, got '" + text + "'");
  return v;
}

int bench_dot(const ParsedArgs& a) {
  a.require_one_of({"unit", "unit-config"});
  const Format& in = parse_format(a.get_or("in", "fp16"), "--in");
  const Format& out = parse_format(a.get_or("out", "fp32"), "--out");
  const SelectedUnit selected = select_unit(a);
  const models::Unit& unit = *selected.unit;
  const std::string instruction = a.get_or("instruction", "");
  const models::DatapathSpec& row = unit.datapath(in, out, instruction);
  auto int_option = [&](const char* name, long long fallback, long long lo, long long hi) {
    return a.get_int(name, lo, hi, fallback);
  };
  // One instruction's K by default: 2k for the pairs-mod4 rows (m16n8k32 on two blocks of 16).
  const long long instruction_k = row.k_split == models::KSplit::PairsMod4 ? 2 * row.fma_size : row.fma_size;
  const auto K = static_cast<std::size_t>(int_option("k", instruction_k, 1, 4096));  // K = 0: no products to time
  const auto n = static_cast<std::size_t>(int_option("elements", 1 << 16, 1, 1 << 24));
  const auto threads = static_cast<unsigned>(int_option("threads", 0, 0, 1024));
  const unsigned used_threads = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
  const double min_seconds = bench_seconds(a);
  Rng rng{static_cast<std::uint64_t>(int_option("seed", 1, 0, (1ll << 62)))};

  std::vector<std::uint64_t> A(n * K), B(n * K), C(n), D(n);
  for (auto& x : A) x = bench_random_value(in, rng.seed, rng.index, -4, 1);
  for (auto& x : B) x = bench_random_value(in, rng.seed, rng.index, -4, 1);
  for (auto& x : C) x = bench_random_value(out, rng.seed, rng.index, -4, 1);

  // Each measured call repeated until min_seconds have passed (measure_rate): elements per second.
  // Element-major 64-bit patterns (dot_batch), and for formats of at most 16 bits the same
  // operands product-major in 16-bit patterns (dot_batch_planar).
  Progress progress("tcsim bench dot", !a.has("quiet"));
  progress.update("dot_batch", 0.0);
  const auto [rate, runs] = measure_rate(
      [&] { unit.dot_batch(in, out, n, K, A.data(), B.data(), C.data(), D.data(), instruction, threads); }, n,
      min_seconds);
  const bool planar = in.width <= 16;
  double planar_rate = 0;
  std::vector<std::uint64_t> D_planar(n);
  if (planar) {
    progress.update("dot_batch_planar", 0.4);
    const Planar16 At = product_major16(A.data(), n, K), Bt = product_major16(B.data(), n, K);
    planar_rate = measure_rate([&] {
                    unit.dot_batch_planar(in, out, n, K, At.data(), Bt.data(), C.data(), D_planar.data(), instruction,
                                          threads);
                  }, n, min_seconds).per_second;
  }
  // The reference path (Unit::dot: reference adder and chaining) on a sample, one thread, and
  // the check that every layout gives its bits.
  progress.update("reference path", 0.8);
  const std::size_t sample = std::min<std::size_t>(n, 20000);
  std::size_t mismatches = 0;
  const double ref_seconds = seconds_of([&] {
    for (std::size_t i = 0; i < sample; ++i) {
      const std::uint64_t want = unit.dot(in, out, {A.data() + i * K, K}, {B.data() + i * K, K}, C[i], instruction);
      mismatches += want != D[i] || (planar && want != D_planar[i]);
    }
  });
  const double ref_rate = static_cast<double>(sample) / ref_seconds;
  const std::string path = unit.batch_path(in, out, instruction);
  progress.done();

  if (a.has("json")) {
    nlohmann::json j;
    j["benchmark"] = "dot";
    j["unit"] = unit.name();
    j["in"] = in.name;
    j["out"] = out.name;
    j["instruction"] = row.instruction;
    j["K"] = K;
    j["elements"] = n;
    j["threads"] = used_threads;
    j["elements_per_second"] = std::max(rate, planar_rate);
    j["layout"] = planar_rate > rate ? "planar" : "element-major";
    j["element_major_elements_per_second"] = rate;
    if (planar) j["planar_elements_per_second"] = planar_rate;
    j["path"] = path;
    j["planar_path"] = planar ? unit.batch_path_planar(in, out, instruction) : "(formats wider than 16 bits)";
    j["reference_elements_per_second"] = ref_rate;
    j["checked"] = sample;
    j["mismatches"] = mismatches;
    print_json(j);
  } else {
    std::printf("unit %s, %s -> %s%s, K = %zu, %zu elements x %zu runs, %u thread%s\n", unit.name().c_str(),
                in.name.c_str(), out.name.c_str(), row.instruction.empty() ? "" : (", " + row.instruction).c_str(), K,
                n, runs, used_threads, used_threads == 1 ? "" : "s");
    std::printf("dot_batch, element-major 64-bit patterns (%s): %.3g block FMAs per second\n", path.c_str(), rate);
    if (planar)
      std::printf("dot_batch_planar, product-major 16-bit patterns (%s): %.3g block FMAs per second\n",
                  unit.batch_path_planar(in, out, instruction).c_str(), planar_rate);
    std::printf("reference (Unit::dot, 1 thread): %.3g per second\n", ref_rate);
    std::printf("check: %zu of %zu sampled elements equal Unit::dot\n", sample - mismatches, sample);
  }
  return mismatches == 0 ? 0 : 1;
}

int bench_gemm(const ParsedArgs& a, const models::Unit& unit, const Format& in, const Format& out,
               const std::string& instruction, std::size_t n, unsigned threads, std::uint64_t seed) {
  // The native baseline: Eigen's binary64 GEMM for fp64 output (the fp64 rows), else binary32.
  const bool binary64 = out == formats::fp64();
  if (binary64 ? in.precision > 53 : (in.precision > 24 || out != formats::fp32()))
    throw std::invalid_argument("tcsim bench gemm compares with a binary32 GEMM, or a binary64 one for fp64 output: "
                                "--out must be fp32 and --in a format binary32 holds (fp16, bf16, tf32, fp8, ...), "
                                "or --out fp64");
  Progress progress("tcsim bench gemm", !a.has("quiet"));
  // One update per phase: the heartbeat (progress.hpp) shows it again while calls that report
  // nothing themselves run (gemm_into, Eigen's GEMM, filling n*n inputs).
  progress.update("random inputs", 0.0);
  Rng rng{seed};
  // m = n; --k: A n x k, B k x n (default k = n).
  const auto k = static_cast<std::size_t>(a.get_int("k", 1, 1 << 20, static_cast<long long>(n)));
  const std::optional<BenchScales> scales = bench_scales(unit, in, out, instruction, n, n, k, seed);
  if ((k != n || scales) && job_ranks() > 1)
    throw std::invalid_argument("tcsim bench gemm under mpirun runs square unscaled GEMMs (--k = --n, no block-scaled "
                                "instruction)");
  std::vector<std::uint64_t> A(n * k), B(k * n), C(n * n);
  for (auto& x : A) x = bench_uniform_value(in, rng.next());
  progress.update("random inputs", 1.0 / 3);
  for (auto& x : B) x = bench_uniform_value(in, rng.next());
  progress.update("random inputs", 2.0 / 3);
  for (auto& x : C) x = bench_uniform_value(out, rng.next());
  // --specials N: N NaN/Inf operands in A and N in B at random places (the GEMM's NaN/Inf path;
  // docs/performance.md, session 40). Their rows of A and columns of B join the checked sample.
  const auto specials = static_cast<std::size_t>(a.get_int("specials", 0, 1 << 20, 0));
  std::vector<std::size_t> special_rows, special_cols;
  if (specials > 0) {
    if (!in.has_nan() && !in.infinities)
      throw std::invalid_argument("--specials: the input format '" + in.name + "' has neither NaN nor Inf; allowed: " +
                                  "formats with NaN or Inf (fp16, bf16, tf32, e4m3, e5m2, ...)");
    if (specials > n * k)
      throw std::invalid_argument("--specials: " + std::to_string(specials) + " is not allowed; allowed: 0.." +
                                  std::to_string(n * k) + " (the operands of A, n x k)");
    // +Inf, -Inf, NaN, -NaN in turn (NaN alone, of both signs, where the format has no Inf).
    auto special = [&](std::size_t s) {
      const bool negative = s % 2 != 0;
      if (in.infinities && s % 4 < 2) return in.infinity(negative);
      return in.canonical_nan() | (negative ? in.sign_mask() : 0);
    };
    for (std::size_t s = 0; s < specials; ++s) {
      const std::size_t at_a = static_cast<std::size_t>(rng.next() % (n * k));
      const std::size_t at_b = static_cast<std::size_t>(rng.next() % (k * n));
      A[at_a] = special(s);
      B[at_b] = special(s + 1);
      special_rows.push_back(at_a / k);
      special_cols.push_back(at_b % n);
    }
  }
  progress.update("binary32 copies", 0);
  // Under mpirun: the distributed GEMM against one rank (bench_gemm_mpi.hpp); rank 0 goes on alone.
  const nlohmann::json mpi =
      k == n && !scales ? bench_gemm_distributed(unit, in, out, n, A, B, C, instruction, threads, 3) : nlohmann::json();
  if (mpi.contains("rank")) return 0;
  // Both sides measured alike: the best of 3 runs, each writing into an output allocated once.
  std::vector<std::uint64_t> D(n * n);
  double sim_seconds = 1e300;
  // Peak resident bytes of the simulated GEMM beyond what is resident before it (the inputs
  // and D): its packed operands and per-thread tiles.
  reset_peak_resident();  // first: it frees the planes earlier GEMMs left in this thread's cache
  const std::size_t rss_before = status_field_bytes("VmRSS");
  for (int run = 0; run < 3; ++run) {
    progress.update("simulated GEMM, run " + std::to_string(run + 1) + " of 3", run / 3.0);
    sim_seconds = std::min(sim_seconds, seconds_of([&] { bench_gemm_run(unit, in, out, n, n, k, A, B, C, D, instruction, threads, scales); }));
  }
  const std::size_t peak = status_field_bytes("VmHWM"), peak_bytes = peak > rss_before ? peak - rss_before : 0;
  progress.update("native GEMM (Eigen), 3 runs", 0);
  const NativeGemm native = native_baseline(in, out, binary64, n, k, A, B, C, threads);
  const char* native_kind = binary64 ? "binary64" : "binary32";
  // A sample of D against Unit::dot.
  progress.update("checking 64 entries against Unit::dot", 0);
  std::size_t checked = 0, mismatches = 0;
  for (std::size_t s = 0; s < 64; ++s) {
    std::size_t i = static_cast<std::size_t>(rng.next() % n), j = static_cast<std::size_t>(rng.next() % n);
    if (specials > 0 && s % 4 == 1) i = special_rows[static_cast<std::size_t>(rng.next() % specials)];
    if (specials > 0 && s % 4 == 2) j = special_cols[static_cast<std::size_t>(rng.next() % specials)];
    mismatches += bench_gemm_entry(unit, in, out, n, k, A, B, C, instruction, scales, i, j) != D[i * n + j];
    ++checked;
  }
  progress.done();
  const double n3 = static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(k);
  const double ratio = sim_seconds / native.seconds;
  std::string path = gemm_group_path(unit.batch_path(in, out, instruction), scales.has_value());
  if (path == "fma-chain") path = fma_lanes::gemm_path_label(out.width == 64);  // GEMM: the lanes (sim fma_lanes.hpp)
  if (scales) path += ", " + scales->label;
  if (a.has("json")) {
    nlohmann::json j;
    j["benchmark"] = "gemm";
    j["unit"] = unit.name();
    j["in"] = in.name;
    j["out"] = out.name;
    j["n"] = n;
    j["k"] = k;
    j["threads"] = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
    j["specials"] = specials;
    j["path"] = path;
    j["peak_bytes"] = peak_bytes;
    j["load_average"] = load_average_text();
    j["sim_seconds"] = sim_seconds;
    j["native_seconds"] = native.seconds;
    j["ratio"] = ratio;
    j["macs_per_second"] = n3 / sim_seconds;
    j["native_gflops"] = 2 * n3 / native.seconds * 1e-9;
    j["native"] = native_kind;
    j["native_isa"] = native.isa;
    j["native_threads"] = native.threads;
    j["checked"] = checked;
    j["mismatches"] = mismatches;
    if (!mpi.is_null()) j["mpi"] = mpi;
    print_json(j);
  } else {
    std::printf("unit %s, %s -> %s, n = %zu%s%s (%s)\n", unit.name().c_str(), in.name.c_str(), out.name.c_str(), n,
                k == n ? "" : (", k = " + std::to_string(k)).c_str(),
                specials ? (", " + std::to_string(specials) + " NaN/Inf operands in A and in B").c_str() : "",
                path.c_str());
    std::printf("simulated GEMM: %.3f s (%.3g MAC/s), peak %.3g MB beyond the inputs\n", sim_seconds,
                n3 / sim_seconds, static_cast<double>(peak_bytes) * 1e-6);
    std::printf("native %s GEMM (Eigen, %s, %d threads): %.4f s (%.1f GFLOP/s)\n", native_kind, native.isa.c_str(),
                native.threads, native.seconds, 2 * n3 / native.seconds * 1e-9);
    std::printf("ratio simulated / native: %.1f\n", ratio);
    std::printf("check: %zu of %zu sampled elements equal Unit::dot\n", checked - mismatches, checked);
    if (!mpi.is_null())
      std::printf("distributed over %d ranks (grid %s): %.3f s, one rank %.3f s: speed-up %.2f, efficiency %.0f %%%s\n",
                  mpi["ranks"].get<int>(), mpi["grid"].get<std::string>().c_str(), mpi["sim_seconds_distributed"].get<double>(),
                  mpi["sim_seconds_one_rank"].get<double>(), mpi["speedup"].get<double>(),
                  100 * mpi["efficiency"].get<double>(), mpi["d_equal"].get<bool>() ? "" : " (D DIFFERS)");
  }
  return mismatches == 0 ? 0 : 1;
}

}  // namespace

int cmd_bench(const Args& args) {
  ArgParser p("bench",
              "benchmarks (speed targets live here, not in the tests; docs/performance.md). 'tcsim bench dot': "
              "block FMAs per second through Unit::dot_batch on random inputs, beside the reference path, "
              "with a bit-for-bit check of a sample. 'tcsim bench gemm': the simulated n x n GEMM beside "
              "Eigen's native binary32 GEMM (binary64 for fp64 output) on the same matrices (best ISA, all threads), ratio and GFLOP/s. "
              "'tcsim bench lu': the simulated rl TC32 LU of an n x n hpl-ai matrix beside Eigen's binary32 LU "
              "(PartialPivLU, all threads) of the same matrix, and their ratio. 'tcsim bench verify': the differential "
              "campaign (docs/reliability.md): --cases random cases (built-in and user-defined rows, edge cases) "
              "through the kernels, the reference adder and MPFR; exit 1 and the seed of each mismatch if any. "
              "'tcsim bench fit': tcsim fit on --cases-case dumps of built-in rows (docs/fit.md: at most 2 minutes "
              "each); --evaluate builtin|random fits every built-in row and pair, or --rows random user rows, and "
              "checks the fitted rows on --check further cases");
  p.positional("benchmark", "dot | gemm | lu | verify | fit");
  declare_unit_options(p);
  p.option("in", "input format (default fp16)", "fmt");
  p.option("out", "output format (default fp32)", "fmt");
  p.option("instruction", "datapath by instruction (default: the unit's default for the formats)", "name");
  p.option("k", "products per element (default: one instruction's K, the row's FMA size or 2k for pairs-mod4 rows); "
                "gemm: the inner dimension, A n x k and B k x n (default n)", "K");
  p.option("elements", "elements per dot_batch call (default 65536)", "N");
  p.option("threads", "threads of dot_batch (default 0: all cores)", "T");
  p.option("seconds", "minimum measuring time (default 1)", "S");
  p.option("seed", "seed of the random inputs (default 1)", "S");
  p.option("n", "gemm, lu: the matrices' order (default 1024 for gemm, 4096 for lu)", "N");
  p.option("r", "lu: the block size (default 128)", "R");
  p.option("runs", "lu: runs of each side, the best one counts (default 3; 1 under mpirun)", "R");
  p.option("cases", "verify: number of random cases (default 1000000); fit: cases per dump (default 5000)", "N");
  p.option("evaluate", "fit: builtin (every built-in row and pair) or random (--rows random user rows)", "set");
  p.option("fit-seconds", "fit: time limit of each fit's pair search (default 90; with --fit-budget a cap, "
                          "default 120)", "S");
  p.option("specials", "gemm: N NaN/Inf operands in A and N in B at random places, the GEMM's NaN/Inf path "
                       "(default 0)", "N");
  p.option("fit-budget", "fit: each fit's work budget in cases run through candidate rows, the same counts at "
                         "any load, or none (default 5000000 with --evaluate random, 100000000 with --evaluate builtin, "
                         "else none)", "N");
  p.option("rows", "fit --evaluate random: number of random rows (default 200)", "N");
  p.option("only", "fit --evaluate: only the rows whose label contains this text (e.g. mi300x, 'random 17')", "text");
  p.option("mix", "fit: the dumps' cases: basic, or range (also min-exponent, alignment-shift and carry cases; "
                  "default with --evaluate random)", "set");
  p.option("check", "fit: further cases on which the fitted row must agree (default 1000000 with --evaluate, else 0)", "N");
  p.option("choice-rows", "fit: exact rows collected near the one found: the report's coupled values and --choose's "
                         "candidates (default 64; 1: none)", "N");
  p.flag("choose", "fit: choose each undecided key's value among the exact rows near the one found by their "
                   "answers on fresh cases (FitOptions::choose; default: the row found)");
  p.option("choice-pool", "fit: fresh products (cases x K) per dump on which the exact rows are grouped "
                         "(default 131072)", "N");
  p.option("rounds", "fit --evaluate: rounds of the active loop after each fit, 0..5: 1000 suggested cases answered "
                    "by the hidden row and fitted again with the dump (default 0: the dump alone)", "R");
  p.flag("no-certainty", "fit: leave out the report's 'how sure' check (tcsim fit --no-certainty): the times are the "
                         "fit's alone and no row is counted sure or not sure");
  p.option("show-differing", "fit --evaluate: differing check cases printed per disagreeing row (default 3)", "N");
  p.option("first", "verify: index of the first case (default 0; a mismatch's case reruns with --cases 1)", "I");
  p.flag("progress", "verify: also a summary line on stderr every minute (long background runs)");
  p.option("inject", "verify, testing the campaign itself: flip the last bit of one result (kernel|planar|mpfr@<case>)",
           "check@I");
  p.flag("all-rows", "gemm, dot: every built-in row (unit, formats, instruction; --unit: that unit's rows), one line each "
         "(gemm: reference-path rows at n = 256; dot: one instruction's K, elements/s beside the target)");
  declare_json_and_quiet(p);
  const auto a = p.parse(args);
  if (a.help()) return p.print_help();
  const std::string which = a.positional().empty() ? "" : a.positional()[0];
  if (which != "dot" && which != "gemm" && which != "lu" && which != "verify" && which != "fit")
    throw std::invalid_argument("name one benchmark: 'tcsim bench dot', 'tcsim bench gemm', 'tcsim bench lu', "
                                "'tcsim bench verify' or 'tcsim bench fit'; allowed: dot, gemm, lu, verify, fit");
  if (a.positional().size() > 1)  // name the stray word rather than ask again for a benchmark
    throw std::invalid_argument("unexpected argument '" + a.positional()[1] + "' after 'tcsim bench " + which +
                                "'; options are written --name value");
  if (which != "lu")
    for (const char* name : {"r", "runs"})
      if (a.has(name)) throw std::invalid_argument(std::string("--") + name + " applies to 'tcsim bench lu' only");
  if (a.has("specials") && which != "gemm") throw std::invalid_argument("--specials applies to 'tcsim bench gemm' only");
  if (which == "verify") return bench_verify(a);
  if (which == "fit") return bench_fit(a);
  for (const char* name : {"evaluate", "rows", "check", "fit-seconds", "fit-budget", "only", "mix", "show-differing",
                           "choice-rows", "choice-pool", "choose", "rounds", "no-certainty"})
    if (a.has(name)) throw std::invalid_argument(std::string("--") + name + " applies to 'tcsim bench fit' only");
  for (const char* name : {"cases", "first", "progress", "inject"})
    if (a.has(name)) throw std::invalid_argument(std::string("--") + name + " applies to 'tcsim bench verify' only");
  if (a.has("all-rows") && which != "gemm" && which != "dot")
    throw std::invalid_argument("--all-rows applies to 'tcsim bench gemm' and 'tcsim bench dot' only");
  if (which == "dot" && a.has("all-rows")) {
    for (const char* name : {"unit-config", "in", "out", "instruction", "k", "n", "r"})
      if (a.has(name))
        throw std::invalid_argument(std::string("--") + name +
                                    " cannot be combined with --all-rows (it runs every built-in row; --unit keeps one "
                                    "unit's rows)");
    const SelectedUnit selected = a.has("unit") ? select_unit(a) : SelectedUnit{};
    return bench_dot_all_rows(a, selected.unit, static_cast<std::size_t>(a.get_int("elements", 1, 1 << 24, 1 << 16)),
                              static_cast<unsigned>(a.get_int("threads", 0, 1024, 0)), bench_seconds(a),
                              static_cast<std::uint64_t>(a.get_int("seed", 0, 1ll << 62, 1)));
  }
  if (which == "dot") return bench_dot(a);
  if (a.has("all-rows")) {
    for (const char* name : {"unit-config", "in", "out", "instruction", "r", "specials"})
      if (a.has(name))
        throw std::invalid_argument(std::string("--") + name +
                                    " cannot be combined with --all-rows (it runs every built-in row; --unit keeps one "
                                    "unit's rows)");
    const SelectedUnit selected = a.has("unit") ? select_unit(a) : SelectedUnit{};
    return bench_gemm_all_rows(a, selected.unit, static_cast<std::size_t>(a.get_int("n", 1, 16384, 1024)),
                               static_cast<unsigned>(a.get_int("threads", 0, 1024, 0)),
                               static_cast<std::uint64_t>(a.get_int("seed", 0, 1ll << 62, 1)));
  }
  const SelectedUnit selected = required_unit(a);
  const long long n = a.get_int("n", 1, 16384, which == "lu" ? 4096 : 1024), threads = a.get_int("threads", 0, 1024, 0);
  const long long seed = a.get_int("seed", 0, 1ll << 62, 1);
  if (which == "lu")
    return bench_lu(a, *selected.unit, static_cast<std::size_t>(n), static_cast<std::size_t>(a.get_int("r", 1, 16384, 128)),
                    static_cast<unsigned>(threads), static_cast<std::uint64_t>(seed));

  return bench_gemm(a, *selected.unit, parse_format(a.get_or("in", "fp16"), "--in"),
                    parse_format(a.get_or("out", "fp32"), "--out"), a.get_or("instruction", ""),
                    static_cast<std::size_t>(n), static_cast<unsigned>(threads), static_cast<std::uint64_t>(seed));
}

}  // namespace tcsim::cli
