// Private to models/src: block-scaled rows with group sums (BlockScaleSpec::group_size > 0)
// on the kernel's lanes (BlockKernel::run_row_groups), every scale 1 as dot_in_row takes them:
// the chaining of dot_scaled (blocks of k from c, the last one padded with +0 products) for
// w elements at once. Elements the lanes flag are computed by the block-scaled reference.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "block_scaled.hpp"
#include "tcsim/sim/block_kernel.hpp"

namespace tcsim::models::detail {

// One block of a block-scaled row with every scale 1: products t < len of a[t * as] b[t * bs],
// padded with +0 products to k, as dot_scaled builds it.
inline std::uint64_t unit_scaled_block(const AdderConfig& cfg, int group_size, const Format& scale_format,
                                       std::size_t k, std::size_t len, const std::uint64_t* a, std::size_t as,
                                       const std::uint64_t* b, std::size_t bs, std::uint64_t c) {
  thread_local std::vector<std::uint64_t> pa, pb, s;
  pa.assign(k, 0);
  pb.assign(k, 0);
  s.assign(k, round_bits(ExactValue::finite(false, 1, 0), scale_format, Rounding::NearestEven));
  for (std::size_t t = 0; t < len; ++t) {
    pa[t] = a[t * as];
    pb[t] = b[t * bs];
  }
  return scaled_block_fma(cfg, group_size, scale_format, pa, pb, s, s, c);
}

// The accumulators of w elements between blocks: patterns of the output format and decoded.
struct GroupAccumulators {
  std::vector<std::uint64_t> bits, tmp;
  std::vector<double> value, eref, tmp_value, tmp_eref;
  std::vector<std::uint8_t> fixup;
  // c[0..w) as the accumulators' start.
  void start(const BlockKernel& gk, std::size_t w, const std::uint64_t* c) {
    bits.assign(c, c + w);
    for (auto* v : {&value, &eref, &tmp_value, &tmp_eref}) v->resize(w);
    tmp.resize(w);
    fixup.resize(w);
    gk.decode(BlockKernel::Role::C, w, bits.data(), value.data(), eref.data());
  }
  // After the lanes wrote tmp, tmp_value, tmp_eref and fixup: the flagged elements by
  // exact(j, c), every result through to_out, the decoded results the next c.
  template <class Exact, class ToOut>
  void finish(const BlockKernel& gk, const Exact& exact, const ToOut& to_out) {
    for (std::size_t j = 0; j < bits.size(); ++j) {
      if (fixup[j]) {
        bits[j] = to_out(exact(j, bits[j]));
        gk.decode(BlockKernel::Role::C, 1, &bits[j], &tmp_value[j], &tmp_eref[j]);
      } else {
        bits[j] = to_out(tmp[j]);
      }
    }
    std::swap(value, tmp_value);
    std::swap(eref, tmp_eref);
  }
};

// One block [pos, pos + len) of w elements from their accumulators: operand t of element j
// decoded at av[t] (a_broadcast) or av[t * ld + j], and bv[t * ld + j], both counted from the
// block's first product. exact(j, c): element j's block from c by the reference (the adder's
// output pattern). to_out: a block result as the next block's c (Unit's narrow re-encoding).
template <class Exact, class ToOut>
void group_block(const BlockKernel& gk, std::size_t group, std::size_t len, std::size_t w, const double* av,
                 bool a_broadcast, const double* bv, std::size_t ld, GroupAccumulators& acc, const Exact& exact,
                 const ToOut& to_out) {
  gk.run_row_groups(w, len, group, av, a_broadcast, bv, ld, acc.value.data(), acc.eref.data(), acc.tmp.data(),
                    acc.tmp_value.data(), acc.tmp_eref.data(), acc.fixup.data());
  acc.finish(gk, exact, to_out);
}

}  // namespace tcsim::models::detail
