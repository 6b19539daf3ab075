// tcsim.matmul / tcsim.gemm_errors: the GEMM engine (models::simulate_gemm) with every option of
// `tcsim gemm`, and its exact errors (MPFR) and bound as `tcsim gemm --json` reports them
// (apps/src/gemm_report.hpp: the same code).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <tuple>

#include "gemm_problem.hpp"
#include "gemm_report.hpp"
#include "gemm_scaled.hpp"
#include "matrices.hpp"
#include "value_checks.hpp"
#include "tcsim/models/gemm.hpp"

namespace tcsim::python {

namespace {

constexpr const char* kFn = "matmul";

py::object kw_object(const py::kwargs& kw, const char* key) {
  return kw.contains(key) ? py::reinterpret_borrow<py::object>(kw[key]) : py::none();
}

struct GemmCall {
  std::shared_ptr<const models::Unit> unit;
  const Format* in = nullptr;
  const Format* out = nullptr;
  MatrixArg A, B, C;
  models::GemmOptions o;
  // A block-scaled GEMM (scale_a, scale_b, scale_format, block_size, scales, or a block-scaled
  // instruction): Unit::gemm_scaled, as tcsim gemm (apps/src/gemm_scaled.hpp).
  std::optional<cli::ScaledSetup> scaled;
  std::optional<cli::ScaleValues> scale_a, scale_b;
};

// The CLI's checks of `tcsim gemm` options, named as the Python arguments.
GemmCall gemm_call(const py::object& A, const py::object& B, const py::object& C, const py::object& unit,
                   const py::object& in_format, const py::object& out_format, const py::kwargs& kw) {
  GemmCall g;
  if (unit.is_none()) throw py::type_error("tcsim.matmul: give unit= (a tcsim.Unit or a built-in unit's name)");
  g.unit = unit_arg(unit);
  auto get = [&](const char* key) -> py::object {
    return kw.contains(key) ? py::reinterpret_borrow<py::object>(kw[key]) : py::none();
  };
  if (in_format.is_none() && (get("in_format_a").is_none() || get("in_format_b").is_none()))
    throw py::type_error("tcsim.matmul: give in_format= (fp16, bf16, tf32, e4m3, ...), or in_format_a= and "
                         "in_format_b= for A and B in different formats");
  const InputFormats inputs = input_formats_arg(in_format, get("in_format_a"), get("in_format_b"), kFn);
  g.in = inputs.a;
  g.out = &parse_format(str_arg(out_format, "out_format", kFn, "fp32"), "out_format");
  models::GemmOptions& o = g.o;
  if (inputs.mixed()) {
    o.b_format = *inputs.b;
    const auto pairs = g.unit->mixed_pairs();
    const std::string pair = inputs.a->name + " x " + inputs.b->name + " -> ";
    if (std::none_of(pairs.begin(), pairs.end(), [&](const std::string& s) { return s.rfind(pair, 0) == 0; }))
      (void)checked_datapath(*g.unit, inputs, *g.out, "");  // the refusal, naming in_format_a/b
  }
  static const char* const known[] = {"variant", "instruction", "input_rounding", "words", "scaled_words",
                                      "all_word_products", "word_order", "scaling", "subnormals", "fabsum",
                                      "fabsum_combine", "split_k", "threads", "check_rows", "progress",
                                      "in_format_a", "in_format_b", "scale_a", "scale_b", "scale_format",
                                      "block_size", "scales"};
  for (const auto& item : kw) {
    const std::string key = py::str(item.first);
    bool ok = false;
    for (const char* k : known) ok = ok || key == k;
    if (!ok) {
      std::string allowed = "A, B, C, unit, in_format, out_format";
      for (const char* k : known) allowed += std::string(", ") + k;
      throw py::type_error("unknown argument '" + key + "' for tcsim.matmul; allowed: " + allowed);
    }
  }
  o.instruction = str_arg(get("instruction"), "instruction", kFn);
  if (inputs.mixed() && o.instruction.empty()) {  // the mixed pair's row by name (as tcsim gemm)
    try {
      o.instruction = g.unit->datapath(*inputs.a, *inputs.b, *g.out).instruction;
    } catch (const std::invalid_argument&) {
    }
  }
  if (!get("variant").is_none()) o.variant = models::parse_variant(str_arg(get("variant"), "variant", kFn), "variant");
  if (!get("input_rounding").is_none())
    o.input_rounding = checks::rounding_word(str_arg(get("input_rounding"), "input_rounding", kFn), "input_rounding");
  o.words = get("words").is_none() ? 1 : static_cast<int>(int_arg(get("words"), "words", kFn, 1, 8));
  o.scaled_words = !get("scaled_words").is_none() && bool_arg(get("scaled_words"), "scaled_words", kFn);
  o.all_word_products = !get("all_word_products").is_none() && bool_arg(get("all_word_products"), "all_word_products", kFn);
  if (!get("word_order").is_none()) {
    const std::string s = str_arg(get("word_order"), "word_order", kFn);
    if (s == "smallest-first") o.word_order = models::WordOrder::SmallestFirst;
    else if (s == "largest-first") o.word_order = models::WordOrder::LargestFirst;
    else throw std::invalid_argument("word_order: '" + s + "' is not an order; allowed: smallest-first, largest-first");
  }
  if (o.words == 1) {
    if (o.scaled_words) throw std::invalid_argument("scaled_words needs words 2 or more");
    if (o.all_word_products) throw std::invalid_argument("all_word_products needs words 2 or more");
    if (!get("word_order").is_none()) throw std::invalid_argument("word_order needs words 2 or more");
  }
  o.scaling = !get("scaling").is_none() && bool_arg(get("scaling"), "scaling", kFn);
  o.subnormals = get("subnormals").is_none() || bool_arg(get("subnormals"), "subnormals", kFn);
  o.fabsum_block = get("fabsum").is_none() ? 0 : static_cast<int>(int_arg(get("fabsum"), "fabsum", kFn, 1, 1 << 26));
  o.fabsum_combine = str_arg(get("fabsum_combine"), "fabsum_combine", kFn, "fp32");
  if (!get("fabsum_combine").is_none() && o.fabsum_block == 0)
    throw std::invalid_argument("fabsum_combine needs fabsum");
  o.split_k = get("split_k").is_none() ? 0 : static_cast<int>(int_arg(get("split_k"), "split_k", kFn, 1, 1 << 26));
  o.threads = get("threads").is_none() ? 0 : static_cast<unsigned>(int_arg(get("threads"), "threads", kFn, 0, 1024));
  cli::ScaleRequest req;
  req.scale_format = str_arg(get("scale_format"), "scale_format", kFn);
  req.block_size = get("block_size").is_none() ? 0 : static_cast<int>(int_arg(get("block_size"), "block_size", kFn, 1, 65536));
  req.scales = str_arg(get("scales"), "scales", kFn);
  req.scale_a = !get("scale_a").is_none();
  req.scale_b = !get("scale_b").is_none();
  g.scaled = cli::scaled_setup(*g.unit, *inputs.a, *inputs.b, *g.out, str_arg(get("instruction"), "instruction", kFn), req);
  if (g.scaled) cli::refuse_unscaled_options(*g.scaled, o);

  g.A = matrix_arg(A, "A", *g.in, o.threads);
  g.B = matrix_arg(B, "B", o.b_format ? *o.b_format : *g.in, o.threads);
  if (g.A.cols != g.B.rows)
    throw std::invalid_argument("A is " + std::to_string(g.A.rows) + " x " + std::to_string(g.A.cols) + " and B is " +
                                std::to_string(g.B.rows) + " x " + std::to_string(g.B.cols) +
                                ": A's columns must equal B's rows");
  if (!C.is_none()) {
    g.C = matrix_arg(C, "C", *g.out, o.threads);
    if (g.C.rows != g.A.rows || g.C.cols != g.B.cols)
      throw std::invalid_argument("C is " + std::to_string(g.C.rows) + " x " + std::to_string(g.C.cols) +
                                  "; D = C + A B needs " + std::to_string(g.A.rows) + " x " + std::to_string(g.B.cols));
  }
  // As tcsim gemm: values must fit the formats they are converted into (else they would
  // become Inf or NaN there), unless a scaling brings them into range.
  auto largest = [](const Format& f) {
    return std::ldexp(static_cast<double>(f.max_finite_significand()), f.emax - f.fraction_bits);
  };
  const bool scaled = o.scaling || o.scaled_words || (g.scaled && g.scaled->scales == "from-data");
  const bool fp32_variant = o.variant == models::GemmVariant::Fp32;
  const Format& ab = fp32_variant ? formats::fp32() : *g.in;
  const Format& cf = fp32_variant || o.variant == models::GemmVariant::Tc32 ? formats::fp32()
                     : o.variant == models::GemmVariant::Fp16 || o.variant == models::GemmVariant::Tc16 ? formats::fp16()
                                                                                                     : *g.out;
  check_entries(g.A, "A", scaled ? 0 : largest(ab), ab.name + ", the format A is converted into (or scaling=True)");
  const Format& bb = fp32_variant || !o.b_format ? ab : *o.b_format;
  check_entries(g.B, "B", scaled ? 0 : largest(bb), bb.name + ", the format B is converted into (or scaling=True)");
  check_entries(g.C, "C", largest(cf), cf.name + ", the format C is converted into");
  if (g.scaled && g.scaled->scales == "files") {
    for (const char* name : {"scale_a", "scale_b"}) {
      const MatrixArg s = matrix_arg(get(name), name, *g.scaled->scale_format, o.threads);
      cli::ScaleValues v{s.rows, s.cols, s.values, name, {}};
      v.entry = [name = std::string(name)](std::size_t r, std::size_t c) {
        return name + "[" + std::to_string(r) + ", " + std::to_string(c) + "]";
      };
      (std::string(name) == "scale_a" ? g.scale_a : g.scale_b) = std::move(v);
    }
  }
  return g;
}

// The block-scaled GEMM of a GemmCall with g.scaled (check_rows < 0: no errors).
std::pair<cli::ScaledOperands, cli::ScaledRun> run_scaled(const GemmCall& g, long long check_rows,
                                                          const std::function<void(std::size_t, std::size_t)>& progress) {
  py::gil_scoped_release release;
  const Format& in_b = g.o.b_format ? *g.o.b_format : *g.in;
  const std::size_t m = g.A.rows, n = g.B.cols, k = g.A.cols;
  cli::ScaledOperands ops =
      cli::scaled_operands(*g.scaled, *g.in, in_b, *g.out, m, n, k, g.A.values, g.B.values, g.C.values,
                           g.scale_a ? &*g.scale_a : nullptr, g.scale_b ? &*g.scale_b : nullptr, g.o.input_rounding);
  cli::ScaledRun run = cli::run_scaled_gemm(*g.unit, *g.scaled, *g.in, in_b, *g.out, m, n, k, ops, g.o.threads,
                                            check_rows, progress);
  return {std::move(ops), std::move(run)};
}

models::GemmResult run(const GemmCall& g) {
  py::gil_scoped_release release;
  return models::simulate_gemm(*g.unit, *g.in, *g.out, g.A.rows, g.B.cols, g.A.cols, g.A.values, g.B.values,
                               g.C.values, g.o);
}

// (values, bits, info): D's values, its patterns in the storage format, and how it ran.
py::tuple matmul(const py::object& A, const py::object& B, const py::object& C, const py::object& unit,
                 const py::object& in_format, const py::object& out_format, const py::kwargs& kw) {
  if (kw.contains("check_rows")) throw py::type_error("unknown argument 'check_rows' for tcsim.matmul (tcsim.gemm_errors takes it)");
  GemmCall g = gemm_call(A, B, C, unit, in_format, out_format, kw);
  cli::Progress progress("tcsim.matmul", cli::progress_enabled(progress_arg(kw_object(kw, "progress"), "matmul")));
  if (g.scaled) {
    const auto [ops, sr] = run_scaled(g, -1, {});
    progress.done();
    const std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(sr.r.m), static_cast<py::ssize_t>(sr.r.n)};
    py::dict info;
    info["variant"] = sr.r.variant;
    info["storage"] = sr.r.storage;
    info["path"] = sr.r.path;
    info["unit_calls"] = sr.r.unit_calls;
    info["instruction"] = g.scaled->instruction;
    info["scale_format"] = g.scaled->scale_format->name;
    info["block_size"] = g.scaled->block_size;
    info["scales"] = g.scaled->scales;
    info["scales_how"] = ops.how;
    return py::make_tuple(matrix_array(sr.r.D, sr.r.m, sr.r.n),
                          patterns_array(*g.out, shape, sr.r.bits.data(), sr.r.bits.size()), info);
  }
  g.o.progress = progress.hook("simulating the GEMM");
  const models::GemmResult r = run(g);
  progress.done();
  const Format& storage = parse_format(r.storage, "storage");
  const std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(r.m), static_cast<py::ssize_t>(r.n)};
  py::dict info;
  info["variant"] = r.variant;
  info["storage"] = r.storage;
  info["path"] = r.path;
  info["unit_calls"] = r.unit_calls;
  return py::make_tuple(matrix_array(r.D, r.m, r.n), patterns_array(storage, shape, r.bits.data(), r.bits.size()), info);
}

py::dict gemm_errors(const py::object& A, const py::object& B, const py::object& C, const py::object& unit,
                     const py::object& in_format, const py::object& out_format, const py::kwargs& kw) {
  GemmCall g = gemm_call(A, B, C, unit, in_format, out_format, kw);
  const std::size_t m = g.A.rows, n = g.B.cols, k = g.A.cols;
  const py::object rows = kw_object(kw, "check_rows");
  const long long check = rows.is_none() ? cli::default_check_rows(m, n, k)
                          : py::isinstance<py::str>(rows) && rows.cast<std::string>() == "all"
                              ? 0
                              : int_arg(rows, "check_rows", "gemm_errors", 0, 1ll << 40);
  cli::Progress progress("tcsim.gemm_errors",
                         cli::progress_enabled(progress_arg(kw_object(kw, "progress"), "gemm_errors")));
  if (g.scaled) {
    const auto [ops, sr] = run_scaled(g, check, progress.hook("exact errors (MPFR)"));
    progress.done();
    nlohmann::json j = cli::scaled_report_json(*g.unit, *g.scaled, *g.in, g.o.b_format ? *g.o.b_format : *g.in,
                                               *g.out, ops, sr);
    j["seconds"] = sr.seconds;
    py::dict d = to_python(j);
    d["D"] = matrix_array(sr.r.D, sr.r.m, sr.r.n);
    return d;
  }
  g.o.progress = progress.hook("simulating the GEMM");
  const auto t0 = std::chrono::steady_clock::now();
  const models::GemmResult r = run(g);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  nlohmann::json j;
  {
    py::gil_scoped_release release;
    const reference::GemmErrors err =
        cli::checked_gemm_errors(m, n, k, g.A.values, g.B.values, g.C.values, r.D, check, g.o.threads,
                                 progress.hook("exact errors (MPFR)"));
    progress.done();
    const reference::GemmBound bound = cli::gemm_run_bound(*g.unit, *g.in, *g.out, k, g.A.values, g.B.values, g.o, r);
    j = cli::gemm_report_json(*g.unit, *g.in, *g.out, g.o, r, err, bound);
  }
  j["seconds"] = seconds;
  py::dict d = to_python(j);
  d["D"] = matrix_array(r.D, r.m, r.n);
  return d;
}

// `tcsim gemm --m M --n N --k K --dist D --seed S [--ell L]`'s A and B.
py::tuple gemm_problem(const py::object& m, const py::object& n, const py::object& k, const py::object& dist_obj,
                       const py::object& seed, const py::object& ell) {
  const auto mm = static_cast<std::size_t>(int_arg(m, "m", "gemm_problem", 1, 1 << 20));
  const auto nn = static_cast<std::size_t>(int_arg(n, "n", "gemm_problem", 1, 1 << 20));
  const auto kk = static_cast<std::size_t>(int_arg(k, "k", "gemm_problem", 1, 1 << 26));
  const std::string dist = str_arg(dist_obj, "dist", "gemm_problem", "uniform01");
  if (static_cast<double>(mm) * static_cast<double>(kk) + static_cast<double>(kk) * static_cast<double>(nn) > 1 << 30)
    throw std::invalid_argument("m, n, k: A and B would hold more than 2^30 entries together");
  cli::check_gemm_distribution(dist, "dist");
  double l = 10;
  if (!ell.is_none()) {
    if (dist != "pm10^phi") throw std::invalid_argument("ell applies to dist 'pm10^phi' only");
    l = static_cast<double>(int_arg(ell, "ell", "gemm_problem", 0, 300));
  }
  const auto s = static_cast<std::uint64_t>(int_arg(seed, "seed", "gemm_problem", 0, (1ll << 62)));
  std::vector<double> A, B;
  {
    py::gil_scoped_release release;
    cli::generate_gemm_problem(mm, nn, kk, dist, l, s, A, B);
  }
  // pm10^phi reaches 10^ell: entries beyond binary32 are refused as the CLI refuses them (B84),
  // never returned as Inf.
  for (const auto& [name, values, cols] : {std::tuple<const char*, const std::vector<double>*, std::size_t>{"A", &A, kk},
                                           {"B", &B, nn}})
    for (std::size_t i = 0; i < values->size(); ++i) {
      const std::string why = checks::magnitude_refusal(
          std::string(name) + "[" + std::to_string(i / cols) + ", " + std::to_string(i % cols) + "]", (*values)[i],
          static_cast<double>(std::numeric_limits<float>::max()), "fp32, the format of the generated entries");
      if (!why.empty())
        throw std::invalid_argument("ell: dist 'pm10^phi' with ell " + std::to_string(static_cast<int>(l)) +
                                    " generates " + why);
    }
  return py::make_tuple(matrix_array(A, mm, kk), matrix_array(B, kk, nn));
}

}  // namespace

void bind_gemm(py::module_& m) {
  m.def("gemm_problem", &gemm_problem, py::arg("m"), py::arg("n"), py::arg("k"), py::arg("dist") = "uniform01",
        py::arg("seed") = 1, py::arg("ell") = py::none(),
        "(A, B) of `tcsim gemm --m M --n N --k K --dist DIST --seed S [--ell L]`: binary32 entries in binary64 "
        "arrays, the same for a seed on every machine. dist: uniform01, uniform-11, uniform0-1e-3, normal, pm10^phi.");
  m.def("_matmul", &matmul, py::arg("A"), py::arg("B"), py::arg("C") = py::none(), py::arg("unit") = py::none(),
        py::arg("in_format") = py::none(), py::arg("out_format") = py::none());
  m.def("_gemm_errors", &gemm_errors, py::arg("A"), py::arg("B"), py::arg("C") = py::none(),
        py::arg("unit") = py::none(), py::arg("in_format") = py::none(), py::arg("out_format") = py::none());
}

}  // namespace tcsim::python
