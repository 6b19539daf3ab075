// The cases of fit dumps and suggestions: structured_cases (random bit patterns, moderate values,
// cancellation, alignment edges, ties, overflow, underflow, subnormals, signed zeros, specials,
// and with the range mix the classes of fit_range_classes.hpp) and the dump a row gives on them
// (simulated_dump). Declared in fit_suggest.hpp; split from fit_suggest.cpp by purpose.
#include "tcsim/validation/fit_suggest.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>

#include "tcsim/validation/dump_reader.hpp"
#include "tcsim/validation/fit_range_classes.hpp"

namespace tcsim::validation {
namespace fit_cases {  // shared with the range classes of fit_range_classes.cpp

std::uint64_t value(const Format& f, std::mt19937_64& g, bool neg, int e, bool random_fraction) {
  const std::uint64_t fmask = f.fraction_bits ? (std::uint64_t{1} << f.fraction_bits) - 1 : 0;
  std::uint64_t frac = random_fraction ? (g() & fmask) : 0;
  const std::uint64_t sign = neg ? f.sign_mask() : 0;
  if (e > f.emax) e = f.emax;
  if (e < f.emin) {
    if (!f.subnormals || f.fraction_bits == 0) return f.has_zero ? f.zero(neg) : f.max_finite(false);
    const int shift = f.emin - e;  // subnormal: a leading bit at fraction position F - shift
    if (shift > f.fraction_bits) return f.zero(neg);
    const std::uint64_t lead = std::uint64_t{1} << (f.fraction_bits - shift);
    return sign | lead | (frac & (lead - 1));
  }
  const std::uint64_t field = static_cast<std::uint64_t>(e + f.bias);
  std::uint64_t v = sign | (field << f.fraction_bits) | frac;
  if (e == f.emax && v > (sign | (f.max_finite(false) & ~f.sign_mask()))) v = f.max_finite(neg);
  return v;
}

int half(int e) { return e >= 0 ? e / 2 : -((-e + 1) / 2); }

}  // namespace fit_cases
namespace {

using models::DatapathSpec;
using fit_cases::half;
using fit_cases::value;

// A value of `f` at exponent e of random sign (and random fraction or none). C++ leaves the
// order of a call's argument evaluations unspecified, so no call here draws from g in two
// arguments: the caller draws e (its argument), then these draw the fraction switch, then the
// sign. That is the order GCC gave the earlier one-call forms value(f, g, coin(), e) and
// value(f, g, coin(), e, coin()) (right to left), so the dumps measured with GCC builds stay
// the same; clang's now match them.
std::uint64_t any_sign(const Format& f, std::mt19937_64& g, int e) {
  const bool neg = (g() & 1) != 0;
  return value(f, g, neg, e);
}
std::uint64_t any_sign_any_fraction(const Format& f, std::mt19937_64& g, int e) {
  const bool random_fraction = (g() & 1) != 0;
  const bool neg = (g() & 1) != 0;
  return value(f, g, neg, e, random_fraction);
}

// The F-at-every-shift case: a term at 2^e cancelled exactly (after alignment: c and product
// 0, or products 0 and 1) beside one product 2^-s below it, kept or lost by the alignment and
// rounded by its rounding; every other product zero.
void shift_case(const Format& in, const Format& out, std::size_t K, std::mt19937_64& g, int e, int s, std::uint64_t* x,
                std::uint64_t* y, std::uint64_t& z) {
  auto coin = [&] { return (g() & 1) != 0; };
  for (std::size_t t = 0; t < K; ++t) { x[t] = in.zero(coin()); y[t] = any_sign(in, g, 0); }
  const bool c_top = K < 3 || coin();
  const bool neg = coin();
  std::size_t next = 0;
  if (c_top) {
    z = value(out, g, neg, e, false);
    if (K >= 2) { x[0] = value(in, g, !neg, half(e), false); y[0] = value(in, g, false, e - half(e), false); next = 1; }
  } else {
    x[0] = value(in, g, neg, half(e), false);
    y[0] = value(in, g, false, e - half(e), false);
    x[1] = x[0] ^ in.sign_mask();
    y[1] = y[0];
    next = 2;
    z = out.zero(coin());
  }
  if (next < K) {
    const int pe = e - s;
    x[next] = any_sign_any_fraction(in, g, half(pe));
    y[next] = any_sign_any_fraction(in, g, pe - half(pe));
  }
}

// The clamp class for binary16 (and narrower) outputs: their last place near emin (2^-24) is
// so coarse that the bits a clamp drops (2^(clamp - F), far below) move a result only when
// the rest of the sum sits exactly on a rounding boundary. So: a sum below every clamp
// (top term at emin + 1 .. 4 binades below the smallest last place) that is exactly 0 (two opposite products), a grid
// point (c alone) or a midpoint of the output (c and half its last place), beside one tiny
// product of either sign anywhere between the smallest product and the top term: kept when
// E is the top term's exponent, lost (or only its sticky bit kept) when E is clamped, and the
// sign of the zero, the direction of the rounding or the tie then tells them apart.
void boundary_case(const Format& in, const Format& out, std::size_t K, std::mt19937_64& g, std::uint64_t* x,
                   std::uint64_t* y, std::uint64_t& z) {
  auto coin = [&] { return (g() & 1) != 0; };
  auto below = [&](int m) { return static_cast<int>(g() % static_cast<std::uint64_t>(m)); };
  const int lo = 2 * (in.subnormals ? in.emin - in.fraction_bits : in.emin);  // the smallest product
  const int q = out.emin - out.fraction_bits;                                 // the output's smallest last place
  const int top_lo = std::max(lo + 1, q - 4);
  const int top = top_lo + below(std::max(1, out.emin + 2 - top_lo));
  std::vector<std::size_t> at(K);  // the terms' places, shuffled (order and blocks matter to some rows)
  for (std::size_t t = 0; t < K; ++t) {  // Fisher-Yates with g (std::shuffle's draws differ between libraries)
    at[t] = t;
    std::swap(at[t], at[static_cast<std::size_t>(g() % (t + 1))]);
  }
  for (std::size_t t = 0; t < K; ++t) { x[t] = in.zero(coin()); y[t] = any_sign(in, g, 0); }
  z = out.zero(coin());
  std::size_t used = 0;
  const int body = K >= 3 ? below(3) : 1 + below(2);
  if (body == 0) {  // exact zero: a product and its negation
    x[at[0]] = any_sign_any_fraction(in, g, half(top));
    y[at[0]] = any_sign_any_fraction(in, g, top - half(top));
    x[at[1]] = x[at[0]] ^ in.sign_mask();
    y[at[1]] = y[at[0]];
    used = 2;
  } else {  // c on the output's grid (at or above its smallest last place), alone or with half its last place
    const int ec = std::max(top, q);
    const bool neg = coin();
    z = value(out, g, neg, ec, coin());
    const int h = std::max(ec, out.emin) - out.fraction_bits - 1;
    if (body == 2 && h >= lo && K >= 2) {
      x[at[0]] = value(in, g, neg != (below(4) == 0), half(h), false);
      y[at[0]] = value(in, g, false, h - half(h), false);
      used = 1;
    }
  }
  if (used < K) {  // the tiny term
    // Half of them at the bottom of the products' range, where E's floor decides the most.
    const int span = std::max(1, top - lo);
    const int pe = lo + below(coin() ? std::min(span, 8) : span);
    x[at[used]] = any_sign_any_fraction(in, g, half(pe));
    y[at[used]] = any_sign_any_fraction(in, g, pe - half(pe));
  }
}

}  // namespace

void structured_cases(const Format& in, const Format& out, std::size_t K, std::size_t n, std::uint64_t seed,
                      std::vector<std::uint64_t>& a, std::vector<std::uint64_t>& b, std::vector<std::uint64_t>& c,
                      bool range_classes, int only_kind, bool far_classes) {
  std::mt19937_64 g(seed);
  a.assign(n * K, 0);
  b.assign(n * K, 0);
  c.assign(n, 0);
  auto coin = [&] { return (g() & 1) != 0; };
  auto below = [&](int m) { return static_cast<int>(g() % static_cast<std::uint64_t>(m)); };
  const int in_lo = in.subnormals ? in.emin - in.fraction_bits : in.emin;
  // Bf16 -> binary32, basic mix: every 32nd case is replaced by an F-at-every-shift case with
  // s = 41..48, drawn from its own stream (so every other case stays as it was). Those shifts
  // separate F "exact" (CDNA1) from every F <= 40: mi100 bf16 -> fp32 was fitted F 34 with a
  // sticky bit (docs/fit.md). Not for fp16 inputs: their dumps decided it already (mi100 fp16
  // agreed on 10^6), and with the class mi250x fp16 -> fp32 lost its fit from mi100's row.
  const bool exact_shifts = !range_classes && in.fraction_bits == 7 && in.emax == 127 && out.fraction_bits == 23 &&
                            out.emax == 127;
  std::mt19937_64 g_exact(seed ^ 0x6a09e667f3bcc909ull);
  // Range mix: the mix's draw picks among range classes 0-11 (sessions 30-32); session 34's
  // classes 12 and 13 replace every 14th case (one in 28 each, the share the draw gives every
  // class), drawn from their own stream, so that the other cases of a dump stay as they were.
  constexpr int kDrawnRangeClasses = 12;
  // Session 35's classes 14 and 15 replace every 14th case at another place (i % 14 == 6),
  // from a third stream: again one in 28 each, the other cases as they were.
  static_assert(fit_cases::kRangeClasses == kDrawnRangeClasses + 4);
  std::mt19937_64 g_late(seed ^ 0xbb67ae8584caa73bull);
  std::mt19937_64 g_far(seed ^ 0x3c6ef372fe94f82bull);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t* x = a.data() + i * K;
    std::uint64_t* y = b.data() + i * K;
    std::uint64_t& z = c[i];
    // Binary16 (and narrower) outputs: the basic mix holds the F-at-every-shift class too
    // (one case in 12). Their last place hides the bits F keeps except on a rounding boundary,
    // which the basic classes rarely reach: v100 fp16 -> fp16 fitted F 24 for 23 (docs/fit.md).
    // Wider outputs draw exactly as before.
    const bool narrow_out = out.fraction_bits <= 10;
    // Fp8 inputs: the basic mix holds the c-at-the-drop-edge class (14) too; mi300x v1 e4m3fnuz
    // -> fp32 fitted drop_c_below 24 for 25 (docs/fit.md). Other inputs draw as before.
    const bool fp8_in = in.fraction_bits <= 3 && !narrow_out;
    int kind = below(range_classes ? 14 + kDrawnRangeClasses : narrow_out ? 12 : fp8_in ? 12 : 11);
    if (range_classes && kind >= 14) ++kind;  // sessions 30-32's range classes are 15..26 (14: the drop edge)
    if (!range_classes && kind == 11) kind = narrow_out ? 12 : 14;
    if (only_kind >= 0) kind = only_kind;  // one class alone (drawn after the mix's draw: the stream is the same)
    switch (kind) {
      case 0:  // random bit patterns (as the harness's widest distribution)
        for (std::size_t t = 0; t < K; ++t) { x[t] = g() & in.width_mask(); y[t] = g() & in.width_mask(); }
        z = g() & out.width_mask();
        break;
      case 1:  // moderate random values (the published dumps' kind)
        for (std::size_t t = 0; t < K; ++t) { x[t] = any_sign(in, g, below(7) - 3); y[t] = any_sign(in, g, below(7) - 3); }
        z = any_sign(out, g, below(13) - 6);
        break;
      case 2: {  // cancellation: pairs of opposite products, a small remainder, c cancelling or not
        for (std::size_t t = 0; t < K; ++t) { x[t] = any_sign(in, g, below(5) - 2); y[t] = any_sign(in, g, below(5) - 2); }
        for (std::size_t t = 0; t + 1 < K; t += 2 + below(2)) { x[t + 1] = x[t] ^ in.sign_mask(); y[t + 1] = y[t]; }
        if (K > 0 && coin()) x[K - 1] = any_sign(in, g, -below(12) - 4);
        z = coin() ? out.zero(coin()) : any_sign(out, g, below(9) - 4);
        break;
      }
      case 3: {  // alignment edges: one large term, the others 2^-s below, s around F and the carry range
        const int big = below(9) - 4;
        for (std::size_t t = 0; t < K; ++t) {
          const int s = t == 0 ? 0 : 8 + below(34);
          x[t] = any_sign_any_fraction(in, g, half(big - s));
          y[t] = any_sign_any_fraction(in, g, big - s - half(big - s));
        }
        const bool near = coin();  // c near the large term, or 8..41 binades below it
        const bool random_fraction = coin();
        const int ec = near ? big + below(5) - 2 : big - 8 - below(34);
        const bool neg = coin();
        z = value(out, g, neg, ec, random_fraction);
        break;
      }
      case 4: {  // ties and near-ties of the output's last place: c = +-2^e, products at half an ulp
        const int e = below(9) - 4;
        z = any_sign_any_fraction(out, g, e);
        const int ulp = e - out.fraction_bits;
        for (std::size_t t = 0; t < K; ++t) {
          if (t < 2 || coin()) {
            const int pe = ulp - 1 - (t == 0 ? 0 : below(4));
            x[t] = value(in, g, coin(), half(pe), false);
            y[t] = value(in, g, coin(), pe - half(pe), false);
          } else {
            x[t] = in.zero(coin());
            y[t] = any_sign(in, g, 0);
          }
        }
        break;
      }
      case 5: {  // overflow: large c and large products of one sign
        const bool neg = coin();
        for (std::size_t t = 0; t < K; ++t) {
          x[t] = value(in, g, neg, in.emax - below(3));
          y[t] = value(in, g, false, in.emax - below(3));
        }
        const int ec = out.emax - below(2);
        const bool flip = below(4) == 0;
        z = value(out, g, neg != flip, ec);
        if (coin()) z = out.max_finite(neg);  // any same-sign term overflows the exact sum
        break;
      }
      case 6: {  // underflow: results near and below the output's smallest normal
        const int e = out.emin - below(out.fraction_bits + 4) + 2;
        for (std::size_t t = 0; t < K; ++t) {
          const int pe = std::max(e - below(6), 2 * in_lo);
          if (coin()) { x[t] = any_sign(in, g, half(pe)); y[t] = any_sign(in, g, pe - half(pe)); }
          else { x[t] = in.zero(coin()); y[t] = any_sign(in, g, below(5) - 2); }
        }
        z = coin() ? any_sign(out, g, e + below(3) - 1) : out.zero(coin());
        if (coin()) {  // c alone (every product zero): a subnormal or tiny result as given
          for (std::size_t t = 0; t < K; ++t) x[t] = in.zero(coin());
          z = any_sign(out, g, out.emin - 1 - below(out.fraction_bits + 1));
        }
        break;
      }
      case 7: {  // signed zeros: every term zero, some exactly cancelling
        for (std::size_t t = 0; t < K; ++t) {
          x[t] = coin() ? in.zero(coin()) : any_sign(in, g, below(5) - 2);
          y[t] = x[t] == in.zero(false) || x[t] == in.zero(true) ? any_sign(in, g, below(5) - 2) : in.zero(coin());
        }
        z = below(3) == 0 ? any_sign(out, g, 0) : out.zero(coin());
        if (coin()) {  // every term -0 (or every term +0): the sign of an exact zero
          const bool neg = below(4) != 0;
          for (std::size_t t = 0; t < K; ++t) {
            const bool xs = coin();
            x[t] = in.zero(xs);
            y[t] = value(in, g, xs != neg, below(5) - 2);
          }
          z = out.zero(neg);
        }
        if (K >= 2 && coin()) { x[0] = any_sign(in, g, 0); y[0] = any_sign(in, g, 0); x[1] = x[0] ^ in.sign_mask(); y[1] = y[0]; }
        break;
      }
      case 8: {  // specials: Inf and NaN operands or c
        for (std::size_t t = 0; t < K; ++t) { x[t] = any_sign(in, g, below(5) - 2); y[t] = any_sign(in, g, below(5) - 2); }
        z = any_sign(out, g, below(5) - 2);
        const std::size_t t = K ? static_cast<std::size_t>(below(static_cast<int>(K))) : 0;
        switch (below(4)) {
          case 0: if (K && in.infinities) x[t] = in.infinity(coin()); break;
          case 1: if (K && in.has_nan()) y[t] = in.canonical_nan(); break;
          case 2: if (out.infinities) z = out.infinity(coin()); break;
          default: if (K && in.infinities) { x[t] = in.infinity(coin()); y[t] = in.zero(coin()); } break;
        }
        break;
      }
      case 9: {  // subnormal operands (products far below 1, against a c of the same size or none)
        for (std::size_t t = 0; t < K; ++t) {
          x[t] = coin() ? any_sign(in, g, in.emin - 1 - below(std::max(1, in.fraction_bits))) : any_sign(in, g, below(5) - 2);
          y[t] = any_sign(in, g, below(5) - 2);
        }
        z = coin() ? out.zero(coin()) : any_sign(out, g, in.emin - below(6));
        break;
      }
      case 11: {  // the min-exponent clamp: every term at or below the output's emin + 1, spread
                  // down 48 binades (E clamped or not changes where bits are lost; signs mixed so
                  // that a lost tiny term moves a result across the subnormal grid)
        if (out.fraction_bits <= 10 && below(4) != 0) {  // binary16 outputs: 3 in 4 on rounding boundaries
          boundary_case(in, out, K, g, x, y, z);
          break;
        }
        const int e0 = out.emin + 1 - below(out.fraction_bits + 18);
        for (std::size_t t = 0; t < K; ++t) {
          if (below(4) == 0) { x[t] = in.zero(coin()); y[t] = any_sign(in, g, below(5) - 2); continue; }
          const int pe = e0 - below(48);
          if (pe < 2 * in_lo) { x[t] = in.zero(coin()); y[t] = any_sign(in, g, 0); continue; }  // c alone, as fp16 -> fp32 has it
          x[t] = any_sign_any_fraction(in, g, half(pe));
          y[t] = any_sign_any_fraction(in, g, pe - half(pe));
        }
        if (below(4) == 0) {
          z = out.zero(coin());
        } else {
          const bool random_fraction = coin();
          const int ec = e0 - (coin() ? 0 : below(24));
          const bool neg = coin();
          z = value(out, g, neg, ec, random_fraction);
        }
        break;
      }
      case 12: {  // F at every shift: a term cancelled exactly (after alignment) beside one 2^-s
                  // below it, s = 1..48: kept or lost by the alignment, rounded by its rounding
        const int e = below(9) - 4;
        const int s = 1 + below(48);
        shift_case(in, out, K, g, e, s, x, y, z);
        break;
      }
      case 13: {  // carry bits: 2..K+1 same-sign terms of large fraction at one exponent (their
                  // sum reaches 2^(E+1+c) for carry bits c up to log2 of the count), a tiny rest
        const int e = below(9) - 4;
        const bool neg = coin();
        auto large = [&](const Format& f, bool sgn, int ex) {
          std::uint64_t v = value(f, g, sgn, ex);
          if (f.fraction_bits >= 2 && ex >= f.emin && ex < f.emax)
            v |= ((std::uint64_t{1} << f.fraction_bits) - 1) & ~((std::uint64_t{1} << (f.fraction_bits - 2)) - 1);
          return v;
        };
        const std::size_t same = 2 + static_cast<std::size_t>(below(static_cast<int>(K) + 1));
        for (std::size_t t = 0; t < K; ++t) {
          if (t < same) {
            x[t] = large(in, neg, half(e));
            y[t] = large(in, false, e - half(e));
          } else {
            const int pe = e - 1 - below(40);
            x[t] = any_sign(in, g, half(pe));
            y[t] = any_sign(in, g, pe - half(pe));
          }
        }
        z = same > K ? large(out, neg, e + 1) : (coin() ? out.zero(coin()) : any_sign(out, g, e - below(30)));
        if (K >= 2 && below(4) == 0) x[K - 1] ^= in.sign_mask();  // one term back: a borrow after the carry
        break;
      }
      case 14: {  // c at the after-add's drop edge (CDNA3 drops c when e_c < E - 25, docs/units/amd.md):
                  // c 23..26 binades below the largest product, mostly negative (c is floored at
                  // 2^(E-24): a negative c there still counts one unit), beside a product of the
                  // other sign that lowers the result's binade (its last place then 2^(E-24)) and
                  // tiny products of both signs
        for (std::size_t t = 0; t < K; ++t) { x[t] = in.zero(coin()); y[t] = value(in, g, coin(), 0); }
        const int e = below(9) - 4;
        const bool neg = coin();
        std::size_t used = 0;
        auto put = [&](bool sgn, int pe, bool frac) {
          if (used >= K) return;
          const std::size_t t = static_cast<std::size_t>(g() % K);  // any slot (the groups are even and odd)
          if (x[t] != in.zero(false) && x[t] != in.zero(true)) return;
          x[t] = value(in, g, sgn, half(pe), frac);
          y[t] = value(in, g, false, pe - half(pe), frac);
          ++used;
        };
        put(neg, e, coin());
        {  // named draws (argument order is unspecified), in the order GCC gave: last argument first
          const bool frac = coin();
          put(!neg, e - 1 - below(3), frac);
        }
        const int tiny = below(4);
        for (int t = 0; t < tiny; ++t) {
          const bool frac = coin();
          const int pe = e - 8 - below(16);
          put(coin(), pe, frac);
        }
        const bool random_fraction = coin();
        const int ec = e - 23 - below(4);
        const bool same_sign = below(4) == 0;
        z = value(out, g, same_sign ? neg : !neg, ec, random_fraction);
        break;
      }
      case 15:
      case 16:
      case 17:
      case 18:
      case 19:
      case 20:
      case 21:
      case 22:
      case 23:
      case 24:
      case 25:
      case 26:
      case 27:
      case 28:
      case 29:
      case 30:  // the range classes (fit_range_classes.cpp; 27-30: only_kind, or every 14th case below)
        fit_cases::range_class_case(kind - 15, in, out, K, g, x, y, z);
        break;
      default: {  // wide exponent spread (alignment and min-exponent clamps)
        for (std::size_t t = 0; t < K; ++t) {
          x[t] = any_sign(in, g, in_lo + below(in.emax - in_lo + 1));
          y[t] = any_sign(in, g, in_lo + below(in.emax - in_lo + 1));
        }
        z = any_sign(out, g, out.emin - 12 + below(40));
        break;
      }
    }
    if (range_classes && only_kind < 0 && i % 14 == 13) {
      const int which = kDrawnRangeClasses + static_cast<int>(g_late() & 1);
      fit_cases::range_class_case(which, in, out, K, g_late, x, y, z);
    }
    if (range_classes && far_classes && only_kind < 0 && i % 14 == 6) {
      const int which = kDrawnRangeClasses + 2 + static_cast<int>(g_far() & 1);
      fit_cases::range_class_case(which, in, out, K, g_far, x, y, z);
    }
    if (exact_shifts && i % 32 == 31) {
      const int e = static_cast<int>(g_exact() % 5);
      const int s = 41 + static_cast<int>(g_exact() % 8);
      shift_case(in, out, K, g_exact, e, s, x, y, z);
    }
  }
}

DumpSet simulated_dump(const DatapathSpec& row, const Format& in, const Format& out, std::size_t K,
                       std::vector<std::uint64_t> a, std::vector<std::uint64_t> b, std::vector<std::uint64_t> c) {
  DumpSet d;
  d.in = in;
  d.out = out;
  d.k = K;
  d.n = c.size();
  d.a = std::move(a);
  d.b = std::move(b);
  d.c = std::move(c);
  d.d.resize(d.n);
  const models::Unit unit(fitted_unit(row, "hidden"));
  unit.dot_batch(in, out, d.n, K, d.a.data(), d.b.data(), d.c.data(), d.d.data(), fit_instruction(row));
  if (out.precision <= 24 && out.emax <= 127)  // the c file's binary32 values, where binary32 holds them
    for (auto v : d.c) d.c_binary32.push_back(format_to_binary32(v, out));
  return d;
}

}  // namespace tcsim::validation
