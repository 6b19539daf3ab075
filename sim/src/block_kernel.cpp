// The int64 block-FMA kernel (see block_kernel.hpp). Every step mirrors a named step of
// FixedPointAdder's deferred path (adder.cpp: gather, aligned_sum, zero_result, round_out).
#include "tcsim/sim/block_kernel.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "block_lanes.hpp"
#include "block_planar32.hpp"
#include "block_tile_chain.hpp"
#include "tcsim/sim/fma_lanes.hpp"
#include "tcsim/sim/codec.hpp"

namespace tcsim {

namespace {

// Integer decoding of a format whose encoding is the standard one (sign bit, exponent
// field with bias, precision-1 fraction bits; the top field holds Inf/NaN for IEEE NaNs).
struct FieldCodec {
  std::uint64_t width_mask = 0, sign_mask = 0, frac_mask = 0;
  int precision = 0, exp_bits = 0, bias = 0, emin = 0, emax = 0;
  unsigned top_field = 0;
  NanEncoding nan = NanEncoding::Ieee;
  std::uint64_t max_finite_significand = 0;  // at emax, implicit bit included
};

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

enum class Kind : std::uint8_t { Zero, Finite, Special };

// value = (-1)^negative * sig * 2^lsb; eref = the exponent the adder aligns on (emin for
// subnormals, as gather() does).
struct Operand {
  std::uint64_t sig = 0;
  int lsb = 0;
  int eref = 0;
  bool negative = false;
  Kind kind = Kind::Zero;
};

inline Operand decode_fields(const FieldCodec& f, std::uint64_t bits, bool keep_subnormals) {
  Operand o;
  o.negative = (bits & f.sign_mask) != 0;
  const unsigned field = static_cast<unsigned>(bits >> (f.precision - 1)) & f.top_field;
  const std::uint64_t frac = bits & f.frac_mask;
  if (field == 0) {
    if (frac == 0 || !keep_subnormals) return o;  // zero, or a flushed subnormal: a signed zero
    o.kind = Kind::Finite;
    o.sig = frac;
    o.lsb = f.emin - (f.precision - 1);
    o.eref = f.emin;
    return o;
  }
  if (field == f.top_field &&
      (f.nan == NanEncoding::Ieee || (f.nan == NanEncoding::AllOnes && frac == f.frac_mask))) {
    o.kind = Kind::Special;
    return o;
  }
  o.kind = Kind::Finite;
  o.sig = frac | (std::uint64_t{1} << (f.precision - 1));
  o.eref = static_cast<int>(field) - f.bias;
  o.lsb = o.eref - (f.precision - 1);
  return o;
}

// A term's magnitude in units of 2^lsb with the alignment rounding (align() in adder.cpp);
// `shift` = term lsb - register lsb.
inline std::uint64_t align_magnitude(std::uint64_t sig, std::int64_t shift, bool negative, Rounding mode) {
  if (shift >= 0) return sig << shift;
  const std::int64_t s = -shift;
  std::uint64_t kept, rem;
  int half_cmp;  // dropped part vs half a unit: -1, 0, 1
  if (s >= 64) {
    kept = 0;
    rem = sig;
    half_cmp = -1;  // sig < 2^63 <= 2^(s-1)
  } else {
    kept = sig >> s;
    rem = sig & ((std::uint64_t{1} << s) - 1);
    const std::uint64_t half = std::uint64_t{1} << (s - 1);
    half_cmp = rem < half ? -1 : (rem == half ? 0 : 1);
  }
  if (rem == 0) return kept;
  switch (mode) {
    case Rounding::Down: return kept + (negative ? 1 : 0);
    case Rounding::Up: return kept + (negative ? 0 : 1);
    case Rounding::NearestEven: return kept + ((half_cmp > 0 || (half_cmp == 0 && (kept & 1))) ? 1 : 0);
    default: return kept;  // TowardZero
  }
}

}  // namespace

struct BlockKernel::Impl {
  AdderConfig cfg;
  std::size_t max_products = 0;
  FixedPointAdder reference;
  FieldCodec a, b, c, out;
  int register_bits = 0;
  bool keep_subnormals = true;
  RoundingOptions slow_rounding;
  // The binary64-lane SIMD core, where its exactness budget holds (block_lanes.hpp).
  std::optional<lanes::LaneParams> lane_params;
  std::size_t lane_count = 1;
  // The pattern path of run() (block_fma_patterns), where it applies.
  bool patterns = false;
  bool tiles = false;  // block_tile's conditions (block_lanes.hpp)
  bool planar = false;  // block_fma_planar16's conditions, on a SIMD target
  bool planar32 = false;  // block_fma_planar32's conditions (tf32), on a SIMD target
  lanes::PatternCodec a_codec, b_codec, c_codec;

  Impl(const AdderConfig& config, std::size_t k)
      : cfg(config), max_products(k), reference(config), a(make_codec(config.a_format)),
        b(make_codec(config.b_format)), c(make_codec(config.c_format)), out(make_codec(config.out_format)),
        register_bits(1 + config.carry_bits + config.fraction_bits), keep_subnormals(config.subnormal_inputs) {
    slow_rounding.mode = cfg.final_rounding;
    slow_rounding.overflow = cfg.overflow;
    slow_rounding.subnormals = cfg.subnormal_outputs ? SubnormalMode::Keep : SubnormalMode::Flush;
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

  // Operands, c and d exact in binary32, significands of at most 12 bits (products exact in
  // binary32 where they lie in its normal range), an int32 block sum, truncating alignment.
  // bf16 and tf32 products may leave binary32's range: block_tile flags every output whose
  // E could overflow a product (E > kTileMaxE) or whose terms reach below the normal range
  // (E - F < -120); products below that range truncate to 0 as their exact values do.
  // Blocks longer than 2^(29 - F) products sum in int32 chunks of that length, added in
  // binary64 (lanes::tile_chunk_len; exact: this Impl's lanes need F + 3 + log2(k + 1) <= 53).
  bool tile_conditions() const {
    const std::size_t chunk = lanes::tile_chunk_len(cfg.fraction_bits);
    auto exact_in_binary32 = [](const FieldCodec& f) {
      return f.precision <= 24 && f.emax <= 127 && f.emin - (f.precision - 1) >= -149;
    };
    return cfg.alignment_rounding == Rounding::TowardZero && a.precision <= 12 && b.precision <= 12 &&
           exact_in_binary32(a) && exact_in_binary32(b) && chunk > 0 &&
           (max_products + chunk - 1) / chunk <= lanes::kTileMaxChunks &&
           exact_in_binary32(c) && exact_in_binary32(out);
  }

  static void tile_operand(const FieldCodec& f, std::uint64_t bits, bool keep_subnormals, float& value,
                           std::int32_t& eref) {
    double v, e;
    lane_operand(f, bits, keep_subnormals, v, e);
    value = static_cast<float>(v);  // exact (tile_conditions), NaN for specials
    eref = e == lanes::kZeroExponent ? lanes::kTileZero : (v != v ? lanes::kTileSpecial : static_cast<std::int32_t>(e));
  }

  static lanes::PatternCodec pattern_codec(const FieldCodec& f) {
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

  // 2^e for e in binary64's normal range [-1022, 1023].
  static double power_of_two(int e) { return std::bit_cast<double>(static_cast<std::uint64_t>(e + 1023) << 52); }

  static int lane_rounding(Rounding r) {
    switch (r) {
      case Rounding::Down: return 1;
      case Rounding::Up: return 2;
      case Rounding::NearestEven: return 3;
      case Rounding::ToOdd: return 4;
      default: return 0;
    }
  }

  // An operand for the lanes: its exact value and alignment exponent; zeros never set E,
  // NaN/Inf (and patterns out of range) make the lane's sum NaN, hence the exact path.
  static void lane_operand(const FieldCodec& f, std::uint64_t bits, bool keep_subnormals, double& value, double& eref) {
    if (bits & ~f.width_mask) {
      value = std::numeric_limits<double>::quiet_NaN();
      eref = 0;
      return;
    }
    const Operand o = decode_fields(f, bits, keep_subnormals);
    switch (o.kind) {
      case Kind::Zero: value = 0; eref = lanes::kZeroExponent; return;
      case Kind::Special: value = std::numeric_limits<double>::quiet_NaN(); eref = 0; return;
      case Kind::Finite:
        value = o.negative ? -static_cast<double>(o.sig) : static_cast<double>(o.sig);
        // Exact: the value is a binary64 number (c may be a binary64 subnormal: two steps).
        value = o.lsb >= -1022 ? value * power_of_two(o.lsb) : value * power_of_two(o.lsb + 64) * power_of_two(-64);
        eref = o.eref;
        return;
    }
  }

  // Elements [0, n) through the SIMD core, n a multiple of lane_count; the flagged ones
  // through element().
  // Decoded panels of up to `chunk` elements: value and e_ref of every operand, t-major.
  struct Panels {
    std::unique_ptr<double[]> av, ae, bv, be, cv, ce;
    std::unique_ptr<std::uint8_t[]> fixup;
    Panels(std::size_t len, std::size_t chunk)
        : av(new double[len * chunk]), ae(new double[len * chunk]), bv(new double[len * chunk]),
          be(new double[len * chunk]), cv(new double[chunk]), ce(new double[chunk]), fixup(new std::uint8_t[chunk]) {}
  };

  void run_lanes(std::size_t n, std::size_t len, const std::uint64_t* a, std::size_t lda, const std::uint64_t* b,
                 std::size_t ldb, const std::uint64_t* c_bits, std::uint64_t* d, Panels& w, std::vector<std::uint64_t>& pa,
                 std::vector<std::uint64_t>& pb, std::vector<Operand>& terms) const {
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

  // zero_result() of adder.cpp.
  std::uint64_t zero(bool all_negative, bool all_positive) const {
    if (cfg.zero_sign == ZeroSign::Positive) return cfg.out_format.zero(false);
    return cfg.out_format.zero(all_negative || (!all_positive && cfg.final_rounding == Rounding::Down));
  }

  // The final rounding of (-1)^negative * mag * 2^lsb, mag > 0. Results in the output's
  // normal range are rounded here; the rest (subnormal, overflow) by round_to_format.
  std::uint64_t round_out(bool negative, std::uint64_t mag, std::int64_t lsb) const {
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

  // The reference adder on one element (NaN/Inf operands, patterns out of range).
  std::uint64_t slow(std::size_t len, const std::uint64_t* a_row, const std::uint64_t* b_row, std::uint64_t c_bits,
                     std::vector<std::uint64_t>& pa, std::vector<std::uint64_t>& pb) const {
    pa.assign(max_products, 0);
    pb.assign(max_products, 0);
    std::copy_n(a_row, len, pa.begin());
    std::copy_n(b_row, len, pb.begin());
    return reference.dot(pa, pb, c_bits);
  }

  std::uint64_t element(std::size_t len, const std::uint64_t* a_row, const std::uint64_t* b_row,
                        std::uint64_t c_bits, std::vector<std::uint64_t>& pa, std::vector<std::uint64_t>& pb,
                        std::vector<Operand>& terms) const {
    terms.clear();
    bool all_negative = true, all_positive = true;
    std::int64_t E = std::numeric_limits<std::int64_t>::min();
    for (std::size_t t = 0; t < len; ++t) {
      const std::uint64_t x_bits = a_row[t], y_bits = b_row[t];
      if ((x_bits & ~a.width_mask) || (y_bits & ~b.width_mask)) return slow(len, a_row, b_row, c_bits, pa, pb);
      const Operand x = decode_fields(a, x_bits, keep_subnormals);
      const Operand y = decode_fields(b, y_bits, keep_subnormals);
      if (x.kind == Kind::Special || y.kind == Kind::Special) return slow(len, a_row, b_row, c_bits, pa, pb);
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
    if (z.kind == Kind::Special) return slow(len, a_row, b_row, c_bits, pa, pb);
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
};

std::optional<std::string> block_kernel_unsupported(const AdderConfig& cfg, std::size_t max_products) {
  if (cfg.normalization != Normalization::Deferred) return "per-step normalization";
  if (cfg.c_placement == CPlacement::After) return "c added after the products (two-operand add)";
  if (cfg.c_placement != CPlacement::Aligned) return "c added late";
  if (cfg.uses_extended_fields())
    return "product groups, input truncation, product rounding/overflow or +0 flushing (not in the kernels)";
  if (cfg.product_exponent != ProductExponent::Unnormalized) return "normalized product exponents";
  if (cfg.sticky_bit) return "sticky bit";
  if (cfg.final_rounding == Rounding::Stochastic) return "stochastic final rounding";
  for (auto [f, role] : {std::pair{&cfg.a_format, "a"}, {&cfg.b_format, "b"}, {&cfg.c_format, "c"},
                         {&cfg.out_format, "output"}})
    if (auto why = codec_unsupported(*f, role)) return why;
  if (cfg.a_format.precision > 12 || cfg.b_format.precision > 12)
    return "operands with more than 12 significand bits (products would not fit the int64 lanes' budget)";
  // Every aligned term is below 2^(F+2) units; k products and c must sum below 2^63.
  int terms_bits = 0;
  while ((std::size_t{1} << terms_bits) < max_products + 1) ++terms_bits;
  if (cfg.fraction_bits + 2 + terms_bits > 62)
    return "F = " + std::to_string(cfg.fraction_bits) + " with " + std::to_string(max_products) +
           " products does not fit int64 (needs F + 2 + log2(k+1) <= 62)";
  return std::nullopt;
}

BlockKernel::BlockKernel(const AdderConfig& cfg, std::size_t max_products) {
  cfg.validate();
  if (auto why = block_kernel_unsupported(cfg, max_products))
    throw std::invalid_argument("block kernel: " + *why);
  impl_ = std::make_unique<Impl>(cfg, max_products);
}
BlockKernel::~BlockKernel() = default;
BlockKernel::BlockKernel(BlockKernel&&) noexcept = default;
BlockKernel& BlockKernel::operator=(BlockKernel&&) noexcept = default;

const AdderConfig& BlockKernel::config() const { return impl_->cfg; }
std::size_t BlockKernel::max_products() const { return impl_->max_products; }

void BlockKernel::run(std::size_t n, std::size_t len, const std::uint64_t* a, std::size_t lda, const std::uint64_t* b,
                      std::size_t ldb, const std::uint64_t* c, std::uint64_t* d) const {
  if (len > impl_->max_products)
    throw std::invalid_argument("block kernel: " + std::to_string(len) + " products exceed the block's " +
                                std::to_string(impl_->max_products));
  std::vector<std::uint64_t> pa, pb;
  std::vector<Operand> terms;
  terms.reserve(len + 1);
  std::size_t i = 0;
  if (impl_->patterns) {
    const std::size_t vec = n / impl_->lane_count * impl_->lane_count;
    constexpr std::size_t kChunk = 1024;
    std::uint8_t fixup[kChunk];
    for (; i < vec; i += kChunk) {
      const std::size_t m = std::min(kChunk, vec - i);
      lanes::block_fma_patterns(*impl_->lane_params, impl_->a_codec, impl_->b_codec, impl_->c_codec,
                                impl_->keep_subnormals, m, len, a + i * lda, lda, b + i * ldb, ldb, c + i, d + i,
                                fixup);
      for (std::size_t e = 0; e < m; ++e)
        if (fixup[e]) d[i + e] = impl_->element(len, a + (i + e) * lda, b + (i + e) * ldb, c[i + e], pa, pb, terms);
    }
    i = vec;
  } else if (impl_->lane_params) {
    constexpr std::size_t kChunk = 512;  // elements decoded at a time: the panels stay in L1/L2
    const std::size_t step = std::max(impl_->lane_count, kChunk / impl_->lane_count * impl_->lane_count);
    Impl::Panels panels(len, step);
    for (; i + impl_->lane_count <= n; i += step) {
      const std::size_t m = std::min(step, (n - i) / impl_->lane_count * impl_->lane_count);
      impl_->run_lanes(m, len, a + i * lda, lda, b + i * ldb, ldb, c + i, d + i, panels, pa, pb, terms);
      if (m < step) {
        i += m;
        break;
      }
    }
  }
  for (; i < n; ++i) d[i] = impl_->element(len, a + i * lda, b + i * ldb, c[i], pa, pb, terms);
}

bool BlockKernel::planar_supported() const { return impl_->planar; }

void BlockKernel::run_planar(std::size_t n, std::size_t len, const std::uint16_t* a, std::size_t lda,
                             const std::uint16_t* b, std::size_t ldb, const std::uint64_t* c, std::uint64_t* d) const {
  if (len > impl_->max_products)
    throw std::invalid_argument("block kernel: " + std::to_string(len) + " products exceed the block's " +
                                std::to_string(impl_->max_products));
  std::vector<std::uint64_t> ga, gb, pa, pb;
  std::vector<Operand> terms;
  // Elements [i, i + m) regrouped element-major (64-bit patterns) for run().
  auto gather = [&](std::size_t i, std::size_t m) {
    ga.resize(m * len);
    gb.resize(m * len);
    for (std::size_t t = 0; t < len; ++t)
      for (std::size_t e = 0; e < m; ++e) {
        ga[e * len + t] = a[t * lda + i + e];
        gb[e * len + t] = b[t * ldb + i + e];
      }
  };
  std::size_t i = 0;
  if (impl_->planar) {
    const std::size_t lanes_per_vector = lanes::planar16_lane_count();
    const std::size_t vec = n / lanes_per_vector * lanes_per_vector;
    constexpr std::size_t kChunk = 1024;
    std::uint8_t fixup[kChunk];
    for (; i < vec; i += kChunk) {
      const std::size_t m = std::min(kChunk, vec - i);
      lanes::block_fma_planar16(*impl_->lane_params, impl_->a_codec, impl_->b_codec, impl_->c_codec, m, len, a + i,
                                lda, b + i, ldb, c + i, d + i, fixup);
      for (std::size_t e = 0; e < m; ++e)
        if (fixup[e]) {
          gather(i + e, 1);
          d[i + e] = impl_->element(len, ga.data(), gb.data(), c[i + e], pa, pb, terms);
        }
    }
    i = vec;
  }
  constexpr std::size_t kGroup = 256;
  for (; i < n; i += kGroup) {
    const std::size_t m = std::min(kGroup, n - i);
    gather(i, m);
    run(m, len, ga.data(), len, gb.data(), len, c + i, d + i);
  }
}

void BlockKernel::run_planar_rows(std::size_t n, std::size_t len, const std::uint16_t* const* a_rows,
                                  const std::uint16_t* const* b_rows, const std::uint64_t* c, std::uint64_t* d) const {
  if (len > impl_->max_products)
    throw std::invalid_argument("block kernel: " + std::to_string(len) + " products exceed the block's " +
                                std::to_string(impl_->max_products));
  std::vector<std::uint64_t> ga, gb, pa, pb;
  std::vector<Operand> terms;
  auto gather = [&](std::size_t i, std::size_t m) {  // elements [i, i + m) element-major for run()
    ga.resize(m * len);
    gb.resize(m * len);
    for (std::size_t t = 0; t < len; ++t)
      for (std::size_t e = 0; e < m; ++e) {
        ga[e * len + t] = a_rows[t][i + e];
        gb[e * len + t] = b_rows[t][i + e];
      }
  };
  std::size_t i = 0;
  if (impl_->planar) {
    const std::size_t lanes_per_vector = lanes::planar16_lane_count();
    const std::size_t vec = n / lanes_per_vector * lanes_per_vector;
    constexpr std::size_t kChunk = 1024;
    std::uint8_t fixup[kChunk];
    for (; i < vec; i += kChunk) {
      const std::size_t m = std::min(kChunk, vec - i);
      lanes::block_fma_planar16_rows(*impl_->lane_params, impl_->a_codec, impl_->b_codec, impl_->c_codec, m, len,
                                     a_rows, b_rows, i, c + i, d + i, fixup);
      for (std::size_t e = 0; e < m; ++e)
        if (fixup[e]) {
          gather(i + e, 1);
          d[i + e] = impl_->element(len, ga.data(), gb.data(), c[i + e], pa, pb, terms);
        }
    }
    i = vec;
  }
  constexpr std::size_t kGroup = 256;
  for (; i < n; i += kGroup) {
    const std::size_t m = std::min(kGroup, n - i);
    gather(i, m);
    run(m, len, ga.data(), len, gb.data(), len, c + i, d + i);
  }
}

bool BlockKernel::planar32_supported() const { return impl_->planar32; }

void BlockKernel::run_planar32(std::size_t n, std::size_t len, const std::uint32_t* a, std::size_t lda,
                               const std::uint32_t* b, std::size_t ldb, const std::uint64_t* c, std::uint64_t* d) const {
  if (len > impl_->max_products)
    throw std::invalid_argument("block kernel: " + std::to_string(len) + " products exceed the block's " +
                                std::to_string(impl_->max_products));
  std::vector<std::uint64_t> ga, gb, pa, pb;
  std::vector<Operand> terms;
  auto gather = [&](std::size_t i, std::size_t m) {  // elements [i, i + m) element-major for run()
    ga.resize(m * len);
    gb.resize(m * len);
    for (std::size_t t = 0; t < len; ++t)
      for (std::size_t e = 0; e < m; ++e) {
        ga[e * len + t] = a[t * lda + i + e];
        gb[e * len + t] = b[t * ldb + i + e];
      }
  };
  std::size_t i = 0;
  if (impl_->planar32) {
    // The binary32 products below the normal range must round as IEEE says (no DAZ/FTZ).
    const fma_lanes::DefaultFloatEnvironment env;
    const std::size_t lanes_per_vector = lanes::planar32_lane_count();
    const std::size_t vec = n / lanes_per_vector * lanes_per_vector;
    constexpr std::size_t kChunk = 1024;
    std::uint8_t fixup[kChunk];
    for (; i < vec; i += kChunk) {
      const std::size_t m = std::min(kChunk, vec - i);
      lanes::block_fma_planar32(*impl_->lane_params, impl_->a_codec, impl_->b_codec, impl_->c_codec, m, len, a + i,
                                lda, b + i, ldb, c + i, d + i, fixup);
      for (std::size_t e = 0; e < m; ++e)
        if (fixup[e]) {
          gather(i + e, 1);
          d[i + e] = impl_->element(len, ga.data(), gb.data(), c[i + e], pa, pb, terms);
        }
    }
    i = vec;
  }
  constexpr std::size_t kGroup = 256;
  for (; i < n; i += kGroup) {
    const std::size_t m = std::min(kGroup, n - i);
    gather(i, m);
    run(m, len, ga.data(), len, gb.data(), len, c + i, d + i);
  }
}

void BlockKernel::decode(Role role, std::size_t count, const std::uint64_t* bits, double* value, double* eref) const {
  const Impl& k = *impl_;
  const FieldCodec& f = role == Role::A ? k.a : (role == Role::B ? k.b : k.c);
  for (std::size_t i = 0; i < count; ++i) Impl::lane_operand(f, bits[i], k.keep_subnormals, value[i], eref[i]);
}

bool BlockKernel::tile_supported() const { return impl_->tiles; }
std::size_t BlockKernel::tile_columns() const { return lanes::tile_columns(); }

void BlockKernel::decode_tile(Role role, std::size_t count, const std::uint64_t* bits, float* value,
                              std::int32_t* eref) const {
  const Impl& k = *impl_;
  const lanes::PatternCodec& f = role == Role::A ? k.a_codec : (role == Role::B ? k.b_codec : k.c_codec);
  lanes::decode_tile_lanes(f, k.keep_subnormals, count, bits, value, eref);
}

void BlockKernel::decode_tile(Role role, std::size_t count, const std::uint64_t* bits, float* value,
                              std::int16_t* eref) const {
  std::int32_t e32[512];
  for (std::size_t i = 0; i < count; i += 512) {
    const std::size_t n = std::min<std::size_t>(512, count - i);
    decode_tile(role, n, bits + i, value + i, e32);
    for (std::size_t j = 0; j < n; ++j) eref[i + j] = lanes::tile_eref16(e32[j]);
  }
}

void BlockKernel::run_tile(std::size_t rows, std::size_t cols, std::size_t valid_cols, std::size_t len,
                           const std::uint64_t* a_bits, const float* a_value, const std::int16_t* a_eref,
                           std::size_t lda, const std::uint64_t* b_bits, const float* b_value,
                           const std::int16_t* b_eref, std::size_t ldb, const std::uint64_t* c_bits,
                           const float* c_value, const std::int32_t* c_eref, std::uint64_t* d_bits, float* d_value,
                           std::int32_t* d_eref, std::size_t ldc) const {
  const Impl& k = *impl_;
  if (!k.tiles) throw std::logic_error("block kernel: run_tile on a configuration without tiles");
  if (len > k.max_products)
    throw std::invalid_argument("block kernel: " + std::to_string(len) + " products exceed the block's " +
                                std::to_string(k.max_products));
  if (cols % lanes::tile_columns() != 0 || valid_cols > cols)
    throw std::invalid_argument("block kernel: run_tile needs cols a multiple of tile_columns()");
  thread_local std::vector<std::uint32_t> flagged;
  if (flagged.size() < rows * ldc) flagged.resize(rows * ldc);
  const std::size_t count = lanes::block_tile(*k.lane_params, rows, cols, len, a_value, a_eref, lda, b_value, b_eref,
                                              ldb, c_value, c_eref, d_bits, d_value, d_eref, ldc, flagged.data());
  std::vector<std::uint64_t> column, pa, pb;
  std::vector<Operand> terms;
  for (std::size_t f = 0; f < count; ++f) {
    const std::size_t o = flagged[f], r = o / ldc, j = o % ldc;
    if (j >= valid_cols) continue;  // padding
    column.resize(len);
    for (std::size_t t = 0; t < len; ++t) column[t] = b_bits[t * ldb + j];
    d_bits[o] = k.element(len, a_bits + r * lda, column.data(), c_bits[o], pa, pb, terms);
    Impl::tile_operand(k.out, d_bits[o], k.keep_subnormals, d_value[o], d_eref[o]);
  }
}

std::size_t BlockKernel::run_tile_lanes(std::size_t rows, std::size_t cols, std::size_t len, const float* a_value,
                                        const std::int16_t* a_eref, std::size_t lda, const float* b_value,
                                        const std::int16_t* b_eref, std::size_t ldb, const float* c_value,
                                        const std::int32_t* c_eref, std::uint64_t* d_bits, float* d_value,
                                        std::int32_t* d_eref, std::size_t ldc, std::uint32_t* flagged) const {
  const Impl& k = *impl_;
  if (!k.tiles) throw std::logic_error("block kernel: run_tile_lanes on a configuration without tiles");
  if (len > k.max_products)
    throw std::invalid_argument("block kernel: " + std::to_string(len) + " products exceed the block's " +
                                std::to_string(k.max_products));
  if (cols % lanes::tile_columns() != 0)
    throw std::invalid_argument("block kernel: run_tile_lanes needs cols a multiple of tile_columns()");
  return lanes::block_tile(*k.lane_params, rows, cols, len, a_value, a_eref, lda, b_value, b_eref, ldb, c_value, c_eref,
                           d_bits, d_value, d_eref, ldc, flagged);
}

std::size_t BlockKernel::tile_rows() const { return lanes::kTileRows; }

bool BlockKernel::run_tile_chain(std::size_t rows, std::size_t cols, std::size_t valid_cols, std::size_t K,
                                 std::size_t block, const float* a_value, const std::int16_t* a_eref, std::size_t lda,
                                 const float* b_value, const std::int16_t* b_eref, std::size_t ldb, float* c_value,
                                 std::int32_t* c_eref, std::uint64_t* d_bits, std::size_t ldc, std::size_t* stops) const {
  const Impl& k = *impl_;
  if (!k.tiles || block > k.max_products || cols % lanes::tile_columns() != 0 || valid_cols > cols) return false;
  return lanes::block_tile_chain(*k.lane_params, rows, cols, valid_cols, K, block, a_value, a_eref, lda, b_value, b_eref,
                                 ldb, c_value, c_eref, d_bits, ldc, stops);
}

void BlockKernel::run_row_lanes(std::size_t n, std::size_t len, const double* a_value, const double* a_eref,
                                const double* b_value, const double* b_eref, std::size_t ldb, const double* c_value,
                                const double* c_eref, std::uint64_t* d_bits, double* d_value, double* d_eref,
                                std::uint8_t* fixup) const {
  const Impl& k = *impl_;
  if (len > k.max_products)
    throw std::invalid_argument("block kernel: " + std::to_string(len) + " products exceed the block's " +
                                std::to_string(k.max_products));
  std::size_t vec = 0;
  if (k.lane_params) {
    vec = n / k.lane_count * k.lane_count;
    if (vec) lanes::block_fma(*k.lane_params, vec, len, a_value, a_eref, true, b_value, b_eref, ldb, c_value, c_eref,
                              d_bits, d_value, d_eref, fixup);
  }
  std::fill(fixup + vec, fixup + n, std::uint8_t{1});
}

bool BlockKernel::groups_supported(std::size_t group) const {
  const Impl& k = *impl_;
  if (!k.lane_params || group == 0 || group > lanes::kMaxPatternLen || k.max_products > lanes::kMaxPatternLen)
    return false;
  int group_bits = 0;
  while ((std::size_t{1} << group_bits) < group) ++group_bits;
  // A product lies in [2^lo, 2^hi) (subnormals included), so does every partial sum of a group
  // up to a factor `group`: exact in binary64 while hi - lo + group_bits <= 53, normal while
  // lo >= -1022. Scales of a group are one factor for all its products (at most 8 more bits:
  // ue4m3 x ue4m3).
  const int hi = k.a.emax + k.b.emax + 2;
  const int lo = (k.a.emin - (k.a.precision - 1)) + (k.b.emin - (k.b.precision - 1));
  // Margins of 2^300 for scale factors folded into the operands (ue8m0: 2^-127 .. 2^127 each).
  return k.a.precision + k.b.precision <= 53 && hi - lo + group_bits + 8 <= 53 && lo - 600 >= -1022 && hi + 600 <= 1000;
}

void BlockKernel::run_row_groups(std::size_t n, std::size_t len, std::size_t group, const double* a_value,
                                 bool a_broadcast, const double* b_value, std::size_t ldb, const double* c_value, const double* c_eref,
                                 std::uint64_t* d_bits, double* d_value, double* d_eref, std::uint8_t* fixup) const {
  const Impl& k = *impl_;
  if (!groups_supported(group)) throw std::logic_error("block kernel: run_row_groups on a configuration without groups");
  if (len > k.max_products)
    throw std::invalid_argument("block kernel: " + std::to_string(len) + " products exceed the block's " +
                                std::to_string(k.max_products));
  const std::size_t vec = n / k.lane_count * k.lane_count;
  if (vec)
    lanes::block_fma_groups(*k.lane_params, vec, len, group, a_value, a_broadcast, b_value, ldb, c_value, c_eref, d_bits, d_value,
                            d_eref, fixup);
  std::fill(fixup + vec, fixup + n, std::uint8_t{1});
}

bool BlockKernel::group_tile_supported(std::size_t group) const {
  const Impl& k = *impl_;
  if (!k.lane_params || group == 0 || group > lanes::kMaxPatternLen ||
      (k.max_products + group - 1) / group > lanes::kMaxTileGroups)
    return false;
  int group_bits = 0;
  while ((std::size_t{1} << group_bits) < group) ++group_bits;
  // Products lie in [2^lo, 2^hi) and are multiples of 2^lo, partial group sums below
  // 2^(hi + group_bits): exact binary32 numbers while that spans at most 24 bits, normal while
  // lo >= -126.
  const int hi = k.a.emax + k.b.emax + 2;
  const int lo = (k.a.emin - (k.a.precision - 1)) + (k.b.emin - (k.b.precision - 1));
  return hi + group_bits - lo <= 24 && lo >= -126 && hi + group_bits <= 127;
}

std::size_t BlockKernel::group_tile_columns() const { return lanes::group_tile_columns(); }

void BlockKernel::run_group_tile(std::size_t rows, std::size_t cols, std::size_t len, std::size_t group, const float* a,
                                 std::size_t lda, const double* a_scale, std::size_t ldas, const float* b,
                                 std::size_t ldb, const double* b_scale, const double* c_value, const double* c_eref,
                                 std::size_t ldc, std::uint64_t* d_bits, double* d_value, double* d_eref,
                                 std::uint8_t* fixup) const {
  const Impl& k = *impl_;
  if (!group_tile_supported(group)) throw std::logic_error("block kernel: run_group_tile on an unsupported configuration");
  if (len > k.max_products)
    throw std::invalid_argument("block kernel: " + std::to_string(len) + " products exceed the block's " +
                                std::to_string(k.max_products));
  if (cols % lanes::group_tile_columns() != 0)
    throw std::invalid_argument("block kernel: run_group_tile's cols " + std::to_string(cols) +
                                " is not a multiple of group_tile_columns() = " +
                                std::to_string(lanes::group_tile_columns()));
  lanes::block_group_tile(*k.lane_params, rows, cols, len, group, a, lda, a_scale, ldas, b, ldb, b_scale, c_value,
                          c_eref, ldc, d_bits, d_value, d_eref, fixup);
}

void BlockKernel::run_row(std::size_t n, std::size_t len, const std::uint64_t* a_bits, const double* a_value,
                          const double* a_eref, const std::uint64_t* b_bits, const double* b_value,
                          const double* b_eref, std::size_t ldb, const std::uint64_t* c_bits, const double* c_value,
                          const double* c_eref, std::uint64_t* d_bits, double* d_value, double* d_eref) const {
  const Impl& k = *impl_;
  if (len > k.max_products)
    throw std::invalid_argument("block kernel: " + std::to_string(len) + " products exceed the block's " +
                                std::to_string(k.max_products));
  std::size_t vec = 0;
  std::vector<std::uint8_t> fixup(n, 1);
  if (k.lane_params) {
    vec = n / k.lane_count * k.lane_count;
    if (vec) lanes::block_fma(*k.lane_params, vec, len, a_value, a_eref, true, b_value, b_eref, ldb, c_value, c_eref,
                              d_bits, d_value, d_eref, fixup.data());
  }
  std::vector<std::uint64_t> column(len), pa, pb;
  std::vector<Operand> terms;
  for (std::size_t j = 0; j < n; ++j) {
    if (!fixup[j]) continue;
    for (std::size_t t = 0; t < len; ++t) column[t] = b_bits[t * ldb + j];
    d_bits[j] = k.element(len, a_bits, column.data(), c_bits[j], pa, pb, terms);
    // Decoded as the next block's c will be read (NaN/Inf: a NaN value, so that lane takes
    // the exact path again).
    Impl::lane_operand(k.out, d_bits[j], k.keep_subnormals, d_value[j], d_eref[j]);
  }
}

}  // namespace tcsim
