// Independent MPFR reference for round_to_format, used by the [formats] tests.
//
// A value is first rounded to the format's precision in MPFR's wide default exponent
// range; then the range is narrowed to the format's emin (emax stays unbounded) and
// mpfr_check_range + mpfr_subnormalize, fed the ternary value, finish the rounding without
// double rounding (the emulation the MPFR manual describes). MPFR has no E4M3/FNUZ/no-Inf
// semantics, so overflow is decided here, on the unbounded result, by the rule of
// OverflowMode. Round-to-odd is MPFR's RZ result with the last bit set when inexact.
// Formats without subnormals use emin+1 as MPFR's emin: values below 2^emin then round
// to 0 or 2^emin, a tie to 0.
#pragma once
#include <mpfr.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "tcsim/sim/exact.hpp"
#include "tcsim/sim/format.hpp"
#include "tcsim/sim/rounding.hpp"

namespace tcsim::test {

struct RefResult {
  std::uint64_t bits = 0;
  bool inexact = false;
  bool overflow = false;
};

inline mpfr_rnd_t mpfr_mode(Rounding m) {
  switch (m) {
    case Rounding::NearestEven: return MPFR_RNDN;
    case Rounding::Up: return MPFR_RNDU;
    case Rounding::Down: return MPFR_RNDD;
    default: return MPFR_RNDZ;  // TowardZero, and ToOdd (LSB set afterwards)
  }
}

// The overflow rule of rounding.hpp, restated from its documentation.
inline std::uint64_t ref_overflow(const Format& f, Rounding mode, OverflowMode ovf, bool neg) {
  if (ovf == OverflowMode::FormatDefault) ovf = f.saturate ? OverflowMode::Saturate : OverflowMode::Ieee;
  const bool toward_zero = mode == Rounding::TowardZero || mode == Rounding::ToOdd ||
                           (mode == Rounding::Down && !neg) || (mode == Rounding::Up && neg);
  if (ovf == OverflowMode::Saturate) return f.max_finite(neg);
  if (ovf == OverflowMode::ToNaN) return f.has_nan() ? f.canonical_nan() : f.max_finite(neg);
  if (ovf == OverflowMode::Infinity)
    return f.infinities ? f.infinity(neg) : f.has_nan() ? f.canonical_nan() : f.max_finite(neg);
  if (toward_zero) return f.max_finite(neg);
  if (f.infinities) return f.infinity(neg);
  if (f.has_nan()) return f.canonical_nan();
  return f.max_finite(neg);
}

// Encodes the exact value (-1)^neg * z * 2^e (on the format's grid, any exponent) or
// applies the overflow rule.
inline RefResult ref_encode(const Format& f, bool neg, std::uint64_t z, long e, Rounding mode, OverflowMode ovf) {
  RefResult r;
  if (z == 0) {
    r.bits = f.has_zero ? f.zero(neg) : 0;
    return r;
  }
  while ((z & 1) == 0) z >>= 1, ++e;
  int n = 63;
  while (!((z >> n) & 1)) --n;
  const long lead = e + n;
  const int p = f.precision;
  const std::uint64_t sign = neg ? f.sign_mask() : 0;
  const std::uint64_t sig_p = z << (p - 1 - n);  // n <= p-1 on the grid
  if (lead > f.emax || (lead == f.emax && sig_p > f.max_finite_significand())) {
    r.bits = ref_overflow(f, mode, ovf, neg);
    r.overflow = true;
    return r;
  }
  if (lead < f.emin) {  // subnormal: fraction = value / 2^(emin-p+1)
    r.bits = sign | (z << (e - (f.emin - p + 1)));
    return r;
  }
  const auto field = static_cast<std::uint64_t>(lead + f.bias);
  const std::uint64_t frac = p == 1 ? 0 : sig_p & ((std::uint64_t{1} << (p - 1)) - 1);
  r.bits = sign | (field << (p - 1)) | frac;
  return r;
}

// Rounds the value produced by `set` (which sets its argument, of the format's precision,
// in the default exponent range and returns the ternary value) into `f`. Finite values only.
class MpfrRounder {
 public:
  MpfrRounder() { mpfr_init2(y_, 64); mpz_init(z_); }
  ~MpfrRounder() { mpfr_clear(y_); mpz_clear(z_); }
  MpfrRounder(const MpfrRounder&) = delete;
  MpfrRounder& operator=(const MpfrRounder&) = delete;

  template <class Set>
  RefResult round(const Format& f, Rounding mode, OverflowMode ovf, Set&& set) {
    const mpfr_rnd_t rnd = mpfr_mode(mode);
    mpfr_set_prec(y_, f.precision);  // MPFR 4 allows precision 1
    int t = set(y_, rnd);
    const mpfr_exp_t old_emin = mpfr_get_emin(), old_emax = mpfr_get_emax();
    // MPFR writes x = 0.1b... * 2^E, one above our lead exponent convention.
    mpfr_set_emin(f.subnormals ? f.emin - f.precision + 2 : f.emin + 1);
    mpfr_set_emax(mpfr_get_emax_max());
    t = mpfr_check_range(y_, t, rnd);
    if (f.subnormals) t = mpfr_subnormalize(y_, t, rnd);
    mpfr_set_emin(old_emin);
    mpfr_set_emax(old_emax);

    const bool neg = mpfr_signbit(y_) != 0;
    std::uint64_t z = 0;
    long e = 0;
    if (!mpfr_zero_p(y_)) {
      e = mpfr_get_z_2exp(z_, y_);
      mpz_abs(z_, z_);
      z = mpz_get_ui(z_);
    }
    if (mode == Rounding::ToOdd && t != 0) {
      // Move to the quantum of the RZ result's binade and set its last bit.
      long lead = z == 0 ? f.emin - 1 : e + 63 - __builtin_clzll(z);
      long q = f.subnormals ? std::max<long>(lead, f.emin) - (f.precision - 1)
                            : (lead < f.emin ? f.emin : lead - (f.precision - 1));
      if (z != 0) {
        while (e > q) z <<= 1, --e;
        while (e < q) z >>= 1, ++e;  // RZ results lie on the grid: only zeros drop out
      }
      e = q;
      z |= 1;
    }
    RefResult r = ref_encode(f, neg, z, e, mode, ovf);
    r.inexact = t != 0 || r.overflow;
    return r;
  }

 private:
  mpfr_t y_;
  mpz_t z_;
};

// Exact ExactValue (finite) into an MPFR variable of just enough precision.
inline void mpfr_set_exact(mpfr_t out, const ExactValue& x) {
  std::vector<unsigned long> words;
  boost::multiprecision::export_bits(x.significand, std::back_inserter(words), 64);
  mpz_t z;
  mpz_init(z);
  mpz_import(z, words.size(), 1, sizeof(unsigned long), 0, 0, words.data());
  const auto bits = static_cast<mpfr_prec_t>(msb(x.significand) + 1);
  mpfr_set_prec(out, bits);
  mpfr_set_z_2exp(out, z, x.exponent, MPFR_RNDN);  // exact
  if (x.negative) mpfr_neg(out, out, MPFR_RNDN);
  mpz_clear(z);
}

}  // namespace tcsim::test
