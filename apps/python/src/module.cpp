// The tcsim._tcsim extension module; tcsim/__init__.py wraps it (torch tensors, results).
#include "common.hpp"
#include "option_names.hpp"
#include "value_checks.hpp"

PYBIND11_MODULE(_tcsim, m) {
  namespace py = pybind11;
  m.doc() = "tcsim: bit-accurate simulation of GPU tensor-core MMA units (C++ core)";
  // Registered first, so tried last (after LuBreakdown's): messages of the shared C++ code
  // name fields as the Python arguments (split_k, not --split-k or fabsum_block), issue 22.
  py::register_exception_translator([](std::exception_ptr p) {
    using tcsim::checks::Caller;
    // One line even when a quoted value holds a newline (value_checks.hpp).
    auto name_options = [](const char* text, Caller caller) {
      return tcsim::checks::one_line(tcsim::checks::name_options(text, caller));
    };
    try {
      if (p) std::rethrow_exception(p);
    } catch (const py::builtin_exception&) {
      throw;  // py::type_error, py::value_error, ...: already Python's words
    } catch (const std::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, name_options(e.what(), Caller::Python).c_str());
    } catch (const std::domain_error& e) {
      PyErr_SetString(PyExc_ValueError, name_options(e.what(), Caller::Python).c_str());
    } catch (const std::out_of_range& e) {
      PyErr_SetString(PyExc_ValueError, name_options(e.what(), Caller::Python).c_str());
    } catch (const std::runtime_error& e) {
      PyErr_SetString(PyExc_RuntimeError, name_options(e.what(), Caller::Python).c_str());
    }
  });
  tcsim::python::bind_units(m);
  tcsim::python::bind_formats(m);
  tcsim::python::bind_dot(m);
  tcsim::python::bind_gemm(m);
  tcsim::python::bind_lu(m);
  tcsim::python::bind_validation(m);
}
