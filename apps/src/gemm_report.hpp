// The exact errors and the bound of a simulated GEMM, as `tcsim gemm` reports them; shared
// with the Python package (tcsim.gemm_errors).
#pragma once
#include <cstddef>
#include <functional>
#include <span>

#include <nlohmann/json.hpp>

#include "tcsim/models/gemm.hpp"
#include "tcsim/reference/gemm_error.hpp"

namespace tcsim::cli {

// Errors of r.D against the exact product (MPFR) over `check_rows` rows spread evenly (0 or
// >= m: all rows), computed in blocks of rows so that `progress` (fraction done) can be shown.
reference::GemmErrors checked_gemm_errors(std::size_t m, std::size_t n, std::size_t k, std::span<const double> A,
                                          std::span<const double> B, std::span<const double> C,
                                          std::span<const double> D, long long check_rows, unsigned threads,
                                          const std::function<void(double)>& progress = {});

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
