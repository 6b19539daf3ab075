// tcsim fit --suggest: the inputs that would split the rows still fitting the dumps (issue 26,
// part 2). The rows come from the fit's undecided parameters (fitting_rows); a pool of
// random and structured cases (structured_cases: cancellation, alignment edges, ties,
// overflow, underflow, subnormals, signed zeros, specials) is run through every row, and the
// cases that tell the most rows apart are kept (greedy), then more witnesses of each split.
// The suggested a/b/c files are in the dump format mma_dump writes and reads back with
// --inputs (validation/cuda/README.md). No global state.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tcsim/models/unit.hpp"
#include "tcsim/validation/dump_validate.hpp"
#include "tcsim/validation/fit.hpp"

namespace tcsim::validation {

// Rows that reproduce every case of `dumps`: the fitted row, then the row with one undecided
// parameter changed to each value that fits, then two undecided parameters changed at once
// (kept when they still reproduce every case), at most `max_rows` in all.
std::vector<models::DatapathSpec> fitting_rows(const FitResult& fit, const std::vector<DumpSet>& dumps,
                                               std::size_t max_rows = 200);

// n cases of K products for (in, out): operands in `in`, c in `out`, from `seed`. A mix of
// random bit patterns, moderate random values and structured cases (see above). With
// `range_classes` fifteen more classes join the mix (15 cases in 26; the stream then differs):
// terms at and below the output's minimum exponent (decide the min-exponent clamp; for outputs
// of at most 10 fraction bits 3 in 4 of these put the sum exactly on a rounding boundary
// beside one tiny product, as only such sums show a clamp there), a term
// cancelled exactly beside one 2^-s below it for every shift s = 1..48 (decide F and the
// alignment rounding), and many same-sign terms of large fraction at one exponent (sums that
// outgrow the carry bits), and sessions 30-32's twelve (fit_range_classes.hpp: a grid point beside
// tiny terms, subnormal sums, shifts the output shows, carry and overflow edges, c beyond the cut). bench fit's dumps use them (docs/fit.md). Without them, outputs of
// at most 10 fraction bits still get the F-at-every-shift class (one case in 12). `only_kind`
// >= 0 replaces every case's class by that one (0..13 the basic and older range classes, 15 +
// r range class r): what one class alone separates (tests, docs/fit.md's per-class counts).
// `far_classes` false leaves out session 35's range classes 14 and 15 (every 14th case at i % 14
// == 6): session 34's 14-class mix exactly (tests whose search paths were pinned on its dumps).
void structured_cases(const Format& in, const Format& out, std::size_t K, std::size_t n, std::uint64_t seed,
                      std::vector<std::uint64_t>& a, std::vector<std::uint64_t>& b, std::vector<std::uint64_t>& c,
                      bool range_classes = false, int only_kind = -1, bool far_classes = true);

// The dump a unit of one row would give on these inputs (d through Unit::dot_batch).
DumpSet simulated_dump(const models::DatapathSpec& row, const Format& in, const Format& out, std::size_t K,
                       std::vector<std::uint64_t> a, std::vector<std::uint64_t> b, std::vector<std::uint64_t> c);

struct SuggestedCases {
  Format in, out;
  std::size_t k = 0, n = 0;
  std::vector<std::uint64_t> a, b, c;  // n*k, n*k (in), n (out)
  std::size_t candidates = 0;          // fitting rows considered
  std::size_t classes = 0;             // groups of rows with the same answers on the chosen cases
  std::size_t pool = 0;                // cases looked at
  // What the pool showed (fit_certainty.hpp reads it): the rows the unit accepted, row 0 (the
  // fitted row) first; the pool's first `mix` cases are fresh cases of the harness's mix (the
  // rest: further batches aimed at rarer splits); per row, the mix cases on which it answers
  // otherwise than row 0, and the first pool case on which it does (a, b, c and both answers;
  // empty when it answers every pool case as row 0).
  struct Witness {
    std::vector<std::uint64_t> a, b;  // k each (in)
    std::uint64_t c = 0, d_row0 = 0, d_row = 0;
  };
  std::vector<models::DatapathSpec> rows;
  std::size_t pool_groups = 0;  // groups of rows with the same answers on every pool case (classes: on the chosen ones)
  std::size_t mix = 0;
  std::vector<std::size_t> mix_differing;
  std::vector<std::vector<Witness>> witness;  // per row: none or one
};

// At most n cases (fewer when nothing more splits) that split `rows` (row 0 first: the
// fitted row) for one format pair and K; the pool has max(8n, 4000) cases from `seed`, and the
// cases of further batches where a row that answers the pool as row 0 does differs from it
// (batches of the range classes aimed at the keys those rows differ in, then of the mix).
SuggestedCases suggest_cases(const std::vector<models::DatapathSpec>& rows, const Format& in, const Format& out,
                             std::size_t K, std::size_t n, std::uint64_t seed);

// Writes a_<gpu>_<IN>.txt, b_<gpu>_<IN>.txt, c_<gpu>_fp32.txt into `dir` (created), in the
// format of the published dumps (binary32 patterns; c the exact binary32 of the out value).
// Returns the paths written. Throws std::invalid_argument naming the path on failure.
std::vector<std::string> write_case_files(const SuggestedCases& s, const std::string& dir, const std::string& gpu);

// The name a dump file gives a format: E4M3, E5M2 upper case (as the published data), else as is.
std::string dump_format_name(const Format& f);

}  // namespace tcsim::validation
