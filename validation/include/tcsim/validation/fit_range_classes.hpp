// The range classes of session 30 (issue 26 part 3): four more classes of fit dumps, aimed at
// the keys the 200 random user rows still got wrong with the range mix (docs/fit.md, "Session
// 30: random rows"). structured_cases (fit_suggest.hpp) draws them with range_classes, 4
// cases in 18; range_class_cases draws one class alone (tests: what a class separates).
#pragma once
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

constexpr int kRangeClasses = 8;

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
void range_class_case(int which, const Format& in, const Format& out, std::size_t K, std::mt19937_64& g,
                      std::uint64_t* x, std::uint64_t* y, std::uint64_t& z);

}  // namespace fit_cases

// n cases of class `which` alone (a: n*K, b: n*K, c: n), from `seed`.
void range_class_cases(int which, const Format& in, const Format& out, std::size_t K, std::size_t n,
                       std::uint64_t seed, std::vector<std::uint64_t>& a, std::vector<std::uint64_t>& b,
                       std::vector<std::uint64_t>& c);

}  // namespace tcsim::validation
