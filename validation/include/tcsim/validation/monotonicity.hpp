// Search for non-monotonic dot products (issue 9; fasi2021 section 3.1.4 and conclusion 6):
// inputs x <= y elementwise, all of the same sign (nonnegative, or nonpositive a and c),
// whose results are ordered the other way. Three searches share a budget of pairs:
// - structured: fasi2021's construction generalized (c just below 2^e against c = 2^e, or a
//   product just below 2^e against 2^e, beside n small products 2^(e-j) that the larger
//   term pushes out of an adder with F < j fraction bits), for every j and n up to 32;
// - exhaustive: for inputs of at most 8 bits, every nonnegative a and b of the longest k the
//   budget allows, c in {0, 1, the number below 1}, and every one-ulp raise of one input;
// - random: nonnegative (or nonpositive) vectors with exponents in a narrow window, one
//   input raised by one ulp.
// A unit that normalizes after every step (A100 fp64) is monotonic; the result then says
// "monotonic" after the budget, which is evidence, not proof (except for what the
// exhaustive search covered).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tcsim/validation/probe.hpp"

namespace tcsim::validation {

struct MonotonicityOptions {
  std::uint64_t budget = 1'000'000;  // pairs x <= y compared, over the three searches
  std::uint64_t seed = 1;            // of the random search
  int max_products = 16;             // longest dot of the random search
  int keep = 5;                      // counterexamples kept (all are counted)
  // Progress bars: (pairs compared, budget), every 4096 pairs.
  std::function<void(std::size_t done, std::size_t total)> progress;
  // A share of the work (e.g. one MPI rank's, docs/scale.md): every search walks all its pairs
  // (so the pairs, their order and the random stream stay those of the whole search), but
  // runs the unit on pair p only when p % parts == part. The shares' counterexamples merged
  // by `pair` and their counts added give the whole search's result.
  std::uint64_t part = 0, parts = 1;
};

struct MonotonicPair {
  DotCase x, y;     // x <= y elementwise, same signs; d(y) < d(x) (or > for nonpositive inputs)
  std::string how;  // which search found it
  std::uint64_t pair = 0;  // its index in the sequence of pairs of the three searches
};

struct MonotonicitySearch {
  std::string name;  // structured, exhaustive, random
  std::uint64_t pairs = 0, found = 0;
  std::string covered;  // what it enumerated or sampled
};

struct MonotonicityResult {
  std::string unit, in_format, out_format;
  bool monotonic = true;  // no counterexample found
  std::uint64_t cases_tried = 0, found = 0;
  std::vector<MonotonicPair> counterexamples;  // the first `keep`
  std::vector<MonotonicitySearch> searches;
  nlohmann::json to_json() const;  // {"monotonic", "counterexamples": [...], "cases_tried", ...}
};

MonotonicityResult search_monotonicity(const BlackBox& box, const MonotonicityOptions& options = {});

}  // namespace tcsim::validation
