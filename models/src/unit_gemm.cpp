// Unit::gemm: D = C + A B through the unit, blocked over rows of A and panels of B's columns.
//
// Packing (once per call): the k index of A's columns and B's rows is reordered per
// instruction for pairs-mod4 rows and padded to whole instructions, exactly as dot_in_row
// orders one element's products; then every operand is decoded for the kernel's lanes.
// A task is one row of A against a panel of columns: it walks the instructions and blocks
// of K in order, the accumulator of each column staying decoded between blocks. Tasks are
// independent, so the partition (TBB) cannot change any bit.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <new>

#include <stdexcept>
#include <type_traits>
#include <vector>

#include "gemm_tasks.hpp"
#include "pairs_mod4.hpp"
#include "panel_buffer.hpp"
#include "unit_gemm_fma.hpp"
#include "unit_groups.hpp"
#include "unit_impl.hpp"

namespace tcsim::models {

namespace {

constexpr std::size_t kPanel = 256;  // columns per task: B's panel of a block stays in L1/L2
constexpr std::size_t kTaskRows = 16;  // rows of A per tile task

using detail::PanelBuffer;  // panel_buffer.hpp: uninitialized, huge pages, kept by the thread
using detail::run_tasks;    // gemm_tasks.hpp
using detail::TileState;

void check_size(const char* what, std::size_t got, std::size_t want, const char* dims) {
  if (got != want)
    throw std::invalid_argument(std::string("gemm: ") + what + " must hold " + dims + " = " + std::to_string(want) +
                                " patterns, got " + std::to_string(got));
}

// The final addition of the c_entry final-add rows (detail::ieee_add): for binary32 outputs
// rounded to nearest even (the Hopper/Blackwell fp8 emulation) the host's binary32 addition
// is that addition (IEEE 754, default environment: round to nearest even, subnormals kept, an
// exact zero sum +0 unless both are -0) wherever the sum is finite; a finite sum also means
// finite operands. NaN, Inf and overflow take ieee_add (NaN pattern, overflow mode).
std::uint64_t add_c_finally(const Format& out, bool binary32_rne, std::uint64_t d, std::uint64_t c, Rounding mode,
                            std::uint64_t nan, OverflowMode overflow) {
  if (binary32_rne) {
    const float s = std::bit_cast<float>(static_cast<std::uint32_t>(d)) + std::bit_cast<float>(static_cast<std::uint32_t>(c));
    if (std::isfinite(s)) return std::bit_cast<std::uint32_t>(s);
  }
  return detail::ieee_add(out, d, c, mode, nan, overflow);
}

}  // namespace

std::vector<std::uint64_t> Unit::gemm(const Format& in, const Format& out, std::size_t m, std::size_t n,
                                      std::size_t K, std::span<const std::uint64_t> A,
                                      std::span<const std::uint64_t> B, std::span<const std::uint64_t> C,
                                      std::string_view instruction, unsigned threads) const {
  std::vector<std::uint64_t> D(m * n);
  gemm_into(in, out, m, n, K, A, B, C, D, instruction, threads);
  return D;
}

void Unit::gemm_into(const Format& in, const Format& out, std::size_t m, std::size_t n, std::size_t K,
                     std::span<const std::uint64_t> A, std::span<const std::uint64_t> B,
                     std::span<const std::uint64_t> C, std::span<std::uint64_t> D, std::string_view instruction,
                     unsigned threads) const {
  gemm_into(in, in, out, m, n, K, A, B, C, D, instruction, threads);
}

void Unit::gemm_into(const Format& in, const Format& in_b, const Format& out, std::size_t m, std::size_t n,
                     std::size_t K, std::span<const std::uint64_t> A, std::span<const std::uint64_t> B,
                     std::span<const std::uint64_t> C, std::span<std::uint64_t> D, std::string_view instruction,
                     unsigned threads) const {
  const InstructionSelection sel = select_instruction(in, in_b, out, instruction);
  const std::size_t ri = sel.row, ik = instruction_k(sel);
  check_size("A", A.size(), m * K, "m*K");
  check_size("B", B.size(), K * n, "K*n");
  check_size("C", C.size(), m * n, "m*n");
  check_size("D", D.size(), m * n, "m*n");
  if (m == 0 || n == 0) return;
  const auto& r = impl_->rows[ri];
  const DatapathSpec& row = spec_.datapaths[ri];
  const BlockKernel* kernel = r.kernels[r.pair_index(in, in_b, out)].get();
  const std::size_t panels = (n + kPanel - 1) / kPanel;

  if (!kernel && r.fma_chains[r.pair_index(in, in_b, out)]) {  // binary64/32 FMA chains (detail::is_fma_chain)
    // Each element's chain in index order (as detail::fma_chain), in SIMD lanes (unit_gemm_fma.hpp).
    detail::gemm_fma_chain(out.width == 32, static_cast<std::size_t>(row.fma_size), m, n, K, A.data(), B.data(),
                           C.data(), D.data(), r.nan_out[r.out_index(out)], threads);
    return;
  }
  if (const Binary32TreeKernel* tree = r.trees[r.pair_index(in, in_b, out)].get(); !kernel && tree) {
    // Binary32 trees (AMD CDNA2): operands decoded once into binary32, B's columns padded to a
    // multiple of 16 with +0; a task's accumulators stay binary32 over the whole chain.
    const std::size_t n_pad = (n + 15) / 16 * 16;
    const std::size_t group = ik ? ik : std::max<std::size_t>(K, 1);
    PanelBuffer<float> Af(m * K), Bf(K * n_pad);
    tree->decode_operands(m * K, A.data(), Af.get());
    for (std::size_t t = 0; t < K; ++t) {
      tree->decode_operands(n, B.data() + t * n, Bf.get() + t * n_pad);
      std::fill(Bf.get() + t * n_pad + n, Bf.get() + (t + 1) * n_pad, 0.0f);
    }
    const std::size_t row_blocks = (m + kTaskRows - 1) / kTaskRows, col_blocks = (n_pad + kPanel - 1) / kPanel;
    run_tasks(threads, row_blocks, col_blocks, [&](std::size_t ib, std::size_t p) {
      const std::size_t i0 = ib * kTaskRows, rows = std::min(m, i0 + kTaskRows) - i0;
      const std::size_t j0 = p * kPanel, w = std::min(n_pad, j0 + kPanel) - j0;
      const std::size_t valid = j0 < n ? std::min(n, j0 + w) - j0 : 0;
      thread_local std::vector<float> acc;
      acc.assign(rows * w, 0.0f);
      for (std::size_t rr = 0; rr < rows; ++rr)
        for (std::size_t j = 0; j < valid; ++j) acc[rr * w + j] = tree->decode_c(C[(i0 + rr) * n + j0 + j]);
      tree->run_chain(rows, w, K, group, Af.get() + i0 * K, K, Bf.get() + j0, n_pad, acc.data(), w);
      for (std::size_t rr = 0; rr < rows; ++rr)
        for (std::size_t j = 0; j < valid; ++j) D[(i0 + rr) * n + j0 + j] = tree->encode(acc[rr * w + j]);
    });
    return;
  }
  if (const AfterAddKernel* after = r.afters[r.pair_index(in, in_b, out)].get(); !kernel && after) {
    // c added after the products (AMD CDNA3) on operands decoded once: SIMD lanes, else element by
    // element in int64.
    const std::size_t group = ik ? ik : std::max<std::size_t>(K, 1), k = static_cast<std::size_t>(row.fma_size);
    if (after->lanes_supported()) {  // SIMD lanes across columns (sim amd_lanes.hpp), tiles of rows x panel
      auto ops = after->gemm_operands(m, n, K, A.data(), B.data(), false);
      // Two-group rows: their spreads and pair operands per row group and column strip (mi300g).
      run_tasks(threads, after->gemm_spread_parts(ops), 1, [&](std::size_t p, std::size_t) { after->gemm_spreads(ops, p); });
      run_tasks(threads, (m + kTaskRows - 1) / kTaskRows, panels, [&](std::size_t ib, std::size_t p) {
        const std::size_t i0 = ib * kTaskRows, j0 = p * kPanel;
        after->gemm_tile(ops, i0, std::min(m, i0 + kTaskRows) - i0, j0, std::min(n, j0 + kPanel) - j0, group,
                         C.data(), D.data());
      });
      return;
    }
    // B decoded column by column (Bd[j * K + t]): each element's chain reads contiguous operands.
    std::vector<AfterAddKernel::Operand> Ad(m * K), Bd(K * n), row_buf(n);
    after->decode_a(m * K, A.data(), Ad.data());
    for (std::size_t t = 0; t < K; ++t) {
      after->decode_b(n, B.data() + t * n, row_buf.data());
      for (std::size_t j = 0; j < n; ++j) Bd[j * K + t] = row_buf[j];
    }
    run_tasks(threads, m, panels, [&](std::size_t i, std::size_t p) {
      for (std::size_t j = p * kPanel; j < std::min(n, (p + 1) * kPanel); ++j) {
        std::uint64_t acc = C[i * n + j];
        std::size_t start = 0;
        do {  // instructions (K = 0 runs one), blocks of k
          const std::size_t end = std::min(K, start + group);
          std::size_t pos = start;
          do {
            const std::size_t len = std::min(k, end - pos);
            acc = after->block(len, K ? Ad.data() + i * K + pos : Ad.data(), 1, K ? Bd.data() + j * K + pos : Bd.data(), 1, acc);
            pos += len;
          } while (pos < end);
          start = end;
        } while (start < K);
        D[i * n + j] = acc;
      }
    });
    return;
  }
  if (const ExactBlockKernel* exact = r.exacts[r.pair_index(in, in_b, out)].get(); !kernel && exact) {
    // Exact blocks (AMD CDNA1) on operands decoded once: SIMD lanes, else element by element in
    // 128-bit integers.
    const std::size_t group = ik ? ik : std::max<std::size_t>(K, 1), k = static_cast<std::size_t>(row.fma_size);
    if (exact->lanes_supported()) {  // SIMD lanes across columns (sim amd_lanes.hpp), tiles of rows x panel
      auto ops = exact->gemm_operands_alloc(m, n, K, A.data(), B.data());
      run_tasks(threads, exact->gemm_operand_parts(ops), 1, [&](std::size_t p, std::size_t) { exact->gemm_operand_part(ops, p); });
      run_tasks(threads, (m + kTaskRows - 1) / kTaskRows, panels, [&](std::size_t ib, std::size_t p) {
        const std::size_t i0 = ib * kTaskRows, j0 = p * kPanel;
        exact->gemm_tile(ops, i0, std::min(m, i0 + kTaskRows) - i0, j0, std::min(n, j0 + kPanel) - j0, group,
                         C.data(), D.data());
      });
      return;
    }
    // B (decoded and as patterns) column by column: each element's chain reads contiguous operands.
    std::vector<ExactBlockKernel::Operand> Ad(m * K), Bd(K * n), row_buf(n);
    std::vector<std::uint64_t> Bt(K * n);
    exact->decode_a(m * K, A.data(), Ad.data());
    for (std::size_t t = 0; t < K; ++t) {
      exact->decode_b(n, B.data() + t * n, row_buf.data());
      for (std::size_t j = 0; j < n; ++j) Bd[j * K + t] = row_buf[j], Bt[j * K + t] = B[t * n + j];
    }
    run_tasks(threads, m, panels, [&](std::size_t i, std::size_t p) {
      for (std::size_t j = p * kPanel; j < std::min(n, (p + 1) * kPanel); ++j) {
        std::uint64_t acc = C[i * n + j];
        std::size_t start = 0;
        do {  // instructions (K = 0 runs one), blocks of k
          const std::size_t end = std::min(K, start + group);
          std::size_t pos = start;
          do {
            const std::size_t len = std::min(k, end - pos);
            const std::size_t ia = K ? i * K + pos : 0, ib = K ? j * K + pos : 0;
            acc = exact->block(len, Ad.data() + ia, A.data() + ia, 1, Bd.data() + ib, Bt.data() + ib, 1, acc);
            pos += len;
          } while (pos < end);
          start = end;
        } while (start < K);
        D[i * n + j] = acc;
      }
    });
    return;
  }
  if (const BlockKernel* gk = r.group_kernels[r.pair_index(in, in_b, out)].get()) {
    // Block-scaled rows with group sums, every scale 1 (as dot_in_row): A and B decoded once
    // into binary64 values, each output chained over blocks of k (unit_groups.hpp).
    const std::size_t k = static_cast<std::size_t>(row.fma_size), o = r.out_index(out);
    const int group = row.block_scale->group_size;
    const AdderConfig& cfg = r.adder(in, out).config();
    const Format& sf = r.scale_formats.front();
    PanelBuffer<double> Av(m * K), Bv(K * n), Ae(m * K), Be(K * n);
    gk->decode(BlockKernel::Role::A, m * K, A.data(), Av.get(), Ae.get());
    gk->decode(BlockKernel::Role::B, K * n, B.data(), Bv.get(), Be.get());
    // Tasks of kTaskRows rows x kPanel columns, blocks outermost: a block's slice of B's panel
    // (k x kPanel decoded values) stays in L2 for every row of the task.
    const std::size_t row_blocks = (m + kTaskRows - 1) / kTaskRows;
    run_tasks(threads, row_blocks, panels, [&](std::size_t ib, std::size_t p) {
      const std::size_t i0 = ib * kTaskRows, rows = std::min(m, i0 + kTaskRows) - i0;
      const std::size_t j0 = p * kPanel, w = std::min(n, j0 + kPanel) - j0;
      thread_local std::vector<detail::GroupAccumulators> acc(kTaskRows);
      for (std::size_t rr = 0; rr < rows; ++rr) acc[rr].start(*gk, w, C.data() + (i0 + rr) * n + j0);
      std::size_t pos = 0;
      do {  // blocks of k, as dot_scaled (K = 0 runs one; no operand is read then)
        const std::size_t len = std::min(k, K - pos);
        for (std::size_t rr = 0; rr < rows; ++rr) {
          const std::size_t i = i0 + rr;
          detail::group_block(
              *gk, static_cast<std::size_t>(group), len, w, len ? Av.get() + i * K + pos : Av.get(), true,
              len ? Bv.get() + pos * n + j0 : Bv.get(), n, acc[rr],
              [&](std::size_t j, std::uint64_t c) {
                return len ? detail::unit_scaled_block(cfg, group, sf, k, len, A.data() + i * K + pos, 1,
                                                       B.data() + pos * n + j0 + j, n, c)
                           : detail::unit_scaled_block(cfg, group, sf, k, 0, nullptr, 1, nullptr, n, c);
              },
              [&](std::uint64_t v) { return r.to_out(o, v); });
        }
        pos += len;
      } while (pos < K);
      for (std::size_t rr = 0; rr < rows; ++rr)
        std::copy(acc[rr].bits.begin(), acc[rr].bits.end(), D.begin() + static_cast<std::ptrdiff_t>((i0 + rr) * n + j0));
    });
    return;
  }
  if (!kernel) {  // the reference path, element by element
    run_tasks(threads, m, panels, [&](std::size_t i, std::size_t p) {
      std::vector<std::uint64_t> column(K);
      for (std::size_t j = p * kPanel; j < std::min(n, (p + 1) * kPanel); ++j) {
        for (std::size_t t = 0; t < K; ++t) column[t] = B[t * n + j];
        D[i * n + j] = dot_in_row(ri, in, in_b, out, A.subspan(i * K, K), column, C[i * n + j], ik);
      }
    });
    return;
  }

  // Packing: the k order of one element in dot_in_row, shared by every row and column.
  const std::size_t k = static_cast<std::size_t>(row.fma_size);
  const bool pairs = row.k_split == KSplit::PairsMod4;
  const bool final_add = row.c_entry == CEntry::FinalAdd;
  const std::size_t group = pairs ? 2 * k : (final_add ? k : (ik ? ik : std::max<std::size_t>(K, 1)));
  std::size_t KK = K;
  std::vector<std::size_t> order;  // packed position -> source index (K = padding, a +0 product)
  if (pairs) {
    KK = std::max<std::size_t>(1, (K + group - 1) / group) * group;
    for (std::size_t s = 0; s < KK; s += group)
      for (std::size_t half = 0; half < 2; ++half)
        for (std::size_t j = 0; j < group; ++j)
          if ((j % 4) / 2 == half) order.push_back(s + j < K ? s + j : K);
  } else {
    for (std::size_t t = 0; t < K; ++t) order.push_back(t);
  }
  // A and B as given where the order is the identity and B's rows need no padding to whole
  // tiles; packed copies otherwise.
  const bool tiles = kernel->tile_supported();
  const std::size_t TC = tiles ? kernel->tile_columns() : 1, ldb = (n + TC - 1) / TC * TC;
  // Uninitialized panel buffers (huge pages where large): every entry is written once, so no
  // zero fill and few page faults (the packing of the pairs-mod4 rows cost a third of their
  // GEMM in std::vector's fill and 4 KiB faults; issue 25).
  std::unique_ptr<PanelBuffer<std::uint64_t>> A_packed, B_packed;
  const std::uint64_t* Ab = A.data();
  const std::uint64_t* Bb = B.data();
  if (pairs) {
    A_packed = std::make_unique<PanelBuffer<std::uint64_t>>(m * KK);
    std::uint64_t* ap = A_packed->get();
    for (std::size_t i = 0; i < m; ++i) {
      const std::uint64_t* src = A.data() + i * K;
      std::uint64_t* dst = ap + i * KK;
      for (std::size_t t = 0; t < KK; ++t) dst[t] = order[t] < K ? src[order[t]] : 0;
    }
    Ab = ap;
  }
  if (pairs || ldb != n) {
    B_packed = std::make_unique<PanelBuffer<std::uint64_t>>(KK * ldb);
    std::uint64_t* bp = B_packed->get();
    for (std::size_t t = 0; t < KK; ++t) {
      std::uint64_t* dst = bp + t * ldb;
      if (order[t] < K)
        std::copy_n(B.data() + order[t] * n, n, dst);
      else
        std::fill_n(dst, n, std::uint64_t{0});
      std::fill(dst + n, dst + ldb, std::uint64_t{0});
    }
    Bb = bp;
  }
  const std::size_t o = r.out_index(out);
  const Rounding add_mode = final_add ? row.final_add_rounding.at(out.name) : Rounding::NearestEven;
  const bool binary32_rne = out == formats::fp32() && add_mode == Rounding::NearestEven;
  // Final additions in SIMD lanes for binary32 and binary16 outputs rounded to nearest even.
  const detail::FastAdd add_kind = final_add ? detail::fast_add_kind(out, add_mode) : detail::FastAdd::None;
  const bool lane_add = add_kind != detail::FastAdd::None;
  const std::uint64_t zero = out.zero(false);

  if (kernel->tile_supported()) {
    // A narrow block result re-encoded in `out` (Impl::to_out) without its per-call checks
    // where the two formats share sign, exponent field and bias (the 13-bit binary32 results
    // of Ada and Hopper fp8): the fields move up together; NaN patterns and bits outside the
    // narrow width take to_out.
    std::uint64_t n_width_mask = 0, n_sign = 0, n_inf = 0;
    int n_shift = -1, o_sign_shift = 0;
    if (const std::optional<Format>& nf = r.narrow[o];
        nf && out.nan == NanEncoding::Ieee && nf->exponent_bits == out.exponent_bits && nf->bias == out.bias) {
      n_width_mask = nf->width_mask();
      n_sign = nf->sign_mask();
      n_inf = ((std::uint64_t{1} << nf->exponent_bits) - 1) << nf->fraction_bits;
      o_sign_shift = out.width - nf->width;  // the sign bit moves up with the fraction
      n_shift = out.fraction_bits - nf->fraction_bits;
    }
    // Rows of narrow results into `out`: branch-free over the row, to_out for a row that holds
    // a NaN or bits outside the narrow width (the constants are copies: no reloads per element).
    auto widen_row = [=, &r](const std::uint64_t* __restrict src, std::uint64_t* __restrict dst, std::size_t count) {
      std::uint64_t odd = 0;
      for (std::size_t j = 0; j < count; ++j) {
        const std::uint64_t bits = src[j], rest = bits & ~n_sign;
        odd |= (bits & ~n_width_mask) | static_cast<std::uint64_t>(rest > n_inf);
        dst[j] = ((bits & n_sign) << (o_sign_shift & 63)) | (rest << (n_shift & 63));
      }
      if (n_shift < 0 || odd)
        for (std::size_t j = 0; j < count; ++j) dst[j] = r.to_out(o, src[j]);
    };
    // Tiles of kTaskRows rows x kPanel columns: B's block slice is reused from L1 by every row.
    const std::size_t n_pad = ldb;
    // Issue 25 (h100g): for the plain tile chains, B also strip-major (each strip of TC columns
    // over KK contiguous): a chain walks a strip row by row, and at a row stride of n_pad (4 KiB
    // for n = 1024) the rows missed L1 and the prefetchers. Where the chain takes every micro-tile
    // (tile_chain_supported), B is decoded only into its strips (session 39: the row-major
    // decode and its copy were 3-5 % of an h100 fp16 GEMM at n = 1024), and the blocks that
    // stop a chain read their B patterns through a copy at the strips' stride.
    const bool strip_chain = !final_add && !pairs && KK > 0 && (group % k == 0 || group >= KK);
    const bool strips_only = strip_chain && kernel->tile_chain_supported(KK, k);
    const std::size_t strips = n_pad / TC, strip_stride = KK * TC;
    // Decoded once, uninitialized (every entry is written).
    PanelBuffer<float> Af(m * KK), Bf(strips_only ? 0 : KK * n_pad);
    PanelBuffer<std::int16_t> Ae(m * KK), Be(strips_only ? 0 : KK * n_pad);
    // In parallel, in pieces of 2^16 entries (one thread's decode was 4 % of an h100 fp16 GEMM's
    // time at n = 1024 while the other cores waited; session 38): element by element, so the
    // pieces cannot change a bit.
    auto decode_parallel = [&](BlockKernel::Role role, std::size_t count, const std::uint64_t* src, float* value,
                               std::int16_t* eref) {
      constexpr std::size_t kPiece = std::size_t{1} << 16;
      run_tasks(threads, (count + kPiece - 1) / kPiece, 1, [&](std::size_t q, std::size_t) {
        const std::size_t at = q * kPiece;
        kernel->decode_tile(role, std::min(count, at + kPiece) - at, src + at, value + at, eref + at);
      });
    };
    decode_parallel(BlockKernel::Role::A, m * KK, Ab, Af.get(), Ae.get());
    if (!strips_only) decode_parallel(BlockKernel::Role::B, KK * n_pad, Bb, Bf.get(), Be.get());
    PanelBuffer<float> Bs(strip_chain ? KK * n_pad : 0);
    PanelBuffer<std::int16_t> Bse(strip_chain ? KK * n_pad : 0);
    // Issue 25 (h100n): the blocks' maxima the chains' E pass reads (sim block_kernel.hpp:
    // TileChainMaxima), once per GEMM beside the copy instead of once per task and call (each
    // task of rows re-read its panel of B's e_refs for them). ceil(KK / k) x (m + n_pad) int16
    // maxima and uint16 masks: an eighth of A's and B's e_refs at k = 16.
    const std::size_t mx_lanes = strip_chain ? kernel->chain_maxima_lanes(k) : 0;
    const bool given_maxima = mx_lanes == TC && KK > 0;
    const std::size_t nq = given_maxima ? (KK + k - 1) / k : 0, b_mx_stride = nq * TC;
    PanelBuffer<std::int16_t> Amax(m * nq), Bmax(strips * b_mx_stride);
    PanelBuffer<std::uint16_t> Amask(m * nq), Bmask(strips * b_mx_stride);
    if (strip_chain)
      run_tasks(threads, strips, 1, [&](std::size_t s, std::size_t) {
        if (strips_only) {
          kernel->decode_tile_rows(BlockKernel::Role::B, KK, TC, Bb + s * TC, n_pad, Bs.get() + s * strip_stride,
                                   Bse.get() + s * strip_stride, TC);
        } else {
          for (std::size_t t = 0; t < KK; ++t) {
            std::copy_n(Bf.get() + t * n_pad + s * TC, TC, Bs.get() + s * strip_stride + t * TC);
            std::copy_n(Be.get() + t * n_pad + s * TC, TC, Bse.get() + s * strip_stride + t * TC);
          }
        }
        if (given_maxima)
          kernel->chain_column_maxima(KK, k, Bse.get() + s * strip_stride, TC, Bmax.get() + s * b_mx_stride,
                                      Bmask.get() + s * b_mx_stride);
      });
    if (given_maxima)
      run_tasks(threads, (m + kTaskRows - 1) / kTaskRows, 1, [&](std::size_t ib, std::size_t) {
        const std::size_t i0 = ib * kTaskRows;
        kernel->chain_row_maxima(std::min(m, i0 + kTaskRows) - i0, KK, k, Ae.get() + i0 * KK, KK, Amax.get() + i0 * nq,
                                 Amask.get() + i0 * nq);
      });
    // The maxima of the chain on rows from i, strips from s, blocks from q (null: none).
    auto maxima_at = [&](std::size_t i, std::size_t s, std::size_t q) {
      TileChainMaxima x;
      if (!given_maxima) return x;
      x.a_max = Amax.get() + i * nq + q;
      x.a_mask = Amask.get() + i * nq + q;
      x.a_stride = nq;
      x.b_max = Bmax.get() + s * b_mx_stride + q * TC;
      x.b_mask = Bmask.get() + s * b_mx_stride + q * TC;
      x.b_stride = b_mx_stride;
      x.lanes = TC;
      x.block = k;
      return x;
    };
    const std::size_t panel = std::max(TC, kPanel / TC * TC);
    const std::size_t row_blocks = (m + kTaskRows - 1) / kTaskRows, col_blocks = (n_pad + panel - 1) / panel;
    run_tasks(threads, row_blocks, col_blocks, [&](std::size_t ib, std::size_t p) {
      const std::size_t i0 = ib * kTaskRows, rows = std::min(m, i0 + kTaskRows) - i0;
      const std::size_t j0 = p * panel, w = std::min(n_pad, j0 + panel) - j0;
      const std::size_t valid = j0 < n ? std::min(n, j0 + w) - j0 : 0;
      // Per-thread accumulators, reused by the thread's tasks (no allocation per task).
      thread_local TileState acc, blk, tmp;
      acc.resize(rows * w);
      blk.resize(rows * w);
      tmp.resize(rows * w);
      // C's rows by row copies (the element loop with its bound test stayed scalar: 4-5 % of an h100
      // fp16 GEMM's samples at n = 1024, session 38), the padding columns +0 patterns.
      for (std::size_t rr = 0; rr < rows; ++rr) {
        std::uint64_t* row = acc.bits.data() + rr * w;
        std::copy_n(C.data() + (i0 + rr) * n + j0, valid, row);
        std::fill(row + valid, row + w, std::uint64_t{0});
      }
      kernel->decode_tile(BlockKernel::Role::C, acc.bits.size(), acc.bits.data(), acc.value.data(), acc.eref.data());
      thread_local TileState zeros;  // final-add rows: +0, every instruction's start, decoded once per task
      thread_local std::vector<std::uint32_t> flagged;
      if (final_add) {
        zeros.resize(rows * w);
        std::fill(zeros.bits.begin(), zeros.bits.end(), zero);
        kernel->decode_tile(BlockKernel::Role::C, zeros.bits.size(), zeros.bits.data(), zeros.value.data(),
                            zeros.eref.data());
        flagged.resize(rows * w);
      }
      // Instructions [from, to) block by block through run_tile and the final additions, on the
      // rectangle of mr rows x cw columns at (r0, c0) of the task (vcols of them valid): the whole
      // task, or a micro-tile whose chain stopped (its results copied, not the buffers swapped).
      auto run_instructions = [&](std::size_t r0, std::size_t mr, std::size_t c0, std::size_t cw, std::size_t vcols,
                                  std::size_t from, std::size_t to) {
        const bool whole = r0 == 0 && mr == rows && c0 == 0 && cw == w;
        const std::size_t off = r0 * w + c0;
        auto take = [&](TileState& dst, TileState& src, bool bits) {
          if (whole) {
            if (bits) std::swap(dst.bits, src.bits);
            std::swap(dst.value, src.value);
            std::swap(dst.eref, src.eref);
            return;
          }
          for (std::size_t rr = 0; rr < mr; ++rr) {
            const std::size_t at = off + rr * w;
            if (bits) std::copy_n(src.bits.data() + at, cw, dst.bits.data() + at);
            std::copy_n(src.value.data() + at, cw, dst.value.data() + at);
            std::copy_n(src.eref.data() + at, cw, dst.eref.data() + at);
          }
        };
        std::size_t start = from;
        do {  // instructions (K = 0 runs one)
          const std::size_t end = std::min(to, start + group);
          TileState& x = final_add ? blk : acc;
          std::size_t pos = start;
          do {  // blocks of k
            const std::size_t len = std::min(k, end - pos);
            // Final-add rows start every instruction at +0: its first block reads the decoded
            // zeros directly (no copy per instruction).
            const TileState& cin = final_add && pos == start ? zeros : x;
            const std::size_t a_at = (i0 + r0) * KK + pos, b_at = pos * n_pad + j0 + c0;
            kernel->run_tile(mr, cw, vcols, len, Ab + a_at, Af.get() + a_at, Ae.get() + a_at, KK, Bb + b_at,
                             Bf.get() + b_at, Be.get() + b_at, n_pad, cin.bits.data() + off, cin.value.data() + off,
                             cin.eref.data() + off, tmp.bits.data() + off, tmp.value.data() + off,
                             tmp.eref.data() + off, w);
            // A narrow result is re-encoded in `out` (the same value: the decoded one stands).
            // Padding columns (j >= vcols) are never computed exactly nor read back.
            if (r.narrow[o]) {
              // Plain pointers: the thread_local vectors would be looked up again per element.
              std::uint64_t* xb = x.bits.data() + off;
              const std::uint64_t* tb = tmp.bits.data() + off;
              for (std::size_t rr = 0; rr < mr; ++rr) {
                widen_row(tb + rr * w, xb + rr * w, vcols);
                std::fill(xb + rr * w + vcols, xb + rr * w + cw, std::uint64_t{0});
              }
              take(x, tmp, false);
            } else {
              take(x, tmp, true);
            }
            pos += len;
          } while (pos < end);
          if (final_add && lane_add) {
            // In SIMD lanes on the decoded values (sim tile_add.hpp), into tmp; the lanes it
            // flags by ieee_add (padding columns are never read back).
            for (std::size_t rr = 0; rr < mr; ++rr) {
              const std::size_t at = off + rr * w;
              const std::size_t nf = lanes::tile_add_rne(add_kind == detail::FastAdd::Binary16, cw, blk.value.data() + at,
                                                         acc.value.data() + at, tmp.bits.data() + at,
                                                         tmp.value.data() + at, tmp.eref.data() + at, flagged.data());
              for (std::size_t f = 0; f < nf; ++f) {
                if (flagged[f] >= vcols) continue;
                const std::size_t e = at + flagged[f];
                tmp.bits[e] = detail::ieee_add(out, blk.bits[e], acc.bits[e], add_mode, r.nan_out[o], r.overflow);
                kernel->decode_tile(BlockKernel::Role::C, 1, tmp.bits.data() + e, tmp.value.data() + e,
                                    tmp.eref.data() + e);
              }
            }
            take(acc, tmp, true);
          } else if (final_add) {
            for (std::size_t rr = 0; rr < mr; ++rr) {
              const std::size_t at = off + rr * w;
              for (std::size_t j = 0; j < vcols; ++j)
                acc.bits[at + j] = add_c_finally(out, binary32_rne, blk.bits[at + j], acc.bits[at + j], add_mode,
                                                 r.nan_out[o], r.overflow);
              kernel->decode_tile(BlockKernel::Role::C, cw, acc.bits.data() + at, acc.value.data() + at,
                                  acc.eref.data() + at);
            }
          }
          start = end;
        } while (start < to);
      };
      // Issue 25 (i25chain, i25fp8fuse): micro-tiles with c in registers over every block (sim
      // block_lanes.hpp: block_tile_chain) for rows without a final addition whose instructions
      // are whole blocks, and for the pairs-mod4 final-add rows with a fast final addition, each
      // instruction's two blocks and u + c there (block_tile_pairs_chain); a micro-tile that meets
      // an output the lanes cannot decide runs its remaining blocks or instructions above.
      const bool plain_chain = !final_add && !pairs && KK > 0 && (group % k == 0 || group >= KK);
      const bool pairs_chain = final_add && pairs && lane_add && group == 2 * k && KK % group == 0;
      const bool chained = (plain_chain || pairs_chain) && [&] {
        const std::size_t W = TC, per_row = w / W, lanes_rows = kernel->tile_rows();
        // The plain chain writes its patterns straight into acc's where they are `out`'s (no
        // copy per task: session 39), through tmp where they are a narrow result's (widen_row).
        std::vector<std::uint64_t>& chain_bits = r.narrow[o] ? tmp.bits : acc.bits;
        thread_local std::vector<std::size_t> stops;
        stops.resize((rows + lanes_rows - 1) / lanes_rows * per_row);
        if (pairs_chain) {
          if (!kernel->run_tile_pairs_chain(add_kind == detail::FastAdd::Binary16, rows, w, valid, KK, k,
                                            Af.get() + i0 * KK, Ae.get() + i0 * KK, KK, Bf.get() + j0, Be.get() + j0,
                                            n_pad, acc.value.data(), acc.eref.data(), acc.bits.data(), w, stops.data()))
            return false;
        } else if (const TileChainMaxima mx = maxima_at(i0, j0 / W, 0);
                   !kernel->run_tile_chain(rows, w, valid, KK, k, Af.get() + i0 * KK, Ae.get() + i0 * KK, KK,
                                           Bs.get() + j0 / W * strip_stride, Bse.get() + j0 / W * strip_stride, W,
                                           acc.value.data(), acc.eref.data(), chain_bits.data(), w, stops.data(),
                                           strip_stride, given_maxima ? &mx : nullptr)) {
          return false;
        }
        // tmp's patterns (the kernel's output format) into acc's (out) for the columns < valid.
        auto take_bits = [&](std::size_t off, std::size_t mr, std::size_t vcols) {
          for (std::size_t rr = 0; rr < mr; ++rr) {
            std::uint64_t* xb = acc.bits.data() + off + rr * w;
            const std::uint64_t* tb = tmp.bits.data() + off + rr * w;
            if (r.narrow[o]) widen_row(tb, xb, vcols);
            else std::copy_n(tb, vcols, xb);
          }
        };
        for (std::size_t mt = 0; mt < stops.size(); ++mt) {
          const std::size_t r0 = mt / per_row * lanes_rows, c0 = mt % per_row * W;
          const std::size_t mr = std::min(lanes_rows, rows - r0), off = r0 * w + c0;
          const std::size_t vcols = valid > c0 ? std::min(W, valid - c0) : 0;
          if (pairs_chain) {
            // Stopped at an instruction boundary: that instruction runs above, then the chain
            // resumes from the next one (as the plain chain below; a sum cancelled to zero or a
            // binary16 block result below 2^-14 stops a micro-tile now and then).
            bool resume = true;
            for (std::size_t pos = stops[mt]; pos < KK;) {
              run_instructions(r0, mr, c0, W, vcols, pos, pos + group);
              pos += group;
              if (resume && pos < KK) {
                std::size_t resumed = 0;
                const std::size_t a_next = (i0 + r0) * KK + pos, b_next = pos * n_pad + j0 + c0;
                if (!kernel->run_tile_pairs_chain(add_kind == detail::FastAdd::Binary16, mr, W, vcols, KK - pos, k,
                                                  Af.get() + a_next, Ae.get() + a_next, KK, Bf.get() + b_next,
                                                  Be.get() + b_next, n_pad, acc.value.data() + off,
                                                  acc.eref.data() + off, acc.bits.data() + off, w, &resumed))
                  continue;
                resume = resumed > 0;
                pos += resumed;
              }
            }
            continue;
          }
          const bool chain_in_tmp = &chain_bits == &tmp.bits;  // else the chain wrote acc's patterns
          if (chain_in_tmp && stops[mt] > 0) take_bits(off, mr, vcols);
          bool resume = true;  // false after a resumed chain stopped at once (a NaN c stops every block)
          for (std::size_t pos = stops[mt]; pos < KK;) {
            const std::size_t len = std::min(k, KK - pos);
            const std::size_t a_at = (i0 + r0) * KK + pos, b_at = pos * n_pad + j0 + c0;
            if (strips_only) {
              // The block's B from its strip, its patterns copied to the strip's stride W.
              thread_local std::vector<std::uint64_t> b_bits;
              b_bits.resize(len * W);
              for (std::size_t t = 0; t < len; ++t) std::copy_n(Bb + b_at + t * n_pad, W, b_bits.data() + t * W);
              const std::size_t s_at = (j0 + c0) / W * strip_stride + pos * W;
              kernel->run_tile(mr, W, vcols, len, Ab + a_at, Af.get() + a_at, Ae.get() + a_at, KK, b_bits.data(),
                               Bs.get() + s_at, Bse.get() + s_at, W, acc.bits.data() + off, acc.value.data() + off,
                               acc.eref.data() + off, tmp.bits.data() + off, tmp.value.data() + off,
                               tmp.eref.data() + off, w);
            } else {
              kernel->run_tile(mr, W, vcols, len, Ab + a_at, Af.get() + a_at, Ae.get() + a_at, KK, Bb + b_at,
                               Bf.get() + b_at, Be.get() + b_at, n_pad, acc.bits.data() + off, acc.value.data() + off,
                               acc.eref.data() + off, tmp.bits.data() + off, tmp.value.data() + off,
                               tmp.eref.data() + off, w);
            }
            take_bits(off, mr, vcols);
            for (std::size_t rr = 0; rr < mr; ++rr) {
              std::copy_n(tmp.value.data() + off + rr * w, W, acc.value.data() + off + rr * w);
              std::copy_n(tmp.eref.data() + off + rr * w, W, acc.eref.data() + off + rr * w);
            }
            pos += len;
            // Issue 25 (i25v100): only the block that stopped the chain runs here; the chain
            // resumes from the next block (a tiny or cancelled partial sum of a fp16 output
            // stopped v100's micro-tiles early and left most of K to run_tile).
            // Issue 25 (h100j): the resumed chain reads B's strip-major copy (its strip's rows
            // contiguous, as the first run), not the row-major B at a stride of n_pad: about 500
            // chains per n = 1024 GEMM with binary16 outputs resume, for half of K on average.
            if (resume && pos < KK) {
              std::size_t resumed = 0;
              const std::size_t a_next = (i0 + r0) * KK + pos, b_next = (j0 + c0) / W * strip_stride + pos * W;
              // pos is at a block's start (the chain stops at one; one block ran since).
              const TileChainMaxima mx = maxima_at(i0 + r0, (j0 + c0) / W, pos / k);
              if (!kernel->run_tile_chain(mr, W, vcols, KK - pos, k, Af.get() + a_next, Ae.get() + a_next, KK,
                                          Bs.get() + b_next, Bse.get() + b_next, W, acc.value.data() + off,
                                          acc.eref.data() + off, chain_bits.data() + off, w, &resumed, 0,
                                          given_maxima && pos % k == 0 ? &mx : nullptr))
                continue;
              if (chain_in_tmp && resumed > 0) take_bits(off, mr, vcols);
              resume = resumed > 0;
              pos += resumed;
            }
          }
        }
        return true;
      }();
      if (!chained) {
        // B's row-major planes were not decoded: the chain said it runs here (tile_chain_supported).
        if (strips_only) throw std::logic_error("Unit::gemm: the tile chain refused a GEMM it said it runs");
        run_instructions(0, rows, 0, w, valid, 0, KK);
      }
      for (std::size_t rr = 0; rr < rows; ++rr)
        std::copy_n(acc.bits.begin() + rr * w, valid, D.begin() + static_cast<std::ptrdiff_t>((i0 + rr) * n + j0));
    });
    return;
  }

  std::vector<double> Av(m * KK), Ae(m * KK), Bv(KK * n), Be(KK * n);
  kernel->decode(BlockKernel::Role::A, m * KK, Ab, Av.data(), Ae.data());
  kernel->decode(BlockKernel::Role::B, KK * n, Bb, Bv.data(), Be.data());

  run_tasks(threads, m, panels, [&](std::size_t i, std::size_t p) {
    const std::size_t j0 = p * kPanel, w = std::min(n, j0 + kPanel) - j0;
    // Accumulator (patterns of `out`, and decoded) and one instruction's block result.
    std::vector<std::uint64_t> acc(C.begin() + static_cast<std::ptrdiff_t>(i * n + j0),
                                   C.begin() + static_cast<std::ptrdiff_t>(i * n + j0 + w));
    std::vector<double> acc_v(w), acc_e(w), blk_v(w), blk_e(w), tmp_v(w), tmp_e(w);
    std::vector<std::uint64_t> blk(w), tmp(w);
    kernel->decode(BlockKernel::Role::C, w, acc.data(), acc_v.data(), acc_e.data());
    std::size_t start = 0;
    do {  // instructions (K = 0 runs one)
      const std::size_t end = std::min(KK, start + group);
      std::vector<std::uint64_t>& x = final_add ? blk : acc;
      std::vector<double>& xv = final_add ? blk_v : acc_v;
      std::vector<double>& xe = final_add ? blk_e : acc_e;
      if (final_add) {
        std::fill(blk.begin(), blk.end(), zero);
        kernel->decode(BlockKernel::Role::C, w, blk.data(), blk_v.data(), blk_e.data());
      }
      std::size_t pos = start;
      do {  // blocks of k
        const std::size_t len = std::min(k, end - pos);
        kernel->run_row(w, len, Ab + i * KK + pos, Av.data() + i * KK + pos, Ae.data() + i * KK + pos,
                        Bb + pos * n + j0, Bv.data() + pos * n + j0, Be.data() + pos * n + j0, n, x.data(),
                        xv.data(), xe.data(), tmp.data(), tmp_v.data(), tmp_e.data());
        // A narrow result is re-encoded in `out` (the same value: the decoded one stands).
        for (std::size_t j = 0; j < w; ++j) x[j] = r.to_out(o, tmp[j]);
        std::swap(xv, tmp_v);
        std::swap(xe, tmp_e);
        pos += len;
      } while (pos < end);
      if (final_add) {
        for (std::size_t j = 0; j < w; ++j) acc[j] = detail::ieee_add(out, blk[j], acc[j], add_mode, r.nan_out[o], r.overflow);
        kernel->decode(BlockKernel::Role::C, w, acc.data(), acc_v.data(), acc_e.data());
      }
      start = end;
    } while (start < KK);
    std::copy(acc.begin(), acc.end(), D.begin() + static_cast<std::ptrdiff_t>(i * n + j0));
  });
}

}  // namespace tcsim::models
