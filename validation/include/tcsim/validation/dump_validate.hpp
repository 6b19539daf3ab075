// Validating a unit model against real-GPU dump files: every case d = c + sum a_i b_i
// through the model, compared bit for bit with the GPU's d (all NaNs compare equal).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "tcsim/sim/format.hpp"
#include "tcsim/validation/dump_reader.hpp"

namespace tcsim::validation {

struct DumpPaths {
  std::string a, b, c, d;
};

// How the accumulator input of each case is obtained.
enum class AccumulatorInput {
  FromFile,  // c from the c file, converted to the output format (binary16: RNE, as the GPU runs)
  Zero,      // c = +0 (H100 fp8 wgmma runs accumulated into a zeroed D)
};

// A loaded dump: n cases of k products, operands in `in`, c and d in `out`.
struct DumpSet {
  Format in, out;
  Format in_b;  // b's format: `in` unless the dump is of a mixed pair (load_dump with in_a, in_b)
  std::size_t k = 0;
  std::size_t n = 0;
  std::vector<std::uint64_t> a, b;  // n*k patterns of `in`
  std::vector<std::uint64_t> c;     // n patterns of `out` (as fed to the unit)
  std::vector<std::uint64_t> d;     // n patterns of `out` (the GPU's results)
  std::vector<std::uint32_t> c_binary32;  // the c file's values as read (zeros with Zero)
  DumpPaths paths;
  // b's format: in_b where set, else `in` (DumpSets built field by field leave in_b empty).
  const Format& b_format() const { return in_b.name.empty() ? in : in_b; }
};

// Reads and checks the four files: a and b must agree on K and on the number of lines,
// c and d must have as many lines. With AccumulatorInput::Zero the c path may be empty.
DumpSet load_dump(const DumpPaths& paths, const Format& in, const Format& out,
                  AccumulatorInput c_input = AccumulatorInput::FromFile);
// a in `in_a`, b in `in_b` (mixed operand formats; DumpSet::in is in_a).
DumpSet load_dump(const DumpPaths& paths, const Format& in_a, const Format& in_b, const Format& out,
                  AccumulatorInput c_input = AccumulatorInput::FromFile);

// The unit under test: d = c + sum_i a[i] b[i] for one case (patterns of the dump's
// formats). Any callable: a models::Unit, a bare FixedPointAdder, a research model.
using DotFunction = std::function<std::uint64_t(std::span<const std::uint64_t> a,
                                                std::span<const std::uint64_t> b,
                                                std::uint64_t c)>;

struct Mismatch {
  std::size_t index = 0;  // case number from 0 (file line index + 1)
  std::uint64_t expected = 0;  // the GPU's d
  std::uint64_t got = 0;       // the model's d
};

struct ValidationResult {
  std::size_t cases = 0;
  std::size_t mismatches = 0;
  std::vector<Mismatch> first;  // the first max_report mismatches, in file order
  std::vector<bool> matched;    // per case (filled when requested)
  double match_rate() const { return cases ? double(cases - mismatches) / double(cases) : 1.0; }
};

// Bit-pattern equality in `fmt`, with every NaN equal to every NaN.
bool same_result(const Format& fmt, std::uint64_t x, std::uint64_t y);

// Runs every case through `unit`. `max_report` mismatches are kept with their indices;
// `keep_per_case` fills ValidationResult::matched. Exceptions from the unit propagate.
ValidationResult validate_dump(const DumpSet& dump, const DotFunction& unit,
                               std::size_t max_report = 10, bool keep_per_case = false);

// Multi-line human description of one mismatch: the line, a, b, c (hex patterns and
// values), the GPU's and the model's d in hex and as values.
std::string describe_mismatch(const DumpSet& dump, const Mismatch& m);
// "<N> cases, <M> mismatches"
std::string summary_line(const ValidationResult& r);

}  // namespace tcsim::validation
