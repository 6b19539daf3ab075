// Private to models/src: the fast paths of the c_entry final-add and k_split pairs-mod4 rows
// (Hopper/Blackwell fp8 mma.sync, the emulation on the fp16 tensor core; issue 25).
// Per instruction (2k products) the hardware runs two ordinary fp16-unit blocks over the
// products reordered (k mod 4 in {0,1}, then {2,3}) and, for final-add rows, adds c last by
// one IEEE addition. Here the operand rows are permuted per instruction once, so the kernels
// see consecutive products; the addition has fast exits for binary32 and binary16 rounded to
// nearest even. One semantics with dot_in_row (split_pairs_mod4, ieee_add): the differential
// tests (models/tests/test_pairs_mod4.cpp, test_kernel_differential.cpp) hold them equal.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tcsim/sim/tile_add.hpp"
#include "unit_impl.hpp"

namespace tcsim::models::detail {

// Which fast exit a final addition has: none (ieee_add), the host's binary32 addition, or
// the integer binary16 addition (tile_add.hpp).
enum class FastAdd : std::uint8_t { None, Binary32, Binary16 };

inline FastAdd fast_add_kind(const Format& out, Rounding mode) {
  if (mode != Rounding::NearestEven) return FastAdd::None;
  if (out == formats::fp32()) return FastAdd::Binary32;
  if (out == formats::fp16()) return FastAdd::Binary16;
  return FastAdd::None;
}

// ieee_add(out, d, c, mode, nan, overflow) where `kind` = fast_add_kind(out, mode).
// binary32: the host's addition (round to nearest even, the default) is IEEE's wherever the
// operands and the sum are normal or zero and the sum is finite (FTZ/DAZ cannot matter there).
inline std::uint64_t final_add(FastAdd kind, const Format& out, std::uint64_t d, std::uint64_t c, Rounding mode,
                               std::uint64_t nan, OverflowMode overflow) {
  if (kind == FastAdd::Binary32 && ((d | c) >> 32) == 0) {
    auto normal_or_zero = [](std::uint64_t p) { return (p & 0x7f800000u) != 0 || (p & 0x7fffffffu) == 0; };
    const float x = std::bit_cast<float>(static_cast<std::uint32_t>(d)), y = std::bit_cast<float>(static_cast<std::uint32_t>(c));
    const float s = x + y;
    const std::uint32_t sb = std::bit_cast<std::uint32_t>(s);
    // (A zero sum of operands that are not opposite would be a flush to zero: FTZ, not IEEE.)
    if (std::isfinite(s) && normal_or_zero(d) && normal_or_zero(c) && normal_or_zero(sb) && (s != 0 || x == -y)) return sb;
  } else if (kind == FastAdd::Binary16) {
    std::uint64_t s = 0;
    if (lanes::binary16_add_rne(d, c, s)) return s;
  }
  return ieee_add(out, d, c, mode, nan, overflow);
}

// dot_batch_planar's elements [0, m) (operand t of element e at a[t * ld + e]) of a pairs-mod4
// row whose kernel has the planar lanes: each instruction's 2k operand rows taken in the
// hardware's order (+0 rows after K; row pointers, not copies), two block FMAs of k on the
// lanes, then c (final-add rows: binary32/binary16 RNE in SIMD lanes) or the chain
// (accumulator rows), exactly as dot_in_row. `Row` is Unit::Impl::Row.
template <class Row>
void pairs_planar_chunk(const Row& r, const DatapathSpec& row, const BlockKernel& kernel, const Format& out,
                        std::size_t m, std::size_t K, const std::uint16_t* a, const std::uint16_t* b, std::size_t ld,
                        const std::uint64_t* c, std::uint64_t* d) {
  const std::size_t o = r.out_index(out), k = static_cast<std::size_t>(row.fma_size), group = 2 * k;
  const bool final_add_row = row.c_entry == CEntry::FinalAdd;
  const Rounding add_mode = final_add_row ? row.final_add_rounding.at(out.name) : Rounding::NearestEven;
  const FastAdd kind = fast_add_kind(out, add_mode);
  thread_local std::vector<std::uint16_t> zero_row;  // the +0 operands after K
  thread_local std::vector<std::uint64_t> acc, x, y, z, zero;
  thread_local std::vector<std::uint32_t> flagged;
  const bool narrow = r.narrow[o].has_value();  // block results re-encoded in `out` (to_out)
  zero_row.assign(m, 0);
  acc.assign(c, c + m);
  x.resize(m);
  y.resize(m);
  z.resize(m);
  flagged.resize(m);
  zero.assign(m, out.zero(false));
  // Each instruction's rows in the hardware's order, handed to the lanes as row pointers (no
  // copy per instruction): the first block's k rows, then the second's.
  std::vector<const std::uint16_t*> ra(group), rb(group);
  std::size_t start = 0;
  do {  // instructions (K = 0 runs one)
    std::size_t p = 0;
    for (std::size_t half = 0; half < 2; ++half)
      for (std::size_t j = half * 2; j < group; j += (j % 2 == 0) ? 1 : 3, ++p) {
        const std::size_t src = start + j;
        ra[p] = src < K ? a + src * ld : zero_row.data();
        rb[p] = src < K ? b + src * ld : zero_row.data();
      }
    kernel.run_planar_rows(m, k, ra.data(), rb.data(), final_add_row ? zero.data() : acc.data(), x.data());
    if (narrow)
      for (std::size_t e = 0; e < m; ++e) x[e] = r.to_out(o, x[e]);
    kernel.run_planar_rows(m, k, ra.data() + k, rb.data() + k, x.data(), y.data());
    if (narrow)
      for (std::size_t e = 0; e < m; ++e) y[e] = r.to_out(o, y[e]);
    if (final_add_row && kind != FastAdd::None) {
      // In SIMD lanes (sim tile_add.hpp: pattern_add_rne); what they flag by final_add.
      const std::size_t nf = lanes::pattern_add_rne(kind == FastAdd::Binary16, m, y.data(), acc.data(), z.data(),
                                                    flagged.data());
      for (std::size_t f = 0; f < nf; ++f) {
        const std::size_t e = flagged[f];
        z[e] = final_add(kind, out, y[e], acc[e], add_mode, r.nan_out[o], r.overflow);
      }
      std::swap(acc, z);
    } else if (final_add_row) {
      for (std::size_t e = 0; e < m; ++e)
        acc[e] = final_add(kind, out, y[e], acc[e], add_mode, r.nan_out[o], r.overflow);
    } else {
      std::copy(y.begin(), y.end(), acc.begin());
    }
    start += group;
  } while (start < K);
  std::copy(acc.begin(), acc.end(), d);
}

}  // namespace tcsim::models::detail
