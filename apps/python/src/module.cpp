// The tcsim._tcsim extension module; tcsim/__init__.py wraps it (torch tensors, results).
#include "common.hpp"

PYBIND11_MODULE(_tcsim, m) {
  m.doc() = "tcsim: bit-accurate simulation of GPU tensor-core MMA units (C++ core)";
  tcsim::python::bind_units(m);
  tcsim::python::bind_formats(m);
  tcsim::python::bind_dot(m);
  tcsim::python::bind_gemm(m);
  tcsim::python::bind_lu(m);
  tcsim::python::bind_validation(m);
}
