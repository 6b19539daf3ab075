// The fields of `tcsim lu --json` that describe a factorization, its solution and its
// refinement; shared with the Python package (tcsim.lu, tcsim.solve).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "lu_bound.hpp"
#include "tcsim/models/lu.hpp"
#include "tcsim/models/lu_refine.hpp"

namespace tcsim::cli {

// A binary64 number, or its "%.3g" text when it is not finite (JSON has no Inf or NaN).
nlohmann::json finite_or_string(double x);

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
