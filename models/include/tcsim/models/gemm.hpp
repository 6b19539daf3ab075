// Simulated GEMM on real-valued matrices: D = C + A B on a unit (built-in or user-defined),
// with the variants of blanchard2020 Table 3.3, split-K and FABsum (mary2021), multiword
// products (mary2021; scaled: mary2024 eq. (4.3)-(4.7)) and power-of-two scaling into a
// narrow range (mary2024 eq. (3.1)-(3.2)).
//
// Input: A (m x k), B (k x n), C (m x n), row-major binary64 values (binary32 matrices are
// exact in them). Every tensor-core product goes through Unit::gemm (bit patterns): the same
// bits as `tcsim dot` on row i of A, column j of B and C[i][j] once A, B, C are converted.
// Conversions into the unit's formats use GemmOptions::input_rounding (RNE by default).
// Deterministic: the result does not depend on the thread count.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <optional>
#include <string>
#include <vector>

#include "tcsim/models/unit.hpp"
#include "tcsim/sim/format.hpp"
#include "tcsim/sim/rounding.hpp"

namespace tcsim::models {

// blanchard2020 Table 3.3, generalized to the unit's input formats.
enum class GemmVariant {
  Unit,  // the unit's own behaviour for in -> out: Tc32 for out fp32, Tc16 for out fp16,
         // else the unit with C and D in `out` (reported as "unit")
  Fp16,  // no tensor core: A, B rounded to `in`, then IEEE binary16 recursive summation
         // d = fl16(d + a*b) by binary16 FMAs in k order, C rounded to binary16 first
  Tc16,  // the unit with C and D held in binary16 between block FMAs (in -> fp16, whatever
         // `out` says)
  Tc32,  // the unit with C and D held in binary32 (in -> fp32, whatever `out` says)
  Fp32,  // no tensor core: A, B, C rounded to binary32, binary32 FMAs in k order
};
std::string variant_name(GemmVariant v);                     // "unit", "fp16", "tc16", "tc32", "fp32"
GemmVariant parse_variant(std::string_view text, std::string_view field = "variant");  // throws naming field

// Order in which the word products of a multiword GEMM are accumulated.
enum class WordOrder {
  SmallestFirst,  // products of the least significant words first (mary2021's recommendation)
  LargestFirst,
};

struct GemmOptions {
  std::string instruction;  // unit row ("" = the default row of in -> out)
  GemmVariant variant = GemmVariant::Unit;
  Rounding input_rounding = Rounding::NearestEven;  // A, B -> in; C -> the accumulation format
                                                    // (rne, rz, ru, rd, ro; not sr)
  // Split-K: s > 1 cuts k into s consecutive slices of ceil(k/s) (the last one shorter; fewer
  // than s slices when the last ones would be empty, e.g. k = 10, s = 6: 5 slices of 2); each
  // slice is a GEMM from C = 0 (through the unit; for the fp16 / fp32 variants one IEEE FMA
  // chain), and D = C + slice_1 + ... + slice_s summed in binary32 (RNE, C converted to
  // binary32 first) in slice order. 0 or 1: off.
  int split_k = 0;
  // FABsum (mary2021; blanchard2020 section 3 "blocked summation"): b > 0 cuts k into blocks
  // of b; each block is a GEMM from C = 0 (as for split-K) and the block results are summed
  // with C in `fabsum_combine` (binary32 or binary64, RNE) in block order. 0: off.
  int fabsum_block = 0;
  std::string fabsum_combine = "fp32";
  // Multiword: A and B (binary32/binary64) split into p words of `in`
  // (A = A_1 + ... + A_p, A_i = fl(A - A_1 - ... - A_{i-1})); unscaled words (mary2021) or
  // words scaled by u^-(i-1) into the normal range of `in` (mary2024 eq. (4.3)-(4.7)). The
  // word products A_i B_j go through the unit, all p^2 of them or only i + j <= p + 1, and
  // are accumulated in `word_order` through the unit's accumulator (out format). Scaled words:
  // each product from C = 0, un-scaled by u^(i+j-2) and summed with C in binary64 (the scale
  // factors cannot enter the unit's accumulator). p = 1: off.
  int words = 1;
  bool scaled_words = false;
  bool all_word_products = false;
  WordOrder word_order = WordOrder::SmallestFirst;
  // Narrow-range scaling (mary2024 eq. (3.1)-(3.2)): A <- D_A A, B <- B D_B with power-of-two
  // diagonal D_A (rows) and D_B (columns) so that the largest entry of each row of A / column
  // of B is close to theta = min(f_max, sqrt(F_max / n)) of the input format; D is unscaled
  // afterwards (exact powers of two, in binary64).
  bool scaling = false;
  bool subnormals = true;  // false: inputs that are subnormal in `in` are flushed to zero
  // B's format when it differs from `in` (mixed operand formats, issue 24: a row with
  // mixed_inputs, e.g. e4m3 x e5m2); A is converted into `in`, B into this. Only variants
  // that run the unit (unit, tc16, tc32), words 1, no scaling.
  std::optional<Format> b_format;
  unsigned threads = 0;    // 0: all cores
  // Progress of long runs (progress bars): called with (parts done, parts) from the calling
  // thread. When set, the GEMM (words = 1) runs as up to 16 consecutive blocks of at least 64
  // rows, called after each; the bits are the same (every element of D depends on its row only).
  std::function<void(std::size_t done, std::size_t total)> progress;
};

struct GemmResult {
  std::size_t m = 0, n = 0, k = 0;
  std::vector<double> D;            // m x n, row-major: the computed values
  std::vector<std::uint64_t> bits;  // m x n patterns of `storage` (the format D is held in)
  std::string storage;              // format name: the unit's output for tc16/tc32/unit and
                                    // unscaled multiword, fp16/fp32 for the fp16/fp32 variants,
                                    // fabsum_combine or fp32 after FABsum/split-K, fp64 after
                                    // scaled multiword or scaling
  std::string variant;              // variant_name of the variant actually run
  std::string path;                 // Unit::batch_path of the row ("kernel" | "reference: ...")
                                    // or "ieee" for fp16/fp32
  std::size_t unit_calls = 0;       // GEMMs run through the unit (p^2 or p(p+1)/2 for multiword)
};

// Throws std::invalid_argument naming the option and what is allowed (sizes, a variant the
// unit cannot run for in, words < 1, split_k > k, ...).
GemmResult simulate_gemm(const Unit& unit, const Format& in, const Format& out, std::size_t m, std::size_t n,
                         std::size_t k, std::span<const double> A, std::span<const double> B,
                         std::span<const double> C, const GemmOptions& options = {});

}  // namespace tcsim::models
