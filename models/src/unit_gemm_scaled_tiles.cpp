// The block-scaled GEMM on the binary32 tiles (unit_gemm_scaled_tiles.hpp; issue 25).
//
// Why folding a ue8m0 scale into a tile operand is exact: the reference multiplies every product
// of a scale block by s_a s_b and aligns it on e_a + e_b plus the scales' exponents; with
// s = 2^q the operand a 2^q has a's significand and e_ref(a) + q, so the tile's E pass (the
// largest e_a + e_b over the block, then c's) sees the scaled exponents and the significand
// pass computes trunc(a 2^qa b 2^qb 2^(F - E)), the reference's term. The tile conditions
// still hold where the scaled operand is exact in binary32 (checked per operand; else the
// operand is marked special and its outputs go to the reference): at most 12 significant bits,
// products exact or below 2^(E - F - 6) (block_tile flags E > 126 and F - E > 120).
#include "unit_gemm_scaled_tiles.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <limits>
#include <vector>


#include "gemm_tasks.hpp"
#include "panel_buffer.hpp"
#include "tcsim/sim/codec.hpp"

namespace tcsim::models::detail {

namespace {

constexpr std::size_t kRows = 16, kPanel = 256;  // a task: rows of A x columns of B

// A scale pattern as the tiles fold it: 2^q, zero, or NaN/Inf (special).
struct TileScale {
  enum class Kind { Pow2, Zero, Special } kind = Kind::Pow2;
  int q = 0;
  double factor = 1;  // 2^q (ue8m0: 2^-127 .. 2^127, normal in binary64)
};

// Every pattern's TileScale; false when a finite nonzero scale is not a power of two.
bool tile_scales(const Format& f, std::vector<TileScale>& t) {
  t.assign(std::size_t{1} << f.width, TileScale{});
  for (std::uint64_t bits = 0; bits < t.size(); ++bits) {
    const Decoded d = decode_parts(f, bits);
    if (d.cls == FpClass::NaN || d.cls == FpClass::Infinity) {
      t[bits].kind = TileScale::Kind::Special;
    } else if (d.cls == FpClass::Zero) {
      t[bits].kind = TileScale::Kind::Zero;
    } else {
      if (!std::has_single_bit(static_cast<std::uint64_t>(d.significand))) return false;
      t[bits].q = static_cast<int>(d.exponent) + std::countr_zero(static_cast<std::uint64_t>(d.significand));
      if (t[bits].q < -1000 || t[bits].q > 1000) return false;
      t[bits].factor = std::ldexp(1.0, t[bits].q);
    }
  }
  return true;
}

// The sentinels the tiles' int16 e_refs use for zeros and for NaN/Inf operands.
struct Sentinels {
  std::int16_t zero = 0, special = 0;
};

// Operand (value, e_ref) times scale s, in place.
inline void fold(float& value, std::int16_t& eref, const TileScale& s, const Sentinels& z) {
  if (eref == z.special) return;
  if (s.kind == TileScale::Kind::Special) {
    value = std::numeric_limits<float>::quiet_NaN();
    eref = z.special;
  } else if (s.kind == TileScale::Kind::Zero || eref == z.zero) {
    value = 0;
    eref = z.zero;
  } else {
    const double x = static_cast<double>(value) * s.factor;  // exact: at most 12 significant bits
    const float f = static_cast<float>(x);
    if (std::isfinite(f) && static_cast<double>(f) == x) {
      value = f;
      eref = static_cast<std::int16_t>(eref + s.q);
    } else {  // beyond binary32: the reference decides every output it touches
      value = std::numeric_limits<float>::quiet_NaN();
      eref = z.special;
    }
  }
}

template <class T>
using Panel = detail::PanelBuffer<T>;  // panel_buffer.hpp
using detail::run_tasks;  // gemm_tasks.hpp
using detail::TileState;

}  // namespace

bool scales_fold_into_tiles(const Format& scale_format) {
  std::vector<TileScale> t;
  return scale_format.width <= 16 && tile_scales(scale_format, t);
}

void gemm_scaled_tiles(const BlockKernel& kernel, const Format& scale_format, std::size_t m, std::size_t n,
                       std::size_t K, std::size_t k, std::size_t bs, const std::uint64_t* A, const std::uint64_t* B,
                       const std::uint64_t* C, const std::uint64_t* scale_a, const std::uint64_t* scale_b,
                       const std::function<std::uint64_t(std::size_t, std::size_t, std::size_t, std::size_t,
                                                         std::uint64_t)>& exact,
                       bool narrow, const std::function<std::uint64_t(std::uint64_t)>& to_out, unsigned threads,
                       std::uint64_t* D) {
  std::vector<TileScale> table;
  tile_scales(scale_format, table);
  const std::size_t nb = (K + bs - 1) / bs;
  const std::size_t TC = kernel.tile_columns(), ldb = (n + TC - 1) / TC * TC;
  // The sentinels, from a zero pattern and a pattern with a bit above the input's width.
  Sentinels z;
  {
    const std::uint64_t probe[2] = {0, std::uint64_t{1} << kernel.config().a_format.width};
    float v[2];
    std::int16_t e[2];
    kernel.decode_tile(BlockKernel::Role::A, 2, probe, v, e);
    z.zero = e[0];
    z.special = e[1];
    if (v[1] == v[1]) throw std::logic_error("gemm_scaled_tiles: no special operand sentinel");
  }
  Panel<float> Af(m * K), Bf(K * ldb);
  Panel<std::int16_t> Ae(m * K), Be(K * ldb);
  // Decoded and folded in parallel, 16 rows of A or B per task.
  run_tasks(threads, (m + 15) / 16, 1, [&](std::size_t ib, std::size_t) {
    for (std::size_t i = ib * 16; i < std::min(m, ib * 16 + 16); ++i) {
      kernel.decode_tile(BlockKernel::Role::A, K, A + i * K, Af.data() + i * K, Ae.data() + i * K);
      for (std::size_t t = 0; t < K; ++t) fold(Af[i * K + t], Ae[i * K + t], table[scale_a[i * nb + t / bs]], z);
    }
  });
  run_tasks(threads, (K + 15) / 16, 1, [&](std::size_t tb, std::size_t) {
    for (std::size_t t = tb * 16; t < std::min(K, tb * 16 + 16); ++t) {
      kernel.decode_tile(BlockKernel::Role::B, n, B + t * n, Bf.data() + t * ldb, Be.data() + t * ldb);
      std::fill(Bf.data() + t * ldb + n, Bf.data() + (t + 1) * ldb, 0.0f);  // padding columns: zeros
      std::fill(Be.data() + t * ldb + n, Be.data() + (t + 1) * ldb, z.zero);
      const std::uint64_t* s = scale_b + t / bs * n;
      for (std::size_t j = 0; j < n; ++j) fold(Bf[t * ldb + j], Be[t * ldb + j], table[s[j]], z);
    }
  });
  const std::size_t panel = std::max(TC, kPanel / TC * TC);
  run_tasks(threads, (m + kRows - 1) / kRows, (ldb + panel - 1) / panel, [&](std::size_t ib, std::size_t p) {
    const std::size_t i0 = ib * kRows, rows = std::min(m, i0 + kRows) - i0;
    const std::size_t j0 = p * panel, w = std::min(ldb, j0 + panel) - j0;
    const std::size_t valid = j0 < n ? std::min(n, j0 + w) - j0 : 0;
    thread_local TileState acc, tmp;
    thread_local std::vector<std::uint32_t> flagged;
    acc.resize(rows * w);
    tmp.resize(rows * w);
    flagged.resize(rows * w);
    for (std::size_t rr = 0; rr < rows; ++rr)
      for (std::size_t j = 0; j < w; ++j) acc.bits[rr * w + j] = j < valid ? C[(i0 + rr) * n + j0 + j] : 0;
    kernel.decode_tile(BlockKernel::Role::C, acc.bits.size(), acc.bits.data(), acc.value.data(), acc.eref.data());
    std::size_t pos = 0;
    do {  // blocks of k, as dot_scaled (K = 0 runs one)
      const std::size_t len = std::min(k, K - pos);
      const std::size_t count = kernel.run_tile_lanes(
          rows, w, len, Af.data() + i0 * K + pos, Ae.data() + i0 * K + pos, K, Bf.data() + pos * ldb + j0,
          Be.data() + pos * ldb + j0, ldb, acc.value.data(), acc.eref.data(), tmp.bits.data(), tmp.value.data(),
          tmp.eref.data(), w, flagged.data());
      if (narrow)  // re-encoded in `out` (the same value: the decoded one stands)
        for (std::size_t rr = 0; rr < rows; ++rr)
          for (std::size_t j = 0; j < valid; ++j) tmp.bits[rr * w + j] = to_out(tmp.bits[rr * w + j]);
      for (std::size_t f = 0; f < count; ++f) {
        const std::size_t e = flagged[f], rr = e / w, j = e % w;
        if (j >= valid) continue;  // padding
        tmp.bits[e] = to_out(exact(i0 + rr, j0 + j, pos, len, acc.bits[e]));
        kernel.decode_tile(BlockKernel::Role::C, 1, tmp.bits.data() + e, tmp.value.data() + e, tmp.eref.data() + e);
      }
      std::swap(acc.bits, tmp.bits);
      std::swap(acc.value, tmp.value);
      std::swap(acc.eref, tmp.eref);
      pos += len;
    } while (pos < K);
    for (std::size_t rr = 0; rr < rows; ++rr)
      std::copy_n(acc.bits.begin() + static_cast<std::ptrdiff_t>(rr * w), valid, D + (i0 + rr) * n + j0);
  });
}

// ---- Group sums (mxf4nvf4). Why the group tiles give the reference's terms: the reference sums
// a group's products exactly and multiplies the sum by the scales of its first product
// (scaled_block_fma); with bs a multiple of the group size every product of a group has those
// scales. run_group_tile sums the unscaled products exactly in binary32 and multiplies by the
// two scale values in binary64, exactly (scales_fit_group_tiles), so each term and its leading
// bit are the reference's. A zero scale (ue4m3) gives a zero term, which sets no E as the
// reference's skipped products; a NaN scale a NaN term: the output is flagged and the
// reference returns NaN.
namespace {

// A scale pattern's value: NaN for NaN/Inf, 0, or sig 2^e; false if one does not fit.
bool group_scale_values(const Format& f, std::vector<double>& t) {
  if (f.width > 16) return false;
  t.assign(std::size_t{1} << f.width, 0.0);
  for (std::uint64_t bits = 0; bits < t.size(); ++bits) {
    const Decoded d = decode_parts(f, bits);
    if (d.cls == FpClass::NaN || d.cls == FpClass::Infinity) {
      t[bits] = std::numeric_limits<double>::quiet_NaN();
    } else if (d.cls != FpClass::Zero) {
      const auto sig = static_cast<std::uint64_t>(d.significand);
      const int bits_used = static_cast<int>(std::bit_width(sig));  // unsigned in some libraries
      if (bits_used > 12 || d.exponent < -400 || d.exponent + bits_used > 400) return false;
      t[bits] = std::ldexp(static_cast<double>(sig), static_cast<int>(d.exponent));
    }
  }
  return true;
}

struct GroupTileState {
  std::vector<std::uint64_t> bits, tmp_bits;
  std::vector<double> value, eref, tmp_value, tmp_eref;
  std::vector<std::uint8_t> fixup;
  void resize(std::size_t size) {
    for (auto* v : {&bits, &tmp_bits}) v->resize(size);
    for (auto* v : {&value, &eref, &tmp_value, &tmp_eref}) v->resize(size);
    fixup.resize(size);
  }
};

}  // namespace

bool scales_fit_group_tiles(const Format& scale_format) {
  std::vector<double> t;
  return group_scale_values(scale_format, t);
}

void gemm_scaled_group_tiles(const BlockKernel& gk, const Format& scale_format, std::size_t group, std::size_t m,
                             std::size_t n, std::size_t K, std::size_t k, std::size_t bs, const std::uint64_t* A,
                             const std::uint64_t* B, const std::uint64_t* C, const std::uint64_t* scale_a,
                             const std::uint64_t* scale_b,
                             const std::function<std::uint64_t(std::size_t, std::size_t, std::size_t, std::size_t,
                                                               std::uint64_t)>& exact,
                             bool narrow, const std::function<std::uint64_t(std::uint64_t)>& to_out,
                             unsigned threads, std::uint64_t* D) {
  std::vector<double> table;
  if (!group_scale_values(scale_format, table) || group == 0 || bs % group != 0 || k % group != 0)
    throw std::logic_error("gemm_scaled_group_tiles: unsupported scales or group size");
  const std::size_t nb = (K + bs - 1) / bs, ng = (K + group - 1) / group;
  const std::size_t TC = gk.group_tile_columns(), ldb = (n + TC - 1) / TC * TC;
  Panel<float> Af(m * K), Bf(K * ldb);
  // At least one group's room: K = 0 offsets the pointers by columns without reading them.
  Panel<double> SA(m * std::max<std::size_t>(ng, 1)), SB(std::max<std::size_t>(ng, 1) * ldb);
  double zero_value = 0, zero_eref = 0;
  {
    const std::uint64_t zero_bits = 0;
    gk.decode(BlockKernel::Role::C, 1, &zero_bits, &zero_value, &zero_eref);
  }
  // Decoded (exact in binary32: group_tile_supported) in parallel, 16 rows of A or B per task,
  // through a table of every pattern of an input of at most 8 bits (e2m1: 16 entries; the
  // scalar decode per operand cost a third of the tiles' time); other patterns by decode.
  std::vector<float> tables[2];
  for (const BlockKernel::Role role : {BlockKernel::Role::A, BlockKernel::Role::B}) {
    const Format& f = role == BlockKernel::Role::A ? gk.config().a_format : gk.config().b_format;
    if (f.width > 8) continue;
    std::vector<std::uint64_t> all(std::size_t{1} << f.width);
    for (std::size_t x = 0; x < all.size(); ++x) all[x] = x;
    std::vector<double> v(all.size()), e(all.size());
    gk.decode(role, all.size(), all.data(), v.data(), e.data());
    tables[role == BlockKernel::Role::B].assign(v.begin(), v.end());
  }
  auto decode_row = [&](BlockKernel::Role role, std::size_t count, const std::uint64_t* bits, float* out) {
    const std::vector<float>& table = tables[role == BlockKernel::Role::B];
    std::uint64_t any = 0;  // every pattern below the table's 2^width entries iff their OR is
    for (std::size_t t = 0; t < count; ++t) any |= bits[t];
    if (any < table.size()) {
      for (std::size_t t = 0; t < count; ++t) out[t] = table[bits[t]];
      return;
    }
    thread_local std::vector<double> v, e;
    v.resize(count);
    e.resize(count);
    gk.decode(role, count, bits, v.data(), e.data());
    for (std::size_t t = 0; t < count; ++t) out[t] = static_cast<float>(v[t]);
  };
  run_tasks(threads, (m + 15) / 16, 1, [&](std::size_t ib, std::size_t) {
    for (std::size_t i = ib * 16; i < std::min(m, ib * 16 + 16); ++i) {
      decode_row(BlockKernel::Role::A, K, A + i * K, Af.data() + i * K);
      for (std::size_t g = 0; g < ng; ++g) SA[i * ng + g] = table[scale_a[i * nb + g * group / bs]];
    }
  });
  run_tasks(threads, (K + 15) / 16, 1, [&](std::size_t tb, std::size_t) {
    for (std::size_t t = tb * 16; t < std::min(K, tb * 16 + 16); ++t) {
      decode_row(BlockKernel::Role::B, n, B + t * n, Bf.data() + t * ldb);
      std::fill(Bf.data() + t * ldb + n, Bf.data() + (t + 1) * ldb, 0.0f);  // padding columns: zeros
    }
  });
  for (std::size_t g = 0; g < ng; ++g) {
    const std::uint64_t* s = scale_b + g * group / bs * n;
    for (std::size_t j = 0; j < n; ++j) SB[g * ldb + j] = table[s[j]];
    std::fill(SB.data() + g * ldb + n, SB.data() + (g + 1) * ldb, 1.0);
  }
  const std::size_t panel = std::max(TC, kPanel / TC * TC);
  run_tasks(threads, (m + kRows - 1) / kRows, (ldb + panel - 1) / panel, [&](std::size_t ib, std::size_t p) {
    const std::size_t i0 = ib * kRows, rows = std::min(m, i0 + kRows) - i0;
    const std::size_t j0 = p * panel, w = std::min(ldb, j0 + panel) - j0;
    const std::size_t valid = j0 < n ? std::min(n, j0 + w) - j0 : 0;
    thread_local GroupTileState st;
    st.resize(rows * w);
    for (std::size_t rr = 0; rr < rows; ++rr)
      for (std::size_t j = 0; j < w; ++j) st.bits[rr * w + j] = j < valid ? C[(i0 + rr) * n + j0 + j] : 0;
    gk.decode(BlockKernel::Role::C, st.bits.size(), st.bits.data(), st.value.data(), st.eref.data());
    std::size_t pos = 0;
    do {  // blocks of k, as dot_scaled (K = 0 runs one; no operand is read then)
      const std::size_t len = std::min(k, K - pos), g0 = pos / group;
      gk.run_group_tile(rows, w, len, group, Af.data() + i0 * K + pos, K, SA.data() + i0 * ng + g0, ng,
                        Bf.data() + pos * ldb + j0, ldb, SB.data() + g0 * ldb + j0, st.value.data(), st.eref.data(),
                        w, st.tmp_bits.data(), st.tmp_value.data(), st.tmp_eref.data(), st.fixup.data());
      for (std::size_t rr = 0; rr < rows; ++rr)
        for (std::size_t j = 0; j < w; ++j) {
          const std::size_t e = rr * w + j;
          if (j >= valid) {  // padding: +0 again
            st.tmp_bits[e] = 0;
            st.tmp_value[e] = zero_value;
            st.tmp_eref[e] = zero_eref;
          } else if (st.fixup[e]) {
            st.tmp_bits[e] = to_out(exact(i0 + rr, j0 + j, pos, len, st.bits[e]));
            gk.decode(BlockKernel::Role::C, 1, &st.tmp_bits[e], &st.tmp_value[e], &st.tmp_eref[e]);
          } else if (narrow) {  // re-encoded in `out` (the same value: the decoded one stands)
            st.tmp_bits[e] = to_out(st.tmp_bits[e]);
          }
        }
      std::swap(st.bits, st.tmp_bits);
      std::swap(st.value, st.tmp_value);
      std::swap(st.eref, st.tmp_eref);
      pos += len;
    } while (pos < K);
    for (std::size_t rr = 0; rr < rows; ++rr)
      std::copy_n(st.bits.begin() + static_cast<std::ptrdiff_t>(rr * w), valid, D + (i0 + rr) * n + j0);
  });
}

}  // namespace tcsim::models::detail
