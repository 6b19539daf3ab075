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
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "tcsim/sim/adder.hpp"

namespace tcsim {

// Why `cfg` with blocks of `k` products cannot run on ExactBlockKernel, or nullopt.
std::optional<std::string> exact_block_unsupported(const AdderConfig& cfg, std::size_t k);

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

  // As BlockKernel::run (element-major patterns).
  void run(std::size_t n, std::size_t len, const std::uint64_t* a, std::size_t lda, const std::uint64_t* b,
           std::size_t ldb, const std::uint64_t* c, std::uint64_t* d) const;

 private:
  Operand decode(const Format& f, std::uint64_t bits) const;
  FixedPointAdder ref_;
  std::size_t k_;
  std::uint64_t nan_ = 0;
};

}  // namespace tcsim
