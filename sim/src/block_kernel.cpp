// The int64 block-FMA kernel (see block_kernel.hpp): its entry points, each a SIMD path
// (block_lanes.hpp) with the exact scalar element (block_kernel_impl.cpp) for flagged outputs.
#include "tcsim/sim/block_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "block_kernel_impl.hpp"
#include "block_lanes.hpp"
#include "block_planar32.hpp"
#include "block_tile_chain.hpp"
#include "tcsim/sim/fma_lanes.hpp"
#include "tcsim/sim/codec.hpp"

namespace tcsim {

namespace {

using block_fields::codec_unsupported;
using block_fields::FieldCodec;
using block_fields::Operand;

}  // namespace

std::optional<std::string> block_kernel_unsupported(const AdderConfig& cfg, std::size_t max_products) {
  if (cfg.normalization != Normalization::Deferred) return "per-step normalization";
  if (cfg.c_placement == CPlacement::After) return "c added after the products (two-operand add)";
  if (cfg.c_placement != CPlacement::Aligned) return "c added late";
  if (cfg.uses_extended_fields())
    return "product groups, input truncation, product rounding/overflow or +0 flushing (not in the kernels)";
  if (cfg.product_exponent != ProductExponent::Unnormalized) return "normalized product exponents";
  if (cfg.sticky_bit) return "sticky bit";
  if (cfg.final_rounding == Rounding::Stochastic) return "stochastic final rounding";
  for (auto [f, role] : {std::pair{&cfg.a_format, "a"}, {&cfg.b_format, "b"}, {&cfg.c_format, "c"},
                         {&cfg.out_format, "output"}})
    if (auto why = codec_unsupported(*f, role)) return why;
  if (cfg.a_format.precision > 12 || cfg.b_format.precision > 12)
    return "operands with more than 12 significand bits (products would not fit the int64 lanes' budget)";
  // Every aligned term is below 2^(F+2) units; k products and c must sum below 2^63.
  int terms_bits = 0;
  while ((std::size_t{1} << terms_bits) < max_products + 1) ++terms_bits;
  if (cfg.fraction_bits + 2 + terms_bits > 62)
    return "F = " + std::to_string(cfg.fraction_bits) + " with " + std::to_string(max_products) +
           " products does not fit int64 (needs F + 2 + log2(k+1) <= 62)";
  return std::nullopt;
}

BlockKernel::BlockKernel(const AdderConfig& cfg, std::size_t max_products) {
  cfg.validate();
  if (auto why = block_kernel_unsupported(cfg, max_products))
    throw std::invalid_argument("block kernel: " + *why);
  impl_ = std::make_unique<Impl>(cfg, max_products);
}
BlockKernel::~BlockKernel() = default;
BlockKernel::BlockKernel(BlockKernel&&) noexcept = default;
BlockKernel& BlockKernel::operator=(BlockKernel&&) noexcept = default;

const AdderConfig& BlockKernel::config() const { return impl_->cfg; }
std::size_t BlockKernel::max_products() const { return impl_->max_products; }

void BlockKernel::run(std::size_t n, std::size_t len, const std::uint64_t* a, std::size_t lda, const std::uint64_t* b,
                      std::size_t ldb, const std::uint64_t* c, std::uint64_t* d) const {
  if (len > impl_->max_products)
    throw std::invalid_argument("block kernel: " + std::to_string(len) + " products exceed the block's " +
                                std::to_string(impl_->max_products));
  std::vector<std::uint64_t> pa, pb;
  std::vector<Operand> terms;
  terms.reserve(len + 1);
  std::size_t i = 0;
  if (impl_->patterns) {
    const std::size_t vec = n / impl_->lane_count * impl_->lane_count;
    constexpr std::size_t kChunk = 1024;
    std::uint8_t fixup[kChunk];
    for (; i < vec; i += kChunk) {
      const std::size_t m = std::min(kChunk, vec - i);
      lanes::block_fma_patterns(*impl_->lane_params, impl_->a_codec, impl_->b_codec, impl_->c_codec,
                                impl_->keep_subnormals, m, len, a + i * lda, lda, b + i * ldb, ldb, c + i, d + i,
                                fixup);
      for (std::size_t e = 0; e < m; ++e)
        if (fixup[e]) d[i + e] = impl_->element(len, a + (i + e) * lda, b + (i + e) * ldb, c[i + e], pa, pb, terms);
    }
    i = vec;
  } else if (impl_->lane_params) {
    constexpr std::size_t kChunk = 512;  // elements decoded at a time: the panels stay in L1/L2
    const std::size_t step = std::max(impl_->lane_count, kChunk / impl_->lane_count * impl_->lane_count);
    Impl::Panels panels(len, step);
    for (; i + impl_->lane_count <= n; i += step) {
      const std::size_t m = std::min(step, (n - i) / impl_->lane_count * impl_->lane_count);
      impl_->run_lanes(m, len, a + i * lda, lda, b + i * ldb, ldb, c + i, d + i, panels, pa, pb, terms);
      if (m < step) {
        i += m;
        break;
      }
    }
  }
  for (; i < n; ++i) d[i] = impl_->element(len, a + i * lda, b + i * ldb, c[i], pa, pb, terms);
}

// The planar entry points' shared loop. Elements [0, vec) (whole SIMD vectors, vector_lanes of
// them; 0: no planar path) go through `simd(i, m, fixup)` in chunks, and each element it flags
// through the exact scalar element; the rest, element-major, through run(). operand(t, e) gives
// product t's a and b patterns of element e.
template <class Operand64, class Simd>
void BlockKernel::Impl::planar_loop(const BlockKernel& kernel, const Impl& impl, std::size_t n, std::size_t len,
                                    std::size_t vector_lanes, Operand64 operand, Simd simd, const std::uint64_t* c,
                                    std::uint64_t* d) {
  if (len > impl.max_products)
    throw std::invalid_argument("block kernel: " + std::to_string(len) + " products exceed the block's " +
                                std::to_string(impl.max_products));
  std::vector<std::uint64_t> ga, gb, pa, pb;
  std::vector<Operand> terms;
  auto gather = [&](std::size_t i, std::size_t m) {  // elements [i, i + m) element-major for run()
    ga.resize(m * len);
    gb.resize(m * len);
    for (std::size_t t = 0; t < len; ++t)
      for (std::size_t e = 0; e < m; ++e) std::tie(ga[e * len + t], gb[e * len + t]) = operand(t, i + e);
  };
  std::size_t i = 0;
  if (vector_lanes > 0) {
    const std::size_t vec = n / vector_lanes * vector_lanes;
    constexpr std::size_t kChunk = 1024;
    std::uint8_t fixup[kChunk];
    for (; i < vec; i += kChunk) {
      const std::size_t m = std::min(kChunk, vec - i);
      simd(i, m, fixup);
      for (std::size_t e = 0; e < m; ++e)
        if (fixup[e]) {
          gather(i + e, 1);
          d[i + e] = impl.element(len, ga.data(), gb.data(), c[i + e], pa, pb, terms);
        }
    }
    i = vec;
  }
  constexpr std::size_t kGroup = 256;
  for (; i < n; i += kGroup) {
    const std::size_t m = std::min(kGroup, n - i);
    gather(i, m);
    kernel.run(m, len, ga.data(), len, gb.data(), len, c + i, d + i);
  }
}

bool BlockKernel::planar_supported() const { return impl_->planar; }

void BlockKernel::run_planar(std::size_t n, std::size_t len, const std::uint16_t* a, std::size_t lda,
                             const std::uint16_t* b, std::size_t ldb, const std::uint64_t* c, std::uint64_t* d) const {
  Impl::planar_loop(
      *this, *impl_, n, len, impl_->planar ? lanes::planar16_lane_count() : 0,
      [&](std::size_t t, std::size_t e) { return std::pair<std::uint64_t, std::uint64_t>{a[t * lda + e], b[t * ldb + e]}; },
      [&](std::size_t i, std::size_t m, std::uint8_t* fixup) {
        lanes::block_fma_planar16(*impl_->lane_params, impl_->a_codec, impl_->b_codec, impl_->c_codec, m, len, a + i,
                                  lda, b + i, ldb, c + i, d + i, fixup);
      },
      c, d);
}

void BlockKernel::run_planar_rows(std::size_t n, std::size_t len, const std::uint16_t* const* a_rows,
                                  const std::uint16_t* const* b_rows, const std::uint64_t* c, std::uint64_t* d) const {
  Impl::planar_loop(
      *this, *impl_, n, len, impl_->planar ? lanes::planar16_lane_count() : 0,
      [&](std::size_t t, std::size_t e) { return std::pair<std::uint64_t, std::uint64_t>{a_rows[t][e], b_rows[t][e]}; },
      [&](std::size_t i, std::size_t m, std::uint8_t* fixup) {
        lanes::block_fma_planar16_rows(*impl_->lane_params, impl_->a_codec, impl_->b_codec, impl_->c_codec, m, len,
                                       a_rows, b_rows, i, c + i, d + i, fixup);
      },
      c, d);
}

bool BlockKernel::planar32_supported() const { return impl_->planar32; }

void BlockKernel::run_planar32(std::size_t n, std::size_t len, const std::uint32_t* a, std::size_t lda,
                               const std::uint32_t* b, std::size_t ldb, const std::uint64_t* c, std::uint64_t* d) const {
  // The binary32 products below the normal range must round as IEEE says (no DAZ/FTZ).
  const fma_lanes::DefaultFloatEnvironment env;
  Impl::planar_loop(
      *this, *impl_, n, len, impl_->planar32 ? lanes::planar32_lane_count() : 0,
      [&](std::size_t t, std::size_t e) { return std::pair<std::uint64_t, std::uint64_t>{a[t * lda + e], b[t * ldb + e]}; },
      [&](std::size_t i, std::size_t m, std::uint8_t* fixup) {
        lanes::block_fma_planar32(*impl_->lane_params, impl_->a_codec, impl_->b_codec, impl_->c_codec, m, len, a + i,
                                  lda, b + i, ldb, c + i, d + i, fixup);
      },
      c, d);
}

void BlockKernel::decode(Role role, std::size_t count, const std::uint64_t* bits, double* value, double* eref) const {
  const Impl& k = *impl_;
  const FieldCodec& f = role == Role::A ? k.a : (role == Role::B ? k.b : k.c);
  for (std::size_t i = 0; i < count; ++i) Impl::lane_operand(f, bits[i], k.keep_subnormals, value[i], eref[i]);
}

bool BlockKernel::tile_supported() const { return impl_->tiles; }
std::size_t BlockKernel::tile_columns() const { return lanes::tile_columns(); }

void BlockKernel::decode_tile(Role role, std::size_t count, const std::uint64_t* bits, float* value,
                              std::int32_t* eref) const {
  const Impl& k = *impl_;
  const lanes::PatternCodec& f = role == Role::A ? k.a_codec : (role == Role::B ? k.b_codec : k.c_codec);
  lanes::decode_tile_lanes(f, k.keep_subnormals, count, bits, value, eref);
}

void BlockKernel::decode_tile(Role role, std::size_t count, const std::uint64_t* bits, float* value,
                              std::int16_t* eref) const {
  decode_tile_rows(role, 1, count, bits, count, value, eref, count);
}

void BlockKernel::decode_tile_rows(Role role, std::size_t rows, std::size_t cols, const std::uint64_t* bits,
                                   std::size_t ld_bits, float* value, std::int16_t* eref, std::size_t ld_out) const {
  const Impl& k = *impl_;
  const lanes::PatternCodec& f = role == Role::A ? k.a_codec : (role == Role::B ? k.b_codec : k.c_codec);
  lanes::decode_tile16_lanes(f, k.keep_subnormals, rows, cols, bits, ld_bits, value, eref, ld_out);
}

void BlockKernel::run_tile(std::size_t rows, std::size_t cols, std::size_t valid_cols, std::size_t len,
                           const std::uint64_t* a_bits, const float* a_value, const std::int16_t* a_eref,
                           std::size_t lda, const std::uint64_t* b_bits, const float* b_value,
                           const std::int16_t* b_eref, std::size_t ldb, const std::uint64_t* c_bits,
                           const float* c_value, const std::int32_t* c_eref, std::uint64_t* d_bits, float* d_value,
                           std::int32_t* d_eref, std::size_t ldc) const {
  const Impl& k = *impl_;
  if (!k.tiles) throw std::logic_error("block kernel: run_tile on a configuration without tiles");
  if (len > k.max_products)
    throw std::invalid_argument("block kernel: " + std::to_string(len) + " products exceed the block's " +
                                std::to_string(k.max_products));
  if (cols % lanes::tile_columns() != 0 || valid_cols > cols)
    throw std::invalid_argument("block kernel: run_tile needs cols a multiple of tile_columns()");
  thread_local std::vector<std::uint32_t> flagged;
  if (flagged.size() < rows * ldc) flagged.resize(rows * ldc);
  const std::size_t count = lanes::block_tile(*k.lane_params, rows, cols, len, a_value, a_eref, lda, b_value, b_eref,
                                              ldb, c_value, c_eref, d_bits, d_value, d_eref, ldc, flagged.data());
  std::vector<std::uint64_t> column, pa, pb;
  std::vector<Operand> terms;
  for (std::size_t f = 0; f < count; ++f) {
    const std::size_t o = flagged[f], r = o / ldc, j = o % ldc;
    if (j >= valid_cols) continue;  // padding
    column.resize(len);
    for (std::size_t t = 0; t < len; ++t) column[t] = b_bits[t * ldb + j];
    d_bits[o] = k.element(len, a_bits + r * lda, column.data(), c_bits[o], pa, pb, terms);
    Impl::tile_operand(k.out, d_bits[o], k.keep_subnormals, d_value[o], d_eref[o]);
  }
}

std::size_t BlockKernel::run_tile_lanes(std::size_t rows, std::size_t cols, std::size_t len, const float* a_value,
                                        const std::int16_t* a_eref, std::size_t lda, const float* b_value,
                                        const std::int16_t* b_eref, std::size_t ldb, const float* c_value,
                                        const std::int32_t* c_eref, std::uint64_t* d_bits, float* d_value,
                                        std::int32_t* d_eref, std::size_t ldc, std::uint32_t* flagged) const {
  const Impl& k = *impl_;
  if (!k.tiles) throw std::logic_error("block kernel: run_tile_lanes on a configuration without tiles");
  if (len > k.max_products)
    throw std::invalid_argument("block kernel: " + std::to_string(len) + " products exceed the block's " +
                                std::to_string(k.max_products));
  if (cols % lanes::tile_columns() != 0)
    throw std::invalid_argument("block kernel: run_tile_lanes needs cols a multiple of tile_columns()");
  return lanes::block_tile(*k.lane_params, rows, cols, len, a_value, a_eref, lda, b_value, b_eref, ldb, c_value, c_eref,
                           d_bits, d_value, d_eref, ldc, flagged);
}

std::size_t BlockKernel::tile_rows() const { return lanes::kTileRows; }

bool BlockKernel::run_tile_chain(std::size_t rows, std::size_t cols, std::size_t valid_cols, std::size_t K,
                                 std::size_t block, const float* a_value, const std::int16_t* a_eref, std::size_t lda,
                                 const float* b_value, const std::int16_t* b_eref, std::size_t ldb, float* c_value,
                                 std::int32_t* c_eref, std::uint64_t* d_bits, std::size_t ldc, std::size_t* stops,
                                 std::size_t strip_stride, const TileChainMaxima* maxima) const {
  const Impl& k = *impl_;
  if (!k.tiles || block > k.max_products || cols % lanes::tile_columns() != 0 || valid_cols > cols) return false;
  return lanes::block_tile_chain(*k.lane_params, rows, cols, valid_cols, K, block, a_value, a_eref, lda, b_value, b_eref,
                                 ldb, c_value, c_eref, d_bits, ldc, stops, strip_stride, maxima);
}

bool BlockKernel::tile_chain_supported(std::size_t K, std::size_t block) const {
  const Impl& k = *impl_;
  return k.tiles && block <= k.max_products && lanes::block_tile_chain_supported(*k.lane_params, K, block);
}

std::size_t BlockKernel::chain_maxima_lanes(std::size_t block) const {
  const Impl& k = *impl_;
  if (!k.tiles || block > k.max_products) return 0;
  return lanes::block_tile_chain_maxima_lanes(*k.lane_params, block);
}

void BlockKernel::chain_row_maxima(std::size_t rows, std::size_t K, std::size_t block, const std::int16_t* a_eref,
                                   std::size_t lda, std::int16_t* a_max, std::uint16_t* a_mask) const {
  if (chain_maxima_lanes(block) != 0) lanes::block_tile_row_maxima(rows, K, block, a_eref, lda, a_max, a_mask);
}

void BlockKernel::chain_column_maxima(std::size_t K, std::size_t block, const std::int16_t* b_eref, std::size_t ldb,
                                      std::int16_t* b_max, std::uint16_t* b_mask) const {
  if (chain_maxima_lanes(block) != 0) lanes::block_tile_column_maxima(K, block, b_eref, ldb, b_max, b_mask);
}

bool BlockKernel::run_tile_pairs_chain(bool binary16_add, std::size_t rows, std::size_t cols, std::size_t valid_cols,
                                       std::size_t K, std::size_t block, const float* a_value,
                                       const std::int16_t* a_eref, std::size_t lda, const float* b_value,
                                       const std::int16_t* b_eref, std::size_t ldb, float* c_value,
                                       std::int32_t* c_eref, std::uint64_t* d_bits, std::size_t ldc,
                                       std::size_t* stops) const {
  const Impl& k = *impl_;
  if (!k.tiles || block > k.max_products || cols % lanes::tile_columns() != 0 || valid_cols > cols) return false;
  return lanes::block_tile_pairs_chain(*k.lane_params, binary16_add, rows, cols, valid_cols, K, block, a_value, a_eref,
                                       lda, b_value, b_eref, ldb, c_value, c_eref, d_bits, ldc, stops);
}

void BlockKernel::run_row_lanes(std::size_t n, std::size_t len, const double* a_value, const double* a_eref,
                                const double* b_value, const double* b_eref, std::size_t ldb, const double* c_value,
                                const double* c_eref, std::uint64_t* d_bits, double* d_value, double* d_eref,
                                std::uint8_t* fixup) const {
  const Impl& k = *impl_;
  if (len > k.max_products)
    throw std::invalid_argument("block kernel: " + std::to_string(len) + " products exceed the block's " +
                                std::to_string(k.max_products));
  std::size_t vec = 0;
  if (k.lane_params) {
    vec = n / k.lane_count * k.lane_count;
    if (vec) lanes::block_fma(*k.lane_params, vec, len, a_value, a_eref, true, b_value, b_eref, ldb, c_value, c_eref,
                              d_bits, d_value, d_eref, fixup);
  }
  std::fill(fixup + vec, fixup + n, std::uint8_t{1});
}

bool BlockKernel::groups_supported(std::size_t group) const {
  const Impl& k = *impl_;
  if (!k.lane_params || group == 0 || group > lanes::kMaxPatternLen || k.max_products > lanes::kMaxPatternLen)
    return false;
  int group_bits = 0;
  while ((std::size_t{1} << group_bits) < group) ++group_bits;
  // A product lies in [2^lo, 2^hi) (subnormals included), so does every partial sum of a group
  // up to a factor `group`: exact in binary64 while hi - lo + group_bits <= 53, normal while
  // lo >= -1022. Scales of a group are one factor for all its products (at most 8 more bits:
  // ue4m3 x ue4m3).
  const int hi = k.a.emax + k.b.emax + 2;
  const int lo = (k.a.emin - (k.a.precision - 1)) + (k.b.emin - (k.b.precision - 1));
  // Margins of 2^300 for scale factors folded into the operands (ue8m0: 2^-127 .. 2^127 each).
  return k.a.precision + k.b.precision <= 53 && hi - lo + group_bits + 8 <= 53 && lo - 600 >= -1022 && hi + 600 <= 1000;
}

void BlockKernel::run_row_groups(std::size_t n, std::size_t len, std::size_t group, const double* a_value,
                                 bool a_broadcast, const double* b_value, std::size_t ldb, const double* c_value, const double* c_eref,
                                 std::uint64_t* d_bits, double* d_value, double* d_eref, std::uint8_t* fixup) const {
  const Impl& k = *impl_;
  if (!groups_supported(group)) throw std::logic_error("block kernel: run_row_groups on a configuration without groups");
  if (len > k.max_products)
    throw std::invalid_argument("block kernel: " + std::to_string(len) + " products exceed the block's " +
                                std::to_string(k.max_products));
  const std::size_t vec = n / k.lane_count * k.lane_count;
  if (vec)
    lanes::block_fma_groups(*k.lane_params, vec, len, group, a_value, a_broadcast, b_value, ldb, c_value, c_eref, d_bits, d_value,
                            d_eref, fixup);
  std::fill(fixup + vec, fixup + n, std::uint8_t{1});
}

bool BlockKernel::group_tile_supported(std::size_t group) const {
  const Impl& k = *impl_;
  if (!k.lane_params || group == 0 || group > lanes::kMaxPatternLen ||
      (k.max_products + group - 1) / group > lanes::kMaxTileGroups)
    return false;
  int group_bits = 0;
  while ((std::size_t{1} << group_bits) < group) ++group_bits;
  // Products lie in [2^lo, 2^hi) and are multiples of 2^lo, partial group sums below
  // 2^(hi + group_bits): exact binary32 numbers while that spans at most 24 bits, normal while
  // lo >= -126.
  const int hi = k.a.emax + k.b.emax + 2;
  const int lo = (k.a.emin - (k.a.precision - 1)) + (k.b.emin - (k.b.precision - 1));
  return hi + group_bits - lo <= 24 && lo >= -126 && hi + group_bits <= 127;
}

std::size_t BlockKernel::group_tile_columns() const { return lanes::group_tile_columns(); }

void BlockKernel::run_group_tile(std::size_t rows, std::size_t cols, std::size_t len, std::size_t group, const float* a,
                                 std::size_t lda, const double* a_scale, std::size_t ldas, const float* b,
                                 std::size_t ldb, const double* b_scale, const double* c_value, const double* c_eref,
                                 std::size_t ldc, std::uint64_t* d_bits, double* d_value, double* d_eref,
                                 std::uint8_t* fixup) const {
  const Impl& k = *impl_;
  if (!group_tile_supported(group)) throw std::logic_error("block kernel: run_group_tile on an unsupported configuration");
  if (len > k.max_products)
    throw std::invalid_argument("block kernel: " + std::to_string(len) + " products exceed the block's " +
                                std::to_string(k.max_products));
  if (cols % lanes::group_tile_columns() != 0)
    throw std::invalid_argument("block kernel: run_group_tile's cols " + std::to_string(cols) +
                                " is not a multiple of group_tile_columns() = " +
                                std::to_string(lanes::group_tile_columns()));
  lanes::block_group_tile(*k.lane_params, rows, cols, len, group, a, lda, a_scale, ldas, b, ldb, b_scale, c_value,
                          c_eref, ldc, d_bits, d_value, d_eref, fixup);
}

void BlockKernel::run_row(std::size_t n, std::size_t len, const std::uint64_t* a_bits, const double* a_value,
                          const double* a_eref, const std::uint64_t* b_bits, const double* b_value,
                          const double* b_eref, std::size_t ldb, const std::uint64_t* c_bits, const double* c_value,
                          const double* c_eref, std::uint64_t* d_bits, double* d_value, double* d_eref) const {
  const Impl& k = *impl_;
  if (len > k.max_products)
    throw std::invalid_argument("block kernel: " + std::to_string(len) + " products exceed the block's " +
                                std::to_string(k.max_products));
  std::size_t vec = 0;
  std::vector<std::uint8_t> fixup(n, 1);
  if (k.lane_params) {
    vec = n / k.lane_count * k.lane_count;
    if (vec) lanes::block_fma(*k.lane_params, vec, len, a_value, a_eref, true, b_value, b_eref, ldb, c_value, c_eref,
                              d_bits, d_value, d_eref, fixup.data());
  }
  std::vector<std::uint64_t> column(len), pa, pb;
  std::vector<Operand> terms;
  for (std::size_t j = 0; j < n; ++j) {
    if (!fixup[j]) continue;
    for (std::size_t t = 0; t < len; ++t) column[t] = b_bits[t * ldb + j];
    d_bits[j] = k.element(len, a_bits, column.data(), c_bits[j], pa, pb, terms);
    // Decoded as the next block's c will be read (NaN/Inf: a NaN value, so that lane takes
    // the exact path again).
    Impl::lane_operand(k.out, d_bits[j], k.keep_subnormals, d_value[j], d_eref[j]);
  }
}

bool BlockKernel::run_groups_planar(std::size_t n, std::size_t len, std::size_t group, const double* a_table,
                                    const double* b_table, const std::uint16_t* a, std::size_t lda,
                                    const std::uint16_t* b, std::size_t ldb, const double* a_scale,
                                    const double* b_scale, std::size_t lds, const double* c_value,
                                    const double* c_eref, std::uint64_t* d_bits, double* d_value, double* d_eref,
                                    std::uint8_t* fixup) const {
  const Impl& k = *impl_;
  const int width = k.cfg.a_format.width;
  if (!group_tile_supported(group) || k.cfg.b_format.width != width || width < 2 || width > 16) return false;
  const std::size_t half = std::size_t{1} << (width - 1), lanes_n = lanes::group_planar_lanes(2 * half);
  if (lanes_n == 0) return false;
  if (len > k.max_products)
    throw std::invalid_argument("block kernel: " + std::to_string(len) + " products exceed the block's " +
                                std::to_string(k.max_products));
  // The lanes read |value| from the table's first half and the sign from the top bit (decode's
  // zeros are +0 for both signs: a zero's sign changes no nonzero sum, and zero sums are flagged).
  std::vector<float> ta(half), tb(half);
  for (const auto& [table, out] : {std::pair{a_table, &ta}, {b_table, &tb}})
    for (std::size_t x = 0; x < half; ++x) {
      const double v = table[x], neg = table[x | half];
      const bool nan = std::isnan(v);
      if (nan != std::isnan(neg) ||
          (!nan && (v < 0 || static_cast<double>(static_cast<float>(v)) != v || neg != -v)))
        return false;
      (*out)[x] = nan ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(v);
    }
  // The same values as integers for the int16 group sums (lanes::IntTables, issue 25, dotf4):
  // value = integer * 2^lsb with lsb the format's least significant bit (emin - (precision - 1),
  // subnormals included), the integers exact (checked), and every partial group sum below 2^15:
  // at most `group` products of at most max|A| max|B| each.
  lanes::IntTables ints;
  bool int_sums = (std::size_t{1} << width) <= std::min<std::size_t>(32, lanes::group_int_lanes());
  const int a_lsb = k.a.emin - (k.a.precision - 1), b_lsb = k.b.emin - (k.b.precision - 1);
  double a_max = 0, b_max = 0;
  for (const auto& [table, lsb, out, peak] :
       {std::tuple{a_table, a_lsb, ints.a, &a_max}, std::tuple{b_table, b_lsb, ints.b, &b_max}}) {
    const double up = std::ldexp(1.0, -lsb);  // exact scaling: a power of two
    for (std::size_t x = 0; int_sums && x < 2 * half; ++x) {
      const double v = table[x] * up;  // NaN fails the test below
      if (!(std::abs(v) < 0x1p14 && v == std::trunc(v))) {
        int_sums = false;
      } else {
        out[x] = static_cast<std::int16_t>(v);
        *peak = std::max(*peak, std::abs(v));
      }
    }
  }
  int_sums = int_sums && static_cast<double>(group) * a_max * b_max < 0x1p15 && a_lsb + b_lsb >= -126 &&
             a_lsb + b_lsb + 15 <= 127;
  ints.unit = int_sums ? std::ldexp(1.0f, a_lsb + b_lsb) : 1.0f;
  const std::size_t vec = n / lanes_n * lanes_n;
  if (vec)
    lanes::block_groups_planar(*k.lane_params, width, ta.data(), tb.data(), int_sums ? &ints : nullptr, vec, len,
                               group, a, lda, b, ldb, a_scale, b_scale, lds, c_value, c_eref, d_bits, d_value, d_eref,
                               fixup);
  std::fill(fixup + vec, fixup + n, std::uint8_t{1});
  return true;
}

}  // namespace tcsim
