// simulate_gemm (gemm.hpp): conversions into the unit's formats, the variants of
// blanchard2020 Table 3.3, split-K and FABsum (mary2021), multiword products (mary2021;
// scaled: mary2024 eq. (4.3)-(4.7)) and power-of-two scaling (mary2024 eq. (3.1)-(3.2)).
// Every tensor-core product is one Unit::gemm call (bit patterns, the unit's kernels).
#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "tcsim/models/gemm.hpp"
#include "tcsim/sim/codec.hpp"

namespace tcsim::models {

namespace {

using Bits = std::vector<std::uint64_t>;

// x (binary64) into f with `mode`; subnormal results flushed to signed zero when asked.
std::uint64_t to_format(double x, const Format& f, Rounding mode, bool subnormals) {
  const std::uint64_t b = round_bits(decode(formats::fp64(), bits_of_double(x)), f, mode);
  if (!subnormals && f.subnormals && ((b & ~f.sign_mask()) >> f.fraction_bits) == 0) return b & f.sign_mask();
  return b;
}

Bits convert(std::span<const double> v, const Format& f, Rounding mode, bool subnormals, unsigned threads) {
  Bits out(v.size());
  auto body = [&](std::size_t i) { out[i] = to_format(v[i], f, mode, subnormals); };
  tbb::task_arena arena(threads ? static_cast<int>(threads) : tbb::task_arena::automatic);
  arena.execute([&] { tbb::parallel_for(std::size_t{0}, v.size(), body); });
  return out;
}

std::vector<double> values(const Bits& b, const Format& f) {
  std::vector<double> v(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) v[i] = to_double(decode(f, b[i]));
  return v;
}

// fl16(a b + c) for binary16 a, b, c (IEEE FMA, RNE): a b is exact in binary64; s + t = a b + c
// exactly (TwoSum); s rounded to odd with t's sign, then RNE to binary16: correct because
// 53 >= 2 * 11 + 2 (round-to-odd then round-to-nearest does not double-round).
_Float16 fma16(_Float16 a, _Float16 b, _Float16 c) {
  const double p = static_cast<double>(a) * static_cast<double>(b), q = static_cast<double>(c);
  const double s = p + q;
  const double z = s - p, t = (p - (s - z)) + (q - z);
  double odd = s;
  if (t != 0 && std::isfinite(s) && (std::bit_cast<std::uint64_t>(s) & 1) == 0)
    odd = std::nextafter(s, t > 0 ? INFINITY : -INFINITY);
  return static_cast<_Float16>(odd);
}

struct Product {
  std::vector<double> D;
  Bits bits;
  std::string storage;
  std::size_t calls = 0;
};

void check_pair(const Unit& unit, const Format& in, const Format& out, const std::string& instruction,
                const char* variant) {
  try {
    (void)unit.datapath(in, out, instruction);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("variant ") + variant + " needs " + in.name + " -> " + out.name +
                                " on the unit: " + e.what());
  }
}

// The unit on converted operands: one Unit::gemm, or split-K / FABsum slices of k.
Product through_unit(const Unit& unit, const Format& in, const Format& out, std::size_t m, std::size_t n,
                     std::size_t k, const Bits& A, const Bits& B, std::span<const double> C, const GemmOptions& o) {
  Product r;
  const int slices = o.split_k > 1 ? o.split_k : 0;
  if (!slices && o.fabsum_block <= 0) {
    const Bits Cb = C.empty() ? Bits(m * n, 0) : convert(C, out, o.input_rounding, true, o.threads);
    r.bits = unit.gemm(in, out, m, n, k, A, B, Cb, o.instruction, o.threads);
    r.D = values(r.bits, out);
    r.storage = out.name;
    r.calls = 1;
    return r;
  }
  // Slices of k, each from C = 0 through the unit, combined in binary32 (split-K) or
  // fabsum_combine (FABsum) in slice order, RNE.
  const std::size_t len = slices ? (k + slices - 1) / slices : static_cast<std::size_t>(o.fabsum_block);
  const bool fp64 = !slices && o.fabsum_combine == "fp64";
  std::vector<double> acc(m * n, 0.0);
  for (std::size_t i = 0; i < m * n; ++i) acc[i] = C.empty() ? 0.0 : (fp64 ? C[i] : static_cast<float>(C[i]));
  for (std::size_t k0 = 0; k0 < k; k0 += len) {
    const std::size_t kk = std::min(len, k - k0);
    Bits As(m * kk), Bs(kk * n);
    for (std::size_t i = 0; i < m; ++i) std::copy_n(A.begin() + i * k + k0, kk, As.begin() + i * kk);
    std::copy_n(B.begin() + k0 * n, kk * n, Bs.begin());
    const Bits S = unit.gemm(in, out, m, n, kk, As, Bs, Bits(m * n, 0), o.instruction, o.threads);
    ++r.calls;
    for (std::size_t i = 0; i < m * n; ++i) {
      const double s = to_double(decode(out, S[i]));
      acc[i] = fp64 ? acc[i] + s : static_cast<double>(static_cast<float>(acc[i]) + static_cast<float>(s));
    }
  }
  r.D = acc;
  r.storage = fp64 ? "fp64" : "fp32";
  const Format& st = fp64 ? formats::fp64() : formats::fp32();
  r.bits.resize(m * n);
  for (std::size_t i = 0; i < m * n; ++i)
    r.bits[i] = fp64 ? bits_of_double(acc[i]) : std::bit_cast<std::uint32_t>(static_cast<float>(acc[i]));
  (void)st;
  return r;
}

// p words of x in `in` (mary2021; scaled: mary2024 eq. (4.3)-(4.7)): word i is
// fl(R_i u^-(i-1)) with R_1 = x and R_{i+1} = R_i - word_i u^(i-1) (exact in binary64: the
// error of a rounding to fewer bits).
std::vector<Bits> split_words(std::span<const double> x, const Format& in, int p, bool scaled, const GemmOptions& o) {
  const double u = std::ldexp(1.0, -(in.precision));  // unit roundoff 2^-t
  std::vector<Bits> words;
  std::vector<double> R(x.begin(), x.end());
  for (int i = 0; i < p; ++i) {
    const double s = scaled ? std::pow(u, -i) : 1.0;
    std::vector<double> scaled_r(R.size());
    for (std::size_t e = 0; e < R.size(); ++e) scaled_r[e] = R[e] * s;
    Bits w = convert(scaled_r, in, o.input_rounding, o.subnormals, o.threads);
    for (std::size_t e = 0; e < R.size(); ++e) R[e] -= to_double(decode(in, w[e])) / s;
    words.push_back(std::move(w));
  }
  return words;
}

Product multiword(const Unit& unit, const Format& in, const Format& out, std::size_t m, std::size_t n, std::size_t k,
                  std::span<const double> A, std::span<const double> B, std::span<const double> C, const GemmOptions& o) {
  const int p = o.words;
  const auto Aw = split_words(A, in, p, o.scaled_words, o), Bw = split_words(B, in, p, o.scaled_words, o);
  std::vector<std::pair<int, int>> pairs;
  for (int i = 1; i <= p; ++i)
    for (int j = 1; j <= p; ++j)
      if (o.all_word_products || i + j <= p + 1) pairs.push_back({i, j});
  std::stable_sort(pairs.begin(), pairs.end(), [&](auto x, auto y) {
    return o.word_order == WordOrder::SmallestFirst ? x.first + x.second > y.first + y.second
                                                    : x.first + x.second < y.first + y.second;
  });
  Product r;
  if (!o.scaled_words) {  // accumulated through the unit's C (the out format), in order
    Bits acc = C.empty() ? Bits(m * n, 0) : convert(C, out, o.input_rounding, true, o.threads);
    for (auto [i, j] : pairs) {
      acc = unit.gemm(in, out, m, n, k, Aw[i - 1], Bw[j - 1], acc, o.instruction, o.threads);
      ++r.calls;
    }
    r.bits = acc;
    r.D = values(acc, out);
    r.storage = out.name;
    return r;
  }
  // Scaled words: each product from C = 0, un-scaled by u^(i+j-2) and summed in binary64
  // (the scale factors do not enter the unit's accumulator).
  const double u = std::ldexp(1.0, -(in.precision));
  r.D.assign(m * n, 0.0);
  for (std::size_t e = 0; e < m * n && !C.empty(); ++e) r.D[e] = C[e];
  for (auto [i, j] : pairs) {
    const Bits P = unit.gemm(in, out, m, n, k, Aw[i - 1], Bw[j - 1], Bits(m * n, 0), o.instruction, o.threads);
    ++r.calls;
    const double s = std::pow(u, i + j - 2);
    for (std::size_t e = 0; e < m * n; ++e) r.D[e] += to_double(decode(out, P[e])) * s;
  }
  r.storage = "fp64";
  r.bits.resize(m * n);
  for (std::size_t e = 0; e < m * n; ++e) r.bits[e] = bits_of_double(r.D[e]);
  return r;
}

Product ieee_variant(GemmVariant v, const Format& in, std::size_t m, std::size_t n, std::size_t k,
                     std::span<const double> A, std::span<const double> B, std::span<const double> C,
                     const GemmOptions& o) {
  const Bits Ab = convert(A, in, o.input_rounding, o.subnormals, o.threads),
             Bb = convert(B, in, o.input_rounding, o.subnormals, o.threads);
  const std::vector<double> Av = values(Ab, in), Bv = values(Bb, in);
  Product r;
  r.D.resize(m * n);
  r.bits.resize(m * n);
  const Format& acc = v == GemmVariant::Fp16 ? formats::fp16() : formats::fp32();
  const std::vector<double> Cv =
      C.empty() ? std::vector<double>(m * n, 0.0) : values(convert(C, acc, o.input_rounding, true, o.threads), acc);
  auto row = [&](std::size_t i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (v == GemmVariant::Fp16) {
        _Float16 d = static_cast<_Float16>(Cv[i * n + j]);
        for (std::size_t t = 0; t < k; ++t)
          d = fma16(static_cast<_Float16>(Av[i * k + t]), static_cast<_Float16>(Bv[t * n + j]), d);
        r.D[i * n + j] = static_cast<double>(d);
        r.bits[i * n + j] = std::bit_cast<std::uint16_t>(d);
      } else {
        float d = static_cast<float>(Cv[i * n + j]);
        for (std::size_t t = 0; t < k; ++t)
          d = std::fmaf(static_cast<float>(Av[i * k + t]), static_cast<float>(Bv[t * n + j]), d);
        r.D[i * n + j] = d;
        r.bits[i * n + j] = std::bit_cast<std::uint32_t>(d);
      }
    }
  };
  tbb::task_arena arena(o.threads ? static_cast<int>(o.threads) : tbb::task_arena::automatic);
  arena.execute([&] { tbb::parallel_for(std::size_t{0}, m, row); });
  r.storage = acc.name;
  return r;
}

// Powers of two s with s * max|x| <= theta (1 for zero rows/columns).
double power_scale(double max_abs, double theta) {
  if (max_abs == 0 || !std::isfinite(max_abs)) return 1.0;
  return std::ldexp(1.0, static_cast<int>(std::floor(std::log2(theta / max_abs))));
}

}  // namespace

std::string variant_name(GemmVariant v) {
  switch (v) {
    case GemmVariant::Unit: return "unit";
    case GemmVariant::Fp16: return "fp16";
    case GemmVariant::Tc16: return "tc16";
    case GemmVariant::Tc32: return "tc32";
    case GemmVariant::Fp32: return "fp32";
  }
  return "unit";
}

GemmVariant parse_variant(std::string_view text, std::string_view field) {
  for (GemmVariant v : {GemmVariant::Unit, GemmVariant::Fp16, GemmVariant::Tc16, GemmVariant::Tc32, GemmVariant::Fp32})
    if (text == variant_name(v)) return v;
  throw std::invalid_argument(std::string(field) + ": '" + std::string(text) +
                              "' is not a variant; allowed: unit, fp16, tc16, tc32, fp32");
}

GemmResult simulate_gemm(const Unit& unit, const Format& in, const Format& out, std::size_t m, std::size_t n,
                         std::size_t k, std::span<const double> A, std::span<const double> B,
                         std::span<const double> C, const GemmOptions& options) {
  GemmOptions o = options;
  auto need = [](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument(what);
  };
  need(m > 0 && n > 0 && k > 0, "m, n and k must be positive, got " + std::to_string(m) + ", " + std::to_string(n) +
                                    ", " + std::to_string(k));
  need(A.size() == m * k, "A has " + std::to_string(A.size()) + " entries; m * k = " + std::to_string(m * k));
  need(B.size() == k * n, "B has " + std::to_string(B.size()) + " entries; k * n = " + std::to_string(k * n));
  need(C.empty() || C.size() == m * n,
       "C has " + std::to_string(C.size()) + " entries; m * n = " + std::to_string(m * n) + " (or none: C = 0)");
  need(o.words >= 1 && o.words <= 8, "words must be between 1 and 8, got " + std::to_string(o.words));
  need(o.split_k >= 0 && o.split_k <= static_cast<long long>(k),
       "split_k must be between 1 and k = " + std::to_string(k) + ", got " + std::to_string(o.split_k));
  need(o.fabsum_block >= 0, "fabsum_block must be positive, got " + std::to_string(o.fabsum_block));
  need(o.fabsum_combine == "fp32" || o.fabsum_combine == "fp64",
       "fabsum_combine: '" + o.fabsum_combine + "' is not allowed; allowed: fp32, fp64");
  need(!(o.split_k > 1 && o.fabsum_block > 0), "split_k and fabsum_block cannot be combined; choose one");
  need(!(o.words > 1 && (o.split_k > 1 || o.fabsum_block > 0)), "words > 1 cannot be combined with split_k or fabsum_block");

  GemmVariant v = o.variant;
  if (v == GemmVariant::Unit) v = out == formats::fp16() ? GemmVariant::Tc16 : GemmVariant::Tc32;
  const bool ieee = v == GemmVariant::Fp16 || v == GemmVariant::Fp32;
  need(!(ieee && (o.words > 1 || o.split_k > 1 || o.fabsum_block > 0)),
       "variant " + variant_name(v) + " (no tensor core) cannot be combined with words, split_k or fabsum_block");
  if (v == GemmVariant::Fp16)
    need(in == formats::fp16(), "variant fp16 needs --in fp16 (binary16 recursive summation), got " + in.name);
  if (v == GemmVariant::Fp32)
    need(in.precision <= 24 && in.emax <= 127 && in.emin - (in.precision - 1) >= -149,
         "variant fp32 needs an input format exact in binary32, got " + in.name);
  const Format& acc_out = v == GemmVariant::Tc16 ? formats::fp16() : (v == GemmVariant::Tc32 ? formats::fp32() : out);
  if (o.variant == GemmVariant::Unit && !(out == formats::fp16() || out == formats::fp32())) {
    // the unit's own output format
  }
  const Format& unit_out = o.variant == GemmVariant::Unit ? out : acc_out;
  if (!ieee) check_pair(unit, in, unit_out, o.instruction, variant_name(v).c_str());

  // Scaling (mary2024 eq. (3.1)-(3.2)): A <- D_A A, B <- B D_B with powers of two bringing
  // each row of A / column of B to at most theta = min(f_max, sqrt(F_max / k)).
  std::vector<double> As(A.begin(), A.end()), Bs(B.begin(), B.end()), Cs(C.begin(), C.end());
  std::vector<double> ra(m, 1.0), cb(n, 1.0);
  if (o.scaling) {
    const double f_max = to_double(decode(in, in.max_finite(false)));
    const double F_max = to_double(decode(unit_out, unit_out.max_finite(false)));
    const double theta = std::min(f_max, std::sqrt(F_max / static_cast<double>(k)));
    for (std::size_t i = 0; i < m; ++i) {
      double mx = 0;
      for (std::size_t t = 0; t < k; ++t) mx = std::max(mx, std::fabs(A[i * k + t]));
      ra[i] = power_scale(mx, theta);
      for (std::size_t t = 0; t < k; ++t) As[i * k + t] *= ra[i];
    }
    for (std::size_t j = 0; j < n; ++j) {
      double mx = 0;
      for (std::size_t t = 0; t < k; ++t) mx = std::max(mx, std::fabs(B[t * n + j]));
      cb[j] = power_scale(mx, theta);
      for (std::size_t t = 0; t < k; ++t) Bs[t * n + j] *= cb[j];
    }
    for (std::size_t i = 0; i < m && !Cs.empty(); ++i)
      for (std::size_t j = 0; j < n; ++j) Cs[i * n + j] *= ra[i] * cb[j];
  }

  Product p;
  if (ieee) {
    p = ieee_variant(v, in, m, n, k, As, Bs, Cs, o);
  } else if (o.words > 1) {
    p = multiword(unit, in, unit_out, m, n, k, As, Bs, Cs, o);
  } else {
    const Bits Ab = convert(As, in, o.input_rounding, o.subnormals, o.threads),
               Bb = convert(Bs, in, o.input_rounding, o.subnormals, o.threads);
    p = through_unit(unit, in, unit_out, m, n, k, Ab, Bb, Cs, o);
  }

  GemmResult r;
  r.m = m, r.n = n, r.k = k;
  r.variant = variant_name(v);
  r.path = ieee ? "ieee" : unit.batch_path(in, unit_out, o.instruction);
  r.unit_calls = ieee ? 0 : p.calls;
  r.D = std::move(p.D);
  r.bits = std::move(p.bits);
  r.storage = p.storage;
  if (o.scaling) {  // D = D_A^-1 D' D_B^-1: exact powers of two in binary64
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) r.D[i * n + j] /= ra[i] * cb[j];
    r.storage = "fp64";
    for (std::size_t e = 0; e < m * n; ++e) r.bits[e] = bits_of_double(r.D[e]);
  }
  return r;
}

}  // namespace tcsim::models
