// tcsim experiment: runs one of the seed papers' experiments (experiment.hpp), writes its CSV,
// plot and report, and checks the paper's claims on the computed numbers.
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "commands.hpp"
#include "distributed_items.hpp"
#include "experiment.hpp"
#include "json_output.hpp"
#include "memory_need.hpp"
#include "output_file.hpp"
#include "progress.hpp"

namespace tcsim::cli {

int cmd_experiment(const Args& args) {
  namespace ex = experiments;
  ArgParser p("experiment",
              "reproduce an experiment of the seed papers on simulated units: writes DIR/<id>.csv (the data), "
              "DIR/<id>.png (the plot: log axes, one line per variant, bounds dashed) and DIR/<id>.md (what the paper "
              "found, what the simulation found, and computed checks of each claim). Exit 0 when every check holds, "
              "1 when one does not");
  p.positional("id", "the experiment (tcsim experiment --list)");
  p.flag("list", "list the experiments");
  p.flag("quick", "smaller sizes, the same checks (under a minute)");
  p.option("sizes", "the LU experiments (blanchard2020-fig4.2, lopez2022-*): the sizes n to run, increasing "
                    "(16..50000)", "n1,n2,...");
  p.flag("full", "the LU experiments: the papers' sizes (blanchard2020 n = 1000 to 45000, lopez2022 2000 to 50000); "
                 "hours to days per size on one machine: run under mpirun (docs/scale.md)");
  p.option("out", "output folder (default tcsim-experiments)", "DIR");
  p.option("threads", "threads (default 0: all cores); the numbers do not depend on it", "T");
  p.option("seed", "seed of the random matrices (default 1)", "S");
  declare_json_and_quiet(p);
  const auto a = p.parse(args);
  if (a.help()) return p.print_help();
  const bool json = a.has("json");
  if (a.has("list")) {
    if (!a.positional().empty()) throw std::invalid_argument("--list takes no experiment id");
    nlohmann::json j = nlohmann::json::array();
    for (const ex::Experiment& e : ex::all_experiments()) {
      if (json) j.push_back({{"id", e.id}, {"title", e.title}});
      else std::printf("%-24s %s\n", e.id.c_str(), e.title.c_str());
    }
    if (json) print_json(j);
    return 0;
  }
  if (a.positional().size() != 1)
    throw std::invalid_argument("name one experiment (or --list); allowed: " + ex::experiment_ids());
  const std::string id = a.positional()[0];
  const ex::Experiment* found = &ex::find_experiment(id);

  ex::Context c;
  c.quick = a.has("quick");
  if (a.has("sizes") || a.has("full")) {
    const std::string option = a.has("sizes") ? "--sizes" : "--full";
    if (a.has("sizes") && a.has("full")) throw std::invalid_argument("--sizes and --full: give one of them");
    if (c.quick) throw std::invalid_argument(option + " and --quick: give one of them (--quick has its own sizes)");
    if (ex::lu_paper_sizes(id).empty())
      throw std::invalid_argument(option + " applies to the LU experiments (" + ex::lu_sized_experiment_ids() + "); '" +
                                  id + "' has its own sizes");
    c.sizes = a.has("sizes") ? ex::parse_lu_sizes(a.get("sizes")) : ex::lu_paper_sizes(id);
    c.sizes_option = a.has("sizes") ? "--sizes " + a.get("sizes") : "--full";
  }
  c.threads = static_cast<unsigned>(a.get_int("threads", 0, 1024, 0));
  if (a.has("seed") && !ex::seed_refusal(id).empty())
    throw std::invalid_argument("--seed: " + ex::seed_refusal(id));
  c.seed = a.get_uint64("seed", 1);
  const std::string dir = a.get_or("out", "tcsim-experiments");
  on_rank0([&] { prepare_output_folder("--out", dir); });  // before computing
  Progress progress("tcsim experiment " + id, !a.has("quiet"));
  c.progress = [&](const std::string& phase, double f) { progress.update(phase, f); };
  // Under mpirun the experiment's work items are spread over the ranks and every rank gets
  // all results (distributed_items.hpp); rank 0 writes the outputs.
  c.map_items = [](std::size_t count, const std::function<std::string(std::size_t)>& item) { return map_items(count, item); };
  c.ranks = job_ranks();
  c.require_memory = [](const std::string& option, const std::vector<double>& bytes) {
    require_memory_per_rank(option, bytes, "");
  };
  const auto t0 = std::chrono::steady_clock::now();
  const ex::Result r = found->run(c);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  progress.done();
  std::string tool;
  on_rank0([&] { tool = ex::write_outputs(*found, r, c, dir); });
  bool all = true;
  for (const ex::Check& k : r.checks) all = all && k.holds;
  const std::string base = dir + "/" + id;
  if (json) {
    const nlohmann::json j = ex::run_json(*found, r, c, seconds, dir, tool);
    print_json(j);
  } else {
    std::printf("%s: %s (%s, %.1f s)\n", id.c_str(), found->title.c_str(),
                c.quick ? "quick" : c.sizes_option.empty() ? "full" : c.sizes_option.c_str(), seconds);
    for (const ex::Check& k : r.checks)
      std::printf("  [%s] %s: %.3g (%s)\n", k.holds ? "holds" : "FAILS", k.claim.c_str(), k.measured, k.detail.c_str());
    std::printf("wrote %s.csv, %s.png (%s), %s.md\n", base.c_str(), base.c_str(), tool.c_str(), base.c_str());
  }
  return all ? 0 : 1;
}

}  // namespace tcsim::cli
