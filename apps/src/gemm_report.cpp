// Errors and bound of a simulated GEMM (gemm_report.hpp).
#include "gemm_report.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "tcsim/reference/bounds.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/rounding.hpp"

namespace tcsim::cli {

long long default_check_rows(std::size_t m, std::size_t n, std::size_t k) {
  const double per_row = static_cast<double>(n) * static_cast<double>(k);
  if (per_row * static_cast<double>(m) <= kCheckWork) return 0;
  const double fit = std::floor(kCheckWork / per_row);
  return static_cast<long long>(std::min(static_cast<double>(m), std::max(8.0, fit)));
}

long long parse_check_rows(const std::string& text, const std::string& option) {
  if (text == "all") return 0;
  long long v = -1;
  std::size_t used = 0;
  try {
    v = std::stoll(text, &used, 10);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || !std::isdigit(static_cast<unsigned char>(text[0])) || v < 0 ||
      v > (1ll << 40))
    throw std::invalid_argument(option + ": expected 'all' or a count of rows in 0..1099511627776 (0: all), got '" +
                                text + "'");
  return v;
}

reference::GemmErrors checked_gemm_errors(std::size_t m, std::size_t n, std::size_t k, std::span<const double> A,
                                          std::span<const double> B, std::span<const double> C,
                                          std::span<const double> D, long long check_rows, unsigned threads,
                                          const std::function<void(std::size_t, std::size_t)>& progress) {
  const std::vector<std::size_t> rows = check_rows <= 0 || static_cast<std::size_t>(check_rows) >= m
                                            ? reference::sample_rows(m, m)
                                            : reference::sample_rows(m, static_cast<std::size_t>(check_rows));
  return reference::gemm_errors(m, n, k, A, B, C, D, rows, threads, progress);
}

std::string checked_rows_text(const reference::GemmErrors& err, std::size_t m, const std::string& all_hint) {
  if (!err.sampled) return "all " + std::to_string(m) + " rows";
  return std::to_string(err.rows_checked) + " of " + std::to_string(m) + " rows, evenly spaced (first and last included; " +
         all_hint + " checks every row)";
}

reference::GemmBound gemm_run_bound(const models::Unit& unit, const Format& in, const Format& out, std::size_t k,
                                    std::span<const double> A, std::span<const double> B,
                                    const models::GemmOptions& o, const models::GemmResult& r) {
  reference::GemmBoundQuery q;
  q.variant = r.variant;
  q.k = static_cast<double>(k);
  // The fp16 / fp32 variants use no tensor core (the unit need not take `in`): standard
  // summation, b = 1 (with u = u_fma = u_bar the block term of Thm 3.1 vanishes for any b).
  const bool ieee = r.variant == "fp16" || r.variant == "fp32";
  q.b = ieee ? 1 : unit.datapath(in, out, o.instruction).fma_size;
  // Mixed operand formats (o.b_format): the larger unit roundoff of the two bounds both conversions.
  const Format& in_b = o.b_format ? *o.b_format : in;
  q.u_low = std::max(reference::bounds::unit_roundoff(in), reference::bounds::unit_roundoff(in_b));
  q.u_high = reference::bounds::unit_roundoff(r.variant == "unit" ? out : formats::fp32());
  // blanchard2020 Thm 3.1 (A, B given in the input format) or Thm 3.2 (converted first).
  auto exact_in = [&](const Format& f) {
    return [&f](double x) {
      return to_double(decode(f, round_bits(decode(formats::fp64(), bits_of_double(x)), f, Rounding::NearestEven))) == x;
    };
  };
  q.inputs_exact = !o.scaling && o.words == 1 && std::all_of(A.begin(), A.end(), exact_in(in)) &&
                   std::all_of(B.begin(), B.end(), exact_in(in_b));
  q.words = o.words;
  q.all_word_products = o.all_word_products;
  q.fabsum_block = o.fabsum_block;
  q.u_combine = o.fabsum_combine == "fp64" ? 0x1p-53 : 0x1p-24;
  if (r.variant == "tc16" || r.variant == "tc32" || r.variant == "unit") {
    const Format& acc = r.variant == "tc16" ? formats::fp16() : r.variant == "tc32" ? formats::fp32() : out;
    const models::BlockFmaRoundoff ro = models::block_fma_roundoff(unit, in, acc, o.instruction);
    q.u_fma = ro.u_fma;
    q.u_bar = ro.u_bar;
    q.roundoff_how = ro.how;
  }
  return reference::gemm_bound(q);
}

namespace {
// "kernel", "fma-chain", "ieee" or "reference" (the reason goes to path_detail).
std::string path_class(const std::string& path) { return path.rfind("reference", 0) == 0 ? "reference" : path; }
}  // namespace

nlohmann::json gemm_report_json(const models::Unit& unit, const Format& in, const Format& out,
                                const models::GemmOptions& o, const models::GemmResult& r,
                                const reference::GemmErrors& err, const reference::GemmBound& bound) {
  nlohmann::json j;
  j["m"] = r.m;
  j["n"] = r.n;
  j["k"] = r.k;
  j["unit"] = unit.name();
  j["in"] = o.b_format && !(*o.b_format == in) ? in.name + " x " + o.b_format->name : in.name;
  if (o.b_format && !(*o.b_format == in)) {
    j["in_a"] = in.name;
    j["in_b"] = o.b_format->name;
  }
  j["out"] = out.name;
  j["instruction"] = o.instruction;
  j["variant"] = r.variant;
  j["storage"] = r.storage;
  j["path"] = path_class(r.path);
  j["path_detail"] = r.path;
  j["unit_calls"] = r.unit_calls;
  j["componentwise_error"] = err.componentwise;
  j["normwise_error"] = err.normwise;
  j["componentwise_bound"] = bound.componentwise;  // +inf: no bound ("inf" in the CLI's JSON, json_output.hpp)
  j["bound_source"] = bound.source;
  j["rows_checked"] = err.rows_checked;
  j["sampled"] = err.sampled;
  if (err.sampled) j["checked_rows"] = reference::sample_rows(r.m, err.rows_checked);  // 0-based, as checked
  return j;
}

}  // namespace tcsim::cli
