// The JSON the CLI prints, with one convention for numbers that are not finite: the strings
// "inf", "-inf" and "nan" (JSON has no such numbers; nlohmann::json would print null, which
// reads as "missing"). Code that builds JSON stores plain doubles; the conversion happens
// here, once, for every command (docs/design.md, "Outputs, JSON numbers and progress"). The
// Python package hands the same doubles to Python as float('inf') / float('nan').
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace tcsim::cli {

// A double as the convention writes it: a number, or "inf" / "-inf" / "nan".
nlohmann::json json_number(double x);
// `j` with every non-finite number replaced as json_number does (objects and arrays walked).
nlohmann::json with_non_finite_as_strings(nlohmann::json j);
// The text printed: with_non_finite_as_strings(j).dump(indent).
std::string json_text(const nlohmann::json& j, int indent = -1);
// json_text(j) and a newline on standard output; a failed write throws "standard output:
// write failed: <reason>" (the rest is checked at the end by finish_stdout()).
void print_json(const nlohmann::json& j, int indent = -1);

}  // namespace tcsim::cli
