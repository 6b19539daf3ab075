// The fields of `tcsim lu --json` that describe a factorization, its solution and its
// refinement; shared with the Python package (tcsim.lu, tcsim.solve).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "lu_bound.hpp"
#include "tcsim/models/lu.hpp"
#include "tcsim/models/lu_refine.hpp"

namespace tcsim::cli {

// A binary64 number, or "inf", "-inf", "nan" when it is not finite (JSON has no Inf or NaN).
nlohmann::json finite_or_string(double x);

// --on-breakdown continue: {"subnormal_pivot", "zero_pivot", "overflow", "nan"}, each null or
// {"step", "block", "row", "col", "value", "where"} (models::LuEvent; value by finite_or_string).
nlohmann::json lu_events_json(const models::LuEvents& e);
// {"overflow", "nan"} of the substitutions, the same objects (step and block 0, row = col = index).
nlohmann::json lu_solve_events_json(const models::LuSolveEvents& e);
// One event as text: "step 1 (block 1): the elimination gives A[1][1] = -inf",
// "step 3 (block 1): the pivot U[2][2] = 3.05175781e-05", "the back substitution (x) gives x[0] = nan", "none".
std::string lu_event_text(const models::LuEvent& e);
// Why a backward error is not finite, for the report: "the factors hold NaN from step 17 on",
// "the factors hold Inf from step 2 on", "the forward substitution (y) gives y[1] = -inf", or
// "" when the factors and the substitutions were finite.
std::string lu_nonfinite_note(const models::LuResult& lu, const models::LuSolveEvents& se);

// algorithm, variant, storage, panel, r, s (dp only), path, unit_calls, fp32_buffer_entries,
// bytes_moved, bytes_model.
nlohmann::json lu_factor_json(const models::LuResult& lu);
// solve_precision, backward_error, normwise_backward_error, bound, bound_source into j.
void add_lu_solve_json(nlohmann::json& j, const models::LuBackwardErrors& err, const LuBound& bound,
                       const std::string& solve);
// refine, working, iterations, converged, stop_reason, forward_error, the refined backward
// errors, gmres_iterations and the history into j.
void add_refine_json(nlohmann::json& j, const models::RefineResult& ref, const std::string& method,
                     const std::string& working);

}  // namespace tcsim::cli
