// The block-scaled GEMM of tcsim gemm and the Python package (gemm_scaled.hpp).
#include "gemm_scaled.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "bench_gemm_scaled.hpp"
#include "gemm_report.hpp"
#include "value_checks.hpp"
#include "tcsim/reference/bounds.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/rounding.hpp"

namespace tcsim::cli {

namespace {

bool lists(const std::vector<std::string>& names, const Format& f) {
  for (const auto& n : names)
    if (parse_format(n) == f) return true;
  return false;
}

// Whether `row` serves in_a x in_b -> out (as Unit's rows do: both formats listed, mixed only
// on rows with mixed_inputs).
bool serves(const models::DatapathSpec& row, const Format& in_a, const Format& in_b, const Format& out) {
  return lists(row.input_formats, in_a) && lists(row.input_formats, in_b) && lists(row.output_formats, out) &&
         (in_a == in_b || row.mixed_inputs);
}

std::string hexfloat(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%a", x);
  return buf;
}

double largest(const Format& f) {
  return std::ldexp(static_cast<double>(f.max_finite_significand()), f.emax - f.fraction_bits);
}

std::uint64_t bits_in(const Format& f, double x, Rounding r) {
  return round_bits(decode(formats::fp64(), bits_of_double(x)), f, r);
}
double value_of(const Format& f, std::uint64_t bits) { return to_double(decode(f, bits)); }

// The smallest and largest positive finite values of a scale format (at most 2^8 patterns).
std::pair<double, double> positive_range(const Format& f) {
  double lo = 0, hi = 0;
  for (std::uint64_t b = 0; b <= f.width_mask() && f.width <= 16; ++b) {
    const double v = value_of(f, b);
    if (!std::isfinite(v) || v <= 0) continue;
    lo = lo == 0 ? v : std::min(lo, v);
    hi = std::max(hi, v);
  }
  return {lo, hi};
}

// "allowed: powers of two from 0x1p-127 up to 0x1p+127 (ue8m0 values exactly)".
std::string allowed_scales(const Format& f) {
  const auto [lo, hi] = positive_range(f);
  return std::string("allowed: ") + (f.has_zero ? "0 and " : "") +
         (f.precision == 1 ? "powers of two"
                           : "positive values of " + std::to_string(f.precision) + " significant bits") +
         " from " + hexfloat(lo) + " up to " + hexfloat(hi) + " (" + f.name + " values exactly)";
}

// The scale of one block whose largest magnitude is amax (scaled_operands' "from-data").
std::uint64_t chosen_scale(double amax, const Format& sf, const Format& elem) {
  const auto [lo, hi] = positive_range(sf);
  if (amax == 0) return bits_in(sf, 1, Rounding::NearestEven);
  double x;
  if (sf.precision == 1) {  // OCP MX: 2^(floor(log2 amax) - emax_elem)
    int e = 0;
    std::frexp(amax, &e);  // amax = f 2^e, f in [0.5, 1): floor(log2 amax) = e - 1
    x = std::ldexp(1.0, e - 1 - elem.emax);
  } else {  // amax / the element format's largest, rounded to nearest even into the scale format
    x = amax / largest(elem);
  }
  x = std::clamp(x, lo, hi);
  const std::uint64_t bits = bits_in(sf, x, Rounding::NearestEven);
  return value_of(sf, bits) > 0 ? bits : bits_in(sf, lo, Rounding::NearestEven);  // below the range: the smallest
}

// An element a / X, saturating at the format's largest, rounded with `r`.
std::uint64_t element(double a, double scale, const Format& f, Rounding r) {
  const double m = largest(f);
  return bits_in(f, std::clamp(a / scale, -m, m), r);
}

}  // namespace

std::optional<ScaledSetup> scaled_setup(const models::Unit& unit, const Format& in_a, const Format& in_b,
                                        const Format& out, const std::string& instruction, const ScaleRequest& req) {
  if (!req.any()) {  // scaled only when the instruction's row is
    try {
      const models::DatapathSpec& row = unit.datapath(in_a, in_b, out, instruction);
      if (!row.block_scale) return std::nullopt;
    } catch (const std::invalid_argument&) {
      return std::nullopt;  // the unscaled GEMM says what is wrong
    }
  }
  const std::string option = req.scale_a        ? "--scale-a"
                             : req.scale_b      ? "--scale-b"
                             : !req.scale_format.empty() ? "--scale-format"
                             : req.block_size   ? "--block-size"
                             : req.scales.empty() ? "--scale-a"
                                                  : "--scales";
  const models::DatapathSpec* row = &unit.datapath(in_a, in_b, out, instruction);
  if (!(in_a == in_b))  // Unit::gemm_scaled takes one input format
    throw std::invalid_argument(in_a.name + " x " + in_b.name +
                                " with block scales: a block-scaled GEMM takes one input format for A and B (each "
                                "mixed pair with its scales: tcsim dot, Unit::dot_scaled)");
  if (!row->block_scale) {
    const std::string operands = in_a == in_b ? in_a.name : in_a.name + " x " + in_b.name;
    std::vector<std::string> scaled;
    for (const auto& r : unit.spec().datapaths)
      if (r.block_scale && serves(r, in_a, in_b, out)) scaled.push_back(r.instruction);
    if (!instruction.empty() || scaled.empty()) {
      std::string list;
      for (const auto& s : scaled) list += (list.empty() ? "" : ", ") + s;
      throw std::invalid_argument(option + ": unit '" + unit.name() + "': the datapath for " + operands + " -> " +
                                  out.name + (instruction.empty() ? "" : " with instruction '" + instruction + "'") +
                                  " takes no scale factors; block-scaled instructions for the pair: " +
                                  (list.empty() ? "(none)" : list));
    }
    row = &unit.datapath(in_a, in_b, out, scaled.front());
  }
  const models::BlockScaleSpec& bs = *row->block_scale;
  ScaledSetup s;
  s.instruction = row->instruction;
  s.fma_size = static_cast<std::size_t>(row->fma_size);
  std::string formats_text;
  for (const auto& f : bs.scale_formats) formats_text += (formats_text.empty() ? "" : ", ") + f;
  if (req.scale_format.empty()) {
    s.scale_format = &parse_format(bs.scale_formats.front(), "--scale-format");
  } else {
    s.scale_format = &parse_format(req.scale_format, "--scale-format");
    if (!lists(bs.scale_formats, *s.scale_format))
      throw std::invalid_argument("--scale-format: '" + s.scale_format->name + "' is not allowed for instruction '" +
                                  s.instruction + "'; allowed: " + formats_text);
  }
  std::string sizes_text;
  for (int x : bs.block_sizes) sizes_text += (sizes_text.empty() ? "" : ", ") + std::to_string(x);
  s.block_size = req.block_size ? req.block_size : bs.block_sizes.front();
  if (std::find(bs.block_sizes.begin(), bs.block_sizes.end(), s.block_size) == bs.block_sizes.end())
    throw std::invalid_argument("--block-size: " + std::to_string(s.block_size) + " is not allowed for instruction '" +
                                s.instruction + "'; allowed: " + sizes_text);
  if (req.scale_a != req.scale_b)
    throw std::invalid_argument(std::string(req.scale_a ? "--scale-a" : "--scale-b") +
                                ": --scale-a and --scale-b go together: give both (or neither: --scales from-data "
                                "or one chooses them)");
  if (req.scale_a) {
    if (!req.scales.empty())
      throw std::invalid_argument("--scales '" + req.scales +
                                  "' chooses the scales; it cannot be used with --scale-a and --scale-b, which give them");
    s.scales = "files";
  } else {
    s.scales = req.scales.empty() ? "from-data" : req.scales;
    if (s.scales != "from-data" && s.scales != "one")
      throw std::invalid_argument("--scales: '" + req.scales + "' is not allowed; allowed: from-data, one");
  }
  return s;
}

void refuse_unscaled_options(const ScaledSetup& s, const models::GemmOptions& o) {
  const char* bad = o.variant != models::GemmVariant::Unit && o.variant != models::GemmVariant::Tc32 ? "--variant"
                    : o.words != 1                                                                  ? "--words"
                    : o.scaling                                                                     ? "--scaling"
                    : !o.subnormals                                                                 ? "--subnormals"
                    : o.fabsum_block > 0                                                            ? "--fabsum"
                    : o.split_k > 1                                                                 ? "--split-k"
                                                                                                    : nullptr;
  if (bad)
    throw std::invalid_argument(std::string(bad) + " cannot be used with block scales (instruction '" + s.instruction +
                                "' runs as one block-scaled GEMM); allowed with scales: --scale-a, --scale-b, "
                                "--scale-format, --block-size, --scales, --input-rounding, --threads, --variant tc32");
}

ScaledOperands scaled_operands(const ScaledSetup& setup, const Format& in_a, const Format& in_b, const Format& out,
                               std::size_t m, std::size_t n, std::size_t k, std::span<const double> A,
                               std::span<const double> B, std::span<const double> C, const ScaleValues* given_a,
                               const ScaleValues* given_b, Rounding rounding) {
  const std::size_t bs = static_cast<std::size_t>(setup.block_size);
  if (k % bs != 0)
    throw std::invalid_argument("--block-size: k = " + std::to_string(k) + " is not a multiple of the block size " +
                                std::to_string(bs) + " of instruction '" + setup.instruction +
                                "' (each scale covers a whole block of k); allowed: k a multiple of " + std::to_string(bs));
  const std::size_t nb = k / bs;
  const Format& sf = *setup.scale_format;
  ScaledOperands ops;
  ops.A.resize(m * k);
  ops.B.resize(k * n);
  ops.C.assign(m * n, out.zero(false));
  for (std::size_t i = 0; i < C.size() && i < ops.C.size(); ++i) ops.C[i] = bits_in(out, C[i], rounding);
  const std::string per = sf.name + " per " + std::to_string(bs) + " along k";
  if (setup.scales == "from-data") {
    ops.scale_a.resize(m * nb);
    ops.scale_b.resize(nb * n);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t q = 0; q < nb; ++q) {
        double amax = 0;
        for (std::size_t t = q * bs; t < (q + 1) * bs; ++t) amax = std::max(amax, std::fabs(A[i * k + t]));
        const std::uint64_t s = ops.scale_a[i * nb + q] = chosen_scale(amax, sf, in_a);
        const double x = value_of(sf, s);
        for (std::size_t t = q * bs; t < (q + 1) * bs; ++t) ops.A[i * k + t] = element(A[i * k + t], x, in_a, rounding);
      }
    std::vector<double> amax(n);
    for (std::size_t q = 0; q < nb; ++q) {
      std::fill(amax.begin(), amax.end(), 0.0);
      for (std::size_t t = q * bs; t < (q + 1) * bs; ++t)
        for (std::size_t j = 0; j < n; ++j) amax[j] = std::max(amax[j], std::fabs(B[t * n + j]));
      for (std::size_t j = 0; j < n; ++j) ops.scale_b[q * n + j] = chosen_scale(amax[j], sf, in_b);
      for (std::size_t t = q * bs; t < (q + 1) * bs; ++t)
        for (std::size_t j = 0; j < n; ++j)
          ops.B[t * n + j] = element(B[t * n + j], value_of(sf, ops.scale_b[q * n + j]), in_b, rounding);
    }
    ops.how = per + ", chosen per block from the data (" +
              (sf.precision == 1 ? std::string("OCP MX: 2^(floor(log2 amax) - emax of the element format)")
                                 : "amax / the element format's largest, rounded into " + sf.name) +
              "; elements saturated at their largest)";
    return ops;
  }
  for (std::size_t i = 0; i < A.size(); ++i) ops.A[i] = bits_in(in_a, A[i], rounding);
  for (std::size_t i = 0; i < B.size(); ++i) ops.B[i] = bits_in(in_b, B[i], rounding);
  if (setup.scales == "one") {
    const std::uint64_t one = bits_in(sf, 1, Rounding::NearestEven);
    ops.scale_a.assign(m * nb, one);
    ops.scale_b.assign(nb * n, one);
    ops.how = per + ", every scale 1";
    return ops;
  }
  // Given scales: the shapes, then every entry a value of the scale format exactly.
  for (const auto& [g, rows, cols, dims] :
       {std::tuple{given_a, m, nb, std::string("A (m = ") + std::to_string(m) + ", k = " + std::to_string(k) +
                                       ") needs m x k/" + std::to_string(bs)},
        std::tuple{given_b, nb, n, std::string("B (k = ") + std::to_string(k) + ", n = " + std::to_string(n) +
                                       ") needs k/" + std::to_string(bs) + " x n"}}) {
    if (g->rows != rows || g->cols != cols)
      throw std::invalid_argument(g->name + " is " + std::to_string(g->rows) + " x " + std::to_string(g->cols) +
                                  "; with block size " + std::to_string(bs) + ", " + dims + " = " +
                                  std::to_string(rows) + " x " + std::to_string(cols) + " scales");
    for (std::size_t e = 0; e < g->values.size(); ++e) {
      const double x = g->values[e];
      const std::string entry = g->entry(e / cols, e % cols);
      if (!std::isfinite(x)) throw std::invalid_argument(entry + " is " + checks::value_text(x) + "; " + allowed_scales(sf));
      const std::uint64_t bits = bits_in(sf, std::fabs(x), Rounding::NearestEven);
      const bool ok = !(x < 0) && (x != 0 || sf.has_zero) && value_of(sf, bits) == std::fabs(x);
      if (!ok)
        throw std::invalid_argument(entry + " = " + checks::value_text(x) + " is not a " + sf.name + " value; " +
                                    allowed_scales(sf));
    }
  }
  ops.scale_a.resize(m * nb);
  ops.scale_b.resize(nb * n);
  for (std::size_t e = 0; e < ops.scale_a.size(); ++e) ops.scale_a[e] = bits_in(sf, std::fabs(given_a->values[e]), Rounding::NearestEven);
  for (std::size_t e = 0; e < ops.scale_b.size(); ++e) ops.scale_b[e] = bits_in(sf, std::fabs(given_b->values[e]), Rounding::NearestEven);
  ops.how = per + ", from " + given_a->name + " and " + given_b->name;
  return ops;
}

ScaledRun run_scaled_gemm(const models::Unit& unit, const ScaledSetup& setup, const Format& in_a, const Format& in_b,
                          const Format& out, std::size_t m, std::size_t n, std::size_t k, const ScaledOperands& ops,
                          unsigned threads, long long check_rows,
                          const std::function<void(std::size_t, std::size_t)>& check_progress) {
  const Format& sf = *setup.scale_format;
  ScaledRun run;
  models::GemmResult& r = run.r;
  const auto t0 = std::chrono::steady_clock::now();
  r.bits = unit.gemm_scaled(in_a, out, m, n, k, ops.A, ops.B, ops.C, sf, ops.scale_a, ops.scale_b,
                            setup.block_size, setup.instruction, threads);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.m = m, r.n = n, r.k = k;
  r.D.resize(r.bits.size());
  for (std::size_t i = 0; i < r.bits.size(); ++i) r.D[i] = value_of(out, r.bits[i]);
  r.storage = out.name;
  r.variant = out == formats::fp32() ? "tc32" : "unit";
  r.path = gemm_group_path(unit.batch_path(in_a, in_b, out, setup.instruction), true);
  r.unit_calls = 1;
  if (check_rows < 0) return run;
  // The operands the unit multiplies, exactly in binary64: an element (at most 4 significant
  // bits, |e| < 2^16) times a scale (at most 4 bits, 2^+-127).
  const std::size_t bs = static_cast<std::size_t>(setup.block_size), nb = k / bs;
  std::vector<double> As(m * k), Bs(k * n), Cs(m * n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t t = 0; t < k; ++t)
      As[i * k + t] = value_of(in_a, ops.A[i * k + t]) * value_of(sf, ops.scale_a[i * nb + t / bs]);
  for (std::size_t t = 0; t < k; ++t)
    for (std::size_t j = 0; j < n; ++j)
      Bs[t * n + j] = value_of(in_b, ops.B[t * n + j]) * value_of(sf, ops.scale_b[t / bs * n + j]);
  for (std::size_t i = 0; i < m * n; ++i) Cs[i] = value_of(out, ops.C[i]);
  run.err = checked_gemm_errors(m, n, k, As, Bs, Cs, r.D, check_rows, threads, check_progress);
  // blanchard2020 Thm 3.1: the scaled operands are exact inputs of the row (the scales fold
  // exactly, models/src/unit_gemm_scaled.cpp), so only the row's block FMAs round.
  reference::GemmBoundQuery q;
  q.variant = r.variant;
  q.k = static_cast<double>(k);
  q.b = static_cast<double>(setup.fma_size);
  q.u_low = std::max(reference::bounds::unit_roundoff(in_a), reference::bounds::unit_roundoff(in_b));
  q.u_high = reference::bounds::unit_roundoff(out);
  q.inputs_exact = true;
  const models::BlockFmaRoundoff ro = models::block_fma_roundoff(unit, in_a, out, setup.instruction);
  q.u_fma = ro.u_fma;
  q.u_bar = ro.u_bar;
  q.roundoff_how = ro.how;
  run.bound = reference::gemm_bound(q);
  return run;
}

nlohmann::json scaled_report_json(const models::Unit& unit, const ScaledSetup& setup, const Format& in_a,
                                  const Format& in_b, const Format& out, const ScaledOperands& ops,
                                  const ScaledRun& run) {
  models::GemmOptions o;
  o.instruction = setup.instruction;
  if (!(in_a == in_b)) o.b_format = in_b;
  nlohmann::json j = gemm_report_json(unit, in_a, out, o, run.r, run.err, run.bound);
  j["gemm"] = "Unit::gemm_scaled";
  j["scale_format"] = setup.scale_format->name;
  j["block_size"] = setup.block_size;
  j["scales"] = setup.scales;
  j["scales_how"] = ops.how;
  j["errors_against"] = "the exact C + sum (scale_a a)(scale_b b) of the operands the unit multiplies";
  return j;
}

std::string scaled_summary(const ScaledSetup&, const ScaledOperands& ops) { return ops.how; }

std::string gemm_group_path(const std::string& batch_path, bool scaled) {
  if (batch_path.rfind("kernel (group sums", 0) != 0) return batch_path;
  return scaled ? "kernel (group tiles)" : "kernel (group sums, binary64 lanes)";
}

}  // namespace tcsim::cli
