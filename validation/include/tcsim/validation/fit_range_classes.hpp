// The range classes of sessions 30-35 (issue 26 part 3): sixteen more classes of fit dumps, aimed
// at the keys the 200 random user rows still got wrong with the range mix (docs/fit.md,
// "Session 30: random rows", "Session 31/32: disagreeing rows", "Session 35: classes for chains
// and far terms"). structured_cases (fit_suggest.hpp) draws them with range_classes (classes 0-11
// by the mix's draw; 12-13 and 14-15 each replace every 14th case, from their own streams);
// range_class_cases draws one class alone (tests: what a class separates).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "tcsim/sim/format.hpp"

namespace tcsim::validation {

namespace fit_cases {

// A finite value of `f` (shared by the dump generators): sign, exponent e (clamped to the
// format's range; below emin a subnormal when the format has them) and random fraction bits.
std::uint64_t value(const Format& f, std::mt19937_64& g, bool neg, int e, bool random_fraction = true);

// The exponent of a product of two values near 1 that puts its leading bit near 2^e.
int half(int e);

// The classes' draws (every one into a named local: the order of a call's arguments is unspecified).
struct Draw {
  std::mt19937_64& g;
  bool coin() { return (g() & 1) != 0; }
  int below(int m) { return static_cast<int>(g() % static_cast<std::uint64_t>(std::max(1, m))); }
};

// The leading-bit exponents of the products of `in` (subnormal operands included).
inline int product_lo(const Format& in) { return 2 * (in.subnormals ? in.emin - in.fraction_bits : in.emin); }
inline int product_hi(const Format& in) { return 2 * in.emax; }

// A product near 2^pe of random signs and fractions into x, y (an operand's exponent each).
inline void product(const Format& in, Draw& d, int pe, std::uint64_t& x, std::uint64_t& y) {
  const bool xs = d.coin();
  const bool ys = d.coin();
  x = value(in, d.g, xs, half(pe));
  y = value(in, d.g, ys, pe - half(pe));
}

constexpr int kRangeClasses = 16;

// One case of class `which` (0 .. kRangeClasses - 1) into x[0..K), y[0..K), z:
//  0 grid point and tiny terms: a term T on the output's grid (c, or a product of at most the
//    output's precision), sometimes with a term of half T's last place beside it (an RNE tie),
//    and 1-3 tiny terms 2^-s below T (s = 1..52), the rest zero. The directed final roundings
//    and the ties show whether the alignment kept the tiny terms (F), in which direction it
//    rounded them (rz, rne, rd, ru) and whether a sticky bit recorded them.
//  1 subnormal sums: every term a product within the output's subnormal range (4 binades
//    below its smallest last place .. emin + 1), mixed signs, some cancelling exactly, some
//    zero terms of either sign, c a signed zero or a tiny value: a min-exponent clamp drops
//    the low bits of these terms, and many of them move a subnormal result or the sign of a
//    zero. Pairs whose products cannot reach that range (fp16 -> fp32) draw class 0 instead.
//  2 a shift the output shows: a pair cancelled exactly at 2^e (c and a product, or two
//    products) and one product 2^-s below it (s = 1..52) whose exponent lies between the
//    output's smallest last place and emin + 8: the result is that term as the alignment kept
//    it, in bits the output holds. structured_cases' F-at-every-shift class puts the pair at
//    2^-4..2^4, so for binary16 outputs a term beyond a shift of about 28 fell below the
//    output's range, where only its sign or a rounding to the smallest subnormal showed; F
//    of 24-40 was then decided by few cases (random rows 92, 101: F one off).
//  3 a cut near F: class 0 with the tiny terms' shift drawn over 12..40 (where the search
//    space's F lie) instead of 1..52, and 2-3 tiny terms of random fractions, so the cut
//    falls within their bits: the alignment rounding coupled with F (random rows 38, 104,
//    47, 134; class 0 reached it about one shift in 52).
//  4 a cut the output shows near F: class 2 with the shift drawn over 10..42 (F's 12..40 and
//    the term's own bits), the term anywhere in the output's normal range (so every bit the
//    alignment kept shows) and half the cases a second term 0-3 binades below it: a pair
//    cancelled at the top of the products' range beside a term 23-33 binades below (random
//    171, 177, 116: alignment rounding with F; class 2 reached it one shift in 52, and for
//    binary16 outputs only below emin + 8).
//  5 a carry edge: 2^j products of one sign, each just below 2^(e+2) (operands of all-ones
//    fractions but for 0-3 random low bits), so their sum lies just under 2^(e+2+j), and c
//    of their sign (3 in 4) from half that edge down to about their shortfall: sums just over
//    or under the edge, where a register of j + 1 carry bits wraps (random 62, 150: carry 3
//    and 5 told from 6 and 3 by 11 and 13 of 10^6 cases before).
//  6 the output's top: c near the output's largest finite value and products of its sign (3
//    in 4) from just below the top down to its last place there, so the sum crosses the
//    overflow threshold by little and a directed final (or final-add) rounding shows the
//    overflow rule (random 71: ieee told from inf); a quarter of the cases Inf times a
//    subnormal or zero operand (flushed subnormal inputs give NaN; random 11).
//  7 a sum on the output's grid and c beyond the cut: a product T (a power of two half the
//    time: a binade's edge), 0-2 products on T's output grid, a third of the cases half T's
//    last place beside it (a tie), half the cases a tiny product, and c 20..52 binades below
//    T (T drawn high enough for c to reach there) or at the output's bottom binades: the
//    alignment rounds c (and the tiny product) at its cut, and the directed final roundings
//    or the tie show in which direction (random 38, 172, 27).
//  8 the widest cut: class 7 with c 20..44 binades below T and T in the top 4 binades the
//    output and the products share (the output's top binade included), so where the
//    output's range is narrower than the shift, c lands on the output's smallest last place:
//    a cut beyond the largest F (e4m3 -> fp16 reaches a shift of 39: random 4, F 38).
//  9 below the output's normal range: the terms' top anywhere from 8 binades below the
//    output's smallest last place to emin + 1, and either 2^j products of one sign each just
//    below a power of two (a carry edge where the clamp's E, not the terms', sets the
//    register: random 15, 77) or 1-2 pairs p, -p' with p' p but for an operand's last 1-2
//    bits (a remainder a clamp's cut drops: random 12, 164); a third of the cases half the
//    smallest last place beside them (a tie); c a signed zero or subnormal. Pairs whose
//    products cannot reach that range draw class 0 instead.
// 10 a grid point and a near-cancelling pair at the cut: T (c, so on the output's grid, or a
//    product of one fraction) and 8..44 binades below it p and -p', p' p but for an
//    operand's last 1-2 bits, a third of the cases half T's last place beside them (a tie):
//    each of the pair is rounded at F's cut on its own, so the kept sum is 0 or a unit of
//    either sign by the alignment rounding, which a directed final rounding or the tie shows
//    (random 107: rd told from rz, 3 of 10^6 before).
// 11 zeros from subnormal operands: every product a subnormal times a normal, two subnormals
//    or zero times a subnormal, all of one sign (3 in 4), c a zero or subnormal of that sign
//    (3 in 4): where subnormal inputs are flushed, the flushed zeros' signs (kept or +0,
//    `flushed_input_sign`) decide the sign of the zero result (random 134, 143).
// 12 the widest cut (session 34): the top term at the top 2 binades the products and the
//    output share (a quarter of the cases anywhere in the products' range), and s = 8..48
//    binades below it, not below the products' bottom (c: not below the output's smallest last
//    place), either (half) a pair cancelled exactly at the top beside c of random fraction whose
//    last bits lie there (and half the time a product there too), or 1-3 products of one sign
//    at the top (a sum on the output's grid) beside a power-of-two unit of either sign (a
//    product, or a third of the cases c), a third of the cases half the top's last place (a
//    tie), half the cases a term of the unit's other sign 1-4 binades below it. Classes 4, 7
//    and 8 draw the top term and the shift independently, so a cut at the products' widest
//    spread (e4m3: 2^16 beside 2^-18) was rare (random 51, 171, 192: F 39/37/36 told from
//    34/33/33 by 0-3 of 5,000 cases of any class).
// 13 near-cancelling pairs below the output's normal range (session 34): the terms' top as in
//    class 9; half the cases (K >= 4) four products x y, -x y', -x' y, x' y' (x', y' x and y
//    but for their last 1-2 bits), whose exact sum (x - x')(y - y') is a few of their last
//    places, the rest 1-4 pairs p, -p' (remainders of one sign or each its own); c a signed
//    zero or 1-2 smallest last places. Whether a clamp's cut (or F's) drops that remainder
//    decides a zero's sign or a subnormal result (random 162, 164: clamps told apart by 0-2
//    of 5,000 cases before). Pairs whose products cannot reach that range draw class 0.
// 14 a chain's rounding residue (session 35): c on the output's grid (a quarter of the cases a
//    product of few bits), half the cases in the lowest 8 binades that leave room below it, and
//    p, -p (or -p', p' p but for an operand's last 1-2 bits) s binades below it, the cut 12..40
//    below the top falling within p's bits; half the cases (4 free places) a second pair 0-3
//    binades lower; a third half the top's last place. Each step of a chain of FMAs (fma_size
//    1) rounds its addend at the cut, so rd/ru leave residues of one sign, rz of opposite signs:
//    the directed final rounding of a sum that is exactly c shows them (random 107: alignment
//    rd told from rz by 2 of 10^6 cases with classes 0-13).
// 15 terms at the cut beside a cancelled top (session 35): a term at 2^e cancelled exactly (c
//    and a product of at most the output's bits, or two products) and 1-3 products of random
//    fractions whose bits straddle a cut 12..40 binades below it, all in consecutive places
//    from a multiple of 4 (so they share a block of any fma_size); with two products c a signed
//    zero, on the grid at the top, or 20..48 binades below. The result is what the alignment
//    kept (random 198, fma_size 2: F 27 told from 14 by about one case per dump before).
void range_class_case(int which, const Format& in, const Format& out, std::size_t K, std::mt19937_64& g,
                      std::uint64_t* x, std::uint64_t* y, std::uint64_t& z);

// Classes 14 and 15 (fit_far_classes.cpp); `at` the terms' places, shuffled.
void chain_residue(const Format& in, const Format& out, std::size_t K, Draw& d, const std::vector<std::size_t>& at,
                   std::uint64_t* x, std::uint64_t* y, std::uint64_t& z);
void far_spread(const Format& in, const Format& out, std::size_t K, Draw& d, std::uint64_t* x, std::uint64_t* y,
                std::uint64_t& z);

}  // namespace fit_cases

// n cases of class `which` alone (a: n*K, b: n*K, c: n), from `seed`.
void range_class_cases(int which, const Format& in, const Format& out, std::size_t K, std::size_t n,
                       std::uint64_t seed, std::vector<std::uint64_t>& a, std::vector<std::uint64_t>& b,
                       std::vector<std::uint64_t>& c);

}  // namespace tcsim::validation
