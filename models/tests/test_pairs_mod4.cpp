// Issue 25: the pairs-mod4 / final-add rows (Hopper and Blackwell fp8 mma.sync, the emulation
// on the fp16 tensor core) on the fast paths: dot_batch_planar on the planar lanes with each
// instruction's rows permuted (models/src/pairs_mod4.hpp; dot_batch through it), and gemm on
// the tiles with the final addition in SIMD lanes (sim tile_add.hpp), against Unit::dot (the
// reference adder, split_pairs_mod4 and ieee_add). Half the elements from kernel_cases.hpp,
// half with c chosen against the instruction's own sum u (the reference from +0): -u (exact
// cancellation, zero signs), -u a few ulps off, a value whose last places meet u's rounding
// (ties of the binary16 final rounding), near the largest finite (overflow), subnormal.
// TCSIM_TEST_SCALE scales the counts (1: 10^6 block FMAs per pair through dot_batch and
// planar and 3 x 10^5 GEMM outputs; TCSIM_TEST_SCALE=10 is the full run of docs/performance.md).
// Long runs split over processes: TCSIM_PAIRS_MOD4_ONLY=<texts> keeps the pairs whose label
// contains one of the comma-separated texts, TCSIM_DIFF_PARTS=batch (dot_batch and planar) or
// gemm one part; each pair draws from its own seed (label_seed), independent of the selection.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "diff_checks.hpp"
#include "kernel_cases.hpp"
#include "models_test_helpers.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/rounding.hpp"
#include "tcsim/sim/tile_add.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::reftest;
using tcsim::test::Rng;

namespace {

struct Tally {
  std::uint64_t batch = 0, planar = 0, gemm = 0, bad = 0;
};

void mismatch(Tally& t, const char* what, const std::string& label, const Format& in, const Format& out, std::size_t K,
              const std::uint64_t* a, const std::uint64_t* b, std::uint64_t c, std::uint64_t got, std::uint64_t want) {
  if (t.bad++ < 3)
    std::printf("[pairs-mod4] MISMATCH %s %s K %zu: a = %s, b = %s, c = %s: fast %s, dot %s\n", what, label.c_str(), K,
                hex_list(in, a, K).c_str(), hex_list(in, b, K).c_str(), bits_to_hex(out, c).c_str(),
                bits_to_hex(out, got).c_str(), bits_to_hex(out, want).c_str());
}

// dot_batch, dot_batch_planar and gemm of one row and format pair against Unit::dot.
Tally campaign(const Unit& unit, const DatapathSpec& row, const Format& in, const Format& out, Rng& r,
               std::uint64_t batch_total, std::uint64_t gemm_total, const std::string& label) {
  const std::size_t group = 2 * static_cast<std::size_t>(row.fma_size);
  const std::string& ins = row.instruction;
  if (!tcsim::test::selected("TCSIM_DIFF_PARTS", "batch")) batch_total = 0;
  if (!tcsim::test::selected("TCSIM_DIFF_PARTS", "gemm")) gemm_total = 0;
  Tally t;
  StageClock clock_batch, clock_gemm;
  std::vector<std::uint64_t> a, b, c, d, dp, col;
  std::vector<std::uint16_t> at, bt;
  while (t.batch < batch_total) {
    const std::size_t Ks[] = {group, group, group, 2 * group, group + 5, 3, 0};
    const std::size_t K = Ks[r.below(7)], n = 4096;
    a.resize(n * K);
    b.resize(n * K);
    c.resize(n);
    d.resize(n);
    dp.resize(n);
    for (std::size_t e = 0; e < n; ++e) {
      fill_element(in, out, r, a.data() + e * K, b.data() + e * K, K, c[e]);
      if (r.below(2)) {
        const std::uint64_t u = unit.dot(in, out, {a.data() + e * K, std::min(K, group)}, {b.data() + e * K, std::min(K, group)},
                                         out.zero(false), ins);
        c[e] = final_add_edge_c(out, r, u, c[e]);
      }
    }
    clock_batch.lap(StageClock::kGenerate);  // with the dot from +0 of half the elements
    unit.dot_batch(in, out, n, K, a.data(), b.data(), c.data(), d.data(), ins, 2);
    product_major16(a.data(), n, K, at);
    product_major16(b.data(), n, K, bt);
    unit.dot_batch_planar(in, out, n, K, at.data(), bt.data(), c.data(), dp.data(), ins, 2);
    clock_batch.lap(StageClock::kFast);
    for (std::size_t e = 0; e < n; ++e) {
      const std::uint64_t want = unit.dot(in, out, {a.data() + e * K, K}, {b.data() + e * K, K}, c[e], ins);
      if (d[e] != want) mismatch(t, "dot_batch", label, in, out, K, a.data() + e * K, b.data() + e * K, c[e], d[e], want);
      if (dp[e] != want) mismatch(t, "planar", label, in, out, K, a.data() + e * K, b.data() + e * K, c[e], dp[e], want);
    }
    clock_batch.lap(StageClock::kReference);
    t.batch += n;
    t.planar += n;
  }
  clock_gemm.last = std::clock();
  const std::size_t m = 40, n = 72;  // not multiples of the tile: padding columns and rows
  while (t.gemm < gemm_total) {
    std::size_t K = group * (1 + r.below(2));  // named draws: operand order is unspecified
    if (r.below(3) == 0) K += r.below(group);
    std::vector<std::uint64_t> A(m * K), Bt(n * K), B(K * n), C(m * n), scratch(K);
    std::uint64_t ignored = 0;
    for (std::size_t i = 0; i < m; ++i) fill_element(in, out, r, A.data() + i * K, scratch.data(), K, ignored);
    for (std::size_t j = 0; j < n; ++j) fill_element(in, out, r, Bt.data() + j * K, scratch.data(), K, C[j]);
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t s = 0; s < K; ++s) B[s * n + j] = Bt[j * K + s];
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        std::uint64_t c0 = 0;
        fill_element(in, out, r, scratch.data(), scratch.data(), 0, c0);
        C[i * n + j] = c0;
        if (r.below(2))  // c against the instruction's own sum u (the reference from +0)
          C[i * n + j] = final_add_edge_c(
              out, r, unit.dot(in, out, {A.data() + i * K, group}, {Bt.data() + j * K, group}, out.zero(false), ins), c0);
      }
    clock_gemm.lap(StageClock::kGenerate);
    const std::vector<std::uint64_t> D = unit.gemm(in, out, m, n, K, A, B, C, ins, 2);
    clock_gemm.lap(StageClock::kFast);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        const std::uint64_t want = unit.dot(in, out, {A.data() + i * K, K}, {Bt.data() + j * K, K}, C[i * n + j], ins);
        if (D[i * n + j] != want)
          mismatch(t, "gemm", label, in, out, K, A.data() + i * K, Bt.data() + j * K, C[i * n + j], D[i * n + j], want);
      }
    clock_gemm.lap(StageClock::kReference);
    t.gemm += m * n;
  }
  std::printf("[pairs-mod4] %-40s dot_batch %llu, planar %llu block FMA chains, gemm %llu outputs: %llu mismatches\n",
              label.c_str(), static_cast<unsigned long long>(t.batch), static_cast<unsigned long long>(t.planar),
              static_cast<unsigned long long>(t.gemm), static_cast<unsigned long long>(t.bad));
  if (t.batch) std::printf("[pairs-mod4] %-40s dot_batch and planar %s\n", label.c_str(), clock_batch.rates(t.batch).c_str());
  if (t.gemm) std::printf("[pairs-mod4] %-40s gemm %s\n", label.c_str(), clock_gemm.rates(t.gemm).c_str());
  return t;
}

}  // namespace

TEST_CASE("pairs-mod4 rows on the planar lanes and the tiles equal Unit::dot", "[kernel][differential][pairs]") {
  const std::uint64_t seed = tcsim::test::seed("pairs-mod4 differential", 0x9a125e40);
  const std::uint64_t batch_total = tcsim::test::count(1'000'000), gemm_total = tcsim::test::count(300'000);
  std::size_t pairs = 0;
  for (const char* unit_name : {"h100", "b200"}) {
    const Unit& unit = builtin_unit(unit_name);
    for (const auto& row : unit.spec().datapaths) {
      if (row.k_split != KSplit::PairsMod4) continue;
      for (const auto& in_name : row.input_formats)
        for (const auto& out_name : row.output_formats) {
          const Format &in = parse_format(in_name), &out = parse_format(out_name);
          const std::string label = std::string(unit_name) + " " + row.instruction + " " + in.name + "->" + out.name;
          INFO(label);
          REQUIRE(unit.batch_path_planar(in, out, row.instruction) == "kernel (planar, pairs-mod4 rows permuted per instruction)");
          ++pairs;
          if (!tcsim::test::selected("TCSIM_PAIRS_MOD4_ONLY", label)) continue;
          Rng r(tcsim::test::label_seed(seed, label));
          CHECK(campaign(unit, row, in, out, r, batch_total, gemm_total, label).bad == 0);
        }
    }
  }
  CHECK(pairs == 8);  // h100 and b200: e4m3, e5m2 -> fp32, fp16
}

// User rows: pairs-mod4 with c as the accumulator (no final addition), and a final addition
// rounded toward zero (no fast exit: ieee_add after the lanes).
TEST_CASE("pairs-mod4 user rows: accumulator c, final addition rz", "[kernel][differential][pairs]") {
  Rng r(tcsim::test::seed("pairs-mod4 user rows", 0x9a125e41));
  const std::uint64_t batch_total = tcsim::test::count(200'000), gemm_total = tcsim::test::count(60'000);
  for (int variant = 0; variant < 2; ++variant) {
    UnitSpec spec = builtin_unit("h100").spec();
    spec.name = variant == 0 ? "user-pairs-accumulator" : "user-pairs-final-add-rz";
    spec.architecture = "user";
    spec.aliases.clear();
    DatapathSpec row = builtin_unit("h100").datapath(formats::e4m3(), formats::fp16(), "mma.sync");
    if (variant == 0) {
      row.c_entry = CEntry::Accumulator;
      row.final_add_rounding.clear();
    } else {
      row.final_add_rounding = {{"fp32", Rounding::TowardZero}, {"fp16", Rounding::TowardZero}};
    }
    spec.datapaths = {row};
    const Unit unit(spec);
    for (const Format* out : {&formats::fp32(), &formats::fp16()}) {
      const std::string label = spec.name + " e4m3->" + out->name;
      INFO(label);
      CHECK(campaign(unit, unit.spec().datapaths[0], formats::e4m3(), *out, r, batch_total, gemm_total, label).bad == 0);
    }
  }
}

// The binary16 addition in integers (tile_add.hpp) against ieee_add's semantics on every
// pair of a sample of binary16 patterns: 2^16 x 512 sums (scaled by TCSIM_TEST_SCALE; 8 per
// pattern next to its negation) (Unit::dot of a K = 0 final-add row
// would run the same, slower; the reference here is exact arithmetic via binary64).
TEST_CASE("binary16_add_rne is the correctly rounded binary16 sum", "[pairs]") {
  Rng r(tcsim::test::seed("binary16_add_rne", 0x9a125e42));
  std::uint64_t checked = 0, bad = 0;
  auto value = [](std::uint64_t p) {
    const int field = static_cast<int>(p >> 10) & 31;
    const double sig = static_cast<double>((p & 0x3ff) | (field ? 0x400 : 0));
    const double v = std::ldexp(sig, (field ? field : 1) - 25);
    return (p & 0x8000) ? -v : v;
  };
  const int per = static_cast<int>(std::max<std::uint64_t>(16, tcsim::test::count(512)));  // sums per pattern
  for (std::uint64_t x = 0; x < 0x10000; ++x)
    for (int s = 0; s < per; ++s) {
      const std::uint64_t c = s < 8 ? (x ^ 0x8000) + static_cast<std::uint64_t>(s) - 4 : r.below(0x10000);
      if ((c & 0xffff) != c) continue;
      std::uint64_t got = 0;
      const bool finite = ((x >> 10) & 31) != 31 && ((c >> 10) & 31) != 31;
      const bool ok = tcsim::lanes::binary16_add_rne(x, c, got);
      if (!finite) {
        if (ok) ++bad;
        continue;
      }
      // binary64 holds the exact sum; the reference rounding (round_to_format, RNE) takes it
      // to binary16 in one correctly rounded step (clang 14 has no _Float16 on x86).
      const double exact = value(x) + value(c);
      std::uint16_t want = static_cast<std::uint16_t>(
          round_to_format(decode(formats::fp64(), bits_of_double(exact)), formats::fp16(), {}).bits);
      if (exact == 0) want = (value(x) == 0 && value(c) == 0 && (x & c & 0x8000)) ? 0x8000 : 0;
      ++checked;
      if ((want & 0x7c00) == 0x7c00) {  // overflow: left to ieee_add
        if (ok) ++bad;
        continue;
      }
      if (!ok || got != want) {
        if (bad++ < 3) std::printf("[pairs-mod4] binary16 %04llx + %04llx: got %04llx, want %04x\n",
                                   static_cast<unsigned long long>(x), static_cast<unsigned long long>(c),
                                   static_cast<unsigned long long>(got), want);
      }
    }
  std::printf("[pairs-mod4] binary16_add_rne: %llu sums, %llu mismatches\n", static_cast<unsigned long long>(checked),
              static_cast<unsigned long long>(bad));
  CHECK(bad == 0);
  CHECK(checked > 0xf000u * static_cast<std::uint64_t>(per - 8));
}

// The final addition on patterns in SIMD lanes (tile_add.hpp: pattern_add_rne; issue 25, the
// pairs-mod4 rows of dot_batch_planar) against the exact sum rounded by round_to_format (binary64
// holds the sum of two binary16 numbers exactly; for binary32 its rounding first is innocuous:
// 53 >= 2 x 24 + 2): every lane it decides must be that sum; NaN/Inf operands, patterns with bits
// above the width and overflow must be flagged. Operands: random patterns, zeros of both signs,
// subnormals, near the largest finite, the negation a few ulps off, specials, stray high bits.
TEST_CASE("pattern_add_rne is the correctly rounded sum or flags the lane", "[pairs]") {
  Rng r(tcsim::test::seed("pattern_add_rne", 0x9a125e43));
  const std::uint64_t total = tcsim::test::count(2'000'000);
  for (const bool binary16 : {true, false}) {
    const Format& f = binary16 ? formats::fp16() : formats::fp32();
    const int width = binary16 ? 16 : 32, frac = binary16 ? 10 : 23;
    const std::uint64_t sign = std::uint64_t{1} << (width - 1), top = binary16 ? 31 : 255;
    auto value = [&](std::uint64_t p) {
      const std::uint64_t field = (p >> frac) & top;
      const double sig = static_cast<double>((p & ((std::uint64_t{1} << frac) - 1)) | (field ? std::uint64_t{1} << frac : 0));
      const double v = std::ldexp(sig, static_cast<int>(field ? field : 1) - (binary16 ? 15 : 127) - frac);
      return (p & sign) ? -v : v;
    };
    auto operand = [&](std::uint64_t other) -> std::uint64_t {
      const std::uint64_t mask = (std::uint64_t{1} << width) - 1;
      switch (r.below(10)) {
        case 0: return r.below(2) ? sign : 0;                                        // zeros
        case 1: {  // subnormal  // named draws: operand order is unspecified
          const std::uint64_t s = r.below(2) ? sign : 0;
          return s | (r.next() & ((std::uint64_t{1} << frac) - 1));
        }
        case 2: {
          const std::uint64_t s = r.below(2) ? sign : 0;
          const std::uint64_t field = top - 1 - r.below(2);
          return s | (field << frac) | (r.next() & ((std::uint64_t{1} << frac) - 1));
        }
        case 3: return ((other ^ sign) & mask) + r.below(5) - 2;                      // -other, a few ulps off
        case 4: {  // Inf, NaN
          const std::uint64_t s = r.below(2) ? sign : 0;
          return s | (top << frac) | (r.below(2) ? 0 : 1 + r.below(5));
        }
        case 5: return (r.next() & mask) | (std::uint64_t{1} << (width + r.below(64 - width)));  // stray bits
        default: return r.next() & mask;
      }
    };
    std::uint64_t checked = 0, flagged_count = 0, bad = 0;
    const std::size_t n = 1000;  // not a multiple of the lanes or of the function's blocks
    std::vector<std::uint64_t> x(n), c(n), d(n);
    std::vector<std::uint32_t> flagged(n);
    std::vector<char> is_flagged(n);
    while (checked < total) {
      for (std::size_t i = 0; i < n; ++i) {
        x[i] = operand(0);
        c[i] = operand(x[i]);
        if (r.below(2)) std::swap(x[i], c[i]);
      }
      const std::size_t nf = tcsim::lanes::pattern_add_rne(binary16, n, x.data(), c.data(), d.data(), flagged.data());
      std::fill(is_flagged.begin(), is_flagged.end(), 0);
      for (std::size_t k = 0; k < nf; ++k) is_flagged[flagged[k]] = 1;
      for (std::size_t i = 0; i < n; ++i) {
        ++checked;
        const bool stray = (x[i] | c[i]) >> width;
        const bool special = ((x[i] >> frac) & top) == top || ((c[i] >> frac) & top) == top;
        if (stray || special) {
          if (!is_flagged[i]) ++bad;
          continue;
        }
        const double exact = value(x[i]) + value(c[i]);
        std::uint64_t want = round_to_format(decode(formats::fp64(), bits_of_double(exact)), f, {}).bits;
        if (exact == 0) want = (x[i] & c[i] & sign) ? sign : 0;  // -0 only for two -0 operands
        if (is_flagged[i]) {
          ++flagged_count;
          continue;
        }
        if (((want >> frac) & top) == top || d[i] != want) {  // overflow must be flagged
          if (bad++ < 3)
            std::printf("[pairs-mod4] pattern_add_rne %s %llx + %llx: got %llx, want %llx\n", f.name.c_str(),
                        static_cast<unsigned long long>(x[i]), static_cast<unsigned long long>(c[i]),
                        static_cast<unsigned long long>(d[i]), static_cast<unsigned long long>(want));
        }
      }
    }
    std::printf("[pairs-mod4] pattern_add_rne %s: %llu sums (%llu finite ones flagged), %llu mismatches\n", f.name.c_str(),
                static_cast<unsigned long long>(checked), static_cast<unsigned long long>(flagged_count),
                static_cast<unsigned long long>(bad));
    CHECK(bad == 0);
    CHECK(flagged_count < checked / 2);  // the lanes decide most sums
  }
}
