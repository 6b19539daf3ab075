// Private to sim/src: the pieces of CDNA2's binary32 trees shared by the GEMM lanes
// (ieee_tree.cpp) and dot_batch's lanes (ieee_tree_dot.cpp): the chain's blocks, the flush and
// the balanced tree; the SIMD part included once per Highway target.
#ifndef TCSIM_SIM_IEEE_TREE_INL_ONCE
#define TCSIM_SIM_IEEE_TREE_INL_ONCE
#include <algorithm>
#include <cstddef>
#include <vector>

namespace tcsim::tree_detail {
// One block of the chain: products [pos, pos + len) of every element, padded to k.
struct Block {
  std::size_t pos, len;
};
constexpr float kMinNormal = 0x1p-126f;

// The chain's blocks: instructions of `group` products (K = 0 runs one), blocks of k.
inline void chain_blocks(std::size_t K, std::size_t group, std::size_t k, std::vector<Block>& blocks) {
  blocks.clear();
  std::size_t start = 0;
  do {
    const std::size_t end = std::min(K, start + std::max<std::size_t>(group, 1));
    std::size_t pos = start;
    do {
      const std::size_t len = std::min(k, end - pos);
      blocks.push_back({pos, len});
      pos += len;
    } while (pos < end);
    start = end;
  } while (start < K);
}
}  // namespace tcsim::tree_detail
#endif

#if defined(TCSIM_SIM_IEEE_TREE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TCSIM_SIM_IEEE_TREE_INL_H_
#undef TCSIM_SIM_IEEE_TREE_INL_H_
#else
#define TCSIM_SIM_IEEE_TREE_INL_H_
#endif

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace tcsim::tree_detail::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// A value below 2^-126 in magnitude becomes a zero of its sign (NaN and Inf stay).
template <class D, class V>
HWY_INLINE V Flush(D d, V x) {
  return hn::IfThenElse(hn::Lt(hn::Abs(x), hn::Set(d, kMinNormal)), hn::And(x, hn::SignBit(d)), x);
}

// The balanced tree over p[0..K): ((p0 + p1) + (p2 + p3)) ..., each sum flushed when FP.
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

// fn.template operator()<K, FP>() for the block size k (1, 2, 4, 8) and whether products flush.
template <class Fn>
HWY_INLINE void WithTreeK(std::size_t k, bool flush_products, const Fn& fn) {
  switch (k * 2 + (flush_products ? 1 : 0)) {
    case 2: return fn.template operator()<1, false>();
    case 3: return fn.template operator()<1, true>();
    case 4: return fn.template operator()<2, false>();
    case 5: return fn.template operator()<2, true>();
    case 8: return fn.template operator()<4, false>();
    case 9: return fn.template operator()<4, true>();
    case 16: return fn.template operator()<8, false>();
    default: return fn.template operator()<8, true>();
  }
}

}  // namespace tcsim::tree_detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif
