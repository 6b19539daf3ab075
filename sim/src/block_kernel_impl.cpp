// BlockKernel::Impl (block_kernel_impl.hpp): the choice of the kernel's paths and the exact
// scalar evaluation of one element, which mirrors FixedPointAdder's deferred path (adder.cpp:
// gather, aligned_sum, zero_result, round_out).
#include "block_kernel_impl.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "block_planar32.hpp"
#include "block_specials.hpp"

namespace tcsim {

namespace block_fields {

std::optional<std::string> codec_unsupported(const Format& f, const char* role) {
  const std::string where = std::string(role) + " format '" + f.name + "'";
  if (!f.is_signed || !f.has_zero) return where + " is unsigned or has no zero";
  if (!f.subnormals) return where + " has no subnormals";
  if (f.exponent_bits < 1 || f.exponent_bits > 15) return where + " has an exponent field outside 1..15 bits";
  if (f.precision > 63) return where + " is wider than 63 significand bits";
  const unsigned top = (1u << f.exponent_bits) - 1;
  switch (f.nan) {
    case NanEncoding::Ieee:
      if (!f.infinities || f.emax + f.bias + 1 != static_cast<int>(top)) return where + " has a non-IEEE top field";
      break;
    case NanEncoding::AllOnes:
    case NanEncoding::None:
      if (f.infinities || f.emax + f.bias != static_cast<int>(top)) return where + " has an unusual top field";
      break;
    case NanEncoding::NegativeZero: return where + " encodes NaN as -0 (FNUZ)";
  }
  if (f.emin != 1 - f.bias) return where + " has an unusual bias";
  return std::nullopt;
}

FieldCodec make_codec(const Format& f) {
  FieldCodec c;
  c.width_mask = f.width_mask();
  c.sign_mask = f.sign_mask();
  c.frac_mask = (std::uint64_t{1} << (f.precision - 1)) - 1;
  c.precision = f.precision;
  c.exp_bits = f.exponent_bits;
  c.bias = f.bias;
  c.emin = f.emin;
  c.emax = f.emax;
  c.top_field = (1u << f.exponent_bits) - 1;
  c.nan = f.nan;
  c.max_finite_significand = f.max_finite_significand();
  return c;
}

}  // namespace block_fields

using block_fields::align_magnitude;
using block_fields::decode_fields;
using block_fields::make_codec;

BlockKernel::Impl::Impl(const AdderConfig& config, std::size_t k)
    : cfg(config), max_products(k), reference(config), a(make_codec(config.a_format)),
      b(make_codec(config.b_format)), c(make_codec(config.c_format)), out(make_codec(config.out_format)),
      register_bits(1 + config.carry_bits + config.fraction_bits), keep_subnormals(config.subnormal_inputs) {
  slow_rounding.mode = cfg.final_rounding;
  slow_rounding.overflow = cfg.overflow;
  slow_rounding.subnormals = cfg.subnormal_outputs ? SubnormalMode::Keep : SubnormalMode::Flush;
  // Outputs without a NaN (e2m1) leave special() to the reference adder, which refuses a NaN
  // result there.
  specials_decided = cfg.out_format.has_nan();
  if (specials_decided) {
    for (const bool negative : {false, true})
      infinite_result[negative] = round_to_format(ExactValue::infinity(negative), cfg.out_format, slow_rounding).bits;
    nan_result = cfg.nan_pattern ? *cfg.nan_pattern : cfg.out_format.canonical_nan();
  }
  int terms_bits = 0;
  while ((std::size_t{1} << terms_bits) < k + 1) ++terms_bits;
  // Every scaled term is an integer below 2^(F+2) (+1 after rounding up): the binary64 sum
  // is exact while it stays below 2^53.
  if (cfg.fraction_bits + 3 + terms_bits <= 53 && out.precision <= 53) {
    lanes::LaneParams lp;
    lp.fraction_bits = cfg.fraction_bits;
    if (cfg.min_exponent) lp.min_exponent = *cfg.min_exponent;
    lp.wrap_limit = std::ldexp(1.0, register_bits);
    lp.alignment = lane_rounding(cfg.alignment_rounding);
    lp.final_rounding = lane_rounding(cfg.final_rounding);
    lp.out_precision = out.precision;
    lp.out_emin = out.emin;
    lp.out_emax = out.emax;
    lp.out_bias = out.bias;
    lp.out_width = cfg.out_format.width;
    lp.out_max_finite_significand = out.max_finite_significand;
    lp.out_subnormals = cfg.subnormal_outputs && keep_subnormals && c.precision == out.precision &&
                        c.emin == out.emin && c.bias == out.bias && c.width_mask == out.width_mask;
    lane_params = lp;
    lane_count = lanes::lane_count();
    a_codec = pattern_codec(a);
    b_codec = pattern_codec(b);
    c_codec = pattern_codec(c);
    patterns = lanes::patterns_supported(lp, a_codec, b_codec, c_codec, keep_subnormals, k);
    tiles = tile_conditions();
    planar = lanes::planar16_lane_count() > 0 &&
             lanes::planar16_supported(lp, a_codec, b_codec, c_codec, keep_subnormals, k);
    planar32 = lanes::planar32_lane_count() > 0 &&
               lanes::planar32_supported(lp, a_codec, b_codec, c_codec, keep_subnormals, k);
  }
}

bool BlockKernel::Impl::tile_conditions() const {
  const std::size_t chunk = lanes::tile_chunk_len(cfg.fraction_bits);
  auto exact_in_binary32 = [](const FieldCodec& f) {
    return f.precision <= 24 && f.emax <= 127 && f.emin - (f.precision - 1) >= -149;
  };
  return cfg.alignment_rounding == Rounding::TowardZero && a.precision <= 12 && b.precision <= 12 &&
         exact_in_binary32(a) && exact_in_binary32(b) && chunk > 0 &&
         (max_products + chunk - 1) / chunk <= lanes::kTileMaxChunks &&
         exact_in_binary32(c) && exact_in_binary32(out);
}

lanes::PatternCodec BlockKernel::Impl::pattern_codec(const FieldCodec& f) {
  lanes::PatternCodec p;
  p.precision = f.precision;
  p.width = std::countr_zero(f.sign_mask) + 1;
  p.bias = f.bias;
  p.emin = f.emin;
  p.top_field = f.top_field;
  p.nan = f.nan == NanEncoding::Ieee ? 0 : (f.nan == NanEncoding::AllOnes ? 1 : 2);
  p.width_mask = f.width_mask;
  return p;
}

int BlockKernel::Impl::lane_rounding(Rounding r) {
  switch (r) {
    case Rounding::Down: return 1;
    case Rounding::Up: return 2;
    case Rounding::NearestEven: return 3;
    case Rounding::ToOdd: return 4;
    default: return 0;
  }
}

void BlockKernel::Impl::run_lanes(std::size_t n, std::size_t len, const std::uint64_t* a, std::size_t lda,
                                  const std::uint64_t* b, std::size_t ldb, const std::uint64_t* c_bits, std::uint64_t* d,
                                  Panels& w, std::vector<std::uint64_t>& pa, std::vector<std::uint64_t>& pb,
                                  std::vector<Operand>& terms) const {
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t t = 0; t < len; ++t) {
      lane_operand(this->a, a[i * lda + t], keep_subnormals, w.av[t * n + i], w.ae[t * n + i]);
      lane_operand(this->b, b[i * ldb + t], keep_subnormals, w.bv[t * n + i], w.be[t * n + i]);
    }
    lane_operand(this->c, c_bits[i], keep_subnormals, w.cv[i], w.ce[i]);
  }
  lanes::block_fma(*lane_params, n, len, w.av.get(), w.ae.get(), false, w.bv.get(), w.be.get(), n, w.cv.get(),
                   w.ce.get(), d, nullptr, nullptr, w.fixup.get());
  for (std::size_t i = 0; i < n; ++i)
    if (w.fixup[i]) d[i] = element(len, a + i * lda, b + i * ldb, c_bits[i], pa, pb, terms);
}

std::uint64_t BlockKernel::Impl::zero(bool all_negative, bool all_positive) const {
  if (cfg.zero_sign == ZeroSign::Positive) return cfg.out_format.zero(false);
  return cfg.out_format.zero(all_negative || (!all_positive && cfg.final_rounding == Rounding::Down));
}

std::uint64_t BlockKernel::Impl::round_out(bool negative, std::uint64_t mag, std::int64_t lsb) const {
  const int m = 63 - std::countl_zero(mag);
  std::int64_t e = lsb + m;
  if (e >= out.emin && e <= out.emax) {
    const int sh = m - (out.precision - 1);
    std::uint64_t kept;
    bool done = true;
    if (sh <= 0) {
      kept = mag << -sh;
    } else {
      kept = mag >> sh;
      const std::uint64_t rem = mag & ((std::uint64_t{1} << sh) - 1);
      if (rem != 0) {
        const std::uint64_t half = std::uint64_t{1} << (sh - 1);
        switch (cfg.final_rounding) {
          case Rounding::NearestEven: kept += (rem > half || (rem == half && (kept & 1))) ? 1 : 0; break;
          case Rounding::Up: kept += negative ? 0 : 1; break;
          case Rounding::Down: kept += negative ? 1 : 0; break;
          case Rounding::ToOdd: kept |= 1; break;
          case Rounding::TowardZero: break;
          default: done = false; break;
        }
      }
      if (kept >> out.precision) {  // rounded up to the next binade
        kept >>= 1;
        ++e;
      }
    }
    if (done && (e < out.emax || (e == out.emax && kept <= out.max_finite_significand)))
      return (negative ? out.sign_mask : 0) | (static_cast<std::uint64_t>(e + out.bias) << (out.precision - 1)) |
             (kept & out.frac_mask);
  }
  return round_to_format(ExactValue::finite(negative, BigInt(mag), lsb), cfg.out_format, slow_rounding).bits;
}

std::uint64_t BlockKernel::Impl::slow(std::size_t len, const std::uint64_t* a_row, const std::uint64_t* b_row,
                                      std::uint64_t c_bits, std::vector<std::uint64_t>& pa,
                                      std::vector<std::uint64_t>& pb) const {
  pa.assign(max_products, 0);
  pb.assign(max_products, 0);
  std::copy_n(a_row, len, pa.begin());
  std::copy_n(b_row, len, pb.begin());
  return reference.dot(pa, pb, c_bits);
}

std::uint64_t BlockKernel::Impl::special(std::size_t len, const std::uint64_t* a_row, const std::uint64_t* b_row,
                                         std::uint64_t c_bits, std::vector<std::uint64_t>& pa,
                                         std::vector<std::uint64_t>& pb) const {
  // gather()'s classes: a special field is NaN unless the format has infinities and its
  // fraction is 0 (codec_unsupported admits only these encodings); flushed subnormals are zeros.
  struct Term {
    bool negative;
    std::uint8_t kind;
  };
  auto term = [&](const FieldCodec& f, std::uint64_t bits) {
    const Operand o = decode_fields(f, bits, keep_subnormals);
    if (o.kind == Kind::Zero) return Term{o.negative, block_specials::kZero};
    if (o.kind == Kind::Finite) return Term{o.negative, block_specials::kFinite};
    const bool inf = f.nan == NanEncoding::Ieee && (bits & f.frac_mask) == 0;
    return Term{o.negative, inf ? block_specials::kInf : block_specials::kNaN};
  };
  if (!specials_decided) return slow(len, a_row, b_row, c_bits, pa, pb);
  for (std::size_t t = 0; t < len; ++t)
    if ((a_row[t] & ~a.width_mask) || (b_row[t] & ~b.width_mask)) return slow(len, a_row, b_row, c_bits, pa, pb);
  if (c_bits & ~c.width_mask) return slow(len, a_row, b_row, c_bits, pa, pb);
  block_specials::Facts facts;
  for (std::size_t t = 0; t < len; ++t) facts.product(term(a, a_row[t]), term(b, b_row[t]));
  const Term z = term(c, c_bits);
  if (z.kind == block_specials::kNaN) facts.nan = true;
  if (z.kind == block_specials::kInf) (z.negative ? facts.neg_inf : facts.pos_inf) = true;
  if (facts.nan || (facts.pos_inf && facts.neg_inf)) return nan_result;
  if (facts.pos_inf || facts.neg_inf) return infinite_result[facts.neg_inf];
  return slow(len, a_row, b_row, c_bits, pa, pb);  // not reached: the caller saw a special
}

std::uint64_t BlockKernel::Impl::element(std::size_t len, const std::uint64_t* a_row, const std::uint64_t* b_row,
                                         std::uint64_t c_bits, std::vector<std::uint64_t>& pa,
                                         std::vector<std::uint64_t>& pb, std::vector<Operand>& terms) const {
  // A NaN or infinite c (a chain's accumulator after a special block) sends the element to
  // special() before any product is decoded.
  if (!(c_bits & ~c.width_mask) && decode_fields(c, c_bits, keep_subnormals).kind == Kind::Special)
    return special(len, a_row, b_row, c_bits, pa, pb);
  terms.clear();
  bool all_negative = true, all_positive = true;
  std::int64_t E = std::numeric_limits<std::int64_t>::min();
  for (std::size_t t = 0; t < len; ++t) {
    const std::uint64_t x_bits = a_row[t], y_bits = b_row[t];
    if ((x_bits & ~a.width_mask) || (y_bits & ~b.width_mask)) return slow(len, a_row, b_row, c_bits, pa, pb);
    const Operand x = decode_fields(a, x_bits, keep_subnormals);
    const Operand y = decode_fields(b, y_bits, keep_subnormals);
    if (x.kind == Kind::Special || y.kind == Kind::Special) return special(len, a_row, b_row, c_bits, pa, pb);
    const bool negative = x.negative != y.negative;
    if (x.kind == Kind::Zero || y.kind == Kind::Zero) {
      (negative ? all_positive : all_negative) = false;
      continue;
    }
    Operand p;
    p.negative = negative;
    p.sig = x.sig * y.sig;
    p.lsb = x.lsb + y.lsb;
    p.eref = x.eref + y.eref;
    E = std::max<std::int64_t>(E, p.eref);
    terms.push_back(p);
  }
  if (len < max_products) all_negative = false;  // the +0 padding products
  if (c_bits & ~c.width_mask) return slow(len, a_row, b_row, c_bits, pa, pb);
  const Operand z = decode_fields(c, c_bits, keep_subnormals);
  if (z.kind == Kind::Special) return special(len, a_row, b_row, c_bits, pa, pb);
  if (z.kind == Kind::Zero) {
    (z.negative ? all_positive : all_negative) = false;
  } else {
    E = std::max<std::int64_t>(E, z.eref);
    terms.push_back(z);
  }
  if (terms.empty()) return zero(all_negative, all_positive);
  if (cfg.min_exponent) E = std::max<std::int64_t>(E, *cfg.min_exponent);
  const std::int64_t lsb = E - cfg.fraction_bits;
  std::int64_t sum = 0;
  for (const Operand& t : terms) {
    const std::uint64_t mag = align_magnitude(t.sig, t.lsb - lsb, t.negative, cfg.alignment_rounding);
    sum += t.negative ? -static_cast<std::int64_t>(mag) : static_cast<std::int64_t>(mag);
  }
  const bool negative = sum < 0;
  std::uint64_t mag = negative ? 0 - static_cast<std::uint64_t>(sum) : static_cast<std::uint64_t>(sum);
  if (register_bits < 64 && (mag >> register_bits) != 0) mag &= (std::uint64_t{1} << register_bits) - 1;  // wrap
  if (mag == 0) return zero(false, false);
  return round_out(negative, mag, lsb);
}

}  // namespace tcsim
