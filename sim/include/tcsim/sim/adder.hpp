// The fixed-point multi-operand adder: d = c + sum_i a_i * b_i as tensor cores compute it.
//
// Datapath (deferred normalization, fasi2021 section 3.1, units.md section 1):
//  1. products a_i*b_i formed exactly; their exponent is e_a + e_b of the operands'
//     exponents (unnormalised: significand in [0,4)); subnormal operands sit at emin;
//  2. E = max exponent over the nonzero terms (products and c), clamped from below by
//     min_exponent when set;
//  3. every term is aligned to E keeping `fraction_bits` (F) bits below 2^E; the bits
//     shifted out are rounded by `alignment_rounding` (truncation for NVIDIA), with an
//     optional sticky bit one position below;
//  4. the aligned terms are added exactly as integers; the register has 1 + carry_bits
//     integer bits above 2^(E-F)*2^F, and a magnitude that outgrows them wraps
//     (sign-magnitude, modulo 2^(1+carry_bits)*2^E: fasi2021 3.1.4's 2-bit register
//     returns 0 for its "third carry bit" vector);
//  5. one normalization and one rounding into the output format (`final_rounding`).
// Per-step normalization instead rounds every partial sum (IEEE-like), in the given order.
//
// Inputs and outputs are bit patterns of the configured formats. An adder is immutable
// after construction and safe to use from many threads.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "tcsim/sim/exact.hpp"
#include "tcsim/sim/format.hpp"
#include "tcsim/sim/rounding.hpp"

namespace tcsim {

enum class Normalization { Deferred, PerStep };
enum class AccumulationOrder { LargestFirst, Sequential, Pairwise };
// Aligned: c is one more term of the fused sum. Late: c meets the products' normalized sum in
// a second alignment with the same F. After: c meets the products' sum in a two-operand add
// whose operands are rounded to their own widths (AfterAdd; AMD CDNA3, units.md 3b).
enum class CPlacement { Aligned, Late, After };
enum class ProductExponent { Unnormalized, Normalized };
// Sign of an exact zero sum. Ieee: IEEE 754 6.3 (-0 when every term is -0, or under RD);
// Positive: +0 always (NVIDIA tensor cores: X25's hardware tests assert "minus zero -> +0.0").
enum class ZeroSign { Ieee, Positive };

// c_placement After (AMD CDNA3 [X25], units.md 3b). The products' truncated fused sum S has
// reference exponent e_dot (the largest nonzero product's alignment exponent; zero products
// do not count) and c has e_c (its leading exponent; subnormal or zero c reads the c format's
// emin). With E = max(e_dot, e_c): S is rounded (`rounding`, floor on CDNA3) to a multiple of
// 2^(E - sum_fraction_bits), c to a multiple of 2^(E - c_fraction_bits), or c is dropped when
// drop_c_below is set and e_c < E - drop_c_below; the two are added exactly; with
// renormalize_fraction_bits the sum is rounded again (`rounding`) to that many bits below its
// own leading bit (clamped below at the output format's emin); then the final rounding.
// CDNA3 "v1" (X25 v1.0, the paper's Algorithm 10, KM25): sum 31, no renormalization;
// "v2" (X25 v2): sum 32, renormalize 31.
struct AfterAdd {
  int sum_fraction_bits = 32;
  int c_fraction_bits = 24;
  Rounding rounding = Rounding::Down;
  std::optional<int> renormalize_fraction_bits = 31;
  std::optional<int> drop_c_below;
  bool operator==(const AfterAdd&) const = default;
};

struct AdderConfig {
  // Formats of the a, b and c operands and of the output d.
  Format a_format, b_format, c_format, out_format;

  // F: fraction bits kept below 2^E, the reference (largest) exponent. 0..kMaxFractionBits.
  int fraction_bits = 23;
  // Integer bits above the leading position 2^E, beyond the first: the register's
  // magnitude is below 2^(E+1+carry_bits). 0..kMaxCarryBits.
  int carry_bits = 3;
  // Rounding of the bits shifted out in alignment: TowardZero (truncation of the
  // magnitude), Down (floor of the two's complement value), Up, NearestEven.
  Rounding alignment_rounding = Rounding::TowardZero;
  // One extra bit below the F kept bits holding the OR of each term's shifted-out bits.
  bool sticky_bit = false;
  // Lower clamp on E (KM25's min_exp_limit): E = max(E, *min_exponent).
  std::optional<int> min_exponent;
  // Exponent attributed to a product: e_a + e_b (Unnormalized, significand in [0,4), as
  // KM25 and the real-GPU data) or that of its leading bit (Normalized, significand in [1,2)).
  ProductExponent product_exponent = ProductExponent::Unnormalized;
  // c aligned with the products (Aligned), or added to the products' sum in a second
  // two-term alignment with the same F (Late).
  CPlacement c_placement = CPlacement::Aligned;
  // Late c only: when set, the products' sum is first rounded into the output format with
  // this mode (a separate product unit followed by a floating-point add of c), rather than
  // entering the second alignment unrounded.
  std::optional<Rounding> late_products_rounding;
  // c_placement After only: the two-operand add of the products' sum and c.
  AfterAdd after;
  // c_placement After only: g > 1 splits a block's products by index mod g into interleaved
  // groups (CDNA3 fp8: 2, even and odd), each a fused sum truncated at F below its own largest
  // product; the group sums are rounded (after.rounding) to F bits below the common largest
  // exponent e_dot and added; that sum is the S of AfterAdd.
  int product_groups = 1;
  // Operands a and b keep only this many fraction bits (the lower significand bits cleared,
  // subnormals included): CDNA3 xf32 reads binary32 operands as tf32 (X25).
  std::optional<int> input_fraction_bits;
  // With subnormal_inputs false: a flushed operand (and c) becomes +0 (true: AMD CDNA2, X25's
  // Algorithm 1) rather than a zero of its own sign (false).
  bool flush_inputs_positive = false;
  // Per-step normalization only: each product is first rounded into the output format with this
  // mode (the row's subnormal_outputs and overflow rules apply): CDNA2's binary32 products.
  std::optional<Rounding> product_rounding;
  // Deferred normalization: a product of magnitude >= 2^(emax+1) of the output format is an
  // infinity of its sign (CDNA3 bf16/xf32 products overflow at 2^128, X25 Sec. 4.2).
  bool product_overflow_inf = false;
  // Deferred: one normalization at the end. PerStep: each partial sum is aligned with
  // the F-bit rule, normalized and rounded to the output format (IEEE-like).
  Normalization normalization = Normalization::Deferred;
  // Order of the per-step additions: LargestFirst (by magnitude, c included), Sequential
  // (c, then a_1 b_1, a_2 b_2, ...: a chain of fused multiply-adds), Pairwise (a
  // balanced tree over the products, then c). Irrelevant with deferred normalization.
  AccumulationOrder order = AccumulationOrder::LargestFirst;
  // Rounding into the output format, and its overflow behaviour.
  Rounding final_rounding = Rounding::TowardZero;
  OverflowMode overflow = OverflowMode::Ieee;
  // Sign of an exact zero result (every term zero, or nonzero terms that cancel). A nonzero
  // sum that rounds to zero keeps its sign either way.
  ZeroSign zero_sign = ZeroSign::Ieee;
  // Subnormal operands honoured (true) or flushed to zero (false); subnormal results
  // produced (true) or flushed to zero (false).
  bool subnormal_inputs = true;
  bool subnormal_outputs = true;
  // Pattern returned for NaN results; empty: the output format's canonical NaN.
  std::optional<std::uint64_t> nan_pattern;

  static constexpr int kMaxFractionBits = 100000;
  // True when a field the block kernels do not implement is set (After placement, groups,
  // input truncation, product rounding/overflow, positive flush): those rows run the reference.
  bool uses_extended_fields() const;
  static constexpr int kMaxCarryBits = 64;

  // Throws std::invalid_argument naming the offending field and what is allowed.
  void validate() const;
  // F large enough for the exact sum of `terms` products of these formats (no alignment
  // loss): an "exact" adder is this with RNE final rounding.
  int exact_fraction_bits() const;
  std::string describe() const;  // one line, for reports
};

// Exact configuration: F = exact_fraction_bits(), carry bits enough for `terms` terms, RNE.
AdderConfig exact_adder_config(const Format& in, const Format& out, std::size_t terms);

// Intermediate quantities of one evaluation, for probes, reports and teaching.
struct AdderTrace {
  bool special = false;            // NaN/Inf path taken; the fields below are unset
  std::int64_t reference_exponent = 0;  // E (after the clamp)
  std::int64_t lsb_exponent = 0;   // exponent of the register's last bit: E - F (- 1 with sticky)
  BigInt register_value = 0;       // signed integer sum in units of 2^lsb_exponent, after wrap
  bool wrapped = false;            // the sum outgrew the carry bits
  bool alignment_inexact = false;  // some term lost bits in alignment
};

class FixedPointAdder {
 public:
  explicit FixedPointAdder(AdderConfig config);  // validates
  const AdderConfig& config() const { return config_; }

  // d = c + sum_i a[i]*b[i]; a and b have the same length (any, 0 included).
  // `random` feeds stochastic final rounding (ignored otherwise).
  std::uint64_t dot(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                    std::uint64_t c, AdderTrace* trace = nullptr, std::uint64_t random = 0) const;

  // Batch: n elements, each with k products; a and b are n*k patterns (row-major, element
  // i uses a[i*k .. i*k+k)), c and d hold n patterns. Stochastic rounding takes its bits
  // from a counter-based generator keyed by (seed, i): the same bits for any thread count.
  void dot_batch(std::size_t n, std::size_t k, const std::uint64_t* a, const std::uint64_t* b,
                 const std::uint64_t* c, std::uint64_t* d, std::uint64_t seed = 0) const;

 private:
  AdderConfig config_;
};

std::string to_string(Normalization n);
std::string to_string(AccumulationOrder o);
std::string to_string(CPlacement c);
std::string to_string(ProductExponent p);
std::string to_string(ZeroSign z);
Normalization parse_normalization(std::string_view s, std::string_view field = "normalization");
AccumulationOrder parse_order(std::string_view s, std::string_view field = "order");
CPlacement parse_c_placement(std::string_view s, std::string_view field = "c_placement");
ProductExponent parse_product_exponent(std::string_view s, std::string_view field = "product_exponent");
ZeroSign parse_zero_sign(std::string_view s, std::string_view field = "zero_sign");

// Counter-based random bits (splitmix64 of seed and index), for stochastic rounding.
std::uint64_t counter_random(std::uint64_t seed, std::uint64_t index);

}  // namespace tcsim
