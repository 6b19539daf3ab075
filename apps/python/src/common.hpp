// Shared pieces of the Python bindings: units as arguments, numpy operands (values or bit
// patterns) read with their strides, parallel loops, and JSON handed to Python as dicts.
//
// Errors: std::invalid_argument becomes ValueError (pybind11's translation), py::type_error
// TypeError. Messages follow the CLI's: the field (here the Python argument) first, then
// what was found and what is allowed.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "progress.hpp"
#include "tcsim/models/convert.hpp"
#include "tcsim/models/unit.hpp"
#include "tcsim/sim/format.hpp"
#include "tcsim/sim/rounding.hpp"

namespace tcsim::python {

namespace py = pybind11;

// A buffer of `count` uninitialized T for the kernels' operands and results. Large ones
// (2 MiB and more) come from a small process-wide cache of blocks advised as transparent huge
// pages: fresh pages (zero-filled by the kernel, faulted one by one, returned to the system on
// free) cost more than the kernels themselves on a batch of 10^6 elements, call after call.
void* buffer_allocate(std::size_t bytes, std::size_t& capacity);  // throws std::bad_alloc
void buffer_release(void* p, std::size_t capacity);
template <class T>
class Buffer {
 public:
  explicit Buffer(std::size_t count) : count_(count) {
    data_ = static_cast<T*>(buffer_allocate(count * sizeof(T), capacity_));
  }
  ~Buffer() { buffer_release(data_, capacity_); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return count_; }

 private:
  std::size_t count_, capacity_ = 0;
  T* data_ = nullptr;
};

// tcsim.Unit: a built-in unit (not owned) or a user-defined one (owned).
struct PyUnit {
  std::shared_ptr<const models::Unit> unit;
};
PyUnit builtin_py_unit(std::string_view name);
// A tcsim.Unit or a built-in unit's name; `field` names the argument in errors.
std::shared_ptr<const models::Unit> unit_arg(const py::handle& obj, const char* field = "unit");

// nlohmann::json -> Python objects (dict, list, str, int, float, bool, None). Numbers that are
// not finite stay floats: float('inf'), float('-inf'), float('nan') (never None, never the
// strings the CLI's JSON holds; docs/design.md).
py::object to_python(const nlohmann::json& j);

// The progress= argument of the long functions: None (on when stderr is a terminal), True,
// False; TypeError naming `function` otherwise. Progress goes to stderr as the CLI's.
cli::ProgressMode progress_arg(const py::handle& obj, const char* function);
// Python dict/list/... -> nlohmann::json (through the json module: the user's dict as a file would hold it).
// Errors name `field`: TypeError for what json cannot serialize, ValueError for NaN/Inf.
nlohmann::json from_python(const py::handle& obj, const char* field = "source");

// An integer argument in [lo, hi]; else ValueError in the CLI's words.
long long int_arg(const py::handle& obj, const char* field, const char* function, long long lo, long long hi);

// body(begin, end) over [0, count) in chunks of at least `grain` on `threads` threads (0: all
// cores). Callers write disjoint outputs, so results do not depend on the split.
void parallel_ranges(unsigned threads, std::size_t count, std::size_t grain,
                     const std::function<void(std::size_t, std::size_t)>& body);

// How the elements of a numpy array are taken.
enum class ElementKind {
  Values,    // float16/32/64: values, rounded into the format
  Patterns,  // unsigned integers: bit patterns of the format
  Integers,  // signed integers (encode and decode only)
};

// A numpy array viewed as rows x cols elements with byte strides (any layout, no copy).
struct Operand {
  py::array array;  // keeps the data alive
  ElementKind kind = ElementKind::Values;
  char type = 'f';  // numpy kind: 'f', 'u', 'i'
  int itemsize = 8;
  std::vector<py::ssize_t> shape;  // the array's shape as given
  std::size_t rows = 0, cols = 0;
  py::ssize_t row_stride = 0, col_stride = 0;  // bytes
  const char* data = nullptr;
  bool patterns_allowed = false;  // the argument also takes bit patterns (for the "allowed" text)
};

// `obj` as a numpy array with its kind checked against `allowed` (TypeError naming `field`
// and the allowed dtypes otherwise). `what` describes the format for the message.
Operand operand_arg(const py::handle& obj, const char* field, const Format& fmt, bool allow_values,
                    bool allow_patterns, bool allow_integers);
// Views the operand as rows x cols: cols = the last axis (matrix operands: the last axis has
// `cols` == shape[-1]), rows = the product of the others. `last_axis` false: cols = 1.
void view_2d(Operand& op, bool last_axis);

// Patterns of `fmt` for every element: values rounded with `mode` (Converter), patterns
// checked against the format's width (ValueError naming field[index]), signed integers as
// exact values. out(row, col, pattern) receives each one; rows are split over threads.
// Writes through `store(row, col, bits)`; returns nothing, throws before writing on a bad
// pattern when it can, else after (the output is then discarded by the caller).
template <class Store>
void patterns_of(const Operand& op, const Format& fmt, Rounding mode, const char* field, unsigned threads,
                 const Store& store);

// The unsigned numpy dtype that holds patterns of `fmt` (uint8 .. uint64).
py::dtype pattern_dtype(const Format& fmt);
// f(pointer) with the data of `out` (an array of pattern_dtype(fmt)) as uint8_t* .. uint64_t*.
template <class F>
void with_pattern_pointer(const Format& fmt, py::array& out, const F& f) {
  void* p = out.mutable_data();
  if (fmt.width <= 8) f(static_cast<std::uint8_t*>(p));
  else if (fmt.width <= 16) f(static_cast<std::uint16_t*>(p));
  else if (fmt.width <= 32) f(static_cast<std::uint32_t*>(p));
  else f(static_cast<std::uint64_t*>(p));
}
// Writes `bits` (count patterns) into a new array of pattern_dtype(fmt) with `shape`.
py::array patterns_array(const Format& fmt, const std::vector<py::ssize_t>& shape, const std::uint64_t* bits,
                         std::size_t count);
// Decodes patterns into a new float64 array with `shape`.
py::array values_array(const Format& fmt, const std::vector<py::ssize_t>& shape, const std::uint64_t* bits,
                       std::size_t count, unsigned threads);

// "(2, 3)" for messages.
std::string shape_text(const std::vector<py::ssize_t>& shape);

// Module parts (one file each).
void bind_units(py::module_& m);
void bind_formats(py::module_& m);
void bind_dot(py::module_& m);
void bind_gemm(py::module_& m);
void bind_lu(py::module_& m);
void bind_validation(py::module_& m);

}  // namespace tcsim::python

#include "operands_impl.hpp"
