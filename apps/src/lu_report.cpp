// JSON fields of a simulated LU and its solution (lu_report.hpp).
#include "lu_report.hpp"

#include <cmath>
#include <cstdio>

#include "json_output.hpp"

namespace tcsim::cli {

nlohmann::json finite_or_string(double x) { return json_number(x); }  // the one convention (json_output.hpp)

namespace {

nlohmann::json event_json(const models::LuEvent& e) {
  if (!e.found) return nullptr;
  return {{"step", e.step}, {"block", e.block}, {"row", e.row}, {"col", e.col},
          {"value", finite_or_string(e.value)}, {"where", e.where}};
}

std::string value_text(double v) {
  if (!std::isfinite(v)) return finite_or_string(v).get<std::string>();
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string step_text(std::size_t step) {
  return step == 0 ? "the storage of A" : "step " + std::to_string(step);
}

}  // namespace

nlohmann::json lu_events_json(const models::LuEvents& e) {
  return {{"subnormal_pivot", event_json(e.subnormal_pivot)}, {"zero_pivot", event_json(e.zero_pivot)},
          {"overflow", event_json(e.overflow)}, {"nan", event_json(e.nan)}};
}

nlohmann::json lu_solve_events_json(const models::LuSolveEvents& e) {
  return {{"overflow", event_json(e.overflow)}, {"nan", event_json(e.nan)}};
}

std::string lu_event_text(const models::LuEvent& e) {
  if (!e.found) return "none";
  const std::string row = std::to_string(e.row), col = std::to_string(e.col), v = value_text(e.value);
  if (e.where.find("substitution") != std::string::npos) {
    const char name = e.where.find("forward") != std::string::npos ? 'y' : 'x';
    return e.where + " gives " + name + "[" + row + "] = " + v;
  }
  const std::string prefix = e.step == 0 ? "" : "step " + std::to_string(e.step) + " (block " + std::to_string(e.block) + "): ";
  if (e.where == "the pivot") return prefix + "the pivot U[" + row + "][" + col + "] = " + v;
  return prefix + e.where + " gives A[" + row + "][" + col + "] = " + v;
}

std::string lu_nonfinite_note(const models::LuResult& lu, const models::LuSolveEvents& se) {
  if (lu.events.nan.found) return "the factors hold NaN from " + step_text(lu.events.nan.step) + " on";
  if (lu.events.overflow.found) return "the factors hold Inf from " + step_text(lu.events.overflow.step) + " on";
  const models::LuEvent* first = se.first.found ? &se.first : nullptr;
  return first ? lu_event_text(*first) : "";
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
