// A fast implementation of the adder's per-step pairwise datapath when every step is an
// IEEE binary32 operation (AMD CDNA2, units.md 3b): one semantics (FixedPointAdder), a second
// implementation in host binary32 arithmetic.
//
// The reference, per block of k products: each product rounded into binary32 (RNE), then a
// balanced tree of two-operand additions ((p0 + p1) + (p2 + p3)) and finally + c, every
// addition aligned with F >= 50 bits and a sticky bit and rounded RNE into binary32, so each
// one is the correctly rounded IEEE sum; with subnormal_inputs/outputs false every subnormal
// operand (c included) is flushed, and every product and partial sum whose exact value is
// below 2^-126 becomes a zero of its sign. Here: operands of at most 12 significand bits
// (fp16, bf16, ...) are exact binary32 numbers, their products are exact binary32 products
// (a bf16 product below 2^-126 is flushed before it could be rounded; one at or above 2^128
// is Inf in both), the host's binary32 additions are IEEE's (round to nearest even; the sum
// of two normal numbers below 2^-126 is exact, so flushing the host's result is flushing the
// exact value), and the flushes are explicit selects: nothing depends on the MXCSR's
// flush-to-zero or denormals-are-zero bits (the default environment is assumed: RNE, no FTZ,
// no DAZ). NaN, Inf, Inf - Inf and zero signs are IEEE's in both. Proven equal to the reference
// by sim/tests/test_ieee_tree.cpp and models/tests/test_amd_kernels.cpp.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "tcsim/sim/adder.hpp"

namespace tcsim {

// Why `cfg` with blocks of `k` products cannot run on Binary32TreeKernel, or nullopt.
std::optional<std::string> binary32_tree_unsupported(const AdderConfig& cfg, std::size_t k);

class Binary32TreeKernel {
 public:
  // Throws std::invalid_argument with binary32_tree_unsupported's reason.
  Binary32TreeKernel(const AdderConfig& cfg, std::size_t k);

  const AdderConfig& config() const { return cfg_; }
  std::size_t fma_size() const { return k_; }

  // a and b patterns as binary32 values, flushed as the adder reads them.
  void decode_operands(std::size_t count, const std::uint64_t* bits, float* value) const;
  float decode_operand(std::uint64_t bits) const;
  // c (and accumulator) patterns of the binary32 output, flushed as the adder reads c.
  float decode_c(std::uint64_t bits) const;
  // A block's result as the adder returns it: NaN as the NaN pattern, zeros per zero_sign.
  std::uint64_t encode(float v) const;

  // As BlockKernel::run: n block FMAs, element i from a[i*lda + t], b[i*ldb + t] (t < len),
  // then (k - len) +0 products. Bits equal FixedPointAdder::dot.
  void run(std::size_t n, std::size_t len, const std::uint64_t* a, std::size_t lda, const std::uint64_t* b,
           std::size_t ldb, const std::uint64_t* c, std::uint64_t* d) const;

  // GEMM: for rows r < `rows` of decoded A (a[r * lda + t]) and columns j < n of decoded B
  // (b[t * ldb + j]), the chain over t < KK in instructions of `group` products, each cut
  // into blocks of k (the last block of an instruction padded with +0 products):
  // acc[r * ldacc + j] in/out, binary32 accumulators (decode_c'd). n may be any count; the
  // lanes read and write only j < n.
  void run_chain(std::size_t rows, std::size_t n, std::size_t KK, std::size_t group, const float* a,
                 std::size_t lda, const float* b, std::size_t ldb, float* acc, std::size_t ldacc) const;

  // dot_batch (issue 25; sim/src/ieee_tree_dot.cpp): n independent elements, each chained
  // over K products in instructions of `group` (blocks of k; K = 0 runs one block), one element
  // per SIMD lane with its own operands. Element e's product t: a[e * K + t] (element-major)
  // or a[t * ld + e] (planar); c and d binary32 patterns.
  void dot_chain(std::size_t n, std::size_t K, std::size_t group, const std::uint64_t* a, const std::uint64_t* b,
                 const std::uint64_t* c, std::uint64_t* d) const;
  void dot_chain_planar(std::size_t n, std::size_t K, std::size_t group, const std::uint16_t* a, const std::uint16_t* b,
                        std::size_t ld, const std::uint64_t* c, std::uint64_t* d) const;

 private:
  template <class T>
  void dot_chain_any(std::size_t n, std::size_t K, std::size_t group, const T* a, const T* b, std::size_t se,
                     std::size_t st, const std::uint64_t* c, std::uint64_t* d) const;
  AdderConfig cfg_;
  std::size_t k_;
  // Operand field layout (a and b share the format).
  int frac_bits_ = 0, exp_bits_ = 0, bias_ = 0, width_ = 0;
  bool flush_products_ = true;  // products or tree sums can fall below 2^-126
  std::uint64_t nan_ = 0;
};

}  // namespace tcsim
