// The range classes of sessions 30-34 (see fit_range_classes.hpp). Every random value is drawn
// into a named local before use: the order of a call's arguments is unspecified (GCC and clang
// differ), so two drawing arguments in one call would give other dumps under other compilers.
#include "tcsim/validation/fit_range_classes.hpp"

#include <algorithm>
#include <utility>

namespace tcsim::validation {
namespace fit_cases {
namespace {

// Classes 0 and 3 (near_f): grid point and tiny terms (fit_range_classes.hpp).
void grid_tiny(const Format& in, const Format& out, std::size_t K, Draw& d, const std::vector<std::size_t>& at,
               std::uint64_t* x, std::uint64_t* y, std::uint64_t& z, bool near_f) {
  const int p_lo = product_lo(in), p_hi = product_hi(in);
  const int q = out.emin - out.fraction_bits;  // the output's smallest last place
  // T from c (variants 0, 1; tiny products), a product (2; tiny products) or a product with
  // c the tiny term (3: c reaches lower than products, e.g. fp8 products end at 2^-18).
  const int variant = K >= 2 ? d.below(4) : 0;
  const bool t_is_c = variant <= 1;
  const int tiny_floor = variant == 3 ? q : p_lo;
  const int t_hi = t_is_c ? std::min(out.emax - 1, p_hi + 8) : std::min(p_hi - 1, out.emax - 1);
  const int t_lo = t_is_c ? out.emin : std::max(p_lo + 1, out.emin);
  const int room = t_hi - tiny_floor;  // the widest shift T and the tiny terms allow
  // Class 3 draws the shift where the search space's F lie (12..40; 20..40 missed rows of F
  // 15-17, random 115 and 198), so the cut falls within the tiny terms' bits; class 0 spreads
  // it over 1..52 (one draw each: class 0's cases are unchanged).
  const int s = near_f ? std::max(1, std::min(room, 12 + d.below(29))) : 1 + d.below(std::min(52, std::max(1, room)));
  const int e_lo = std::max(t_lo, tiny_floor + s);
  const int e = e_lo + d.below(std::min(16, std::max(1, t_hi - e_lo + 1)));
  const bool neg = d.coin();
  // T's grid: the output's fraction bits, or (half the cases) fewer, as a row's
  // result_fraction_bits rounds the sum first (8 .. the output's fraction bits - 1).
  const bool coarse = out.fraction_bits > 8 && d.coin();
  const int p = coarse ? 8 + d.below(out.fraction_bits - 8) : out.fraction_bits;
  std::size_t used = 0;
  if (t_is_c) {
    const bool frac = d.coin();
    z = value(out, d.g, neg, e, frac);
    if (e >= out.emin) z &= ~((std::uint64_t{1} << (out.fraction_bits - p)) - 1);  // on the grid of p bits
  } else {  // a product of at most p + 1 significant bits: one operand a power of two
    const bool frac = in.fraction_bits <= p && d.coin();
    x[at[0]] = value(in, d.g, neg, half(e), frac);
    y[at[0]] = value(in, d.g, false, e - half(e), false);
    used = 1;
  }
  // An RNE tie: half T's last place beside it, of T's sign or the other (a midpoint below T).
  if (used < K && d.below(3) == 0) {
    const int h = e - p - 1;
    if (h > p_lo && h < p_hi) {
      const bool other = d.coin();
      x[at[used]] = value(in, d.g, neg != other, half(h), false);
      y[at[used]] = value(in, d.g, false, h - half(h), false);
      ++used;
    }
  }
  // 1-3 tiny terms at shifts s .. s + 3 (several: the sticky bit records what the first lost).
  // Class 3: always 2-3 (each rounded at the cut on its own, so their kept parts' sum differs
  // between the alignment roundings more often than one term's).
  const int many = d.below(3);
  const int tiny = near_f ? 2 + many % 2 : many == 0 ? 1 + d.below(3) : 1;
  for (int t = 0; t < tiny; ++t) {
    const int step = t == 0 ? 0 : d.below(4);
    const int pe = std::max(e - s - step, tiny_floor);
    if (variant == 3 && t == 0) {
      const bool zs = d.coin();
      const bool frac = d.coin();
      z = value(out, d.g, zs, pe, frac);
      continue;
    }
    if (used >= K) break;
    product(in, d, std::max(pe, p_lo), x[at[used]], y[at[used]]);
    ++used;
  }
}

// Classes 2 and 4 (near_f): a shift the output shows (fit_range_classes.hpp).
void shift_shown(const Format& in, const Format& out, std::size_t K, Draw& d, const std::vector<std::size_t>& at,
                 std::uint64_t* x, std::uint64_t* y, std::uint64_t& z, bool near_f) {
  const int p_lo = product_lo(in), p_hi = product_hi(in);
  const bool c_top = K < 3 || d.coin();  // the cancelling pair: c and a product, or two products
  const int e_max = c_top ? std::min(out.emax - 1, p_hi - 1) : p_hi - 1;
  // Class 4: the shift over 10..42 (F's 12..40 and the term's own bits below its leading one)
  // and the term anywhere in the output's normal range, so every bit the alignment kept shows;
  // class 2 keeps its one draw of each (its cases are unchanged).
  const int s = near_f ? 10 + d.below(33) : 1 + d.below(52);
  const int tl_lo = near_f ? std::max(out.emin, p_lo) : std::max(out.emin - out.fraction_bits, p_lo);
  const int tl_hi = std::max(tl_lo, near_f ? std::min(out.emax - 1, e_max - s) : std::min(out.emin + 8, e_max - s));
  const int tl = tl_lo + d.below(tl_hi - tl_lo + 1);
  const int e = std::min(tl + s, e_max);
  const bool neg = d.coin();
  std::size_t used = 0;
  if (c_top) {
    z = value(out, d.g, neg, e, false);
    if (K >= 2) {
      x[at[0]] = value(in, d.g, !neg, half(e), false);
      y[at[0]] = value(in, d.g, false, e - half(e), false);
      used = 1;
    }
  } else {
    x[at[0]] = value(in, d.g, neg, half(e), false);
    y[at[0]] = value(in, d.g, false, e - half(e), false);
    x[at[1]] = x[at[0]] ^ in.sign_mask();
    y[at[1]] = y[at[0]];
    used = 2;
  }
  if (used < K) product(in, d, tl, x[at[used]], y[at[used]]);
  // Class 4: half the cases a second term 0-3 binades below the first (two cuts in one sum).
  if (near_f && used + 1 < K && d.coin()) {
    const int step = d.below(4);
    product(in, d, std::max(tl - step, p_lo), x[at[used + 1]], y[at[used + 1]]);
  }
}

// An operand of `in` at exponent e whose fraction is all ones but for its `low` lowest bits
// (random): products of two lie just below 2^(e_x + e_y + 2).
std::uint64_t near_top(const Format& in, Draw& d, bool neg, int e) {
  const int low = d.below(std::min(in.fraction_bits, 3) + 1);
  std::uint64_t v = value(in, d.g, neg, e);
  if (in.fraction_bits > 0 && e >= in.emin && e < in.emax)
    v |= ((std::uint64_t{1} << in.fraction_bits) - 1) & ~((std::uint64_t{1} << low) - 1);
  return v;
}

// Class 5: a sum at a carry edge (fit_range_classes.hpp).
void carry_edge(const Format& in, const Format& out, std::size_t K, Draw& d, const std::vector<std::size_t>& at,
                std::uint64_t* x, std::uint64_t* y, std::uint64_t& z) {
  int j_max = 0;
  while ((std::size_t{2} << j_max) <= K) ++j_max;  // 2^j_max <= K
  const int j = 1 + d.below(std::max(1, j_max));
  const std::size_t m = std::min(K, std::size_t{1} << j);
  const int e = d.below(9) - 4;  // the operands' exponents sum to e: each product just below 2^(e+2)
  const bool neg = d.coin();
  for (std::size_t t = 0; t < m; ++t) {
    x[at[t]] = near_top(in, d, neg, half(e));
    y[at[t]] = near_top(in, d, false, e - half(e));
  }
  // c of the products' sign (3 in 4), from half the edge 2^(e+2+j) down to about the products'
  // shortfall below it (m last places of a product): a sum just over or just under the edge.
  const bool same = d.below(4) != 0;
  const bool frac = d.coin();
  const int ec = e + 1 + j - d.below(in.fraction_bits * 2 + 4);
  z = value(out, d.g, same ? neg : !neg, ec, frac);
  for (std::size_t t = m; t < K; ++t) {  // the rest: a tiny term now and then
    if (d.below(4) != 0) continue;
    const int pe = e - 8 - d.below(24);
    product(in, d, std::max(pe, product_lo(in)), x[at[t]], y[at[t]]);
  }
}

// Class 6: sums at the output's largest finite value, and Inf times a subnormal or zero
// operand (fit_range_classes.hpp).
void top_edge(const Format& in, const Format& out, std::size_t K, Draw& d, const std::vector<std::size_t>& at,
              std::uint64_t* x, std::uint64_t* y, std::uint64_t& z) {
  if (K == 0) return;  // no product to place (c stays the caller's signed zero)
  if (in.infinities && d.below(4) == 0) {
    const bool is = d.coin();
    const bool zs = d.coin();
    const int sub = in.emin - 1 - d.below(std::max(1, in.fraction_bits));
    const bool subnormal = in.subnormals && d.coin();
    x[at[0]] = in.infinity(is);
    y[at[0]] = subnormal ? value(in, d.g, zs, sub) : in.zero(zs);
    for (std::size_t t = 1; t < K; ++t) {
      if (d.coin()) continue;
      product(in, d, d.below(9) - 4, x[at[t]], y[at[t]]);
    }
    return;
  }
  // c near the output's largest finite value, products of its sign (3 in 4 each) from just
  // below the top down to the output's last place there: the sum crosses the overflow
  // threshold by little, so a directed final rounding shows the overflow rule.
  const bool neg = d.coin();
  const bool frac = d.coin();
  z = value(out, d.g, neg, out.emax, frac);
  const int top = std::min(out.emax - 1, product_hi(in) - 1);
  for (std::size_t t = 0; t < K; ++t) {
    if (d.below(3) == 0) continue;
    const int pe = top - d.below(out.fraction_bits + 4);
    const bool other = d.below(4) == 0;
    product(in, d, std::max(pe, product_lo(in)), x[at[t]], y[at[t]]);
    x[at[t]] &= ~in.sign_mask();  // product() drew the signs: the product takes c's (or the other)
    y[at[t]] &= ~in.sign_mask();
    if (neg != other) x[at[t]] |= in.sign_mask();
  }
}

// Classes 7 and 8 (widest): a sum on the output's grid and c beyond the cut (fit_range_classes.hpp).
void grid_far_c(const Format& in, const Format& out, std::size_t K, Draw& d, const std::vector<std::size_t>& at,
                std::uint64_t* x, std::uint64_t* y, std::uint64_t& z, bool widest) {
  if (K == 0) return;  // no product to place (c stays the caller's signed zero)
  const int p_lo = product_lo(in), p_hi = product_hi(in);
  const int q = out.emin - out.fraction_bits;
  // Class 7: c 20..52 binades below T (where F cuts; T drawn high enough for c to reach
  // there), or (a quarter) at the output's bottom binades. Class 8: c 20..44 below T, T in the
  // top 4 binades the output and the products share (the output's top binade included), so
  // where the output's range is narrower than the shift c lands on its smallest last place:
  // e4m3 -> fp16 reaches a shift of 39 (class 7 stopped at 38, below F 38's cut).
  const int s = widest ? 20 + d.below(25) : 20 + d.below(33);
  const bool bottom = !widest && d.below(4) == 0;
  int e = 0;
  if (widest) {
    const int top = d.below(4);
    const int e_hi = std::max(p_lo + 1, std::min(p_hi, out.emax));
    e = std::max(std::min(e_hi, std::max(p_lo + 1, out.emin)), e_hi - top);
  } else {
    const int e_hi = std::max(p_lo + 1, std::min(p_hi - 1, out.emax - 1));
    const int e_lo = std::min(e_hi, std::max({p_lo + 1, out.emin, bottom ? out.emin : q + s}));
    e = e_lo + d.below(e_hi - e_lo + 1);
  }
  const bool neg = d.coin();
  const bool frac = d.coin();  // T: 1 + the input's fraction bits, or a power of two (a binade's edge)
  x[at[0]] = value(in, d.g, neg, half(e), frac);
  y[at[0]] = value(in, d.g, false, e - half(e), false);
  std::size_t used = 1;
  // 0-2 products on T's grid: 1 + the input's fraction bits, the last at or above T's last place.
  const int more = d.below(3);
  for (int t = 0; t < more && used < K; ++t) {
    const int pe = e - d.below(std::max(1, out.fraction_bits - in.fraction_bits));
    const bool ps = d.coin();
    const bool pf = d.coin();
    x[at[used]] = value(in, d.g, ps, half(pe), pf);
    y[at[used]] = value(in, d.g, false, pe - half(pe), false);
    ++used;
  }
  if (used < K && d.below(3) == 0) {  // a third: half T's last place beside it (an RNE tie)
    const int h = e - out.fraction_bits - 1;
    const bool hs = d.coin();
    if (h > p_lo && h < p_hi) {
      x[at[used]] = value(in, d.g, hs, half(h), false);
      y[at[used]] = value(in, d.g, false, h - half(h), false);
      ++used;
    }
  }
  if (used < K && d.coin()) {  // half: a tiny product at c's cut too (two terms rounded there)
    const int pe = std::max(p_lo, e - s - 1 + d.below(3));
    const bool ts = d.coin();
    product(in, d, pe, x[at[used]], y[at[used]]);
    x[at[used]] = (x[at[used]] & ~in.sign_mask()) | (ts ? in.sign_mask() : 0);
    y[at[used]] &= ~in.sign_mask();
    ++used;
  }
  const int ec = bottom ? q + d.below(std::max(1, out.fraction_bits)) : std::max(q, e - s);
  const bool cs = d.coin();
  const bool cf = d.coin();
  z = value(out, d.g, cs, ec, cf);
}

// Class 9: sums below the output's normal range that a clamp or the carry bits change
// (fit_range_classes.hpp). False when the pair's products cannot reach that range.
bool below_normal(const Format& in, const Format& out, std::size_t K, Draw& d, const std::vector<std::size_t>& at,
                  std::uint64_t* x, std::uint64_t* y, std::uint64_t& z) {
  const int p_lo = product_lo(in), p_hi = product_hi(in);
  const int q = out.emin - out.fraction_bits;  // the output's smallest last place
  const int lo = std::max(p_lo + 1, q - 8);
  const int hi = std::min(p_hi - 1, out.emin + 1);
  if (K == 0 || lo > hi || !out.subnormals) return false;
  const int top = lo + d.below(hi - lo + 1);
  const bool neg = d.coin();
  std::size_t used = 0;
  if (d.coin()) {  // a carry edge: 2^j products of one sign, each just below 2^(top+1)
    int j_max = 0;
    while ((std::size_t{2} << j_max) <= K) ++j_max;
    const int j = 1 + d.below(std::max(1, j_max));
    used = std::min(K, std::size_t{1} << j);
    for (std::size_t t = 0; t < used; ++t) {
      x[at[t]] = near_top(in, d, neg, half(top - 1));
      y[at[t]] = near_top(in, d, false, top - 1 - half(top - 1));
    }
  } else {  // 1-2 near-cancelling pairs: p and -p' where p' differs from p in an operand's last 1-2 bits
    const int pairs = K >= 4 ? 1 + d.below(2) : 1;
    for (int t = 0; t < pairs && used + 1 < K; ++t) {
      const int step = t == 0 ? 0 : d.below(4);
      const std::uint64_t low = 1 + static_cast<std::uint64_t>(d.below(3));
      product(in, d, std::max(lo, top - step), x[at[used]], y[at[used]]);
      x[at[used + 1]] = x[at[used]] ^ in.sign_mask();
      y[at[used + 1]] = y[at[used]] ^ low;
      used += 2;
    }
  }
  if (used < K && d.below(3) == 0 && q - 1 > p_lo) {  // a third: half the smallest last place (a tie)
    const bool hs = d.coin();
    x[at[used]] = value(in, d.g, hs, half(q - 1), false);
    y[at[used]] = value(in, d.g, false, q - 1 - half(q - 1), false);
    ++used;
  }
  const int cz = d.below(4);
  const bool zs = d.coin();
  if (cz <= 1) {
    z = out.zero(zs);
  } else {  // 1-3 smallest last places, or a subnormal anywhere below emin
    const int ez = cz == 2 ? q + d.below(2) : q + d.below(std::max(1, out.fraction_bits));
    z = value(out, d.g, zs, ez);
  }
  return true;
}

// Class 10: a grid point and a near-cancelling pair at the cut (fit_range_classes.hpp).
void grid_cut_pair(const Format& in, const Format& out, std::size_t K, Draw& d, const std::vector<std::size_t>& at,
                   std::uint64_t* x, std::uint64_t* y, std::uint64_t& z) {
  if (K < 2) return;  // no pair to place (c stays the caller's signed zero)
  const int p_lo = product_lo(in), p_hi = product_hi(in);
  const int s = 8 + d.below(37);  // the pair 8..44 binades below T: F's cut falls within its bits
  const bool t_is_c = K < 3 || d.coin();  // T is c (on the output's grid), or a product of one fraction
  const int e_hi = std::max(p_lo + 3, t_is_c ? out.emax - 1 : std::min(p_hi - 1, out.emax - 1));
  const int e_lo = std::min(e_hi, std::max(out.emin, p_lo + 2 + s));
  const int e = e_lo + d.below(std::min(16, e_hi - e_lo + 1));
  const bool neg = d.coin();
  const bool frac = d.coin();
  std::size_t used = 0;
  if (t_is_c) {
    z = value(out, d.g, neg, e, frac);
  } else {
    x[at[0]] = value(in, d.g, neg, half(e), frac);
    y[at[0]] = value(in, d.g, false, e - half(e), false);
    used = 1;
  }
  // p and -p' (p' = p but for an operand's last 1-2 bits): their exact sum is a few of p's last
  // places, each rounded at the cut on its own, so the kept sum is 0 or one unit either way.
  const std::uint64_t low = 1 + static_cast<std::uint64_t>(d.below(3));
  product(in, d, std::max(p_lo + 2, e - s), x[at[used]], y[at[used]]);
  x[at[used + 1]] = x[at[used]] ^ in.sign_mask();
  y[at[used + 1]] = y[at[used]] ^ low;
  used += 2;
  if (used < K && d.below(3) == 0) {  // a third: half T's last place beside it (an RNE tie)
    const int h = e - out.fraction_bits - 1;
    const bool hs = d.coin();
    if (h > p_lo && h < p_hi) {
      x[at[used]] = value(in, d.g, hs, half(h), false);
      y[at[used]] = value(in, d.g, false, h - half(h), false);
    }
  }
}

// Class 12: the widest cut (fit_range_classes.hpp).
void widest_cut(const Format& in, const Format& out, std::size_t K, Draw& d, const std::vector<std::size_t>& at,
                std::uint64_t* x, std::uint64_t* y, std::uint64_t& z) {
  if (K < 2) return;  // the top term and the unit need two places (c stays the caller's signed zero)
  const int p_lo = product_lo(in), p_hi = product_hi(in);
  const int q = out.emin - out.fraction_bits;
  // The top term at the top 2 binades the products and the output share, the unit s = 8..48
  // binades below it but not below the products' bottom: F's cut falls between them up to the
  // widest shift the products allow (e4m3: 2^16 beside 2^-18, beyond the classes' shifts).
  // A quarter of the cases the top term anywhere in the products' range instead (a row's E
  // may follow the exponent fields of subnormal operands: fp16 products of 2^-33 beside 2^-48).
  const int e_top = std::max(p_lo + 2, std::min(p_hi, out.emax - 1));
  const int e = d.below(4) == 0 ? p_lo + 2 + d.below(e_top - p_lo - 1) : e_top - d.below(2);
  const int s = 8 + d.below(41);
  const int ue = std::max(p_lo, e - s);  // a product unit stops at the products' bottom
  const int cue = std::max(q, e - s);    // c reaches lower (e4m3 products end at 2^-18, fp16 outputs at 2^-24)
  const bool neg = d.coin();
  std::size_t used = 0;
  if (d.coin()) {
    // A pair cancelled exactly at 2^e (two products), and c of random fraction with its last
    // bits at 2^cue or below: the result is c as the alignment kept it, in bits the output holds.
    x[at[0]] = value(in, d.g, neg, half(e), false);
    y[at[0]] = value(in, d.g, false, e - half(e), false);
    x[at[1]] = x[at[0]] ^ in.sign_mask();
    y[at[1]] = y[at[0]];
    const bool cs = d.coin();
    const int ce = std::min(e - 2, cue + out.fraction_bits);  // its last bit at 2^cue, below the pair
    z = value(out, d.g, cs, ce, true);
    used = 2;
    if (used < K && d.coin()) {  // half: a product at the unit too (c alone may be added after the sum)
      const bool ps = d.coin();
      const bool pf = d.coin();
      x[at[used]] = value(in, d.g, ps, half(ue), pf);
      y[at[used]] = value(in, d.g, false, ue - half(ue), false);
    }
    return;
  }
  // 1-3 products of one sign at 2^e .. 2^(e-1) (their sum up to the top binade of the
  // products' sums) and a power-of-two unit 2^ue of either sign: kept, or rounded at the cut
  // by the alignment (rz, rd, ru, rne, sticky).
  const std::size_t tops = std::min<std::size_t>(K - 1, 1 + static_cast<std::size_t>(d.below(3)));
  for (std::size_t t = 0; t < tops; ++t) {
    const int te = e - d.below(2);
    const bool tf = t > 0 || d.coin();  // the first a power of two half the time (a binade's edge)
    x[at[t]] = value(in, d.g, neg, half(te), tf);
    y[at[t]] = value(in, d.g, false, te - half(te), false);
  }
  used = tops;
  const bool us = d.coin();
  const bool c_unit = d.below(3) == 0;  // a third: the unit is c (down to the output's smallest last place)
  if (c_unit) {
    z = value(out, d.g, us, cue, false);
  } else {
    x[at[used]] = value(in, d.g, us, half(ue), false);
    y[at[used]] = value(in, d.g, false, ue - half(ue), false);
    ++used;
  }
  if (used < K && d.below(3) == 0) {  // a third: half T's last place (the boundary an RNE midpoint)
    const int h = e - out.fraction_bits - 1;
    const bool hs = d.coin();
    if (h > p_lo && h < p_hi) {
      x[at[used]] = value(in, d.g, hs, half(h), false);
      y[at[used]] = value(in, d.g, false, h - half(h), false);
      ++used;
    }
  }
  // Half: a term of the unit's other sign 1-4 binades below it (or c below the products'
  // range): the cut between them keeps the unit and rounds this term on its own.
  const int te = ue - 1 - d.below(4);
  const bool tf = d.coin();
  if (d.coin()) {
    if (te > p_lo && used < K) {
      x[at[used]] = value(in, d.g, !us, half(te), tf);
      y[at[used]] = value(in, d.g, false, te - half(te), false);
    } else if (te >= q && !c_unit) {
      z = value(out, d.g, !us, te, tf);
    }
  }
}

// Class 13's other half: 1-4 pairs p, -p' (p' p but for an operand's last 1-2 bits), their
// remainders of one sign or each its own.
void pairs_near(const Format& in, std::size_t K, Draw& d, const std::vector<std::size_t>& at, int lo, int top,
                std::uint64_t* x, std::uint64_t* y) {
  const std::size_t pairs = std::min<std::size_t>(K / 2, 1 + static_cast<std::size_t>(d.below(4)));
  const bool same_way = d.coin();  // every pair's remainder of one sign, or each its own
  const std::uint64_t low0 = 1 + static_cast<std::uint64_t>(d.below(3));
  for (std::size_t t = 0; t < pairs; ++t) {
    const int step = d.below(4);
    const std::uint64_t low = same_way ? low0 : 1 + static_cast<std::uint64_t>(d.below(3));
    const std::size_t i = at[2 * t], j = at[2 * t + 1];
    product(in, d, std::max(lo, top - step), x[i], y[i]);
    x[j] = x[i] ^ in.sign_mask();
    y[j] = y[i] ^ low;
  }
}

// Class 13: near-cancelling pairs below the output's normal range (fit_range_classes.hpp).
bool pairs_below_normal(const Format& in, const Format& out, std::size_t K, Draw& d, const std::vector<std::size_t>& at,
                        std::uint64_t* x, std::uint64_t* y, std::uint64_t& z) {
  const int p_lo = product_lo(in), p_hi = product_hi(in);
  const int q = out.emin - out.fraction_bits;
  const int lo = std::max(p_lo + 1, q - 8);
  const int hi = std::min(p_hi - 1, out.emin + 1);
  if (K < 2 || lo > hi) return false;
  const int top = lo + d.below(hi - lo + 1);
  if (K >= 4 && d.coin()) {
    // Half: x y - x y' - x' y + x' y' = (x - x')(y - y'), x' and y' x and y but for their last
    // 1-2 bits: four products whose exact sum is a few of their last places.
    product(in, d, top, x[at[0]], y[at[0]]);
    const std::uint64_t lx = 1 + static_cast<std::uint64_t>(d.below(3));
    const std::uint64_t ly = 1 + static_cast<std::uint64_t>(d.below(3));
    x[at[1]] = x[at[0]] ^ in.sign_mask();
    y[at[1]] = y[at[0]] ^ ly;
    x[at[2]] = (x[at[0]] ^ lx) ^ in.sign_mask();
    y[at[2]] = y[at[0]];
    x[at[3]] = x[at[0]] ^ lx;
    y[at[3]] = y[at[0]] ^ ly;
  } else {
    pairs_near(in, K, d, at, lo, top, x, y);
  }
  const int cz = d.below(4);
  const bool zs = d.coin();
  z = cz <= 1 ? out.zero(zs) : value(out, d.g, zs, q + d.below(2), false);
  return true;
}

// Class 11: zeros from subnormal operands (fit_range_classes.hpp).
void flushed_zeros(const Format& in, const Format& out, std::size_t K, Draw& d, std::uint64_t* x, std::uint64_t* y,
                   std::uint64_t& z) {
  const bool neg = d.coin();           // the products' sign
  const bool own = d.below(4) == 0;    // a quarter: each product's sign its own
  for (std::size_t t = 0; t < K; ++t) {
    const int kind = d.below(3);       // subnormal x normal, subnormal x subnormal, zero x subnormal
    const int sx = in.emin - 1 - d.below(std::max(1, in.fraction_bits));
    const int sy = in.emin - 1 - d.below(std::max(1, in.fraction_bits));
    const int ny = d.below(5) - 2;
    const bool ps = own ? d.coin() : neg;
    const bool ys = d.coin();
    x[t] = kind == 2 ? in.zero(ps != ys) : value(in, d.g, ps != ys, sx);
    y[t] = value(in, d.g, ys, kind == 0 ? ny : sy);
  }
  const int cz = d.below(4);
  const bool cs = cz == 3 ? !neg : neg;  // c of the products' sign (3 in 4): a zero or a subnormal
  z = cz == 2 ? value(out, d.g, cs, out.emin - 1 - d.below(std::max(1, out.fraction_bits))) : out.zero(cs);
}

// Class 1: subnormal sums (fit_range_classes.hpp). False when the pair's products cannot reach
// the output's subnormal range.
bool subnormal_sum(const Format& in, const Format& out, std::size_t K, Draw& d, std::uint64_t* x, std::uint64_t* y,
                   std::uint64_t& z) {
  const int lo = std::max(product_lo(in), out.emin - out.fraction_bits - 4);
  const int hi = std::min(product_hi(in), out.emin + 1);
  if (lo > hi || !out.subnormals) return false;
  // The terms in a band of 4 binades whose top is anywhere in the range: below a clamp they
  // align to the clamp's E, and many of one sign (half the cases) outgrow its carry bits.
  const int top = lo + d.below(hi - lo + 1);
  const bool one_sign = d.coin();
  const bool sign = d.coin();
  for (std::size_t t = 0; t < K; ++t) {
    if (d.below(8) == 0) continue;  // a zero term (drawn with a random sign by the caller)
    const int pe = std::max(lo, top - d.below(4));
    product(in, d, pe, x[t], y[t]);
    if (one_sign) {
      x[t] = (x[t] & ~in.sign_mask()) | (sign ? in.sign_mask() : 0);
      y[t] &= ~in.sign_mask();
      continue;
    }
    if (t + 1 < K && d.below(4) == 0) {  // its exact negation next: the sum is the rest's
      x[t + 1] = x[t] ^ in.sign_mask();
      y[t + 1] = y[t];
      ++t;
    }
  }
  const int cz = d.below(4);
  const bool zs = d.coin();
  if (cz <= 1) {
    z = out.zero(zs);
  } else {
    const int ez = cz == 2 ? lo + d.below(hi - lo + 1) : out.emin + d.below(3);
    z = value(out, d.g, zs, ez);
  }
  return true;
}

}  // namespace

void range_class_case(int which, const Format& in, const Format& out, std::size_t K, std::mt19937_64& g,
                      std::uint64_t* x, std::uint64_t* y, std::uint64_t& z) {
  Draw d{g};
  for (std::size_t t = 0; t < K; ++t) {  // every term zero (of either sign) until a class sets it
    const bool xs = d.coin();
    const bool ys = d.coin();
    x[t] = in.zero(xs);
    y[t] = value(in, g, ys, 0);
  }
  const bool zs = d.coin();
  z = out.zero(zs);
  if (which == 1 && subnormal_sum(in, out, K, d, x, y, z)) return;
  if (which == 11) {
    flushed_zeros(in, out, K, d, x, y, z);
    return;
  }
  std::vector<std::size_t> at(K);  // the terms' places, shuffled (order and blocks matter to some rows)
  for (std::size_t t = 0; t < K; ++t) {
    at[t] = t;
    std::swap(at[t], at[g() % (t + 1)]);
  }
  if (which == 2 || which == 4) shift_shown(in, out, K, d, at, x, y, z, which == 4);
  else if (which == 5) carry_edge(in, out, K, d, at, x, y, z);
  else if (which == 6) top_edge(in, out, K, d, at, x, y, z);
  else if (which == 7 || which == 8) grid_far_c(in, out, K, d, at, x, y, z, which == 8);
  else if (which == 9 && below_normal(in, out, K, d, at, x, y, z)) return;
  else if (which == 10) grid_cut_pair(in, out, K, d, at, x, y, z);
  else if (which == 12) widest_cut(in, out, K, d, at, x, y, z);
  else if (which == 13 && pairs_below_normal(in, out, K, d, at, x, y, z)) return;
  else if (which == 14) chain_residue(in, out, K, d, at, x, y, z);
  else if (which == 15) far_spread(in, out, K, d, x, y, z);
  else grid_tiny(in, out, K, d, at, x, y, z, which == 3);
}

}  // namespace fit_cases

void range_class_cases(int which, const Format& in, const Format& out, std::size_t K, std::size_t n,
                       std::uint64_t seed, std::vector<std::uint64_t>& a, std::vector<std::uint64_t>& b,
                       std::vector<std::uint64_t>& c) {
  std::mt19937_64 g(seed);
  a.assign(n * K, 0);
  b.assign(n * K, 0);
  c.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) fit_cases::range_class_case(which, in, out, K, g, a.data() + i * K, b.data() + i * K, c[i]);
}

}  // namespace tcsim::validation
