// A fast implementation of the adder's exact rows (AMD CDNA1: each block of k products and c
// summed exactly, one RNE into binary32; units.md 3b): one semantics (FixedPointAdder with
// fraction_bits 'exact'), a second implementation in 128-bit integers.
//
// The nonzero terms (products of operands of at most 24 significand bits, c) are summed exactly
// in units of the smallest term's last bit when all of them span at most 120 bits (a few dozen
// for real data); the sum is rounded to odd at 53 bits (exact in binary64), which the host's
// binary64 to binary32 conversion then rounds once, correctly, to nearest even (subnormals and
// overflow to Inf included). Wider spans, rare, go to the reference adder. NaN, Inf and the
// zero sign follow the reference's rules. Proven equal to it by sim/tests/test_exact_block.cpp
// and models/tests/test_kernel_differential.cpp.
//
// The same sums run in SIMD lanes across output elements (sim/src/amd_lanes.cpp: run() and the
// GEMM tiles) as exact double-double TwoSum chains, rounded to odd at 53 bits as here; lanes
// that cannot be sure (the chain of errors inexact, NaN, Inf, binary32 overflow, zero results
// without the +0 rule) take block(). run_scalar() keeps the element-by-element path.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tcsim/sim/adder.hpp"
#include "tcsim/sim/panel_cache.hpp"

namespace tcsim {

// Why `cfg` with blocks of `k` products cannot run on ExactBlockKernel, or nullopt.
std::optional<std::string> exact_block_unsupported(const AdderConfig& cfg, std::size_t k);

// Every pattern of a <= 16-bit operand format decoded once for the dot_batch lanes (built on
// first use; sim/src/amd_dot_batch.cpp).
struct AmdPlaneTables;
std::shared_ptr<AmdPlaneTables> new_amd_plane_tables();

class ExactBlockKernel {
 public:
  // An operand as the adder reads it: (-1)^negative sig 2^q; kind 0 zero, 1 finite, 2 Inf, 3 NaN.
  struct Operand {
    std::uint32_t sig = 0;
    std::int16_t q = 0;
    std::uint8_t kind = 0;
    bool negative = false;
  };

  // Throws std::invalid_argument with exact_block_unsupported's reason.
  ExactBlockKernel(const AdderConfig& cfg, std::size_t k);
  const AdderConfig& config() const { return ref_.config(); }

  void decode_a(std::size_t count, const std::uint64_t* bits, Operand* out) const;
  void decode_b(std::size_t count, const std::uint64_t* bits, Operand* out) const;

  // One block FMA: products a[t * sa] b[t * sb] for t < len, then +0 products up to k; c and
  // the result are binary32 patterns. a_bits/b_bits (same strides) serve the rare fallback to
  // the reference. Bits equal FixedPointAdder::dot.
  std::uint64_t block(std::size_t len, const Operand* a, const std::uint64_t* a_bits, std::size_t sa,
                      const Operand* b, const std::uint64_t* b_bits, std::size_t sb, std::uint64_t c) const;

  // As BlockKernel::run (element-major patterns), on the lanes.
  void run(std::size_t n, std::size_t len, const std::uint64_t* a, std::size_t lda, const std::uint64_t* b,
           std::size_t ldb, const std::uint64_t* c, std::uint64_t* d) const;
  // The same, element by element through block().
  void run_scalar(std::size_t n, std::size_t len, const std::uint64_t* a, std::size_t lda, const std::uint64_t* b,
                  std::size_t ldb, const std::uint64_t* c, std::uint64_t* d) const;

  // Whether the lanes serve this configuration (every configuration the kernel accepts).
  bool lanes_supported() const { return true; }

  // A GEMM's operands decoded once for the lanes: per operand its exact value (NaN for
  // NaN/Inf); B's columns padded to a multiple of 16 (+0 operands).
  // Planes whose elements are left uninitialized on resize: each gemm_operand_part writes (and
  // first touches) its own share, in parallel tasks (edge25).
  template <class T>
  using Plane = std::vector<T, PanelUninitAllocator<T>>;  // kept by the thread (panel_cache.hpp)
  struct GemmOperands {
    std::size_t m = 0, n = 0, K = 0, ldb = 0;
    Plane<double> a_val, b_val;
    // For the register tiles, per block of k products (ceil(K / k) blocks): of each row of A
    // (a_*[i * blocks + b]) and each column of B (b_*[b * ldb + j]) the largest leading exponent
    // and the least exponent of a last significand bit of its nonzero operands, in int32 (sim
    // amd_lanes.hpp sentinels when there are none, and for NaN/Inf).
    Plane<std::int32_t> a_hi, a_lo, b_hi, b_lo;
    // The same of B per granule of 8 columns (b8_*[(j / 8) * blocks + b]; the chain tiles' run
    // bound, sim exact_chain.cpp).
    Plane<std::int32_t> b8_hi, b8_lo;
    const std::uint64_t *a_bits = nullptr, *b_bits = nullptr;  // A (m x K), B (K x n) as given
    std::vector<double> a_table, b_table;  // the value of every pattern (empty: none), for the parts
  };
  // All at once: gemm_operands_alloc, then every gemm_operand_part.
  GemmOperands gemm_operands(std::size_t m, std::size_t n, std::size_t K, const std::uint64_t* A,
                             const std::uint64_t* B) const;
  // In steps (edge25): the planes allocated (A and B are read by the parts, so they must outlive
  // them), then gemm_operand_parts(ops) independent parts (A's rows, B's rows of whole blocks;
  // disjoint writes: run them as parallel tasks).
  GemmOperands gemm_operands_alloc(std::size_t m, std::size_t n, std::size_t K, const std::uint64_t* A,
                                   const std::uint64_t* B) const;
  std::size_t gemm_operand_parts(const GemmOperands& ops) const;
  void gemm_operand_part(GemmOperands& ops, std::size_t part) const;
  // D = C + A B for rows i0..i0+rows and columns j0..j0+w (j0 a multiple of 16) of a GEMM on the
  // lanes: each element chained over K in instructions of `group` products and blocks of k, as
  // block() by block() (K = 0: one block). C, D: m x n binary32 patterns.
  void gemm_tile(const GemmOperands& ops, std::size_t i0, std::size_t rows, std::size_t j0, std::size_t w,
                 std::size_t group, const std::uint64_t* C, std::uint64_t* D) const;

  // dot_batch (issue 25): n independent elements, each chained over K products in
  // instructions of `group` (blocks of k; K = 0 runs one block) on the lanes, many elements per
  // vector, operands decoded once per call through tables of every pattern; flagged lanes take
  // block(). Element e's product t: a[e * K + t] (element-major) or a[t * ld + e] (planar).
  void dot_chain(std::size_t n, std::size_t K, std::size_t group, const std::uint64_t* a, const std::uint64_t* b,
                 const std::uint64_t* c, std::uint64_t* d) const;
  void dot_chain_planar(std::size_t n, std::size_t K, std::size_t group, const std::uint16_t* a, const std::uint16_t* b,
                        std::size_t ld, const std::uint64_t* c, std::uint64_t* d) const;

 private:
  template <class T>
  void dot_chain_any(std::size_t n, std::size_t K, std::size_t group, const T* a, const T* b, std::size_t se,
                     std::size_t st, const std::uint64_t* c, std::uint64_t* d) const;
  std::shared_ptr<AmdPlaneTables> dot_tables_ = new_amd_plane_tables();
  Operand decode(const Format& f, std::uint64_t bits) const;
  double plane_value(const Format& f, std::uint64_t bits) const;
  // plane_value of `count` patterns (at bits[i * stride]) into value[i], through a table of every
  // pattern where that is cheaper.
  void decode_planes(const Format& f, std::size_t count, const std::uint64_t* bits, std::size_t stride,
                     double* value) const;
  // plane_value of bits[0..count) into value[], through `table` (every pattern's value, or empty).
  void decode_table(const Format& f, const std::vector<double>& table, std::size_t count, const std::uint64_t* bits,
                    double* value) const;
  FixedPointAdder ref_;
  std::size_t k_;
  std::uint64_t nan_ = 0;
};

}  // namespace tcsim
