// AfterAddKernel (see after_add.hpp): the c_placement After datapath of adder.cpp (gather,
// after_sum, zero_result, round_out) step for step in int64.
#include "tcsim/sim/after_add.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "after_dot_lanes.hpp"
#include "amd_chain.hpp"
#include "amd_lanes.hpp"
#include "amd_pair_chain.hpp"
#include "block_specials.hpp"
#include "host_decode.hpp"
#include "huge_pages.hpp"
#include "tcsim/sim/codec.hpp"

namespace tcsim {

namespace {

using host_decode::decode_fp32;
using host_decode::pow2;

constexpr std::size_t kMaxK = 64;
using block_specials::kFinite;
using block_specials::kInf;
using block_specials::kNaN;
using block_specials::kZero;

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
  const auto& r = cfg.after.renormalize_fraction_bits;
  const auto& drop = cfg.after.drop_c_below;
  lanes_ = cfg.subnormal_inputs && cfg.product_groups <= 4 && (!r || *r > 0) && (!drop || *drop >= 0);
  // The binary32 tiles: products exact in binary32 (<= 12 + 12 significand bits), each below
  // 2^(F+2) units, a group's sum of ceil(k / groups) of them below 2^30.
  auto bits = [&](const Format& f) {
    return cfg.input_fraction_bits ? std::min(f.precision, *cfg.input_fraction_bits + 1) : f.precision;
  };
  const std::size_t per_group = (k + cfg.product_groups - 1) / static_cast<std::size_t>(cfg.product_groups);
  tiles_ = lanes_ && cfg.product_groups <= 2 && bits(cfg.a_format) <= 12 && bits(cfg.b_format) <= 12 &&
           std::ldexp(static_cast<double>(per_group), cfg.fraction_bits + 2) <= 0x1p30;
  // Two groups on the one-group chain where the spreads allow (after_add_spread.cpp).
  amd_lanes::AfterParams one = after_lane_params(cfg);
  one.groups = 1;
  // Blocks of even k (pairs of products never straddle two blocks; amd_pair_chain-inl.h).
  if (tiles_ && cfg.product_groups == 2 && k % 2 == 0 && amd_lanes::after_add_chain_supported(one, k)) {
    one_group_spread_ = std::max(-1, cfg.fraction_bits - (bits(cfg.a_format) - 1) - (bits(cfg.b_format) - 1));
    pair_bits_a_ = bits(cfg.a_format), pair_bits_b_ = bits(cfg.b_format);
    pair_spread_a_ = 15 - pair_bits_a_, pair_spread_b_ = 15 - pair_bits_b_;
  }
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
  block_specials::Facts facts;
  for (std::size_t t = 0; t < len; ++t) {
    const Operand& x = a[t * sa];
    const Operand& y = b[t * sb];
    if (!facts.product(x, y)) continue;
    const bool neg = x.negative != y.negative;
    const std::uint64_t sig = std::uint64_t{x.sig} * y.sig;
    const int q = x.q + y.q;
    if (cfg_.product_overflow_inf && q + (63 - std::countl_zero(sig)) > emax) {
      (neg ? facts.neg_inf : facts.pos_inf) = true;
      continue;
    }
    prods[np] = {sig, q, x.e_ref + y.e_ref, neg};
    group_of[np] = t % G;
    ++np;
  }
  // The padding products (+0 * +0) are +0: every term is -0 no longer.
  if (len < k_) facts.all_neg = false;
  const std::uint32_t cu = static_cast<std::uint32_t>(c_bits);
  const Decoded cd = decode_fp32(cu);
  std::int64_t c_sig = 0;
  int c_q = 0, e_c = cfg_.c_format.emin;
  const bool c_flushed = cd.cls == FpClass::Subnormal && !cfg_.subnormal_inputs;  // read(): a zero
  const bool c_nonzero = facts.addend(c_flushed ? FpClass::Zero : cd.cls,
                                      cd.negative && !(c_flushed && cfg_.flush_inputs_positive));
  if (c_nonzero) {
    c_sig = cd.negative ? -static_cast<std::int64_t>(cd.significand) : static_cast<std::int64_t>(cd.significand);
    c_q = cd.exponent;
    e_c = cd.exponent + cfg_.c_format.precision - 1;
  }
  if (const auto special = facts.special_result(nan_, cfg_.out_format)) return *special;

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
  if (total == 0) return block_specials::zero_fp32_rne(cfg_, facts.all_neg && !any_product);
  int out_lsb = lsb;
  if (cfg_.after.renormalize_fraction_bits) {
    const std::uint64_t mag = total < 0 ? static_cast<std::uint64_t>(-total) : static_cast<std::uint64_t>(total);
    const int lead = std::max(lsb + (63 - std::countl_zero(mag)), cfg_.out_format.emin);
    const int new_lsb = lead - *cfg_.after.renormalize_fraction_bits;
    if (new_lsb > lsb) {
      total = floor_shift(total, new_lsb - lsb);
      out_lsb = new_lsb;
    }
    if (total == 0) return block_specials::zero_fp32_rne(cfg_, false);
  }
  // |total| < 2^53: exact in binary64, and the scaling by 2^out_lsb stays in binary64's normal
  // range; the conversion to binary32 is the one rounding (RNE, subnormals, overflow to Inf).
  const float v = static_cast<float>(static_cast<double>(total) * pow2(out_lsb));
  return std::bit_cast<std::uint32_t>(v);
}

void AfterAddKernel::run_scalar(std::size_t n, std::size_t len, const std::uint64_t* a, std::size_t lda,
                         const std::uint64_t* b, std::size_t ldb, const std::uint64_t* c, std::uint64_t* d) const {
  Operand x[kMaxK], y[kMaxK];
  for (std::size_t i = 0; i < n; ++i) {
    decode_a(len, a + i * lda, x);
    decode_b(len, b + i * ldb, y);
    d[i] = block(len, x, 1, y, 1, c[i]);
  }
}

}  // namespace tcsim

namespace tcsim {

// The lanes' form of an operand: its exact value (NaN for NaN/Inf) and 2^-e_ref (+Inf for zeros).
void AfterAddKernel::decode_plane(const Format& f, std::uint64_t bits, double& value, double& inv) const {
  const Operand o = decode(f, bits);
  switch (o.kind) {
    case kZero: value = o.negative ? -0.0 : 0.0, inv = HUGE_VAL; break;
    case kFinite: {
      const double v = static_cast<double>(o.sig) * pow2(o.q);
      value = o.negative ? -v : v;
      inv = pow2(-o.e_ref);
      break;
    }
    default: value = std::nan(""), inv = 1.0; break;
  }
}

void AfterAddKernel::decode_planes(const Format& f, std::size_t count, const std::uint64_t* bits, std::size_t stride,
                                   double* value, double* inv) const {
  if (f.width > 16 || count < (std::size_t{4} << f.width)) {
    for (std::size_t i = 0; i < count; ++i) decode_plane(f, bits[i * stride], value[i], inv[i]);
    return;
  }
  const std::size_t size = std::size_t{1} << f.width;
  thread_local std::vector<double> tv, ti;
  tv.resize(size), ti.resize(size);
  for (std::size_t p = 0; p < size; ++p) decode_plane(f, p, tv[p], ti[p]);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t x = bits[i * stride];
    if (x < size) value[i] = tv[x], inv[i] = ti[x];
    else decode_plane(f, x, value[i], inv[i]);  // not a pattern of f: decode's error
  }
}

void AfterAddKernel::run(std::size_t n, std::size_t len, const std::uint64_t* a, std::size_t lda,
                         const std::uint64_t* b, std::size_t ldb, const std::uint64_t* c, std::uint64_t* d) const {
  if (!lanes_ || n == 0) return run_scalar(n, len, a, lda, b, ldb, c, d);
  // Product-major planes of the n elements, padded with +0 operands and c = +0.
  const std::size_t np = amd_lanes::padded(n);
  thread_local std::vector<double> av, ai, bv, bi;
  thread_local std::vector<float> cf, out;
  thread_local std::vector<std::uint8_t> fix;
  av.assign(len * np, 0.0), ai.assign(len * np, HUGE_VAL), bv.assign(len * np, 0.0), bi.assign(len * np, HUGE_VAL);
  cf.assign(np, 0.0f), out.resize(np), fix.resize(np);
  for (std::size_t t = 0; t < len; ++t) {
    decode_planes(cfg_.a_format, n, a + t, lda, av.data() + t * np, ai.data() + t * np);
    decode_planes(cfg_.b_format, n, b + t, ldb, bv.data() + t * np, bi.data() + t * np);
  }
  for (std::size_t e = 0; e < n; ++e) cf[e] = std::bit_cast<float>(static_cast<std::uint32_t>(c[e]));
  amd_lanes::Block blk;
  blk.w = np, blk.len = len, blk.a_val = av.data(), blk.a_inv = ai.data(), blk.a_per_lane = true;
  blk.b_val = bv.data(), blk.b_inv = bi.data(), blk.ldb = np;
  blk.c = cf.data(), blk.out = out.data(), blk.fix = fix.data(), blk.ldc = np;
  const bool any = amd_lanes::after_add_block(after_lane_params(cfg_), blk);
  for (std::size_t e = 0; e < n; ++e) {
    if (any && fix[e]) run_scalar(1, len, a + e * lda, lda, b + e * ldb, ldb, c + e, d + e);
    else d[e] = std::bit_cast<std::uint32_t>(out[e]);
  }
}

namespace {

// The register tiles' form of an operand (value, inv from decode_plane): binary32 value and e_ref.
void tile_form(double value, double inv, float& f, std::int32_t& e) {
  f = static_cast<float>(value);  // exact: the operand formats lie within binary32
  e = std::isnan(value) ? amd_lanes::kTileSpecialHi : inv == HUGE_VAL ? amd_lanes::kTileZeroHi : -std::ilogb(inv);
}

}  // namespace

AfterAddKernel::GemmOperands AfterAddKernel::gemm_operands(std::size_t m, std::size_t n, std::size_t K,
                                                            const std::uint64_t* A, const std::uint64_t* B,
                                                            bool spreads) const {
  GemmOperands g;
  g.m = m, g.n = n, g.K = K, g.ldb = amd_lanes::padded(n), g.a_bits = A, g.b_bits = B;
  if (tiles_) {  // only the tiles' planes (gemm_tile's fallback decodes the patterns)
    // The chain reads B strip-major (GemmOperands::b_strip); the register tiles row-major.
    // Two-group rows: the register tiles' planes row-major; the pair chain's int16 and strip-major
    // copies come from them in gemm_spreads (after_add_spread.cpp).
    const bool one_chain = chain_gemm();
    const std::size_t strip = amd_lanes::chain_strip_width();
    g.chain = one_chain || chain_two_groups();
    g.b_strip = one_chain ? strip : g.chain ? (strip ? strip : g.ldb) : 0;
    const std::size_t strips = g.chain ? (g.b_strip ? (g.ldb + g.b_strip - 1) / g.b_strip * g.b_strip * K : K * g.ldb) : 0;
    const std::size_t b_size = one_chain ? strips : K * g.ldb;
    reserve_huge(g.a_f, m * K), reserve_huge(g.b_f, b_size);
    g.a_f.resize(m * K), g.b_f.assign(b_size, 0.0f);
    if (one_chain) {
      reserve_huge(g.a_e16, m * K), reserve_huge(g.b_e16, strips);
      g.a_e16.resize(m * K), g.b_e16.assign(strips, amd_lanes::kChainZeroHi);
    }
    if (!one_chain) {
      reserve_huge(g.a_e, m * K), reserve_huge(g.b_e, b_size);
      g.a_e.resize(m * K), g.b_e.assign(b_size, amd_lanes::kTileZeroHi);
    }
    // Element (i, j) of a plane at i * ld + j, or strip-major (strips of `strip` columns over `rows`).
    auto planes = [&](const Format& f, std::size_t rows, std::size_t cols, const std::uint64_t* bits, std::size_t ld,
                      std::size_t strip, float* fv, auto* ev) {
      const bool table = f.width <= 16 && rows * cols >= (std::size_t{4} << f.width);
      const std::size_t size = table ? std::size_t{1} << f.width : 0;
      std::vector<float> tf(size);
      std::vector<std::int32_t> te(size);
      double v = 0, inv = 0;
      for (std::size_t p = 0; p < size; ++p) decode_plane(f, p, v, inv), tile_form(v, inv, tf[p], te[p]);
      // binary32 operands (xf32): decode's steps on the fields, without the binary64 round trip.
      const bool b32 = !table && f == formats::fp32();
      const std::uint32_t keep =
          cfg_.input_fraction_bits ? ~((std::uint32_t{1} << (23 - *cfg_.input_fraction_bits)) - 1) : ~std::uint32_t{0};
      const float nan = static_cast<float>(std::nan(""));
      for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) {
          const std::uint64_t x = bits[i * cols + j];
          const std::size_t at = strip ? j / strip * rows * strip + i * strip + j % strip : i * ld + j;
          float& fo = fv[at];
          std::int32_t eo = 0;
          if (x < size) {
            fo = tf[x], eo = te[x];
          } else if (b32 && x <= 0xffffffffu) {
            const std::uint32_t u = static_cast<std::uint32_t>(x) & keep, field = (u >> 23) & 0xff;
            if (field == 0xff) {
              fo = nan, eo = amd_lanes::kTileSpecialHi;
            } else if (field == 0 && ((u & 0x7fffff) == 0 || !cfg_.subnormal_inputs)) {  // zero or flushed
              const bool neg = (u >> 31) && ((u & 0x7fffff) == 0 || !cfg_.flush_inputs_positive);
              fo = neg ? -0.0f : 0.0f, eo = amd_lanes::kTileZeroHi;
            } else {
              fo = std::bit_cast<float>(u), eo = field == 0 ? -126 : static_cast<std::int32_t>(field) - 127;
            }
          } else {
            decode_plane(f, x, v, inv), tile_form(v, inv, fo, eo);
          }
          if constexpr (sizeof(*ev) == 2)  // the chain's int16 e_refs (|e_ref| <= 2047: chain_gemm)
            ev[at] = eo == amd_lanes::kTileZeroHi      ? amd_lanes::kChainZeroHi
                     : eo == amd_lanes::kTileSpecialHi ? amd_lanes::kChainSpecialHi
                                                       : static_cast<std::int16_t>(eo);
          else
            ev[at] = eo;
        }
    };
    if (one_chain) {
      planes(cfg_.a_format, m, K, A, K, 0, g.a_f.data(), g.a_e16.data());
      planes(cfg_.b_format, K, n, B, g.ldb, g.b_strip, g.b_f.data(), g.b_e16.data());
    } else {  // the register tiles
      planes(cfg_.a_format, m, K, A, K, 0, g.a_f.data(), g.a_e.data());
      planes(cfg_.b_format, K, n, B, g.ldb, 0, g.b_f.data(), g.b_e.data());
    }
    if (g.chain && !one_chain && K > 0) {
      gemm_spreads_alloc(g);
      if (spreads)
        for (std::size_t p = 0; p < gemm_spread_parts(g); ++p) gemm_spreads(g, p);
    }
    return g;
  }
  g.a_val.resize(m * K), g.a_inv.resize(m * K);
  g.b_val.assign(K * g.ldb, 0.0), g.b_inv.assign(K * g.ldb, HUGE_VAL);
  decode_planes(cfg_.a_format, m * K, A, 1, g.a_val.data(), g.a_inv.data());
  std::vector<double> bv(K * n), bi(K * n);  // one table for all of B, then rows padded
  decode_planes(cfg_.b_format, K * n, B, 1, bv.data(), bi.data());
  for (std::size_t t = 0; t < K; ++t) {
    std::copy_n(bv.data() + t * n, n, g.b_val.data() + t * g.ldb);
    std::copy_n(bi.data() + t * n, n, g.b_inv.data() + t * g.ldb);
  }
  return g;
}

// The spread arrays and pair planes of two-group rows (filled by gemm_spreads, after_add_spread.cpp).
void AfterAddKernel::gemm_spreads_alloc(GemmOperands& ops) const {
  const std::size_t nb = (ops.K + k_ - 1) / k_, S = ops.b_strip, m = ops.m, K = ops.K;
  const std::size_t strips = (ops.ldb + S - 1) / S * S;
  ops.blocks = nb, ops.k2 = (K + 1) / 2;
  ops.a_spread.resize(m * nb), ops.b_spread.resize(nb * ops.n);
  ops.a_spread4.assign((m + 3) / 4 * nb, 0), ops.b_spread_strip.assign(strips / S * nb, 0);
  ops.a_q.assign(m * nb, 0), ops.b_q.assign(nb * ops.ldb, 0);
  // The planes with 2 MiB pages where the kernel grants them (fewer faults in the zero fill).
  reserve_huge(ops.a2, m * ops.k2), reserve_huge(ops.b2, strips * ops.k2);
  reserve_huge(ops.a_e16, m * K), reserve_huge(ops.a_n16, m * K);
  reserve_huge(ops.b_e16, strips * K), reserve_huge(ops.b_n16, strips * K), reserve_huge(ops.b_fs, strips * K);
  ops.a2.assign(m * ops.k2, 0), ops.b2.assign(strips * ops.k2, 0);
  ops.a_e16.resize(m * K), ops.a_n16.resize(m * K);
  ops.b_e16.assign(strips * K, amd_lanes::kChainZeroHi), ops.b_n16.assign(strips * K, amd_lanes::kChainZeroHi);
  ops.b_fs.assign(strips * K, 0.0f);
}

bool AfterAddKernel::chain_e16() const {
  // e_ref (the leading bit's exponent, emin..emax) within +-2047, so the chain's int16 e_refs hold it (amd_chain.hpp).
  auto e16 = [](const Format& f) { return f.emax <= 2047 && f.emin - f.precision + 1 >= -2047; };
  return e16(cfg_.a_format) && e16(cfg_.b_format);
}

bool AfterAddKernel::chain_gemm() const {
  // One group: the fp8 rows' two groups ran no faster on the chain (4 x 1 or 2 x 2 vectors)
  // than on the register tiles (docs/performance.md, "i25amdgemm"; again in session 29 with
  // compile-time group indices, "mi300 (2026-11-27)": 10-20 % slower, quiet); they take it only
  // for runs of blocks the spreads prove equal to one group (chain_two_groups, mi300f8).
  return tiles_ && cfg_.product_groups == 1 && chain_e16() && amd_lanes::after_add_chain_supported(after_lane_params(cfg_), k_);
}

bool AfterAddKernel::chain_two_groups() const { return one_group_spread_ >= 0 && chain_e16(); }

void AfterAddKernel::gemm_tile(const GemmOperands& ops, std::size_t i0, std::size_t rows, std::size_t j0,
                               std::size_t w, std::size_t group, const std::uint64_t* C, std::uint64_t* D) const {
  const std::size_t n = ops.n, K = ops.K;
  thread_local std::vector<float> acc;
  // c in, D out for rows x w outputs at (i0, j0); acc's ld is padded(w).
  auto load = [&](std::size_t i, std::size_t r_n, std::size_t j, std::size_t c_n) {
    const std::size_t wp = amd_lanes::padded(c_n);
    acc.assign(r_n * wp, 0.0f);
    for (std::size_t r = 0; r < r_n; ++r)
      for (std::size_t c = 0; c < c_n; ++c)
        acc[r * wp + c] = std::bit_cast<float>(static_cast<std::uint32_t>(C[(i + r) * n + j + c]));
  };
  auto store = [&](std::size_t i, std::size_t r_n, std::size_t j, std::size_t c_n) {
    const std::size_t wp = amd_lanes::padded(c_n);
    for (std::size_t r = 0; r < r_n; ++r)
      for (std::size_t c = 0; c < c_n; ++c) D[(i + r) * n + j + c] = std::bit_cast<std::uint32_t>(acc[r * wp + c]);
  };
  // Two groups: micro tiles of 4 rows x 32 columns (the chain's 4 x 2 vectors on AVX-512), each
  // chain cut into runs of blocks: on the pair chain (amd_pair_chain.hpp) where the spreads prove
  // every block of the run equal to one group or leave few lanes to check (spread_class), else on
  // the register tiles. Every block FMA takes the previous one's result as c, so a chain may be
  // cut between blocks; blocks start at multiples of k (instructions of whole blocks), so runs of
  // instructions of one block each are the same blocks.
  if (one_group_spread_ >= 0 && ops.blocks > 0 && (group % k_ == 0 || group >= K)) {
    constexpr std::size_t kRows = 4, kCols = 32;
    thread_local std::vector<std::uint8_t> mode;
    mode.resize(ops.blocks);
    for (std::size_t j = 0; j < w; j += kCols)  // columns outermost: B's strip stays in cache
      for (std::size_t r = 0; r < rows; r += kRows) {
        const std::size_t mr = std::min(kRows, rows - r), cw = std::min(kCols, w - j);
        load(i0 + r, mr, j0 + j, cw);
        for (std::size_t b = 0; b < ops.blocks; ++b)
          mode[b] = static_cast<std::uint8_t>(spread_class(ops, b, i0 + r, mr, j0 + j, cw));
        for (std::size_t b = 0; b < ops.blocks;) {
          const bool one = mode[b] != 0;
          std::size_t e = b + 1;
          while (e < ops.blocks && (mode[e] != 0) == one) ++e;
          gemm_part(ops, i0 + r, mr, j0 + j, cw, b * k_, std::min(K, e * k_) - b * k_, k_, one, acc.data(),
                    mode.data() + b);
          b = e;
        }
        store(i0 + r, mr, j0 + j, cw);
      }
    return;
  }
  load(i0, rows, j0, w);
  gemm_part(ops, i0, rows, j0, w, 0, K, group, cfg_.product_groups == 1, acc.data());
  store(i0, rows, j0, w);
}

void AfterAddKernel::gemm_part(const GemmOperands& ops, std::size_t i0, std::size_t rows, std::size_t j0,
                               std::size_t w, std::size_t p0, std::size_t len_k, std::size_t group, bool one_group,
                               float* acc, const std::uint8_t* mode) const {
  const std::size_t n = ops.n, K = len_k, ldk = ops.K, wp = amd_lanes::padded(w);
  const amd_lanes::AfterParams params = after_lane_params(cfg_);
  const std::size_t ia = i0 * ldk + p0;  // A's row i0 at product p0
  // The scalar block of output (r, j) at products pos..pos+len from accumulator c.
  auto scalar_block = [&](std::size_t r, std::size_t j, std::size_t pos, std::size_t len, std::uint32_t c) {
    const Decoded cd = decode_fp32(c);
    // A finite product may overflow to Inf (product_overflow_inf): then only a NaN c decides.
    if (cd.cls == FpClass::NaN || (cd.cls == FpClass::Infinity && !cfg_.product_overflow_inf))
      return block_specials::special_accumulator(
          cd.cls == FpClass::NaN, cd.negative, len, cfg_.a_format, cfg_.b_format,
          [&](std::size_t t) { return ops.a_bits[(i0 + r) * ldk + p0 + pos + t]; },
          [&](std::size_t t) { return ops.b_bits[(p0 + pos + t) * n + j0 + j]; },
          [&](std::uint64_t bits) { return decode(cfg_.a_format, bits); },
          [&](std::uint64_t bits) { return decode(cfg_.b_format, bits); }, nan_, cfg_.out_format);
    Operand x[kMaxK], y[kMaxK];
    for (std::size_t t = 0; t < len; ++t) {
      x[t] = decode(cfg_.a_format, ops.a_bits[(i0 + r) * ldk + p0 + pos + t]);
      y[t] = decode(cfg_.b_format, ops.b_bits[(p0 + pos + t) * n + j0 + j]);
    }
    return block(len, x, 1, y, 1, c);
  };
  // The chain: one-group rows, and two-group rows where gemm_tile proved them equal to one
  // (mi300f8) with int16 pair operands (mi300g: the pair chain).
  amd_lanes::AfterParams chain_params = params;
  chain_params.groups = 1;
  using Scalar = decltype(scalar_block);
  auto* const fallback = +[](const void* ctx, std::size_t r, std::size_t j, std::size_t pos, std::size_t len,
                             std::uint32_t c) -> std::uint32_t {
    return static_cast<std::uint32_t>((*static_cast<const Scalar*>(ctx))(r, j, pos, len, c));
  };
  if (K > 0 && one_group && ops.chain && cfg_.product_groups != 1) {
    // B's planes strip-major (ops.b_strip), runs starting at a block (p0 a multiple of k, even).
    amd_lanes::PairChainTile t;
    const std::size_t S = ops.b_strip, b0 = p0 / k_;
    t.rows = rows, t.w = wp, t.valid = w, t.K = K, t.k = k_;
    t.mode = mode;
    t.a2 = ops.a2.data() + i0 * ops.k2 + p0 / 2, t.lda2 = ops.k2;
    t.a_f = ops.a_f.data() + ia, t.a_n16 = ops.a_n16.data() + ia, t.b_f = ops.b_fs.data() + p0 * S;
    t.b_n16 = ops.b_n16.data() + p0 * S, t.bound = one_group_spread_;
    t.a_hi = ops.a_e16.data() + ia, t.lda = ldk;
    t.a_q = ops.a_q.data() + i0 * ops.blocks + b0, t.lde = ops.blocks;
    t.b2 = ops.b2.data() + p0 / 2 * S, t.b_hi = ops.b_e16.data() + p0 * S;
    t.b_q = ops.b_q.data() + b0 * ops.ldb, t.ldq = ops.ldb;
    t.b_j0 = j0, t.b_strip = S, t.b2_stride = S * ops.k2, t.be_stride = S * ldk;
    t.acc = acc, t.ldc = wp, t.ctx = &scalar_block, t.fallback = fallback;
    amd_lanes::after_add_pair_chain(chain_params, t);
  } else if (K > 0 && one_group && ops.chain) {
    // c in registers over the whole chain, the epilogue in int32 lanes (amd_chain.hpp).
    amd_lanes::ChainTile t;
    t.rows = rows, t.w = wp, t.valid = w, t.K = K, t.k = k_, t.group = group;
    // p0 rows of B on: p0 * ldb in both layouts (strip-major: ldb = b_strip).
    const std::size_t ldb = ops.b_strip ? ops.b_strip : ops.ldb;
    t.a_f = ops.a_f.data() + ia, t.a_hi = ops.a_e16.data() + ia, t.lda = ldk;
    t.b_f = ops.b_f.data() + p0 * ldb, t.b_hi = ops.b_e16.data() + p0 * ldb, t.b_j0 = j0;
    t.ldb = ldb, t.b_strip = ops.b_strip, t.b_strip_stride = ops.b_strip * ldk;
    t.acc = acc, t.ldc = wp, t.ctx = &scalar_block, t.fallback = fallback;
    amd_lanes::after_add_chain(chain_params, t);
  } else
  amd_lanes::chain(
      rows, wp, w, K, k_, group, acc,
      [&](std::size_t pos, std::size_t len, const float* cur, float* out, std::uint8_t* fix) {
        if (tiles_) {  // the binary32 register tiles (the binary64 planes are not built)
          amd_lanes::TileBlock blk;
          blk.rows = rows, blk.w = wp, blk.len = len;
          blk.a_f = K == 0 ? nullptr : ops.a_f.data() + ia + pos;
          blk.a_hi = K == 0 ? nullptr : ops.a_e.data() + ia + pos, blk.lda = ldk;
          blk.b_f = K == 0 ? nullptr : ops.b_f.data() + (p0 + pos) * ops.ldb + j0;
          blk.b_hi = K == 0 ? nullptr : ops.b_e.data() + (p0 + pos) * ops.ldb + j0;
          blk.ldb = ops.ldb, blk.c = cur, blk.out = out, blk.fix = fix, blk.ldc = wp;
          return amd_lanes::after_add_tile(params, blk);
        }
        amd_lanes::Block blk;
        blk.rows = rows, blk.w = wp, blk.len = len;
        // K = 0: the planes are empty (null data()), and the block reads no products.
        blk.a_val = K == 0 ? nullptr : ops.a_val.data() + ia + pos;
        blk.a_inv = K == 0 ? nullptr : ops.a_inv.data() + ia + pos, blk.lda = ldk;
        blk.b_val = K == 0 ? nullptr : ops.b_val.data() + (p0 + pos) * ops.ldb + j0;
        blk.b_inv = K == 0 ? nullptr : ops.b_inv.data() + (p0 + pos) * ops.ldb + j0;
        blk.ldb = ops.ldb, blk.c = cur, blk.out = out, blk.fix = fix, blk.ldc = wp;
        return amd_lanes::after_add_block(params, blk);
      },
      [&](std::size_t r, std::size_t j, std::size_t pos, std::size_t len, std::uint32_t c) -> std::uint64_t {
        return scalar_block(r, j, pos, len, c);
      });
}

}  // namespace tcsim
