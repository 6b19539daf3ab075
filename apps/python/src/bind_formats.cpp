// tcsim.encode / tcsim.decode / tcsim.formats: values <-> bit patterns of a format, element by
// element with the exact path's bits (models/convert.hpp), the GIL released while they run.
#include <type_traits>

#include "common.hpp"

namespace tcsim::python {

namespace {

// Rounding modes a conversion takes: every mode but stochastic rounding.
Rounding rounding_arg(const std::string& text) {
  const Rounding r = parse_rounding(text, "rounding");
  if (r == Rounding::Stochastic)
    throw std::invalid_argument("rounding: '" + text + "' is not allowed here; allowed: rne, rz, ru, rd, ro");
  return r;
}

py::array encode(const py::object& values, const std::string& format, const std::string& rounding, unsigned threads) {
  const Format& fmt = parse_format(format, "format");
  const Rounding mode = rounding_arg(rounding);
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

py::array decode(const py::object& patterns, const std::string& format, unsigned threads) {
  const Format& fmt = parse_format(format, "format");
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
