// The test vectors of fasi2021 (Fasi, Higham, Mikaitis, Pranesh, "Numerical behavior of
// NVIDIA tensor cores", sections 3.1.1-3.1.4, 3.2, 3.3) as data, each with the result the
// paper reports (or implies) on V100 and on T4/A100.
//
// T4/A100 keep one more alignment bit than V100 (F = 24 instead of 23, section 3.2); the
// paper's constant 2^-24 then becomes 2^-25 ("the value of the next bit to the right"). The
// suite has both: the V100 vectors with their T4/A100 outcome, and the 3.2 vectors (2^-25,
// formed as binary16 products 2^-1 * 2^-24 since 2^-25 is not a binary16 number) with
// their V100 outcome. Expectations follow from the paper's conclusions (section 4); those
// the paper does not print are marked "derived" in `source`.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tcsim::validation {

struct BlackBox;

struct Fasi2021Case {
  std::string id;       // unique, e.g. "3.1.2/four-rounding-errors/c=1"
  std::string section;  // "3.1.2"
  std::string title;    // what it shows
  std::string in_format, out_format;  // names as parse_format accepts
  std::vector<std::string> a, b;      // exact hex-float literals of the input format
  std::string c;                      // literal of the output format
  std::string v100;                   // expected d on V100; "" = no claim (format not on V100)
  std::string t4_a100;                // expected d on T4 and A100; "" = no claim
  std::string source;                 // "paper" or "derived: <reason>"
};

// Every case, in the paper's order.
const std::vector<Fasi2021Case>& fasi2021_cases();

// The seed's constants generalized by the number F of alignment fraction bits: the
// V100 vectors with 2^-24 replaced by 2^-(F+1) (F = 23 gives the V100 vectors, 24 those of
// section 3.2), binary16 in, binary32 out, expecting a V100-like unit with F bits
// (truncation, deferred normalization, RZ, k >= 4, 3 carry bits): that expectation is in
// `v100`; `t4_a100` is empty. 10 <= F <= 40 (the constants must be binary16 products).
std::vector<Fasi2021Case> fasi2021_cases_for_fraction_bits(int F);

struct Fasi2021Result {
  Fasi2021Case test;
  bool ran = false;
  std::string skipped;  // why not run (no box for the formats)
  std::uint64_t d = 0;  // result pattern
  std::string result;   // exact hex-float text of d
  std::optional<bool> v100_pass, t4_a100_pass;  // empty when the case makes no claim
};

// Runs each case on the first box whose formats are the case's (others are skipped).
std::vector<Fasi2021Result> run_fasi2021(std::span<const BlackBox> boxes,
                                       const std::vector<Fasi2021Case>& cases = fasi2021_cases());

// "PASS", "FAIL" or "n/a".
std::string pass_text(const std::optional<bool>& pass);
// One line per case: id, result, expected values and PASS/FAIL per GPU.
std::string fasi2021_to_text(const std::vector<Fasi2021Result>& results);
// [{"test", "section", "title", "in", "out", "result", "result_bits", "expected_v100",
//   "expected_t4_a100", "v100", "t4_a100", "source"}...]
nlohmann::json fasi2021_to_json(const std::vector<Fasi2021Result>& results);

}  // namespace tcsim::validation
