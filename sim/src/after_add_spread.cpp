// Two-group after-add blocks (the mi300x fp8 rows: even/odd products) on the one-group chain
// (amd_chain.cpp) where the operands' exponent spreads prove the two equal (mi300f8).
//
// Why they are equal. An operand of p significand bits (after input_fraction_bits) is
// sig 2^q with q = e_ref - (p - 1) (subnormals too: e_ref = emin, q = emin - (p - 1)), so a
// product of a (p_a bits) and b (p_b bits) is a multiple of 2^(e_ref(ab) - o), o = p_a + p_b - 2,
// with e_ref(ab) = e_ref(a) + e_ref(b). Let e_dot be the block's largest e_ref(ab) over its
// nonzero products and e_g <= e_dot a group's. If every nonzero product has
// e_ref(ab) - o >= e_dot - F, then:
// - two groups (after_sum): a product truncated at F bits below e_g loses nothing (its last bit
//   is at or above e_dot - F >= e_g - F), so each group sum S_g is exact; S_g is a multiple of
//   2^(e_dot - F), so its floor to units of 2^(e_dot - F) is S_g again; s = S_0 + S_1, the exact
//   sum of the products in units of 2^(e_dot - F);
// - one group: truncated at F bits below e_dot, the products are exact too: the same s, the
//   same e_dot.
// Everything after (c, E = max(e_dot, e_c), the floors, drop_c_below, the renormalization, the
// rounding) reads only s, e_dot and c, so the results are equal bit for bit. Zero products raise
// no group in either; NaN/Inf operands meet the chain's sentinels and take the scalar block,
// which runs the row's own two-group datapath (so do all lanes the chain flags).
//
// The sufficient test, per block and output (r, j): e_dot <= max e_ref(a_r) + max e_ref(b_j) and
// every nonzero product has e_ref(ab) >= min e_ref(a_r) + min e_ref(b_j) (over the block's
// finite nonzero operands), so spread(a_r) + spread(b_j) <= F - o suffices. A block of a micro
// tile of rows x columns runs on the pair chain (amd_pair_chain-inl.h; mi300g) when it passes for
// its largest row spread plus its largest column spread and those spreads let the operands be
// int16 integers (spread <= 15 - p); when the sum exceeds F - o by at most kCheckedExcess (or only
// the int16 limit fails), checked on the same chain: per lane, e_dot minus the least e_ref(ab)
// of its nonzero products must be <= F - o (the condition above for that lane alone), else the
// lane takes the scalar block; otherwise on the two-group register tiles (gemm_tile cuts each
// micro tile's chain into runs of chain blocks and tile blocks).
// e4m3fnuz (F - o = 18) with |operands| <= 1 always passes (e_ref in [-7, 0]: spreads <= 7).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "amd_chain.hpp"
#include "amd_lanes.hpp"
#include "tcsim/sim/after_add.hpp"

namespace tcsim {

namespace {

constexpr std::int32_t kZeroHi = amd_lanes::kTileZeroHi, kSpecialHi = amd_lanes::kTileSpecialHi;
constexpr std::size_t kRowPart = 16;  // rows of A per part of gemm_spreads
// Blocks whose largest row and column spreads exceed the bound by up to this many bits run
// checked on the pair chain (bench gemm's e5m2fnuz: 95 % of those above the bound).
constexpr int kCheckedExcess = 4;

inline bool finite_nonzero(std::int32_t e) { return e != kZeroHi && e != kSpecialHi; }

// The chain's int16 e_ref (amd_chain.hpp's sentinels) and its negation (zeros and NaN/Inf
// kChainZeroHi: a maximum of negated sums skips them, the e_ref pass flags NaN/Inf).
inline std::int16_t e16(std::int32_t e) {
  return e == kZeroHi ? amd_lanes::kChainZeroHi : e == kSpecialHi ? amd_lanes::kChainSpecialHi : static_cast<std::int16_t>(e);
}
inline std::int16_t n16(std::int32_t e) { return finite_nonzero(e) ? static_cast<std::int16_t>(-e) : amd_lanes::kChainZeroHi; }

// Widens [lo, hi] by e unless e is a zero or NaN/Inf sentinel (without a branch).
inline void widen(std::int32_t e, std::int32_t& lo, std::int32_t& hi) {
  const bool real = finite_nonzero(e);
  lo = std::min(lo, real ? e : kSpecialHi), hi = std::max(hi, real ? e : kZeroHi);
}

// hi - lo (at most 255), 0 for an empty range (lo = kSpecialHi, hi = kZeroHi).
inline std::uint8_t spread(std::int32_t lo, std::int32_t hi) {
  return hi < lo ? 0 : static_cast<std::uint8_t>(std::min<std::int32_t>(hi - lo, 255));
}

// The pair chain's int16 operand x 2^-q (an integer below 2^15 where the caller admits the
// block), 0 for zeros and NaN/Inf (whose lanes the chain flags), into half t % 2 of *pair.
inline void put(std::int32_t* pair, std::size_t t, std::int32_t e, float x, double scale) {
  const auto v = static_cast<std::int32_t>(finite_nonzero(e) ? x * scale : 0.0);
  *pair = static_cast<std::int32_t>(static_cast<std::uint32_t>(*pair) |
                                    (static_cast<std::uint32_t>(v) & 0xffffu) << (16 * (t % 2)));
}

}  // namespace

std::size_t AfterAddKernel::gemm_spread_parts(const GemmOperands& ops) const {
  if (ops.blocks == 0) return 0;
  return (ops.m + kRowPart - 1) / kRowPart + (ops.n + ops.b_strip - 1) / ops.b_strip;
}

// Part p < ceil(m / 16): A's rows 16 p.. (a_spread, a_q, a2); else B's strip of columns (b_spread,
// b_q, b2). The pair operands a' = a 2^-q, q = lo - (p - 1) with lo the block's least e_ref: an
// integer below 2^(p + spread); written only where p + spread <= 15 (an int16), else left 0
// (spread_class then keeps every micro tile with that row or column off the pairs).
void AfterAddKernel::gemm_spreads(GemmOperands& ops, std::size_t part) const {
  const std::size_t m = ops.m, n = ops.n, K = ops.K, nb = ops.blocks, ldb = ops.ldb, S = ops.b_strip, K2 = ops.k2;
  const std::size_t row_parts = (m + kRowPart - 1) / kRowPart;
  if (part < row_parts) {
    for (std::size_t i = part * kRowPart; i < std::min(m, (part + 1) * kRowPart); ++i) {
      const std::int32_t* e = ops.a_e.data() + i * K;
      const float* x = ops.a_f.data() + i * K;
      for (std::size_t t = 0; t < K; ++t) ops.a_e16[i * K + t] = e16(e[t]), ops.a_n16[i * K + t] = n16(e[t]);
      for (std::size_t b = 0; b < nb; ++b) {
        const std::size_t t0 = b * k_, t1 = std::min(K, t0 + k_);
        std::int32_t l = kSpecialHi, h = kZeroHi;
        for (std::size_t t = t0; t < t1; ++t) widen(e[t], l, h);
        ops.a_spread[i * nb + b] = spread(l, h);
        std::uint8_t& a4 = ops.a_spread4[i / 4 * nb + b];  // parts are whole groups of 4 rows
        a4 = std::max(a4, ops.a_spread[i * nb + b]);
        if (h < l || h - l > pair_spread_a_) continue;
        const int q = l - (pair_bits_a_ - 1);
        ops.a_q[i * nb + b] = q;
        const double scale = std::ldexp(1.0, -q);
        for (std::size_t t = t0; t < t1; ++t) put(&ops.a2[i * K2 + t / 2], t, e[t], x[t], scale);
      }
    }
    return;
  }
  const std::size_t j0 = (part - row_parts) * S, w = std::min(n, j0 + S) - j0;
  std::vector<std::int32_t> lo(w), hi(w);
  std::vector<double> scale(w);
  std::int32_t* b2 = ops.b2.data() + j0 * K2;  // the strip: (t / 2) * S + j - j0
  for (std::size_t t = 0; t < K; ++t)  // the strip-major copies: t * S + j - j0
    for (std::size_t j = 0; j < w; ++j) {
      const std::int32_t e = ops.b_e[t * ldb + j0 + j];
      const std::size_t at = j0 * K + t * S + j;
      ops.b_e16[at] = e16(e), ops.b_n16[at] = n16(e), ops.b_fs[at] = ops.b_f[t * ldb + j0 + j];
    }
  for (std::size_t b = 0; b < nb; ++b) {
    const std::size_t t0 = b * k_, t1 = std::min(K, t0 + k_);
    std::fill(lo.begin(), lo.end(), kSpecialHi), std::fill(hi.begin(), hi.end(), kZeroHi);
    for (std::size_t t = t0; t < t1; ++t)  // B row by row: contiguous
      for (std::size_t j = 0; j < w; ++j) widen(ops.b_e[t * ldb + j0 + j], lo[j], hi[j]);
    std::uint8_t& strip_max = ops.b_spread_strip[j0 / S * nb + b];
    for (std::size_t j = 0; j < w; ++j) {
      ops.b_spread[b * n + j0 + j] = spread(lo[j], hi[j]);
      strip_max = std::max(strip_max, ops.b_spread[b * n + j0 + j]);
      const bool pairs = hi[j] >= lo[j] && hi[j] - lo[j] <= pair_spread_b_;
      const int q = pairs ? lo[j] - (pair_bits_b_ - 1) : 0;
      ops.b_q[b * ldb + j0 + j] = q;
      scale[j] = pairs ? std::ldexp(1.0, -q) : 0.0;  // 0: no pair operands for this column
    }
    for (std::size_t t = t0; t < t1; ++t)
      for (std::size_t j = 0; j < w; ++j)
        put(&b2[t / 2 * S + j], t, ops.b_e[t * ldb + j0 + j], ops.b_f[t * ldb + j0 + j], scale[j]);
  }
}

int AfterAddKernel::spread_class(const GemmOperands& ops, std::size_t b, std::size_t i0, std::size_t rows,
                                 std::size_t j0, std::size_t w) const {
  const std::size_t nb = ops.blocks, S = ops.b_strip;
  const std::size_t cols = std::min(ops.n, j0 + w) - std::min(ops.n, j0);  // padding columns: +0 operands
  int ra = 0, cb = 0;
  // A group of 4 rows or a whole strip of columns: their maxima from gemm_spreads.
  if (i0 % 4 == 0 && rows == std::min<std::size_t>(4, ops.m - i0)) ra = ops.a_spread4[i0 / 4 * nb + b];
  else
    for (std::size_t r = 0; r < rows; ++r) ra = std::max<int>(ra, ops.a_spread[(i0 + r) * nb + b]);
  if (j0 % S == 0 && cols == std::min(S, ops.n - std::min(ops.n, j0))) {
    cb = ops.b_spread_strip[j0 / S * nb + b];
  } else {
    const std::uint8_t* bs = ops.b_spread.data() + b * ops.n + j0;
    for (std::size_t j = 0; j < cols; ++j) cb = std::max<int>(cb, bs[j]);
  }
  // No product loses a bit (F - o), and the pair chain's operands are int16 (p + spread <= 15).
  if (ra + cb <= one_group_spread_ && ra <= pair_spread_a_ && cb <= pair_spread_b_) return 2;
  // Checked on the chain (lanes where a product would lose a bit take the scalar block: few where
  // the micro tile's spreads exceed the bound by little), else the two-group register tiles.
  return ra + cb <= one_group_spread_ + kCheckedExcess ? 1 : 0;
}

}  // namespace tcsim
