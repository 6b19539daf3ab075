// Unit::gemm_scaled: the block-scaled (MX) GEMM. Every output is dot_scaled of a row of A and a
// column of B with their scales; where the row has lanes (batch_path: "kernel" for rows
// without groups, "kernel (group sums)" for mxf4nvf4) the scales are folded into the decoded
// operands and the lanes compute every output they can decide, the others go through the
// block-scaled reference (scaled_block_fma).
//
// Why folding is exact: a scale s multiplies every product of its block of k indices (A's
// per row, B's per column). ue8m0 scales are powers of two; ue4m3 ones have 4 significant bits.
// The decoded operand a' = a s is exact in binary64 (at most 12 + 4 bits), and so is every
// product a' b'. Without groups the adder aligns a product on e_a + e_b plus the scales'
// exponents (their leading bits): e_ref(a') = e_ref(a) + floor(log2 s), and a' b' < 2^(E + 4),
// so the aligned terms stay far below binary64's 2^53 (F + 4 + log2(k + 1) <= 53; the kernel
// checks F + 3 + log2(k + 1)). With groups, one scale pair covers a whole group (the group
// size divides the block size), so the exact sum of a' b' over a group is the group's sum
// times s_a s_b: the reference's scaled group term, aligned on its leading bit as there
// (BlockKernel::groups_supported leaves room for 8 more bits and 2^+-600 of range). A NaN
// scale decodes to a NaN operand, a zero scale (ue4m3) to a zero one: the lanes flag or skip
// them as the reference does (NaN result, no term).
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "gemm_tasks.hpp"
#include "tcsim/sim/codec.hpp"
#include "unit_gemm_scaled_tiles.hpp"
#include "unit_groups.hpp"
#include "unit_impl.hpp"

namespace tcsim::models {

namespace {

constexpr std::size_t kRows = 16, kCols = 256;  // a task: rows of A x columns of B

// A scale pattern as the lanes use it: its value, and floor(log2) of it for e_ref.
struct ScaleValue {
  double value = 1, log2 = 0;
  bool special = false;  // NaN (or Inf)
};

std::vector<ScaleValue> scale_table(const Format& f) {
  std::vector<ScaleValue> t(std::size_t{1} << f.width);
  for (std::uint64_t bits = 0; bits < t.size(); ++bits) {
    const Decoded d = decode_parts(f, bits);
    ScaleValue& s = t[bits];
    if (d.cls == FpClass::NaN || d.cls == FpClass::Infinity) {
      s.special = true;
    } else if (d.cls == FpClass::Zero) {
      s.value = 0;
    } else {
      s.value = std::ldexp(static_cast<double>(d.significand), static_cast<int>(d.exponent));
      s.log2 = std::floor(std::log2(s.value));  // exact: s.value is a small dyadic number
    }
  }
  return t;
}

// Decoded operand x (value, e_ref as BlockKernel::decode gives them) times scale s.
// zero_eref: the e_ref the kernel gives zeros (they set no E).
void fold(double& value, double& eref, const ScaleValue& s, double zero_eref) {
  if (std::isnan(value)) return;
  if (s.special) {
    value = std::numeric_limits<double>::quiet_NaN();
    eref = 0;
  } else if (s.value == 0 || value == 0) {
    value = 0;
    eref = zero_eref;
  } else {
    value *= s.value;
    eref += s.log2;
  }
}

}  // namespace

std::vector<std::uint64_t> Unit::gemm_scaled(const Format& in, const Format& out, std::size_t m, std::size_t n,
                                             std::size_t K, std::span<const std::uint64_t> A,
                                             std::span<const std::uint64_t> B, std::span<const std::uint64_t> C,
                                             const Format& scale_format, std::span<const std::uint64_t> scale_a,
                                             std::span<const std::uint64_t> scale_b, int block_size,
                                             std::string_view instruction, unsigned threads) const {
  const std::size_t ri = scaled_row(in, in, out, scale_format, block_size, instruction);
  const std::size_t bs = static_cast<std::size_t>(block_size), nb = (K + bs - 1) / bs;
  auto check = [](const char* what, std::size_t got, std::size_t want, const char* dims) {
    if (got != want)
      throw std::invalid_argument(std::string("gemm_scaled: ") + what + " must hold " + dims + " = " +
                                  std::to_string(want) + " patterns, got " + std::to_string(got));
  };
  check("A", A.size(), m * K, "m*K");
  check("B", B.size(), K * n, "K*n");
  check("C", C.size(), m * n, "m*n");
  check("scale_a", scale_a.size(), m * nb, "m*ceil(K/block_size)");
  check("scale_b", scale_b.size(), nb * n, "ceil(K/block_size)*n");
  for (const auto& [v, name] : {std::pair{scale_a, "scale_a"}, {scale_b, "scale_b"}})
    for (std::size_t i = 0; i < v.size(); ++i)
      if (v[i] & ~scale_format.width_mask())
        throw std::invalid_argument(std::string(name) + "[" + std::to_string(i) + "] = " +
                                    bits_to_hex(scale_format, v[i]) + " has bits above the " +
                                    std::to_string(scale_format.width) + "-bit width of " + scale_format.name);
  std::vector<std::uint64_t> D(m * n);
  if (m == 0 || n == 0) return D;
  const DatapathSpec& row = spec_.datapaths[ri];
  const auto& r = impl_->rows[ri];
  const std::size_t pair = r.pair_index(in, in, out), o = r.out_index(out);
  const BlockKernel* kernel = r.kernels[pair].get();
  const BlockKernel* gk = r.group_kernels[pair].get();
  const int group = row.block_scale->group_size;
  const std::size_t k = static_cast<std::size_t>(row.fma_size);
  const AdderConfig& cfg = r.adder(in, out).config();
  const std::uint64_t one = round_bits(ExactValue::finite(false, 1, 0), scale_format, Rounding::NearestEven);

  // Output (i, j)'s block [pos, pos + len) from c by the reference, its scales per product.
  auto exact = [&](std::size_t i, std::size_t j, std::size_t pos, std::size_t len, std::uint64_t c) {
    thread_local std::vector<std::uint64_t> pa, pb, sa, sb;
    pa.assign(k, 0);
    pb.assign(k, 0);
    sa.assign(k, one);
    sb.assign(k, one);
    for (std::size_t t = 0; t < len; ++t) {
      pa[t] = A[i * K + pos + t];
      pb[t] = B[(pos + t) * n + j];
      sa[t] = scale_a[i * nb + (pos + t) / bs];
      sb[t] = scale_b[(pos + t) / bs * n + j];
    }
    return detail::scaled_block_fma(cfg, group, scale_format, pa, pb, sa, sb, c);
  };
  const std::size_t row_blocks = (m + kRows - 1) / kRows, col_blocks = (n + kCols - 1) / kCols;

  if (!kernel && !gk) {  // the reference, output by output
    detail::run_tasks(threads, row_blocks, col_blocks, [&](std::size_t ib, std::size_t p) {
      for (std::size_t i = ib * kRows; i < std::min(m, (ib + 1) * kRows); ++i)
        for (std::size_t j = p * kCols; j < std::min(n, (p + 1) * kCols); ++j) {
          std::uint64_t c = C[i * n + j];
          std::size_t pos = 0;
          do {
            const std::size_t len = std::min(k, K - pos);
            c = r.to_out(o, exact(i, j, pos, len, c));
            pos += len;
          } while (pos < K);
          D[i * n + j] = c;
        }
    });
    return D;
  }

  // Rows without groups whose scales are powers of two (ue8m0: kind::mxf8f6f4) on the binary32
  // tiles, the scales folded into the operands' exponents (unit_gemm_scaled_tiles.hpp).
  if (kernel && !gk && kernel->tile_supported() && detail::scales_fold_into_tiles(scale_format)) {
    detail::gemm_scaled_tiles(*kernel, scale_format, m, n, K, k, bs, A.data(), B.data(), C.data(), scale_a.data(),
                              scale_b.data(), exact, r.narrow[o].has_value(),
                              [&](std::uint64_t v) { return r.to_out(o, v); }, threads, D.data());
    return D;
  }

  // Rows with group sums (mxf4nvf4) on the group tiles: binary32 group sums, the scales applied
  // per group in binary64 (unit_gemm_scaled_tiles.hpp).
  if (gk && gk->group_tile_supported(static_cast<std::size_t>(group)) && bs % group == 0 &&
      k % static_cast<std::size_t>(group) == 0 && detail::scales_fit_group_tiles(scale_format)) {
    detail::gemm_scaled_group_tiles(*gk, scale_format, static_cast<std::size_t>(group), m, n, K, k, bs, A.data(),
                                    B.data(), C.data(), scale_a.data(), scale_b.data(), exact, r.narrow[o].has_value(),
                                    [&](std::uint64_t v) { return r.to_out(o, v); }, threads, D.data());
    return D;
  }

  // Decoded operands with their scales folded in.
  const BlockKernel& lk = kernel ? *kernel : *gk;
  const std::vector<ScaleValue> table = scale_table(scale_format);
  std::vector<double> Av(m * K), Ae(m * K), Bv(K * n), Be(K * n);
  lk.decode(BlockKernel::Role::A, m * K, A.data(), Av.data(), Ae.data());
  lk.decode(BlockKernel::Role::B, K * n, B.data(), Bv.data(), Be.data());
  double zero_value = 0, zero_eref = 0;
  const std::uint64_t zero_bits = in.zero(false);
  lk.decode(BlockKernel::Role::A, 1, &zero_bits, &zero_value, &zero_eref);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t t = 0; t < K; ++t) fold(Av[i * K + t], Ae[i * K + t], table[scale_a[i * nb + t / bs]], zero_eref);
  for (std::size_t t = 0; t < K; ++t)
    for (std::size_t j = 0; j < n; ++j) fold(Bv[t * n + j], Be[t * n + j], table[scale_b[t / bs * n + j]], zero_eref);

  detail::run_tasks(threads, row_blocks, col_blocks, [&](std::size_t ib, std::size_t p) {
    const std::size_t i0 = ib * kRows, rows = std::min(m, i0 + kRows) - i0;
    const std::size_t j0 = p * kCols, w = std::min(n, j0 + kCols) - j0;
    thread_local std::vector<detail::GroupAccumulators> acc(kRows);
    for (std::size_t rr = 0; rr < rows; ++rr) acc[rr].start(lk, w, C.data() + (i0 + rr) * n + j0);
    std::size_t pos = 0;
    do {  // blocks of k, as dot_scaled (K = 0 runs one; no operand is read then)
      const std::size_t len = std::min(k, K - pos);
      for (std::size_t rr = 0; rr < rows; ++rr) {
        const std::size_t i = i0 + rr;
        const double* av = len ? Av.data() + i * K + pos : nullptr;
        const double* ae = len ? Ae.data() + i * K + pos : nullptr;
        const double* bv = len ? Bv.data() + pos * n + j0 : nullptr;
        const double* be = len ? Be.data() + pos * n + j0 : nullptr;
        detail::GroupAccumulators& x = acc[rr];
        if (gk)
          gk->run_row_groups(w, len, static_cast<std::size_t>(group), av, true, bv, n, x.value.data(), x.eref.data(),
                             x.tmp.data(), x.tmp_value.data(), x.tmp_eref.data(), x.fixup.data());
        else
          kernel->run_row_lanes(w, len, av, ae, bv, be, n, x.value.data(), x.eref.data(), x.tmp.data(),
                                x.tmp_value.data(), x.tmp_eref.data(), x.fixup.data());
        x.finish(lk, [&](std::size_t j, std::uint64_t c) { return exact(i, j0 + j, pos, len, c); },
                 [&](std::uint64_t v) { return r.to_out(o, v); });
      }
      pos += len;
    } while (pos < K);
    for (std::size_t rr = 0; rr < rows; ++rr)
      std::copy(acc[rr].bits.begin(), acc[rr].bits.end(), D.begin() + static_cast<std::ptrdiff_t>((i0 + rr) * n + j0));
  });
  return D;
}

}  // namespace tcsim::models
