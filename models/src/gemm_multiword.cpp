// Multiword GEMM: A and B split into p words of the input format, word products through the
// unit (mary2021; scaled words: mary2024 eq. (4.3)-(4.7)).
//
// Words, 0-based i = 0 .. p-1 (gemm.hpp counts from 1), with t the precision of `in` and
// u = 2^-t its unit roundoff:
//   unscaled (mary2021; mary2024 eq. (4.1)):  w_i = fl(R_i),          R_{i+1} = R_i - w_i
//   scaled   (mary2024 eq. (4.3), (4.5), (4.6)): w_i = fl(R_i / u^i), R_{i+1} = R_i - u^i w_i
// with R_0 = x (binary64) and fl the conversion into `in` (input_rounding, subnormals flushed
// when asked). Eq. (4.3) prints the residual as w - sum w^(j); the u^j factors of eq. (4.4) and
// of the induction (4.8)-(4.11) (x^(l+1) = fl(Delta x^(l) / u^(l+1))) are meant, and used here.
// The residuals are exact: R_i / u^i is a binary64 scaling by a power of two and R - fl(R) is
// exact in binary64 for roundings to fewer bits, except when a directed rounding (or round to
// odd) lifts a value below the smallest subnormal of `in` to it; such elements (checked by
// the TwoSum error) are split again with ExactValue arithmetic. A word that is not finite
// (overflow of `in` without saturation) ends the splitting: the later words are +0.
//
// Products: (i, j) with i + j <= p - 1 (mary2024 eq. (4.7); mary2021: i + j <= p + 1 counting
// from 1), or all p^2. Order: SmallestFirst = decreasing i + j, LargestFirst = increasing
// i + j, and i increasing within equal i + j.
//   unscaled: accumulated through the unit's accumulator: the first product's GEMM gets C
//     (converted into `out`), each next one gets the previous D as its C; D is held in `out`.
//   scaled: mary2024 eq. (4.7) multiplies each product A^(i) B^(j), computed in the
//     accumulation format, by u^(i+j) before summing. A word product's scale cannot enter the
//     unit's accumulator (its C and D are in the scale of one product; rescaling the
//     accumulator by u between products would be a host operation that over/underflows in
//     `out`), so each product runs from C = +0 and the un-scaled products are summed in
//     binary64, RNE, after C (binary64, unconverted) in the same order: D is held in fp64.
#include <algorithm>
#include <bit>
#include <cmath>
#include <utility>

#include "gemm_impl.hpp"
#include "tcsim/sim/codec.hpp"

namespace tcsim::models::gemm_detail {

namespace {

constexpr int kMaxWords = 8;

// x * 2^e for an exact value (no rounding).
ExactValue scaled(ExactValue x, int e) {
  if (x.is_finite()) x.exponent += e;
  return x;
}

// Words of one element with ExactValue arithmetic (the reference of the fast path below).
void split_exact(double x, const Converter& conv, const Format& in, int p, int t, bool scale,
                 std::uint64_t* w) {
  ExactValue R = decode(formats::fp64(), bits_of_double(x));
  for (int i = 0; i < p; ++i) {
    const int e = scale ? i * t : 0;
    w[i] = conv(scaled(R, e));
    ExactValue W = decode(in, w[i]);
    if (!W.is_finite() && !W.is_zero()) {
      std::fill(w + i + 1, w + p, in.zero(false));
      return;
    }
    W = scaled(W, -e);
    W.negative = !W.negative;
    R = exact_add(R, W);
  }
}

// Words of one element in binary64; false when a step was not exact (then split_exact).
bool split_fast(double x, const Converter& conv, const Format& in, int p, int t, bool scale, std::uint64_t* w) {
  double R = x;
  for (int i = 0; i < p; ++i) {
    const int e = scale ? i * t : 0;
    const double y = R * pow2(e);  // R / u^i
    if (std::isfinite(R) && !std::isfinite(y)) return false;
    w[i] = conv(y);
    const double v = value_of(in, w[i]);
    if (!std::isfinite(v)) {
      std::fill(w + i + 1, w + p, in.zero(false));
      return true;
    }
    const double d = y - v;
    const double z = d - y;  // TwoSum error of y + (-v): zero iff d is exact
    if ((y - (d - z)) + (-v - z) != 0) return false;
    R = d * pow2(-e);
    if (R * pow2(e) != d) return false;  // underflow of binary64
  }
  return true;
}

std::vector<Bits> split_words(std::span<const double> x, const Problem& p) {
  const int words = p.o.words, t = p.in.precision;
  const Converter conv(p.in, p.o.input_rounding, !p.o.subnormals);
  std::vector<Bits> out;
  for (int i = 0; i < words; ++i) out.push_back(huge_vector<std::uint64_t>(x.size()));
  parallel_ranges(p.o.threads, x.size(), 1 << 13, [&](std::size_t b, std::size_t e) {
    std::uint64_t w[kMaxWords];
    for (std::size_t a = b; a < e; ++a) {
      if (!split_fast(x[a], conv, p.in, words, t, p.o.scaled_words, w))
        split_exact(x[a], conv, p.in, words, t, p.o.scaled_words, w);
      for (int i = 0; i < words; ++i) out[static_cast<std::size_t>(i)][a] = w[i];
    }
  });
  return out;
}

}  // namespace

Product run_multiword(const Problem& p) {
  const std::size_t m = p.m, n = p.n, k = p.k;
  const GemmOptions& o = p.o;
  const unsigned th = o.threads;
  const int words = o.words;
  const std::vector<Bits> Aw = split_words(p.A, p), Bw = split_words(p.B, p);

  std::vector<std::pair<int, int>> pairs;  // (i, j), i increasing within equal i + j
  for (int s = 0; s <= 2 * (words - 1); ++s)
    for (int i = 0; i < words; ++i)
      if (s - i >= 0 && s - i < words && (o.all_word_products || s <= words - 1)) pairs.emplace_back(i, s - i);
  if (o.word_order == WordOrder::SmallestFirst)
    std::stable_sort(pairs.begin(), pairs.end(),
                     [](auto x, auto y) { return x.first + x.second > y.first + y.second; });

  Product r;
  if (!o.scaled_words) {
    Bits acc = p.C.empty() ? Bits(m * n, p.out.zero(false))
                           : convert(p.C, Converter(p.out, o.input_rounding, false), th);
    Bits next = huge_vector<std::uint64_t>(m * n);
    for (auto [i, j] : pairs) {
      p.unit.gemm_into(p.in, p.out, m, n, k, Aw[static_cast<std::size_t>(i)], Bw[static_cast<std::size_t>(j)], acc,
                       next, o.instruction, th);
      std::swap(acc, next);
      ++r.calls;
    }
    r.D = values_of(acc, p.out, th);
    r.bits = std::move(acc);
    r.storage = p.out.name;
    return r;
  }
  const int t = p.in.precision;
  r.D = huge_vector<double>(m * n, 0.0);
  if (!p.C.empty()) std::copy(p.C.begin(), p.C.end(), r.D.begin());
  const Bits zero = huge_vector<std::uint64_t>(m * n, p.out.zero(false));
  Bits P = huge_vector<std::uint64_t>(m * n);
  const Decoder decode(p.out);
  for (auto [i, j] : pairs) {
    p.unit.gemm_into(p.in, p.out, m, n, k, Aw[static_cast<std::size_t>(i)], Bw[static_cast<std::size_t>(j)], zero, P,
                     o.instruction, th);
    ++r.calls;
    const double u_ij = pow2(-(i + j) * t);  // u^(i+j), mary2024 eq. (4.7)
    parallel_ranges(th, m * n, 1 << 14, [&](std::size_t b, std::size_t e) {
      for (std::size_t a = b; a < e; ++a) r.D[a] += decode(P[a]) * u_ij;
    });
  }
  r.bits.resize(m * n);
  for (std::size_t e = 0; e < m * n; ++e)
    r.bits[e] = std::isnan(r.D[e]) ? formats::fp64().canonical_nan() : std::bit_cast<std::uint64_t>(r.D[e]);
  r.storage = formats::fp64().name;
  return r;
}

}  // namespace tcsim::models::gemm_detail
