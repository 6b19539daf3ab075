// tcsim.encode / tcsim.decode / tcsim.formats: values <-> bit patterns of a format, element by
// element with the exact path's bits (models/convert.hpp), the GIL released while they run.
#include <type_traits>

#include "matrices.hpp"
#include "value_checks.hpp"

namespace tcsim::python {

namespace {

// The format's name (TypeError naming the argument when it is no str).
std::string format_name(const py::object& obj, const char* function) {
  if (obj.is_none()) throw py::type_error(std::string("argument 'format' of tcsim.") + function + " expects a format's name "
                                          "(fp16, bf16, e4m3, ...; tcsim.formats() lists them), got None");
  return str_arg(obj, "format", function);
}

// Rounding modes a conversion takes: every mode but stochastic rounding.
Rounding rounding_arg(const std::string& text) { return checks::rounding_word(text, "rounding"); }

py::array encode(const py::object& values, const py::object& format_obj, const py::object& rounding_obj,
                 const py::object& threads_obj) {
  const Format& fmt = parse_format(format_name(format_obj, "encode"), "format");
  const Rounding mode = rounding_arg(str_arg(rounding_obj, "rounding", "encode", "rne"));
  const auto threads = static_cast<unsigned>(int_arg(threads_obj, "threads", "encode", 0, 1024));
  Operand op = operand_arg(values, "values", fmt, true, false, true);
  view_2d(op, false);
  py::array out(pattern_dtype(fmt), op.shape);
  with_pattern_pointer(fmt, out, [&](auto* p) {
    using T = std::remove_pointer_t<decltype(p)>;
    py::gil_scoped_release release;
    patterns_of(op, fmt, mode, "values", threads,
                [p](std::size_t r, std::size_t, std::uint64_t b) { p[r] = static_cast<T>(b); });
  });
  return out;
}

py::array decode(const py::object& patterns, const py::object& format_obj, const py::object& threads_obj) {
  const Format& fmt = parse_format(format_name(format_obj, "decode"), "format");
  const auto threads = static_cast<unsigned>(int_arg(threads_obj, "threads", "decode", 0, 1024));
  Operand op = operand_arg(patterns, "bits", fmt, false, true, false);
  view_2d(op, false);
  py::array_t<double> out(op.shape);
  double* v = out.mutable_data();
  {
    py::gil_scoped_release release;
    const models::Decoder value(fmt);
    patterns_of(op, fmt, Rounding::NearestEven, "bits", threads,
                [v, value](std::size_t r, std::size_t, std::uint64_t b) { v[r] = value(b); });
  }
  return out;
}

py::list format_list() {
  py::list out;
  for (const Format& f : builtin_formats()) {
    py::dict d;
    d["name"] = f.name;
    d["width"] = f.width;
    d["precision"] = f.precision;
    d["emin"] = f.emin;
    d["emax"] = f.emax;
    d["subnormals"] = f.subnormals;
    d["dtype"] = pattern_dtype(f);
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_formats(py::module_& m) {
  m.def("encode", &encode, py::arg("values"), py::arg("format"), py::arg("rounding") = "rne", py::arg("threads") = 0,
        "Bit patterns of `format` nearest to `values` (float16/32/64 or integer arrays) with `rounding` (rne, rz, "
        "ru, rd, ro): an unsigned array of the same shape (uint8 .. uint64 by the format's width).");
  m.def("decode", &decode, py::arg("bits"), py::arg("format"), py::arg("threads") = 0,
        "Values (float64, exact for every built-in format) of unsigned bit patterns of `format`.");
  m.def("formats", &format_list, "The built-in formats: name, width, precision, emin, emax, subnormals, dtype.");
}

}  // namespace tcsim::python
