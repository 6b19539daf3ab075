// dot_batch of Binary32TreeKernel (CDNA2's pairwise binary32 trees) on SIMD lanes (issue 25):
// a batch of independent elements is one row of lanes, each lane one element with its own a
// and b (product-major planes of the patterns, decoded in the lanes), its whole chain over K in
// registers, the same operations in the same order as run() and run_chain() (ieee_tree.cpp):
// exact binary32 products flushed below 2^-126, the balanced tree, + the accumulator, flushed,
// +0 for zero sums with the +0 rule. Compiled once per SIMD target by Google Highway.
// Proven equal to Unit::dot by models/tests/test_amd_dot_batch.cpp.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ieee_tree_dot.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "tcsim/sim/ieee_tree.hpp"

#include "ieee_tree-inl.h"

#ifndef TCSIM_SIM_IEEE_TREE_DOT_ONCE
#define TCSIM_SIM_IEEE_TREE_DOT_ONCE
namespace tcsim::tree_dot_detail {
constexpr std::size_t kPad = 16;  // planes padded to a multiple of every target's float lanes
// The operand format's fields, for decoding in the lanes as Binary32TreeKernel::decode_operand.
struct Fields {
  int width, frac_bits, exp_bits, bias;
  bool flush_positive;  // subnormal inputs flushed to +0 (else to a zero of their sign)
};
}  // namespace tcsim::tree_dot_detail
#endif

HWY_BEFORE_NAMESPACE();
namespace tcsim::tree_dot_lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using tree_detail::Block;
using tree_detail::HWY_NAMESPACE::Flush;
using tree_detail::HWY_NAMESPACE::Tree;

// Patterns (the low bits of uint32 lanes) as binary32 values, as decode_operand: the fields
// moved to binary32's places, the top exponent field to 255 (Inf/NaN), subnormals flushed.
template <class DU>
struct Decoder {
  using VU = hn::Vec<DU>;
  DU du;
  VU one, exp_mask, frac_mask, top, inf_field, rebias;
  int sign_shift, frac_bits, to_binary32;
  bool flush_positive;
  explicit Decoder(const tree_dot_detail::Fields& f)
      : one(hn::Set(du, 1u)), exp_mask(hn::Set(du, (1u << f.exp_bits) - 1)),
        frac_mask(hn::Set(du, (1u << f.frac_bits) - 1)), top(hn::Set(du, (1u << f.exp_bits) - 1)),
        inf_field(hn::Set(du, 255u)), rebias(hn::Set(du, static_cast<std::uint32_t>(127 - f.bias))),
        sign_shift(f.width - 1), frac_bits(f.frac_bits), to_binary32(23 - f.frac_bits),
        flush_positive(f.flush_positive) {}
  template <class D>
  hn::Vec<D> operator()(D d, VU u) const {
    const VU sign = hn::ShiftLeft<31>(hn::And(hn::ShiftRightSame(u, sign_shift), one));
    const VU field = hn::And(hn::ShiftRightSame(u, frac_bits), exp_mask);
    const VU frac = hn::And(u, frac_mask);
    const VU e32 = hn::IfThenElse(hn::Eq(field, top), inf_field, hn::Add(field, rebias));
    const VU normal = hn::Or(hn::Or(sign, hn::ShiftLeft<23>(e32)), hn::ShiftLeftSame(frac, to_binary32));
    const VU flushed = flush_positive ? hn::IfThenZeroElse(hn::Ne(frac, hn::Zero(du)), sign) : sign;
    return hn::BitCast(d, hn::IfThenElse(hn::Eq(field, hn::Zero(du)), flushed, normal));
  }
};

// Lanes [0, n) (n a multiple of the lanes): patterns a[t * ld + j], b[t * ld + j], acc[j] in/out.
template <std::size_t K, bool FP>
void ChainPlanesK(const tree_dot_detail::Fields& f, std::size_t n, const Block* b0, const Block* b1,
                  const std::uint32_t* a, const std::uint32_t* b, std::size_t ld, float* acc, bool positive_zero) {
  const hn::ScalableTag<float> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const Decoder<decltype(du)> decode(f);
  using V = hn::Vec<decltype(d)>;
  const std::size_t N = hn::Lanes(d);
  for (std::size_t j = 0; j < n; j += N) {
    V s = hn::LoadU(d, acc + j);
    for (const Block* blk = b0; blk != b1; ++blk) {
      V p[K];
      for (std::size_t t = 0; t < K; ++t) {
        if (t < blk->len) {
          const std::size_t o = (blk->pos + t) * ld + j;
          const V x = hn::Mul(decode(d, hn::LoadU(du, a + o)), decode(d, hn::LoadU(du, b + o)));
          if constexpr (FP) p[t] = Flush(d, x);
          else p[t] = x;
        } else {
          p[t] = hn::Zero(d);
        }
      }
      s = Flush(d, hn::Add(Tree<K, FP>(d, p), s));
      if (positive_zero) s = hn::IfThenZeroElse(hn::Eq(s, hn::Zero(d)), s);
    }
    hn::StoreU(s, d, acc + j);
  }
}

void ChainPlanes(const tree_dot_detail::Fields& f, std::size_t k, bool flush_products, std::size_t n, const Block* b0,
                 const Block* b1, const std::uint32_t* a, const std::uint32_t* b, std::size_t ld, float* acc,
                 bool positive_zero) {
  tree_detail::HWY_NAMESPACE::WithTreeK(k, flush_products, [&]<std::size_t K, bool FP>() {
    ChainPlanesK<K, FP>(f, n, b0, b1, a, b, ld, acc, positive_zero);
  });
}

}  // namespace tcsim::tree_dot_lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tcsim {

namespace tree_dot_lanes {
HWY_EXPORT(ChainPlanes);
}  // namespace tree_dot_lanes

template <class T>
void Binary32TreeKernel::dot_chain_any(std::size_t n, std::size_t K, std::size_t group, const T* a, const T* b,
                                       std::size_t se, std::size_t st, const std::uint64_t* c, std::uint64_t* d) const {
  if (n == 0) return;
  const std::size_t np = (n + tree_dot_detail::kPad - 1) / tree_dot_detail::kPad * tree_dot_detail::kPad;
  // Product-major planes of the patterns (decoded in the lanes), padded with +0 operands; the
  // patterns' bits above 32 are ignored as decode_operand ignores every bit above the format's.
  thread_local std::vector<std::uint32_t> av, bv;
  thread_local std::vector<float> acc;
  av.resize(K * np), bv.resize(K * np), acc.resize(np);
  auto copy = [&](std::size_t e, std::size_t t) {
    av[t * np + e] = static_cast<std::uint32_t>(a[e * se + t * st]);
    bv[t * np + e] = static_cast<std::uint32_t>(b[e * se + t * st]);
  };
  for (std::size_t t = 0; t < K; ++t)
    for (std::size_t e = 0; e < n; ++e) copy(e, t);
  for (std::size_t t = 0; t < K; ++t) {
    std::fill(av.data() + t * np + n, av.data() + (t + 1) * np, 0u);
    std::fill(bv.data() + t * np + n, bv.data() + (t + 1) * np, 0u);
  }
  for (std::size_t e = 0; e < n; ++e) acc[e] = decode_c(c[e]);
  std::fill(acc.begin() + static_cast<std::ptrdiff_t>(n), acc.end(), 0.0f);
  thread_local std::vector<tree_detail::Block> blocks;
  tree_detail::chain_blocks(K, group, k_, blocks);
  // K = 0: the planes are empty, and the one block reads no products.
  const tree_dot_detail::Fields fields{width_, frac_bits_, exp_bits_, bias_, cfg_.flush_inputs_positive};
  HWY_DYNAMIC_DISPATCH(tree_dot_lanes::ChainPlanes)(fields, k_, flush_products_, np, blocks.data(), blocks.data() + blocks.size(),
                                                    K ? av.data() : nullptr, K ? bv.data() : nullptr, np, acc.data(),
                                                    cfg_.zero_sign == ZeroSign::Positive);
  for (std::size_t e = 0; e < n; ++e) d[e] = encode(acc[e]);
}

void Binary32TreeKernel::dot_chain(std::size_t n, std::size_t K, std::size_t group, const std::uint64_t* a,
                                   const std::uint64_t* b, const std::uint64_t* c, std::uint64_t* d) const {
  dot_chain_any(n, K, group, a, b, K, 1, c, d);
}

void Binary32TreeKernel::dot_chain_planar(std::size_t n, std::size_t K, std::size_t group, const std::uint16_t* a,
                                          const std::uint16_t* b, std::size_t ld, const std::uint64_t* c,
                                          std::uint64_t* d) const {
  dot_chain_any(n, K, group, a, b, 1, ld, c, d);
}

}  // namespace tcsim
#endif
