// dot_batch of Binary32TreeKernel (CDNA2's pairwise binary32 trees) on SIMD lanes (issue 25):
// a batch of independent elements is one row of lanes, each lane one element with its own a
// and b (product-major planes of decoded binary32 operands), its whole chain over K in
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

#ifndef TCSIM_SIM_IEEE_TREE_DOT_ONCE
#define TCSIM_SIM_IEEE_TREE_DOT_ONCE
namespace tcsim::tree_dot_detail {
// One block of the chain: products [pos, pos + len), padded with +0 products to k.
struct Block {
  std::size_t pos, len;
};
constexpr float kMinNormal = 0x1p-126f;
constexpr std::size_t kPad = 16;  // planes padded to a multiple of every target's float lanes
}  // namespace tcsim::tree_dot_detail
#endif

HWY_BEFORE_NAMESPACE();
namespace tcsim::tree_dot_lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using tree_dot_detail::Block;

// A value below 2^-126 in magnitude becomes a zero of its sign (NaN and Inf stay).
template <class D, class V>
HWY_INLINE V Flush(D d, V x) {
  return hn::IfThenElse(hn::Lt(hn::Abs(x), hn::Set(d, tree_dot_detail::kMinNormal)), hn::And(x, hn::SignBit(d)), x);
}

// ((p0 + p1) + (p2 + p3)) ..., each sum flushed when FP.
template <std::size_t K, bool FP, class D, class V>
HWY_INLINE V Tree(D d, const V* p) {
  if constexpr (K == 1) {
    return p[0];
  } else {
    const V s = hn::Add(Tree<K / 2, FP>(d, p), Tree<K / 2, FP>(d, p + K / 2));
    if constexpr (FP) return Flush(d, s);
    else return s;
  }
}

// Lanes [0, n) (n a multiple of the lanes): a[t * ld + j], b[t * ld + j], acc[j] in/out.
template <std::size_t K, bool FP>
void ChainPlanesK(std::size_t n, const Block* b0, const Block* b1, const float* a, const float* b, std::size_t ld,
                  float* acc, bool positive_zero) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const std::size_t N = hn::Lanes(d);
  for (std::size_t j = 0; j < n; j += N) {
    V s = hn::LoadU(d, acc + j);
    for (const Block* blk = b0; blk != b1; ++blk) {
      V p[K];
      for (std::size_t t = 0; t < K; ++t) {
        if (t < blk->len) {
          const std::size_t o = (blk->pos + t) * ld + j;
          const V x = hn::Mul(hn::LoadU(d, a + o), hn::LoadU(d, b + o));
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

void ChainPlanes(std::size_t k, bool flush_products, std::size_t n, const Block* b0, const Block* b1, const float* a,
                 const float* b, std::size_t ld, float* acc, bool positive_zero) {
  switch (k * 2 + (flush_products ? 1 : 0)) {
    case 2: return ChainPlanesK<1, false>(n, b0, b1, a, b, ld, acc, positive_zero);
    case 3: return ChainPlanesK<1, true>(n, b0, b1, a, b, ld, acc, positive_zero);
    case 4: return ChainPlanesK<2, false>(n, b0, b1, a, b, ld, acc, positive_zero);
    case 5: return ChainPlanesK<2, true>(n, b0, b1, a, b, ld, acc, positive_zero);
    case 8: return ChainPlanesK<4, false>(n, b0, b1, a, b, ld, acc, positive_zero);
    case 9: return ChainPlanesK<4, true>(n, b0, b1, a, b, ld, acc, positive_zero);
    case 16: return ChainPlanesK<8, false>(n, b0, b1, a, b, ld, acc, positive_zero);
    default: return ChainPlanesK<8, true>(n, b0, b1, a, b, ld, acc, positive_zero);
  }
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
  thread_local std::vector<float> av, bv, acc;
  av.resize(K * np), bv.resize(K * np), acc.resize(np);
  for (std::size_t t = 0; t < K; ++t) {  // product-major planes, padded with +0 operands
    float* pa = av.data() + t * np;
    float* pb = bv.data() + t * np;
    for (std::size_t e = 0; e < n; ++e) {
      pa[e] = decode_operand(a[e * se + t * st]);
      pb[e] = decode_operand(b[e * se + t * st]);
    }
    std::fill(pa + n, pa + np, 0.0f);
    std::fill(pb + n, pb + np, 0.0f);
  }
  for (std::size_t e = 0; e < n; ++e) acc[e] = decode_c(c[e]);
  std::fill(acc.begin() + static_cast<std::ptrdiff_t>(n), acc.end(), 0.0f);
  thread_local std::vector<tree_dot_detail::Block> blocks;
  blocks.clear();
  std::size_t start = 0;
  do {  // instructions of `group` (K = 0 runs one), blocks of k
    const std::size_t end = std::min(K, start + std::max<std::size_t>(group, 1));
    std::size_t pos = start;
    do {
      const std::size_t len = std::min(k_, end - pos);
      blocks.push_back({pos, len});
      pos += len;
    } while (pos < end);
    start = end;
  } while (start < K);
  // K = 0: the planes are empty, and the one block reads no products.
  HWY_DYNAMIC_DISPATCH(tree_dot_lanes::ChainPlanes)(k_, flush_products_, np, blocks.data(), blocks.data() + blocks.size(),
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
