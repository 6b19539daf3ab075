// tcsim.lu / tcsim.solve / tcsim.lu_matrix: the simulated LU factorization (models/lu.hpp),
// the solution of Ax = b with its backward errors and bound, iterative refinement, and the
// test matrices of `tcsim lu` (the same generators, so the same matrices for a seed). The
// reports are `tcsim lu --json`'s fields, built by the same code (apps/src/lu_report.hpp).
#include <chrono>
#include <cmath>

#include "lu_report.hpp"
#include "matrices.hpp"
#include "option_names.hpp"
#include "value_checks.hpp"
#include "tcsim/models/lu.hpp"
#include "tcsim/models/lu_matrices.hpp"
#include "tcsim/models/lu_refine.hpp"

namespace tcsim::python {

namespace {

struct LuCall {
  std::shared_ptr<const models::Unit> unit;
  const Format* in = nullptr;
  MatrixArg A;
  models::LuOptions o;
};

py::object kw_get(const py::kwargs& kw, const char* key) {
  return kw.contains(key) ? py::reinterpret_borrow<py::object>(kw[key]) : py::none();
}

void check_known(const py::kwargs& kw, const char* fn, std::initializer_list<const char*> known) {
  for (const auto& item : kw) {
    const std::string key = py::str(item.first);
    bool ok = false;
    for (const char* k : known) ok = ok || key == k;
    if (ok) continue;
    std::string allowed;
    for (const char* k : known) allowed += std::string(allowed.empty() ? "" : ", ") + k;
    throw py::type_error("unknown argument '" + key + "' for tcsim." + fn + "; allowed: " + allowed);
  }
}

// `tcsim lu`'s option checks, named as the Python arguments.
LuCall lu_call(const py::object& A, const py::kwargs& kw, const char* fn) {
  LuCall c;
  const py::object unit = kw_get(kw, "unit");
  if (unit.is_none()) throw py::type_error(std::string("tcsim.") + fn + ": give unit= (a tcsim.Unit or a built-in unit's name)");
  c.unit = unit_arg(unit);
  c.in = &parse_format(str_arg(kw_get(kw, "in_format"), "in_format", fn, "fp16"), "in_format");
  models::LuOptions& o = c.o;
  o.algorithm = models::parse_lu_algorithm(str_arg(kw_get(kw, "alg"), "alg", fn, "rl"), "alg");
  const bool rl = o.algorithm == models::LuAlgorithm::Rl, dp = o.algorithm == models::LuAlgorithm::Dp;
  if (!kw_get(kw, "variant").is_none() && !rl) throw std::invalid_argument("variant applies to alg 'rl' only");
  if (!kw_get(kw, "panel").is_none() && !dp) throw std::invalid_argument("panel applies to alg 'dp' only");
  if (!kw_get(kw, "s").is_none() && !dp) throw std::invalid_argument("s applies to alg 'dp' only");
  o.storage = str_arg(kw_get(kw, "storage"), "storage", fn);
  if (!kw_get(kw, "variant").is_none())
    o.variant = models::parse_variant(str_arg(kw_get(kw, "variant"), "variant", fn), "variant");
  else if (rl && o.storage == "fp16")
    o.variant = models::GemmVariant::Tc16;  // lopez2022 Algorithm 3.1 with u = u16, as the CLI
  if (!kw_get(kw, "panel").is_none()) o.panel = models::parse_lu_panel(str_arg(kw_get(kw, "panel"), "panel", fn), "panel");
  if (!kw_get(kw, "r").is_none()) o.block = static_cast<std::size_t>(int_arg(kw_get(kw, "r"), "r", fn, 1, 1 << 20));
  if (!kw_get(kw, "s").is_none()) o.inner_block = static_cast<std::size_t>(int_arg(kw_get(kw, "s"), "s", fn, 1, 1 << 20));
  o.pivot = !kw_get(kw, "pivot").is_none() && bool_arg(kw_get(kw, "pivot"), "pivot", fn);
  o.instruction = str_arg(kw_get(kw, "instruction"), "instruction", fn);
  if (!kw_get(kw, "threads").is_none()) o.threads = static_cast<unsigned>(int_arg(kw_get(kw, "threads"), "threads", fn, 0, 1024));
  o.on_breakdown = models::parse_lu_on_breakdown(str_arg(kw_get(kw, "on_breakdown"), "on_breakdown", fn, "stop"), "on_breakdown");
  c.A = matrix_arg(A, "A", formats::fp64(), o.threads);
  if (c.A.rows != c.A.cols)
    throw std::invalid_argument("A is " + std::to_string(c.A.rows) + " x " + std::to_string(c.A.cols) +
                                "; LU needs a square matrix");
  check_entries(c.A, "A");  // NaN/Inf refused, as tcsim lu --matrix
  return c;
}

models::LuResult factorize(const LuCall& c) {
  py::gil_scoped_release release;
  return models::simulate_lu(*c.unit, *c.in, c.A.rows, c.A.values, c.o);
}

nlohmann::json base_report(const LuCall& c, const models::LuResult& lu) {
  nlohmann::json j;
  j["unit"] = c.unit->name();
  j["in"] = c.in->name;
  j["n"] = c.A.rows;
  j["pivot"] = c.o.pivot;
  j["on_breakdown"] = lu.on_breakdown;
  j.update(cli::lu_factor_json(lu));
  j["perm"] = lu.perm;
  return j;
}

// An event as a Python dict (value a Python float, Inf and NaN included), or None.
py::object event_dict(const models::LuEvent& e) {
  if (!e.found) return py::none();
  py::dict d;
  d["step"] = e.step;
  d["block"] = e.block;
  d["row"] = e.row;
  d["col"] = e.col;
  d["value"] = e.value;
  d["where"] = e.where;
  return d;
}

// The report's events (the keys of `tcsim lu --json`), numbers as Python floats.
void add_events(py::dict report, const models::LuResult& lu, const models::LuSolveEvents* se) {
  py::dict ev;
  ev["subnormal_pivot"] = event_dict(lu.events.subnormal_pivot);
  ev["zero_pivot"] = event_dict(lu.events.zero_pivot);
  ev["overflow"] = event_dict(lu.events.overflow);
  ev["nan"] = event_dict(lu.events.nan);
  report["events"] = ev;
  if (!se) return;
  py::dict sd;
  sd["overflow"] = event_dict(se->overflow);
  sd["nan"] = event_dict(se->nan);
  report["solve_events"] = sd;
}

// (L, U, report): L unit lower triangular, U upper triangular (values of the storage format).
py::tuple lu(const py::object& A, const py::kwargs& kw) {
  check_known(kw, "lu", {"unit", "in_format", "alg", "variant", "storage", "panel", "r", "s", "pivot", "instruction", "threads",
                         "on_breakdown", "progress"});
  LuCall c = lu_call(A, kw, "lu");
  cli::Progress progress("tcsim.lu", cli::progress_enabled(progress_arg(kw_get(kw, "progress"), "lu")));
  c.o.progress = [&](double f) { progress.update("simulated LU", f); };
  const auto t0 = std::chrono::steady_clock::now();
  const models::LuResult r = factorize(c);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  progress.done();
  const std::size_t n = r.n;
  std::vector<double> L(n * n, 0.0), U(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      if (j < i) L[i * n + j] = r.LU[i * n + j];
      else U[i * n + j] = r.LU[i * n + j];
    }
  for (std::size_t i = 0; i < n; ++i) L[i * n + i] = 1.0;
  nlohmann::json j = base_report(c, r);
  j["seconds"] = seconds;
  py::dict report = to_python(j).cast<py::dict>();
  add_events(report, r, nullptr);
  return py::make_tuple(matrix_array(L, n, n), matrix_array(U, n, n), report);
}

// (x, report): x solving Ax = b (refined when refine= is given), and `tcsim lu --json`'s fields.
py::tuple solve(const py::object& A, const py::object& b, const py::kwargs& kw) {
  check_known(kw, "solve", {"unit", "in_format", "alg", "variant", "storage", "panel", "r", "s", "pivot", "instruction",
                            "threads", "solve", "refine", "working", "max_iterations", "x_true", "on_breakdown",
                            "progress"});
  LuCall c = lu_call(A, kw, "solve");
  cli::Progress progress("tcsim.solve", cli::progress_enabled(progress_arg(kw_get(kw, "progress"), "solve")));
  c.o.progress = [&](double f) { progress.update("simulated LU", f); };
  const std::size_t n = c.A.rows;
  std::vector<double> rhs, x_true;
  if (b.is_none()) {  // x = ones, b = A x in binary64, as `tcsim lu` (lopez2022 section 2.3)
    x_true.assign(n, 1.0);
    rhs.assign(n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t col = 0; col < n; ++col) rhs[i] += c.A.values[i * n + col];
  } else {
    rhs = vector_arg(b, "b", n);
  }
  if (!kw_get(kw, "x_true").is_none()) x_true = vector_arg(kw_get(kw, "x_true"), "x_true", n);
  const bool refine = !kw_get(kw, "refine").is_none();
  if (!refine)
    for (const char* opt : {"working", "max_iterations"})
      if (!kw_get(kw, opt).is_none()) throw std::invalid_argument(std::string(opt) + " needs refine");
  models::RefineOptions ro;
  std::string method;
  if (refine) {
    method = str_arg(kw_get(kw, "refine"), "refine", "solve");
    ro.method = models::parse_refine_method(method);
    ro.working = str_arg(kw_get(kw, "working"), "working", "solve", "fp64");
    if (!kw_get(kw, "max_iterations").is_none())
      ro.max_iterations = static_cast<int>(int_arg(kw_get(kw, "max_iterations"), "max_iterations", "solve", 1, 1000));
  }
  const std::string solve_arg = str_arg(kw_get(kw, "solve"), "solve", "solve");

  const auto t0 = std::chrono::steady_clock::now();
  const models::LuResult lu = factorize(c);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  {
    // b beyond the substitutions' format would overflow there, not in the factorization: refuse
    // it by name (the validation layer's message) rather than report a breakdown.
    const std::string precision = solve_arg.empty() ? (lu.storage == "fp16" ? "fp32" : lu.storage) : solve_arg;
    const bool known = precision == "fp16" || precision == "fp32" || precision == "fp64";  // else lu_solve refuses it
    const Format& f = parse_format(known ? precision : "fp64", "solve");
    const double largest = std::ldexp(static_cast<double>(f.max_finite_significand()), f.emax - f.fraction_bits);
    for (std::size_t i = 0; !b.is_none() && i < rhs.size(); ++i) {
      std::string why = checks::nonfinite_refusal("b[" + std::to_string(i) + "]", rhs[i]);
      if (why.empty())
        why = checks::magnitude_refusal("b[" + std::to_string(i) + "]", rhs[i], largest,
                                        precision + ", the format of the substitutions");
      if (!why.empty()) throw std::invalid_argument(why);
    }
  }
  nlohmann::json j = base_report(c, lu);
  std::vector<double> x;
  models::LuSolveEvents se;
  models::LuBackwardErrors err;
  {
    py::gil_scoped_release release;
    const std::string precision = solve_arg.empty() ? (lu.storage == "fp16" ? "fp32" : lu.storage) : solve_arg;
    progress.update("substitutions and backward errors", 0.0);
    x = models::lu_solve(lu, rhs, precision, &se);
    // on_breakdown "stop": a non-finite x is a breakdown (tcsim.LuBreakdown), never a result.
    if (c.o.on_breakdown == models::LuOnBreakdown::Stop && se.any())
      throw models::LuBreakdown(models::lu_solve_breakdown(se, precision));
    err = models::lu_backward_errors(lu, c.A.values, x, rhs);
    const cli::LuBound bound = cli::lu_bound(lu, *c.unit, *c.in, c.o.instruction, precision);
    cli::add_lu_solve_json(j, err, bound, precision);
    const std::string note = cli::lu_nonfinite_note(lu, se);
    if ((!std::isfinite(err.componentwise) || !std::isfinite(err.normwise)) && !note.empty())
      j["backward_error_note"] = note;
    j["seconds"] = seconds;
    if (refine) {
      progress.update("iterative refinement", 0.0);
      const models::RefineResult ref = models::refine_solution(lu, c.A.values, rhs, x_true, ro);
      cli::add_refine_json(j, ref, method, ro.working);
      x = ref.x;
    }
  }
  progress.done();
  py::array_t<double> xv(static_cast<py::ssize_t>(x.size()));
  std::copy(x.begin(), x.end(), xv.mutable_data());
  py::dict report = to_python(j).cast<py::dict>();
  add_events(report, lu, &se);
  // Python floats for the backward errors, Inf and NaN included (JSON needs strings for them).
  report["backward_error"] = err.componentwise;
  report["normwise_backward_error"] = err.normwise;
  return py::make_tuple(xv, report);
}

py::array lu_matrix(const py::object& kind_obj, const py::object& n_obj, const py::object& cond_obj,
                    const py::object& seed_obj) {
  const std::string kind = str_arg(kind_obj, "kind", "lu_matrix");
  const long long n_arg = int_arg(n_obj, "n", "lu_matrix", 1, 1 << 15);
  if (!py::isinstance<py::float_>(cond_obj) && !(py::isinstance<py::int_>(cond_obj) && !py::isinstance<py::bool_>(cond_obj)))
    throw py::type_error("argument 'cond' of tcsim.lu_matrix expects a number >= 1, got " + std::string(py::repr(cond_obj)));
  const double cond = cond_obj.cast<double>();
  if (!(cond >= 1) || !std::isfinite(cond))
    throw std::invalid_argument("argument 'cond' of tcsim.lu_matrix expects a finite number >= 1, got " +
                                std::string(py::repr(cond_obj)));
  const auto seed = static_cast<std::uint64_t>(int_arg(seed_obj, "seed", "lu_matrix", 0, (1ll << 62)));
  const auto n = static_cast<std::size_t>(n_arg);
  std::vector<double> A;
  {
    py::gil_scoped_release release;
    if (kind == "q1dq2") A = models::matrix_q1dq2(n, cond, seed);
    else if (kind == "hpl-ai") A = models::matrix_hpl_ai(n, seed);
    else if (kind == "tunable") A = models::matrix_tunable(n, cond, seed);
    else if (kind == "uniform") A = models::matrix_uniform(n, -1, 1, seed);
    else if (kind == "normal") A = models::matrix_normal(n, seed);
    else throw std::invalid_argument("kind: '" + kind + "' is not a matrix; allowed: q1dq2, hpl-ai, tunable, uniform, normal");
  }
  return matrix_array(A, n, n);
}

}  // namespace

void bind_lu(py::module_& m) {
  static py::exception<models::LuBreakdown> breakdown(m, "LuBreakdown", PyExc_ArithmeticError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const models::LuBreakdown& e) {
      breakdown(checks::one_line(checks::name_options(e.what(), checks::Caller::Python)).c_str());  // "try pivot=True", not --pivot
    }
  });
  m.def("_lu", &lu, py::arg("A"));
  m.def("_solve", &solve, py::arg("A"), py::arg("b") = py::none());
  m.def("lu_matrix", &lu_matrix, py::arg("kind"), py::arg("n"), py::arg("cond") = 1e3, py::arg("seed") = 1,
        "A test matrix of `tcsim lu --matrix KIND --n N [--cond C] [--seed S]`: q1dq2, hpl-ai, tunable, uniform, normal.");
}

}  // namespace tcsim::python
