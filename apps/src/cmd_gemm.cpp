// tcsim gemm: D = C + A B simulated on a unit (models/gemm.hpp), its errors against the exact
// product (MPFR, reference/gemm_error.hpp) beside the bound of the variant with its source.
// The problem is generated (blanchard2020 section 3.3: binary32 matrices, C = 0) or read from
// Matrix Market / .npy files (matrix_io.hpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "commands.hpp"
#include "distributed_items.hpp"
#include "gemm_problem.hpp"
#include "gemm_report.hpp"
#include "gemm_scaled.hpp"
#include "gemm_run.hpp"
#include "item_bytes.hpp"
#include "json_output.hpp"
#include "matrix_files.hpp"
#include "output_file.hpp"
#include "memory_need.hpp"
#include "progress.hpp"
#include "unit_option.hpp"
#include "value_checks.hpp"
#include "tcsim/models/gemm.hpp"
#include "tcsim/reference/bounds.hpp"
#include "tcsim/reference/gemm_error.hpp"
#include "tcsim/sim/adder.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/rounding.hpp"

namespace tcsim::cli {

namespace {

models::WordOrder parse_word_order(const std::string& s) {
  if (s == "smallest-first") return models::WordOrder::SmallestFirst;
  if (s == "largest-first") return models::WordOrder::LargestFirst;
  throw std::invalid_argument("--word-order: '" + s + "' is not an order; allowed: smallest-first, largest-first");
}

bool parse_on_off(const ParsedArgs& a, const char* name, bool fallback) {
  const auto v = a.find(name);
  if (!v) return fallback;
  if (*v == "on") return true;
  if (*v == "off") return false;
  throw std::invalid_argument(std::string("--") + name + ": '" + *v + "' is not allowed; allowed: on, off");
}

std::string sci(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

// The block-scaled GEMM (Unit::gemm_scaled, gemm_scaled.hpp): scales from --scale-a/--scale-b
// files or chosen by --scales, its errors against the exact product of the scaled operands.
int scaled_gemm(const ParsedArgs& a, const models::Unit& unit, const ScaledSetup& setup, const Format& in,
                const Format& in_b, const Format& out, std::size_t m, std::size_t n, std::size_t k,
                const std::vector<double>& A, const std::vector<double>& B, const std::vector<double>& C,
                const models::GemmOptions& o, const std::string& source, long long check, Progress& progress) {
  std::optional<ScaleValues> given_a, given_b;
  if (setup.scales == "files") {
    auto read = [&](const std::string& option) {
      const std::string path = a.get(option);
      const apps::Matrix mtx = apps::read_matrix(path, "--" + option);
      ScaleValues v{mtx.rows, mtx.cols, mtx.values, "--" + option + ": " + path, {}};
      v.entry = [name = v.name](std::size_t r, std::size_t c) {
        return name + ": entry (" + std::to_string(r + 1) + ", " + std::to_string(c + 1) + ")";
      };
      return v;
    };
    given_a = read("scale-a");
    given_b = read("scale-b");
  }
  const ScaledOperands ops = scaled_operands(setup, in, in_b, out, m, n, k, A, B, C, given_a ? &*given_a : nullptr,
                                             given_b ? &*given_b : nullptr, o.input_rounding);
  progress.update("simulating the block-scaled GEMM", 0.0);
  const ScaledRun run = run_scaled_gemm(unit, setup, in, in_b, out, m, n, k, ops, o.threads, check,
                                        progress.hook("exact errors (MPFR)"));
  progress.done();
  if (a.has("write-d")) apps::write_hex_matrix(a.get("write-d"), m, n, run.r.bits, (out.width + 3) / 4);
  const std::string operands = in == in_b ? in.name : in.name + " x " + in_b.name;
  if (a.has("json")) {
    nlohmann::json j = scaled_report_json(unit, setup, in, in_b, out, ops, run);
    j["problem"] = source;
    j["seconds"] = run.seconds;
    print_json(j);
    return 0;
  }
  std::printf("unit %s, %s -> %s, %s, variant %s (D held in %s), path %s\n", unit.name().c_str(), operands.c_str(),
              out.name.c_str(), setup.instruction.c_str(), run.r.variant.c_str(), run.r.storage.c_str(),
              run.r.path.c_str());
  std::printf("block scales: %s\n", ops.how.c_str());
  std::printf("D = C + A B with m = %zu, n = %zu, k = %zu: %s\n", m, n, k, source.c_str());
  std::printf("simulated in %.3f s (1 block-scaled GEMM through the unit, Unit::gemm_scaled)\n", run.seconds);
  std::printf("errors against the exact product of the scaled operands (MPFR), %s:\n",
              checked_rows_text(run.err, m, "--check-rows all").c_str());
  std::printf("  componentwise max |D^ - D| / (|C| + |A||B|)       = %s   bound %s (%s)\n",
              sci(run.err.componentwise).c_str(), sci(run.bound.componentwise).c_str(), run.bound.source.c_str());
  std::printf("  normwise ||D^ - D|| / (||C|| + ||A|| ||B||) (inf) = %s\n", sci(run.err.normwise).c_str());
  return 0;
}

}  // namespace

int cmd_gemm(const Args& args) {
  ArgParser p("gemm",
              "simulated GEMM D = C + A B on a unit (blanchard2020 Algorithm 3.1: A, B converted to the unit's "
              "input format, k split into the unit's blocks, chained through the accumulator), with the "
              "variants of blanchard2020 Table 3.3, split-K, FABsum and multiword products (mary2021, mary2024), "
              "and the componentwise and normwise errors against the exact product (MPFR) beside their bound");
  declare_unit_options(p);
  declare_input_formats(p, "A", "B", "the unit's input format: fp16, bf16, tf32, e4m3, ...; one of --in, --in-a, --in-b "
                                     "is required");
  p.option("out", "output format of the unit (default fp32)", "fmt");
  p.option("instruction", "datapath by instruction (default: the unit's default for the formats)", "name");
  p.option("m", "rows of A and D (generated problem)", "M");
  p.option("n", "columns of B and D (generated problem)", "N");
  p.option("k", "columns of A, rows of B (generated problem)", "K");
  p.option("dist", std::string("distribution of the generated A and B (binary32 values; C = 0): ") + kGemmDistributions +
                       " (default uniform01)", "name");
  p.option("ell", "pm10^phi: phi uniform in [-ell, ell] (default 10, mary2024 section 5)", "L");
  p.option("seed", "seed of the generated matrices (default 1)", "S");
  p.option("a", "A from a Matrix Market (.mtx) or NumPy (.npy) file", "file");
  p.option("b", "B from a Matrix Market or NumPy file", "file");
  p.option("c", "C from a Matrix Market or NumPy file (default 0)", "file");
  p.option("variant", "unit (default: tc32 for --out fp32, tc16 for --out fp16), fp16, tc16, tc32, fp32", "name");
  p.option("input-rounding", "rounding of A and B into the input format (default rne; rz, ru, rd, ro)", "mode");
  p.option("words", "multiword: A and B split into p words of the input format (default 1)", "p");
  p.flag("scaled-words", "multiword: words scaled into the input format's range (mary2024 eq. (4.3)-(4.7))");
  p.flag("all-word-products", "multiword: all p^2 word products (default: those with i + j <= p + 1)");
  p.option("word-order", "multiword: smallest-first (default) or largest-first", "order");
  p.option("scaling", "on: power-of-two row/column scaling into the input format's range (mary2024 eq. (3.1)-(3.2)); "
                      "off (default)", "on|off");
  p.option("subnormals", "on (default) or off: inputs subnormal in the input format flushed to zero", "on|off");
  p.option("fabsum", "FABsum: k cut into blocks of b, each through the unit, combined in --fabsum-combine", "b");
  p.option("fabsum-combine", "FABsum's combining format: fp32 (default) or fp64", "fmt");
  p.option("split-k", "split-K: s slices of k, each through the unit, summed in binary32", "s");
  p.option("check-rows", "rows of D checked against the exact product: all (or 0), or a count spread evenly "
                         "(default: all when m n k <= 2^25, else as many as fit that work, at least 8)", "R|all");
  p.option("scale-format", "block-scaled instructions (tcgen05.mxf8f6f4, tcgen05.mxf4nvf4, mma.sync.mxf8f6f4, "
                          "mma.sync.mxf4nvf4): format of the scales, ue8m0 or ue4m3 (default: the row's first)", "fmt");
  p.option("scale-a", "block-scaled: A's scales from a Matrix Market or NumPy file, m x k/block-size values of "
                      "--scale-format (exactly; then A and B hold the elements)", "file");
  p.option("scale-b", "block-scaled: B's scales, k/block-size x n, as --scale-a", "file");
  p.option("block-size", "block-scaled: k indices per scale (default: the row's first; must divide k)", "N");
  p.option("scales", "block-scaled without --scale-a/--scale-b: from-data (default: per block from A's rows and "
                     "B's columns as OCP MX conversion does; ue4m3: amax / the element's largest) or one", "how");
  declare_threads_and_grid(p, "the bits do not depend on it");
  p.option("write-d", "write D as m lines of n hex bit patterns of its storage format ('-': stdout)", "file");
  declare_json_and_quiet(p);
  const auto a = p.parse(args);
  if (a.help()) return p.print_help();
  const SelectedUnit selected = required_unit(a);
  const models::Unit& unit = *selected.unit;
  const InputFormats inputs = input_formats(a, "gemm");
  const Format& in = *inputs.a;
  const Format& out = parse_format(a.get_or("out", "fp32"), "--out");
  if (inputs.mixed()) {  // a pair no row serves: named by its option, with the unit's mixed pairs
    const auto pairs = unit.mixed_pairs();
    const std::string pair = in.name + " x " + inputs.b->name;
    if (std::none_of(pairs.begin(), pairs.end(), [&](const std::string& s) { return s.rfind(pair + " -> ", 0) == 0; }))
      checked_datapath(unit, inputs, out, "");  // throws the unit's refusal, prefixed with the option
  }
  const bool json = a.has("json");
  if (a.has("write-d")) {  // before any computation
    if (json && a.get("write-d") == "-")
      throw std::invalid_argument("--write-d -: standard output holds the JSON object (--json); give --write-d a file");
    check_output_file("--write-d", a.get("write-d"));
  }
  const long long check_rows = a.has("check-rows") ? parse_check_rows(a.get("check-rows"), "--check-rows") : -1;
  // Block scales (gemm_scaled.hpp): given by an option or by the instruction's row.
  ScaleRequest scale_request;
  scale_request.scale_format = a.get_or("scale-format", "");
  scale_request.block_size = static_cast<int>(a.get_int("block-size", 1, 65536, 0));
  scale_request.scales = a.get_or("scales", "");
  scale_request.scale_a = a.has("scale-a");
  scale_request.scale_b = a.has("scale-b");
  const std::optional<ScaledSetup> scaled =
      scaled_setup(unit, in, *inputs.b, out, a.get_or("instruction", ""), scale_request);
  if (scaled && job_ranks() > 1)
    throw std::invalid_argument("a block-scaled GEMM (instruction '" + scaled->instruction +
                                "') runs on one process; run it without mpirun");

  // The problem.
  const bool from_files = a.has("a") || a.has("b");
  std::size_t m = 0, n = 0, k = 0;
  std::vector<double> A, B, C;
  std::optional<apps::Matrix> file_c;  // for the range checks below
  std::string gen_a, gen_b;  // generated problem: what the checks name
  std::string source;
  std::function<void()> generate;  // rank 0, a generated problem
  // Under mpirun rank 0 alone reads or generates the problem (the files need to exist on its
  // node only; distributed_items.hpp): an error there is reported by every rank, and the
  // others get the sizes and the description. The unit GEMM gets the blocks from rank 0.
  on_rank0([&] {
    if (from_files) {
      for (const char* gen : {"m", "n", "k", "dist", "seed", "ell"})
        if (a.has(gen))
          throw std::invalid_argument(std::string("--") + gen + " describes a generated problem; it cannot be used with --a/--b files");
      if (!a.has("a") || !a.has("b")) throw std::invalid_argument("--a and --b go together: give both files");
      const apps::Matrix ma = apps::read_matrix(a.get("a"), "--a"), mb = apps::read_matrix(a.get("b"), "--b");
      apps::require_finite(ma, "--a", a.get("a"));
      apps::require_finite(mb, "--b", a.get("b"));
      if (ma.cols != mb.rows)
        throw std::invalid_argument("--a is " + std::to_string(ma.rows) + " x " + std::to_string(ma.cols) + " and --b is " +
                                    std::to_string(mb.rows) + " x " + std::to_string(mb.cols) +
                                    ": A's columns must equal B's rows");
      m = ma.rows, k = ma.cols, n = mb.cols;
      A = ma.values, B = mb.values;
      if (a.has("c")) {
        const apps::Matrix mc = apps::read_matrix(a.get("c"), "--c");
        apps::require_finite(mc, "--c", a.get("c"));
        file_c = mc;
        if (mc.rows != m || mc.cols != n)
          throw std::invalid_argument("--c is " + std::to_string(mc.rows) + " x " + std::to_string(mc.cols) +
                                      "; D = C + A B needs " + std::to_string(m) + " x " + std::to_string(n));
        C = mc.values;
      }
      source = "A " + a.get("a") + ", B " + a.get("b") + (a.has("c") ? ", C " + a.get("c") : ", C = 0");
    } else {
      if (a.has("c")) throw std::invalid_argument("--c needs --a and --b files (a generated problem has C = 0)");
      for (const char* dim : {"m", "n", "k"})
        if (!a.has(dim))
          throw std::invalid_argument(std::string("give --m, --n and --k (a generated problem) or --a and --b files; --") +
                                      dim + " is missing");
      m = static_cast<std::size_t>(a.get_int("m", 1, 1 << 20));
      n = static_cast<std::size_t>(a.get_int("n", 1, 1 << 20));
      k = static_cast<std::size_t>(a.get_int("k", 1, 1 << 26));
      if (static_cast<double>(m) * static_cast<double>(k) + static_cast<double>(k) * static_cast<double>(n) > 1 << 30)
        throw std::invalid_argument("--m, --n, --k: A and B would hold " +
                                    sci(static_cast<double>(m) * k + static_cast<double>(k) * n) +
                                    " entries; at most 2^30 together");
      const std::string dist = a.get_or("dist", "uniform01");
      check_gemm_distribution(dist, "--dist");
      double ell = 10;
      if (a.has("ell")) {
        if (dist != "pm10^phi") throw std::invalid_argument("--ell applies to --dist pm10^phi only");
        ell = static_cast<double>(a.get_int("ell", 0, 300));
      }
      const std::uint64_t seed = a.get_uint64("seed", 1);
      generate = [&, dist, ell, seed] { generate_gemm_problem(m, n, k, dist, ell, seed, A, B); };  // once it fits
      // For the range checks below, as file matrices (pm10^phi reaches 10^ell).
      const std::string what = "'" + dist + "'" + (a.has("ell") ? " (--ell " + a.get("ell") + ")" : "");
      gen_a = what + " generates A", gen_b = what + " generates B";
      source = dist + (dist == "pm10^phi" ? " (ell " + sci(ell) + ")" : "") + ", seed " + std::to_string(seed) +
               ", binary32 entries, C = 0";
    }
  });
  {
    ItemWriter shared;
    shared.put(m).put(n).put(k).put(source);
    const std::string bytes = share_from_rank0(shared.take());
    ItemReader got(bytes);
    m = got.get<std::size_t>(), n = got.get<std::size_t>(), k = got.get<std::size_t>();
    source = got.get_string();
  }
  // The memory need, checked up front on every rank (gemm_run.hpp): alone for a generated
  // problem, under mpirun each rank's share (rank 0 also holds the whole problem).
  if (!from_files || job_ranks() > 1)
    check_gemm_memory(m, n, k, check_rows >= 0 ? check_rows : default_check_rows(m, n, k), a.get_or("grid", ""),
                      from_files ? "--a and --b (m = " + std::to_string(m) + ", n = " + std::to_string(n) +
                                       ", k = " + std::to_string(k) + ")"
                                 : "--m " + std::to_string(m) + " --n " + std::to_string(n) + " --k " + std::to_string(k));
  if (!from_files) on_rank0([&] { generate(); });

  models::GemmOptions o;
  o.instruction = a.get_or("instruction", "");
  if (inputs.mixed()) {
    o.b_format = *inputs.b;
    // The row serving the mixed pair, by name: the bound's single-format lookups find it too.
    if (o.instruction.empty()) {
      try {
        o.instruction = unit.datapath(in, *inputs.b, out).instruction;
      } catch (const std::invalid_argument&) {  // another accumulator (tc16): simulate_gemm says so
      }
    }
  }
  if (a.has("variant")) o.variant = models::parse_variant(a.get("variant"), "--variant");
  if (a.has("input-rounding")) o.input_rounding = checks::rounding_word(a.get("input-rounding"), "--input-rounding");
  o.words = static_cast<int>(a.get_int("words", 1, 8, 1));
  o.scaled_words = a.has("scaled-words");
  o.all_word_products = a.has("all-word-products");
  if (a.has("word-order")) o.word_order = parse_word_order(a.get("word-order"));
  if (o.words == 1)
    for (const char* w : {"scaled-words", "all-word-products", "word-order"})
      if (a.has(w)) throw std::invalid_argument(std::string("--") + w + " needs --words 2 or more");
  o.scaling = parse_on_off(a, "scaling", false);
  o.subnormals = parse_on_off(a, "subnormals", true);
  o.fabsum_block = static_cast<int>(a.get_int("fabsum", 1, 1 << 26, 0));
  o.fabsum_combine = a.get_or("fabsum-combine", "fp32");
  if (a.has("fabsum-combine") && !a.has("fabsum")) throw std::invalid_argument("--fabsum-combine needs --fabsum");
  o.split_k = static_cast<int>(a.get_int("split-k", 1, 1 << 26, 0));
  o.threads = static_cast<unsigned>(a.get_int("threads", 0, 1024, 0));
  // File and generated entries must fit the formats they are converted into (else they would
  // become Inf or NaN there and the error be infinite beside a finite bound), unless a scaling
  // brings them into range.
  if (scaled) refuse_unscaled_options(*scaled, o);
  if (!o.scaling && !o.scaled_words && !(scaled && scaled->scales == "from-data")) {
    auto largest = [](const Format& f) {
      return std::ldexp(static_cast<double>(f.max_finite_significand()), f.emax - f.fraction_bits);
    };
    const bool fp32_variant = o.variant == models::GemmVariant::Fp32;
    const Format& ab = fp32_variant ? formats::fp32() : in;
    const Format& bb = fp32_variant ? formats::fp32() : *inputs.b;
    const Format& c = fp32_variant || o.variant == models::GemmVariant::Tc32   ? formats::fp32()
                      : o.variant == models::GemmVariant::Fp16 || o.variant == models::GemmVariant::Tc16 ? formats::fp16()
                                                                                                          : out;
    const std::string hint = " (or --scaling on)";
    const bool gen = !from_files;
    on_rank0([&] {  // rank 0 holds the problem
      apps::require_at_most(A, k, largest(ab), ab.name + ", the format A is converted into" + hint, gen ? "--dist" : "--a",
                            gen ? gen_a : a.get("a"));
      apps::require_at_most(B, n, largest(bb), bb.name + ", the format B is converted into" + hint, gen ? "--dist" : "--b",
                            gen ? gen_b : a.get("b"));
      if (file_c) apps::require_at_most(*file_c, largest(c), c.name + ", the format C is converted into", "--c", a.get("c"));
    });
  }

  Progress progress("tcsim gemm", !a.has("quiet"));
  if (scaled) return scaled_gemm(a, unit, *scaled, in, *inputs.b, out, m, n, k, A, B, C, o, source,
                                 check_rows >= 0 ? check_rows : default_check_rows(m, n, k), progress);
  o.progress = progress.hook("simulating the GEMM");
  // The GEMM and its exact errors (by blocks of rows, for the progress bar), distributed under
  // mpirun (gemm_run.hpp); then the variant's bound. Only rank 0 reports.
  const long long check = check_rows >= 0 ? check_rows : default_check_rows(m, n, k);
  const GemmRun run = run_gemm(unit, in, out, m, n, k, A, B, C, o, a.get_or("grid", ""), check,
                               progress.hook("exact errors (MPFR)"));
  if (!run.report) return 0;
  const models::GemmResult& r = run.r;
  const reference::GemmErrors& err = run.err;
  const double seconds = run.seconds;
  progress.done();
  const reference::GemmBound bound = gemm_run_bound(unit, in, out, k, A, B, o, r);

  if (a.has("write-d")) {
    const Format& storage = parse_format(r.storage, "storage");
    apps::write_hex_matrix(a.get("write-d"), m, n, r.bits, (storage.width + 3) / 4);
  }

  const std::string checked = checked_rows_text(err, m, "--check-rows all");
  if (json) {
    nlohmann::json j = gemm_report_json(unit, in, out, o, r, err, bound);
    j["problem"] = source;
    j["seconds"] = seconds;
    if (!run.mpi.is_null()) j["mpi"] = run.mpi;  // under mpirun (gemm_run.hpp)
    if (!run.memory.is_null()) j["memory"] = run.memory;
    print_json(j);
  } else {
    std::printf("unit %s, %s -> %s%s, variant %s (D held in %s), path %s\n", unit.name().c_str(),
                inputs.name().c_str(), out.name.c_str(), o.instruction.empty() ? "" : (", " + o.instruction).c_str(),
                r.variant.c_str(), r.storage.c_str(), r.path.c_str());
    std::printf("D = C + A B with m = %zu, n = %zu, k = %zu: %s\n", m, n, k, source.c_str());
    if (r.path == "ieee")
      std::printf("simulated in %.3f s (IEEE %s FMAs, no tensor core)\n", seconds, r.variant == "fp16" ? "binary16" : "binary32");
    else
      std::printf("simulated in %.3f s (%zu GEMM%s through the unit)\n", seconds, r.unit_calls, r.unit_calls == 1 ? "" : "s");
    std::printf("errors against the exact product (MPFR), %s:\n", checked.c_str());
    std::printf("  componentwise max |D^ - D| / (|C| + |A||B|)       = %s   bound %s (%s)\n", sci(err.componentwise).c_str(),
                sci(bound.componentwise).c_str(), bound.source.c_str());
    std::printf("  normwise ||D^ - D|| / (||C|| + ||A|| ||B||) (inf) = %s\n", sci(err.normwise).c_str());
  }
  return 0;
}

}  // namespace tcsim::cli
