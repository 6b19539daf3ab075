// Structured random cases for the exact adder against MPFR (TestFloat-style classes: wide,
// narrow, cancelling pairs, c cancelling the products, subnormals, ties and near-ties,
// specials, huge values). Shared by reference/tests/test_adder_exact_vs_mpfr.cpp and
// `tcsim bench verify` (apps/src/bench_verify.cpp). Deterministic given the seed.
#pragma once
#include <algorithm>
#include <cstdint>
#include <span>

#include "operand_gen.hpp"
#include "tcsim/reference/mpfr_dot.hpp"
#include "tcsim/sim/format.hpp"

namespace tcsim::reftest {

using tcsim::reference::CorrectlyRoundedDot;

constexpr int kMaxK = 16;

enum CaseClass {
  kWide,          // operands over the whole exponent range
  kNarrow,        // operands within a few binades: carries, interactions
  kPairs,         // a_{j+1} = -a_j, b_{j+1} = b_j (+- 1 ulp): massive cancellation
  kCCancels,      // c = -RNE(sum of the products): tiny remainders
  kSubnormal,     // subnormal and tiny operands and c
  kTie,           // exact sum = output value + half its ulp (RNE tie), disguised by pairs
  kNearTie,       // the same plus a tiny product: just above/below the tie
  kSpecial,       // NaN, Inf, zeros mixed in
  kHuge,          // near the top of the ranges: overflow of the output
  kZeros,         // every term zero, half the time every term -0 (the sign of an exact zero)
  kClasses
};
inline const char* class_name(int c) {
  static const char* n[] = {"wide", "narrow", "pairs", "c-cancels", "subnormal", "tie", "near-tie", "special", "huge", "zeros"};
  return n[c];
}

struct Case {
  int k = 0;
  int cls = 0;
  std::uint64_t a[kMaxK] = {}, b[kMaxK] = {};
  std::uint64_t c = 0;
};

// Smallest lead exponent of a product of two values of `in`, largest of the output grid.
inline int min_product_lead(const Format& in) { return 2 * lowest_lead(in); }

class Generator {
 public:
  Generator(const Format& in, const Format& out, std::uint64_t seed)
      : in_(in), out_(out), rng_(seed), rne_(in, in, out, out, Rounding::NearestEven, OverflowMode::Ieee) {}

  // k_fixed in 1..kMaxK fixes the number of products (bench verify batches equal k);
  // 0 draws it.
  void make(Case& cs, int k_fixed = 0) {
    cs.k = k_fixed > 0 ? k_fixed : rng_.range(1, kMaxK);
    cs.cls = static_cast<int>(rng_.below(kClasses));
    Rng& r = rng_;
    const int center = r.range(lowest_lead(in_), in_.emax);
    auto fill = [&](auto gen) {
      for (int j = 0; j < cs.k; ++j) {
        cs.a[j] = gen();
        cs.b[j] = gen();
      }
    };
    auto c_random = [&]() { return r.below(5) == 0 ? zero_pattern(out_, r) : random_finite(out_, r); };
    switch (cs.cls) {
      case kWide:
        fill([&] { return random_finite(in_, r); });
        cs.c = c_random();
        break;
      case kNarrow:
        fill([&] { return value_with_lead(in_, r, center + r.range(-3, 3)); });
        cs.c = r.below(4) == 0 ? zero_pattern(out_, r) : value_with_lead(out_, r, 2 * center + r.range(-6, 6));
        break;
      case kPairs:
        fill([&] { return value_with_lead(in_, r, center + r.range(-4, 4)); });
        mirror_pairs(cs, 0);
        cs.c = r.below(2) == 0 ? zero_pattern(out_, r) : value_with_lead(out_, r, 2 * center + r.range(-40, 4));
        break;
      case kCCancels: {
        fill([&] { return value_with_lead(in_, r, center + r.range(-3, 3)); });
        if (r.below(2) == 0) mirror_pairs(cs, 1);
        const RoundResult s = rne_(std::span<const std::uint64_t>(cs.a, cs.k), std::span<const std::uint64_t>(cs.b, cs.k),
                                   out_.zero(false));
        cs.c = s.overflow || s.invalid ? zero_pattern(out_, r) : negate_any(out_, s.bits);
        break;
      }
      case kSubnormal:
        fill([&] { return r.below(3) == 0 ? random_finite(in_, r) : random_subnormal_or_tiny(in_, r); });
        cs.c = r.below(3) == 0 ? zero_pattern(out_, r) : random_subnormal_or_tiny(out_, r);
        break;
      case kTie:
      case kNearTie:
        if (!make_tie(cs)) {  // no tie reachable: fall back to narrow
          fill([&] { return value_with_lead(in_, r, center + r.range(-3, 3)); });
          cs.c = c_random();
        }
        break;
      case kSpecial:
        fill([&] { return r.below(4) == 0 ? random_special(in_, r) : random_finite(in_, r); });
        cs.c = r.below(4) == 0 ? random_special(out_, r) : c_random();
        break;
      case kHuge:
        fill([&] { return r.below(4) == 0 ? random_finite(in_, r) : random_huge(in_, r); });
        cs.c = r.below(2) == 0 ? random_huge(out_, r) : c_random();
        break;
      case kZeros: {
        const bool all_negative = r.below(2) == 0;
        fill([&] { return all_negative ? in_.zero(true) : zero_pattern(in_, r); });
        if (all_negative)  // -0 * (+0 or a positive value): every product -0
          for (int j = 0; j < cs.k; ++j)
            cs.b[j] = r.below(2) ? value_with_lead(in_, r, center) & ~in_.sign_mask() : in_.zero(false);
        cs.c = all_negative ? out_.zero(true) : zero_pattern(out_, r);
        break;
      }
    }
  }

 private:
  // Pairs (j, j+1): a_{j+1} = -a_j, b_{j+1} = b_j; with perturb, the fraction's last bit of
  // a_{j+1} flips half the time (the pair then leaves one ulp-sized product).
  void mirror_pairs(Case& cs, int perturb) {
    if (!in_.is_signed) return;
    for (int j = 0; j + 1 < cs.k; j += 2) {
      cs.a[j + 1] = negate(in_, cs.a[j]);
      cs.b[j + 1] = cs.b[j];
      if (perturb && (rng_.next() & 1) && in_.fraction_bits > 0) cs.a[j + 1] ^= 1;  // stays finite: fraction lsb
    }
  }
  static std::uint64_t negate_any(const Format& f, std::uint64_t bits) {
    if (!f.is_signed) return bits;
    if (f.nan == NanEncoding::NegativeZero && (bits & ~f.sign_mask()) == 0) return 0;
    return bits ^ f.sign_mask();
  }

  // c = v (an output value), one product = +-half ulp of v (a power of two 2^t = 2^x 2^y),
  // the remaining slots cancelling pairs; kNearTie adds the smallest product too.
  bool make_tie(Case& cs) {
    Rng& r = rng_;
    const int p = out_.precision;
    const int t_lo = std::max(min_product_lead(in_), out_.subnormals ? out_.emin - p : out_.emin - p + 1);
    const int t_hi = std::min(2 * in_.emax, out_.emax - p);
    if (t_lo > t_hi) return false;
    const int t = r.range(t_lo, t_hi);
    int lead = t + p;  // v normal with quantum 2^(t+1)
    if (lead < out_.emin) return false;
    if (out_.subnormals && t == out_.emin - p) lead = r.range(lowest_lead(out_), out_.emin);  // subnormal grid
    // 2^t = 2^x * 2^y with both representable in the input format.
    int x = 0;
    std::uint64_t ax = 0, by = 0;
    bool ok = false;
    for (int attempt = 0; attempt < 8 && !ok; ++attempt) {
      x = r.range(std::max(lowest_lead(in_), t - in_.emax), std::min(in_.emax, t - lowest_lead(in_)));
      ok = power_of_two(in_, x, r.next() & 1, ax) && power_of_two(in_, t - x, r.next() & 1, by);
    }
    if (!ok) return false;
    std::uint64_t v = value_with_lead(out_, r, lead);
    if (lead == t + p && out_.max_finite(false) == (v & ~out_.sign_mask())) v ^= 1;  // keep v + ulp/2 finite-ish
    cs.c = v;
    int j = 0;
    cs.a[j] = ax;
    cs.b[j] = by;
    ++j;
    if (cs.cls == kNearTie && j < cs.k) {  // the smallest positive product, either sign
      std::uint64_t s1 = 0, s2 = 0;
      power_of_two(in_, lowest_lead(in_), r.next() & 1, s1);
      power_of_two(in_, lowest_lead(in_), false, s2);
      cs.a[j] = s1;
      cs.b[j] = s2;
      ++j;
    }
    const int center = r.range(lowest_lead(in_), in_.emax);
    for (; j + 1 < cs.k; j += 2) {
      cs.a[j] = value_with_lead(in_, r, center + r.range(-3, 3));
      cs.b[j] = value_with_lead(in_, r, center + r.range(-3, 3));
      cs.a[j + 1] = in_.is_signed ? negate(in_, cs.a[j]) : in_.zero(false);
      cs.b[j + 1] = in_.is_signed ? cs.b[j] : in_.zero(false);
    }
    for (; j < cs.k; ++j) {
      cs.a[j] = in_.zero(false);
      cs.b[j] = random_finite(in_, r);
    }
    // Shuffle the products (order must not matter).
    for (int i = cs.k - 1; i > 0; --i) {
      const int s = static_cast<int>(r.below(static_cast<std::uint64_t>(i) + 1));
      std::swap(cs.a[i], cs.a[s]);
      std::swap(cs.b[i], cs.b[s]);
    }
    return true;
  }

  const Format& in_;
  const Format& out_;
  Rng rng_;
  CorrectlyRoundedDot rne_;
};

}  // namespace tcsim::reftest
