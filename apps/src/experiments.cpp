// The list of experiments and the JSON report of a run (experiment.hpp), shared by
// `tcsim experiment` and the Python package (tcsim.experiment).
#include <stdexcept>
#include <string>

#include "experiment.hpp"

namespace tcsim::cli::experiments {

const std::vector<Experiment>& all_experiments() {
  static const std::vector<Experiment> list = [] {
    std::vector<Experiment> v;
    add_gemm_experiments(v);
    add_multiword_experiments(v);
    add_mary2024_experiments(v);
    add_km25_experiments(v);
    add_lu_experiments(v);
    add_units_experiments(v);
    add_fasi2021_experiments(v);
    return v;
  }();
  return list;
}

const Experiment& find_experiment(const std::string& id) {
  std::string ids;
  for (const Experiment& e : all_experiments()) {
    if (e.id == id) return e;
    ids += (ids.empty() ? "" : ", ") + e.id;
  }
  throw std::invalid_argument("experiment '" + id + "' is not known; allowed: " + ids);
}

std::string experiment_ids() {
  std::string ids;
  for (const Experiment& e : all_experiments()) ids += (ids.empty() ? "" : ", ") + e.id;
  return ids;
}

nlohmann::json run_json(const Experiment& e, const Result& r, const Context& c, double seconds, const std::string& dir,
                        const std::string& plot_tool) {
  bool all = true;
  for (const Check& k : r.checks) all = all && k.holds;
  const std::string base = dir + "/" + e.id;
  nlohmann::json j;
  j["id"] = e.id;
  j["quick"] = c.quick;
  if (!c.sizes.empty()) j["sizes"] = c.sizes;  // --sizes or --full
  j["seed"] = c.seed;
  j["seconds"] = seconds;
  j["checks"] = nlohmann::json::array();
  for (const Check& k : r.checks)
    j["checks"].push_back({{"claim", k.claim}, {"holds", k.holds}, {"measured", k.measured}, {"how", k.detail}});
  j["all_hold"] = all;
  j["csv"] = base + ".csv";
  j["png"] = base + ".png";
  j["md"] = base + ".md";
  j["plot_tool"] = plot_tool;
  return j;
}

}  // namespace tcsim::cli::experiments
