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
#include "commands.hpp"
#include "unit_option.hpp"
#include "tcsim/models/unit.hpp"
#include "tcsim/sim/codec.hpp"

namespace tcsim::cli {

namespace {

using Clock = std::chrono::steady_clock;

// splitmix64: the bench's inputs are the same for a seed on every machine.
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

// A finite value of `f` with leading exponent in [lo, hi] (clamped to the format's normal
// range), random sign and fraction: the GPU dumps' kind of data.
std::uint64_t random_value(const Format& f, Rng& r, int lo, int hi) {
  lo = std::max(lo, f.emin);
  hi = std::min(hi, f.emax);
  const int e = lo + static_cast<int>(r.next() % static_cast<std::uint64_t>(hi - lo + 1));
  std::uint64_t frac = f.fraction_bits ? r.next() & ((std::uint64_t{1} << f.fraction_bits) - 1) : 0;
  if (e == f.emax) frac = std::min<std::uint64_t>(frac, f.max_finite_significand() - (std::uint64_t{1} << f.fraction_bits));
  const std::uint64_t sign = (r.next() & 1) ? f.sign_mask() : 0;
  return sign | (static_cast<std::uint64_t>(e + f.bias) << f.fraction_bits) | frac;
}

template <class F>
double seconds_of(F&& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
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
    const long long v = a.get_int(name, fallback);
    if (v < lo || v > hi)
      throw std::invalid_argument("option '--" + std::string(name) + "' for 'tcsim bench' must be in " +
                                  std::to_string(lo) + ".." + std::to_string(hi) + ", got '" + a.get(name) + "'");
    return v;
  };
  // One instruction's K by default: 2k for the pairs-mod4 rows (m16n8k32 on two blocks of 16).
  const long long instruction_k = row.k_split == models::KSplit::PairsMod4 ? 2 * row.fma_size : row.fma_size;
  const auto K = static_cast<std::size_t>(int_option("k", instruction_k, 0, 4096));
  const auto n = static_cast<std::size_t>(int_option("elements", 1 << 16, 1, 1 << 24));
  const auto threads = static_cast<unsigned>(int_option("threads", 0, 0, 1024));
  const unsigned used_threads = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
  const double min_seconds = [&] {
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
  }();
  Rng rng{static_cast<std::uint64_t>(int_option("seed", 1, 0, (1ll << 62)))};

  std::vector<std::uint64_t> A(n * K), B(n * K), C(n), D(n);
  for (auto& x : A) x = random_value(in, rng, -4, 1);
  for (auto& x : B) x = random_value(in, rng, -4, 1);
  for (auto& x : C) x = random_value(out, rng, -4, 1);

  // The measured path, repeated until min_seconds have passed.
  unit.dot_batch(in, out, n, K, A.data(), B.data(), C.data(), D.data(), instruction, threads);  // warm-up
  std::size_t runs = 0;
  double elapsed = 0;
  while (elapsed < min_seconds) {
    elapsed += seconds_of([&] { unit.dot_batch(in, out, n, K, A.data(), B.data(), C.data(), D.data(), instruction, threads); });
    ++runs;
  }
  const double rate = static_cast<double>(runs * n) / elapsed;
  // The reference path (Unit::dot: reference adder and chaining) on a sample, one thread, and
  // the check that both give the same bits.
  const std::size_t sample = std::min<std::size_t>(n, 20000);
  std::size_t mismatches = 0;
  const double ref_seconds = seconds_of([&] {
    for (std::size_t i = 0; i < sample; ++i)
      mismatches += unit.dot(in, out, {A.data() + i * K, K}, {B.data() + i * K, K}, C[i], instruction) != D[i];
  });
  const double ref_rate = static_cast<double>(sample) / ref_seconds;
  const std::string path = unit.batch_path(in, out, instruction);

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
    j["seconds"] = elapsed;
    j["elements_per_second"] = rate;
    j["path"] = path;
    j["reference_elements_per_second"] = ref_rate;
    j["checked"] = sample;
    j["mismatches"] = mismatches;
    std::printf("%s\n", j.dump().c_str());
  } else {
    std::printf("unit %s, %s -> %s%s, K = %zu, %zu elements x %zu runs, %u thread%s\n", unit.name().c_str(),
                in.name.c_str(), out.name.c_str(), row.instruction.empty() ? "" : (", " + row.instruction).c_str(), K,
                n, runs, used_threads, used_threads == 1 ? "" : "s");
    std::printf("dot_batch (%s): %.3g block FMAs per second\n", path.c_str(), rate);
    std::printf("reference (Unit::dot, 1 thread): %.3g per second\n", ref_rate);
    std::printf("check: %zu of %zu sampled elements equal Unit::dot\n", sample - mismatches, sample);
  }
  return mismatches == 0 ? 0 : 1;
}

}  // namespace

int cmd_bench(const Args& args) {
  ArgParser p("bench",
              "benchmarks (speed targets live here, not in the tests; docs/performance.md). 'tcsim bench dot': "
              "block FMAs per second through Unit::dot_batch on random inputs, beside the reference path, "
              "with a bit-for-bit check of a sample");
  p.positionals("benchmark", "dot");
  p.option("unit", "built-in unit: " + models::builtin_unit_names(), "name");
  p.option("unit-config", "user-defined unit from a JSON file", "file");
  p.option("in", "input format (default fp16)", "fmt");
  p.option("out", "output format (default fp32)", "fmt");
  p.option("instruction", "datapath by instruction (default: the unit's default for the formats)", "name");
  p.option("k", "products per element (default: one instruction's K, the row's FMA size or 2k for pairs-mod4 rows)", "K");
  p.option("elements", "elements per dot_batch call (default 65536)", "N");
  p.option("threads", "threads of dot_batch (default 0: all cores)", "T");
  p.option("seconds", "minimum measuring time (default 1)", "S");
  p.option("seed", "seed of the random inputs (default 1)", "S");
  p.flag("json", "print one JSON object");
  const auto a = p.parse(args);
  if (a.help()) return p.print_help();
  if (a.positional().size() != 1 || a.positional()[0] != "dot")
    throw std::invalid_argument("name one benchmark: 'tcsim bench dot'; allowed: dot");
  return bench_dot(a);
}

}  // namespace tcsim::cli
