// Private to sim/src: the state of a BlockKernel (block_kernel.cpp holds BlockKernel's
// members): the choice of its paths and the exact scalar evaluation of one element
// (block_kernel_impl.cpp), which every path falls back to.
#pragma once
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "block_fields.hpp"
#include "block_lanes.hpp"
#include "tcsim/sim/block_kernel.hpp"

namespace tcsim {

struct BlockKernel::Impl {
  using FieldCodec = block_fields::FieldCodec;
  using Kind = block_fields::Kind;
  using Operand = block_fields::Operand;

  AdderConfig cfg;
  std::size_t max_products = 0;
  FixedPointAdder reference;
  FieldCodec a, b, c, out;
  int register_bits = 0;
  bool keep_subnormals = true;
  RoundingOptions slow_rounding;
  // The binary64-lane SIMD core, where its exactness budget holds (block_lanes.hpp).
  std::optional<lanes::LaneParams> lane_params;
  std::size_t lane_count = 1;
  // The pattern path of run() (block_fma_patterns), where it applies.
  bool patterns = false;
  bool tiles = false;  // block_tile's conditions (block_lanes.hpp)
  bool planar = false;  // block_fma_planar16's conditions, on a SIMD target
  bool planar32 = false;  // block_fma_planar32's conditions (tf32), on a SIMD target
  lanes::PatternCodec a_codec, b_codec, c_codec;

  Impl(const AdderConfig& config, std::size_t k);

  // Operands, c and d exact in binary32, significands of at most 12 bits (products exact in
  // binary32 where they lie in its normal range), an int32 block sum, truncating alignment.
  // bf16 and tf32 products may leave binary32's range: block_tile flags every output whose
  // E could overflow a product (E > kTileMaxE) or whose terms reach below the normal range
  // (E - F < -120); products below that range truncate to 0 as their exact values do.
  // Blocks longer than 2^(29 - F) products sum in int32 chunks of that length, added in
  // binary64 (lanes::tile_chunk_len; exact: this Impl's lanes need F + 3 + log2(k + 1) <= 53).
  bool tile_conditions() const;

  static void tile_operand(const FieldCodec& f, std::uint64_t bits, bool keep_subnormals, float& value,
                           std::int32_t& eref) {
    double v, e;
    lane_operand(f, bits, keep_subnormals, v, e);
    value = static_cast<float>(v);  // exact (tile_conditions), NaN for specials
    eref = e == lanes::kZeroExponent ? lanes::kTileZero : (v != v ? lanes::kTileSpecial : static_cast<std::int32_t>(e));
  }

  static lanes::PatternCodec pattern_codec(const FieldCodec& f);

  // 2^e for e in binary64's normal range [-1022, 1023].
  static double power_of_two(int e) { return std::bit_cast<double>(static_cast<std::uint64_t>(e + 1023) << 52); }

  static int lane_rounding(Rounding r);

  // An operand for the lanes: its exact value and alignment exponent; zeros never set E,
  // NaN/Inf (and patterns out of range) make the lane's sum NaN, hence the exact path.
  static void lane_operand(const FieldCodec& f, std::uint64_t bits, bool keep_subnormals, double& value, double& eref) {
    if (bits & ~f.width_mask) {
      value = std::numeric_limits<double>::quiet_NaN();
      eref = 0;
      return;
    }
    const Operand o = block_fields::decode_fields(f, bits, keep_subnormals);
    switch (o.kind) {
      case Kind::Zero: value = 0; eref = lanes::kZeroExponent; return;
      case Kind::Special: value = std::numeric_limits<double>::quiet_NaN(); eref = 0; return;
      case Kind::Finite:
        value = o.negative ? -static_cast<double>(o.sig) : static_cast<double>(o.sig);
        // Exact: the value is a binary64 number (c may be a binary64 subnormal: two steps).
        value = o.lsb >= -1022 ? value * power_of_two(o.lsb) : value * power_of_two(o.lsb + 64) * power_of_two(-64);
        eref = o.eref;
        return;
    }
  }

  // Decoded panels of up to `chunk` elements: value and e_ref of every operand, t-major.
  struct Panels {
    std::unique_ptr<double[]> av, ae, bv, be, cv, ce;
    std::unique_ptr<std::uint8_t[]> fixup;
    Panels(std::size_t len, std::size_t chunk)
        : av(new double[len * chunk]), ae(new double[len * chunk]), bv(new double[len * chunk]),
          be(new double[len * chunk]), cv(new double[chunk]), ce(new double[chunk]), fixup(new std::uint8_t[chunk]) {}
  };

  // Elements [0, n) through the SIMD core, n a multiple of lane_count; the flagged ones
  // through element().
  void run_lanes(std::size_t n, std::size_t len, const std::uint64_t* a, std::size_t lda, const std::uint64_t* b,
                 std::size_t ldb, const std::uint64_t* c_bits, std::uint64_t* d, Panels& w, std::vector<std::uint64_t>& pa,
                 std::vector<std::uint64_t>& pb, std::vector<Operand>& terms) const;

  // zero_result() of adder.cpp.
  std::uint64_t zero(bool all_negative, bool all_positive) const;

  // The final rounding of (-1)^negative * mag * 2^lsb, mag > 0. Results in the output's
  // normal range are rounded here; the rest (subnormal, overflow) by round_to_format.
  std::uint64_t round_out(bool negative, std::uint64_t mag, std::int64_t lsb) const;

  // The results of a block whose terms hold an infinity and nothing else special, by the
  // sign of the infinity (round_to_format of adder.cpp's infinite result).
  std::uint64_t infinite_result[2] = {0, 0};
  std::uint64_t nan_result = 0;  // nan_bits() of adder.cpp: the row's NaN pattern
  bool specials_decided = false;  // the output has a NaN: special() decides

  // The result of an element with a NaN or Inf operand as FixedPointAdder::dot gives it for
  // the configurations this kernel accepts (deferred normalization, c aligned, no product
  // overflow to Inf): NaN for a NaN term, Inf x 0 or infinities of both signs, else the
  // signed infinity rounded. The finite terms never change it, so they are not summed
  // (before, every such block ran through the reference adder: the GEMM's NaN/Inf cliff).
  // slow() when a pattern is out of range, so that the reference reports it.
  std::uint64_t special(std::size_t len, const std::uint64_t* a_row, const std::uint64_t* b_row, std::uint64_t c_bits,
                        std::vector<std::uint64_t>& pa, std::vector<std::uint64_t>& pb) const;

  // The reference adder on one element (patterns out of range).
  std::uint64_t slow(std::size_t len, const std::uint64_t* a_row, const std::uint64_t* b_row, std::uint64_t c_bits,
                     std::vector<std::uint64_t>& pa, std::vector<std::uint64_t>& pb) const;

  // One element in int64 (gather, aligned_sum, round_out of adder.cpp); slow() where an
  // operand is NaN/Inf or out of range.
  std::uint64_t element(std::size_t len, const std::uint64_t* a_row, const std::uint64_t* b_row,
                        std::uint64_t c_bits, std::vector<std::uint64_t>& pa, std::vector<std::uint64_t>& pb,
                        std::vector<Operand>& terms) const;

  // The loop of run_planar, run_planar_rows and run_planar32 (block_kernel.cpp).
  template <class Operand64, class Simd>
  static void planar_loop(const BlockKernel& kernel, const Impl& impl, std::size_t n, std::size_t len,
                          std::size_t vector_lanes, Operand64 operand, Simd simd, const std::uint64_t* c,
                          std::uint64_t* d);
};

}  // namespace tcsim
