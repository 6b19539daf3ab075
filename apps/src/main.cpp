// tcsim: bit-accurate simulator of GPU tensor-core MMA units. Dispatches subcommands.
#include <cstdio>
#include <exception>
#include <string>
#include <new>
#include <string_view>

#include "commands.hpp"
#include "output_file.hpp"
#include "option_names.hpp"
#include "value_checks.hpp"

#ifdef TCSIM_HAVE_MPI
#include "tcsim/dist/session.hpp"
#endif

namespace {

struct Command {
  const char* name;
  int (*run)(const tcsim::cli::Args&);
  const char* help;
};

constexpr Command kCommands[] = {
    {"dot", tcsim::cli::cmd_dot, "evaluate d = c + sum a_i b_i through an adder or a unit"},
    {"units", tcsim::cli::cmd_units, "list the built-in units (--json for their data rows)"},
    {"validate-dump", tcsim::cli::cmd_validate_dump, "compare a unit with real-GPU dump files"},
    {"fit", tcsim::cli::cmd_fit, "find the unit row (JSON) that reproduces a dump of an unknown unit"},
    {"probe", tcsim::cli::cmd_probe, "black-box numerical feature probe of a unit"},
    {"report", tcsim::cli::cmd_report, "examples and a probe-style report of the V100 adder"},
    {"gemm", tcsim::cli::cmd_gemm, "simulated GEMM D = C + A B with exact errors and bounds"},
    {"lu", tcsim::cli::cmd_lu, "simulated LU factorization, backward errors and iterative refinement"},
    {"experiment", tcsim::cli::cmd_experiment, "reproduce a seed paper's experiment: CSV, plot and checked claims"},
    {"monotonicity", tcsim::cli::cmd_monotonicity, "search a unit for non-monotonic dot products"},
    {"explore", tcsim::cli::cmd_explore, "sweep a unit's datapath parameters: error, monotonicity, cost, Pareto front"},
    {"bench", tcsim::cli::cmd_bench, "benchmarks with a native baseline: tcsim bench dot | gemm | lu; differential campaign: tcsim bench verify"},
};

void usage(std::FILE* out) {
  std::fprintf(out, "usage: tcsim <command> [options]\n\ncommands:\n");
  for (const auto& c : kCommands) std::fprintf(out, "  %-14s %s\n", c.name, c.help);
  std::fprintf(out, "\n'tcsim <command> --help' describes a command's options.\n");
}

}  // namespace

int main(int argc, char** argv) {
#ifdef TCSIM_HAVE_MPI
  // Under mpirun / srun: MPI for the whole run, rank 0 alone prints (docs/scale.md).
  const tcsim::dist::Session mpi(argc, argv);
#endif
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  std::string_view name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    usage(stdout);
    try {
      tcsim::cli::finish_stdout();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tcsim: error: %s\n", e.what());
      return 2;
    }
    return 0;
  }
  for (const auto& c : kCommands) {
    if (name != c.name) continue;
    tcsim::cli::Args args(argv + 2, argv + argc);
    try {
      const int code = c.run(args);
      tcsim::cli::finish_stdout();  // a failed write to stdout (a full disk, /dev/full) is an error, not exit 0
      return code;
    } catch (const std::bad_alloc&) {  // last resort: a size whose memory need was not checked up front
      std::fprintf(stderr, "tcsim %s: error: out of memory: the run needs more memory than is available; "
                   "give smaller sizes\n", c.name);
      return 2;
    } catch (const std::exception& e) {
      // Internal field names (split_k, inner_block, ...) as the options the user typed; one
      // line even when a quoted value holds a newline.
      std::fprintf(stderr, "tcsim %s: error: %s\n", c.name,
                   tcsim::checks::one_line(tcsim::checks::name_options(e.what(), tcsim::checks::Caller::Cli)).c_str());
      return 2;
    }
  }
  std::string names;
  for (const auto& c : kCommands) names += std::string(names.empty() ? "" : ", ") + c.name;
  std::fprintf(stderr, "tcsim: unknown command %s; allowed: %s\n", tcsim::checks::quoted(argv[1]).c_str(), names.c_str());
  return 2;
}
