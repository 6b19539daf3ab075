// Issue 25: dot_batch and dot_batch_planar of the AMD rows on SIMD lanes, a batch of
// independent elements per row of lanes, each element's whole chain there
// (Binary32TreeKernel::dot_chain for CDNA2, AfterAddKernel::dot_chain for CDNA3,
// ExactBlockKernel::dot_chain for CDNA1; sim/src/ieee_tree_dot.cpp, sim/src/amd_dot_batch.cpp),
// against Unit::dot (the reference adder and chaining): every such row and format pair (the
// mixed fp8 pairs of CDNA3 too), element counts across the lanes' padding and the chunks of
// 512, K = 0 to several instructions, 1 and 2 threads, elements half from tests/flush_edges.hpp
// (flushing, zero signs, cancellation, overflow) and half from kernel_cases.hpp. ctest runs
// 10^5 block FMAs per pair (CI: a tenth; TCSIM_TEST_SCALE=100 runs 10^7, recorded in
// docs/performance.md); the seed is logged.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <hwy/targets.h>

#include "diff_checks.hpp"
#include "flush_edges.hpp"
#include "kernel_cases.hpp"
#include "kernel_fills.hpp"
#include "models_test_helpers.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::reftest;
using tcsim::test::Rng;

namespace {

struct Pair {
  const Format *a, *b, *out;
  std::string instruction, label;
};

// The AMD rows whose dot_batch runs on the new lanes, with their mixed pairs.
std::vector<Pair> lane_pairs(const Unit& unit, const char* unit_name) {
  std::vector<Pair> pairs;
  for (const auto& row : unit.spec().datapaths)
    for (const auto& out_name : row.output_formats) {
      const Format& out = parse_format(out_name);
      std::vector<std::pair<const Format*, const Format*>> ops;
      for (const auto& a : row.input_formats) ops.push_back({&parse_format(a), &parse_format(a)});
      if (row.mixed_inputs)
        for (const auto& a : row.input_formats)
          for (const auto& b : row.input_formats)
            if (a != b) ops.push_back({&parse_format(a), &parse_format(b)});
      for (const auto& [fa, fb] : ops) {
        std::string path;
        try {
          path = unit.batch_path(*fa, *fb, out, row.instruction);
        } catch (const std::invalid_argument&) {
          continue;  // a pair this row does not serve
        }
        if (path != "binary32-tree" && path != "after-add (lanes)" && path != "exact-block (lanes)") continue;
        const std::string ops_name = fa == fb ? fa->name : fa->name + " x " + fb->name;
        pairs.push_back({fa, fb, &out, row.instruction,
                         std::string(unit_name) + " " + (row.instruction.empty() ? "(any)" : row.instruction) + " " +
                             ops_name + "->" + out.name + " [" + path + "]"});
      }
    }
  return pairs;
}

// One element: a in p.a, b in p.b (a mixed pair draws each side from its own format).
void fill(const Pair& p, Rng& r, std::uint64_t* a, std::uint64_t* b, std::size_t K, std::uint64_t& c) {
  half_with_elements<fill_flush_edges>(*p.a, *p.out, r, a, b, K, c);
  if (p.a != p.b) {
    std::vector<std::uint64_t> ignored(K);
    std::uint64_t ignored_c = 0;
    half_with_elements<fill_flush_edges>(*p.b, *p.out, r, ignored.data(), b, K, ignored_c);
  }
}

// A pattern of f with exponent e (clamped into f's finite range), random sign and fraction.
std::uint64_t with_exponent(const Format& f, int e, Rng& r) {
  e = std::clamp(e, f.emin, f.emax);
  const std::uint64_t frac = r.next() & ((std::uint64_t{1} << f.fraction_bits) - 1);
  const std::uint64_t field = static_cast<std::uint64_t>(e + f.bias);
  return (r.below(2) ? f.sign_mask() : 0) | (field << f.fraction_bits) | frac;
}

// One element at the bounds of the after-add sums lanes (sim/src/after_dot_lanes.hpp): products
// whose exponents e_ref(a) + e_ref(b) sit at or next to 126 (a product may reach 2^128) and
// F - 120 = -96 (a product may leave binary32's normal range), a few zeros, subnormals and
// top-field patterns (Inf/NaN, FNUZ's largest numbers and NaN 0x80), c near the products.
void fill_bounds(const Pair& p, Rng& r, std::uint64_t* a, std::uint64_t* b, std::size_t K, std::uint64_t& c) {
  static const int targets[] = {126, 127, 125, -96, -97, -95, 0};
  const int target = targets[r.below(std::size(targets))];  // named draws: operand order is unspecified
  const int T = target + (r.below(4) == 0 ? r.range(-3, 3) : 0);
  auto odd = [&](const Format& f) -> std::uint64_t {
    switch (r.below(4)) {
      case 0: return r.below(2) ? f.sign_mask() : 0;                                   // a zero (FNUZ: 0x80 is NaN)
      case 1: {  // subnormal
        const std::uint64_t sign = r.below(2) ? f.sign_mask() : 0;
        return sign | (r.next() & ((std::uint64_t{1} << f.fraction_bits) - 1));
      }
      default: return (r.next() & f.width_mask()) | (std::uint64_t{(1u << f.exponent_bits) - 1} << f.fraction_bits & f.width_mask());  // top field
    }
  };
  for (std::size_t t = 0; t < K; ++t) {
    const int lo = std::max(p.a->emin, T - p.b->emax), hi = std::min(p.a->emax, T - p.b->emin);
    const int ea = lo <= hi ? r.range(lo, hi) : r.range(p.a->emin, p.a->emax);
    a[t] = r.below(16) == 0 ? odd(*p.a) : with_exponent(*p.a, ea, r);
    b[t] = r.below(16) == 0 ? odd(*p.b) : with_exponent(*p.b, T - ea + (r.below(3) == 0 ? r.range(-30, 0) : 0), r);
  }
  const Format& f32 = *p.out;
  c = r.below(8) == 0 ? 0 : with_exponent(f32, std::clamp(T + r.range(-30, 2), f32.emin, f32.emax), r);
}

template <class Fill>
void run_pairs(const char* unit_name, std::size_t expected_pairs, const char* what, const Fill& fill_one,
               std::uint64_t per_pair = 100'000) {
  const Unit& unit = builtin_unit(unit_name);
  Rng r(tcsim::test::seed((std::string("amd dot_batch lanes ") + what + unit_name).c_str(), 0x7c5e0d07 + unit_name[2]));
  const std::uint64_t total = tcsim::test::count(per_pair);
  const std::vector<Pair> pairs = lane_pairs(unit, unit_name);
  CHECK(pairs.size() == expected_pairs);
  const std::size_t counts[] = {1, 7, 16, 17, 511, 512, 513, 1100, 4096};
  for (const Pair& p : pairs) {
    INFO(p.label);
    const DatapathSpec& row = unit.datapath(*p.a, *p.b, *p.out, p.instruction);
    const std::size_t k = static_cast<std::size_t>(row.fma_size);
    std::uint64_t cases = 0, mismatches = 0, planar_mismatches = 0;
    std::vector<std::uint64_t> a, b, c, d, dp;
    std::vector<std::uint16_t> at, bt;
    for (std::uint64_t round = 0; cases < total; ++round) {
      const std::size_t n = counts[round % std::size(counts)];
      const std::size_t Ks[] = {k, k, 0, 1, k - 1 + (k == 1), k + 1, 2 * k + 3, 5 * k};
      const std::size_t K = Ks[r.below(std::size(Ks))];
      const unsigned threads = round % 3 == 0 ? 2 : 1;
      a.resize(n * K), b.resize(n * K), c.resize(n), d.resize(n), dp.resize(n);
      for (std::size_t e = 0; e < n; ++e) fill_one(p, r, a.data() + e * K, b.data() + e * K, K, c[e]);
      unit.dot_batch(*p.a, *p.b, *p.out, n, K, a.data(), b.data(), c.data(), d.data(), p.instruction, threads);
      product_major16(a.data(), n, K, at);
      product_major16(b.data(), n, K, bt);
      const bool planar = p.a->width <= 16 && p.b->width <= 16;
      if (planar)
        unit.dot_batch_planar(*p.a, *p.b, *p.out, n, K, at.data(), bt.data(), c.data(), dp.data(), p.instruction, threads);
      for (std::size_t e = 0; e < n; ++e) {
        const std::uint64_t want =
            unit.dot(*p.a, *p.b, *p.out, {a.data() + e * K, K}, {b.data() + e * K, K}, c[e], p.instruction);
        const bool bad = d[e] != want, bad_planar = planar && dp[e] != want;
        if ((bad || bad_planar) && mismatches + planar_mismatches < 3)
          std::printf("[amd-dot-batch] MISMATCH %s K %zu: a = %s, b = %s, c = %s: dot_batch %s, planar %s, dot %s\n",
                      p.label.c_str(), K, hex_list(*p.a, a.data() + e * K, K).c_str(),
                      hex_list(*p.b, b.data() + e * K, K).c_str(), bits_to_hex(*p.out, c[e]).c_str(),
                      bits_to_hex(*p.out, d[e]).c_str(), planar ? bits_to_hex(*p.out, dp[e]).c_str() : "-",
                      bits_to_hex(*p.out, want).c_str());
        mismatches += bad;
        planar_mismatches += bad_planar;
      }
      cases += n;
    }
    std::printf("[amd-dot-batch] %s%-48s %llu block FMAs, %llu mismatches, planar %llu mismatches\n", what, p.label.c_str(),
                static_cast<unsigned long long>(cases), static_cast<unsigned long long>(mismatches),
                static_cast<unsigned long long>(planar_mismatches));
    CHECK(mismatches == 0);
    CHECK(planar_mismatches == 0);
  }
}

}  // namespace

TEST_CASE("amd dot_batch lanes: mi250x binary32 trees", "[kernel][differential][amd]") {
  run_pairs("mi250x", 3, "", fill);  // fp16, bf16 (bf16_1k), bf16-legacy
}

TEST_CASE("amd dot_batch lanes: mi300x after-add", "[kernel][differential][amd]") {
  run_pairs("mi300x", 14, "", fill);  // v2 and v1: fp16, bf16, e4m3fnuz, e5m2fnuz, xf32, and both mixed fp8 pairs
}

TEST_CASE("amd dot_batch lanes: mi100 exact blocks", "[kernel][differential][amd]") {
  run_pairs("mi100", 2, "", fill);  // fp16, bf16
}

// Issue 25 (i25amddot): the after-add blocks' product sums in binary32/int32 lanes decoded from
// the patterns (sim/src/after_dot_lanes.cpp) at their bounds; the flagged lanes take block().
TEST_CASE("amd dot_batch lanes: mi300x sums lanes at their bounds", "[kernel][differential][amd]") {
  run_pairs("mi300x", 14, "bounds ", fill_bounds);
}

// The sums lanes on each compiled SIMD target this CPU runs (AVX-512, AVX2, SSE4, SSSE3,
// EMU128...), forced in turn: other vector widths, the same bits.
TEST_CASE("amd dot_batch lanes: mi300x sums lanes on every compiled SIMD target", "[kernel][differential][amd]") {
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string what = std::string("bounds on ") + hwy::TargetName(target) + " ";
    run_pairs("mi300x", 14, what.c_str(), fill_bounds, 10'000);
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the CPU's own
}

// Patterns with bits beyond their format's width: the sums lanes flag them, and block()'s
// decoding reports them as Unit::dot does (element-major patterns wider than 32 bits never
// reach the sums lanes).
TEST_CASE("amd dot_batch lanes: mi300x patterns beyond the width", "[kernel][amd]") {
  const Unit& unit = builtin_unit("mi300x");
  const Format &f8 = parse_format("e4m3fnuz"), &f32 = parse_format("fp32");
  const std::size_t n = 40, K = 16;
  std::vector<std::uint64_t> a(n * K, 0x38), b(n * K, 0x38), c(n, 0), d(n);
  std::vector<std::uint16_t> at(n * K, 0x38), bt(n * K, 0x38);
  unit.dot_batch(f8, f32, n, K, a.data(), b.data(), c.data(), d.data());
  CHECK(d[0] == unit.dot(f8, f32, {a.data(), K}, {b.data(), K}, 0));
  at[5 * n + 37] = 0x138;  // element 37 (in the last, copied vector), product 5
  CHECK_THROWS_AS(unit.dot_batch_planar(f8, f32, n, K, at.data(), bt.data(), c.data(), d.data()), std::invalid_argument);
  CHECK_THROWS_AS(unit.dot(f8, f32, std::vector<std::uint64_t>(K, 0x138), std::vector<std::uint64_t>(K, 0x38), 0),
                  std::invalid_argument);
  at[5 * n + 37] = 0x38, bt[3 * n + 2] = 0x8038;  // element 2 (read in place)
  CHECK_THROWS_AS(unit.dot_batch_planar(f8, f32, n, K, at.data(), bt.data(), c.data(), d.data()), std::invalid_argument);
  a[7 * K + 1] = 0x1'0000'0000ull;  // xf32: a 33-bit pattern
  std::vector<std::uint64_t> x(n * 4, 0x3f800000u), y(n * 4, 0x3f800000u);
  x[7 * 4 + 1] = 0x1'3f80'0000ull;
  CHECK_THROWS_AS(unit.dot_batch(f32, f32, n, 4, x.data(), y.data(), c.data(), d.data(), "xf32"), std::invalid_argument);
}
