// Private to models/src: block-scaled rows with group sums (BlockScaleSpec::group_size > 0)
// on the kernel's lanes (BlockKernel::run_row_groups), every scale 1 as dot_in_row takes them:
// the chaining of dot_scaled (blocks of k from c, the last one padded with +0 products) for
// w elements at once. Elements the lanes flag are computed by the block-scaled reference.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
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
  std::vector<float> tile_value;
  std::vector<std::int32_t> tile_eref;
  // c[0..w) as the accumulators' start. c_binary32: c's format lies inside binary32 (every value
  // exact there), so that the tiles' vector decode serves (issue 25, mxdot: the scalar decode
  // of c was about a fifth of dot_batch_planar's time on mxf4nvf4).
  void start(const BlockKernel& gk, std::size_t w, const std::uint64_t* c, bool c_binary32 = false) {
    bits.assign(c, c + w);
    for (auto* v : {&value, &eref, &tmp_value, &tmp_eref}) v->resize(w);
    tmp.resize(w);
    fixup.resize(w);
    if (!c_binary32) return gk.decode(BlockKernel::Role::C, w, bits.data(), value.data(), eref.data());
    tile_value.resize(w);
    tile_eref.resize(w);
    gk.decode_tile(BlockKernel::Role::C, w, bits.data(), tile_value.data(), tile_eref.data());
    // As decode: zeros carry decode's e_ref of +0 (pattern 0), NaN/Inf and wide patterns (NaN
    // values here) a NaN value with e_ref 0, others their value and e_ref.
    double zero_value = 0, zero_eref = 0;
    const std::uint64_t zero = 0;
    gk.decode(BlockKernel::Role::C, 1, &zero, &zero_value, &zero_eref);
    for (std::size_t j = 0; j < w; ++j) {
      const float v = tile_value[j];
      value[j] = std::isnan(v) ? std::numeric_limits<double>::quiet_NaN() : (v == 0 ? 0.0 : static_cast<double>(v));
      eref[j] = std::isnan(v) ? 0.0 : (v == 0 ? zero_eref : static_cast<double>(tile_eref[j]));
    }
  }
  // After the lanes wrote tmp, tmp_value, tmp_eref and fixup: the flagged elements by
  // exact(j, c), every result through to_out, the decoded results the next c.
  template <class Exact, class ToOut>
  void finish(const BlockKernel& gk, const Exact& exact, const ToOut& to_out) {
    // The lanes' results first, in a loop of its own (plain pointers, no call where to_out is
    // inline: issue 25, dotf4), then the flagged elements from their c, still in bits.
    const std::size_t w = bits.size();
    std::uint64_t* out = bits.data();
    const std::uint64_t* lane = tmp.data();
    const std::uint8_t* flagged = fixup.data();
    std::uint8_t any = 0;
    for (std::size_t j = 0; j < w; ++j) {  // without a branch: vectorized where to_out is the identity
      any |= flagged[j];
      out[j] = flagged[j] ? out[j] : to_out(lane[j]);
    }
    for (std::size_t j = 0; any && j < w; ++j) {
      if (!flagged[j]) continue;
      out[j] = to_out(exact(j, out[j]));
      gk.decode(BlockKernel::Role::C, 1, out + j, tmp_value.data() + j, tmp_eref.data() + j);
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

// The group lanes' operand values through a table of every pattern of a format of at most 8 bits
// (e2m1: 16 entries), built per call; other patterns (bits above the width) by decode (issue
// 25: the scalar decode of every operand was most of dot_batch's time on these rows).
class GroupValueTable {
 public:
  GroupValueTable(const BlockKernel& gk, BlockKernel::Role role, int width) : gk_(gk), role_(role) {
    if (width > 8) return;
    std::vector<std::uint64_t> bits(std::size_t{1} << width);
    for (std::size_t x = 0; x < bits.size(); ++x) bits[x] = x;
    value_.resize(bits.size());
    std::vector<double> eref(bits.size());
    gk.decode(role, bits.size(), bits.data(), value_.data(), eref.data());
  }
  // Entries of the table (0 where the format is wider than 8 bits): patterns below it index
  // table() directly.
  std::size_t size() const { return value_.size(); }
  const double* table() const { return value_.data(); }
  double operator()(std::uint64_t bits) const {
    if (bits < value_.size()) return value_[bits];
    double v = 0, e = 0;
    gk_.decode(role_, 1, &bits, &v, &e);
    return v;
  }

 private:
  const BlockKernel& gk_;
  BlockKernel::Role role_;
  std::vector<double> value_;
};

// m elements of a block-scaled row with group sums, every scale 1 (dot_batch and
// dot_batch_planar): operand t of element e is a_at(e, t), b_at(e, t) (patterns); decoded
// product-major, the blocks of k on the group lanes from c[0..m), flagged elements by the
// block-scaled reference on their gathered patterns; results (through to_out) into d.
template <class AAt, class BAt, class ToOut>
void group_chunk(const BlockKernel& gk, const AdderConfig& cfg, const Format& scale_format, std::size_t group,
                 std::size_t k, std::size_t m, std::size_t K, const AAt& a_at, const BAt& b_at, const std::uint64_t* c,
                 std::uint64_t* d, const ToOut& to_out) {
  const GroupValueTable ta(gk, BlockKernel::Role::A, cfg.a_format.width), tb(gk, BlockKernel::Role::B, cfg.b_format.width);
  thread_local std::vector<double> av, bv;
  av.resize(m * K);
  bv.resize(m * K);
  for (std::size_t t = 0; t < K; ++t) {
    // Patterns inside both tables (every valid one of e2m1): plain indexed loads, which the
    // compiler vectorizes (issue 25: the per-pattern branch was most of dot_batch's time). The
    // tables hold 2^width entries: every pattern is below that iff their OR is.
    std::uint64_t any = 0;
    for (std::size_t e = 0; e < m; ++e) any |= a_at(e, t) | b_at(e, t);
    if (ta.size() != 0 && any < std::min(ta.size(), tb.size())) {
      const double *xa = ta.table(), *xb = tb.table();
      for (std::size_t e = 0; e < m; ++e) {
        av[t * m + e] = xa[a_at(e, t)];
        bv[t * m + e] = xb[b_at(e, t)];
      }
      continue;
    }
    for (std::size_t e = 0; e < m; ++e) {
      av[t * m + e] = ta(a_at(e, t));
      bv[t * m + e] = tb(b_at(e, t));
    }
  }
  thread_local GroupAccumulators acc;
  acc.start(gk, m, c);
  std::size_t pos = 0;
  do {  // blocks of k, as dot_scaled (K = 0 runs one; no operand is read then)
    const std::size_t len = std::min(k, K - pos);
    group_block(gk, group, len, m, av.data() + pos * m, false, bv.data() + pos * m, m, acc,
                [&](std::size_t e, std::uint64_t x) {
                  thread_local std::vector<std::uint64_t> pa, pb;
                  pa.resize(std::max<std::size_t>(len, 1));
                  pb.resize(std::max<std::size_t>(len, 1));
                  for (std::size_t t = 0; t < len; ++t) {
                    pa[t] = a_at(e, pos + t);
                    pb[t] = b_at(e, pos + t);
                  }
                  return unit_scaled_block(cfg, static_cast<int>(group), scale_format, k, len, pa.data(), 1,
                                           pb.data(), 1, x);
                },
                to_out);
    pos += len;
  } while (pos < K);
  std::copy(acc.bits.begin(), acc.bits.end(), d);
}

// Whether group_chunk_planar runs on this kernel and machine (Unit::batch_path).
inline bool groups_planar_run(const BlockKernel& gk, const AdderConfig& cfg, std::size_t group) {
  const GroupValueTable ta(gk, BlockKernel::Role::A, cfg.a_format.width), tb(gk, BlockKernel::Role::B, cfg.b_format.width);
  return ta.size() != 0 && tb.size() != 0 &&
         gk.run_groups_planar(0, 0, group, ta.table(), tb.table(), nullptr, 0, nullptr, 0, nullptr, nullptr, 0, nullptr,
                              nullptr, nullptr, nullptr, nullptr, nullptr);
}

// group_chunk on 16-bit patterns product-major, operand t of element e at a[t * lda + e], b[t * ldb +
// e], in binary32 lanes (BlockKernel::run_groups_planar; issue 25: the binary64 lanes' decode
// into planes of doubles bounded dot_batch of mxf4nvf4 at 2.4e7 elements/s). Returns false,
// writing nothing, where those lanes cannot run (group_chunk then runs).
template <class ToOut>
bool group_chunk_planar(const BlockKernel& gk, const AdderConfig& cfg, const Format& scale_format, std::size_t group,
                        std::size_t k, std::size_t m, std::size_t K, const std::uint16_t* a, std::size_t lda,
                        const std::uint16_t* b, std::size_t ldb, const std::uint64_t* c, std::uint64_t* d,
                        const ToOut& to_out) {
  const GroupValueTable ta(gk, BlockKernel::Role::A, cfg.a_format.width), tb(gk, BlockKernel::Role::B, cfg.b_format.width);
  if (ta.size() == 0 || tb.size() == 0) return false;
  thread_local GroupAccumulators acc;
  const Format& cf = cfg.c_format;
  acc.start(gk, m, c,
            cf.precision <= 24 && cf.emax <= 127 && cf.emin >= -126 && cf.emin - (cf.precision - 1) >= -149 &&
                cf.width <= 32);
  std::size_t pos = 0;
  do {  // blocks of k, as dot_scaled (K = 0 runs one; no operand is read then)
    const std::size_t len = std::min(k, K - pos);
    if (!gk.run_groups_planar(m, len, group, ta.table(), tb.table(), a + (len ? pos * lda : 0), lda,
                              b + (len ? pos * ldb : 0), ldb, nullptr, nullptr, 0, acc.value.data(), acc.eref.data(),
                              acc.tmp.data(), acc.tmp_value.data(), acc.tmp_eref.data(), acc.fixup.data()))
      return false;  // the first block only: the answer depends on the kernel, not on the data
    acc.finish(gk,
               [&](std::size_t e, std::uint64_t x) {
                 thread_local std::vector<std::uint64_t> pa, pb;
                 pa.resize(std::max<std::size_t>(len, 1));
                 pb.resize(std::max<std::size_t>(len, 1));
                 for (std::size_t t = 0; t < len; ++t) {
                   pa[t] = a[(pos + t) * lda + e];
                   pb[t] = b[(pos + t) * ldb + e];
                 }
                 return unit_scaled_block(cfg, static_cast<int>(group), scale_format, k, len, pa.data(), 1, pb.data(),
                                          1, x);
               },
               to_out);
    pos += len;
  } while (pos < K);
  std::copy(acc.bits.begin(), acc.bits.end(), d);
  return true;
}

}  // namespace tcsim::models::detail
