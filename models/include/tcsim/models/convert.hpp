// Conversions between binary64 values and bit patterns of a format, element by element with
// the format's fields looked up once (simulate_gemm's operand conversions, the Python
// package's encode/decode/dot). Each gives the bits of the exact path (round_bits, decode).
#pragma once
#include <bit>
#include <cstdint>

#include "tcsim/sim/exact.hpp"
#include "tcsim/sim/format.hpp"
#include "tcsim/sim/rounding.hpp"

namespace tcsim::models {

namespace convert_detail {
// 2^q as binary64, -1022 <= q <= 1023.
inline double pow2(int q) { return std::bit_cast<double>(static_cast<std::uint64_t>(q + 1023) << 52); }
}  // namespace convert_detail

// Conversion of binary64 values into a format with a rounding mode (not stochastic), exactly
// as round_bits(decode(fp64, x), f, mode): an integer fast path for finite nonzero values
// whose result is a finite nonzero number of an IEEE-style encoding, round_bits for the rest
// (zeros, overflow, NaN, Inf, values far below the subnormals, unusual encodings).
// flush_subnormals: a subnormal result becomes a zero of the same sign (f.zero(negative):
// +0 where -0 is not a zero, as in the FNUZ formats).
class Converter {
 public:
  Converter(const Format& f, Rounding mode, bool flush_subnormals);
  std::uint64_t operator()(double x) const;
  std::uint64_t operator()(const ExactValue& x) const;  // round_bits, then the flush
  const Format& format() const { return *f_; }

 private:
  std::uint64_t slow(double x) const;
  std::uint64_t flushed(std::uint64_t bits) const;
  const Format* f_;
  Rounding mode_;
  bool flush_;
  bool fast_;
  int p_ = 0, emin_ = 0, emax_ = 0, bias_ = 0, fb_ = 0;
  std::uint64_t sign_ = 0, max_sig_ = 0, frac_mask_ = 0;
};

// The value of a pattern of f as binary64: exact for formats whose values binary64 holds
// (every built-in one), RNE into binary64 otherwise (user formats wider than binary64).
double value_of(const Format& f, std::uint64_t bits);

// value_of with the format's fields looked up once: finite patterns of IEEE-style encodings
// decoded with integer operations, the rest through value_of.
class Decoder {
 public:
  explicit Decoder(const Format& f);
  double operator()(std::uint64_t bits) const {
    if (fast_) {
      const std::uint64_t magnitude = bits & ~sign_;
      const std::uint64_t field = magnitude >> fb_, frac = magnitude & frac_mask_;
      if (field < top_ || (field == top_ && frac <= top_frac_)) {
        const double v = field == 0 ? static_cast<double>(frac) * sub_scale_
                                    : static_cast<double>(frac | implicit_) * convert_detail::pow2(static_cast<int>(field) - shift_);
        return (bits & sign_) != 0 ? -v : v;
      }
    }
    return value_of(*f_, bits);
  }

 private:
  const Format* f_;
  bool fast_ = false;
  std::uint64_t sign_ = 0, frac_mask_ = 0, implicit_ = 0, top_ = 0, top_frac_ = 0;
  int fb_ = 0, shift_ = 0;
  double sub_scale_ = 0;
};

}  // namespace tcsim::models
