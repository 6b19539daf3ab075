// MPFR reference for d = c + sum_i a_i * b_i: the exact value and the correctly rounded
// result, computed with GNU MPFR alone, independently of sim's adder (sim/adder.hpp) and of
// sim's rounding step (sim/rounding.hpp). The tests compare both against it.
//
// Exactness. Operands are decoded straight from their bit patterns into MPFR numbers of
// the format's precision (no BigInt, no sim codec). Each product gets precision
// p_a + p_b (exact), and the sum gets the precision
//     (max msb - min lsb + 1) + ceil(log2(number of terms)) + 1
// over the actual nonzero terms, so every mpfr_add is exact; each MPFR call's ternary value
// is checked and a nonzero one throws std::logic_error (this is never expected).
//
// Correct rounding. mpfr_round_to_format emulates the target format with MPFR's own
// machinery: the value is rounded to the format's precision in MPFR's widest exponent
// range, then the exponent range is narrowed to the format's (mpfr_set_emin/emax) and
// mpfr_check_range + mpfr_subnormalize produce the correctly rounded (gradual underflow)
// result, the ternary value carrying the first rounding's direction so nothing is rounded
// twice. MPFR knows nothing of formats whose largest finite value is not 2^emax(2-2^(1-p))
// (OCP E4M3: 448) or that have no infinities, so overflow is decided here explicitly:
// the result overflows when the value rounded with unbounded exponent range exceeds the
// format's largest finite value (IEEE 754-2019 7.4), and the OverflowMode then picks Inf,
// NaN or the largest finite value.
//
// Threads. MPFR's exponent range is global state of the library. Debian's libmpfr is built
// thread-safe (mpfr_buildopt_tls_p() != 0): the range is then thread-local, and every
// function here saves and restores it around its work (RAII), so concurrent use from
// several threads is correct. With a non-TLS MPFR build the functions are NOT thread-safe.
// Either way this is a reference for tests and reports, not for multithreaded hot paths:
// it is orders of magnitude slower than the adder.
#pragma once
#include <mpfr.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "tcsim/sim/exact.hpp"
#include "tcsim/sim/format.hpp"
#include "tcsim/sim/rounding.hpp"

namespace tcsim::reference {

// Owner of one mpfr_t (RAII). Copying copies value and precision.
class Mpfr {
 public:
  explicit Mpfr(mpfr_prec_t precision = 64);
  ~Mpfr();
  Mpfr(const Mpfr& o);
  Mpfr& operator=(const Mpfr& o);
  Mpfr(Mpfr&& o) noexcept;
  Mpfr& operator=(Mpfr&& o) noexcept;

  mpfr_ptr get() { return v_; }
  mpfr_srcptr get() const { return v_; }
  mpfr_prec_t precision() const { return mpfr_get_prec(v_); }

 private:
  mpfr_t v_;
};

// Saves MPFR's exponent range and restores it on destruction; set() narrows or widens it.
class MpfrExponentRange {
 public:
  MpfrExponentRange();  // saves the current range (of this thread with a TLS build)
  ~MpfrExponentRange();
  MpfrExponentRange(const MpfrExponentRange&) = delete;
  MpfrExponentRange& operator=(const MpfrExponentRange&) = delete;
  void set(mpfr_exp_t emin, mpfr_exp_t emax);
  void set_widest();

 private:
  mpfr_exp_t saved_emin_, saved_emax_;
};

// Whether this MPFR keeps its exponent range per thread (see "Threads" above).
bool mpfr_is_thread_safe();

// The MPFR rounding mode of a tcsim mode; ToOdd and Stochastic have none (throws).
mpfr_rnd_t to_mpfr_rnd(Rounding mode);

// --- Conversions -------------------------------------------------------------------------

// Exact value of a pattern of `fmt`, decoded from the format's fields without sim's codec;
// precision max(fmt.precision, MPFR_PREC_MIN). NaN patterns give NaN, infinities +-Inf, zeros
// signed zeros. Throws std::invalid_argument for bits above the format's width.
void decode_to_mpfr(mpfr_ptr out, const Format& fmt, std::uint64_t bits);
Mpfr decode_to_mpfr(const Format& fmt, std::uint64_t bits);

// ExactValue -> MPFR: `out` gets exactly the precision the significand needs. Values whose
// exponent lies beyond MPFR's widest range (|exponent| near 2^62) throw std::out_of_range.
void to_mpfr(mpfr_ptr out, const ExactValue& x);
Mpfr to_mpfr(const ExactValue& x);
// MPFR -> ExactValue (exact; the significand is stored without trailing zeros).
ExactValue from_mpfr(mpfr_srcptr x);

// --- Exact dot product -------------------------------------------------------------------

// Exact c + sum_i a[i]*b[i] (a and b of equal length, 0 allowed; else std::invalid_argument).
// Specials: any NaN operand -> NaN; Inf * 0 -> NaN; +Inf together with -Inf (among the
// products and c) -> NaN; otherwise an infinite product or c gives that infinity.
// Zero results: -0 when every term (c and each product, whose sign is sign(a) xor sign(b))
// is a negative zero, else +0 (the sign an IEEE sum gets in every mode but Down;
// correctly_rounded_dot applies the Down rule).
ExactValue exact_dot(const Format& in_a, const Format& in_b, const Format& c_fmt,
                     std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                     std::uint64_t c);
inline ExactValue exact_dot(const Format& in, const Format& c_fmt, std::span<const std::uint64_t> a,
                            std::span<const std::uint64_t> b, std::uint64_t c) {
  return exact_dot(in, in, c_fmt, a, b, c);
}
// The same into an MPFR variable (its precision is reset to what the exact sum needs).
// Returns true when the value is a zero produced by cancellation or by zeros of mixed
// signs (its sign then depends on the rounding mode: +0, or -0 for Down).
bool exact_dot_mpfr(mpfr_ptr out, const Format& in_a, const Format& in_b, const Format& c_fmt,
                    std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                    std::uint64_t c);

// --- Correct rounding into a format ------------------------------------------------------

// The correctly rounded pattern of x in `out`, computed by MPFR (see the header comment).
// Modes: NearestEven, TowardZero, Up, Down, ToOdd (truncate, then set the last bit of the
// encoded significand if inexact); Stochastic throws std::invalid_argument.
// Overflow (value rounded with unbounded exponent exceeds the largest finite value):
//   Saturate -> largest finite of the sign; ToNaN -> NaN (largest finite without NaN);
//   Ieee -> largest finite when the mode rounds toward zero for that sign (TowardZero,
//   ToOdd, Down for +, Up for -), else Inf, NaN where the format has no Inf, largest finite
//   where it has neither; FormatDefault -> Saturate if out.saturate else Ieee.
// Specials (the conventions of sim/src/rounding.cpp, so that both compare bit for bit):
//   NaN -> canonical NaN (bits 0, invalid, where the format has none);
//   +-Inf -> +-Inf; into a format without Inf, per the overflow mode as if rounded to
//   nearest (Saturate: largest finite; Ieee/ToNaN: NaN, else largest finite), invalid;
//   zero -> zero of that sign (+0 in unsigned formats); into a format without zero
//   (ue8m0) its smallest value, bits 0, invalid; a finite value that rounds to zero there
//   also gives bits 0; a negative value (or -Inf) into an unsigned format -> NaN (bits 0
//   without NaN), invalid.
// Flags: inexact, overflow, underflow (tiny before rounding, |x| < 2^emin, and inexact).
RoundResult mpfr_round_to_format(mpfr_srcptr x, const Format& out, Rounding mode,
                                 OverflowMode overflow = OverflowMode::FormatDefault);
RoundResult mpfr_round_to_format(const ExactValue& x, const Format& out, Rounding mode,
                                 OverflowMode overflow = OverflowMode::FormatDefault);
// Just the pattern.
inline std::uint64_t mpfr_round_bits(const ExactValue& x, const Format& out, Rounding mode,
                                     OverflowMode overflow = OverflowMode::FormatDefault) {
  return mpfr_round_to_format(x, out, mode, overflow).bits;
}

// Correctly rounded c + sum a_i b_i in `out` (the "ideal" block FMA, blanchard2020 eq. (2.1)).
// Exact zero from cancellation: +0, or -0 for Down (IEEE 754-2019 6.3).
RoundResult correctly_rounded_dot(const Format& in_a, const Format& in_b, const Format& c_fmt,
                                  const Format& out, std::span<const std::uint64_t> a,
                                  std::span<const std::uint64_t> b, std::uint64_t c,
                                  Rounding mode,
                                  OverflowMode overflow = OverflowMode::FormatDefault);

// Reusable evaluator: same semantics as correctly_rounded_dot, but keeps its MPFR scratch
// variables between calls (for the million-case tests). Not shareable between threads.
class CorrectlyRoundedDot {
 public:
  CorrectlyRoundedDot(Format in_a, Format in_b, Format c_fmt, Format out, Rounding mode,
                      OverflowMode overflow = OverflowMode::FormatDefault);
  RoundResult operator()(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                         std::uint64_t c);
  // The exact value of the last call (MPFR variable owned by the evaluator).
  mpfr_srcptr last_exact() const { return sum_.get(); }

 private:
  Format a_, b_, c_, out_;
  Rounding mode_;
  OverflowMode overflow_;
  Mpfr sum_;
};

// --- Printing ----------------------------------------------------------------------------

// Decimal text of an exact value: `digits` > 0 significant digits rounded to nearest by
// MPFR ("-1.2345e-03"); digits <= 0: every digit of the exact (finite) decimal expansion of
// the binary value, in the same d.ddd...e+-XX form with trailing zeros removed.
// "inf", "-inf", "nan", "0", "-0" for the specials.
std::string exact_decimal(const ExactValue& x, int digits = 0);
std::string exact_decimal(mpfr_srcptr x, int digits = 0);
// Exact C99 hex-float text in normalized form, e.g. "-0x1.8p-3" (same as ExactValue::to_hex).
std::string mpfr_hex(mpfr_srcptr x);

}  // namespace tcsim::reference
