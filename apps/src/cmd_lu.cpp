// tcsim lu: simulated LU factorization (models/lu.hpp) of a generated or file matrix, the
// solution of Ax = b with x = ones (lopez2022 section 2.3), its backward errors beside the
// bound of the algorithm's theorem, lopez2022's buffer size and data-movement model, and
// optionally iterative refinement (models/lu_refine.hpp).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "commands.hpp"
#include "distributed_items.hpp"
#include "item_bytes.hpp"
#include "lu_bound.hpp"
#include "json_output.hpp"
#include "lu_report.hpp"
#include "lu_run.hpp"
#include "matrix_files.hpp"
#include "output_file.hpp"
#include "progress.hpp"
#include "unit_option.hpp"
#include "tcsim/models/lu.hpp"
#include "tcsim/models/lu_refine.hpp"

namespace tcsim::cli {

namespace {

std::string sci_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

}  // namespace

int cmd_lu(const Args& args) {
  ArgParser p("lu",
              "simulated LU factorization on a unit (blanchard2020 Algorithm 4.1; lopez2022 Algorithms 3.1, 4.1, "
              "5.1, 5.2 and the uniform references 2.1/2.2), the solution of Ax = b with x = ones, its componentwise "
              "and normwise backward errors beside the theorem's bound, lopez2022's fp32 buffer size and data "
              "movement, and optional iterative refinement (LU-IR, GMRES-IR)");
  declare_unit_options(p);
  p.option("in", "input format of the unit for the updates (default fp16)", "fmt");
  p.option("instruction", "datapath by instruction (default: the unit's default)", "name");
  p.option("alg", "rl (default), ll, ll-fp32-panel, dp, ref-rl, ref-ll", "name");
  p.option("variant", "rl: fp16, tc16, tc32 (default), fp32 (blanchard2020 Table 4.1)", "name");
  p.option("storage", "rl: fp16 | fp32 (default from the variant; fp16 alone means tc16); ref-*: fp16 | fp32 | "
                      "fp64 (default); ll, ll-fp32-panel, dp: fp16", "fmt");
  p.option("panel", "dp's PanelFactor: rl-fp16, rl-fp32, ll, ll-fp32-panel (default)", "name");
  p.option("r", "block size (default 64)", "R");
  p.option("s", "dp: inner block size (default 8)", "S");
  p.option("n", "order of a generated matrix", "N");
  p.option("matrix", "q1dq2 (default), hpl-ai, tunable, uniform, normal, or a Matrix Market / .npy file", "name|file");
  p.option("cond", "q1dq2, tunable: condition number (default 1e3)", "C");
  p.option("seed", "seed of the generated matrix (default 1)", "S");
  p.option("scale", "file matrices: on (default) or off: row and column scaling into fp16's range (lopez2022 "
                    "section 6.2)", "on|off");
  p.flag("pivot", "partial pivoting (off by default, as in the papers)");
  p.option("on-breakdown", "stop (default: a zero, subnormal or non-finite pivot, or an overflow, ends the run with "
                           "exit 1) or continue (IEEE arithmetic as the GPU: Inf, NaN and subnormal pivots flow "
                           "through; the first of each is reported, exit 0)", "stop|continue");
  p.option("solve", "precision of the substitutions: fp16, fp32, fp64 (default: fp32 for fp16 storage "
                    "(lopez2022 section 2.3), else the storage's)", "fmt");
  p.option("refine", "iterative refinement: lu-ir or gmres-ir", "method");
  p.option("working", "refinement: working precision fp32 or fp64 (default)", "fmt");
  p.option("max-iterations", "refinement steps at most (default 20)", "K");
  declare_threads_and_grid(p, "alone only 1x1");
  p.option("write-lu", "write the factors as n lines of n binary64 bit patterns (hex), then the row permutation", "file");
  declare_json_and_quiet(p);
  const auto a = p.parse(args);
  if (a.help()) return p.print_help();
  const SelectedUnit selected = required_unit(a);
  const models::Unit& unit = *selected.unit;
  const Format& in = parse_format(a.get_or("in", "fp16"), "--in");
  const bool json = a.has("json");

  models::LuOptions o;
  o.algorithm = models::parse_lu_algorithm(a.get_or("alg", "rl"), "--alg");
  const bool rl = o.algorithm == models::LuAlgorithm::Rl, dp = o.algorithm == models::LuAlgorithm::Dp;
  if (a.has("variant") && !rl) throw std::invalid_argument("--variant applies to --alg rl only");
  if (a.has("panel") && !dp) throw std::invalid_argument("--panel applies to --alg dp only");
  if (a.has("s") && !dp) throw std::invalid_argument("--s applies to --alg dp only");
  o.storage = a.get_or("storage", "");
  if (a.has("variant")) o.variant = models::parse_variant(a.get("variant"), "--variant");
  else if (rl && o.storage == "fp16") o.variant = models::GemmVariant::Tc16;  // lopez2022 Algorithm 3.1 with u = u16
  if (a.has("panel")) o.panel = models::parse_lu_panel(a.get("panel"), "--panel");
  o.block = static_cast<std::size_t>(a.get_int("r", 1, 1 << 20, 64));
  o.inner_block = static_cast<std::size_t>(a.get_int("s", 1, 1 << 20, 8));
  o.pivot = a.has("pivot");
  o.instruction = a.get_or("instruction", "");
  o.threads = static_cast<unsigned>(a.get_int("threads", 0, 1024, 0));
  o.on_breakdown = models::parse_lu_on_breakdown(a.get_or("on-breakdown", "stop"), "--on-breakdown");
  const bool cont = o.on_breakdown == models::LuOnBreakdown::Continue;
  if (a.has("write-lu")) {  // before any computation
    if (json && a.get("write-lu") == "-")
      throw std::invalid_argument("--write-lu -: standard output holds the JSON object (--json); give --write-lu a file");
    check_output_file("--write-lu", a.get("write-lu"));
  }

  // The matrix.
  const std::string matrix = a.get_or("matrix", "q1dq2");
  const bool generated = matrix == "q1dq2" || matrix == "hpl-ai" || matrix == "tunable" || matrix == "uniform" ||
                         matrix == "normal";
  std::size_t n = 0;
  std::vector<double> A;
  std::string source;
  double cond = 1e3;
  if (a.has("cond")) {
    if (matrix != "q1dq2" && matrix != "tunable") throw std::invalid_argument("--cond applies to --matrix q1dq2 or tunable");
    const std::string text = a.get("cond");
    std::size_t used = 0;
    try {
      cond = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != text.size() || !(cond >= 1) || !std::isfinite(cond))
      throw std::invalid_argument("--cond: expected a finite number >= 1, got '" + text + "'");
  }
  models::MatrixScaling scaling;
  bool scaled = false;
  if (generated) {
    if (a.has("scale")) throw std::invalid_argument("--scale applies to matrices read from files");
    if (!a.has("n")) throw std::invalid_argument("--n: give the order of the generated " + matrix + " matrix");
    n = static_cast<std::size_t>(a.get_int("n", 1, 1 << 15));
    // Alone: the single process's measured peak; under mpirun: each rank's share (lu_run.hpp).
    check_lu_memory(n, o, a.get_or("grid", ""), "--n " + std::to_string(n));
    const std::uint64_t seed = a.get_uint64("seed", 1);
    on_rank0([&] {  // under mpirun rank 0 alone holds A; dist::lu scatters its blocks
      if (matrix == "q1dq2") A = models::matrix_q1dq2(n, cond, seed);
      else if (matrix == "hpl-ai") A = models::matrix_hpl_ai(n, seed);
      else if (matrix == "tunable") A = models::matrix_tunable(n, cond, seed);
      else if (matrix == "uniform") A = models::matrix_uniform(n, -1, 1, seed);
      else A = models::matrix_normal(n, seed);
    });
    source = matrix + (matrix == "q1dq2" || matrix == "tunable" ? " (cond " + sci_text(cond) + ")" : "") +
             (matrix == "uniform" ? " [-1, 1)" : "") + ", seed " + std::to_string(seed);
  } else {
    if (a.has("n") || a.has("seed"))
      throw std::invalid_argument(std::string("--") + (a.has("n") ? "n" : "seed") +
                                  " describes a generated matrix; --matrix names a file ('" + matrix +
                                  "' is not one of q1dq2, hpl-ai, tunable, uniform, normal)");
    const std::string scale = a.get_or("scale", "on");
    if (scale != "on" && scale != "off") throw std::invalid_argument("--scale: '" + scale + "' is not allowed; allowed: on, off");
    on_rank0([&] {  // under mpirun the file needs to exist on rank 0's node only
      apps::Matrix m = apps::read_matrix(matrix, "--matrix");
      apps::require_finite(m, "--matrix", matrix);
      if (m.rows != m.cols)
        throw std::invalid_argument("--matrix: '" + matrix + "' is " + std::to_string(m.rows) + " x " +
                                    std::to_string(m.cols) + "; LU needs a square matrix");
      n = m.rows;
      A = std::move(m.values);
      source = "file " + matrix;
      if (scale == "on") {
        scaling = models::scale_matrix(n, A, "fp16");
        source += ", scaled (lopez2022 section 6.2)";
      }
    });
    scaled = scale == "on";
    ItemWriter shared;
    shared.put(n);
    const std::string bytes = share_from_rank0(shared.take());  // kept alive: ItemReader reads it in place
    ItemReader got(bytes);
    n = got.get<std::size_t>();
    if (job_ranks() > 1) check_lu_memory(n, o, a.get_or("grid", ""), "--matrix " + matrix);
  }

  Progress progress("tcsim lu", !a.has("quiet"));
  o.progress = [&](double f) { progress.update("simulated LU", f); };
  std::vector<double> x_true(n, 1.0), b(n, 0.0);  // x = ones, b = A x in binary64
  if (job_rank() == 0)  // rank 0 holds A
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t c = 0; c < n; ++c) b[i] += A[i * n + c];
  nlohmann::json j;
  j["unit"] = unit.name();
  j["in"] = in.name;
  j["n"] = n;
  j["matrix"] = source;
  j["pivot"] = o.pivot;
  j["on_breakdown"] = models::lu_on_breakdown_name(o.on_breakdown);
  const auto t0 = std::chrono::steady_clock::now();
  models::LuResult lu;
  nlohmann::json memory;  // under mpirun: bytes per rank (lu_run.hpp)
  nlohmann::json phases;  // under mpirun: seconds per phase and rank (lu_run.hpp)
  try {
    LuRun run = run_lu(unit, in, n, A, o, a.get_or("grid", ""));  // distributed under mpirun (lu_run.hpp)
    if (!run.report) return 0;  // rank 0 reports
    lu = std::move(run.lu);
    memory = std::move(run.memory);
    phases = std::move(run.phases);
  } catch (const models::LuBreakdown& e) {
    progress.done();
    if (json) {
      j["algorithm"] = models::lu_algorithm_name(o.algorithm);
      j["breakdown"] = e.what();
      print_json(j);
    }
    std::fprintf(stderr, "tcsim lu: %s\n", e.what());
    return 1;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (a.has("write-lu")) write_lu(a.get("write-lu"), lu);
  progress.update("substitutions and backward errors", 0.0);
  const std::string solve = a.get_or("solve", lu.storage == "fp16" ? "fp32" : lu.storage);
  models::LuSolveEvents solve_events;
  const std::vector<double> x = models::lu_solve(lu, b, solve, &solve_events);
  if (!cont && solve_events.any()) {  // stop: a non-finite x is a breakdown, never a result
    const std::string what = models::lu_solve_breakdown(solve_events, solve);
    if (json) {
      j.update(lu_factor_json(lu));
      j["breakdown"] = what;
      print_json(j);
    }
    std::fprintf(stderr, "tcsim lu: %s\n", what.c_str());
    return 1;
  }
  const models::LuBackwardErrors err = models::lu_backward_errors(lu, A, x, b);
  const LuBound bound = lu_bound(lu, unit, in, o.instruction, solve);

  const bool refine = a.has("refine");
  models::RefineResult ref;
  if (refine) {
    models::RefineOptions ro;
    ro.method = models::parse_refine_method(a.get("refine"));
    ro.working = a.get_or("working", "fp64");
    ro.max_iterations = static_cast<int>(a.get_int("max-iterations", 1, 1000, 20));
    progress.update("iterative refinement", 0.0);
    ref = models::refine_solution(lu, A, b, x_true, ro);
  } else {
    for (const char* opt : {"working", "max-iterations"})
      if (a.has(opt)) throw std::invalid_argument(std::string("--") + opt + " needs --refine");
  }

  progress.done();
  if (json) {
    j.update(lu_factor_json(lu));
    add_lu_solve_json(j, err, bound, solve);
    j["events"] = lu_events_json(lu.events);
    j["solve_events"] = lu_solve_events_json(solve_events);
    if ((!std::isfinite(err.componentwise) || !std::isfinite(err.normwise)) && !lu_nonfinite_note(lu, solve_events).empty())
      j["backward_error_note"] = lu_nonfinite_note(lu, solve_events);
    j["seconds"] = seconds;
    if (!memory.is_null()) j["memory"] = memory;
    if (!phases.is_null()) j["phases_per_rank"] = phases;
    if (scaled) j["scaling_mu"] = scaling.mu;
    if (refine) add_refine_json(j, ref, a.get("refine"), a.get_or("working", "fp64"));
    print_json(j);
  } else {
    std::printf("unit %s, %s updates%s: --alg %s", unit.name().c_str(), in.name.c_str(),
                o.instruction.empty() ? "" : (" (" + o.instruction + ")").c_str(), lu.algorithm.c_str());
    if (rl) std::printf(", variant %s", lu.variant.c_str());
    if (dp) std::printf(", PanelFactor %s, s = %zu", lu.panel.c_str(), lu.inner_block);
    std::printf(", r = %zu, %s storage%s, path %s\n", lu.block, lu.storage.c_str(), o.pivot ? ", partial pivoting" : "",
                lu.path.c_str());
    std::printf("A: n = %zu, %s; x = ones, b = A x\n", n, source.c_str());
    std::printf("factorized in %.3f s (%zu GEMMs through the unit)\n", seconds, lu.unit_calls);
    std::printf("fp32 buffer: %.0f entries (lopez2022 Table 1); bytes moved: %.4g (%s)\n", lu.fp32_buffer_entries,
                lu.bytes_moved, lu.bytes_model.c_str());
    if (cont) {
      std::printf("--on-breakdown continue (IEEE arithmetic of the %s storage), first events:\n", lu.storage.c_str());
      std::printf("  subnormal pivot: %s\n", lu_event_text(lu.events.subnormal_pivot).c_str());
      std::printf("  zero pivot:      %s\n", lu_event_text(lu.events.zero_pivot).c_str());
      std::printf("  overflow (Inf):  %s\n", lu_event_text(lu.events.overflow).c_str());
      std::printf("  NaN:             %s\n", lu_event_text(lu.events.nan).c_str());
      std::printf("  substitutions:   %s\n", lu_event_text(solve_events.first).c_str());
    }
    // A non-finite error says why, plainly (the factors or the substitutions hold Inf/NaN).
    auto error_text = [&](double e) {
      const std::string note = lu_nonfinite_note(lu, solve_events);
      return std::isfinite(e) ? sci_text(e) : finite_or_string(e).get<std::string>() + (note.empty() ? "" : " (" + note + ")");
    };
    std::printf("substitutions in %s; backward errors (binary64):\n", solve.c_str());
    std::printf("  componentwise max_i |Ax - b|_i / ((|A| + |L||U|)|x|)_i = %s   bound %s (%s)\n",
                error_text(err.componentwise).c_str(), sci_text(bound.value).c_str(), bound.source.c_str());
    std::printf("  normwise ||Ax - b|| / (||A|| ||x|| + ||b||) (inf)     = %s\n", error_text(err.normwise).c_str());
    if (refine) {
      std::printf("%s in %s:\n", a.get("refine").c_str(), a.get_or("working", "fp64").c_str());
      for (const auto& s : ref.history)
        std::printf("  iteration %2d: normwise backward error %s, forward error %s%s\n", s.iteration,
                    sci_text(s.normwise_backward_error).c_str(), sci_text(s.forward_error).c_str(),
                    s.gmres_iterations ? (", " + std::to_string(s.gmres_iterations) + " GMRES steps").c_str() : "");
      std::printf("  %s\n", ref.stop_reason.c_str());
    }
  }
  return 0;  // "did not converge" is a finding, reported in the output, not a failure of the command
}

}  // namespace tcsim::cli
