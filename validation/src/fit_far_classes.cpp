// Session 35's range classes 14 and 15 (see fit_range_classes.hpp): a chain's per-step
// rounding residue, and terms at the cut beside a cancelled top. Every random value is drawn
// into a named local before use (the order of a call's arguments is unspecified).
#include <algorithm>

#include "tcsim/validation/fit_range_classes.hpp"

namespace tcsim::validation::fit_cases {

namespace {

// Operands x, y of `in` (exponents ex, ey, signs xs and ys) whose product's significand P (2 *
// fraction_bits + 2 bits) has its low j bits r or 2^j - r, r < 2^u: a run of j - u zeros or
// ones above u bits of tail. x odd, y = r / x mod 2^j, x redrawn until y is a significand (about
// 2^(j - fraction_bits - 1) draws); j shrinks when a bounded number of draws finds none.
void run_product(const Format& in, Draw& d, int ex, int ey, bool xs, bool ys, int j, int u, std::uint64_t& x,
                 std::uint64_t& y) {
  const int fb = in.fraction_bits;
  const std::uint64_t lead = std::uint64_t{1} << fb;
  const bool ones = d.coin();
  const std::uint64_t r = 1 + (d.g() & ((std::uint64_t{1} << u) - 1)) % ((std::uint64_t{1} << u) - 1);
  for (; j > u; --j) {
    const std::uint64_t mask = (std::uint64_t{1} << j) - 1;
    const std::uint64_t want = ones ? (std::uint64_t{0} - r) & mask : r & mask;
    for (int tries = 0; tries < 2048; ++tries) {
      const std::uint64_t xm = lead | (d.g() & (lead - 1)) | 1;
      std::uint64_t inv = xm;  // Newton's iteration for 1 / xm mod 2^64 (xm odd)
      for (int it = 0; it < 6; ++it) inv *= 2 - xm * inv;
      std::uint64_t ym = (want * inv) & mask;
      if (j <= fb) ym |= lead | (d.g() & (lead - 1) & ~mask);  // free high bits: any significand
      if (ym < lead || ym >= 2 * lead) continue;
      x = value(in, d.g, xs, ex, false) | (xm & (lead - 1));
      y = value(in, d.g, ys, ey, false) | (ym & (lead - 1));
      return;
    }
  }
  x = value(in, d.g, xs, ex, false);
  y = value(in, d.g, ys, ey, false);
}

}  // namespace

// Class 14: a carry run at the cut. c on the output's grid and a product p whose bits from c's
// last place down to about the cut are a run of zeros or ones, with 1-4 nonzero bits below it:
// the alignment rounds p at a cut in the run onto c's grid or off it (rd/ru/rz by p's sign, rne
// by the tail), which a directed final rounding or a midpoint shows; half the cases -p (or -p',
// p' p but for an operand's last bits) too, so a chain of FMAs (fma_size 1: each step rounds
// its addend at its own cut) keeps a residue of each step (fasi2021 probes a chain's per-step
// rounding so). The run covers the cuts of F from the output's fraction bits to their sum
// with the run's length.
void chain_residue(const Format& in, const Format& out, std::size_t K, Draw& d, const std::vector<std::size_t>& at,
                   std::uint64_t* x, std::uint64_t* y, std::uint64_t& z) {
  if (K < 2) return;  // no product beside c (c stays the caller's signed zero)
  const int p_lo = product_lo(in), p_hi = product_hi(in);
  const int fb = in.fraction_bits;
  const int u = 1 + d.below(4);                           // the tail's bits
  const int head = 1 + d.below(std::max(1, fb));          // P's bits above the run (its leading bit included)
  const int j = std::max(u + 1, 2 * fb + 1 - head);       // the run and the tail: P's low j bits
  // c's last place at the run's top (or one above): p's leading bit at 2^pe (or 2^(pe+1)), the
  // run's top head bits below it, c out.fraction_bits above that.
  const int top = 2 * fb + 1 - j;
  const int ec_lo = std::max(out.emin, 2 * in.emin + out.fraction_bits + 1 - top);
  const int ec_hi = std::min(out.emax - 1, 2 * (in.emax - 1) + out.fraction_bits - top);
  const int ec = ec_lo + d.below(ec_hi - ec_lo + 1);
  const int lift = d.below(2);
  const int pe = std::max(2 * in.emin, std::min(2 * (in.emax - 1), ec - out.fraction_bits - 1 + top - lift));
  const int ex = std::max(in.emin, std::min(in.emax - 1, half(pe) + d.below(5) - 2));
  const int ey = std::max(in.emin, std::min(in.emax - 1, pe - ex));
  const bool cs = d.coin();
  const bool cf = d.coin();
  z = value(out, d.g, cs, ec, cf);
  const bool xs = d.coin();
  const bool ys = d.coin();
  run_product(in, d, ex, ey, xs, ys, j, u, x[at[0]], y[at[0]]);
  std::size_t used = 1;
  if (d.coin()) {  // -p, or -p': the pair's second step
    const bool exact = d.coin();
    const std::uint64_t low = 1 + static_cast<std::uint64_t>(d.below(3));
    x[at[1]] = x[at[0]] ^ in.sign_mask();
    y[at[1]] = exact ? y[at[0]] : y[at[0]] ^ low;
    used = 2;
  }
  if (used < K && d.below(3) == 0) {  // a third: half c's last place (an RNE midpoint)
    const int h = ec - out.fraction_bits - 1;
    const bool hs = d.coin();
    if (h > p_lo && h < p_hi) {
      x[at[used]] = value(in, d.g, hs, half(h), false);
      y[at[used]] = value(in, d.g, false, h - half(h), false);
    }
  }
}

// Class 15: a top term T on the output's grid (a product of one fraction) and, in consecutive
// places from a block's start (so that they share a block of any fma_size and k split T's
// does), 1-3 products of random fractions: the first with its leading bit near half T's last
// place (a midpoint), the others 12..40 binades below T, where F cuts; c a signed zero, -T
// (the result is then the tail as the alignment kept it, in bits the output holds) or 20..48
// binades below T. Which side of the midpoint (or of the grid point) the kept sum falls on
// shows F and the alignment rounding together (random 198, fma_size 2: F 27 told from 14).
void far_spread(const Format& in, const Format& out, std::size_t K, Draw& d, std::uint64_t* x, std::uint64_t* y,
                std::uint64_t& z) {
  if (K < 2) return;
  const int p_lo = product_lo(in), p_hi = product_hi(in);
  const int q = out.emin - out.fraction_bits;
  const int e_hi = std::max(p_lo + 2, std::min(p_hi - 1, out.emax - 1));
  const int e_lo = std::min(e_hi, std::max(p_lo + 2, out.emin));
  // Half the cases T in the lowest 8 binades of normal operands' products the output holds: c
  // = -T then leaves a result below the output's normal range (flushed or kept).
  const int low_lo = std::min(e_hi, std::max(e_lo, 2 * in.emin));
  const bool low = d.coin();
  const int e = low ? low_lo + d.below(std::min(8, e_hi - low_lo + 1)) : e_lo + d.below(e_hi - e_lo + 1);
  const bool neg = d.coin();
  const bool frac = d.coin();
  const std::size_t blk = K >= 4 ? 4 : 2;  // consecutive places from a multiple of 4 (of 2 when K < 4)
  const std::size_t start = blk * static_cast<std::size_t>(d.below(static_cast<int>(K / blk)));
  std::size_t used = start;
  x[used] = value(in, d.g, neg, half(e), frac);
  y[used] = value(in, d.g, false, e - half(e), false);
  ++used;
  const int cz = d.below(3);
  if (cz == 1) {  // c = -T exactly: x's fraction on the output's grid (or T a power of two)
    const std::uint64_t fmask = (std::uint64_t{1} << in.fraction_bits) - 1;
    const std::uint64_t xf = x[start] & fmask;
    const bool fits = in.fraction_bits <= out.fraction_bits && half(e) >= in.emin && e >= out.emin && e < out.emax;
    if (!fits) x[start] &= ~fmask;
    z = value(out, d.g, !neg, e, false) | (fits ? xf << (out.fraction_bits - in.fraction_bits) : 0);
    // Half: c 1-3 of its last places nearer zero, so that the sum is those places of T's sign
    // (below the output's normal range when T is low). The fraction cannot borrow: T is normal.
    const std::uint64_t places = d.coin() ? static_cast<std::uint64_t>(d.below(3)) + 1 : 0;
    if (z & ((std::uint64_t{1} << out.fraction_bits) - 1) & ~std::uint64_t{3}) z -= places;
  } else {
    const bool cs = d.coin();
    const bool cf = d.coin();
    const int far = 20 + d.below(29);
    z = cz == 0 ? out.zero(cs) : value(out, d.g, cs, std::max(q, e - far), cf);
  }
  const int terms = 1 + d.below(3);
  for (int t = 0; t < terms && used < std::min(K, start + blk); ++t) {
    const int s = t == 0 ? out.fraction_bits + d.below(3) : 12 + d.below(29);
    product(in, d, std::max(p_lo, e - s), x[used], y[used]);
    ++used;
  }
}

}  // namespace tcsim::validation::fit_cases
