// Sessions 30-32 (issue 26 part 3): the range classes of validation/src/fit_range_classes.cpp
// separate the random user rows that the fit got wrong with the earlier range mix, and the
// fit's work budget (FitOptions::work_budget) gives the same report on every run.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tcsim/models/unit_json.hpp"
#include "tcsim/validation/fit.hpp"
#include "tcsim/validation/fit_range_classes.hpp"
#include "tcsim/validation/fit_suggest.hpp"

using namespace tcsim;
using namespace tcsim::validation;

namespace {

models::DatapathSpec range_row_of(const std::string& json) {
  return models::parse_unit_json(nlohmann::json::parse(json), "test").datapaths.at(0);
}

// A hidden random row of `bench fit --evaluate random --seed 2` and the row the fit gave for
// it with the range mix of session 29 (exact on its dump, so that mix did not separate them;
// docs/fit.md), with the class aimed at it and the count of 5,000 cases of that class alone
// on which they differ (the earlier range mix: 0 of the 5,000 dump cases, as the fit was exact).
struct Aimed {
  const char* what;
  const char* hidden;
  const char* fitted_changes;  // JSON object: the keys in which the fitted row differs
  int cls;
  std::size_t K;
  std::size_t expected;
};

// The cases of class r.cls alone on which r's hidden and fitted rows differ: checked exactly
// (its draws are named locals, the same under every compiler); the count in the whole range
// mix is printed only, as structured_cases still draws some arguments in an order the
// compiler chooses (docs/fit.md, known defect).
// The fitted row: r's hidden row with r's changes (null: the fitted row has no such key).
models::DatapathSpec fitted_of(const Aimed& r) {
  nlohmann::json f = nlohmann::json::parse(r.hidden);
  const nlohmann::json changes = nlohmann::json::parse(r.fitted_changes);  // named: items() refers to it
  for (const auto& [k, v] : changes.items()) {
    if (v.is_null() && k != "min_exponent") f.erase(k);
    else f[k] = v;
  }
  return range_row_of(f.dump());
}

void check_aimed(const Aimed& r, std::uint64_t seed) {
  const models::DatapathSpec hidden = range_row_of(r.hidden);
  const models::DatapathSpec fitted = fitted_of(r);
  const Format& in = parse_format(hidden.input_formats[0]);
  const Format& out = parse_format(hidden.output_formats[0]);
  std::vector<std::uint64_t> a, b, c;
  range_class_cases(r.cls, in, out, r.K, 5000, seed, a, b, c);
  const std::size_t alone = count_mismatches(fitted, simulated_dump(hidden, in, out, r.K, a, b, c));
  structured_cases(in, out, r.K, 5000, seed, a, b, c, true);
  const std::size_t mix = count_mismatches(fitted, simulated_dump(hidden, in, out, r.K, a, b, c));
  std::printf("%s: class %d alone: %zu of 5000 cases differ; the range mix: %zu of 5000\n", r.what, r.cls, alone, mix);
  INFO(r.what << ": class alone " << alone << ", range mix " << mix);
  CHECK(alone == r.expected);
}

}  // namespace

TEST_CASE("fit: session 30's range classes separate random rows the earlier range mix left equal", "[fit]") {
  const std::uint64_t seed = 20261127;
  INFO("seed " << seed);
  const Aimed rows[] = {
      {"random 4: alignment ru -> rz, F 38 -> 34 (e4m3 -> fp16)",
       R"({"name":"h","input_formats":["e4m3"],"output_formats":["fp16"],"alignment_rounding":"ru","c_placement":"late","carry_bits":1,"final_rounding":{"fp16":"ru"},"fma_size":1,"fraction_bits":38,"late_products_rounding":"rz","min_exponent":{"fp16":-24},"normalization":"deferred","order":"largest-first","overflow":"ieee","sticky_bit":false,"subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"ieee"})",
       R"({"alignment_rounding":"rz","carry_bits":7,"fraction_bits":34,"min_exponent":{"fp16":-22}})", 0, 4, 50},
      {"random 32: alignment rz -> rd, no sticky bit (fp16 -> fp16)",
       R"({"name":"h","input_formats":["fp16"],"output_formats":["fp16"],"alignment_rounding":"rz","c_placement":"aligned","carry_bits":1,"final_rounding":{"fp16":"rd"},"fma_size":4,"fraction_bits":39,"min_exponent":null,"normalization":"deferred","order":"largest-first","overflow":"saturate","sticky_bit":true,"subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"positive"})",
       R"({"alignment_rounding":"rd","fma_size":16,"sticky_bit":false})", 0, 4, 83},
      {"random 35: F 30 -> 31 (e5m2 -> fp16)",
       R"({"name":"h","input_formats":["e5m2"],"output_formats":["fp16"],"alignment_rounding":"rd","c_placement":"aligned","carry_bits":3,"final_rounding":{"fp16":"rne"},"fma_size":4,"fraction_bits":30,"min_exponent":null,"normalization":"deferred","order":"largest-first","overflow":"ieee","result_fraction_bits":{"fp16":8},"sticky_bit":false,"subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"ieee"})",
       R"({"carry_bits":7,"fraction_bits":31,"min_exponent":{"fp16":-22},"overflow":"inf"})", 0, 4, 2},
      {"random 65: min_exponent none -> -19 (e5m2 -> fp16)",
       R"({"name":"h","input_formats":["e5m2"],"output_formats":["fp16"],"alignment_rounding":"rd","c_placement":"late","carry_bits":6,"final_rounding":{"fp16":"rz"},"fma_size":2,"fraction_bits":12,"min_exponent":null,"normalization":"deferred","order":"largest-first","overflow":"ieee","sticky_bit":false,"subnormal_inputs":false,"subnormal_outputs":true,"zero_sign":"ieee"})",
       R"({"min_exponent":{"fp16":-19},"carry_bits":4,"overflow":"saturate"})", 1, 4, 25},
      {"random 165: min_exponent -18 -> -16 (fp16 -> fp16, K 16)",
       R"({"name":"h","input_formats":["fp16"],"output_formats":["fp16"],"alignment_rounding":"rne","c_placement":"aligned","carry_bits":2,"final_rounding":{"fp16":"rz"},"fma_size":16,"fraction_bits":30,"min_exponent":{"fp16":-18},"normalization":"deferred","order":"largest-first","overflow":"ieee","result_fraction_bits":{"fp16":9},"sticky_bit":false,"subnormal_inputs":false,"subnormal_outputs":true,"zero_sign":"ieee"})",
       R"({"min_exponent":{"fp16":-16}})", 1, 16, 238},
      {"random 92: F 30 -> 29 (fp16 -> fp16, K 32; session 30's first run)",
       R"({"name":"h","input_formats":["fp16"],"output_formats":["fp16"],"alignment_rounding":"rz","c_placement":"aligned","carry_bits":2,"final_rounding":{"fp16":"rz"},"fma_size":32,"fraction_bits":30,"min_exponent":null,"normalization":"deferred","order":"largest-first","overflow":"ieee","sticky_bit":false,"subnormal_inputs":false,"subnormal_outputs":true,"zero_sign":"ieee"})",
       R"({"fraction_bits":29})", 2, 32, 441},
      {"random 101: F 29 -> 28 (e5m2 -> fp16, K 32; session 30's first run)",
       R"({"name":"h","input_formats":["e5m2"],"output_formats":["fp16"],"alignment_rounding":"rd","c_placement":"aligned","carry_bits":7,"final_rounding":{"fp16":"rd"},"fma_size":32,"fraction_bits":29,"min_exponent":{"fp16":-22},"normalization":"deferred","order":"largest-first","overflow":"ieee","sticky_bit":false,"subnormal_inputs":false,"subnormal_outputs":true,"zero_sign":"ieee"})",
       R"({"fraction_bits":28})", 2, 32, 1341},
  };
  for (const auto& r : rows) check_aimed(r, seed);
}

// Class 3 (a cut near F) against the rows of session 30's classes 0-2 run (commit 49fe8a1)
// that still disagreed on 10^5 further cases by the alignment rounding or F (docs/fit.md): the
// row each fit gave then, each exact on its 5,000-case dump of classes 0-2. Class 0 alone
// gives 2, 4, 0, 16, 1, 11, 0 of 5,000 for these pairs, so 171 and 115 are class 3's alone.
TEST_CASE("fit: range class 3 separates the alignment rounding and F rows classes 0-2 left", "[fit]") {
  const std::uint64_t seed = 20261127;
  INFO("seed " << seed);
  const Aimed rows[] = {
      {"random 38: alignment ru -> rz (bf16 -> fp32)",
       R"({"alignment_rounding":"ru","c_placement":"aligned","carry_bits":7,"final_rounding":{"fp32":"rne"},"fma_size":2,"fraction_bits":32,"input_formats":["bf16"],"min_exponent":null,"name":"h","normalization":"per-step","order":"pairwise","output_formats":["fp32"],"overflow":"ieee","sticky_bit":false,"subnormal_inputs":false,"subnormal_outputs":false,"zero_sign":"ieee"})",
       R"({"alignment_rounding":"rz","carry_bits":3,"nan_pattern":{"fp32":"0x7fffffff"}})", 3, 4, 4},
      {"random 104: alignment rne -> rz, c late (e4m3 -> fp16, K 32)",
       R"({"alignment_rounding":"rne","c_placement":"aligned","carry_bits":6,"final_rounding":{"fp16":"rne"},"fma_size":16,"fraction_bits":17,"input_formats":["e4m3"],"k_split":"pairs-mod4","min_exponent":null,"name":"h","normalization":"per-step","order":"pairwise","output_formats":["fp16"],"overflow":"nan","result_fraction_bits":{"fp16":8},"sticky_bit":false,"subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"ieee"})",
       R"({"alignment_rounding":"rz","c_placement":"late","carry_bits":1,"late_products_rounding":"rne","min_exponent":{"fp16":-21},"nan_pattern":{"fp16":"0x7fff"}})", 3, 32, 4},
      {"random 171: alignment ru -> rz, F 37 -> 27 (e4m3 -> fp16, K 8)",
       R"({"alignment_rounding":"ru","c_placement":"aligned","carry_bits":5,"final_rounding":{"fp16":"ru"},"fma_size":4,"fraction_bits":37,"input_formats":["e4m3"],"k_split":"pairs-mod4","min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp16"],"overflow":"nan","sticky_bit":false,"subnormal_inputs":false,"subnormal_outputs":true,"zero_sign":"ieee"})",
       R"({"alignment_rounding":"rz","carry_bits":6,"fraction_bits":27,"min_exponent":{"fp16":-20},"nan_pattern":{"fp16":"0x7fff"}})", 3, 8, 2},
      {"random 188: alignment rne -> rz, F 36 -> 33 (e4m3 -> fp16)",
       R"({"alignment_rounding":"rne","c_placement":"aligned","carry_bits":3,"final_rounding":{"fp16":"rz"},"fma_size":1,"fraction_bits":36,"input_formats":["e4m3"],"min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp16"],"overflow":"nan","sticky_bit":false,"subnormal_inputs":true,"subnormal_outputs":false,"zero_sign":"ieee"})",
       R"({"alignment_rounding":"rz","carry_bits":6,"fraction_bits":33,"min_exponent":{"fp16":-20},"nan_pattern":{"fp16":"0x7fff"}})", 3, 4, 18},
      {"random 198: alignment rne -> ru, F 27 -> 15 (e5m2 -> fp16)",
       R"({"alignment_rounding":"rne","c_entry":"final-add","c_placement":"aligned","carry_bits":2,"final_add_rounding":{"fp16":"ru"},"final_rounding":{"fp16":"rne"},"fma_size":2,"fraction_bits":27,"input_formats":["e5m2"],"min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp16"],"overflow":"ieee","sticky_bit":false,"subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"ieee"})",
       R"({"alignment_rounding":"ru","fraction_bits":15,"min_exponent":{"fp16":-21},"nan_pattern":{"fp16":"0x7fff"},"sticky_bit":true,"zero_sign":"positive"})", 3, 4, 1},
      {"random 27: F 37 -> 33, c aligned (fp16 -> fp32)",
       R"({"alignment_rounding":"rne","c_placement":"late","carry_bits":6,"final_rounding":{"fp32":"rd"},"fma_size":1,"fraction_bits":37,"input_formats":["fp16"],"min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp32"],"overflow":"inf","sticky_bit":true,"subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"positive"})",
       R"({"c_placement":"aligned","carry_bits":4,"fraction_bits":33,"nan_pattern":{"fp32":"0x7fffffff"},"normalization":"per-step","order":"pairwise","overflow":"ieee","product_rounding":"rne"})", 3, 4, 24},
      {"random 115: F 16 -> 17 (e4m3 -> fp16, K 8)",
       R"({"alignment_rounding":"ru","c_placement":"aligned","carry_bits":6,"final_rounding":{"fp16":"rne"},"fma_size":8,"fraction_bits":16,"input_formats":["e4m3"],"min_exponent":null,"name":"h","normalization":"per-step","order":"largest-first","output_formats":["fp16"],"overflow":"inf","result_fraction_bits":{"fp16":8},"sticky_bit":false,"subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"ieee"})",
       R"({"carry_bits":4,"fraction_bits":17,"min_exponent":{"fp16":-19},"nan_pattern":{"fp16":"0x7fff"}})", 3, 8, 4},
  };
  for (const auto& r : rows) check_aimed(r, seed);
}

// Session 31's classes 4-7 against the rows of the 200-row run on main 6c7da47 (classes 0-3,
// `bench fit --evaluate random --rows 200 --check 1000000 --seed 2`) that were exact on their
// 5,000-case dumps but disagreed on the 10^6 further cases: the row each fit gave then. With
// classes 0-3 alone these pairs differ on at most 8 of 5,000 (39 for random 171, 9 for 177, by
// class 2), so the dumps' 1 in 18 of each class rarely held one (docs/fit.md, "Session 31").
TEST_CASE("fit: session 31's range classes separate rows the 4-class mix left equal", "[fit]") {
  const std::uint64_t seed = 20261127;
  INFO("seed " << seed);
  const Aimed rows[] = {
      {"random 171: alignment ru -> rz, F 37 -> 28 (e4m3 -> fp16, K 8)",
       R"({"alignment_rounding":"ru","c_placement":"aligned","carry_bits":5,"final_rounding":{"fp16":"ru"},"fma_size":4,"fraction_bits":37,"input_formats":["e4m3"],"k_split":"pairs-mod4","min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp16"],"overflow":"nan","sticky_bit":false,"subnormal_inputs":false,"subnormal_outputs":true,"zero_sign":"ieee"})",
       R"({"alignment_rounding":"rz","carry_bits":6,"fraction_bits":28,"min_exponent":{"fp16":-21},"nan_pattern":{"fp16":"0x7fff"}})", 4, 8, 126},
      {"random 177: alignment rne -> rz, F 38 -> 31 (e4m3 -> fp16, K 16)",
       R"({"alignment_rounding":"rne","c_placement":"aligned","carry_bits":3,"final_rounding":{"fp16":"rne"},"fma_size":16,"fraction_bits":38,"input_formats":["e4m3"],"min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp16"],"overflow":"ieee","sticky_bit":false,"subnormal_inputs":false,"subnormal_outputs":false,"zero_sign":"positive"})",
       R"({"alignment_rounding":"rz","fma_size":32,"fraction_bits":31,"min_exponent":{"fp16":-22},"mixed_inputs":true,"nan_pattern":{"fp16":"0x7fff"},"overflow":"inf"})", 4, 16, 38},
      {"random 116: alignment rne -> rz (e5m2 -> fp32, K 32)",
       R"({"alignment_rounding":"rne","c_placement":"aligned","carry_bits":3,"final_rounding":{"fp32":"rne"},"fma_size":32,"fraction_bits":32,"input_formats":["e5m2"],"min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp32"],"overflow":"ieee","result_fraction_bits":{"fp32":20},"sticky_bit":false,"subnormal_inputs":true,"subnormal_outputs":false,"zero_sign":"ieee"})",
       R"({"alignment_rounding":"rz","min_exponent":{"fp32":-133},"mixed_inputs":true,"nan_pattern":{"fp32":"0x7fffffff"},"overflow":"inf"})", 4, 32, 392},
      {"random 19: c late -> aligned (e5m2 -> fp32)",
       R"({"alignment_rounding":"rd","c_placement":"late","carry_bits":2,"final_rounding":{"fp32":"rne"},"fma_size":2,"fraction_bits":29,"input_formats":["e5m2"],"k_split":"pairs-mod4","min_exponent":{"fp32":-130},"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp32"],"overflow":"ieee","sticky_bit":false,"subnormal_inputs":false,"subnormal_outputs":true,"zero_sign":"ieee"})",
       R"({"c_placement":"aligned","carry_bits":6,"min_exponent":{"fp32":-133},"nan_pattern":{"fp32":"0x7fffffff"},"overflow":"inf"})", 4, 4, 163},
      {"random 62: carry bits 3 -> 6 (bf16 -> fp32)",
       R"({"alignment_rounding":"rne","c_placement":"aligned","carry_bits":3,"final_rounding":{"fp32":"ru"},"fma_size":4,"fraction_bits":32,"input_formats":["bf16"],"min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp32"],"overflow":"saturate","sticky_bit":false,"subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"ieee"})",
       R"({"carry_bits":6,"nan_pattern":{"fp32":"0x7fffffff"}})", 5, 4, 283},
      {"random 150: carry bits 5 -> 3 (tf32 -> fp32)",
       R"({"alignment_rounding":"ru","c_placement":"aligned","carry_bits":5,"final_rounding":{"fp32":"rz"},"fma_size":4,"fraction_bits":12,"input_formats":["tf32"],"min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp32"],"overflow":"nan","sticky_bit":false,"subnormal_inputs":true,"subnormal_outputs":false,"zero_sign":"ieee"})",
       R"({"carry_bits":3,"final_rounding":{"fp32":"rne"},"flushed_input_sign":"positive","nan_pattern":{"fp32":"0x7fc00000"},"order":"pairwise"})", 5, 4, 404},
      {"random 143: flushed input sign, subnormal outputs, carry 5 -> 4 (fp16 -> fp32, K 8)",
       R"({"alignment_rounding":"rd","c_placement":"aligned","carry_bits":5,"final_rounding":{"fp32":"rz"},"fma_size":8,"fraction_bits":12,"input_formats":["fp16"],"min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp32"],"overflow":"nan","sticky_bit":false,"subnormal_inputs":false,"subnormal_outputs":true,"zero_sign":"ieee"})",
       R"({"carry_bits":4,"flushed_input_sign":"positive","nan_pattern":{"fp32":"0x7fffffff"},"product_overflow":"inf","subnormal_outputs":false})", 5, 8, 237},
      {"random 71: overflow ieee -> inf (e5m2 -> fp16, K 16)",
       R"({"alignment_rounding":"rne","c_entry":"final-add","c_placement":"aligned","carry_bits":6,"final_add_rounding":{"fp16":"rz"},"final_rounding":{"fp16":"rne"},"fma_size":16,"fraction_bits":9,"input_formats":["e5m2"],"min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp16"],"overflow":"ieee","result_fraction_bits":{"fp16":9},"sticky_bit":false,"subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"ieee"})",
       R"({"nan_pattern":{"fp16":"0x7fff"},"overflow":"inf"})", 6, 16, 1345},
      {"random 11: subnormal inputs false -> true (bf16 -> fp32, K 16)",
       R"({"alignment_rounding":"rne","c_entry":"final-add","c_placement":"aligned","carry_bits":7,"final_add_rounding":{"fp32":"rne"},"final_rounding":{"fp32":"rz"},"fma_size":16,"fraction_bits":10,"input_formats":["bf16"],"min_exponent":{"fp32":-132},"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp32"],"overflow":"ieee","sticky_bit":false,"subnormal_inputs":false,"subnormal_outputs":false,"zero_sign":"ieee"})",
       R"({"carry_bits":6,"final_add_rounding":null,"nan_pattern":{"fp32":"0x7fffffff"},"subnormal_inputs":true,"zero_sign":"positive"})", 6, 16, 604},
      {"random 38: alignment ru -> rz, F 32 -> 50 (bf16 -> fp32)",
       R"({"alignment_rounding":"ru","c_placement":"aligned","carry_bits":7,"final_rounding":{"fp32":"rne"},"fma_size":2,"fraction_bits":32,"input_formats":["bf16"],"min_exponent":null,"name":"h","normalization":"per-step","order":"pairwise","output_formats":["fp32"],"overflow":"ieee","sticky_bit":false,"subnormal_inputs":false,"subnormal_outputs":false,"zero_sign":"ieee"})",
       R"({"alignment_rounding":"rz","carry_bits":3,"fraction_bits":50,"nan_pattern":{"fp32":"0x7fffffff"},"sticky_bit":true})", 7, 4, 27},
      {"random 172: alignment ru -> rz, F 39 -> 37 (e5m2 -> fp32)",
       R"({"alignment_rounding":"ru","c_placement":"aligned","carry_bits":5,"final_rounding":{"fp32":"rne"},"fma_size":1,"fraction_bits":39,"input_formats":["e5m2"],"min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp32"],"overflow":"ieee","sticky_bit":false,"subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"ieee"})",
       R"({"alignment_rounding":"rz","carry_bits":6,"fma_size":2,"fraction_bits":37,"k_split":"pairs-mod4","min_exponent":{"fp32":-133},"nan_pattern":{"fp32":"0x7fffffff"},"normalization":"per-step","order":"sequential","overflow":"inf"})", 7, 4, 14},
      {"random 27: F 37 -> 35, c aligned (fp16 -> fp32)",
       R"({"alignment_rounding":"rne","c_placement":"late","carry_bits":6,"final_rounding":{"fp32":"rd"},"fma_size":1,"fraction_bits":37,"input_formats":["fp16"],"min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp32"],"overflow":"inf","sticky_bit":true,"subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"positive"})",
       R"({"c_placement":"aligned","carry_bits":4,"fraction_bits":35,"nan_pattern":{"fp32":"0x7fffffff"},"normalization":"per-step","order":"pairwise","overflow":"ieee","product_rounding":"rne"})", 7, 4, 12},
  };
  for (const auto& r : rows) check_aimed(r, seed);
}

// Session 32's classes 8-11 against the rows of the 200-row run on main 31384a5 (classes 0-7,
// `bench fit --evaluate random --rows 200 --check 1000000 --seed 2`) that were exact on their
// 5,000-case dumps but disagreed on 10^6 further cases: the row each fit gave then. Besides
// the aimed class's count, the most that any earlier range class (0-7) alone separates (exact:
// their draws are named locals too); the basic and older classes of structured_cases alone
// (kinds 0-13) are printed only (some draw arguments in an order the compiler picks).
namespace {

struct Aimed32 {
  Aimed r;
  std::size_t earlier;  // the most cases of 5,000 any of range classes 0-7 alone separates
};

// `before`: the range classes the earlier mix held (0 .. before - 1).
void check_aimed32(const Aimed32& a, std::uint64_t seed, int before = 8) {
  check_aimed(a.r, seed);
  const models::DatapathSpec hidden = range_row_of(a.r.hidden);
  const models::DatapathSpec fitted = fitted_of(a.r);
  const Format& in = parse_format(hidden.input_formats[0]);
  const Format& out = parse_format(hidden.output_formats[0]);
  std::vector<std::uint64_t> x, y, z;
  std::size_t earlier = 0, basic = 0;
  for (int cls = 0; cls < before; ++cls) {
    range_class_cases(cls, in, out, a.r.K, 5000, seed, x, y, z);
    earlier = std::max(earlier, count_mismatches(fitted, simulated_dump(hidden, in, out, a.r.K, x, y, z)));
  }
  for (int kind = 0; kind < 14; ++kind) {
    structured_cases(in, out, a.r.K, 5000, seed, x, y, z, true, kind);
    basic = std::max(basic, count_mismatches(fitted, simulated_dump(hidden, in, out, a.r.K, x, y, z)));
  }
  std::printf("%s: at most %zu of 5000 by a range class 0-%d alone, %zu by a basic or older class alone\n", a.r.what,
              earlier, before - 1, basic);
  INFO(a.r.what << ": range classes 0-" << before - 1 << " alone at most " << earlier);
  CHECK(earlier == a.earlier);
  CHECK(earlier < a.r.expected);
}

}  // namespace

TEST_CASE("fit: session 32's range classes separate rows the 8-class mix left equal", "[fit][release-only]") {
  const std::uint64_t seed = 20261127;
  INFO("seed " << seed);
  const Aimed32 rows[] = {
      {{"random 4: alignment ru -> rz (e4m3 -> fp16)",
        R"({"alignment_rounding":"ru","c_placement":"late","carry_bits":1,"final_rounding":{"fp16":"ru"},"fma_size":1,"fraction_bits":38,"input_formats":["e4m3"],"late_products_rounding":"rz","min_exponent":{"fp16":-24},"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp16"],"overflow":"ieee","sticky_bit":false,"subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"ieee"})",
        R"({"alignment_rounding":"rz","carry_bits":7,"min_exponent":{"fp16":-22},"mixed_inputs":true,"nan_pattern":{"fp16":"0x7fff"}})", 8, 4, 51}, 0},
      {{"random 51: F 39 -> 33, alignment ru -> rz, sticky bit (e4m3 -> fp32, K 8)",
        R"({"alignment_rounding":"ru","c_entry":"final-add","c_placement":"aligned","carry_bits":7,"final_add_rounding":{"fp32":"ru"},"final_rounding":{"fp32":"rz"},"fma_size":4,"fraction_bits":39,"input_formats":["e4m3"],"k_split":"pairs-mod4","min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp32"],"overflow":"inf","sticky_bit":true,"subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"positive"})",
        R"({"alignment_rounding":"rz","carry_bits":6,"fma_size":16,"fraction_bits":33,"min_exponent":{"fp32":-133},"nan_pattern":{"fp32":"0x7fffffff"},"sticky_bit":false})", 8, 8, 95}, 0},
      {{"random 188: alignment rne -> rz, F 36 -> 35 (e4m3 -> fp16)",
        R"({"alignment_rounding":"rne","c_placement":"aligned","carry_bits":3,"final_rounding":{"fp16":"rz"},"fma_size":1,"fraction_bits":36,"input_formats":["e4m3"],"min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp16"],"overflow":"nan","sticky_bit":false,"subnormal_inputs":true,"subnormal_outputs":false,"zero_sign":"ieee"})",
        R"({"alignment_rounding":"rz","carry_bits":4,"fraction_bits":35,"min_exponent":{"fp16":-19},"nan_pattern":{"fp16":"0x7fff"}})", 8, 4, 93}, 37},
      {{"random 192: F 36 -> 33 (e4m3 -> fp32, K 32, c by a final add)",
        R"({"alignment_rounding":"rz","c_entry":"final-add","c_placement":"late","carry_bits":4,"final_add_rounding":{"fp32":"rz"},"final_rounding":{"fp32":"rd"},"fma_size":32,"fraction_bits":36,"input_formats":["e4m3"],"min_exponent":{"fp32":-127},"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp32"],"overflow":"ieee","sticky_bit":false,"subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"ieee"})",
        R"({"fraction_bits":33,"min_exponent":{"fp32":-133},"nan_pattern":{"fp32":"0x7fffffff"},"overflow":"inf"})", 8, 32, 116}, 0},
      {{"random 12: min_exponent none -> -19 (fp16 -> fp16)",
        R"({"alignment_rounding":"rz","c_placement":"aligned","carry_bits":6,"final_rounding":{"fp16":"ru"},"fma_size":4,"fraction_bits":17,"input_formats":["fp16"],"min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp16"],"overflow":"ieee","sticky_bit":false,"subnormal_inputs":false,"subnormal_outputs":true,"zero_sign":"ieee"})",
        R"({"carry_bits":4,"min_exponent":{"fp16":-19},"nan_pattern":{"fp16":"0x7fff"}})", 9, 4, 76}, 2},
      {{"random 15: min_exponent none -> -22, carry bits 1 (e5m2 -> fp16)",
        R"({"alignment_rounding":"ru","c_placement":"aligned","carry_bits":1,"final_rounding":{"fp16":"rd"},"fma_size":2,"fraction_bits":25,"input_formats":["e5m2"],"min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp16"],"overflow":"nan","sticky_bit":true,"subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"ieee"})",
        R"({"min_exponent":{"fp16":-22},"mixed_inputs":true,"nan_pattern":{"fp16":"0x7fff"}})", 9, 4, 178}, 56},
      {{"random 77: min_exponent none -> -22, carry bits 5 (e5m2 -> fp16, K 32)",
        R"({"alignment_rounding":"rd","c_placement":"aligned","carry_bits":5,"final_rounding":{"fp16":"rne"},"fma_size":32,"fraction_bits":21,"input_formats":["e5m2"],"min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp16"],"overflow":"ieee","sticky_bit":true,"subnormal_inputs":false,"subnormal_outputs":true,"zero_sign":"ieee"})",
        R"({"min_exponent":{"fp16":-22},"mixed_inputs":true,"nan_pattern":{"fp16":"0x7fff"},"overflow":"inf"})", 9, 32, 145}, 0},
      {{"random 136: alignment ru -> rne, F 26 -> 20, c late (fp16 -> fp16)",
        R"({"alignment_rounding":"ru","c_placement":"aligned","carry_bits":6,"final_rounding":{"fp16":"rne"},"fma_size":4,"fraction_bits":26,"input_formats":["fp16"],"min_exponent":null,"name":"h","normalization":"per-step","order":"pairwise","output_formats":["fp16"],"overflow":"ieee","sticky_bit":false,"subnormal_inputs":false,"subnormal_outputs":true,"zero_sign":"positive"})",
        R"({"alignment_rounding":"rne","c_placement":"late","carry_bits":1,"fraction_bits":20,"late_products_rounding":"rne","min_exponent":{"fp16":-14},"nan_pattern":{"fp16":"0x7fff"},"overflow":"inf"})", 10, 4, 6}, 1},
      {{"random 134: flushed input sign keep -> positive (fp16 -> fp32, K 8)",
        R"({"alignment_rounding":"ru","c_placement":"aligned","carry_bits":6,"final_rounding":{"fp32":"ru"},"fma_size":4,"fraction_bits":26,"input_formats":["fp16"],"k_split":"pairs-mod4","min_exponent":{"fp32":-137},"name":"h","normalization":"per-step","order":"largest-first","output_formats":["fp32"],"overflow":"inf","sticky_bit":false,"subnormal_inputs":false,"subnormal_outputs":true,"zero_sign":"ieee"})",
        R"({"alignment_rounding":"rz","carry_bits":1,"flushed_input_sign":"positive","fraction_bits":50,"min_exponent":null,"nan_pattern":{"fp32":"0x7fffffff"},"overflow":"ieee","product_rounding":"rne","sticky_bit":true,"subnormal_outputs":false})", 11, 8, 1410}, 3},
  };
  for (const auto& r : rows) check_aimed32(r, seed);
}

// Session 34's classes 12 and 13 against the rows of the 200-row run on main 62e5211 (classes
// 0-11) that were exact on their 5,000-case dumps but disagreed on 10^6 further cases by one
// key or a few coupled ones (docs/fit.md, "Session 34: disagreeing rows"): the row each fit
// gave then. Besides the aimed class's count, the most any of range classes 0-11 alone gives.
TEST_CASE("fit: session 34's range classes separate rows the 12-class mix left equal", "[fit][release-only]") {
  const std::uint64_t seed = 20261127;
  INFO("seed " << seed);
  const Aimed32 rows[] = {
      {{"random 51: F 39 -> 34, alignment ru -> rz, sticky bit (e4m3 -> fp32, K 8)",
        R"({"alignment_rounding":"ru","c_entry":"final-add","c_placement":"aligned","carry_bits":7,"final_add_rounding":{"fp32":"ru"},"final_rounding":{"fp32":"rz"},"fma_size":4,"fraction_bits":39,"input_formats":["e4m3"],"k_split":"pairs-mod4","min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp32"],"overflow":"inf","sticky_bit":true,"subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"positive"})",
        R"({"alignment_rounding":"rz","carry_bits":6,"fma_size":16,"fraction_bits":34,"min_exponent":{"fp32":-133},"nan_pattern":{"fp32":"0x7fffffff"},"sticky_bit":false})", 12, 8, 6}, 2},
      {{"random 171: F 37 -> 33, alignment ru -> rz (e4m3 -> fp16, K 8)",
        R"({"alignment_rounding":"ru","c_placement":"aligned","carry_bits":5,"final_rounding":{"fp16":"ru"},"fma_size":4,"fraction_bits":37,"input_formats":["e4m3"],"k_split":"pairs-mod4","min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp16"],"overflow":"nan","sticky_bit":false,"subnormal_inputs":false,"subnormal_outputs":true,"zero_sign":"ieee"})",
        R"({"alignment_rounding":"rz","carry_bits":6,"fraction_bits":33,"min_exponent":{"fp16":-20},"nan_pattern":{"fp16":"0x7e00"}})", 12, 8, 269}, 1},
      {{"random 192: F 36 -> 33, c aligned (e4m3 -> fp32, K 32, c by a final add)",
        R"({"alignment_rounding":"rz","c_entry":"final-add","c_placement":"late","carry_bits":4,"final_add_rounding":{"fp32":"rz"},"final_rounding":{"fp32":"rd"},"fma_size":32,"fraction_bits":36,"input_formats":["e4m3"],"min_exponent":{"fp32":-127},"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp32"],"overflow":"ieee","sticky_bit":false,"subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"ieee"})",
        R"({"alignment_rounding":"ru","c_placement":"aligned","fraction_bits":33,"min_exponent":{"fp32":-133},"nan_pattern":{"fp32":"0x7fffffff"},"overflow":"inf","sticky_bit":true})", 12, 32, 92}, 0},
      {{"random 162: min_exponent -23 -> -22 (fp16 -> fp16, K 16)",
        R"({"alignment_rounding":"rd","c_placement":"aligned","carry_bits":6,"final_rounding":{"fp16":"rd"},"fma_size":16,"fraction_bits":19,"input_formats":["fp16"],"min_exponent":{"fp16":-23},"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp16"],"overflow":"ieee","sticky_bit":false,"subnormal_inputs":true,"subnormal_outputs":false,"zero_sign":"ieee"})",
        R"({"min_exponent":{"fp16":-22},"nan_pattern":{"fp16":"0x7fff"}})", 13, 16, 30}, 8},
      {{"random 164: min_exponent none -> -19 (fp16 -> fp16)",
        R"({"alignment_rounding":"rz","c_placement":"aligned","carry_bits":7,"final_rounding":{"fp16":"rne"},"fma_size":4,"fraction_bits":22,"input_formats":["fp16"],"min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp16"],"overflow":"inf","result_fraction_bits":{"fp16":9},"sticky_bit":false,"subnormal_inputs":false,"subnormal_outputs":true,"zero_sign":"positive"})",
        R"({"carry_bits":4,"min_exponent":{"fp16":-19},"nan_pattern":{"fp16":"0x7fff"}})", 13, 4, 301}, 1},
  };
  for (const auto& r : rows) check_aimed32(r, seed, 12);
}

// Session 35's classes 14 and 15 against rows of the 200-row run on main 9b00fac (classes 0-13)
// exact on their 5,000-case dumps but differing on 10^6 further cases (docs/fit.md, "Session 35:
// classes for chains and far terms"): the row each fit gave then (198: the row of session 34's
// run on fitdis4, which main's run no longer reached). Besides the aimed class's count, the most
// any of range classes 0-13 alone gives.
TEST_CASE("fit: session 35's range classes separate rows the 14-class mix left equal", "[fit][release-only]") {
  const std::uint64_t seed = 20261127;
  INFO("seed " << seed);
  const Aimed32 rows[] = {
      {{"random 107: alignment rd -> rz (fp16 -> fp16, fma_size 1: a chain of FMAs)",
        R"({"alignment_rounding":"rd","c_placement":"aligned","carry_bits":5,"final_rounding":{"fp16":"ru"},"fma_size":1,"fraction_bits":25,"input_formats":["fp16"],"min_exponent":{"fp16":-26},"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp16"],"overflow":"nan","sticky_bit":false,"subnormal_inputs":false,"subnormal_outputs":true,"zero_sign":"ieee"})",
        R"({"alignment_rounding":"rz","carry_bits":4,"min_exponent":{"fp16":-19},"nan_pattern":{"fp16":"0x7fff"}})", 14, 4, 330}, 0},
      {{"random 27: c late -> aligned, F 37 -> 36, per-step (fp16 -> fp32, fma_size 1)",
        R"({"alignment_rounding":"rne","c_placement":"late","carry_bits":6,"final_rounding":{"fp32":"rd"},"fma_size":1,"fraction_bits":37,"input_formats":["fp16"],"min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp32"],"overflow":"inf","sticky_bit":true,"subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"positive"})",
        R"({"c_placement":"aligned","carry_bits":4,"fraction_bits":36,"nan_pattern":{"fp32":"0x7fffffff"},"normalization":"per-step","order":"pairwise","overflow":"ieee","product_rounding":"rne"})", 14, 4, 190}, 3},
      {{"random 177: subnormal outputs flushed -> kept, alignment rne -> rz (e4m3 -> fp16, K 16)",
        R"({"alignment_rounding":"rne","c_placement":"aligned","carry_bits":3,"final_rounding":{"fp16":"rne"},"fma_size":16,"fraction_bits":38,"input_formats":["e4m3"],"min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp16"],"overflow":"ieee","sticky_bit":false,"subnormal_inputs":false,"subnormal_outputs":false,"zero_sign":"positive"})",
        R"({"alignment_rounding":"rz","fma_size":32,"min_exponent":{"fp16":-22},"mixed_inputs":true,"nan_pattern":{"fp16":"0x7fff"},"overflow":"inf","subnormal_outputs":true})", 15, 16, 210}, 5},
      {{"random 198: F 27 -> 14, alignment rne -> ru (e5m2 -> fp16, fma_size 2, c by a final add)",
        R"({"alignment_rounding":"rne","c_entry":"final-add","c_placement":"aligned","carry_bits":2,"final_add_rounding":{"fp16":"ru"},"final_rounding":{"fp16":"rne"},"fma_size":2,"fraction_bits":27,"input_formats":["e5m2"],"min_exponent":null,"name":"h","normalization":"deferred","order":"largest-first","output_formats":["fp16"],"overflow":"ieee","sticky_bit":false,"subnormal_inputs":true,"subnormal_outputs":true,"zero_sign":"ieee"})",
        R"({"alignment_rounding":"ru","fraction_bits":14,"min_exponent":{"fp16":-21},"nan_pattern":{"fp16":"0x7fff"},"zero_sign":"positive"})", 15, 4, 74}, 4},
  };
  for (const auto& r : rows) check_aimed32(r, seed, 14);
}

// The work budget replaces the clock: a dump no row fits (1 result in 50 off by one unit in the
// last place), so the seeds' descents, the continuation and the AMD family restarts all end
// at points of the budget. Two fits give the same report (rows, counts, first mismatches);
// the wall-clock cap (60 s, far above the budget's time) does not act.
TEST_CASE("fit: a work budget gives the same report on every run", "[fit][release-only]") {
  const std::uint64_t seed = 20261127;
  INFO("seed " << seed);
  const Format& fp16 = parse_format("fp16");
  const Format& fp32 = parse_format("fp32");
  models::DatapathSpec hidden;
  for (const auto& u : models::builtin_unit_specs())
    if (u.name == "a100")
      for (const auto& r : u.datapaths)
        if (r.instruction.empty() && r.input_formats.front() == "fp16") hidden = r;
  hidden.input_formats = {"fp16"};
  hidden.output_formats = {"fp32"};
  auto fp32_only = [](auto& m) {
    for (auto it = m.begin(); it != m.end();) it = it->first == "fp32" ? std::next(it) : m.erase(it);
  };
  fp32_only(hidden.final_rounding);
  fp32_only(hidden.final_add_rounding);
  fp32_only(hidden.min_exponent);
  fp32_only(hidden.result_fraction_bits);
  fp32_only(hidden.nan_pattern);
  hidden.shapes.clear();
  std::vector<std::uint64_t> a, b, c;
  structured_cases(fp16, fp32, 8, 1000, seed, a, b, c);
  DumpSet dump = simulated_dump(hidden, fp16, fp32, 8, a, b, c);
  for (std::size_t i = 0; i < dump.n; i += 50) dump.d[i] ^= 1;
  FitOptions opt;
  opt.exclude_units = {"a100"};
  opt.work_budget = 300000;
  opt.time_limit_seconds = 60;
  const FitResult r1 = fit_dump(dump, opt);
  const FitResult r2 = fit_dump(dump, opt);
  INFO("candidate rows " << r1.evaluations << " and " << r2.evaluations << ", cases " << r1.case_evaluations << " and "
                         << r2.case_evaluations);
  CHECK_FALSE(r1.capped);
  CHECK_FALSE(r2.capped);
  CHECK_FALSE(r1.exact);
  CHECK(r1.evaluations == r2.evaluations);
  CHECK(r1.case_evaluations == r2.case_evaluations);
  // The budget ends the search: at most a few evaluations of the whole dump beyond it (the
  // candidate that crossed it, a descent's recount on every case; 301,610 with GCC).
  CHECK(r1.case_evaluations >= opt.work_budget);
  CHECK(r1.case_evaluations < opt.work_budget + 10 * dump.n);
  REQUIRE(r1.closest.size() == r2.closest.size());
  for (std::size_t i = 0; i < r1.closest.size(); ++i) {
    INFO("closest row " << i << ": " << r1.closest[i].seed);
    CHECK(r1.closest[i].seed == r2.closest[i].seed);
    CHECK(r1.closest[i].row == r2.closest[i].row);
    CHECK(r1.closest[i].mismatches == r2.closest[i].mismatches);
    CHECK(r1.closest[i].first_mismatches == r2.closest[i].first_mismatches);
  }
}
