// tcsim.Unit, tcsim.units(), tcsim.unit(): built-in and user-defined units; rows as dicts in
// the JSON schema of `tcsim units --json` (models/unit_json.hpp).
#include <fstream>

#include "matrices.hpp"
#include "tcsim/models/unit_json.hpp"

namespace tcsim::python {

namespace {

// Unit.from_json: a path (str or os.PathLike) or a dict / list as the file would hold it.
PyUnit unit_from_json_impl(const py::object& source);

// Every refusal names the argument, `source`, first (as the CLI's name --unit-config).
PyUnit unit_from_json(const py::object& source) {
  try {
    return unit_from_json_impl(source);
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    throw std::invalid_argument(what.rfind("source: ", 0) == 0 ? what : "source: " + what);
  }
}

PyUnit unit_from_json_impl(const py::object& source) {
  models::UnitSpec spec;
  std::string where;
  if (py::isinstance<py::str>(source) || py::hasattr(source, "__fspath__")) {
    where = py::str(py::module_::import("os").attr("fspath")(source)).cast<std::string>();
    spec = models::load_unit_json(where);  // its errors name the file and the key
    where = "unit file '" + where + "': ";
  } else if (py::isinstance<py::dict>(source) || py::isinstance<py::list>(source)) {
    spec = models::parse_unit_json(from_python(source), "<dict>");
    where = "unit '<dict>': ";
  } else {
    throw py::type_error("source: Unit.from_json expects a path (str, os.PathLike) or a dict in the unit schema, got " +
                         std::string(py::str(source.get_type().attr("__name__"))));
  }
  try {
    return PyUnit{std::make_shared<const models::Unit>(std::move(spec))};
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(where + e.what());
  }
}

const Format& fmt_arg(const py::object& name, const char* field) {
  if (name.is_none()) throw py::type_error("argument '" + std::string(field) + "' of tcsim.Unit expects a format's name (a str), got None");
  return parse_format(str_arg(name, field, "Unit"), field);
}

}  // namespace

void bind_units(py::module_& m) {
  py::class_<PyUnit>(m, "Unit", "A tensor-core unit: a table of datapath rows (tcsim.unit('h100'), Unit.from_json).")
      .def_static("from_json", &unit_from_json, py::arg("source"),
                  "A user-defined unit from a JSON file or a dict in the schema of `tcsim units --json`.")
      .def_property_readonly("name", [](const PyUnit& u) { return u.unit->name(); })
      .def_property_readonly("architecture", [](const PyUnit& u) { return u.unit->spec().architecture; })
      .def_property_readonly("aliases", [](const PyUnit& u) { return u.unit->spec().aliases; })
      .def_property_readonly(
          "rows", [](const PyUnit& u) { return to_python(models::to_json(u.unit->spec())["datapaths"]); },
          "The datapath rows as dicts (the JSON schema's keys).")
      .def("to_json", [](const PyUnit& u) { return to_python(models::to_json(u.unit->spec())); },
           "The unit as a dict in the JSON schema (Unit.from_json reads it back).")
      .def("format_pairs", [](const PyUnit& u) { return u.unit->format_pairs(); })
      .def(
          "instructions",
          [](const PyUnit& u, const py::object& in, const py::object& out) {
            return u.unit->instructions(fmt_arg(in, "in_format"), fmt_arg(out, "out_format"));
          },
          py::arg("in_format"), py::arg("out_format"))
      .def(
          "row",
          [](const PyUnit& u, const py::object& in, const py::object& out, const py::object& instruction) {
            const std::string ins = str_arg(instruction, "instruction", "Unit");
            return to_python(models::to_json(
                u.unit->datapath(fmt_arg(in, "in_format"), fmt_arg(out, "out_format"), ins), u.unit->name()));
          },
          py::arg("in_format"), py::arg("out_format"), py::arg("instruction") = py::none(),
          "The row serving in_format -> out_format (and the instruction), as a dict.")
      .def(
          "batch_path",
          [](const PyUnit& u, const py::object& in, const py::object& out, const py::object& instruction) {
            const std::string ins = str_arg(instruction, "instruction", "Unit");
            return u.unit->batch_path_planar(fmt_arg(in, "in_format"), fmt_arg(out, "out_format"), ins);
          },
          py::arg("in_format"), py::arg("out_format"), py::arg("instruction") = py::none())
      .def("__repr__", [](const PyUnit& u) {
        return "tcsim.Unit('" + u.unit->name() + "', " + u.unit->spec().architecture + ", " +
               std::to_string(u.unit->spec().datapaths.size()) + " rows)";
      })
      .def("__eq__", [](const PyUnit& a, const py::object& b) {
        return py::isinstance<PyUnit>(b) && a.unit->spec() == b.cast<const PyUnit&>().unit->spec();
      });

  m.def("unit", [](const py::object& name) {
        if (name.is_none()) throw py::type_error("argument 'name' of tcsim.unit expects a str, got None");
        const std::string text = str_arg(name, "name", "unit");
        try {
          return builtin_py_unit(text);
        } catch (const std::invalid_argument& e) {
          throw std::invalid_argument(std::string("name: ") + e.what());
        }
      }, py::arg("name"),
        "A built-in unit by name, alias or architecture (v100, t4, a100, l40s, h100, b200, ...).");
  m.def("units", [] {
    py::list out;
    for (const auto& spec : models::builtin_unit_specs()) out.append(to_python(models::to_json(spec)));
    return out;
  }, "The built-in units as dicts (name, architecture, aliases, datapaths: the rows).");
}

}  // namespace tcsim::python
