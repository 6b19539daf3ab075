// tcsim experiment: the seed papers' experiments as runnable, checkable units (issue 9).
//
// An experiment computes the data of one figure (series of points, the bounds as dashed
// series), checks each claim the paper makes about it on the computed numbers, and says what
// the paper found and what the simulation found. cmd_experiment.cpp writes DIR/<id>.csv (the
// points), DIR/<id>.png (the plot) and DIR/<id>.md (text, checks, setting).
#pragma once
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace tcsim::cli::experiments {

struct Series {
  std::string label;
  std::vector<double> x, y;  // y NaN: no point (e.g. the factorization broke down)
  bool bound = false;        // drawn dashed, in the colour of the series it bounds
  std::string bounds;        // label of that series
  bool scatter = false;      // points only, no line (design sweeps)
  bool twin = false;         // dotted with hollow markers, in the colour of `bounds`: the same
                             // computation in a reference setting (mary2024's unbounded range)
  std::string panel;         // subplot title; series with the same panel share a subplot
};

struct Figure {
  std::string title, xlabel, ylabel;
  bool logx = true, logy = true;
  int panel_columns = 2;  // subplots per row when the series name panels
  std::vector<Series> series;
};

struct Check {
  std::string claim;     // the paper's claim, as computed here
  bool holds = false;
  double measured = 0;   // the number the claim is decided on (a ratio, an error, ...)
  std::string detail;    // how measured was obtained
};

inline Check make_check(std::string claim, double measured, bool holds, std::string how) {
  Check k;
  k.claim = std::move(claim);
  k.measured = measured;
  k.holds = holds;
  k.detail = std::move(how);
  return k;
}

// The series `label` (y = error(i) at x = sizes[i]) and the dashed series of its bound,
// `bound_label` (y = bound(i)), appended to `f`.
template <class Error, class Bound>
void add_with_bound(Figure& f, const std::string& label, const std::string& bound_label,
                    const std::vector<std::size_t>& sizes, const Error& error, const Bound& bound) {
  Series m, b;
  m.label = label;
  b.label = bound_label;
  b.bound = true;
  b.bounds = m.label;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    m.x.push_back(static_cast<double>(sizes[i]));
    m.y.push_back(error(i));
    b.x.push_back(static_cast<double>(sizes[i]));
    b.y.push_back(bound(i));
  }
  f.series.push_back(m);
  f.series.push_back(b);
}

// Three significant digits, for tables and texts.
inline std::string num(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

struct Result {
  Figure figure;
  // A table experiment (figure without series): the CSV is the table, the PNG draws it.
  std::vector<std::string> table_header;
  std::vector<std::vector<std::string>> table_rows;
  std::vector<Check> checks;
  std::string paper;      // what the paper found (its words, cited)
  std::string simulated;  // what the simulation found
  std::string setting;    // sizes, seeds, units; what full mode cut from the paper's setting
};

struct Context {
  bool quick = true;
  unsigned threads = 0;
  std::uint64_t seed = 1;
  std::function<void(const std::string&, double)> progress;  // phase, fraction done
  // Runs independent work items, item(i) for i < count, each returning its result as bytes
  // (item_bytes.hpp), and returns the results in item order. tcsim experiment spreads them
  // over MPI ranks under mpirun (distributed_items.hpp); empty: one after the other here. An
  // item's numbers (its seeds included) must depend on its index only.
  std::function<std::vector<std::string>(std::size_t count, const std::function<std::string(std::size_t)>& item)> map_items;
  // The LU experiments (blanchard2020-fig4.2, lopez2022-*): the sizes n of --sizes or --full
  // (lu_paper_sizes), increasing; empty: the experiment's own. `sizes_option` says where they
  // came from ("--sizes 512,1024", "--full"), for the setting and the memory check.
  std::vector<std::size_t> sizes;
  std::string sizes_option;
  // The memory check of the LU points, up front: tcsim experiment sets it to
  // require_memory_per_rank (memory_need.hpp) with `ranks` the job's ranks; empty (the Python
  // package): no check.
  int ranks = 1;
  std::function<void(const std::string& option, const std::vector<double>& bytes_per_rank)> require_memory;
};

inline std::vector<std::string> run_items(const Context& c, std::size_t count,
                                          const std::function<std::string(std::size_t)>& item) {
  if (c.map_items) return c.map_items(count, item);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < count; ++i) out.push_back(item(i));
  return out;
}

struct Experiment {
  std::string id;     // the paper's key and figure: blanchard2020-fig4.2
  std::string title;
  std::function<Result(const Context&)> run;
};

// `count` binary32 values uniform in [lo, hi] (rounded to nearest), stream `stream` of `seed`:
// sim's counter-based generator, the same values on every machine (experiments_gemm.cpp).
std::vector<double> uniform_f32(std::size_t count, double lo, double hi, std::uint64_t seed, std::uint64_t stream);

// The experiments that take --sizes and --full (the LU experiments), and the papers' sizes
// that --full runs: blanchard2020 section 4.2's n = 1000 to 45000, lopez2022's 2000 to 50000
// (experiments_lu.cpp). Empty for the other experiments.
std::vector<std::size_t> lu_paper_sizes(const std::string& id);
std::string lu_sized_experiment_ids();  // "blanchard2020-fig4.2, lopez2022-fig2a, ..."
// --sizes: "n1,n2,...", increasing, each in 16..50000; throws std::invalid_argument naming --sizes.
std::vector<std::size_t> parse_lu_sizes(const std::string& text);

// Every experiment, in --list order (experiments.cpp).
const std::vector<Experiment>& all_experiments();
// The experiment `id`; throws std::invalid_argument "experiment 'x' is not known; allowed: ...".
const Experiment& find_experiment(const std::string& id);
std::string experiment_ids();  // "blanchard2020-fig3.1, ...", in --list order
// The JSON object of `tcsim experiment --json` for a run whose outputs went to `dir`.
nlohmann::json run_json(const Experiment& e, const Result& r, const Context& c, double seconds, const std::string& dir,
                        const std::string& plot_tool);
void add_gemm_experiments(std::vector<Experiment>& out);       // experiments_gemm.cpp
void add_multiword_experiments(std::vector<Experiment>& out);  // experiments_multiword.cpp
void add_lu_experiments(std::vector<Experiment>& out);         // experiments_lu.cpp
void add_units_experiments(std::vector<Experiment>& out);      // experiments_units.cpp
void add_fasi2021_experiments(std::vector<Experiment>& out);   // experiments_fasi2021.cpp
void add_mary2024_experiments(std::vector<Experiment>& out);    // experiments_mary2024.cpp
void add_km25_experiments(std::vector<Experiment>& out);        // experiments_km25.cpp
// Why experiment `id` takes no seed ("" when it does): KM25's draw MATLAB's rng(1) stream.
std::string seed_refusal(const std::string& id);                // experiments_km25.cpp

// Writes <dir>/<id>.csv, <id>.md and <id>.png; returns the plotting tool used
// ("matplotlib" or "gnuplot"). Throws std::runtime_error naming `option` (the folder's
// option, "--out") and the file that could not be written (every write checked through the
// close), or the packages to install when neither plotting tool runs.
std::string write_outputs(const Experiment& e, const Result& r, const Context& c, const std::string& dir,
                          const std::string& option = "--out");

}  // namespace tcsim::cli::experiments
