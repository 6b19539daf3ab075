// The tcsim subcommands. Each lives in its own cmd_<name>.cpp and returns the exit code.
#pragma once
#include <string>
#include <vector>

namespace tcsim::cli {

using Args = std::vector<std::string>;  // the arguments after the subcommand name

int cmd_dot(const Args& args);            // one element through an adder or a unit
int cmd_units(const Args& args);          // list the built-in units and their data rows
int cmd_validate_dump(const Args& args);  // compare a unit with real-GPU dump files
int cmd_probe(const Args& args);          // black-box feature probe of a unit
int cmd_report(const Args& args);         // the main job: examples and a V100 probe report
int cmd_bench(const Args& args);          // benchmarks (tcsim bench dot)
int cmd_gemm(const Args& args);           // simulated GEMM with exact errors and bounds
int cmd_lu(const Args& args);             // simulated LU, backward errors, refinement
int cmd_experiment(const Args& args);     // the seed papers' experiments: CSV, plot, checks
int cmd_monotonicity(const Args& args);   // search for non-monotonic dot products
int cmd_explore(const Args& args);        // datapath design sweeps: error, cost, Pareto front
int cmd_fit(const Args& args);            // find the unit row that reproduces a dump

}  // namespace tcsim::cli
