// An independent exact model of the AMD CDNA matrix-core datapaths, written from
// ../shared/docs/units.md section 3b (and X25's description of the CDNA3 v2 renormalization),
// with Boost rationals and its own bit decoding and rounding: it shares no code with sim/'s
// adder, codec or rounding, so that an agreement on random cases means something.
#pragma once
#include <boost/multiprecision/cpp_int.hpp>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

namespace tcsim::amd_model {

using Int = boost::multiprecision::cpp_int;
using Q = boost::multiprecision::cpp_rational;

// A binary floating-point encoding: sign, `ebits` exponent bits, `mbits` fraction bits.
// fnuz: AMD FNUZ fp8 (bias one larger than OCP's, 0x80 the only NaN, no Inf, no -0).
struct Enc {
  int ebits, mbits, bias;
  bool fnuz = false;
  int emin() const { return fnuz ? 1 - bias : 1 - bias; }
};
inline const Enc kF32{8, 23, 127}, kF64{11, 52, 1023}, kF16{5, 10, 15}, kBF16{8, 7, 127}, kE4M3Fnuz{4, 3, 8, true},
    kE5M2Fnuz{5, 2, 16, true};

struct Val {
  bool nan = false, inf = false, neg = false;
  Q v = 0;       // exact value (signed), finite only
  int lead = 0;  // exponent of the leading position, clamped below at emin (finite nonzero only)
  bool zero() const { return !nan && !inf && v == 0; }
};

inline Q pow2(int e) {
  Q r = 1;
  if (e >= 0) r = Q(Int(1) << e);
  else r = Q(Int(1), Int(1) << -e);
  return r;
}

inline Val decode(const Enc& f, std::uint64_t bits) {
  Val x;
  const int w = 1 + f.ebits + f.mbits;
  x.neg = (bits >> (w - 1)) & 1;
  const std::uint64_t ef = (bits >> f.mbits) & ((1ull << f.ebits) - 1);
  const std::uint64_t m = bits & ((1ull << f.mbits) - 1);
  if (f.fnuz) {
    if (bits == (1ull << (w - 1))) {
      x.nan = true;
      return x;
    }
  } else if (ef == (1ull << f.ebits) - 1) {
    (m ? x.nan : x.inf) = true;
    return x;
  }
  const int e = ef == 0 ? f.emin() : static_cast<int>(ef) - f.bias;
  const std::uint64_t sig = ef == 0 ? m : (m | (1ull << f.mbits));
  x.v = Q(Int(sig)) * pow2(e - f.mbits);
  if (x.neg) x.v = -x.v;
  x.lead = e;  // normal: exact; subnormal: emin (the clamp)
  return x;
}

// floor(log2 |q|) for q != 0.
inline int ilog2(const Q& q) {
  const Int n = abs(boost::multiprecision::numerator(q)), d = boost::multiprecision::denominator(q);
  int e = static_cast<int>(msb(n)) - static_cast<int>(msb(d));
  if (abs(q) < pow2(e)) --e;
  return e;
}

inline Int floor_div(const Q& q) {  // floor of a rational
  const Int n = boost::multiprecision::numerator(q), d = boost::multiprecision::denominator(q);
  Int r = n / d;  // truncates toward zero
  if (r * d != n && n < 0) r -= 1;
  return r;
}
inline Q floor_at(const Q& x, int lsb) { return Q(floor_div(x / pow2(lsb))) * pow2(lsb); }
inline Q trunc_at(const Q& x, int lsb) {
  const Q y = x / pow2(lsb);
  const Int n = boost::multiprecision::numerator(y), d = boost::multiprecision::denominator(y);
  return Q(Int(n / d)) * pow2(lsb);
}

// Round-to-nearest-even of x into binary32 (subnormals kept, overflow to Inf); the bits.
// flush: |x| < 2^-126 gives a zero of x's sign instead (before rounding).
inline std::uint32_t to_f32(const Q& x, bool neg_zero = false, bool flush = false) {
  if (x == 0) return neg_zero ? 0x80000000u : 0u;
  const bool neg = x < 0;
  const Q a = neg ? Q(-x) : x;
  const std::uint32_t s = neg ? 0x80000000u : 0u;
  const int e = ilog2(a);
  if (flush && e < -126) return s;
  const int q = std::max(e, -126) - 23;
  const Q n = a / pow2(q);
  Int r = floor_div(n);
  const Q frac = n - Q(r);
  if (frac > Q(1, 2) || (frac == Q(1, 2) && (r & 1) != 0)) r += 1;
  int lsb = q;
  if (r == (Int(1) << 24)) {
    r >>= 1;
    lsb += 1;
  }
  if (r == 0) return s;
  if (r < (Int(1) << 23)) return s | static_cast<std::uint32_t>(r);  // subnormal
  const int E = lsb + 23;
  if (E > 127) return s | 0x7f800000u;
  return s | (static_cast<std::uint32_t>(E + 127) << 23) | (static_cast<std::uint32_t>(r) & 0x7fffffu);
}

// The specials of one block: NaN if any NaN operand, Inf * 0, or Infs of both signs among the
// products and c; otherwise the Inf. `over`: products of magnitude >= 2^128 are Inf (CDNA3).
inline std::optional<std::uint32_t> specials(const std::vector<Val>& a, const std::vector<Val>& b, const Val& c,
                                             bool over) {
  bool nan = c.nan, pinf = c.inf && !c.neg, ninf = c.inf && c.neg;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].nan || b[i].nan) nan = true;
    const bool neg = a[i].neg != b[i].neg;
    if (a[i].inf || b[i].inf) {
      if (a[i].zero() || b[i].zero()) nan = true;
      else (neg ? ninf : pinf) = true;
    } else if (over && !a[i].zero() && !b[i].zero() && abs(a[i].v * b[i].v) >= pow2(128)) {
      (neg ? ninf : pinf) = true;
    }
  }
  if (nan || (pinf && ninf)) return 0x7fc00000u;
  if (pinf) return 0x7f800000u;
  if (ninf) return 0xff800000u;
  return std::nullopt;
}

// ---- CDNA1: c + the block's products, exact, one RNE; an exact zero is +0.
inline std::uint32_t cdna1_block(const std::vector<Val>& a, const std::vector<Val>& b, std::uint32_t c) {
  const Val cv = decode(kF32, c);
  if (auto s = specials(a, b, cv, false)) return *s;
  Q sum = cv.v;
  for (std::size_t i = 0; i < a.size(); ++i) sum += a[i].v * b[i].v;
  return to_f32(sum);
}

// ---- CDNA2: IEEE binary32 operations with flushing.
struct F32 {  // a binary32 value with its sign of zero
  Val x;
};
inline Val f32_val(std::uint32_t bits) { return decode(kF32, bits); }
inline std::uint32_t ftz_add(std::uint32_t x, std::uint32_t y) {
  const Val u = f32_val(x), v = f32_val(y);
  if (u.nan || v.nan || (u.inf && v.inf && u.neg != v.neg)) return 0x7fc00000u;
  if (u.inf) return x;
  if (v.inf) return y;
  const Q s = u.v + v.v;
  if (s == 0) return (u.zero() && v.zero() && u.neg && v.neg) ? 0x80000000u : 0u;
  return to_f32(s, false, true);
}
inline std::uint32_t ftz_mul(const Val& a, const Val& b) {
  if (a.nan || b.nan || ((a.inf || b.inf) && (a.zero() || b.zero()))) return 0x7fc00000u;
  const bool neg = a.neg != b.neg;
  if (a.inf || b.inf) return neg ? 0xff800000u : 0x7f800000u;
  const Q p = a.v * b.v;
  if (p == 0) return neg ? 0x80000000u : 0u;
  return to_f32(p, false, true);
}
// Inputs decoded with subnormals flushed to +0.
inline Val flush_in(const Enc& f, std::uint64_t bits) {
  Val x = decode(f, bits);
  if (!x.nan && !x.inf && x.v != 0 && abs(x.v) < pow2(f.emin())) x = Val{};
  return x;
}
// acc + ((p0 + p1) + (p2 + p3)) (k = 4) or acc + (p0 + p1) (k = 2).
inline std::uint32_t cdna2_block(const std::vector<Val>& a, const std::vector<Val>& b, std::uint32_t acc) {
  std::vector<std::uint32_t> p;
  for (std::size_t i = 0; i < a.size(); ++i) p.push_back(ftz_mul(a[i], b[i]));
  std::uint32_t s = ftz_add(p[0], p[1]);
  if (p.size() == 4) s = ftz_add(s, ftz_add(p[2], p[3]));
  return ftz_add(acc, s);
}

// ---- CDNA3: truncated fused products, c after with floored operands.
struct Cdna3 {
  int groups = 1;       // 2: even/odd (fp8)
  bool v2 = true;       // sum at 32 bits + renormalization at 31 (v2), or at 31 bits (v1)
  bool drop_c = false;  // fp8: c dropped when e_c < E - 25
  bool over = true;     // products >= 2^128 are Inf
};
inline std::uint32_t cdna3_block(const std::vector<Val>& a, const std::vector<Val>& b, std::uint32_t c,
                                 const Cdna3& m) {
  const Val cv = decode(kF32, c);
  if (auto s = specials(a, b, cv, m.over)) return *s;
  const int F = 24;
  std::optional<int> e_dot;
  std::vector<std::pair<Q, int>> group_sums;  // (sum, own maximum)
  for (int g = 0; g < m.groups; ++g) {
    std::optional<int> e;
    for (std::size_t i = g; i < a.size(); i += m.groups)
      if (!a[i].zero() && !b[i].zero()) e = std::max(e.value_or(-100000), a[i].lead + b[i].lead);
    if (!e) continue;
    Q s = 0;
    for (std::size_t i = g; i < a.size(); i += m.groups)
      if (!a[i].zero() && !b[i].zero()) s += trunc_at(a[i].v * b[i].v, *e - F);
    group_sums.push_back({s, *e});
    e_dot = std::max(e_dot.value_or(-100000), *e);
  }
  Q S = 0;
  for (const auto& [s, e] : group_sums) S += group_sums.size() == 1 ? s : floor_at(s, *e_dot - F);
  const int e_c = cv.v == 0 ? -126 : cv.lead;
  const int E = e_dot ? std::max(*e_dot, e_c) : e_c;
  const Q Sr = floor_at(S, E - (m.v2 ? 32 : 31));
  Q cr = floor_at(cv.v, E - 24);
  if (m.drop_c && e_c < E - 25) cr = 0;
  Q t = Sr + cr;
  if (m.v2 && t != 0) t = floor_at(t, std::max(ilog2(t), -126) - 31);
  return to_f32(t);
}

// A chain of blocks of k products (the last one padded with +0 products), each result the
// next block's c.
template <class Block>
std::uint32_t chain(const Enc& in, const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b,
                    std::uint32_t c, std::size_t k, bool flush, Block block) {
  std::uint32_t acc = c;
  if (flush) {
    const Val cv = decode(kF32, c);
    if (!cv.nan && !cv.inf && cv.v != 0 && abs(cv.v) < pow2(-126)) acc = 0;
  }
  const std::size_t K = a.size();
  const std::size_t blocks = K == 0 ? 1 : (K + k - 1) / k;
  for (std::size_t blk = 0; blk < blocks; ++blk) {
    std::vector<Val> va, vb;
    for (std::size_t i = blk * k; i < blk * k + k; ++i) {
      if (i < K) {
        va.push_back(flush ? flush_in(in, a[i]) : decode(in, a[i]));
        vb.push_back(flush ? flush_in(in, b[i]) : decode(in, b[i]));
      } else {
        va.push_back(Val{});
        vb.push_back(Val{});
      }
    }
    acc = block(va, vb, acc);
  }
  return acc;
}

}  // namespace tcsim::amd_model
