// Binary64 <-> format conversions (convert.hpp): an integer fast path for the common cases,
// round_bits / decode for the rest.
#include "tcsim/models/convert.hpp"

#include <bit>
#include <cmath>
#include <limits>

#include "tcsim/sim/codec.hpp"

namespace tcsim::models {

namespace {
constexpr std::uint64_t kSign64 = std::uint64_t{1} << 63;
constexpr std::uint64_t kFrac64 = (std::uint64_t{1} << 52) - 1;
constexpr std::uint64_t kExpAll64 = 0x7ff0000000000000ull;
}  // namespace

Converter::Converter(const Format& f, Rounding mode, bool flush_subnormals)
    : f_(&f), mode_(mode), flush_(flush_subnormals && f.subnormals) {
  // The fast path encodes a normal number as field = exponent + bias and a subnormal with
  // field 0: true of every signed format with zero and subnormals whose field 1 is 2^emin.
  fast_ = f.is_signed && f.has_zero && f.subnormals && f.precision >= 2 && f.precision <= 53 &&
          f.emin + f.bias == 1 && f.max_finite_field() == f.emax + f.bias && mode != Rounding::Stochastic;
  p_ = f.precision;
  emin_ = f.emin;
  emax_ = f.emax;
  bias_ = f.bias;
  fb_ = f.fraction_bits;
  sign_ = f.sign_mask();
  max_sig_ = f.max_finite_significand();
  frac_mask_ = fb_ >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << fb_) - 1;
}

std::uint64_t Converter::flushed(std::uint64_t bits) const {
  if (!flush_) return bits;
  const bool negative = (bits & sign_) != 0;
  const std::uint64_t magnitude = bits & ~sign_;
  if ((magnitude >> fb_) == 0 && (magnitude & frac_mask_) != 0) return f_->zero(negative);
  return bits;
}

std::uint64_t Converter::operator()(const ExactValue& x) const { return flushed(round_bits(x, *f_, mode_)); }

std::uint64_t Converter::slow(double x) const { return (*this)(decode(formats::fp64(), bits_of_double(x))); }

std::uint64_t Converter::operator()(double x) const {
  if (!fast_) return slow(x);
  const std::uint64_t b = std::bit_cast<std::uint64_t>(x);
  const bool negative = (b & kSign64) != 0;
  const std::uint64_t a = b & ~kSign64;
  if (a == 0 || a >= kExpAll64) return slow(x);  // zeros, Inf, NaN
  // x = m 2^qx, m < 2^53; 2^E <= |x| < 2^(E+1).
  const int field = static_cast<int>(a >> 52);
  std::uint64_t m = a & kFrac64;
  int qx = -1074;
  if (field != 0) {
    m |= std::uint64_t{1} << 52;
    qx = field - 1075;
  }
  const int E = qx + static_cast<int>(std::bit_width(m)) - 1;
  // The quantum of the result: 2^Q, Q = max(E, emin) - (p - 1).
  int Q = (E > emin_ ? E : emin_) - (p_ - 1);
  const int shift = Q - qx;
  std::uint64_t keep = 0;
  if (shift <= 0) {
    keep = m << -shift;  // exact: E - Q <= p - 1 bits above the quantum
  } else if (shift < 64) {
    keep = m >> shift;
    const std::uint64_t rem = m & ((std::uint64_t{1} << shift) - 1);
    if (rem != 0) {
      switch (mode_) {
        case Rounding::NearestEven: {
          const std::uint64_t half = std::uint64_t{1} << (shift - 1);
          keep += (rem > half || (rem == half && (keep & 1) != 0)) ? 1 : 0;
          break;
        }
        case Rounding::TowardZero: break;
        case Rounding::Up: keep += negative ? 0 : 1; break;
        case Rounding::Down: keep += negative ? 1 : 0; break;
        case Rounding::ToOdd: keep |= 1; break;
        case Rounding::Stochastic: return slow(x);
      }
    }
  } else {
    return slow(x);  // far below the smallest subnormal
  }
  if (keep == 0) return slow(x);  // a zero result: its sign and flags are round_bits' business
  if ((keep >> p_) != 0) {        // carried out of p bits: 2^p 2^Q = 2^(p-1) 2^(Q+1)
    keep >>= 1;
    ++Q;
  }
  const bool normal = (keep >> (p_ - 1)) != 0;
  const int e = Q + p_ - 1;
  if (normal && (e > emax_ || (e == emax_ && keep > max_sig_))) return slow(x);  // overflow rules
  const std::uint64_t bits = (negative ? sign_ : 0) |
                             (normal ? static_cast<std::uint64_t>(e + bias_) << fb_ : 0) | (keep & frac_mask_);
  return flush_ ? flushed(bits) : bits;
}

double value_of(const Format& f, std::uint64_t bits) {
  if (f.precision > 53 || f.emax > 1023 || f.emin - (f.precision - 1) < -1074) return to_double(decode(f, bits));
  const Decoded d = decode_parts(f, bits);
  double v = 0;
  switch (d.cls) {
    case FpClass::Zero: v = 0; break;
    case FpClass::Infinity: v = std::numeric_limits<double>::infinity(); break;
    case FpClass::NaN: return std::numeric_limits<double>::quiet_NaN();
    case FpClass::Normal:
    case FpClass::Subnormal: v = std::ldexp(static_cast<double>(d.significand), d.exponent); break;
  }
  return d.negative ? -v : v;
}

Decoder::Decoder(const Format& f) : f_(&f) {
  // Normal patterns: field = exponent + bias, field 1 = 2^emin; finite up to the largest
  // finite pattern (AllOnes NaN takes the last significand of the top field). The FNUZ NaN
  // (the -0 pattern) and formats without zero or subnormals take value_of.
  fast_ = f.is_signed && f.has_zero && f.subnormals && f.nan != NanEncoding::NegativeZero && f.precision >= 2 &&
          f.precision <= 53 && f.emin + f.bias == 1 && f.max_finite_field() == f.emax + f.bias &&
          f.emin - f.fraction_bits >= -1022 && f.emax <= 1023;
  if (!fast_) return;
  fb_ = f.fraction_bits;
  sign_ = f.sign_mask();
  implicit_ = std::uint64_t{1} << fb_;
  frac_mask_ = implicit_ - 1;
  top_ = static_cast<std::uint64_t>(f.max_finite_field());
  top_frac_ = f.max_finite_significand() & frac_mask_;
  shift_ = f.bias + fb_;
  sub_scale_ = convert_detail::pow2(f.emin - fb_);
}

}  // namespace tcsim::models
