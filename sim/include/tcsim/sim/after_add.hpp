// A fast implementation of the adder's c_placement After datapath (AMD CDNA3, units.md 3b) in
// int64 arithmetic: one semantics (FixedPointAdder::dot's after_sum), a second implementation.
//
// With operands of at most 12 significand bits (fp16, bf16, xf32's tf32 operands, the fp8
// formats) and F <= 30, every product truncated at F bits below its group's largest exponent is
// below 2^(F+2) units, a group's sum of at most 64 of them below 2^(F+8), the sum floored at
// sum_fraction_bits (<= 40) below E and c floored at c_fraction_bits (<= 40) below E below
// 2^50 units: the exact integers of the reference fit int64. The final value, at most 50
// significant bits, is exact in binary64 and rounds once (RNE, subnormals, overflow to Inf)
// into binary32. NaN, Inf (products >= 2^128 with product_overflow_inf) and zero signs follow
// the reference's rules. Proven equal to it by sim/tests/test_after_add.cpp and
// models/tests/test_kernel_differential.cpp.
//
// The same steps run in SIMD lanes across output elements (sim/src/amd_lanes.cpp: run() and
// the GEMM tiles), each element in exact binary64 arithmetic; lanes that cannot be sure (NaN,
// Inf, products near 2^128, binary32 overflow, zero results without the +0 rule) take block().
// run_scalar() keeps the element-by-element path (the tests compare both).
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

// Why `cfg` with blocks of `k` products cannot run on AfterAddKernel, or nullopt.
std::optional<std::string> after_add_unsupported(const AdderConfig& cfg, std::size_t k);

// Every pattern of a <= 16-bit operand format decoded once for the dot_batch lanes (built on
// first use; sim/src/amd_dot_batch.cpp).
struct AmdPlaneTables;
std::shared_ptr<AmdPlaneTables> new_amd_plane_tables();

class AfterAddKernel {
 public:
  // An operand decoded as the adder reads it: value (-1)^negative sig 2^q, e_ref its leading
  // exponent (emin for subnormals); kind 0 zero, 1 finite, 2 Inf, 3 NaN.
  struct Operand {
    std::uint32_t sig = 0;
    std::int16_t q = 0, e_ref = 0;
    std::uint8_t kind = 0;
    bool negative = false;
  };

  // Throws std::invalid_argument with after_add_unsupported's reason.
  AfterAddKernel(const AdderConfig& cfg, std::size_t k);
  const AdderConfig& config() const { return cfg_; }

  void decode_a(std::size_t count, const std::uint64_t* bits, Operand* out) const;
  void decode_b(std::size_t count, const std::uint64_t* bits, Operand* out) const;

  // One block FMA: products a[t * sa] b[t * sb] for t < len, then +0 products up to k; c and
  // the result are patterns of the (binary32) output. Bits equal FixedPointAdder::dot.
  std::uint64_t block(std::size_t len, const Operand* a, std::size_t sa, const Operand* b, std::size_t sb,
                      std::uint64_t c) const;

  // As BlockKernel::run (element-major patterns): on the lanes when lanes_supported().
  void run(std::size_t n, std::size_t len, const std::uint64_t* a, std::size_t lda, const std::uint64_t* b,
           std::size_t ldb, const std::uint64_t* c, std::uint64_t* d) const;
  // The same, element by element through block().
  void run_scalar(std::size_t n, std::size_t len, const std::uint64_t* a, std::size_t lda, const std::uint64_t* b,
                  std::size_t ldb, const std::uint64_t* c, std::uint64_t* d) const;

  // Whether the lanes serve this configuration (subnormal inputs kept, at most 4 groups).
  bool lanes_supported() const { return lanes_; }
  // Whether gemm_tile runs on the binary32 register tiles (issue 25): lanes, 1 or 2 groups,
  // operands of at most 12 significand bits, group sums below 2^30 units.
  bool tiles_supported() const { return tiles_; }

  // A GEMM's operands decoded once for the lanes: per operand its value (NaN for NaN/Inf) and
  // 2^-e_ref (+Inf for zeros); B's columns padded to a multiple of 16 (+0 operands). With
  // tiles_supported() only a_f, a_e, b_f, b_e are filled.
  // Planes kept by the calling thread for its next GEMM (panel_cache.hpp; zeros on resize as before).
  struct GemmOperands {
    std::size_t m = 0, n = 0, K = 0, ldb = 0;
    PanelVector<double> a_val, a_inv, b_val, b_inv;
    // For the register tiles (tiles_supported()): the values in binary32 and e_ref in int32
    // (sim amd_lanes.hpp sentinels for zeros and NaN/Inf), same layouts.
    PanelVector<float> a_f, b_f;
    PanelVector<std::int32_t> a_e, b_e;
    // Two-group rows on the one-group chain (mi300f8, sim/src/after_add_spread.cpp): per block of
    // k products (k-aligned), the spread (largest minus least e_ref, 255 at most, 0 without a
    // finite nonzero operand) of A's row i (a_spread[i * blocks + b]) and B's column j
    // (b_spread[b * n + j]).
    std::size_t blocks = 0;
    PanelVector<std::uint8_t> a_spread, b_spread;
    // Their maxima over groups of 4 rows (a_spread4[(i / 4) * blocks + b]) and strips of b_strip
    // columns (b_spread_strip[(j / b_strip) * blocks + b]): a micro tile's in one load (mi300g).
    PanelVector<std::uint8_t> a_spread4, b_spread_strip;
    // For the after-add chain (amd_chain.hpp), chain: the e_refs also in int16 (the chain's
    // sentinels) in a_e16, b_e16 (one-group chain rows: instead of a_e, b_e; two-group rows: beside
    // them, for the register tiles' runs); b_strip nonzero (one-group chain rows on x86): b_f,
    // b_e16 strip-major, strips of b_strip columns each over all K rows (element (t, j) at
    // (j / b_strip) * K * b_strip + t * b_strip + j % b_strip), so a chain reads its strip
    // sequentially instead of at a row stride of ldb.
    bool chain = false;
    std::size_t b_strip = 0;
    PanelVector<std::int16_t> a_e16, b_e16;
    // Two-group rows' pair chain (mi300g, sim/src/amd_pair_chain.hpp; b_strip = the strip width,
    // b_e16 strip-major there): per block the unit exponents q of A's rows (a_q[i * blocks + b])
    // and B's columns (b_q[b * ldb + j]), and the integers a 2^-q, b 2^-q as int16 pairs of
    // products (a2[i * k2 + t / 2]; b2 strip-major, element (t / 2, j) at (j / b_strip) * k2 *
    // b_strip + (t / 2) * b_strip + j % b_strip), k2 = ceil(K / 2); for its checked blocks B's
    // values strip-major (b_fs) and the negated e_refs (a_n16, b_n16 strip-major; zeros and
    // NaN/Inf kChainZeroHi), so that a maximum of their sums is minus the least e_ref(ab).
    std::size_t k2 = 0;
    PanelVector<std::int32_t> a_q, b_q, a2, b2;
    PanelVector<std::int16_t> a_n16, b_n16;
    PanelVector<float> b_fs;
    const std::uint64_t *a_bits = nullptr, *b_bits = nullptr;  // A (m x K), B (K x n) as given
  };
  // spreads false: the two-group rows' spreads and pair operands are left to the caller, which
  // runs gemm_spreads(ops, p) for every p < gemm_spread_parts(ops) (in any order, in parallel:
  // each part writes its own rows or columns) before gemm_tile.
  GemmOperands gemm_operands(std::size_t m, std::size_t n, std::size_t K, const std::uint64_t* A,
                             const std::uint64_t* B, bool spreads = true) const;
  std::size_t gemm_spread_parts(const GemmOperands& ops) const;
  void gemm_spreads(GemmOperands& ops, std::size_t part) const;
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
  template <class T, class Fallback>
  bool dot_sums_chain(std::size_t n, std::size_t K, std::size_t group, const T* a, const T* b, std::size_t se,
                      std::size_t st, float* acc, const Fallback& fallback) const;
  std::shared_ptr<AmdPlaneTables> dot_tables_ = new_amd_plane_tables();
  Operand decode(const Format& f, std::uint64_t bits) const;
  void decode_plane(const Format& f, std::uint64_t bits, double& value, double& inv) const;
  // decode_plane of `count` patterns (at bits[i * stride]) into value[i], inv[i] (i < count), through
  // a table of every pattern where that is cheaper.
  void decode_planes(const Format& f, std::size_t count, const std::uint64_t* bits, std::size_t stride, double* value,
                     double* inv) const;
  // gemm_tile's chain over products p0..p0+len_k for rows i0..i0+rows, columns j0..j0+w, c in and
  // the results out in acc (ld padded(w)); one_group: on the one-group chain (the caller proved
  // it equal, or the row has one group; two-group rows: the pair chain, mode[b] = spread_class of
  // the run's block b).
  void gemm_part(const GemmOperands& ops, std::size_t i0, std::size_t rows, std::size_t j0, std::size_t w,
                 std::size_t p0, std::size_t len_k, std::size_t group, bool one_group, float* acc,
                 const std::uint8_t* mode = nullptr) const;
  // after_add_spread.cpp: sizes the spreads and pair planes of ops (blocks, k2, a_spread, b_spread,
  // a_q, b_q, a2, b2 and the strip-major copies; gemm_spreads fills them), and how block b of rows
  // i0..i0+rows x columns j0..j0+w runs: 2 on the pair chain (no product loses a bit, int16 pair
  // operands), 1 on the pair chain checked lane by lane, 0 on the register tiles.
  void gemm_spreads_alloc(GemmOperands& ops) const;
  int spread_class(const GemmOperands& ops, std::size_t b, std::size_t i0, std::size_t rows, std::size_t j0,
                   std::size_t w) const;
  // Whether the operands' e_refs fit the chain's int16 lanes; whether gemm_tile takes the
  // after-add chain for K >= 1 (one group); whether two-group rows run runs of blocks on it.
  bool chain_e16() const;
  bool chain_gemm() const;
  bool chain_two_groups() const;
  AdderConfig cfg_;
  std::size_t k_;
  std::uint64_t nan_ = 0;
  bool lanes_ = false, tiles_ = false;
  // Two groups that the one-group chain may run where spreads allow: the largest admissible
  // spread(a) + spread(b) (F minus the significand bits below the leading ones), or -1.
  int one_group_spread_ = -1;
  // The pair chain's int16 operands: the significand bits p of A and B, and the largest spread
  // (15 - p) whose integers a 2^-q fit int16.
  int pair_bits_a_ = 0, pair_bits_b_ = 0, pair_spread_a_ = -1, pair_spread_b_ = -1;
};

}  // namespace tcsim
