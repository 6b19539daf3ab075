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
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "tcsim/sim/adder.hpp"

namespace tcsim {

// Why `cfg` with blocks of `k` products cannot run on AfterAddKernel, or nullopt.
std::optional<std::string> after_add_unsupported(const AdderConfig& cfg, std::size_t k);

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

  // As BlockKernel::run (element-major patterns).
  void run(std::size_t n, std::size_t len, const std::uint64_t* a, std::size_t lda, const std::uint64_t* b,
           std::size_t ldb, const std::uint64_t* c, std::uint64_t* d) const;

 private:
  Operand decode(const Format& f, std::uint64_t bits) const;
  AdderConfig cfg_;
  std::size_t k_;
  std::uint64_t nan_ = 0;
};

}  // namespace tcsim
