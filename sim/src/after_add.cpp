// AfterAddKernel (see after_add.hpp): the c_placement After datapath of adder.cpp (gather,
// after_sum, zero_result, round_out) step for step in int64.
#include "tcsim/sim/after_add.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "host_decode.hpp"
#include "tcsim/sim/codec.hpp"

namespace tcsim {

namespace {

using host_decode::decode_fp32;
using host_decode::pow2;

constexpr std::size_t kMaxK = 64;
constexpr std::uint8_t kZero = 0, kFinite = 1, kInf = 2, kNaN = 3;

// floor(v / 2^s) for s >= 0, v * 2^-s for s < 0 (exact then).
inline std::int64_t floor_shift(std::int64_t v, int s) {
  if (s <= 0) return v * (std::int64_t{1} << -s);
  if (s >= 63) return v < 0 ? -1 : 0;
  return v >> s;  // arithmetic shift: the floor (C++20)
}

// The magnitude m * 2^q truncated to units of 2^lsb (toward zero).
inline std::uint64_t trunc_units(std::uint64_t m, int q, int lsb) {
  const int s = q - lsb;
  if (s >= 0) return m << s;
  return -s >= 64 ? 0 : m >> -s;
}


}  // namespace

std::optional<std::string> after_add_unsupported(const AdderConfig& cfg, std::size_t k) {
  if (cfg.c_placement != CPlacement::After || cfg.normalization != Normalization::Deferred)
    return std::string("c is not added after the products");
  const Format& f32 = formats::fp32();
  if (!(cfg.c_format == f32) || !(cfg.out_format == f32)) return std::string("c or the output is not fp32");
  for (const Format* f : {&cfg.a_format, &cfg.b_format})
    if (f->precision > 24 || f->emax > 127 || f->emin < -126 || f->width > 32)
      return "operand format '" + f->name + "' is wider than binary32";
  if (cfg.alignment_rounding != Rounding::TowardZero || cfg.sticky_bit || cfg.fraction_bits > 30)
    return std::string("products not truncated at F <= 30 without a sticky bit");
  if (cfg.after.rounding != Rounding::Down || cfg.after.sum_fraction_bits > 40 || cfg.after.c_fraction_bits > 40 ||
      (cfg.after.renormalize_fraction_bits && *cfg.after.renormalize_fraction_bits > 40))
    return std::string("the two-operand add is not floored at <= 40 bits");
  if (cfg.final_rounding != Rounding::NearestEven || !cfg.subnormal_outputs ||
      (cfg.overflow != OverflowMode::Ieee && cfg.overflow != OverflowMode::Infinity))
    return std::string("the final rounding is not RNE into binary32 with subnormals and Inf");
  if (cfg.product_groups < 1 || cfg.product_rounding || cfg.min_exponent || cfg.late_products_rounding ||
      cfg.product_exponent != ProductExponent::Unnormalized)
    return std::string("fields beyond the after-add datapath are set");
  if (k == 0 || k > kMaxK) return "fma_size " + std::to_string(k) + " is not 1..64";
  return std::nullopt;
}

AfterAddKernel::AfterAddKernel(const AdderConfig& cfg, std::size_t k) : cfg_(cfg), k_(k) {
  if (auto why = after_add_unsupported(cfg, k)) throw std::invalid_argument("after-add kernel: " + *why);
  nan_ = cfg.nan_pattern ? *cfg.nan_pattern : cfg.out_format.canonical_nan();
}

// adder.cpp read(): input_fraction_bits truncation of the encoding, then the flush rule.
AfterAddKernel::Operand AfterAddKernel::decode(const Format& f, std::uint64_t bits) const {
  if (cfg_.input_fraction_bits) bits &= ~((std::uint64_t{1} << (f.precision - 1 - *cfg_.input_fraction_bits)) - 1);
  const Decoded d = decode_parts(f, bits);
  Operand o;
  o.negative = d.negative;
  switch (d.cls) {
    case FpClass::NaN: o.kind = kNaN; break;
    case FpClass::Infinity: o.kind = kInf; break;
    case FpClass::Zero: o.kind = kZero; break;
    case FpClass::Subnormal:
      if (!cfg_.subnormal_inputs) {
        o.kind = kZero;
        if (cfg_.flush_inputs_positive) o.negative = false;
        break;
      }
      [[fallthrough]];
    default:
      o.kind = kFinite;
      o.sig = static_cast<std::uint32_t>(d.significand);
      o.q = static_cast<std::int16_t>(d.exponent);
      o.e_ref = static_cast<std::int16_t>(d.exponent + f.precision - 1);
      break;
  }
  return o;
}

void AfterAddKernel::decode_a(std::size_t count, const std::uint64_t* bits, Operand* out) const {
  for (std::size_t i = 0; i < count; ++i) out[i] = decode(cfg_.a_format, bits[i]);
}
void AfterAddKernel::decode_b(std::size_t count, const std::uint64_t* bits, Operand* out) const {
  for (std::size_t i = 0; i < count; ++i) out[i] = decode(cfg_.b_format, bits[i]);
}

std::uint64_t AfterAddKernel::block(std::size_t len, const Operand* a, std::size_t sa, const Operand* b,
                                    std::size_t sb, std::uint64_t c_bits) const {
  const int F = cfg_.fraction_bits;
  const std::size_t G = static_cast<std::size_t>(cfg_.product_groups);
  const int emax = cfg_.out_format.emax;
  // gather(): products (exact), their classes, the zero-sign facts.
  struct Prod {
    std::uint64_t sig;
    int q, e_ref;
    bool negative;
  };
  Prod prods[kMaxK];
  std::size_t group_of[kMaxK];
  std::size_t np = 0;
  bool nan = false, pos_inf = false, neg_inf = false, all_neg = true, all_pos = true;
  for (std::size_t t = 0; t < len; ++t) {
    const Operand& x = a[t * sa];
    const Operand& y = b[t * sb];
    const bool neg = x.negative != y.negative;
    if (x.kind == kNaN || y.kind == kNaN) {
      nan = true;
      continue;
    }
    if (x.kind == kInf || y.kind == kInf) {
      if (x.kind == kZero || y.kind == kZero) nan = true;
      else (neg ? neg_inf : pos_inf) = true;
      all_neg = all_pos = false;
      continue;
    }
    if (x.kind == kZero || y.kind == kZero) {
      (neg ? all_pos : all_neg) = false;
      continue;
    }
    all_neg = all_pos = false;
    const std::uint64_t sig = std::uint64_t{x.sig} * y.sig;
    const int q = x.q + y.q;
    if (cfg_.product_overflow_inf && q + (63 - std::countl_zero(sig)) > emax) {
      (neg ? neg_inf : pos_inf) = true;
      continue;
    }
    prods[np] = {sig, q, x.e_ref + y.e_ref, neg};
    group_of[np] = t % G;
    ++np;
  }
  // The padding products (+0 * +0) are +0: every term is -0 no longer.
  if (len < k_) all_neg = false;
  const std::uint32_t cu = static_cast<std::uint32_t>(c_bits);
  const Decoded cd = decode_fp32(cu);
  bool c_nonzero = false;
  std::int64_t c_sig = 0;
  int c_q = 0, e_c = cfg_.c_format.emin;
  switch (cd.cls) {
    case FpClass::NaN: nan = true; break;
    case FpClass::Infinity:
      (cd.negative ? neg_inf : pos_inf) = true;
      all_neg = all_pos = false;
      break;
    case FpClass::Zero: (cd.negative ? all_pos : all_neg) = false; break;
    case FpClass::Subnormal:
      if (!cfg_.subnormal_inputs) {  // read(): flushed c
        (cd.negative && !cfg_.flush_inputs_positive ? all_pos : all_neg) = false;
        break;
      }
      [[fallthrough]];
    default:
      all_neg = all_pos = false;
      c_nonzero = true;
      c_sig = cd.negative ? -static_cast<std::int64_t>(cd.significand) : static_cast<std::int64_t>(cd.significand);
      c_q = cd.exponent;
      e_c = cd.exponent + cfg_.c_format.precision - 1;
      break;
  }
  if (nan || (pos_inf && neg_inf)) return nan_;
  if (pos_inf || neg_inf) return cfg_.out_format.infinity(neg_inf);

  auto zero_result = [&](bool all_negative, bool all_positive) -> std::uint64_t {
    if (cfg_.zero_sign == ZeroSign::Positive) return 0;
    const bool neg = all_negative || (!all_positive && cfg_.final_rounding == Rounding::Down);
    return neg ? 0x80000000u : 0u;
  };

  // after_sum(): groups truncated at F below their own largest exponent, combined at e_dot.
  const bool any_product = np > 0;
  int e_dot = 0;
  std::int64_t s = 0;  // units of 2^(e_dot - F)
  if (any_product) {
    int eg[kMaxK];
    bool used[kMaxK] = {};
    for (std::size_t g = 0; g < G; ++g) eg[g] = -100000;
    for (std::size_t i = 0; i < np; ++i) {
      eg[group_of[i]] = std::max(eg[group_of[i]], prods[i].e_ref);
      used[group_of[i]] = true;
    }
    std::int64_t sums[kMaxK] = {};
    std::size_t used_groups = 0;
    e_dot = -100000;
    for (std::size_t g = 0; g < G; ++g)
      if (used[g]) {
        ++used_groups;
        e_dot = std::max(e_dot, eg[g]);
      }
    for (std::size_t i = 0; i < np; ++i) {
      const std::size_t g = group_of[i];
      const auto m = static_cast<std::int64_t>(trunc_units(prods[i].sig, prods[i].q, eg[g] - F));
      sums[g] += prods[i].negative ? -m : m;
    }
    for (std::size_t g = 0; g < G; ++g)
      if (used[g]) s += used_groups == 1 ? sums[g] : floor_shift(sums[g], e_dot - eg[g]);
  }
  const int E = any_product ? std::max(e_dot, e_c) : e_c;
  const int sfb = cfg_.after.sum_fraction_bits, cfb = cfg_.after.c_fraction_bits;
  const int lsb = E - std::max(sfb, cfb);
  std::int64_t total = 0;
  if (s != 0) total += floor_shift(s, (E - sfb) - (e_dot - F)) * (std::int64_t{1} << (E - sfb - lsb));
  const bool drop_c = cfg_.after.drop_c_below && e_c < E - *cfg_.after.drop_c_below;
  if (c_nonzero && !drop_c) total += floor_shift(c_sig, (E - cfb) - c_q) * (std::int64_t{1} << (E - cfb - lsb));
  if (total == 0) return zero_result(all_neg && !any_product, all_pos);
  int out_lsb = lsb;
  if (cfg_.after.renormalize_fraction_bits) {
    const std::uint64_t mag = total < 0 ? static_cast<std::uint64_t>(-total) : static_cast<std::uint64_t>(total);
    const int lead = std::max(lsb + (63 - std::countl_zero(mag)), cfg_.out_format.emin);
    const int new_lsb = lead - *cfg_.after.renormalize_fraction_bits;
    if (new_lsb > lsb) {
      total = floor_shift(total, new_lsb - lsb);
      out_lsb = new_lsb;
    }
    if (total == 0) return zero_result(false, false);
  }
  // |total| < 2^53: exact in binary64, and the scaling by 2^out_lsb stays in binary64's normal
  // range; the conversion to binary32 is the one rounding (RNE, subnormals, overflow to Inf).
  const float v = static_cast<float>(static_cast<double>(total) * pow2(out_lsb));
  return std::bit_cast<std::uint32_t>(v);
}

void AfterAddKernel::run(std::size_t n, std::size_t len, const std::uint64_t* a, std::size_t lda,
                         const std::uint64_t* b, std::size_t ldb, const std::uint64_t* c, std::uint64_t* d) const {
  Operand x[kMaxK], y[kMaxK];
  for (std::size_t i = 0; i < n; ++i) {
    decode_a(len, a + i * lda, x);
    decode_b(len, b + i * ldb, y);
    d[i] = block(len, x, 1, y, 1, c[i]);
  }
}

}  // namespace tcsim
