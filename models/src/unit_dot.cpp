// Evaluation: one element (dot), batches (dot_batch), block-scaled elements (dot_scaled),
// and the chaining of block FMAs and instructions they share (docs/design.md, Chaining).
#include <algorithm>
#include <exception>
#include <stdexcept>
#include <thread>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "block_scaled.hpp"
#include "pairs_mod4.hpp"
#include "tcsim/sim/fma_lanes.hpp"
#include "unit_groups.hpp"
#include "unit_impl.hpp"

namespace tcsim::models {

using detail::join;

namespace {

// ceil(K/k) block FMAs; the last one padded with +0 products; K = 0 runs one block.
// `to_out` re-encodes a block's result in the output format (the next block's c).
template <class ToOut>
std::uint64_t chain(const FixedPointAdder& adder, std::size_t k, std::span<const std::uint64_t> a,
                    std::span<const std::uint64_t> b, std::uint64_t c, const ToOut& to_out) {
  const std::size_t K = a.size();
  if (K == k) return to_out(adder.dot(a, b, c));
  std::size_t pos = 0;
  do {
    const std::size_t len = std::min(k, K - pos);
    if (len == k) {
      c = to_out(adder.dot(a.subspan(pos, k), b.subspan(pos, k), c));
    } else {
      std::vector<std::uint64_t> pa(k, 0), pb(k, 0);
      std::copy_n(a.begin() + static_cast<std::ptrdiff_t>(pos), len, pa.begin());
      std::copy_n(b.begin() + static_cast<std::ptrdiff_t>(pos), len, pb.begin());
      c = to_out(adder.dot(pa, pb, c));
    }
    pos += len;
  } while (pos < K);
  return c;
}

void check_lengths(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b) {
  if (a.size() != b.size())
    throw std::invalid_argument("a and b must have the same length (one product per pair), got " +
                                std::to_string(a.size()) + " and " + std::to_string(b.size()));
}

}  // namespace

namespace detail {

// Reorders one instruction's products for KSplit::PairsMod4 (a.size() <= group = 2k):
// indices with i mod 4 in {0,1} first, then those in {2,3}, each in index order, padded
// with +0 products to `group` (the instruction's K is fixed), so that the two halves always
// fall into two block FMAs of k.
void split_pairs_mod4(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b, std::size_t group,
                      std::vector<std::uint64_t>& pa, std::vector<std::uint64_t>& pb) {
  pa.clear();
  pb.clear();
  for (std::size_t half = 0; half < 2; ++half)
    for (std::size_t j = 0; j < group; ++j)
      if ((j % 4) / 2 == half) {
        pa.push_back(j < a.size() ? a[j] : 0);
        pb.push_back(j < b.size() ? b[j] : 0);
      }
}

// d + c as one IEEE addition in `out` (CEntry::FinalAdd): exact sum, one rounding.
std::uint64_t ieee_add(const Format& out, std::uint64_t d, std::uint64_t c, Rounding mode, std::uint64_t nan,
                       OverflowMode overflow) {
  const ExactValue x = decode(out, d), y = decode(out, c);
  ExactValue s = exact_add(x, y);
  if (s.is_nan()) return nan;
  // IEEE 754 6.3: an exact zero sum of operands of different signs is -0 only under RD.
  if (s.is_zero() && !(x.is_zero() && y.is_zero() && x.negative == y.negative))
    s = ExactValue::zero(mode == Rounding::Down);
  RoundingOptions o;
  o.mode = mode;
  o.overflow = overflow;
  return round_to_format(s, out, o).bits;
}

}  // namespace detail

using detail::ieee_add;
using detail::split_pairs_mod4;

std::uint64_t Unit::dot(const Format& in, const Format& out, std::span<const std::uint64_t> a,
                        std::span<const std::uint64_t> b, std::uint64_t c, std::string_view instruction) const {
  return dot(in, in, out, a, b, c, instruction);
}

std::uint64_t Unit::dot(const Format& in_a, const Format& in_b, const Format& out, std::span<const std::uint64_t> a,
                        std::span<const std::uint64_t> b, std::uint64_t c, std::string_view instruction) const {
  check_lengths(a, b);
  const InstructionSelection sel = select_instruction(in_a, in_b, out, instruction);
  return dot_in_row(sel.row, in_a, in_b, out, a, b, c, instruction_k(sel));
}

std::uint64_t Unit::dot_in_row(std::size_t i, const Format& in, const Format& in_b, const Format& out,
                               std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                               std::uint64_t c, std::size_t instruction_k) const {
  const DatapathSpec& row = spec_.datapaths[i];
  if (row.block_scale) {
    // A block-scaled row without scales: every scale is 1.
    const Format& sf = impl_->rows[i].scale_formats.front();
    const int bs = row.block_scale->block_sizes.front();
    const std::size_t nscales = (a.size() + static_cast<std::size_t>(bs) - 1) / static_cast<std::size_t>(bs);
    const std::uint64_t one = round_bits(ExactValue::finite(false, 1, 0), sf, Rounding::NearestEven);
    std::vector<std::uint64_t> s(nscales, one);
    return dot_scaled(in, in_b, out, a, b, sf, s, s, c, bs, row.instruction);
  }
  const auto& r = impl_->rows[i];
  const std::size_t o = r.out_index(out);
  const std::size_t k = static_cast<std::size_t>(row.fma_size);
  const FixedPointAdder& adder = r.adder(in, in_b, out);
  auto blocks = [&](std::span<const std::uint64_t> x, std::span<const std::uint64_t> y, std::uint64_t acc) {
    return r.narrow[o] ? chain(adder, k, x, y, acc, [&](std::uint64_t v) { return r.to_out(o, v); })
                       : chain(adder, k, x, y, acc, [](std::uint64_t v) { return v; });
  };
  // One instruction: its products (at most `group`) through the blocks from `acc`.
  const std::size_t group = row.k_split == KSplit::PairsMod4 ? 2 * k : (instruction_k ? instruction_k : k);
  std::vector<std::uint64_t> pa, pb;
  auto instruction_blocks = [&](std::span<const std::uint64_t> x, std::span<const std::uint64_t> y,
                                std::uint64_t acc) {
    if (row.k_split != KSplit::PairsMod4) return blocks(x, y, acc);
    split_pairs_mod4(x, y, group, pa, pb);
    return blocks(pa, pb, acc);
  };
  const std::size_t K = a.size();
  if (row.c_entry == CEntry::Accumulator && row.k_split == KSplit::Consecutive && !instruction_k) return blocks(a, b, c);
  // Instructions in sequence (K = 0 runs one); each one's d is the next one's c.
  const Rounding add_mode = row.c_entry == CEntry::FinalAdd ? row.final_add_rounding.at(out.name) : Rounding::NearestEven;
  std::size_t pos = 0;
  do {
    const std::size_t len = std::min(group, K - pos);
    const auto x = a.subspan(pos, len), y = b.subspan(pos, len);
    if (row.c_entry == CEntry::Accumulator) c = instruction_blocks(x, y, c);
    else c = ieee_add(out, instruction_blocks(x, y, out.zero(false)), c, add_mode, r.nan_out[o], r.overflow);
    pos += len;
  } while (pos < K);
  return c;
}

namespace {

// Runs body(lo, hi) over fixed chunks of elements (their buffers stay in L1/L2) as TBB tasks:
// every element is computed by the same sequence whatever the thread count.
template <class Body>
void for_element_chunks(std::size_t n, unsigned threads, const Body& body) {
  constexpr std::size_t kChunk = 512;
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  auto chunk = [&](std::size_t ch) { body(ch * kChunk, std::min(n, (ch + 1) * kChunk)); };
  if (threads == 1 || chunks <= 1) {
    for (std::size_t ch = 0; ch < chunks; ++ch) chunk(ch);
    return;
  }
  auto loop = [&] { tbb::parallel_for(std::size_t{0}, chunks, chunk); };
  // All cores: the default arena (a task_arena of its own per call costs more than a small batch).
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  if (threads == 0 || threads >= cores) return loop();
  tbb::task_arena arena(static_cast<int>(threads));
  arena.execute(loop);
}

// The chaining of dot_in_row for m elements, one block of all of them at a time:
// run_block(pos, len, c, d) runs the block of products [pos, pos + len) of every element
// (KK products each, instructions of `group`). c: the elements' c, d: their results.
template <class Row, class RunBlock>
void chain_blocks(const DatapathSpec& row, const Row& r, const Format& out, std::size_t m, std::size_t KK,
                  std::size_t group, const std::uint64_t* c, std::uint64_t* d, const RunBlock& run_block) {
  const std::size_t o = r.out_index(out), k = static_cast<std::size_t>(row.fma_size);
  std::vector<std::uint64_t> acc(c, c + m), blk(m), tmp(m);
  const Rounding add_mode = row.c_entry == CEntry::FinalAdd ? row.final_add_rounding.at(out.name) : Rounding::NearestEven;
  const detail::FastAdd add_kind = detail::fast_add_kind(out, add_mode);
  std::size_t start = 0;
  do {  // instructions (K = 0 runs one)
    const std::size_t end = std::min(KK, start + group);
    std::vector<std::uint64_t>& x = row.c_entry == CEntry::FinalAdd ? blk : acc;
    if (row.c_entry == CEntry::FinalAdd) std::fill(blk.begin(), blk.end(), out.zero(false));
    std::size_t pos = start;
    do {  // blocks of k
      const std::size_t len = std::min(k, end - pos);
      run_block(pos, len, x.data(), tmp.data());
      for (std::size_t e = 0; e < m; ++e) x[e] = r.to_out(o, tmp[e]);
      pos += len;
    } while (pos < end);
    if (row.c_entry == CEntry::FinalAdd)
      for (std::size_t e = 0; e < m; ++e)
        acc[e] = detail::final_add(add_kind, out, blk[e], acc[e], add_mode, r.nan_out[o], r.overflow);
    start = end;
  } while (start < KK);
  std::copy(acc.begin(), acc.end(), d);
}

// m elements' operands (a[e * K + t]) product-major as patterns of type T (ta[t * m + e]);
// false when a pattern is wider than T (the caller keeps the element-major path then).
template <class T>
bool product_major(std::size_t m, std::size_t K, const std::uint64_t* a, const std::uint64_t* b, std::vector<T>& ta,
                   std::vector<T>& tb) {
  ta.resize(m * K);
  tb.resize(m * K);
  std::uint64_t wide = 0;
  // Blocks of 16 elements: each reads 16 rows and writes 16 consecutive patterns per product
  // row (issue 25, mxdot: element by element, the strided writes were 39 % of dot_batch's time
  // on mxf4nvf4).
  for (std::size_t e0 = 0; e0 < m; e0 += 16)
    for (std::size_t t = 0; t < K; ++t)
      for (std::size_t e = e0; e < std::min(m, e0 + 16); ++e) {
        const std::uint64_t x = a[e * K + t], y = b[e * K + t];
        wide |= (x | y) >> (8 * sizeof(T));
        ta[t * m + e] = static_cast<T>(x);
        tb[t * m + e] = static_cast<T>(y);
      }
  return wide == 0;
}

}  // namespace

void Unit::dot_batch(const Format& in, const Format& out, std::size_t n, std::size_t K, const std::uint64_t* a,
                     const std::uint64_t* b, const std::uint64_t* c, std::uint64_t* d,
                     std::string_view instruction, unsigned threads) const {
  dot_batch(in, in, out, n, K, a, b, c, d, instruction, threads);
}

void Unit::dot_batch(const Format& in, const Format& in_b, const Format& out, std::size_t n, std::size_t K,
                     const std::uint64_t* a, const std::uint64_t* b, const std::uint64_t* c, std::uint64_t* d,
                     std::string_view instruction, unsigned threads) const {
  const InstructionSelection sel = select_instruction(in, in_b, out, instruction);
  const std::size_t i = sel.row, ik = instruction_k(sel);
  const auto& r = impl_->rows[i];
  const DatapathSpec& row = spec_.datapaths[i];
  const std::size_t pair = r.pair_index(in, in_b, out);
  const BlockKernel* kernel = r.kernels[pair].get();
  const std::size_t o = r.out_index(out), k = static_cast<std::size_t>(row.fma_size);
  auto run_kernel = [&](std::size_t lo, std::size_t hi) {
    const std::size_t m = hi - lo;
    const bool pairs = row.k_split == KSplit::PairsMod4;
    const std::size_t group =
        pairs ? 2 * k : (row.c_entry == CEntry::FinalAdd ? k : (ik ? ik : std::max<std::size_t>(K, 1)));
    // Pairs-mod4: every instruction's products reordered and padded to 2k, as dot_in_row.
    std::vector<std::uint64_t> pa, pb, ga, gb;
    const std::uint64_t *A = a + lo * K, *B = b + lo * K;
    std::size_t lda = K, KK = K;
    if (pairs) {
      KK = std::max<std::size_t>(1, (K + group - 1) / group) * group;
      pa.resize(m * KK);
      pb.resize(m * KK);
      for (std::size_t e = 0; e < m; ++e)
        for (std::size_t s = 0; s < KK; s += group) {
          const std::size_t len = s < K ? std::min(group, K - s) : 0;
          split_pairs_mod4({A + e * K + s, len}, {B + e * K + s, len}, group, ga, gb);
          std::copy(ga.begin(), ga.end(), pa.begin() + static_cast<std::ptrdiff_t>(e * KK + s));
          std::copy(gb.begin(), gb.end(), pb.begin() + static_cast<std::ptrdiff_t>(e * KK + s));
        }
      A = pa.data();
      B = pb.data();
      lda = KK;
    }
    chain_blocks(row, r, out, m, KK, group, c + lo, d + lo,
                 [&](std::size_t pos, std::size_t len, const std::uint64_t* x, std::uint64_t* y) {
                   kernel->run(m, len, A + pos, lda, B + pos, lda, x, y);
                 });
  };
  // tf32 (issue 25): the planar lanes of 32-bit patterns (BlockKernel::run_planar32), each chunk
  // regrouped product-major; a chunk with a pattern wider than 32 bits stays element-major.
  const bool planar32 = kernel && kernel->planar32_supported() && row.k_split != KSplit::PairsMod4;
  auto run_planar32 = [&](std::size_t lo, std::size_t hi) {
    const std::size_t m = hi - lo;
    const std::size_t group = row.c_entry == CEntry::FinalAdd ? k : (ik ? ik : std::max<std::size_t>(K, 1));
    thread_local std::vector<std::uint32_t> ta, tb;
    if (!product_major(m, K, a + lo * K, b + lo * K, ta, tb)) return run_kernel(lo, hi);
    chain_blocks(row, r, out, m, K, group, c + lo, d + lo,
                 [&](std::size_t pos, std::size_t len, const std::uint64_t* x, std::uint64_t* y) {
                   kernel->run_planar32(m, len, len ? ta.data() + pos * m : ta.data(), m,
                                        len ? tb.data() + pos * m : tb.data(), m, x, y);
                 });
  };
  // Pairs-mod4 rows whose kernel has the planar lanes (issue 25): each chunk product-major in
  // 16-bit patterns, the instructions' rows permuted (pairs_mod4.hpp); a chunk with a pattern
  // wider than 16 bits stays on run_kernel.
  const bool pairs_planar = kernel && kernel->planar_supported() && row.k_split == KSplit::PairsMod4;
  auto run_pairs_planar = [&](std::size_t lo, std::size_t hi) {
    const std::size_t m = hi - lo;
    thread_local std::vector<std::uint16_t> ta, tb;
    if (!product_major(m, K, a + lo * K, b + lo * K, ta, tb)) return run_kernel(lo, hi);
    detail::pairs_planar_chunk(r, row, *kernel, out, m, K, ta.data(), tb.data(), m, c + lo, d + lo);
  };
  // Block-scaled rows with group sums, every scale 1 (as dot_in_row): each chunk's operands
  // product-major for the lanes (unit_groups.hpp).
  const BlockKernel* gk = r.group_kernels[pair].get();
  auto run_groups = [&](std::size_t lo, std::size_t hi) {
    const std::uint64_t* ac = a + lo * K;
    const std::uint64_t* bc = b + lo * K;
    const auto& cfg = r.adder(in, out).config();
    const Format& scale_format = r.scale_formats.front();
    const auto group_size = static_cast<std::size_t>(row.block_scale->group_size);
    // Outputs of their own format need no re-encoding (inline, so that the lanes' results are copied).
    auto narrow = [&, same = !r.narrow[o]](std::uint64_t v) { return same ? v : r.to_out(o, v); };
    // The binary32 lanes on the chunk regrouped product-major in 16-bit patterns (issue 25); a
    // chunk with a wider pattern, or a kernel or target without those lanes, takes the binary64 ones.
    thread_local std::vector<std::uint16_t> ta, tb;
    if (product_major(hi - lo, K, ac, bc, ta, tb) &&
        detail::group_chunk_planar(*gk, cfg, scale_format, group_size, k, hi - lo, K, ta.data(), hi - lo, tb.data(),
                                   hi - lo, c + lo, d + lo, narrow))
      return;
    detail::group_chunk(
        *gk, cfg, scale_format, group_size, k, hi - lo, K, [&](std::size_t e, std::size_t t) { return ac[e * K + t]; },
        [&](std::size_t e, std::size_t t) { return bc[e * K + t]; }, c + lo, d + lo, narrow);
  };
  const Binary32TreeKernel* tree = r.trees[pair].get();
  const AfterAddKernel* after = r.afters[pair].get();
  const ExactBlockKernel* exact = r.exacts[pair].get();
  for_element_chunks(n, threads, [&](std::size_t lo, std::size_t hi) {
    if (pairs_planar && hi > lo) return run_pairs_planar(lo, hi);
    if (planar32 && hi > lo) return run_planar32(lo, hi);
    if (kernel && hi > lo) return run_kernel(lo, hi);
    if (gk && hi > lo) return run_groups(lo, hi);
    if (tree && hi > lo) {  // binary32 trees (accumulator rows, products in order; sim ieee_tree_dot.cpp)
      const std::size_t group = ik ? ik : std::max<std::size_t>(K, 1);
      // The chunk's whole chains on SIMD lanes, one element per lane (issue 25).
      return tree->dot_chain(hi - lo, K, group, a + lo * K, b + lo * K, c + lo, d + lo);
    }
    // Exact blocks in 128-bit integers (CDNA1) and c added after the products in int64 (CDNA3):
    // accumulator rows, products in order; the chunk's whole chains on the lanes, many elements
    // per vector (issue 25), else block by block.
    auto amd_chain = [&](const auto& kern) {
      const std::size_t group = ik ? ik : std::max<std::size_t>(K, 1);
      if (kern.lanes_supported()) return kern.dot_chain(hi - lo, K, group, a + lo * K, b + lo * K, c + lo, d + lo);
      chain_blocks(row, r, out, hi - lo, K, group, c + lo, d + lo,
                   [&](std::size_t pos, std::size_t len, const std::uint64_t* x, std::uint64_t* y) {
                     kern.run(hi - lo, len, a + lo * K + pos, K, b + lo * K + pos, K, x, y);
                   });
    };
    if (exact && hi > lo) return amd_chain(*exact);
    if (after && hi > lo) return amd_chain(*after);
    if (r.fma_chains[pair]) {
      const fma_lanes::DefaultFloatEnvironment env;  // std::fma as in the default environment (no FTZ/DAZ)
      for (std::size_t e = lo; e < hi; ++e) d[e] = detail::fma_chain(K, k, a + e * K, 1, b + e * K, 1, c[e], r.nan_out[o], out.width == 32);
      return;
    }
    for (std::size_t e = lo; e < hi; ++e) d[e] = dot_in_row(i, in, in_b, out, {a + e * K, K}, {b + e * K, K}, c[e], ik);
  });
}

void Unit::dot_batch_planar(const Format& in, const Format& out, std::size_t n, std::size_t K, const std::uint16_t* a,
                            const std::uint16_t* b, const std::uint64_t* c, std::uint64_t* d,
                            std::string_view instruction, unsigned threads) const {
  dot_batch_planar(in, in, out, n, K, a, b, c, d, instruction, threads);
}

void Unit::dot_batch_planar(const Format& in, const Format& in_b, const Format& out, std::size_t n, std::size_t K,
                            const std::uint16_t* a, const std::uint16_t* b, const std::uint64_t* c, std::uint64_t* d,
                            std::string_view instruction, unsigned threads) const {
  for (const auto& [f, field] : {std::pair{&in, in == in_b ? "in" : "in_a"}, {&in_b, "in_b"}})
    if (f->width > 16)
      throw std::invalid_argument(std::string(field) + ": dot_batch_planar takes patterns of at most 16 bits; '" +
                                  f->name + "' has " + std::to_string(f->width) + " (use dot_batch)");
  const InstructionSelection sel = select_instruction(in, in_b, out, instruction);
  const std::size_t i = sel.row, ik = instruction_k(sel);
  const auto& r = impl_->rows[i];
  const DatapathSpec& row = spec_.datapaths[i];
  const BlockKernel* kernel = r.kernels[r.pair_index(in, in_b, out)].get();
  const std::size_t k = static_cast<std::size_t>(row.fma_size);
  // Pairs-mod4 rows: the planar lanes on each instruction's rows permuted (pairs_mod4.hpp; issue 25).
  if (kernel && kernel->planar_supported() && row.k_split == KSplit::PairsMod4)
    return for_element_chunks(n, threads, [&](std::size_t lo, std::size_t hi) {
      detail::pairs_planar_chunk(r, row, *kernel, out, hi - lo, K, K ? a + lo : a, K ? b + lo : b, n, c + lo, d + lo);
    });
  // The planar kernel serves rows whose instructions take the products in order.
  const bool planar = kernel && kernel->planar_supported() && row.k_split != KSplit::PairsMod4;
  const std::size_t group = row.c_entry == CEntry::FinalAdd ? k : (ik ? ik : std::max<std::size_t>(K, 1));
  const std::size_t pair = r.pair_index(in, in_b, out);
  const AfterAddKernel* after = kernel ? nullptr : r.afters[pair].get();
  const ExactBlockKernel* exact = kernel ? nullptr : r.exacts[pair].get();
  const Binary32TreeKernel* tree = kernel ? nullptr : r.trees[pair].get();
  const BlockKernel* gk = kernel || in != in_b ? nullptr : r.group_kernels[pair].get();
  const std::size_t o = r.out_index(out);
  const bool tree_planar = tree && K > 0;
  const bool after_planar = !tree && after && after->lanes_supported() && K > 0;
  const bool exact_planar = !tree && !after_planar && exact && exact->lanes_supported() && K > 0;
  // Outputs of their own format need no re-encoding (inline, so that the lanes' results are copied).
  auto narrow = [&, same = !r.narrow[o]](std::uint64_t v) { return same ? v : r.to_out(o, v); };
  for_element_chunks(n, threads, [&](std::size_t lo, std::size_t hi) {
    const std::size_t m = hi - lo;
    if (planar) {
      chain_blocks(row, r, out, m, K, group, c + lo, d + lo,
                   [&](std::size_t pos, std::size_t len, const std::uint64_t* x, std::uint64_t* y) {
                     // K = 0: a and b may be null, and no offset may be added to a null pointer.
                     kernel->run_planar(m, len, len ? a + pos * n + lo : a, n, len ? b + pos * n + lo : b, n, x, y);
                   });
      return;
    }
    // The AMD lanes read product-major patterns directly (issue 25).
    if (tree_planar) return tree->dot_chain_planar(m, K, group, a + lo, b + lo, n, c + lo, d + lo);
    if (after_planar) return after->dot_chain_planar(m, K, group, a + lo, b + lo, n, c + lo, d + lo);
    if (exact_planar) return exact->dot_chain_planar(m, K, group, a + lo, b + lo, n, c + lo, d + lo);
    // Block-scaled rows with group sums read the product-major patterns directly (issue 25).
    if (gk && detail::group_chunk_planar(*gk, r.adder(in, out).config(), r.scale_formats.front(),
                                         static_cast<std::size_t>(row.block_scale->group_size), k, m, K,
                                         K ? a + lo : a, n, K ? b + lo : b, n, c + lo, d + lo, narrow))
      return;
    if (gk)
      return detail::group_chunk(
          *gk, r.adder(in, out).config(), r.scale_formats.front(), static_cast<std::size_t>(row.block_scale->group_size),
          k, m, K, [&](std::size_t e, std::size_t t) { return std::uint64_t{a[t * n + lo + e]}; },
          [&](std::size_t e, std::size_t t) { return std::uint64_t{b[t * n + lo + e]}; }, c + lo, d + lo, narrow);
    // Other rows: the chunk regrouped element-major for dot_batch.
    std::vector<std::uint64_t> ea(m * K), eb(m * K);
    for (std::size_t t = 0; t < K; ++t)
      for (std::size_t e = 0; e < m; ++e) {
        ea[e * K + t] = a[t * n + lo + e];
        eb[e * K + t] = b[t * n + lo + e];
      }
    dot_batch(in, in_b, out, m, K, ea.data(), eb.data(), c + lo, d + lo, instruction, 1);
  });
}

std::uint64_t Unit::dot_scaled(const Format& in, const Format& out, std::span<const std::uint64_t> a,
                               std::span<const std::uint64_t> b, const Format& scale_format,
                               std::span<const std::uint64_t> scale_a, std::span<const std::uint64_t> scale_b,
                               std::uint64_t c, int block_size, std::string_view instruction) const {
  return dot_scaled(in, in, out, a, b, scale_format, scale_a, scale_b, c, block_size, instruction);
}

std::size_t Unit::scaled_row(const Format& in, const Format& in_b, const Format& out, const Format& scale_format,
                             int& block_size, std::string_view instruction) const {
  std::size_t index = datapath_index(in, in_b, out, instruction);
  // "e4m3 x e5m2" for a mixed pair, else the one format's name.
  const std::string operands = in == in_b ? in.name : in.name + " x " + in_b.name;
  if (!spec_.datapaths[index].block_scale) {
    bool found = false;
    if (instruction.empty())
      for (std::size_t i = 0; i < impl_->rows.size(); ++i)
        if (impl_->rows[i].has(in, in_b, out) && spec_.datapaths[i].block_scale) {
          index = i;
          found = true;
          break;
        }
    if (!found) {
      std::vector<std::string> scaled;
      for (std::size_t i = 0; i < impl_->rows.size(); ++i)
        if (impl_->rows[i].has(in, in_b, out) && spec_.datapaths[i].block_scale)
          scaled.push_back(spec_.datapaths[i].instruction);
      throw std::invalid_argument("unit '" + spec_.name + "': the datapath for " + operands + " -> " + out.name +
                                  (instruction.empty() ? "" : " with instruction '" + std::string(instruction) + "'") +
                                  " takes no scale factors; block-scaled instructions for the pair: " +
                                  (scaled.empty() ? std::string("(none)") : join(scaled)));
    }
  }
  const DatapathSpec& row = spec_.datapaths[index];
  const auto& r = impl_->rows[index];
  const BlockScaleSpec& bs = *row.block_scale;
  if (std::find(r.scale_formats.begin(), r.scale_formats.end(), scale_format) == r.scale_formats.end())
    throw std::invalid_argument("scale_format: '" + scale_format.name + "' is not allowed for instruction '" +
                                row.instruction + "'; allowed: " + join(bs.scale_formats));
  if (block_size == 0) block_size = bs.block_sizes.front();
  if (std::find(bs.block_sizes.begin(), bs.block_sizes.end(), block_size) == bs.block_sizes.end()) {
    std::string allowed;
    for (int x : bs.block_sizes) allowed += (allowed.empty() ? "" : ", ") + std::to_string(x);
    throw std::invalid_argument("block_size: " + std::to_string(block_size) + " is not allowed for instruction '" +
                                row.instruction + "'; allowed: " + allowed);
  }
  return index;
}

std::uint64_t Unit::dot_scaled(const Format& in, const Format& in_b, const Format& out,
                               std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                               const Format& scale_format, std::span<const std::uint64_t> scale_a,
                               std::span<const std::uint64_t> scale_b, std::uint64_t c, int block_size,
                               std::string_view instruction) const {
  check_lengths(a, b);
  const std::size_t index = scaled_row(in, in_b, out, scale_format, block_size, instruction);
  const DatapathSpec& row = spec_.datapaths[index];
  const auto& r = impl_->rows[index];
  const BlockScaleSpec& bs = *row.block_scale;
  const std::size_t K = a.size(), B = static_cast<std::size_t>(block_size);
  const std::size_t nscales = (K + B - 1) / B;
  if (scale_a.size() != nscales || scale_b.size() != nscales)
    throw std::invalid_argument("scale_a and scale_b must hold ceil(K / " + std::to_string(B) + ") = " +
                                std::to_string(nscales) + " scale factors each, got " +
                                std::to_string(scale_a.size()) + " and " + std::to_string(scale_b.size()));
  const FixedPointAdder& adder = r.adder(in, in_b, out);
  const std::size_t k = static_cast<std::size_t>(row.fma_size);
  const std::uint64_t one = round_bits(ExactValue::finite(false, 1, 0), scale_format, Rounding::NearestEven);
  std::size_t pos = 0;
  std::vector<std::uint64_t> pa(k), pb(k), sa(k), sb(k);
  do {
    const std::size_t len = std::min(k, K - pos);
    for (std::size_t t = 0; t < k; ++t) {
      const bool real = t < len;
      pa[t] = real ? a[pos + t] : 0;
      pb[t] = real ? b[pos + t] : 0;
      sa[t] = real ? scale_a[(pos + t) / B] : one;
      sb[t] = real ? scale_b[(pos + t) / B] : one;
    }
    c = r.to_out(r.out_index(out), detail::scaled_block_fma(adder.config(), bs.group_size, scale_format, pa, pb, sa, sb, c));
    pos += len;
  } while (pos < K);
  return c;
}


}  // namespace tcsim::models
