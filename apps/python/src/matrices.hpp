// Matrix arguments of the GEMM and LU bindings: 2-D numpy arrays of values (float16/32/64)
// or of bit patterns of a format (unsigned integers, decoded exactly), as row-major binary64;
// and the scalar options' checks with the CLI's messages.
#pragma once
#include <string>
#include <vector>

#include "common.hpp"

namespace tcsim::python {

struct MatrixArg {
  std::size_t rows = 0, cols = 0;
  std::vector<double> values;  // row-major
  bool from_values = false;    // given as float values (not bit patterns)
};

// `fmt` decodes unsigned patterns; `field` names the argument ("A").
MatrixArg matrix_arg(const py::handle& obj, const char* field, const Format& fmt, unsigned threads);
// 1-D vector (b of solve): values only.
std::vector<double> vector_arg(const py::handle& obj, const char* field, std::size_t expected);

// The CLI's refusals of matrix entries (apps/src/value_checks.hpp), named field[i, j]: a NaN
// or infinite value, and (largest > 0) a magnitude above `largest` (`what` says where it
// goes). Bit patterns are the user's exact bits and are not checked.
void check_entries(const MatrixArg& m, const char* field, double largest = 0, const std::string& what = "");

bool bool_arg(const py::handle& obj, const char* field, const char* function);
// None -> fallback; else a str (TypeError otherwise).
std::string str_arg(const py::handle& obj, const char* field, const char* function, const std::string& fallback = "");

// in_format, in_format_a, in_format_b as the CLI's --in, --in-a, --in-b (issue 24): in_format
// alone for both operands; in_format_a with in_format_b; or one of them with in_format.
struct InputFormats {
  const Format* a = nullptr;
  const Format* b = nullptr;
  std::string mixed_field;  // "in_format_b", else "in_format_a"
  bool mixed() const { return !(*a == *b); }
};
InputFormats input_formats_arg(const py::handle& in, const py::handle& in_a, const py::handle& in_b,
                               const char* function);
// A mixed pair no row serves: the unit's refusal prefixed with the argument's name; then the
// row for the pair and the instruction (its errors as Unit::datapath's).
const models::DatapathSpec& checked_datapath(const models::Unit& unit, const InputFormats& f, const Format& out,
                                             const std::string& instruction);

// A row-major binary64 matrix as a new numpy array.
py::array matrix_array(const std::vector<double>& values, std::size_t rows, std::size_t cols);

}  // namespace tcsim::python
