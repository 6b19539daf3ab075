// The fp16 / fp32 variants of blanchard2020 Table 3.3 (recursive summation by IEEE FMAs in
// k order, no tensor core) and the unit's GEMM: one Unit::gemm (blanchard2020 Algorithm 3.1)
// or slices of k through the unit combined on the host (split-K; FABsum, mary2021).
#include <algorithm>
#include <bit>
#include <cmath>

#include "gemm_impl.hpp"

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tcsim::models::gemm_detail {

namespace {

// Register tiles of the FMA chains: kRows rows of A against kCols columns of B, every
// element's chain running over t = 0 .. k-1 in order (the order is all that fixes the result:
// the tiling only changes which independent chains run side by side).
constexpr std::size_t kRows = 4, kCols = 16;
constexpr std::size_t kTaskRows = 32;  // rows per parallel task (B's column panel reused)

// One register tile of rows r0 .. r0+rn-1 and columns j0 .. j0+jn-1 of D = fl32 FMA chains:
// D[i][j] = fl32(a_(k-1) b_(k-1) + ... fl32(a_1 b_1 + fl32(a_0 b_0 + C)) ...).
void fp32_tile(std::size_t r0, std::size_t rn, std::size_t j0, std::size_t jn, std::size_t n, std::size_t k,
               const float* A, const float* B, float* D) {
  float acc[kRows][kCols];
  for (std::size_t r = 0; r < rn; ++r)
    for (std::size_t j = 0; j < jn; ++j) acc[r][j] = D[(r0 + r) * n + j0 + j];
  for (std::size_t t = 0; t < k; ++t) {
    const float* b = B + t * n + j0;
    for (std::size_t r = 0; r < rn; ++r) {
      const float a = A[(r0 + r) * k + t];
      for (std::size_t j = 0; j < jn; ++j) acc[r][j] = std::fmaf(a, b[j], acc[r][j]);
    }
  }
  for (std::size_t r = 0; r < rn; ++r)
    for (std::size_t j = 0; j < jn; ++j) D[(r0 + r) * n + j0 + j] = acc[r][j];
}

#if defined(__GNUC__) && defined(__x86_64__)
// The full 4 x 16 tile with AVX2 FMA instructions (IEEE binary32 FMAs, RNE: the same bits as
// std::fmaf), eight accumulators in registers.
// Bp: the 16 columns of the tile packed by rows of B (Bp[t * 16 + j] = B[t][j0 + j]).
[[gnu::target("avx2,fma")]] void fp32_tile_avx2(std::size_t r0, std::size_t j0, std::size_t n, std::size_t k,
                                                 const float* A, const float* Bp, float* D) {
  static_assert(kRows == 4 && kCols == 16);
  __m256 c[4][2];
  for (std::size_t r = 0; r < 4; ++r)
    for (std::size_t h = 0; h < 2; ++h) c[r][h] = _mm256_loadu_ps(D + (r0 + r) * n + j0 + 8 * h);
  const float* a0 = A + r0 * k;
  for (std::size_t t = 0; t < k; ++t) {
    const __m256 b0 = _mm256_loadu_ps(Bp + t * kCols), b1 = _mm256_loadu_ps(Bp + t * kCols + 8);
    for (std::size_t r = 0; r < 4; ++r) {
      const __m256 a = _mm256_broadcast_ss(a0 + r * k + t);
      c[r][0] = _mm256_fmadd_ps(a, b0, c[r][0]);
      c[r][1] = _mm256_fmadd_ps(a, b1, c[r][1]);
    }
  }
  for (std::size_t r = 0; r < 4; ++r)
    for (std::size_t h = 0; h < 2; ++h) _mm256_storeu_ps(D + (r0 + r) * n + j0 + 8 * h, c[r][h]);
}
bool host_has_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}
#endif

// Rows [i0, i1) of the fp32 variant, D holding C on entry. Bp: B packed by panels of kCols
// columns (panel q: Bp[q * k * kCols + t * kCols + j] = B[t][q * kCols + j], full panels only).
void fp32_rows(std::size_t i0, std::size_t i1, std::size_t n, std::size_t k, const float* A, const float* B,
               const float* Bp, float* D) {
#if defined(__GNUC__) && defined(__x86_64__)
  const bool simd = host_has_fma();
#else
  const bool simd = false;
#endif
  for (std::size_t j0 = 0; j0 < n; j0 += kCols) {
    const std::size_t jn = std::min(kCols, n - j0);
    for (std::size_t r0 = i0; r0 < i1; r0 += kRows) {
      const std::size_t rn = std::min(kRows, i1 - r0);
#if defined(__GNUC__) && defined(__x86_64__)
      if (simd && rn == kRows && jn == kCols) {
        fp32_tile_avx2(r0, j0, n, k, A, Bp + j0 * k, D);
        continue;
      }
#endif
      fp32_tile(r0, rn, j0, jn, n, k, A, B, D);
    }
  }
}

// The same chains with binary16 FMAs (fma_binary16: exact, RNE) on values held in binary64.
void fp16_rows(std::size_t i0, std::size_t i1, std::size_t n, std::size_t k, const double* A, const double* B,
               double* D) {
  for (std::size_t j0 = 0; j0 < n; j0 += kCols) {
    const std::size_t jn = std::min(kCols, n - j0);
    for (std::size_t r0 = i0; r0 < i1; r0 += kRows) {
      const std::size_t rn = std::min(kRows, i1 - r0);
      double acc[kRows][kCols] = {};
      for (std::size_t r = 0; r < rn; ++r)
        for (std::size_t j = 0; j < jn; ++j) acc[r][j] = D[(r0 + r) * n + j0 + j];
      for (std::size_t t = 0; t < k; ++t) {
        const double* b = B + t * n + j0;
        for (std::size_t r = 0; r < rn; ++r) {
          const double a = A[(r0 + r) * k + t];
          for (std::size_t j = 0; j < jn; ++j) acc[r][j] = fma_binary16(a, b[j], acc[r][j]);
        }
      }
      for (std::size_t r = 0; r < rn; ++r)
        for (std::size_t j = 0; j < jn; ++j) D[(r0 + r) * n + j0 + j] = acc[r][j];
    }
  }
}

// C converted into `f` with the input rounding (+0 when C is empty).
Bits c_bits(const Problem& p, const Format& f) {
  if (p.C.empty()) return huge_vector<std::uint64_t>(p.m * p.n, f.zero(false));
  return convert(p.C, Converter(f, p.o.input_rounding, false), p.o.threads);
}

// x converted by `conv` and decoded again, as T (float or double: exact for the formats the
// variants accept). One pass, no pattern matrix.
template <class T>
std::vector<T> converted_values(std::span<const double> x, const Converter& conv, unsigned threads) {
  std::vector<T> v = huge_vector<T>(x.size());
  const Decoder decode(conv.format());
  parallel_ranges(threads, x.size(), 1 << 14, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) v[i] = static_cast<T>(decode(conv(x[i])));
  });
  return v;
}

}  // namespace

Product run_ieee(const Problem& p, GemmVariant v) {
  const std::size_t m = p.m, n = p.n, k = p.k;
  const unsigned th = p.o.threads;
  const Converter in(p.in, p.o.input_rounding, !p.o.subnormals);
  const bool half = v == GemmVariant::Fp16;
  const Format& acc = half ? formats::fp16() : formats::fp32();
  const Converter c_conv(acc, p.o.input_rounding, false);
  const std::vector<double> zeros;
  const std::span<const double> C = p.C.empty() ? std::span<const double>(zeros) : p.C;
  Product r;
  r.storage = acc.name;
  r.bits = huge_vector<std::uint64_t>(m * n);
  const std::size_t tasks = (m + kTaskRows - 1) / kTaskRows;
  if (half) {
    // Operands and C decoded once into binary64 (binary16 values are exact there).
    const std::vector<double> Av = converted_values<double>(p.A, in, th), Bv = converted_values<double>(p.B, in, th);
    r.D = p.C.empty() ? huge_vector<double>(m * n, 0.0) : converted_values<double>(C, c_conv, th);
    parallel_ranges(th, tasks, 1, [&](std::size_t b, std::size_t e) {
      fp16_rows(b * kTaskRows, std::min(m, e * kTaskRows), n, k, Av.data(), Bv.data(), r.D.data());
    });
    const Converter to16(acc, Rounding::NearestEven, false);  // exact: the values are binary16
    parallel_ranges(th, m * n, 1 << 14, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) r.bits[i] = to16(r.D[i]);  // NaN: the canonical pattern
    });
    return r;
  }
  // Operands decoded once into binary32 (`in` is exact there: checked by the caller).
  const std::vector<float> Af = converted_values<float>(p.A, in, th), Bf = converted_values<float>(p.B, in, th);
  std::vector<float> Df = p.C.empty() ? huge_vector<float>(m * n, 0.0f) : converted_values<float>(C, c_conv, th);
  // B by panels of kCols columns: each tile streams its panel contiguously.
  const std::size_t panels = n / kCols;
  std::vector<float> Bp = huge_vector<float>(panels * k * kCols);
  parallel_ranges(th, panels, 1, [&](std::size_t b, std::size_t e) {
    for (std::size_t q = b; q < e; ++q)
      for (std::size_t t = 0; t < k; ++t)
        std::copy_n(Bf.data() + t * n + q * kCols, kCols, Bp.data() + (q * k + t) * kCols);
  });
  parallel_ranges(th, tasks, 1, [&](std::size_t b, std::size_t e) {
    fp32_rows(b * kTaskRows, std::min(m, e * kTaskRows), n, k, Af.data(), Bf.data(), Bp.data(), Df.data());
  });
  r.D = huge_vector<double>(m * n);
  parallel_ranges(th, m * n, 1 << 14, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      r.bits[i] = std::isnan(Df[i]) ? acc.canonical_nan() : std::bit_cast<std::uint32_t>(Df[i]);
      r.D[i] = Df[i];
    }
  });
  return r;
}

namespace {

// Split-K and FABsum: slices of `len` products (the last one shorter), each computed from
// C = +0 by `slice(k0, kk, values)`, added to the running sum in slice order: binary32 RNE
// (split-K; FABsum with fabsum_combine fp32) or binary64 RNE (FABsum with fp64). Both sums are
// exact roundings of the exact sum of two numbers (add_binary32: round to odd, then to
// binary32; binary64: the host addition), whatever format the slices are held in.
template <class Slice>
Product combine_slices(const Problem& p, Slice&& slice) {
  const std::size_t m = p.m, n = p.n, k = p.k;
  const GemmOptions& o = p.o;
  const unsigned th = o.threads;
  const std::size_t len = o.split_k > 1 ? (k + static_cast<std::size_t>(o.split_k) - 1) / static_cast<std::size_t>(o.split_k)
                                        : static_cast<std::size_t>(o.fabsum_block);
  const bool fp64 = o.split_k <= 1 && parse_format(o.fabsum_combine, "fabsum_combine") == formats::fp64();
  Product r;
  std::vector<double> acc64;
  std::vector<float> acc32;
  if (fp64) {
    acc64.assign(m * n, 0.0);
    if (!p.C.empty()) std::copy(p.C.begin(), p.C.end(), acc64.begin());
  } else {
    const Bits C32 = c_bits(p, formats::fp32());
    acc32.resize(m * n);
    for (std::size_t e = 0; e < m * n; ++e) acc32[e] = std::bit_cast<float>(static_cast<std::uint32_t>(C32[e]));
  }
  std::vector<double> S;
  for (std::size_t k0 = 0; k0 < k; k0 += len) {
    const std::size_t kk = std::min(len, k - k0);
    slice(k0, kk, S);
    ++r.calls;
    parallel_ranges(th, m * n, 1 << 14, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) {
        if (fp64)
          acc64[i] += S[i];
        else
          acc32[i] = add_binary32(acc32[i], S[i]);
      }
    });
  }
  r.bits.resize(m * n);
  if (fp64) {
    r.D = std::move(acc64);
    for (std::size_t e = 0; e < m * n; ++e)
      r.bits[e] = std::isnan(r.D[e]) ? formats::fp64().canonical_nan() : std::bit_cast<std::uint64_t>(r.D[e]);
    r.storage = formats::fp64().name;
  } else {
    r.D.resize(m * n);
    for (std::size_t e = 0; e < m * n; ++e) {
      r.D[e] = acc32[e];
      r.bits[e] = std::isnan(acc32[e]) ? formats::fp32().canonical_nan() : std::bit_cast<std::uint32_t>(acc32[e]);
    }
    r.storage = formats::fp32().name;
  }
  return r;
}

// Columns [k0, k0 + kk) of the m x k row-major matrix A, as an m x kk matrix.
template <class T>
std::vector<T> column_slice(std::span<const T> A, std::size_t m, std::size_t k, std::size_t k0, std::size_t kk) {
  std::vector<T> s(m * kk);
  for (std::size_t i = 0; i < m; ++i)
    std::copy_n(A.begin() + static_cast<std::ptrdiff_t>(i * k + k0), kk, s.begin() + static_cast<std::ptrdiff_t>(i * kk));
  return s;
}

}  // namespace

Product run_ieee_sliced(const Problem& p, GemmVariant v) {
  GemmOptions whole = p.o;  // each slice is one IEEE FMA chain
  whole.split_k = 0;
  whole.fabsum_block = 0;
  Product r = combine_slices(p, [&](std::size_t k0, std::size_t kk, std::vector<double>& S) {
    const std::vector<double> As = column_slice(p.A, p.m, p.k, k0, kk);
    const Problem sub{p.unit, p.in, p.out, p.m, p.n, kk, As, p.B.subspan(k0 * p.n, kk * p.n), {}, whole};
    S = run_ieee(sub, v).D;
  });
  r.calls = 0;  // no GEMM ran through the unit
  return r;
}

Product run_unit(const Problem& p) {
  const std::size_t m = p.m, n = p.n, k = p.k;
  const GemmOptions& o = p.o;
  const unsigned th = o.threads;
  const Format& in_b = o.b_format ? *o.b_format : p.in;  // mixed operand formats: B in its own
  const Converter in(p.in, o.input_rounding, !o.subnormals), conv_b(in_b, o.input_rounding, !o.subnormals);
  const Bits A = convert(p.A, in, th), B = convert(p.B, conv_b, th);
  if (o.split_k <= 1 && o.fabsum_block <= 0) {  // blanchard2020 Algorithm 3.1: all of k in the unit
    Product r;
    r.bits = huge_vector<std::uint64_t>(m * n);
    p.unit.gemm_into(p.in, in_b, p.out, m, n, k, A, B, c_bits(p, p.out), r.bits, o.instruction, th);
    r.D = values_of(r.bits, p.out, th);
    r.storage = p.out.name;
    r.calls = 1;
    return r;
  }
  const Bits zero = huge_vector<std::uint64_t>(m * n, p.out.zero(false));
  Bits S = huge_vector<std::uint64_t>(m * n);
  const Decoder decode(p.out);
  return combine_slices(p, [&](std::size_t k0, std::size_t kk, std::vector<double>& values) {
    const Bits As = column_slice<std::uint64_t>(A, m, k, k0, kk);
    p.unit.gemm_into(p.in, in_b, p.out, m, n, kk, As, std::span<const std::uint64_t>(B).subspan(k0 * n, kk * n), zero,
                     S, o.instruction, th);
    values.resize(m * n);
    parallel_ranges(th, m * n, 1 << 14, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) values[i] = decode(S[i]);
    });
  });
}

}  // namespace tcsim::models::gemm_detail
