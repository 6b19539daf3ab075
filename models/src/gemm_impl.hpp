// Private parts of simulate_gemm (gemm.hpp), shared by gemm.cpp (validation, scaling,
// dispatch), gemm_convert.cpp (binary64 -> format conversions, exact host arithmetic),
// gemm_variants.cpp (fp16/fp32 variants, one unit GEMM, split-K, FABsum) and
// gemm_multiword.cpp (multiword splitting and accumulation).
#pragma once
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "tcsim/models/convert.hpp"
#include "tcsim/models/gemm.hpp"

namespace tcsim::models::gemm_detail {

using Bits = std::vector<std::uint64_t>;
// The conversions (public in convert.hpp), under their names here.
using models::Converter;
using models::Decoder;
using models::value_of;

// 2^q as binary64, -1022 <= q <= 1023.
inline double pow2(int q) { return std::bit_cast<double>(static_cast<std::uint64_t>(q + 1023) << 52); }

// mary2024 eq. (3.4): the power of two 2^e with theta / 2 < 2^e max_abs <= theta, i.e. the
// largest magnitude of the row (column) lands in (theta/2, theta] (section 3: "the maximum
// coefficient on each row of Lambda A and each column of B M is in (theta/2, theta]").
// 0 (scale 1) for zero rows/columns and rows holding Inf or NaN. Exact comparisons: ldexp
// of a binary64 value by a power of two is exact away from binary64's own limits.
inline int scale_exponent(double max_abs, double theta) {
  if (!(max_abs > 0) || !std::isfinite(max_abs)) return 0;
  int e = std::ilogb(theta) - std::ilogb(max_abs);
  while (std::ldexp(max_abs, e) > theta) --e;
  while (std::ldexp(max_abs, e + 1) <= theta) ++e;
  return e;
}

// x 2^e: a multiplication by an exact power of two where 2^e is a binary64 number (the same
// result as ldexp: exact unless the product over/underflows binary64), ldexp beyond.
inline double times_pow2(double x, int e) { return e >= -1022 && e <= 1023 ? x * pow2(e) : std::ldexp(x, e); }

// body(begin, end) over [0, count) in chunks of at least `grain`, on `threads` threads (0: all
// cores). Callers only write disjoint outputs, so the result does not depend on the split.
template <class Body>
void parallel_ranges(unsigned threads, std::size_t count, std::size_t grain, const Body& body) {
  if (count == 0) return;
  auto loop = [&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, count, grain),
                      [&](const tbb::blocked_range<std::size_t>& r) { body(r.begin(), r.end()); });
  };
  if (threads == 1 || count <= grain) {
    body(std::size_t{0}, count);
    return;
  }
  tbb::task_arena arena(threads ? static_cast<int>(threads) : tbb::task_arena::automatic);
  arena.execute(loop);
}

// A vector of `count` value-initialized elements whose pages are requested as transparent
// huge pages (advice only): first-touch page faults of 4 KiB pages cost as much as the
// conversions of a large GEMM's operands. The vector is an ordinary std::vector.
void advise_huge_pages(const void* data, std::size_t bytes);
template <class T>
std::vector<T> huge_vector(std::size_t count, const T& value = T{}) {
  std::vector<T> v;
  v.reserve(count);  // allocated, not touched
  advise_huge_pages(v.data(), count * sizeof(T));
  v.assign(count, value);
  return v;
}

Bits convert(std::span<const double> v, const Converter& c, unsigned threads);

std::vector<double> values_of(const Bits& bits, const Format& f, unsigned threads);

// Exact host arithmetic (inline: the fp16 variant runs them once per FMA).
// x + y rounded to odd at binary64 precision (x, y finite binary64): s = fl(x + y) and its
// TwoSum error t; when t != 0 and s is even, s moves one ulp towards t. A later rounding to
// p <= 51 bits of the result is the correct rounding of x + y (53 >= p + 2).
inline double sum_to_odd(double x, double y) {
  const double s = x + y;
  const double z = s - x;  // TwoSum (Knuth): s + t = x + y exactly when s is finite
  const double t = (x - (s - z)) + (y - z);
  const std::uint64_t sb = std::bit_cast<std::uint64_t>(s);
  // t is NaN when s is Inf or NaN: no comparison holds and s stays as it is.
  const bool inexact = t > 0 || t < 0;
  const std::uint64_t step = ((t > 0) == (s > 0)) ? 1 : ~std::uint64_t{0};  // +-1 ulp of |s| towards t
  return std::bit_cast<double>(inexact && (sb & 1) == 0 ? sb + step : sb);
}

// x rounded to binary16 with RNE, as binary64: subnormals, Inf on overflow, signed zeros,
// NaN for NaN. With 2^e <= |x| < 2^(e+1) and e clamped to [-14, 15], the binary16 quantum is
// 2^q, q = e - 10, and (|x| + C) - C with C = 1.5 2^(e+42) (ulp(C) = 2^q, C a multiple of
// 2^(q+1)) is |x| rounded to a multiple of 2^q by the binary64 addition's RNE, ties to an even
// multiple; |x| >= 2^16 lands above 65504 (or stays Inf / NaN).
inline double round_binary16(double x) {
  const double ax = std::fabs(x);
  int e = static_cast<int>(std::bit_cast<std::uint64_t>(ax) >> 52) - 1023;
  e = e < -14 ? -14 : (e > 15 ? 15 : e);
  const double C = std::bit_cast<double>((static_cast<std::uint64_t>(e + 42 + 1023) << 52) | (std::uint64_t{1} << 51));
  double r = (ax + C) - C;
  if (r > 65504.0) r = std::numeric_limits<double>::infinity();  // RNE overflow: |x| >= 65520
  return std::copysign(r, x);
}

// fl16(a b + c): one IEEE binary16 FMA with RNE on binary16 values held in binary64. a b is
// exact in binary64 (22 bits); the sum rounded to odd at 53 bits, then to nearest at 11 bits,
// is the correctly rounded sum (round to odd then to nearest needs 53 >= 11 + 2). Remark: for
// binary16 operands the exact sum has at most about 33 significant bits whenever it lies within
// half a binary64 ulp of a binary16 midpoint, so fl(a b + c) in binary64 alone would already
// round correctly; the round-to-odd step costs little and does not rely on that argument.
inline double fma_binary16(double a, double b, double c) { return round_binary16(sum_to_odd(a * b, c)); }

// fl32(acc + s) with RNE for any binary64 s: the sum rounded to odd, then to binary32 by the
// host conversion (RNE; 53 >= 24 + 2). Here the round-to-odd step matters: a binary64 slice
// can carry bits far below binary32's (tested).
inline float add_binary32(float acc, double s) { return static_cast<float>(sum_to_odd(static_cast<double>(acc), s)); }

// A product computed by one path, before scaling is undone.
struct Product {
  std::vector<double> D;
  Bits bits;
  std::string storage;
  std::size_t calls = 0;
};

// What the paths need: the unit, the formats (out = the format the unit accumulates in), sizes
// and options. A, B, C are binary64 values (already scaled when scaling is on); C may be empty.
struct Problem {
  const Unit& unit;
  const Format& in;
  const Format& out;
  std::size_t m, n, k;
  std::span<const double> A, B, C;
  const GemmOptions& o;
};

// fp16 / fp32 variants (no tensor core): IEEE FMA chains in k order.
Product run_ieee(const Problem& p, GemmVariant v);
// The same in split-K / FABsum slices of k, each one chain from C = +0, combined as run_unit does.
Product run_ieee_sliced(const Problem& p, GemmVariant v);
// One Unit::gemm (blanchard2020 Algorithm 3.1), or split-K / FABsum slices of k.
Product run_unit(const Problem& p);
// Multiword products (mary2021; scaled words: mary2024 eq. (4.3)-(4.7)).
Product run_multiword(const Problem& p);

}  // namespace tcsim::models::gemm_detail
