// The exact errors and the bound of a simulated GEMM, as `tcsim gemm` reports them; shared
// with the Python package (tcsim.gemm_errors).
#pragma once
#include <cstddef>
#include <functional>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "tcsim/models/gemm.hpp"
#include "tcsim/reference/gemm_error.hpp"

namespace tcsim::cli {

// The MPFR check's default work: every row when m n k <= kCheckWork (exact products), else
// as many rows as fit, at least 8 (a few seconds on one core; docs/gemm.md).
constexpr double kCheckWork = 0x1p25;
// The rows the check takes by default (0: all rows).
long long default_check_rows(std::size_t m, std::size_t n, std::size_t k);
// "--check-rows": "all" or 0 (every row) or a count; `fallback` when absent.
long long parse_check_rows(const std::string& text, const std::string& option);

// Errors of r.D against the exact product (MPFR) over `check_rows` rows spread evenly
// (reference::sample_rows; 0 or >= m: all rows). `progress` gets (rows done, rows to check).
reference::GemmErrors checked_gemm_errors(std::size_t m, std::size_t n, std::size_t k, std::span<const double> A,
                                          std::span<const double> B, std::span<const double> C,
                                          std::span<const double> D, long long check_rows, unsigned threads,
                                          const std::function<void(std::size_t, std::size_t)>& progress = {});
// "all 512 rows" or "64 of 512 rows, evenly spaced (first and last included; --check-rows all
// checks every row)": which rows the maxima are over.
std::string checked_rows_text(const reference::GemmErrors& err, std::size_t m, const std::string& all_hint);

// The componentwise bound of the variant that ran (blanchard2020 Thm 3.1 when A and B are
// exact in `in`, else Thm 3.2; mary2021 / mary2024 for FABsum and multiword), with the unit's
// own block-FMA roundoffs for tc16, tc32 and unit.
reference::GemmBound gemm_run_bound(const models::Unit& unit, const Format& in, const Format& out, std::size_t k,
                                    std::span<const double> A, std::span<const double> B,
                                    const models::GemmOptions& o, const models::GemmResult& r);

// The fields of `tcsim gemm --json` that describe the run, its errors and its bound.
nlohmann::json gemm_report_json(const models::Unit& unit, const Format& in, const Format& out,
                                const models::GemmOptions& o, const models::GemmResult& r,
                                const reference::GemmErrors& err, const reference::GemmBound& bound);

}  // namespace tcsim::cli
