// The black-box feature probe: what a multiply-accumulate unit does, found only by calling
// d = dot(a, b, c) (probe_blackbox.hpp) on chosen inputs. Methodology: docs/probe.md.
//
// The probe assumes the family of datapaths of units.md section 1 (exact products,
// alignment to the largest term E with F fraction bits, an integer sum with carry bits,
// one normalization and rounding, chaining of block FMAs of k products) or its per-step
// variant, and measures its parameters. Every feature is reported with the evidence used;
// a feature the formats cannot reveal is reported as unknown (null in JSON) with the reason.
//
// Order of the experiments (each uses what the earlier ones found):
//  1. subnormal inputs (a, b and c) and outputs;
//  2. F: c = 2^e, a1b1 = -2^e, a2b2 = 2^(e-j): the largest j whose term survives exactly
//     (c = 2^(e-j) and a cancelling pair of products when the input cannot form 2^(e-j));
//     then the precision the output really keeps (2^e + 2^(e-j) returned exactly);
//  3. k: the same cancellation with the small term moved to product i: it is lost while it
//     shares the block of the large terms and survives once it starts a new block;
//  4. alignment rounding and sticky bit: the small term at fractions of the register's
//     last unit (+-1/4, +-1/2, 3/4, +-3/2 ulp), against rz|rd|ru|rne with and without a
//     sticky bit;
//  5. carry bits: sums of c and products at E that reach 2^(E+q), for growing q;
//  6. final rounding: sums held exactly by the register but not by the output format;
//  7. products exact, normalization (deferred or per-step), accumulation order,
//     monotonicity (searched for a counterexample);
//  8. with c added late (after the products cancelled, step 4): the blocks of one
//     instruction (which product positions share one normalization) and whether c is
//     added to their rounded result by an addition of its own (c entry "final-add", the
//     Hopper/Blackwell fp8 mma.sync emulation). Then steps 2-7 (but products exact and
//     monotonicity) see the blocks, with c's term carried by a product and c = +0, so that
//     F, k and the roundings describe a block; the rounding of c's addition is reported on
//     its own.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tcsim/sim/rounding.hpp"
#include "tcsim/validation/probe_blackbox.hpp"
#include "tcsim/validation/fasi2021_suite.hpp"

namespace tcsim::validation {

struct ProbeOptions {
  int max_products = 128;            // longest dot tried when looking for the FMA size
  int monotonic_random_trials = 400;  // random pairs x <= y tried after the structured ones
  int rounding_random_trials = 600;   // candidate sums tried for the final rounding
  std::uint64_t seed = 0x5eed004;     // of the random searches (the probe is deterministic)
};

// One probed feature: a value, or unknown, and how it was decided.
template <class T>
struct Finding {
  std::optional<T> value;
  std::string evidence;  // experiments and observations, or why the value is unknown
  bool known() const { return value.has_value(); }
};

// A dot product and its result, as bit patterns.
struct DotCase {
  std::vector<std::uint64_t> a, b;
  std::uint64_t c = 0;
  std::uint64_t d = 0;
};

struct ProbeReport {
  std::string unit;
  std::string in_format, out_format;

  Finding<bool> subnormal_inputs;   // subnormal a/b operands honoured (false: flushed)
  Finding<bool> subnormal_c;        // subnormal c honoured
  Finding<bool> subnormal_outputs;  // subnormal results produced (false: flushed)
  Finding<bool> products_exact;     // a_i b_i enter the sum unrounded
  Finding<int> fraction_bits;       // F
  Finding<int> result_fraction_bits;  // fraction bits the output keeps (p-1 unless reduced, e.g. 13 for Ada fp8->fp32)
  Finding<int> fma_size;            // k
  Finding<int> carry_bits;          // integer bits above 2^E beyond the first
  bool carry_bits_lower_bound = false;  // no block of k products can overflow more bits
  Finding<Rounding> alignment_rounding;  // rz|rd|ru|rne
  Finding<bool> sticky_bit;
  Finding<Rounding> final_rounding;      // rz|rd|ru|rne
  Finding<std::string> c_placement;      // "aligned" (with the products) | "late" (added to their sum)
  Finding<int> products_fraction_bits;   // late c with c_entry accumulator: F of the products' own sum (c = 0)
  Finding<std::string> normalization;    // "deferred" | "per-step"
  Finding<std::string> order;            // "largest-first" | "sequential" | "not-largest-first"
  Finding<int> min_exponent;             // lower clamp m of E (KM25 min_exp_limit): E = max(E, m)
  bool min_exponent_none = false;        // no clamp down to the lowest testable exponent ("none")
  // Units whose c is added late (c placement "late"); unknown, with the reason, elsewhere.
  // c_entry "final-add": c is added to the instruction's result after that result was
  // rounded into the output format (an addition of its own, rounded with
  // final_add_rounding); then fma_size, fraction_bits, carry_bits, alignment_rounding,
  // final_rounding, ... describe one block of the instruction, measured with c = +0.
  // "accumulator": c enters the register before the one rounding.
  Finding<std::string> c_entry;
  Finding<Rounding> final_add_rounding;  // c_entry final-add only
  Finding<std::vector<std::vector<int>>> blocks;  // product positions of each block of one instruction, in accumulation order
  Finding<std::string> k_split;          // the partition's name in the unit schema: "consecutive" | "pairs-mod4"
  Finding<std::string> block_chain;      // "rounded": each block's result, rounded into the output, is the next one's accumulator
  std::string not_observed;              // c_entry final-add: what these experiments cannot tell
  Finding<bool> monotonic;
  std::optional<std::pair<DotCase, DotCase>> monotonic_counterexample;  // x <= y, d(x) > d(y)

  std::vector<Fasi2021Result> fasi2021;  // filled by probe_with_fasi2021 (cases of the box's formats)
  long dot_calls = 0;

  std::string to_text() const;
  nlohmann::json to_json() const;
};

// Runs every experiment on the box. Never throws for a feature it cannot decide; throws
// only when the box itself throws on a valid call.
ProbeReport probe(const BlackBox& box, const ProbeOptions& options = {});
// probe() plus the fasi2021 cases whose formats are the box's.
ProbeReport probe_with_fasi2021(const BlackBox& box, const ProbeOptions& options = {});

// "rz", "rd", "ru", "rne" (as the JSON schema of the units).
std::string rounding_name(Rounding r);

}  // namespace tcsim::validation
