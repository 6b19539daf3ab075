// JSON fields of a simulated LU and its solution (lu_report.hpp).
#include "lu_report.hpp"

#include <cmath>
#include <cstdio>

namespace tcsim::cli {

nlohmann::json finite_or_string(double x) {
  if (std::isfinite(x)) return x;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

nlohmann::json lu_factor_json(const models::LuResult& lu) {
  nlohmann::json j;
  j["algorithm"] = lu.algorithm;
  j["variant"] = lu.variant;
  j["storage"] = lu.storage;
  j["panel"] = lu.panel;
  j["r"] = lu.block;
  if (lu.algorithm == models::lu_algorithm_name(models::LuAlgorithm::Dp)) j["s"] = lu.inner_block;
  j["path"] = lu.path;
  j["unit_calls"] = lu.unit_calls;
  j["fp32_buffer_entries"] = lu.fp32_buffer_entries;
  j["bytes_moved"] = lu.bytes_moved;
  j["bytes_model"] = lu.bytes_model;
  return j;
}

void add_lu_solve_json(nlohmann::json& j, const models::LuBackwardErrors& err, const LuBound& bound,
                       const std::string& solve) {
  j["solve_precision"] = solve;
  j["backward_error"] = finite_or_string(err.componentwise);
  j["normwise_backward_error"] = finite_or_string(err.normwise);
  j["bound"] = finite_or_string(bound.value);
  j["bound_source"] = bound.source;
}

void add_refine_json(nlohmann::json& j, const models::RefineResult& ref, const std::string& method,
                     const std::string& working) {
  j["refine"] = method;
  j["working"] = working;
  j["iterations"] = ref.iterations;
  j["converged"] = ref.converged;
  j["stop_reason"] = ref.stop_reason;
  j["forward_error"] = finite_or_string(ref.forward_error);
  j["refined_normwise_backward_error"] = finite_or_string(ref.normwise_backward_error);
  j["refined_componentwise_backward_error"] = finite_or_string(ref.componentwise_backward_error);
  j["gmres_iterations"] = ref.gmres_iterations_total;
  nlohmann::json h = nlohmann::json::array();
  for (const auto& s : ref.history)
    h.push_back({{"iteration", s.iteration},
                 {"normwise_backward_error", finite_or_string(s.normwise_backward_error)},
                 {"forward_error", finite_or_string(s.forward_error)},
                 {"gmres_iterations", s.gmres_iterations}});
  j["history"] = h;
}

}  // namespace tcsim::cli
