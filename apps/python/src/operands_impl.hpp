// patterns_of (common.hpp): one loop per numpy element type, the conversion chosen once.
#pragma once
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "tcsim/sim/codec.hpp"
#include "value_checks.hpp"
#include "tcsim/sim/rounding.hpp"

namespace tcsim::python {

// The first bad pattern's flat index (rows * cols order), or SIZE_MAX; threads lower it.
struct FirstBad {
  std::atomic<std::size_t> index{std::numeric_limits<std::size_t>::max()};
  void offer(std::size_t i) {
    std::size_t cur = index.load();
    while (i < cur && !index.compare_exchange_weak(cur, i)) {
    }
  }
};

// Throws ValueError for the element at flat index `flat`: field[i, j, ...] and check_pattern's
// or the negative value's message.
[[noreturn]] void throw_bad_element(const Operand& op, const Format& fmt, Rounding mode, const char* field,
                                    std::size_t flat);

// Whether value x (rounded to `bits`) may go into the format: the shared layer's rule
// (apps/src/value_checks.hpp), with a fast path for the common in-range values.
struct ValueGate {
  const Format& fmt;
  double largest;  // largest finite value of fmt
  explicit ValueGate(const Format& f)
      : fmt(f), largest(f == formats::fp64() ? std::numeric_limits<double>::max() : to_double(decode(f, f.max_finite(false)))) {}
  bool operator()(double x, std::uint64_t bits) const {
    if (std::fabs(x) <= largest && (x != 0 || fmt.has_zero) && (fmt.is_signed || !(x < 0))) return true;  // in range
    return checks::value_fits(fmt, checks::given_value(x), bits);
  }
};

template <class T>
inline T load_at(const Operand& op, std::size_t r, std::size_t c) {
  T x;
  std::memcpy(&x, op.data + static_cast<py::ssize_t>(r) * op.row_stride + static_cast<py::ssize_t>(c) * op.col_stride,
              sizeof x);
  return x;
}

template <class T, class Convert, class Store>
void convert_loop(const Operand& op, unsigned threads, FirstBad& bad, const Convert& convert, const Store& store) {
  // Locals, not op's fields: the stores could alias them as far as the compiler knows.
  const char* const data = op.data;
  const py::ssize_t rs = op.row_stride, cs = op.col_stride;
  const std::size_t cols = op.cols;
  constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
  parallel_ranges(threads, op.rows, std::max<std::size_t>(1, 16384 / std::max<std::size_t>(1, cols)),
                  [&, data, rs, cs, cols](std::size_t r0, std::size_t r1) {
                    std::size_t first_bad = none;
                    for (std::size_t r = r0; r < r1; ++r) {
                      const char* row = data + static_cast<py::ssize_t>(r) * rs;
                      for (std::size_t c = 0; c < cols; ++c) {
                        T x;
                        std::memcpy(&x, row + static_cast<py::ssize_t>(c) * cs, sizeof x);
                        std::uint64_t bits;
                        if (!convert(x, bits)) {
                          if (first_bad == none) first_bad = r * cols + c;
                          bits = 0;
                        }
                        store(r, c, bits);
                      }
                    }
                    if (first_bad != none) bad.offer(first_bad);
                  });
}

template <class Store>
void patterns_of(const Operand& op, const Format& fmt, Rounding mode, const char* field, unsigned threads,
                 const Store& store) {
  FirstBad bad;
  const std::uint64_t mask = fmt.width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << fmt.width) - 1;
  if (op.kind == ElementKind::Patterns) {
    auto check = [mask](auto x, std::uint64_t& bits) {
      bits = static_cast<std::uint64_t>(x);
      return (bits & ~mask) == 0;
    };
    switch (op.itemsize) {
      case 1: convert_loop<std::uint8_t>(op, threads, bad, check, store); break;
      case 2: convert_loop<std::uint16_t>(op, threads, bad, check, store); break;
      case 4: convert_loop<std::uint32_t>(op, threads, bad, check, store); break;
      default: convert_loop<std::uint64_t>(op, threads, bad, check, store); break;
    }
  } else if (op.kind == ElementKind::Values) {
    const models::Converter conv(fmt, mode, false);
    const ValueGate gate(fmt);
    auto value = [&conv, &gate](double x, std::uint64_t& bits) {
      bits = conv(x);
      return gate(x, bits);
    };
    switch (op.itemsize) {
      case 2: {
        const models::Decoder half(formats::fp16());  // numpy float16 is IEEE binary16
        convert_loop<std::uint16_t>(op, threads, bad,
                                    [&](std::uint16_t h, std::uint64_t& bits) { return value(half(h), bits); }, store);
        break;
      }
      case 4: convert_loop<float>(op, threads, bad, [&](float x, std::uint64_t& b) { return value(x, b); }, store); break;
      default: convert_loop<double>(op, threads, bad, value, store); break;
    }
  } else {  // signed integers: exact values, rounded once
    const ValueGate gate(fmt);
    auto integer = [&fmt, &gate, mode](std::int64_t x, std::uint64_t& bits) {
      const bool negative = x < 0;
      const std::uint64_t magnitude = negative ? std::uint64_t{0} - static_cast<std::uint64_t>(x) : static_cast<std::uint64_t>(x);
      const ExactValue v = magnitude == 0 ? ExactValue::zero() : ExactValue::finite(negative, BigInt(magnitude), 0);
      bits = round_bits(v, fmt, mode);
      return gate(static_cast<double>(x), bits);
    };
    switch (op.itemsize) {
      case 1: convert_loop<std::int8_t>(op, threads, bad, integer, store); break;
      case 2: convert_loop<std::int16_t>(op, threads, bad, integer, store); break;
      case 4: convert_loop<std::int32_t>(op, threads, bad, integer, store); break;
      default: convert_loop<std::int64_t>(op, threads, bad, integer, store); break;
    }
  }
  if (bad.index.load() != std::numeric_limits<std::size_t>::max()) throw_bad_element(op, fmt, mode, field, bad.index.load());
}

}  // namespace tcsim::python
