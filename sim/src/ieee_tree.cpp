// Binary32TreeKernel (see ieee_tree.hpp): CDNA2's pairwise binary32 trees in host binary32
// arithmetic. The GEMM lanes (run_chain) are compiled once per SIMD target by Google Highway
// and chosen at run time; decoding and the element-major run() are scalar.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ieee_tree.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "tcsim/sim/ieee_tree.hpp"

#include "ieee_tree-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tcsim::tree_lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using tree_detail::Block;
using tree_detail::HWY_NAMESPACE::Flush;
using tree_detail::HWY_NAMESPACE::Tree;

// R rows x the columns [0, n) (n a multiple of the lanes) over the blocks [b0, b1).
template <std::size_t K, std::size_t R, bool FP>
void ChainRows(std::size_t n, const Block* b0, const Block* b1, const float* a, std::size_t lda, const float* b,
               std::size_t ldb, float* acc, std::size_t ldacc, bool positive_zero) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const std::size_t N = hn::Lanes(d);
  for (std::size_t j = 0; j < n; j += N) {
    V s[R];
    for (std::size_t r = 0; r < R; ++r) s[r] = hn::LoadU(d, acc + r * ldacc + j);
    for (const Block* blk = b0; blk != b1; ++blk) {
      V p[R][K];
      for (std::size_t t = 0; t < K; ++t) {
        if (t < blk->len) {
          const V bv = hn::LoadU(d, b + (blk->pos + t) * ldb + j);
          for (std::size_t r = 0; r < R; ++r) {
            const V x = hn::Mul(hn::Set(d, a[r * lda + blk->pos + t]), bv);
            if constexpr (FP) p[r][t] = Flush(d, x);
            else p[r][t] = x;
          }
        } else {
          for (std::size_t r = 0; r < R; ++r) p[r][t] = hn::Zero(d);
        }
      }
      for (std::size_t r = 0; r < R; ++r) {
        s[r] = Flush(d, hn::Add(Tree<K, FP>(d, p[r]), s[r]));
        if (positive_zero) s[r] = hn::IfThenZeroElse(hn::Eq(s[r], hn::Zero(d)), s[r]);
      }
    }
    for (std::size_t r = 0; r < R; ++r) hn::StoreU(s[r], d, acc + r * ldacc + j);
  }
}

template <std::size_t K, bool FP>
void ChainK(std::size_t rows, std::size_t n, const Block* b0, const Block* b1, const float* a, std::size_t lda,
            const float* b, std::size_t ldb, float* acc, std::size_t ldacc, bool positive_zero) {
  std::size_t r = 0;
  for (; r + 4 <= rows; r += 4)
    ChainRows<K, 4, FP>(n, b0, b1, a + r * lda, lda, b, ldb, acc + r * ldacc, ldacc, positive_zero);
  for (; r < rows; ++r) ChainRows<K, 1, FP>(n, b0, b1, a + r * lda, lda, b, ldb, acc + r * ldacc, ldacc, positive_zero);
}

void Chain(std::size_t k, bool flush_products, std::size_t rows, std::size_t n, const Block* b0, const Block* b1,
           const float* a, std::size_t lda, const float* b, std::size_t ldb, float* acc, std::size_t ldacc,
           bool positive_zero) {
  tree_detail::HWY_NAMESPACE::WithTreeK(k, flush_products, [&]<std::size_t K, bool FP>() {
    ChainK<K, FP>(rows, n, b0, b1, a, lda, b, ldb, acc, ldacc, positive_zero);
  });
}

}  // namespace tcsim::tree_lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tcsim {

namespace tree_lanes {
HWY_EXPORT(Chain);
void chain(std::size_t k, bool flush_products, std::size_t rows, std::size_t n, const tree_detail::Block* b0,
           const tree_detail::Block* b1, const float* a, std::size_t lda, const float* b, std::size_t ldb, float* acc,
           std::size_t ldacc, bool positive_zero) {
  HWY_DYNAMIC_DISPATCH(Chain)(k, flush_products, rows, n, b0, b1, a, lda, b, ldb, acc, ldacc, positive_zero);
}
}  // namespace tree_lanes

namespace {

constexpr std::size_t kMaxTreeK = 8;
constexpr std::size_t kColumnMultiple = 16;  // run_chain's n: a multiple of every target's lanes

std::optional<std::string> operand_unsupported(const Format& f) {
  const std::string where = "operand format '" + f.name + "'";
  if (!f.is_signed || !f.has_zero || !f.infinities || f.nan != NanEncoding::Ieee || !f.subnormals)
    return where + " is not an IEEE-style format with subnormals, Inf and NaN";
  if (f.precision > 12) return where + " has more than 12 significand bits (products not exact in binary32)";
  if (f.exponent_bits > 8 || f.emin < -126 || f.emax > 127 || f.emin != 1 - f.bias ||
      f.emax + f.bias + 1 != (1 << f.exponent_bits) - 1 || f.width != f.exponent_bits + f.precision)
    return where + " does not sit inside binary32's exponent range with the standard layout";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> binary32_tree_unsupported(const AdderConfig& cfg, std::size_t k) {
  if (cfg.normalization != Normalization::PerStep || cfg.order != AccumulationOrder::Pairwise)
    return std::string("not a per-step pairwise tree");
  if (!(cfg.a_format == cfg.b_format)) return std::string("a and b formats differ");
  if (auto why = operand_unsupported(cfg.a_format)) return why;
  const Format& f32 = formats::fp32();
  if (!(cfg.c_format == f32) || !(cfg.out_format == f32)) return std::string("c or the output is not fp32");
  if (cfg.subnormal_inputs || cfg.subnormal_outputs) return std::string("subnormals are not flushed");
  if (cfg.product_rounding != Rounding::NearestEven || cfg.final_rounding != Rounding::NearestEven)
    return std::string("products or sums not rounded to nearest even");
  if (!cfg.sticky_bit || cfg.fraction_bits < 2 * 24 + 2 || cfg.alignment_rounding != Rounding::TowardZero ||
      cfg.carry_bits < 1)
    return std::string("additions not correctly rounded (needs a sticky bit, F >= 50, rz alignment)");
  if (cfg.overflow != OverflowMode::Ieee && cfg.overflow != OverflowMode::Infinity)
    return std::string("overflow is not Inf");
  if (cfg.min_exponent || cfg.c_placement != CPlacement::Aligned || cfg.product_groups != 1 ||
      cfg.input_fraction_bits || cfg.product_overflow_inf || cfg.late_products_rounding)
    return std::string("fields beyond the binary32 tree are set");
  if (k == 0 || k > kMaxTreeK || (k & (k - 1)) != 0) return "fma_size " + std::to_string(k) + " is not 1, 2, 4 or 8";
  return std::nullopt;
}

Binary32TreeKernel::Binary32TreeKernel(const AdderConfig& cfg, std::size_t k) : cfg_(cfg), k_(k) {
  if (auto why = binary32_tree_unsupported(cfg, k)) throw std::invalid_argument("binary32 tree: " + *why);
  const Format& f = cfg.a_format;
  frac_bits_ = f.fraction_bits;
  exp_bits_ = f.exponent_bits;
  bias_ = f.bias;
  width_ = f.width;
  // The smallest nonzero product of normal operands, 2^(2 (emin - fraction bits)): every product
  // and every sum of products is a multiple of it, so none is below 2^-126 unless zero.
  flush_products_ = 2 * (f.emin - f.fraction_bits) < -126;
  nan_ = cfg.nan_pattern ? *cfg.nan_pattern : cfg.out_format.canonical_nan();
}

float Binary32TreeKernel::decode_operand(std::uint64_t bits) const {
  const std::uint32_t sign = static_cast<std::uint32_t>((bits >> (width_ - 1)) & 1) << 31;
  const std::uint32_t field = static_cast<std::uint32_t>((bits >> frac_bits_) & ((1u << exp_bits_) - 1));
  const std::uint32_t frac = static_cast<std::uint32_t>(bits & ((std::uint64_t{1} << frac_bits_) - 1));
  if (field == 0)  // zero, or a subnormal flushed (to +0 with flush_inputs_positive)
    return std::bit_cast<float>(frac != 0 && cfg_.flush_inputs_positive ? 0u : sign);
  const std::uint32_t top = (1u << exp_bits_) - 1;
  const std::uint32_t e32 = field == top ? 255u : field - static_cast<std::uint32_t>(bias_) + 127u;
  return std::bit_cast<float>(sign | (e32 << 23) | (frac << (23 - frac_bits_)));
}

void Binary32TreeKernel::decode_operands(std::size_t count, const std::uint64_t* bits, float* value) const {
  for (std::size_t i = 0; i < count; ++i) value[i] = decode_operand(bits[i]);
}

float Binary32TreeKernel::decode_c(std::uint64_t bits) const {
  const auto u = static_cast<std::uint32_t>(bits);
  if ((u & 0x7f800000u) == 0 && (u & 0x007fffffu) != 0)  // subnormal c: flushed
    return std::bit_cast<float>(cfg_.flush_inputs_positive ? 0u : u & 0x80000000u);
  return std::bit_cast<float>(u);
}

std::uint64_t Binary32TreeKernel::encode(float v) const {
  if (std::isnan(v)) return nan_;
  if (v == 0.0f && cfg_.zero_sign == ZeroSign::Positive) return 0;
  return std::bit_cast<std::uint32_t>(v);
}

namespace {
inline float flush(float x) { return std::fabs(x) < tree_detail::kMinNormal ? std::copysign(0.0f, x) : x; }
}  // namespace

void Binary32TreeKernel::run(std::size_t n, std::size_t len, const std::uint64_t* a, std::size_t lda,
                             const std::uint64_t* b, std::size_t ldb, const std::uint64_t* c, std::uint64_t* d) const {
  float p[kMaxTreeK];
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t t = 0; t < k_; ++t)
      p[t] = t < len ? flush(decode_operand(a[i * lda + t]) * decode_operand(b[i * ldb + t])) : 0.0f;
    for (std::size_t w = 1; w < k_; w *= 2)  // the balanced tree, level by level
      for (std::size_t t = 0; t + w < k_; t += 2 * w) p[t] = flush(p[t] + p[t + w]);
    d[i] = encode(flush(p[0] + decode_c(c[i])));
  }
}

void Binary32TreeKernel::run_chain(std::size_t rows, std::size_t n, std::size_t KK, std::size_t group,
                                   const float* a, std::size_t lda, const float* b, std::size_t ldb, float* acc,
                                   std::size_t ldacc) const {
  if (n % kColumnMultiple != 0)
    throw std::invalid_argument("Binary32TreeKernel::run_chain: n must be a multiple of 16");
  std::vector<tree_detail::Block> blocks;
  tree_detail::chain_blocks(KK, group, k_, blocks);
  // Chunks of about 64 products: B's slice of a chunk stays in L1 for every row.
  const bool positive_zero = cfg_.zero_sign == ZeroSign::Positive;
  const std::size_t per_chunk = std::max<std::size_t>(1, 64 / k_);
  for (std::size_t c0 = 0; c0 < blocks.size(); c0 += per_chunk) {
    const std::size_t c1 = std::min(blocks.size(), c0 + per_chunk);
    tree_lanes::chain(k_, flush_products_, rows, n, blocks.data() + c0, blocks.data() + c1, a, lda, b, ldb, acc, ldacc,
                      positive_zero);
  }
}

}  // namespace tcsim
#endif
