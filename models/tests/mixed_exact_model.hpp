// An independent exact model of the datapaths that take a and b in different formats
// (issue 24 part 2): the NVIDIA fused block with c inside (RTX Blackwell fp8 mma.sync, B200
// tcgen05 kind::f8f6f4; units.md s2 and 3b) and, through amd_exact_model.hpp's cdna3_block,
// CDNA3's fp8_bf8 / bf8_fp8 MFMA; the block-scaled kind::mxf8f6f4 rows with each operand's
// ue8m0 scales (scaled, chain_scaled). Written from units.md with Boost rationals and its own
// decoding and rounding: it shares no code with sim/'s adder, codec or rounding.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "amd_exact_model.hpp"

namespace tcsim::mixed_model {

using amd_model::Int;
using amd_model::pow2;
using amd_model::Q;
using amd_model::Val;

// Where a format keeps its special values: IEEE (top exponent field: Inf and NaN), OCP E4M3
// (only S.1111.111 is NaN, no Inf), AMD FNUZ (0x80 the only NaN, no Inf, no -0), none (fp6,
// fp4: every pattern is a finite number).
enum class Specials { Ieee, E4m3, Fnuz, None };

struct Enc {
  int ebits, mbits, bias;
  Specials sp;
  int width() const { return 1 + ebits + mbits; }
  int emin() const { return 1 - bias; }
  int emax() const { return (1 << ebits) - 1 - bias - (sp == Specials::Ieee ? 1 : 0); }
};
inline const Enc kE4m3{4, 3, 7, Specials::E4m3}, kE5m2{5, 2, 15, Specials::Ieee}, kE2m3{2, 3, 1, Specials::None},
    kE3m2{3, 2, 3, Specials::None}, kE2m1{2, 1, 1, Specials::None}, kE4m3Fnuz{4, 3, 8, Specials::Fnuz},
    kE5m2Fnuz{5, 2, 16, Specials::Fnuz}, kF32{8, 23, 127, Specials::Ieee}, kF16{5, 10, 15, Specials::Ieee};

inline Val decode(const Enc& f, std::uint64_t bits) {
  Val x;
  const int w = f.width();
  x.neg = (bits >> (w - 1)) & 1;
  const std::uint64_t ef = (bits >> f.mbits) & ((1ull << f.ebits) - 1);
  const std::uint64_t m = bits & ((1ull << f.mbits) - 1);
  const std::uint64_t top = (1ull << f.ebits) - 1;
  switch (f.sp) {
    case Specials::Ieee:
      if (ef == top) {
        (m ? x.nan : x.inf) = true;
        return x;
      }
      break;
    case Specials::E4m3:
      if (ef == top && m == (1ull << f.mbits) - 1) {
        x.nan = true;
        return x;
      }
      break;
    case Specials::Fnuz:
      if (bits == (1ull << (w - 1))) {
        x.nan = true;
        return x;
      }
      break;
    case Specials::None: break;
  }
  const int e = ef == 0 ? f.emin() : static_cast<int>(ef) - f.bias;
  const std::uint64_t sig = ef == 0 ? m : (m | (1ull << f.mbits));
  x.v = Q(Int(sig)) * pow2(e - f.mbits);
  if (x.neg) x.v = -x.v;
  x.lead = e;  // normal: exact; subnormal: emin
  return x;
}

// x into an IEEE output format (fp32, fp16): toward zero (rz) or to nearest even, subnormals
// kept, a result beyond the largest finite value is Inf in both modes (the NVIDIA rule), an
// exact zero is +0, a nonzero x that rounds to zero keeps its sign.
inline std::uint64_t round_out(const Q& x, const Enc& o, bool rz) {
  if (x == 0) return 0;
  const bool neg = x < 0;
  const Q a = neg ? Q(-x) : x;
  const std::uint64_t s = neg ? (1ull << (o.width() - 1)) : 0;
  const int e = amd_model::ilog2(a);
  const int q = std::max(e, o.emin()) - o.mbits;
  const Q n = a / pow2(q);
  Int r = amd_model::floor_div(n);
  const Q frac = n - Q(r);
  if (!rz && (frac > Q(1, 2) || (frac == Q(1, 2) && (r & 1) != 0))) r += 1;
  int lsb = q;
  if (r == (Int(1) << (o.mbits + 1))) {
    r >>= 1;
    lsb += 1;
  }
  if (r == 0) return s;
  const std::uint64_t ri = static_cast<std::uint64_t>(r);
  if (r < (Int(1) << o.mbits)) return s | ri;  // subnormal
  const int E = lsb + o.mbits;
  const std::uint64_t inf = ((1ull << o.ebits) - 1) << o.mbits;
  if (E > o.emax()) return s | inf;
  return s | (static_cast<std::uint64_t>(E + o.bias) << o.mbits) | (ri & ((1ull << o.mbits) - 1));
}

// The NVIDIA fused block (units.md s1/s2, 3b): products exact with exponent e_a + e_b (not
// renormalized), c with its leading exponent; E = the largest exponent of the nonzero terms,
// at least min_exp; every term truncated toward zero to a multiple of 2^(E - F); the exact
// sum rounded once (RZ for fp32, RNE for fp16). NaN: the output's NaN pattern (0x7fffffff,
// 0x7fff); Inf * 0 and Infs of both signs give NaN.
struct Fused {
  const Enc* out;
  int F = 25;
  int min_exp = -133;
  bool rz = true;
  std::uint64_t nan = 0x7fffffff;
};

inline std::uint64_t fused_block(const std::vector<Val>& a, const std::vector<Val>& b, std::uint64_t c,
                                 const Fused& m) {
  const Val cv = decode(*m.out, c);
  bool nan = cv.nan, pinf = cv.inf && !cv.neg, ninf = cv.inf && cv.neg;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].nan || b[i].nan) nan = true;
    if (a[i].inf || b[i].inf) {
      if (a[i].zero() || b[i].zero()) nan = true;
      else (a[i].neg != b[i].neg ? ninf : pinf) = true;
    }
  }
  const std::uint64_t inf = ((1ull << m.out->ebits) - 1) << m.out->mbits;
  if (nan || (pinf && ninf)) return m.nan;
  if (pinf) return inf;
  if (ninf) return inf | (1ull << (m.out->width() - 1));
  int E = m.min_exp;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!a[i].zero() && !b[i].zero()) E = std::max(E, a[i].lead + b[i].lead);
  if (!cv.zero()) E = std::max(E, cv.lead);
  Q S = amd_model::trunc_at(cv.v, E - m.F);
  for (std::size_t i = 0; i < a.size(); ++i) S += amd_model::trunc_at(a[i].v * b[i].v, E - m.F);
  return round_out(S, *m.out, m.rz);
}

// A chain of blocks of k products, a of `ea`, b of `eb` (the last block padded with +0
// products); each block's result is the next block's c.
template <class Block>
std::uint64_t chain(const Enc& ea, const Enc& eb, const std::vector<std::uint64_t>& a,
                    const std::vector<std::uint64_t>& b, std::uint64_t c, std::size_t k, Block block) {
  const std::size_t K = a.size();
  const std::size_t blocks = K == 0 ? 1 : (K + k - 1) / k;
  for (std::size_t blk = 0; blk < blocks; ++blk) {
    std::vector<Val> va, vb;
    for (std::size_t i = blk * k; i < blk * k + k; ++i) {
      va.push_back(i < K ? decode(ea, a[i]) : Val{});
      vb.push_back(i < K ? decode(eb, b[i]) : Val{});
    }
    c = block(va, vb, c);
  }
  return c;
}

// Block-scaled (MX) products, kind::mxf8f6f4 (units.md s2 and 3b, X25): operand x times its
// block's ue8m0 scale 2^(s - 127); 0xff is NaN. The product's exponent then adds both scale
// exponents, so the fused block aligns the scaled products (lead moves with the scale).
inline Val scaled(Val x, std::uint64_t ue8m0) {
  if (ue8m0 == 0xff) {
    x.nan = true;
    return x;
  }
  if (x.nan || x.inf) return x;
  const int e = static_cast<int>(ue8m0) - 127;
  x.v *= pow2(e);
  x.lead += e;
  return x;
}

// chain() with scales: product i uses sa[i / bs] and sb[i / bs]; the padding products of the
// last block are +0 (their scale does not matter).
template <class Block>
std::uint64_t chain_scaled(const Enc& ea, const Enc& eb, const std::vector<std::uint64_t>& a,
                           const std::vector<std::uint64_t>& b, const std::vector<std::uint64_t>& sa,
                           const std::vector<std::uint64_t>& sb, std::size_t bs, std::uint64_t c, std::size_t k,
                           Block block) {
  const std::size_t K = a.size();
  const std::size_t blocks = K == 0 ? 1 : (K + k - 1) / k;
  for (std::size_t blk = 0; blk < blocks; ++blk) {
    std::vector<Val> va, vb;
    for (std::size_t i = blk * k; i < blk * k + k; ++i) {
      va.push_back(i < K ? scaled(decode(ea, a[i]), sa[i / bs]) : Val{});
      vb.push_back(i < K ? scaled(decode(eb, b[i]), sb[i / bs]) : Val{});
    }
    c = block(va, vb, c);
  }
  return c;
}

}  // namespace tcsim::mixed_model
