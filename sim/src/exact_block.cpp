// ExactBlockKernel (see exact_block.hpp): the deferred, exact path of adder.cpp (gather,
// aligned_sum with no bit lost, zero_result, round_out) in 128-bit integers.
#include "tcsim/sim/exact_block.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "amd_chain.hpp"
#include "block_specials.hpp"
#include "host_decode.hpp"
#include "huge_pages.hpp"
#include "tcsim/sim/codec.hpp"

namespace tcsim {

namespace {

using host_decode::decode_fp32;
using host_decode::pow2;

using u128 = unsigned __int128;
using i128 = __int128;
constexpr std::size_t kMaxK = 64;
using block_specials::kFinite;
using block_specials::kInf;
using block_specials::kNaN;
using block_specials::kZero;
constexpr int kMaxSpan = 120;  // bits between the lowest and the highest bit of the terms

int bit_length(u128 v) {
  const auto hi = static_cast<std::uint64_t>(v >> 64);
  if (hi) return 128 - std::countl_zero(hi);
  const auto lo = static_cast<std::uint64_t>(v);
  return lo ? 64 - std::countl_zero(lo) : 0;
}


}  // namespace

std::optional<std::string> exact_block_unsupported(const AdderConfig& cfg, std::size_t k) {
  if (cfg.normalization != Normalization::Deferred || cfg.c_placement != CPlacement::Aligned)
    return std::string("not one fused sum with c aligned");
  if (cfg.uses_extended_fields() || cfg.min_exponent) return std::string("fields beyond the fused sum are set");
  if (cfg.fraction_bits < cfg.exact_fraction_bits()) return std::string("the sum is not exact");
  if (cfg.carry_bits < bit_length(static_cast<u128>(k + 1)) + 1) return std::string("the register may wrap");
  const Format& f32 = formats::fp32();
  if (!(cfg.c_format == f32) || !(cfg.out_format == f32)) return std::string("c or the output is not fp32");
  for (const Format* f : {&cfg.a_format, &cfg.b_format})
    if (f->precision > 24 || f->emax > 127 || f->emin < -126 || f->width > 32)
      return "operand format '" + f->name + "' is wider than binary32";
  if (cfg.final_rounding != Rounding::NearestEven || !cfg.subnormal_outputs || !cfg.subnormal_inputs ||
      (cfg.overflow != OverflowMode::Ieee && cfg.overflow != OverflowMode::Infinity))
    return std::string("not RNE into binary32 with subnormals and Inf");
  if (k == 0 || k > kMaxK) return "fma_size " + std::to_string(k) + " is not 1..64";
  return std::nullopt;
}

ExactBlockKernel::ExactBlockKernel(const AdderConfig& cfg, std::size_t k) : ref_(cfg), k_(k) {
  if (auto why = exact_block_unsupported(cfg, k)) throw std::invalid_argument("exact-block kernel: " + *why);
  nan_ = cfg.nan_pattern ? *cfg.nan_pattern : cfg.out_format.canonical_nan();
}

ExactBlockKernel::Operand ExactBlockKernel::decode(const Format& f, std::uint64_t bits) const {
  const Decoded d = decode_parts(f, bits);
  Operand o;
  o.negative = d.negative;
  switch (d.cls) {
    case FpClass::NaN: o.kind = kNaN; break;
    case FpClass::Infinity: o.kind = kInf; break;
    case FpClass::Zero: o.kind = kZero; break;
    default:
      o.kind = kFinite;
      o.sig = static_cast<std::uint32_t>(d.significand);
      o.q = static_cast<std::int16_t>(d.exponent);
      break;
  }
  return o;
}

void ExactBlockKernel::decode_a(std::size_t count, const std::uint64_t* bits, Operand* out) const {
  for (std::size_t i = 0; i < count; ++i) out[i] = decode(config().a_format, bits[i]);
}
void ExactBlockKernel::decode_b(std::size_t count, const std::uint64_t* bits, Operand* out) const {
  for (std::size_t i = 0; i < count; ++i) out[i] = decode(config().b_format, bits[i]);
}

std::uint64_t ExactBlockKernel::block(std::size_t len, const Operand* a, const std::uint64_t* a_bits, std::size_t sa,
                                      const Operand* b, const std::uint64_t* b_bits, std::size_t sb,
                                      std::uint64_t c_bits) const {
  const AdderConfig& cfg = config();
  struct Term {
    std::uint64_t sig;
    int q;
    bool negative;
  };
  Term terms[kMaxK + 1];
  std::size_t nt = 0;
  block_specials::Facts facts;
  for (std::size_t t = 0; t < len; ++t) {
    const Operand& x = a[t * sa];
    const Operand& y = b[t * sb];
    if (facts.product(x, y)) terms[nt++] = {std::uint64_t{x.sig} * y.sig, x.q + y.q, x.negative != y.negative};
  }
  if (len < k_) facts.all_neg = false;  // +0 padding products
  const Decoded cd = decode_fp32(static_cast<std::uint32_t>(c_bits));
  if (facts.addend(cd.cls, cd.negative)) terms[nt++] = {cd.significand, cd.exponent, cd.negative};
  if (const auto special = facts.special_result(nan_, cfg.out_format)) return *special;
  if (nt == 0) return block_specials::zero_fp32_rne(cfg, facts.all_neg);
  int lo = terms[0].q, hi = terms[0].q + 64 - std::countl_zero(terms[0].sig);
  for (std::size_t i = 1; i < nt; ++i) {
    lo = std::min(lo, terms[i].q);
    hi = std::max(hi, terms[i].q + 64 - std::countl_zero(terms[i].sig));
  }
  if (hi - lo > kMaxSpan) {  // rare: the reference, on the patterns
    std::uint64_t pa[kMaxK] = {}, pb[kMaxK] = {};
    for (std::size_t t = 0; t < len; ++t) pa[t] = a_bits[t * sa], pb[t] = b_bits[t * sb];
    return ref_.dot({pa, k_}, {pb, k_}, c_bits);
  }
  i128 sum = 0;
  for (std::size_t i = 0; i < nt; ++i) {
    const i128 v = static_cast<i128>(static_cast<u128>(terms[i].sig) << (terms[i].q - lo));
    sum += terms[i].negative ? -v : v;
  }
  if (sum == 0) return block_specials::zero_fp32_rne(cfg, false);
  const bool negative = sum < 0;
  u128 mag = negative ? static_cast<u128>(-sum) : static_cast<u128>(sum);
  int e = lo;
  const int bl = bit_length(mag);
  if (bl > 53) {  // round to odd at 53 bits: exact in binary64, one correct rounding below
    const int s = bl - 53;
    const bool sticky = (mag & ((u128{1} << s) - 1)) != 0;
    mag = (mag >> s) | (sticky ? 1 : 0);
    e += s;
  }
  const double v = static_cast<double>(static_cast<std::uint64_t>(mag)) * pow2(e);
  const float f = static_cast<float>(negative ? -v : v);
  return std::bit_cast<std::uint32_t>(f);
}

void ExactBlockKernel::run_scalar(std::size_t n, std::size_t len, const std::uint64_t* a, std::size_t lda,
                           const std::uint64_t* b, std::size_t ldb, const std::uint64_t* c, std::uint64_t* d) const {
  Operand x[kMaxK], y[kMaxK];
  for (std::size_t i = 0; i < n; ++i) {
    decode_a(len, a + i * lda, x);
    decode_b(len, b + i * ldb, y);
    d[i] = block(len, x, a + i * lda, 1, y, b + i * ldb, 1, c[i]);
  }
}

}  // namespace tcsim

namespace tcsim {

// The lanes' form of an operand: its exact value (NaN for NaN/Inf).
double ExactBlockKernel::plane_value(const Format& f, std::uint64_t bits) const {
  const Operand o = decode(f, bits);
  switch (o.kind) {
    case kZero: return o.negative ? -0.0 : 0.0;
    case kFinite: {
      const double v = static_cast<double>(o.sig) * pow2(o.q);
      return o.negative ? -v : v;
    }
    default: return std::nan("");
  }
}

void ExactBlockKernel::decode_planes(const Format& f, std::size_t count, const std::uint64_t* bits, std::size_t stride,
                                     double* value) const {
  if (f.width > 16 || count < (std::size_t{4} << f.width)) {
    for (std::size_t i = 0; i < count; ++i) value[i] = plane_value(f, bits[i * stride]);
    return;
  }
  const std::size_t size = std::size_t{1} << f.width;
  thread_local std::vector<double> tv;
  tv.resize(size);
  for (std::size_t p = 0; p < size; ++p) tv[p] = plane_value(f, p);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t x = bits[i * stride];
    value[i] = x < size ? tv[x] : plane_value(f, x);  // not a pattern of f: decode's error
  }
}

void ExactBlockKernel::run(std::size_t n, std::size_t len, const std::uint64_t* a, std::size_t lda,
                           const std::uint64_t* b, std::size_t ldb, const std::uint64_t* c, std::uint64_t* d) const {
  if (n == 0) return;
  // Product-major planes of the n elements, padded with +0 operands and c = +0.
  const std::size_t np = amd_lanes::padded(n);
  thread_local std::vector<double> av, bv;
  thread_local std::vector<float> cf, out;
  thread_local std::vector<std::uint8_t> fix;
  av.assign(len * np, 0.0), bv.assign(len * np, 0.0);
  cf.assign(np, 0.0f), out.resize(np), fix.resize(np);
  for (std::size_t t = 0; t < len; ++t) {
    decode_planes(config().a_format, n, a + t, lda, av.data() + t * np);
    decode_planes(config().b_format, n, b + t, ldb, bv.data() + t * np);
  }
  for (std::size_t e = 0; e < n; ++e) cf[e] = std::bit_cast<float>(static_cast<std::uint32_t>(c[e]));
  amd_lanes::Block blk;
  blk.w = np, blk.len = len, blk.a_val = av.data(), blk.a_per_lane = true, blk.b_val = bv.data(), blk.ldb = np;
  blk.c = cf.data(), blk.out = out.data(), blk.fix = fix.data(), blk.ldc = np;
  const bool any = amd_lanes::exact_block_block(config().zero_sign == ZeroSign::Positive, blk);
  for (std::size_t e = 0; e < n; ++e) {
    if (any && fix[e]) run_scalar(1, len, a + e * lda, lda, b + e * ldb, ldb, c + e, d + e);
    else d[e] = std::bit_cast<std::uint32_t>(out[e]);
  }
}

void ExactBlockKernel::decode_table(const Format& f, const std::vector<double>& table, std::size_t count,
                                     const std::uint64_t* bits, double* value) const {
  const std::size_t size = table.size();
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t x = bits[i];
    value[i] = x < size ? table[x] : plane_value(f, x);  // no table, or not a pattern of f: decode's error
  }
}

namespace {

constexpr std::size_t kPartRows = 64, kPartBlocks = 64;  // gemm_operand_part: A's rows, B's blocks

}  // namespace

ExactBlockKernel::GemmOperands ExactBlockKernel::gemm_operands(std::size_t m, std::size_t n, std::size_t K,
                                                                const std::uint64_t* A, const std::uint64_t* B) const {
  GemmOperands g = gemm_operands_alloc(m, n, K, A, B);
  for (std::size_t p = 0; p < gemm_operand_parts(g); ++p) gemm_operand_part(g, p);
  return g;
}

ExactBlockKernel::GemmOperands ExactBlockKernel::gemm_operands_alloc(std::size_t m, std::size_t n, std::size_t K,
                                                                      const std::uint64_t* A,
                                                                      const std::uint64_t* B) const {
  GemmOperands g;
  g.m = m, g.n = n, g.K = K, g.ldb = amd_lanes::padded(n), g.a_bits = A, g.b_bits = B;
  const std::size_t nb = (K + k_ - 1) / k_;
  // 2 MiB pages for the planes (edge25: the 4 KiB page faults of their first touch were most of
  // the operands' time, which runs before the tiles' tasks).
  reserve_huge(g.a_val, m * K), reserve_huge(g.b_val, K * g.ldb);
  reserve_huge(g.a_hi, m * nb), reserve_huge(g.a_lo, m * nb), reserve_huge(g.b_hi, nb * g.ldb), reserve_huge(g.b_lo, nb * g.ldb);
  // Uninitialized: the parts write every element (in parallel tasks: their first touch too).
  g.a_val.resize(m * K), g.b_val.resize(K * g.ldb);
  g.a_hi.resize(m * nb), g.a_lo.resize(m * nb), g.b_hi.resize(nb * g.ldb), g.b_lo.resize(nb * g.ldb);
  g.b8_hi.resize(g.ldb / 8 * nb), g.b8_lo.resize(g.ldb / 8 * nb);
  // A table of every pattern where the operand count makes it cheaper than plane_value per operand.
  const auto table = [&](const Format& f, std::size_t count, std::vector<double>& t) {
    if (f.width > 16 || count < (std::size_t{4} << f.width)) return;
    t.resize(std::size_t{1} << f.width);
    for (std::size_t x = 0; x < t.size(); ++x) t[x] = plane_value(f, x);
  };
  table(config().a_format, m * K, g.a_table), table(config().b_format, K * n, g.b_table);
  return g;
}

std::size_t ExactBlockKernel::gemm_operand_parts(const GemmOperands& ops) const {
  const std::size_t nb = (ops.K + k_ - 1) / k_;
  return (ops.m + kPartRows - 1) / kPartRows + (nb + kPartBlocks - 1) / kPartBlocks;
}

// Part p < ceil(m / 64): A's rows 64 p.. (a_val, a_hi, a_lo); else B's blocks 64 (p - that)..
// (b_val's rows, b_hi, b_lo, b8_hi, b8_lo). Per row of A and column of B and block, the largest
// e_ref (max(exponent, emin)) and the least last-bit exponent e_ref - (p - 1) of the nonzero
// operands; sentinels for none and for NaN/Inf.
void ExactBlockKernel::gemm_operand_part(GemmOperands& g, std::size_t part) const {
  const std::size_t m = g.m, n = g.n, K = g.K, ldb = g.ldb, nb = (K + k_ - 1) / k_;
  const std::size_t a_parts = (m + kPartRows - 1) / kPartRows;
  auto fold = [](const Format& f, double v, std::int32_t& hi, std::int32_t& lo) {
    if (std::isnan(v)) hi = amd_lanes::kTileSpecialHi, lo = amd_lanes::kTileSpecialLo;
    else if (v != 0 && hi != amd_lanes::kTileSpecialHi) {  // a normal binary64: its exponent field
      const int e = std::max(static_cast<int>((std::bit_cast<std::uint64_t>(v) >> 52) & 0x7ff) - 1023, f.emin);
      hi = std::max(hi, e), lo = std::min(lo, e - (f.precision - 1));
    }
  };
  if (part < a_parts) {
    const std::size_t i0 = part * kPartRows, i1 = std::min(m, i0 + kPartRows);
    std::fill(g.a_hi.begin() + i0 * nb, g.a_hi.begin() + i1 * nb, amd_lanes::kTileZeroHi);
    std::fill(g.a_lo.begin() + i0 * nb, g.a_lo.begin() + i1 * nb, amd_lanes::kTileZeroLo);
    decode_table(config().a_format, g.a_table, (i1 - i0) * K, g.a_bits + i0 * K, g.a_val.data() + i0 * K);
    for (std::size_t i = i0; i < i1; ++i)
      for (std::size_t t = 0; t < K; ++t) fold(config().a_format, g.a_val[i * K + t], g.a_hi[i * nb + t / k_], g.a_lo[i * nb + t / k_]);
    return;
  }
  const std::size_t b0 = (part - a_parts) * kPartBlocks, b1 = std::min(nb, b0 + kPartBlocks);
  std::fill(g.b_hi.begin() + b0 * ldb, g.b_hi.begin() + b1 * ldb, amd_lanes::kTileZeroHi);
  std::fill(g.b_lo.begin() + b0 * ldb, g.b_lo.begin() + b1 * ldb, amd_lanes::kTileZeroLo);
  for (std::size_t t = b0 * k_; t < std::min(K, b1 * k_); ++t) {
    decode_table(config().b_format, g.b_table, n, g.b_bits + t * n, g.b_val.data() + t * ldb);
    std::fill(g.b_val.begin() + t * ldb + n, g.b_val.begin() + (t + 1) * ldb, 0.0);  // padding: +0 operands
    for (std::size_t j = 0; j < n; ++j)
      fold(config().b_format, g.b_val[t * ldb + j], g.b_hi[t / k_ * ldb + j], g.b_lo[t / k_ * ldb + j]);
  }
  for (std::size_t b = b0; b < b1; ++b)
    for (std::size_t g8 = 0; g8 < ldb / 8; ++g8) g.b8_hi[g8 * nb + b] = amd_lanes::kTileZeroHi, g.b8_lo[g8 * nb + b] = amd_lanes::kTileZeroLo;
  for (std::size_t b = b0; b < b1; ++b)
    for (std::size_t j = 0; j < ldb; ++j) {
      std::int32_t &hi = g.b8_hi[j / 8 * nb + b], &lo = g.b8_lo[j / 8 * nb + b];
      hi = std::max(hi, g.b_hi[b * ldb + j]), lo = std::min(lo, g.b_lo[b * ldb + j]);
    }
}

void ExactBlockKernel::gemm_tile(const GemmOperands& ops, std::size_t i0, std::size_t rows, std::size_t j0,
                                 std::size_t w, std::size_t group, const std::uint64_t* C, std::uint64_t* D) const {
  const std::size_t n = ops.n, K = ops.K, wp = amd_lanes::padded(w);
  thread_local std::vector<float> acc;
  acc.assign(rows * wp, 0.0f);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < w; ++j)
      acc[r * wp + j] = std::bit_cast<float>(static_cast<std::uint32_t>(C[(i0 + r) * n + j0 + j]));
  const bool positive_zero = config().zero_sign == ZeroSign::Positive;
  // k products and c below 2^(H+1), multiples of 2^U: exact in binary64 when H - U <= this.
  const int span_limit = 52 - static_cast<int>(std::bit_width(k_));
  // The summaries are per k-aligned block: every block starts at a multiple of k when the
  // instructions do (or one instruction spans K).
  const bool aligned = K != 0 && !ops.a_hi.empty() && (group % k_ == 0 || group >= K);
  const std::size_t ia = i0 * K;
  // The scalar block of output (r, j) at products pos..pos+len from accumulator c.
  auto scalar_block = [&](std::size_t r, std::size_t j, std::size_t pos, std::size_t len,
                          std::uint32_t c) -> std::uint64_t {
    const Decoded cd = decode_fp32(c);
    // A finite product may overflow to Inf (product_overflow_inf): then only a NaN c decides.
    if (cd.cls == FpClass::NaN || (cd.cls == FpClass::Infinity && !config().product_overflow_inf))
      return block_specials::special_accumulator(
          cd.cls == FpClass::NaN, cd.negative, len, config().a_format, config().b_format,
          [&](std::size_t t) { return ops.a_bits[(i0 + r) * K + pos + t]; },
          [&](std::size_t t) { return ops.b_bits[(pos + t) * n + j0 + j]; },
          [&](std::uint64_t bits) { return decode(config().a_format, bits); },
          [&](std::uint64_t bits) { return decode(config().b_format, bits); }, nan_, config().out_format);
    Operand x[kMaxK], y[kMaxK];
    std::uint64_t xb[kMaxK], yb[kMaxK];
    for (std::size_t t = 0; t < len; ++t) {
      xb[t] = ops.a_bits[(i0 + r) * K + pos + t];
      yb[t] = ops.b_bits[(pos + t) * n + j0 + j];
      x[t] = decode(config().a_format, xb[t]);
      y[t] = decode(config().b_format, yb[t]);
    }
    return block(len, x, xb, 1, y, yb, 1, c);
  };
  if (aligned) {  // c in registers over the whole chain (amd_chain.hpp: ExactChainTile)
    using Scalar = decltype(scalar_block);
    const std::size_t nb = (K + k_ - 1) / k_;
    amd_lanes::ExactChainTile t;
    t.rows = rows, t.w = wp, t.valid = w, t.K = K, t.k = k_, t.group = group;
    t.a_d = ops.a_val.data() + ia, t.lda = K;
    t.a_hi = ops.a_hi.data() + i0 * nb, t.a_lo = ops.a_lo.data() + i0 * nb, t.lde = nb;
    t.b_d = ops.b_val.data() + j0, t.b_hi = ops.b_hi.data() + j0, t.b_lo = ops.b_lo.data() + j0, t.ldb = ops.ldb;
    t.b8_hi = ops.b8_hi.data() + j0 / 8 * nb, t.b8_lo = ops.b8_lo.data() + j0 / 8 * nb;  // j0: a multiple of 16
    t.acc = acc.data(), t.ldc = wp, t.span_limit = span_limit, t.positive_zero = positive_zero;
    t.ctx = &scalar_block;
    t.fallback = [](const void* ctx, std::size_t r, std::size_t j, std::size_t pos, std::size_t len,
                    std::uint32_t c) -> std::uint32_t {
      return static_cast<std::uint32_t>((*static_cast<const Scalar*>(ctx))(r, j, pos, len, c));
    };
    amd_lanes::exact_block_chain(t);
  } else {  // K = 0 or blocks not aligned at multiples of k: one output per binary64 lane
  amd_lanes::chain(
      rows, wp, w, K, k_, group, acc.data(),
      [&](std::size_t pos, std::size_t len, const float* cur, float* out, std::uint8_t* fix) {
        amd_lanes::Block blk;
        blk.rows = rows, blk.w = wp, blk.len = len;
        // K = 0: the planes are empty (null data()), and the block reads no products.
        blk.a_val = K == 0 ? nullptr : ops.a_val.data() + ia + pos, blk.lda = K;
        blk.b_val = K == 0 ? nullptr : ops.b_val.data() + pos * ops.ldb + j0, blk.ldb = ops.ldb;
        blk.c = cur, blk.out = out, blk.fix = fix, blk.ldc = wp;
        return amd_lanes::exact_block_block(positive_zero, blk);
      },
      scalar_block);
  }
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < w; ++j) D[(i0 + r) * n + j0 + j] = std::bit_cast<std::uint32_t>(acc[r * wp + j]);
}

}  // namespace tcsim
