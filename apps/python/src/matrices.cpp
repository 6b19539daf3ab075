// Matrix and option arguments (matrices.hpp).
#include "matrices.hpp"

#include <cmath>

#include "value_checks.hpp"

namespace tcsim::python {

MatrixArg matrix_arg(const py::handle& obj, const char* field, const Format& fmt, unsigned threads) {
  Operand op = operand_arg(obj, field, fmt, true, true, false);
  if (op.shape.size() != 2)
    throw std::invalid_argument(std::string(field) + ": expected a 2-D array (a matrix), got shape " +
                                shape_text(op.shape));
  if (op.shape[0] == 0 || op.shape[1] == 0)
    throw std::invalid_argument(std::string(field) + ": expected a matrix with at least one row and one column, got shape " +
                                shape_text(op.shape));
  view_2d(op, true);
  MatrixArg m;
  m.from_values = op.kind != ElementKind::Patterns;
  m.rows = op.rows;
  m.cols = op.cols;
  m.values.resize(m.rows * m.cols);
  py::gil_scoped_release release;
  if (op.kind == ElementKind::Patterns) {
    const models::Decoder decode(fmt);
    patterns_of(op, fmt, Rounding::NearestEven, field, threads,
                [&](std::size_t r, std::size_t c, std::uint64_t x) { m.values[r * m.cols + c] = decode(x); });
  } else {
    // Values as given, in binary64 (exact for float16 and float32).
    const models::Decoder half(formats::fp16());
    parallel_ranges(threads, m.rows, 64, [&](std::size_t r0, std::size_t r1) {
      for (std::size_t r = r0; r < r1; ++r)
        for (std::size_t c = 0; c < m.cols; ++c) {
          double v;
          if (op.itemsize == 2) v = half(load_at<std::uint16_t>(op, r, c));
          else if (op.itemsize == 4) v = load_at<float>(op, r, c);
          else v = load_at<double>(op, r, c);
          m.values[r * m.cols + c] = v;
        }
    });
  }
  return m;
}

void check_entries(const MatrixArg& m, const char* field, double largest, const std::string& what) {
  if (!m.from_values) return;
  for (std::size_t e = 0; e < m.values.size(); ++e) {
    const double x = m.values[e];
    if (std::isfinite(x) && (largest <= 0 || std::fabs(x) <= largest)) continue;
    const std::string entry = std::string(field) + "[" + std::to_string(e / m.cols) + ", " + std::to_string(e % m.cols) + "]";
    std::string why = checks::nonfinite_refusal(entry, x);
    if (why.empty()) why = checks::magnitude_refusal(entry, x, largest, what);
    throw std::invalid_argument(why);
  }
}

std::vector<double> vector_arg(const py::handle& obj, const char* field, std::size_t expected) {
  Operand op = operand_arg(obj, field, formats::fp64(), true, false, false);
  if (op.shape.size() != 1 || static_cast<std::size_t>(op.shape[0]) != expected)
    throw std::invalid_argument(std::string(field) + ": expected a vector of " + std::to_string(expected) +
                                " values, got shape " + shape_text(op.shape));
  py::array_t<double, py::array::c_style | py::array::forcecast> v(op.array);
  std::vector<double> out(v.data(), v.data() + v.size());
  for (std::size_t i = 0; i < out.size(); ++i)  // NaN/Inf refused, as matrix entries
    if (!std::isfinite(out[i]))
      throw std::invalid_argument(checks::nonfinite_refusal(std::string(field) + "[" + std::to_string(i) + "]", out[i]));
  return out;
}

bool bool_arg(const py::handle& obj, const char* field, const char* function) {
  if (py::isinstance<py::bool_>(obj)) return obj.cast<bool>();
  if (py::hasattr(obj, "dtype") && std::string(py::str(obj.attr("dtype"))) == "bool") return obj.cast<bool>();
  throw py::type_error("argument '" + std::string(field) + "' of tcsim." + function + " expects True or False, got " +
                       std::string(py::repr(obj)));
}

std::string str_arg(const py::handle& obj, const char* field, const char* function, const std::string& fallback) {
  if (obj.is_none()) return fallback;
  if (!py::isinstance<py::str>(obj))
    throw py::type_error("argument '" + std::string(field) + "' of tcsim." + function + " expects a str, got " +
                         std::string(py::repr(obj)));
  return obj.cast<std::string>();
}

py::array matrix_array(const std::vector<double>& values, std::size_t rows, std::size_t cols) {
  py::array_t<double> out({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(cols)});
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

InputFormats input_formats_arg(const py::handle& in, const py::handle& in_a, const py::handle& in_b,
                               const char* function) {
  const bool i = !in.is_none(), ia = !in_a.is_none(), ib = !in_b.is_none();
  if (!i && !(ia && ib))
    throw py::type_error(std::string("tcsim.") + function + ": give in_format= (both operands), or " +
                         (ia ? "in_format_b= with in_format_a=" : ib ? "in_format_a= with in_format_b="
                                                                     : "in_format_a= and in_format_b=") +
                         " (operands in different formats)");
  if (i && ia && ib)
    throw std::invalid_argument("in_format with both in_format_a and in_format_b; give in_format alone, in_format_a "
                                "with in_format_b, or one of them with in_format for the other operand");
  InputFormats f;
  f.a = ia ? &parse_format(str_arg(in_a, "in_format_a", function), "in_format_a")
           : &parse_format(str_arg(in, "in_format", function), "in_format");
  f.b = ib ? &parse_format(str_arg(in_b, "in_format_b", function), "in_format_b")
           : &parse_format(str_arg(in, "in_format", function), "in_format");
  f.mixed_field = ib ? "in_format_b" : "in_format_a";
  return f;
}

const models::DatapathSpec& checked_datapath(const models::Unit& unit, const InputFormats& f, const Format& out,
                                             const std::string& instruction) {
  if (f.mixed()) {
    try {
      (void)unit.datapath(*f.a, *f.b, out);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(f.mixed_field + ": " + e.what());
    }
  }
  return unit.datapath(*f.a, *f.b, out, instruction);
}

}  // namespace tcsim::python
