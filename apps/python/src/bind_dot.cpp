// tcsim.dot: batches of d = c + sum_i a_i b_i through a unit (Unit::dot_batch_planar for
// inputs of at most 16 bits, Unit::dot_batch otherwise): the bits of `tcsim dot` on each
// element. Operands are converted (values) or checked (patterns) straight into the layout the
// kernel takes, with the GIL released; a uint16 batch already laid out product-major (the
// transpose of a C-order (K, n) array) is passed to the kernel without a copy.
#include <optional>

#include "matrices.hpp"

namespace tcsim::python {

namespace {

// True when op (n x K after view_2d) is a uint16 array whose element i, product t sits at
// t * n + i: the planar layout itself.
bool planar_as_is(const Operand& op, const Format& fmt) {
  return op.kind == ElementKind::Patterns && op.itemsize == 2 && fmt.width == 16 &&
         (op.rows <= 1 || op.row_stride == 2) &&
         (op.cols <= 1 || op.col_stride == static_cast<py::ssize_t>(2 * op.rows));
}

bool element_major_as_is(const Operand& op) {
  return op.kind == ElementKind::Patterns && op.itemsize == 8 && (op.cols <= 1 || op.col_stride == 8) &&
         (op.rows <= 1 || op.row_stride == static_cast<py::ssize_t>(8 * op.cols));
}

py::tuple dot(const py::object& unit_obj, const py::object& a, const py::object& b, const py::object& c,
              const py::object& in_format, const py::object& out_format, const py::object& instruction_obj,
              const py::object& threads_obj, const py::object& in_format_a, const py::object& in_format_b) {
  const auto unit = unit_arg(unit_obj);
  const InputFormats inputs = input_formats_arg(in_format, in_format_a, in_format_b, "dot");
  const Format& in = *inputs.a;
  const Format& in_b = *inputs.b;
  const Format& out = parse_format(str_arg(out_format, "out_format", "dot"), "out_format");
  const auto threads = static_cast<unsigned>(int_arg(threads_obj, "threads", "dot", 0, 1024));
  const std::string instruction = str_arg(instruction_obj, "instruction", "dot");
  (void)checked_datapath(*unit, inputs, out, instruction);  // format and instruction errors first, as the CLI

  Operand A = operand_arg(a, "a", in, true, true, false), B = operand_arg(b, "b", in_b, true, true, false);
  for (const Operand* op : {&A, &B})
    if (op->shape.empty())
      throw std::invalid_argument(std::string(op == &A ? "a" : "b") +
                                  ": expected an array of shape (..., K) (K products per element), got a scalar");
  if ((A.kind == ElementKind::Patterns) != (B.kind == ElementKind::Patterns))  // else one side is misread
    throw std::invalid_argument(std::string("a is ") + (A.kind == ElementKind::Patterns ? "bit patterns" : "values") +
                                " but b is " + (B.kind == ElementKind::Patterns ? "bit patterns" : "values") +
                                ": an unsigned array is bit patterns, a float array values; give a and b of the same kind");
  if (A.shape != B.shape)
    throw std::invalid_argument("a has shape " + shape_text(A.shape) + " but b has shape " + shape_text(B.shape) +
                                "; every a_i needs its b_i");
  view_2d(A, true);
  view_2d(B, true);
  const std::vector<py::ssize_t> batch(A.shape.begin(), A.shape.end() - 1);
  const std::size_t n = A.rows, K = A.cols;

  Operand C;
  const bool has_c = !c.is_none();
  if (has_c) {
    C = operand_arg(c, "c", out, true, true, false);
    if (!C.shape.empty() && C.shape != batch)
      throw std::invalid_argument("c has shape " + shape_text(C.shape) + " but a and b have " + std::to_string(K) +
                                  " products per element in a batch of shape " + shape_text(batch) +
                                  "; c takes one value per element (that shape) or one value for all");
    view_2d(C, false);
  }

  Buffer<std::uint64_t> d(n), cv(n);
  {
    py::gil_scoped_release release;
    std::fill(cv.data(), cv.data() + n, out.zero(false));
    if (has_c) {
      if (C.shape.empty()) {
        std::uint64_t one = 0;
        patterns_of(C, out, Rounding::NearestEven, "c", 1, [&](std::size_t, std::size_t, std::uint64_t x) { one = x; });
        std::fill(cv.data(), cv.data() + n, one);
      } else {
        patterns_of(C, out, Rounding::NearestEven, "c", threads,
                    [c = cv.data()](std::size_t r, std::size_t, std::uint64_t x) { c[r] = x; });
      }
    }
    if (n > 0 && in.width <= 16 && in_b.width <= 16 && K > 0) {
      std::optional<Buffer<std::uint16_t>> at, bt;
      auto planar = [&](const Operand& op, const Format& f, std::optional<Buffer<std::uint16_t>>& buf, const char* field) {
        if (planar_as_is(op, f)) return reinterpret_cast<const std::uint16_t*>(op.data);
        std::uint16_t* p = buf.emplace(n * K).data();
        patterns_of(op, f, Rounding::NearestEven, field, threads,
                    [p, n](std::size_t r, std::size_t t, std::uint64_t x) { p[t * n + r] = static_cast<std::uint16_t>(x); });
        return static_cast<const std::uint16_t*>(p);
      };
      const std::uint16_t* pa = planar(A, in, at, "a");
      const std::uint16_t* pb = planar(B, in_b, bt, "b");
      unit->dot_batch_planar(in, in_b, out, n, K, pa, pb, cv.data(), d.data(), instruction, threads);
    } else if (n > 0) {
      std::optional<Buffer<std::uint64_t>> am, bm;
      auto major = [&](const Operand& op, const Format& f, std::optional<Buffer<std::uint64_t>>& buf, const char* field) {
        if (element_major_as_is(op) && K > 0) {
          // The width check still applies: a uint64 pattern may have bits above the format's width.
          patterns_of(op, f, Rounding::NearestEven, field, threads, [](std::size_t, std::size_t, std::uint64_t) {});
          return reinterpret_cast<const std::uint64_t*>(op.data);
        }
        std::uint64_t* p = buf.emplace(n * K).data();
        patterns_of(op, f, Rounding::NearestEven, field, threads,
                    [p, K](std::size_t r, std::size_t t, std::uint64_t x) { p[r * K + t] = x; });
        return static_cast<const std::uint64_t*>(p);
      };
      const std::uint64_t* pa = major(A, in, am, "a");
      const std::uint64_t* pb = major(B, in_b, bm, "b");
      unit->dot_batch(in, in_b, out, n, K, pa, pb, cv.data(), d.data(), instruction, threads);
    }
  }
  py::array values = values_array(out, batch, d.data(), n, threads);
  py::array bits = patterns_array(out, batch, d.data(), n);
  return py::make_tuple(values, bits);
}

}  // namespace

void bind_dot(py::module_& m) {
  m.def("_dot", &dot, py::arg("unit"), py::arg("a"), py::arg("b"), py::arg("c"), py::arg("in_format"),
        py::arg("out_format"), py::arg("instruction") = py::none(), py::arg("threads") = 0,
        py::arg("in_format_a") = py::none(), py::arg("in_format_b") = py::none());
}

}  // namespace tcsim::python
