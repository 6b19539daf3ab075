// MPFR reference: decoding, exact dot products, correct rounding into a format, printing.
// See mpfr_dot.hpp for the contract; comments here explain the MPFR mechanics.
#include "tcsim/reference/mpfr_dot.hpp"

#include <gmp.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <stdexcept>
#include <utility>
#include <vector>

namespace tcsim::reference {

// ---------------------------------------------------------------------------------------
// Mpfr, MpfrExponentRange

Mpfr::Mpfr(mpfr_prec_t precision) { mpfr_init2(v_, std::max<mpfr_prec_t>(precision, MPFR_PREC_MIN)); }
Mpfr::~Mpfr() { mpfr_clear(v_); }
Mpfr::Mpfr(const Mpfr& o) {
  mpfr_init2(v_, mpfr_get_prec(o.v_));
  mpfr_set(v_, o.v_, MPFR_RNDN);  // same precision: exact
}
Mpfr& Mpfr::operator=(const Mpfr& o) {
  if (this != &o) {
    mpfr_set_prec(v_, mpfr_get_prec(o.v_));
    mpfr_set(v_, o.v_, MPFR_RNDN);
  }
  return *this;
}
Mpfr::Mpfr(Mpfr&& o) noexcept {
  mpfr_init2(v_, MPFR_PREC_MIN);
  mpfr_swap(v_, o.v_);
}
Mpfr& Mpfr::operator=(Mpfr&& o) noexcept {
  mpfr_swap(v_, o.v_);
  return *this;
}

MpfrExponentRange::MpfrExponentRange() : saved_emin_(mpfr_get_emin()), saved_emax_(mpfr_get_emax()) {}
MpfrExponentRange::~MpfrExponentRange() {
  // Widen first so that neither call can fail against the other bound.
  mpfr_set_emin(mpfr_get_emin_min());
  mpfr_set_emax(mpfr_get_emax_max());
  mpfr_set_emin(saved_emin_);
  mpfr_set_emax(saved_emax_);
}
void MpfrExponentRange::set(mpfr_exp_t emin, mpfr_exp_t emax) {
  set_widest();
  if (mpfr_set_emin(emin) != 0 || mpfr_set_emax(emax) != 0)
    throw std::out_of_range("MPFR exponent range cannot hold [" + std::to_string(emin) + ", " +
                            std::to_string(emax) + "]");
}
void MpfrExponentRange::set_widest() {
  mpfr_set_emin(mpfr_get_emin_min());
  mpfr_set_emax(mpfr_get_emax_max());
}

bool mpfr_is_thread_safe() { return mpfr_buildopt_tls_p() != 0; }

mpfr_rnd_t to_mpfr_rnd(Rounding mode) {
  switch (mode) {
    case Rounding::NearestEven: return MPFR_RNDN;
    case Rounding::TowardZero: return MPFR_RNDZ;
    case Rounding::Up: return MPFR_RNDU;
    case Rounding::Down: return MPFR_RNDD;
    default: break;
  }
  throw std::invalid_argument("rounding: MPFR has no mode for '" + to_string(mode) +
                              "'; allowed: rne, rz, ru, rd");
}

namespace {

[[noreturn]] void inexact_failure(const char* where) {
  throw std::logic_error(std::string("tcsim::reference: MPFR reported an inexact result in ") + where +
                         " (the precision computation is wrong)");
}

// ---------------------------------------------------------------------------------------
// Decoding. Encoding facts (format.hpp, format.cpp): fraction_bits = p-1; exponent field
// = exponent + bias; field 0 holds zero and subnormals when the format has a zero (a nonzero
// fraction there reads as a signed zero in a format without subnormals); fields above
// max_finite_field() are Inf (zero fraction, formats with infinities) or NaN; in the top
// finite field, significands above max_finite_significand() are NaN (AllOnes: E4M3's
// S.1111.111); NegativeZero: the -0 pattern is the only NaN.

struct Parts {
  enum Kind { Zero, Finite, Inf, NaN } kind = Zero;
  bool negative = false;
  std::uint64_t significand = 0;  // integer significand (implicit bit included)
  long exponent = 0;              // value = significand * 2^exponent
};

Parts decode_parts_ref(const Format& fmt, std::uint64_t bits) {
  if ((bits & ~fmt.width_mask()) != 0)
    throw std::invalid_argument("bits: pattern has bits set above the " + std::to_string(fmt.width) +
                                "-bit width of format '" + fmt.name + "'");
  Parts r;
  if (fmt.nan == NanEncoding::NegativeZero && bits == fmt.sign_mask()) {
    r.kind = Parts::NaN;
    return r;
  }
  r.negative = fmt.is_signed && (bits & fmt.sign_mask()) != 0;
  const std::uint64_t frac_mask = fmt.fraction_bits == 0 ? 0 : (std::uint64_t{1} << fmt.fraction_bits) - 1;
  const std::uint64_t frac = bits & frac_mask;
  const std::uint64_t field_mask = (std::uint64_t{1} << fmt.exponent_bits) - 1;
  const long field = static_cast<long>((bits >> fmt.fraction_bits) & field_mask);
  const long top = fmt.max_finite_field();
  if (field > top) {
    r.kind = (frac == 0 && fmt.infinities && field == top + 1) ? Parts::Inf : Parts::NaN;
    return r;
  }
  const std::uint64_t implicit = std::uint64_t{1} << fmt.fraction_bits;
  if (field == 0 && fmt.has_zero) {
    if (frac == 0 || !fmt.subnormals) {
      r.kind = Parts::Zero;
      return r;
    }
    r.kind = Parts::Finite;
    r.significand = frac;
    r.exponent = static_cast<long>(fmt.emin) - fmt.fraction_bits;
    return r;
  }
  const std::uint64_t sig = implicit | frac;
  if (field == top && sig > fmt.max_finite_significand()) {
    r.kind = Parts::NaN;
    return r;
  }
  r.kind = Parts::Finite;
  r.significand = sig;
  r.exponent = field - fmt.bias - fmt.fraction_bits;
  return r;
}

void set_parts(mpfr_ptr out, const Parts& p) {
  switch (p.kind) {
    case Parts::NaN: mpfr_set_nan(out); return;
    case Parts::Inf: mpfr_set_inf(out, p.negative ? -1 : 1); return;
    case Parts::Zero: mpfr_set_zero(out, p.negative ? -1 : 1); return;
    case Parts::Finite: break;
  }
  static_assert(sizeof(unsigned long) >= 8, "needs 64-bit unsigned long (LP64)");
  if (mpfr_set_ui_2exp(out, p.significand, p.exponent, MPFR_RNDN) != 0) inexact_failure("decode");
  if (p.negative) mpfr_neg(out, out, MPFR_RNDN);
}

mpfr_prec_t format_prec(const Format& f) { return std::max<mpfr_prec_t>(f.precision, MPFR_PREC_MIN); }

// BigInt <-> mpz through 64-bit limbs (boost import/export_bits).
void bigint_to_mpz(mpz_t out, const BigInt& v) {
  std::vector<std::uint64_t> words;
  BigInt m = abs(v);
  boost::multiprecision::export_bits(m, std::back_inserter(words), 64);  // most significant first
  if (words.empty()) {
    mpz_set_ui(out, 0);
  } else {
    mpz_import(out, words.size(), 1, sizeof(std::uint64_t), 0, 0, words.data());
  }
  if (v < 0) mpz_neg(out, out);
}

BigInt mpz_to_bigint(const mpz_t v) {
  const std::size_t n = (mpz_sizeinbase(v, 2) + 63) / 64;
  std::vector<std::uint64_t> words(n + 1, 0);
  std::size_t count = 0;
  mpz_export(words.data(), &count, 1, sizeof(std::uint64_t), 0, 0, v);
  BigInt r = 0;
  if (count > 0) boost::multiprecision::import_bits(r, words.begin(), words.begin() + static_cast<long>(count), 64);
  if (mpz_sgn(v) < 0) r = -r;
  return r;
}

// Exponent (of the least significant bit) and bit length of a finite nonzero MPFR value.
struct Span2 {
  long lsb, msb;
};
Span2 bit_span(mpfr_srcptr x) {
  // x = 0.1xxx * 2^E; with precision P its lsb is at 2^(E-P) (or higher when trailing zeros).
  const long e = mpfr_get_exp(x);
  const long p = mpfr_get_prec(x);
  return {e - p, e - 1};
}

}  // namespace

void decode_to_mpfr(mpfr_ptr out, const Format& fmt, std::uint64_t bits) {
  const Parts p = decode_parts_ref(fmt, bits);
  mpfr_set_prec(out, format_prec(fmt));
  set_parts(out, p);
}

Mpfr decode_to_mpfr(const Format& fmt, std::uint64_t bits) {
  Mpfr r(format_prec(fmt));
  decode_to_mpfr(r.get(), fmt, bits);
  return r;
}

void to_mpfr(mpfr_ptr out, const ExactValue& x) {
  switch (x.kind) {
    case ValueKind::NaN: mpfr_set_nan(out); return;
    case ValueKind::Infinity: mpfr_set_inf(out, x.negative ? -1 : 1); return;
    case ValueKind::Zero: mpfr_set_zero(out, x.negative ? -1 : 1); return;
    case ValueKind::Finite: break;
  }
  if (x.significand <= 0) throw std::invalid_argument("value: finite ExactValue needs a significand > 0");
  const std::int64_t bitlen = msb(x.significand) + 1;
  const std::int64_t lead = x.exponent + bitlen;  // MPFR exponent of the value
  if (lead > mpfr_get_emax_max() || lead < mpfr_get_emin_min() || x.exponent < LONG_MIN / 2 ||
      x.exponent > LONG_MAX / 2)
    throw std::out_of_range("value: exponent " + std::to_string(x.exponent) + " is beyond MPFR's range");
  mpz_t z;
  mpz_init(z);
  bigint_to_mpz(z, x.significand);
  mpfr_set_prec(out, std::max<mpfr_prec_t>(static_cast<mpfr_prec_t>(bitlen), MPFR_PREC_MIN));
  MpfrExponentRange range;
  range.set_widest();
  const int t = mpfr_set_z_2exp(out, z, static_cast<mpfr_exp_t>(x.exponent), MPFR_RNDN);
  mpz_clear(z);
  if (t != 0) inexact_failure("to_mpfr");
  if (x.negative) mpfr_neg(out, out, MPFR_RNDN);
}

Mpfr to_mpfr(const ExactValue& x) {
  Mpfr r(MPFR_PREC_MIN);
  to_mpfr(r.get(), x);
  return r;
}

ExactValue from_mpfr(mpfr_srcptr x) {
  if (mpfr_nan_p(x)) return ExactValue::nan();
  if (mpfr_inf_p(x)) return ExactValue::infinity(mpfr_signbit(x) != 0);
  if (mpfr_zero_p(x)) return ExactValue::zero(mpfr_signbit(x) != 0);
  mpz_t z;
  mpz_init(z);
  mpfr_exp_t e = mpfr_get_z_2exp(z, x);
  const bool neg = mpz_sgn(z) < 0;
  mpz_abs(z, z);
  const mp_bitcnt_t tz = mpz_scan1(z, 0);
  mpz_tdiv_q_2exp(z, z, tz);
  ExactValue r;
  r.kind = ValueKind::Finite;
  r.negative = neg;
  r.significand = mpz_to_bigint(z);
  r.exponent = static_cast<std::int64_t>(e) + static_cast<std::int64_t>(tz);
  mpz_clear(z);
  return r;
}

// ---------------------------------------------------------------------------------------
// Exact dot product

bool exact_dot_mpfr(mpfr_ptr out, const Format& in_a, const Format& in_b, const Format& c_fmt,
                    std::span<const std::uint64_t> a, std::span<const std::uint64_t> b, std::uint64_t c) {
  if (a.size() != b.size())
    throw std::invalid_argument("b: length " + std::to_string(b.size()) + " differs from the length " +
                                std::to_string(a.size()) + " of a");
  // Thread-local scratch: the operands and products of the current call.
  thread_local std::vector<Mpfr> terms;
  const std::size_t k = a.size();
  if (terms.size() < k + 1) terms.resize(k + 1);

  bool any_nan = false, pos_inf = false, neg_inf = false;
  bool all_negative_zero = true;
  Parts pc = decode_parts_ref(c_fmt, c);
  std::size_t nterms = 0;  // nonzero finite terms stored in terms[0..nterms)
  auto note_special = [&](Parts::Kind kind, bool negative) {
    if (kind == Parts::NaN) any_nan = true;
    if (kind == Parts::Inf) (negative ? neg_inf : pos_inf) = true;
  };
  note_special(pc.kind, pc.negative);
  if (!(pc.kind == Parts::Zero && pc.negative)) all_negative_zero = false;
  if (pc.kind == Parts::Finite) {
    mpfr_set_prec(terms[nterms].get(), format_prec(c_fmt));
    set_parts(terms[nterms].get(), pc);
    ++nterms;
  }
  thread_local Mpfr xa(64), xb(64);
  for (std::size_t i = 0; i < k; ++i) {
    const Parts pa = decode_parts_ref(in_a, a[i]);
    const Parts pb = decode_parts_ref(in_b, b[i]);
    const bool neg = pa.negative != pb.negative;
    if (pa.kind == Parts::NaN || pb.kind == Parts::NaN) {
      any_nan = true;
      all_negative_zero = false;
      continue;
    }
    if (pa.kind == Parts::Inf || pb.kind == Parts::Inf) {
      all_negative_zero = false;
      if (pa.kind == Parts::Zero || pb.kind == Parts::Zero)
        any_nan = true;  // Inf * 0
      else
        note_special(Parts::Inf, neg);
      continue;
    }
    if (pa.kind == Parts::Zero || pb.kind == Parts::Zero) {
      if (!neg) all_negative_zero = false;
      continue;
    }
    all_negative_zero = false;
    mpfr_set_prec(xa.get(), format_prec(in_a));
    mpfr_set_prec(xb.get(), format_prec(in_b));
    set_parts(xa.get(), pa);
    set_parts(xb.get(), pb);
    mpfr_ptr t = terms[nterms].get();
    mpfr_set_prec(t, format_prec(in_a) + format_prec(in_b));
    if (mpfr_mul(t, xa.get(), xb.get(), MPFR_RNDN) != 0) inexact_failure("exact_dot (product)");
    ++nterms;
  }
  if (any_nan || (pos_inf && neg_inf)) {
    mpfr_set_nan(out);
    return false;
  }
  if (pos_inf || neg_inf) {
    mpfr_set_inf(out, neg_inf ? -1 : 1);
    return false;
  }
  if (nterms == 0) {
    mpfr_set_prec(out, MPFR_PREC_MIN);
    mpfr_set_zero(out, all_negative_zero ? -1 : 1);
    // Zeros of mixed signs (all_negative_zero false with some -0) behave like cancellation
    // for Down; with only +0 terms the IEEE sum is +0 in every mode.
    bool any_negative_zero = pc.kind == Parts::Zero && pc.negative;
    for (std::size_t i = 0; i < k && !any_negative_zero; ++i) {
      const Parts pa = decode_parts_ref(in_a, a[i]);
      const Parts pb = decode_parts_ref(in_b, b[i]);
      any_negative_zero = pa.negative != pb.negative;
    }
    return !all_negative_zero && any_negative_zero;
  }
  long lo = LONG_MAX, hi = LONG_MIN;
  for (std::size_t i = 0; i < nterms; ++i) {
    const Span2 s = bit_span(terms[i].get());
    lo = std::min(lo, s.lsb);
    hi = std::max(hi, s.msb);
  }
  long log2n = 0;
  while ((std::size_t{1} << log2n) < nterms) ++log2n;
  const mpfr_prec_t prec = static_cast<mpfr_prec_t>(hi - lo + 1 + log2n + 1);
  mpfr_set_prec(out, prec);
  MpfrExponentRange range;
  range.set_widest();
  if (mpfr_set(out, terms[0].get(), MPFR_RNDN) != 0) inexact_failure("exact_dot (sum)");
  for (std::size_t i = 1; i < nterms; ++i)
    if (mpfr_add(out, out, terms[i].get(), MPFR_RNDN) != 0) inexact_failure("exact_dot (sum)");
  // A zero here is exact cancellation of nonzero terms; MPFR gives +0 in RNDN.
  return mpfr_zero_p(out) != 0;
}

ExactValue exact_dot(const Format& in_a, const Format& in_b, const Format& c_fmt,
                     std::span<const std::uint64_t> a, std::span<const std::uint64_t> b, std::uint64_t c) {
  Mpfr s(64);
  exact_dot_mpfr(s.get(), in_a, in_b, c_fmt, a, b, c);
  if (mpfr_zero_p(s.get()) && !mpfr_signbit(s.get())) return ExactValue::zero(false);
  return from_mpfr(s.get());
}

// ---------------------------------------------------------------------------------------
// Rounding into a format

namespace {

OverflowMode resolve(OverflowMode m, const Format& f) {
  if (m == OverflowMode::FormatDefault) return f.saturate ? OverflowMode::Saturate : OverflowMode::Ieee;
  return m;
}

// NaN, or bits 0 where the format has no NaN (sim's convention).
RoundResult nan_result(const Format& out, bool invalid) {
  RoundResult r;
  r.invalid = invalid || !out.has_nan();
  r.bits = out.has_nan() ? out.canonical_nan() : 0;
  return r;
}

bool rounds_toward_zero(Rounding mode, bool negative) {
  return mode == Rounding::TowardZero || mode == Rounding::ToOdd || (mode == Rounding::Down && !negative) ||
         (mode == Rounding::Up && negative);
}

// Result of an overflow (or an infinite value) of the given sign.
std::uint64_t overflow_bits(const Format& out, bool negative, Rounding mode, OverflowMode ovf) {
  switch (resolve(ovf, out)) {
    case OverflowMode::Saturate: return out.max_finite(negative);
    case OverflowMode::ToNaN: return out.has_nan() ? out.canonical_nan() : out.max_finite(negative);
    case OverflowMode::Infinity:
      if (out.infinities) return out.infinity(negative);
      return out.has_nan() ? out.canonical_nan() : out.max_finite(negative);
    default: break;
  }
  if (rounds_toward_zero(mode, negative)) return out.max_finite(negative);
  if (out.infinities) return out.infinity(negative);
  if (out.has_nan()) return out.canonical_nan();
  return out.max_finite(negative);
}

}  // namespace

RoundResult mpfr_round_to_format(mpfr_srcptr x, const Format& out, Rounding mode, OverflowMode overflow) {
  if (mode == Rounding::Stochastic)
    throw std::invalid_argument("rounding: the MPFR reference has no stochastic rounding; allowed: rne, rz, ru, rd, ro");
  RoundResult res;
  if (mpfr_nan_p(x)) return nan_result(out, false);
  const bool negative = mpfr_signbit(x) != 0;
  if (mpfr_inf_p(x)) {
    if (negative && !out.is_signed) return nan_result(out, true);
    if (out.infinities) {
      res.bits = out.infinity(negative);
      return res;
    }
    // An exact infinity into a format without one: as an overflow of that sign, but never
    // "rounded toward zero" (the mode is ignored); invalid.
    res.bits = overflow_bits(out, negative, Rounding::NearestEven, overflow);
    res.invalid = true;
    return res;
  }
  if (mpfr_zero_p(x)) {
    if (!out.has_zero) {  // smallest value (bits 0), invalid
      res.invalid = true;
      return res;
    }
    res.bits = out.zero(negative && out.is_signed);
    return res;
  }
  if (negative && !out.is_signed) return nan_result(out, true);

  // MPFR's convention: x = 0.1b...b * 2^E, so a format value 2^e (leading bit) has E = e+1.
  // Normal range [2^emin, ...): MPFR emin = emin + 1 without subnormals; with subnormals the
  // smallest subnormal 2^(emin-p+1) must be representable: MPFR emin = emin - p + 2, and
  // mpfr_subnormalize then cuts the precision of values below 2^emin.
  // emax is set two above the format's (MPFR emax = emax + 2) so that MPFR never overflows
  // on its own for values that round to at most 2^(emax+1); overflow is decided below
  // against the format's real largest finite value.
  const long p = out.precision;
  const mpfr_rnd_t rnd = to_mpfr_rnd(mode == Rounding::ToOdd ? Rounding::TowardZero : mode);
  thread_local Mpfr r(64), tmp(64);
  mpfr_set_prec(r.get(), format_prec(out));
  MpfrExponentRange range;
  range.set_widest();
  const bool tiny = mpfr_get_exp(x) - 1 < out.emin;  // |x| < 2^emin, before rounding
  int t = mpfr_set(r.get(), x, rnd);                   // p bits, unbounded exponent
  const long mpfr_emin = out.subnormals ? out.emin - p + 2 : static_cast<long>(out.emin) + 1;
  range.set(mpfr_emin, static_cast<long>(out.emax) + 2);
  t = mpfr_check_range(r.get(), t, rnd);
  if (out.subnormals) t = mpfr_subnormalize(r.get(), t, rnd);
  range.set_widest();
  res.inexact = t != 0;
  res.underflow = tiny && res.inexact;

  if (mpfr_zero_p(r.get())) {  // underflow to zero
    if (mode == Rounding::ToOdd && res.inexact) {
      // Round to odd: the smallest nonzero magnitude (its last significand bit is 1).
      const std::uint64_t smallest = out.subnormals ? 1 : (out.has_zero ? std::uint64_t{1} << out.fraction_bits : 0);
      res.bits = smallest | (negative ? out.sign_mask() : 0);
      return res;
    }
    // A format without zero gets its smallest value, bits 0 (sim's convention).
    res.bits = out.has_zero ? out.zero(negative && out.is_signed) : 0;
    return res;
  }
  // Overflow: compare with the largest finite value M = max_finite_significand * 2^(emax-p+1).
  mpfr_set_prec(tmp.get(), 64);
  mpfr_set_ui_2exp(tmp.get(), out.max_finite_significand(), static_cast<long>(out.emax) - (p - 1), MPFR_RNDN);
  if (mpfr_inf_p(r.get()) || mpfr_cmpabs(r.get(), tmp.get()) > 0) {
    res.overflow = true;
    res.inexact = true;
    res.underflow = false;
    res.bits = overflow_bits(out, negative, mode, overflow);
    return res;
  }
  // Encode. Leading-bit exponent e of |r|; normal when e >= emin (or no zero/subnormals).
  const long e = mpfr_get_exp(r.get()) - 1;
  std::uint64_t field, sig;
  if (e >= out.emin) {
    mpfr_mul_2si(tmp.get(), r.get(), (p - 1) - e, MPFR_RNDN);  // |tmp| in [2^(p-1), 2^p)
    mpfr_abs(tmp.get(), tmp.get(), MPFR_RNDN);
    sig = mpfr_get_ui(tmp.get(), MPFR_RNDN);
    field = static_cast<std::uint64_t>(e + out.bias);
  } else {
    mpfr_mul_2si(tmp.get(), r.get(), (p - 1) - out.emin, MPFR_RNDN);  // subnormal: < 2^(p-1)
    mpfr_abs(tmp.get(), tmp.get(), MPFR_RNDN);
    sig = mpfr_get_ui(tmp.get(), MPFR_RNDN);
    field = 0;
  }
  const std::uint64_t frac_mask = out.fraction_bits == 0 ? 0 : (std::uint64_t{1} << out.fraction_bits) - 1;
  std::uint64_t mag = (field << out.fraction_bits) | (sig & frac_mask);
  // The last significand bit is the pattern's last bit, except with precision 1 where the
  // significand is the implicit 1 alone (always odd).
  const bool odd = out.fraction_bits == 0 || (mag & 1) != 0;
  if (mode == Rounding::ToOdd && res.inexact && !odd) {
    // Round to odd: the odd neighbour away from zero. Sign-magnitude encodings are ordered,
    // so the next magnitude pattern is the next value (a carry moves into the exponent).
    // If that pattern is not finite (E4M3's 0x7F), the value stays at the largest finite.
    const std::uint64_t next = mag + 1;
    if (next <= out.max_finite(false)) {
      mag = next;
    } else {  // the odd neighbour is beyond the largest finite value: an overflow
      res.overflow = true;
      res.underflow = false;
      res.bits = overflow_bits(out, negative, mode, overflow);
      return res;
    }
  }
  res.bits = mag | (negative ? out.sign_mask() : 0);
  return res;
}

RoundResult mpfr_round_to_format(const ExactValue& x, const Format& out, Rounding mode, OverflowMode overflow) {
  thread_local Mpfr v(64);
  to_mpfr(v.get(), x);
  return mpfr_round_to_format(v.get(), out, mode, overflow);
}

RoundResult correctly_rounded_dot(const Format& in_a, const Format& in_b, const Format& c_fmt, const Format& out,
                                  std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                                  std::uint64_t c, Rounding mode, OverflowMode overflow) {
  CorrectlyRoundedDot f(in_a, in_b, c_fmt, out, mode, overflow);
  return f(a, b, c);
}

CorrectlyRoundedDot::CorrectlyRoundedDot(Format in_a, Format in_b, Format c_fmt, Format out, Rounding mode,
                                         OverflowMode overflow)
    : a_(std::move(in_a)), b_(std::move(in_b)), c_(std::move(c_fmt)), out_(std::move(out)), mode_(mode),
      overflow_(overflow), sum_(64) {
  if (mode == Rounding::Stochastic)
    throw std::invalid_argument("rounding: the MPFR reference has no stochastic rounding; allowed: rne, rz, ru, rd, ro");
}

RoundResult CorrectlyRoundedDot::operator()(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                                            std::uint64_t c) {
  const bool cancelled = exact_dot_mpfr(sum_.get(), a_, b_, c_, a, b, c);
  if (cancelled) mpfr_set_zero(sum_.get(), mode_ == Rounding::Down ? -1 : 1);
  return mpfr_round_to_format(sum_.get(), out_, mode_, overflow_);
}

// ---------------------------------------------------------------------------------------
// Printing

namespace {
std::string special_text(mpfr_srcptr x) {
  if (mpfr_nan_p(x)) return "nan";
  if (mpfr_inf_p(x)) return mpfr_signbit(x) ? "-inf" : "inf";
  return mpfr_signbit(x) ? "-0" : "0";
}
std::string take(char* s) {
  std::string r = s ? s : "";
  if (s) mpfr_free_str(s);
  return r;
}
}  // namespace

std::string exact_decimal(mpfr_srcptr x, int digits) {
  if (!mpfr_number_p(x) || mpfr_zero_p(x)) return special_text(x);
  if (digits > 0) {
    char* s = nullptr;
    if (mpfr_asprintf(&s, "%.*RNe", digits - 1, x) < 0) throw std::runtime_error("mpfr_asprintf failed");
    return take(s);
  }
  // Exact: x = m * 2^e; for e < 0, x = (m * 5^-e) * 10^e, a finite decimal expansion.
  mpz_t m, f;
  mpz_init(m);
  mpz_init(f);
  long e = mpfr_get_z_2exp(m, x);
  const bool neg = mpz_sgn(m) < 0;
  mpz_abs(m, m);
  long dexp = 0;  // value = m * 10^dexp
  if (e >= 0) {
    mpz_mul_2exp(m, m, static_cast<mp_bitcnt_t>(e));
  } else {
    mpz_ui_pow_ui(f, 5, static_cast<unsigned long>(-e));
    mpz_mul(m, m, f);
    dexp = e;
  }
  std::string digits_text = take(mpz_get_str(nullptr, 10, m));
  mpz_clear(m);
  mpz_clear(f);
  const long sci = dexp + static_cast<long>(digits_text.size()) - 1;
  while (digits_text.size() > 1 && digits_text.back() == '0') digits_text.pop_back();
  std::string r;
  if (neg) r.push_back('-');
  r.push_back(digits_text[0]);
  if (digits_text.size() > 1) {
    r.push_back('.');
    r.append(digits_text, 1, std::string::npos);
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "e%c%02ld", sci < 0 ? '-' : '+', sci < 0 ? -sci : sci);
  return r + buf;
}

std::string exact_decimal(const ExactValue& x, int digits) {
  Mpfr v(64);
  to_mpfr(v.get(), x);
  return exact_decimal(v.get(), digits);
}

std::string mpfr_hex(mpfr_srcptr x) {
  if (!mpfr_number_p(x) || mpfr_zero_p(x)) return special_text(x);
  // Normalized C99 form 0x1.hhh...p+-e (MPFR's "%Ra" picks other leading digits for short
  // precisions, e.g. "-0x3p-4"): x = m 2^e with m odd, lead = bit length of m minus one.
  mpz_t m;
  mpz_init(m);
  long e = mpfr_get_z_2exp(m, x);
  const bool neg = mpz_sgn(m) < 0;
  mpz_abs(m, m);
  const mp_bitcnt_t tz = mpz_scan1(m, 0);
  mpz_tdiv_q_2exp(m, m, tz);
  e += static_cast<long>(tz);
  const long lead = static_cast<long>(mpz_sizeinbase(m, 2)) - 1;
  std::string r = neg ? "-0x1" : "0x1";
  if (lead > 0) {
    mpz_clrbit(m, static_cast<mp_bitcnt_t>(lead));  // the fraction below the leading 1
    const long digits = (lead + 3) / 4;
    mpz_mul_2exp(m, m, static_cast<mp_bitcnt_t>(digits * 4 - lead));
    std::string h = take(mpz_get_str(nullptr, 16, m));
    h.insert(0, static_cast<std::size_t>(digits) - h.size(), '0');
    while (!h.empty() && h.back() == '0') h.pop_back();
    r += "." + h;
  }
  mpz_clear(m);
  const long pe = e + lead;
  r += (pe < 0 ? "p-" : "p+") + std::to_string(pe < 0 ? -pe : pe);
  return r;
}

}  // namespace tcsim::reference
