// tcsim.probe / tcsim.validate_dump / tcsim.experiment(s): the black-box feature probe, the
// comparison with real-GPU dump files and the seed papers' experiments, reported as the
// CLI's --json reports them (the same library code).
#include <chrono>

#include "experiment.hpp"
#include "fit_progress.hpp"
#include "matrices.hpp"
#include "output_file.hpp"
#include "tcsim/validation/dump_reader.hpp"
#include "tcsim/validation/dump_validate.hpp"
#include "tcsim/validation/fit.hpp"
#include "tcsim/validation/fit_certainty.hpp"
#include "tcsim/validation/fit_json.hpp"
#include "tcsim/validation/probe.hpp"
#include "tcsim/validation/probe_blackbox.hpp"

namespace tcsim::python {

namespace {

std::string path_arg(const py::object& obj, const char* field) {
  if (obj.is_none()) return "";
  if (!py::isinstance<py::str>(obj) && !py::hasattr(obj, "__fspath__"))
    throw py::type_error(std::string(field) + ": expected a path (str or os.PathLike), got " +
                         std::string(py::repr(obj)));
  return py::str(py::module_::import("os").attr("fspath")(obj)).cast<std::string>();
}

// `tcsim probe --json`: one pair (in_format and out_format) -> a dict; every pair -> a list.
py::object probe(const py::object& unit_obj, const py::object& in_format, const py::object& out_format,
                 const py::object& instruction_obj, const py::object& seed, const py::object& fasi2021_obj) {
  const bool fasi2021 = bool_arg(fasi2021_obj, "fasi2021", "probe");
  const auto unit = unit_arg(unit_obj);
  if (in_format.is_none() != out_format.is_none())
    throw std::invalid_argument("in_format and out_format go together (neither: every pair the unit serves)");
  const std::string instruction = str_arg(instruction_obj, "instruction", "probe");
  validation::ProbeOptions opt;
  if (!seed.is_none()) opt.seed = static_cast<std::uint64_t>(int_arg(seed, "seed", "probe", 0, (1ll << 62)));
  std::vector<std::pair<const Format*, const Format*>> pairs;
  if (!in_format.is_none()) {
    pairs.emplace_back(&parse_format(str_arg(in_format, "in_format", "probe"), "in_format"),
                       &parse_format(str_arg(out_format, "out_format", "probe"), "out_format"));
  } else {
    for (const std::string& pair : unit->format_pairs()) {
      const auto arrow = pair.find("->");
      pairs.emplace_back(&parse_format(pair.substr(0, arrow)), &parse_format(pair.substr(arrow + 2)));
    }
  }
  nlohmann::json arr = nlohmann::json::array();
  {
    py::gil_scoped_release release;
    for (const auto& [in, out] : pairs) {
      if (!instruction.empty() || !in_format.is_none()) (void)unit->datapath(*in, *out, instruction);  // clear error
      const validation::BlackBox box = validation::blackbox_from_unit(unit, *in, *out, instruction);
      arr.push_back((fasi2021 ? validation::probe_with_fasi2021(box, opt) : validation::probe(box, opt)).to_json());
    }
  }
  return to_python(in_format.is_none() ? arr : arr[0]);
}

// `tcsim validate-dump`: every case through the unit, bit for bit.
py::dict validate_dump(const py::object& unit_obj, const py::object& in_format, const py::object& out_format,
                       const py::object& a, const py::object& b, const py::object& c, const py::object& d,
                       const py::object& zero_c_obj, const py::object& instruction_obj, const py::object& max_report_obj,
                       const py::object& in_format_a, const py::object& in_format_b) {
  const auto unit = unit_arg(unit_obj);
  const InputFormats inputs = input_formats_arg(in_format, in_format_a, in_format_b, "validate_dump");
  const Format& in = *inputs.a;
  const Format& in_b = *inputs.b;
  const Format& out = parse_format(str_arg(out_format, "out_format", "validate_dump"), "out_format");
  const bool zero_c = bool_arg(zero_c_obj, "zero_c", "validate_dump");
  const long long max_report = int_arg(max_report_obj, "max_report", "validate_dump", 0, 1000000);
  const std::string instruction = str_arg(instruction_obj, "instruction", "validate_dump");
  if (d.is_none()) throw std::invalid_argument("give the d file (the GPU's results) with d=");
  if (!zero_c && c.is_none()) throw std::invalid_argument("give the c file with c=, or zero_c=True for a zero accumulator");
  if (zero_c && !c.is_none()) throw std::invalid_argument("c and zero_c exclude each other");
  (void)checked_datapath(*unit, inputs, out, instruction);
  const validation::DumpPaths paths{path_arg(a, "a"), path_arg(b, "b"), path_arg(c, "c"), path_arg(d, "d")};
  const auto c_input = zero_c ? validation::AccumulatorInput::Zero : validation::AccumulatorInput::FromFile;
  validation::DumpSet dump;
  validation::ValidationResult r;
  {
    py::gil_scoped_release release;
    dump = validation::load_dump(paths, in, in_b, out, c_input);
    const validation::DotFunction dot = [&](std::span<const std::uint64_t> x, std::span<const std::uint64_t> y,
                                            std::uint64_t cv) { return unit->dot(in, in_b, out, x, y, cv, instruction); };
    r = validation::validate_dump(dump, dot, static_cast<std::size_t>(max_report));
  }
  py::list first;
  for (const auto& mm : r.first) {
    py::dict e;
    e["index"] = mm.index;
    e["expected"] = mm.expected;
    e["got"] = mm.got;
    e["description"] = validation::describe_mismatch(dump, mm);
    first.append(e);
  }
  py::dict j;
  j["unit"] = unit->name();
  j["in"] = in.name;
  j["out"] = out.name;
  j["k"] = dump.k;
  j["cases"] = r.cases;
  j["mismatches"] = r.mismatches;
  j["match_rate"] = r.match_rate();
  j["first"] = first;
  j["summary"] = validation::summary_line(r);
  return j;
}

// tcsim.fit (the Python wrapper in tcsim/__init__.py checks shapes and turns values into bit
// patterns): one dump as uint64 patterns, a (n, K), b (n, K), c (n,), d (n,) -> `tcsim fit --json`.
py::object fit_bits(const py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>& a,
                    const py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>& b,
                    const py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>& c,
                    const py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>& d,
                    const py::object& in_format, const py::object& out_format, const py::object& k_obj,
                    const py::object& base_obj, const py::object& instruction_k_obj, const py::object& budget_obj,
                    const py::object& seconds_obj, const py::object& certainty_obj, const py::object& seed_obj,
                    const py::object& progress_obj) {
  validation::DumpSet dump;
  dump.in = parse_format(str_arg(in_format, "in_format", "fit"), "in_format");
  dump.out = parse_format(str_arg(out_format, "out_format", "fit"), "out_format");
  for (const auto& [f, arg] : {std::pair{&dump.in, "in_format"}, std::pair{&dump.out, "out_format"}})
    if (const std::string why = validation::fit_format_refusal(*f); !why.empty())
      throw std::invalid_argument(std::string(arg) + ": " + why);
  if (a.ndim() == 2 && a.shape(0) == 0) throw std::invalid_argument("a: the dump holds no cases (0 rows)");
  if (a.ndim() != 2 || b.ndim() != 2 || c.ndim() != 1 || d.ndim() != 1 || a.shape(0) != b.shape(0) ||
      a.shape(1) != b.shape(1) || c.shape(0) != a.shape(0) || d.shape(0) != a.shape(0))
    throw std::invalid_argument("a and b must be (n, K) and c and d (n,)");
  dump.n = static_cast<std::size_t>(a.shape(0));
  dump.k = static_cast<std::size_t>(a.shape(1));
  dump.a.assign(a.data(), a.data() + a.size());
  dump.b.assign(b.data(), b.data() + b.size());
  dump.c.assign(c.data(), c.data() + c.size());
  dump.d.assign(d.data(), d.data() + d.size());
  validation::FitOptions opt;
  if (!k_obj.is_none()) opt.fma_size = static_cast<int>(int_arg(k_obj, "k", "fit", 1, 256));
  // The CLI's --instruction-k, with its range (catalogue B268-B269, P77-P79).
  if (!instruction_k_obj.is_none())
    opt.instruction_k = static_cast<int>(int_arg(instruction_k_obj, "instruction_k", "fit", 1, 256));
  // The CLI's --budget and --seconds, with their ranges and defaults.
  if (!budget_obj.is_none())
    opt.work_budget = static_cast<std::size_t>(int_arg(budget_obj, "budget", "fit", 1000, 100000000000LL));
  opt.time_limit_seconds = seconds_obj.is_none() ? (opt.work_budget ? 120.0 : 90.0)
                                                 : static_cast<double>(int_arg(seconds_obj, "seconds", "fit", 1, 3600));
  if (!base_obj.is_none()) {
    const std::string name = str_arg(base_obj, "base", "fit");
    try {
      opt.seeds.push_back(models::builtin_unit(name).datapath(dump.in, dump.out));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("base: ") + e.what());
    }
  }
  // The CLI's "how sure" check (on unless --no-certainty) and a seed of the pool (0..2^62, as the other seeds of the package).
  const bool certainty = bool_arg(certainty_obj, "certainty", "fit");
  const std::uint64_t seed = seed_obj.is_none() ? 1 : static_cast<std::uint64_t>(int_arg(seed_obj, "seed", "fit", 0, (1ll << 62)));
  // The CLI's progress lines (tcsim fit without --quiet), as the package's other long calls.
  cli::Progress progress("tcsim.fit", cli::progress_enabled(progress_arg(progress_obj, "fit")));
  nlohmann::json j;
  {
    py::gil_scoped_release release;
    const std::vector<validation::DumpSet> dumps{std::move(dump)};
    const std::string phase = cli::fit_search_phase(opt);
    opt.progress = [&](double used) { progress.update(phase, used); };
    const validation::FitResult r = validation::fit_dumps(dumps, opt);
    j = validation::fit_report_json(r, dumps);
    if (certainty)
      j["certainty"] = validation::certainty_json(
          validation::fit_certainty(r, dumps, seed, progress.hook(cli::kFitCertaintyPhase)));
    progress.done();
  }
  return to_python(j);
}

py::dict experiment(const py::object& id_obj, const py::object& quick, const py::object& out, const py::object& seed,
                    const py::object& threads, const py::object& progress_obj) {
  namespace ex = cli::experiments;
  if (id_obj.is_none()) throw py::type_error("argument 'id' of tcsim.experiment expects a str (tcsim.experiments() lists them), got None");
  const ex::Experiment* found = nullptr;
  try {
    found = &ex::find_experiment(str_arg(id_obj, "id", "experiment"));
  } catch (const std::invalid_argument& err) {
    throw std::invalid_argument(std::string("id: ") + err.what());
  }
  const ex::Experiment& e = *found;
  ex::Context c;
  c.quick = bool_arg(quick, "quick", "experiment");
  if (!seed.is_none() && !ex::seed_refusal(e.id).empty()) throw std::invalid_argument("seed: " + ex::seed_refusal(e.id));
  if (!seed.is_none()) c.seed = static_cast<std::uint64_t>(int_arg(seed, "seed", "experiment", 0, (1ll << 62)));
  if (!threads.is_none()) c.threads = static_cast<unsigned>(int_arg(threads, "threads", "experiment", 0, 1024));
  const std::string dir = out.is_none() ? "tcsim-experiments" : path_arg(out, "out");
  try {  // before computing; a bad folder is a bad argument (ValueError), as the CLI's exit 2
    cli::prepare_output_folder("out", dir);
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());
  }
  cli::Progress progress("tcsim.experiment " + e.id, cli::progress_enabled(progress_arg(progress_obj, "experiment")));
  c.progress = [&](const std::string& phase, double f) { progress.update(phase, f); };
  nlohmann::json j;
  {
    py::gil_scoped_release release;
    const auto t0 = std::chrono::steady_clock::now();
    const ex::Result r = e.run(c);
    progress.done();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::string tool = ex::write_outputs(e, r, c, dir, "out");
    j = ex::run_json(e, r, c, seconds, dir, tool);
  }
  return to_python(j);
}

py::list experiments() {
  py::list out;
  for (const auto& e : cli::experiments::all_experiments()) {
    py::dict d;
    d["id"] = e.id;
    d["title"] = e.title;
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_validation(py::module_& m) {
  m.def("probe", &probe, py::arg("unit"), py::arg("in_format") = py::none(), py::arg("out_format") = py::none(),
        py::arg("instruction") = py::none(), py::arg("seed") = py::none(), py::arg("fasi2021") = true,
        "The black-box feature probe of `tcsim probe --json` (docs/probe.md): a dict for one format pair, a list "
        "of dicts for every pair the unit serves.");
  m.def("validate_dump", &validate_dump, py::arg("unit"), py::arg("in_format"), py::arg("out_format"), py::arg("a"),
        py::arg("b"), py::arg("c") = py::none(), py::arg("d") = py::none(), py::arg("zero_c") = false,
        py::arg("instruction") = py::none(), py::arg("max_report") = 10, py::arg("in_format_a") = py::none(),
        py::arg("in_format_b") = py::none(),
        "Every case of a real-GPU dump (a, b, c, d files) through the unit, bit for bit: cases, mismatches, the "
        "first max_report mismatches and `tcsim validate-dump`'s summary line. in_format_a / in_format_b: a and b "
        "in different formats (in_format=None with both, or one of them with in_format).");
  m.def("_fit", &fit_bits, py::arg("a"), py::arg("b"), py::arg("c"), py::arg("d"), py::arg("in_format"),
        py::arg("out_format"), py::arg("k") = py::none(), py::arg("base") = py::none(),
        py::arg("instruction_k") = py::none(), py::arg("budget") = py::none(), py::arg("seconds") = py::none(),
        py::arg("certainty") = true, py::arg("seed") = py::none(), py::arg("progress") = py::none(),
        "tcsim.fit's core on bit patterns (uint64 arrays); use tcsim.fit.");
  m.def("experiment", &experiment, py::arg("id"), py::arg("quick") = true, py::arg("out") = py::none(),
        py::arg("seed") = py::none(), py::arg("threads") = py::none(), py::arg("progress") = py::none(),
        "Runs one of the seed papers' experiments (`tcsim experiment ID --json`): writes OUT/ID.csv, .png, .md and "
        "returns the checks of the paper's claims.");
  m.def("experiments", &experiments, "The experiments: id and title.");
}

}  // namespace tcsim::python
