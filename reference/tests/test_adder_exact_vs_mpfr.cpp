// The BIG differential test: sim's FixedPointAdder configured "exact"
// (exact_adder_config(in, out, 16): F large enough that alignment loses nothing, RNE)
// must return MPFR's correctly rounded c + sum a_i b_i, bit for bit, on random cases
// stressing cancellation, wide exponent spread, subnormals, ties, overflow and specials.
// k is random in 1..16 (one adder sized for 16 terms serves every k <= 16).
//
// Each format pair is its own TEST_CASE (so ctest runs them in parallel). Sizes go through
// tcsim::test::count (TCSIM_TEST_SCALE); seeds through tcsim::test::seed (TCSIM_TEST_SEED).
// A failure prints the case as hex patterns: "k=.. a=[..] b=[..] c=.. -> adder .. mpfr ..".
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "exact_cases.hpp"
#include "operand_gen.hpp"
#include "tcsim/reference/mpfr_dot.hpp"
#include "tcsim/sim/adder.hpp"
#include "tcsim/sim/codec.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::reference;
using namespace tcsim::reftest;

namespace {

// Whether x lies exactly halfway between its two neighbours in `out` (an RNE tie).
bool is_midpoint(mpfr_srcptr x, const Format& out) {
  if (!mpfr_number_p(x) || mpfr_zero_p(x)) return false;
  const RoundResult lo = mpfr_round_to_format(x, out, Rounding::Down, OverflowMode::Ieee);
  const RoundResult hi = mpfr_round_to_format(x, out, Rounding::Up, OverflowMode::Ieee);
  if (lo.overflow || hi.overflow) return false;
  Mpfr l = decode_to_mpfr(out, lo.bits), h = decode_to_mpfr(out, hi.bits);
  if (!mpfr_number_p(l.get()) || !mpfr_number_p(h.get())) return false;
  Mpfr m(2 * out.precision + 8);
  mpfr_add(m.get(), l.get(), h.get(), MPFR_RNDN);  // exact: both on the same grid
  mpfr_div_2ui(m.get(), m.get(), 1, MPFR_RNDN);
  return mpfr_equal_p(m.get(), x) != 0;
}

// Runs n cases of (in -> out) through `adder` and MPFR; returns the number of mismatches
// (the first few are reported with FAIL_CHECK when `report` is set).
// MPFR rounds with the adder's final rounding unless `ref_mode` says otherwise.
std::uint64_t compare(const FixedPointAdder& adder, const Format& in, const Format& out, std::uint64_t n,
                      std::uint64_t seed, bool report, std::optional<Rounding> ref_mode = std::nullopt) {
  const Rounding mode = ref_mode.value_or(adder.config().final_rounding);
  CorrectlyRoundedDot ref(in, in, out, out, mode, OverflowMode::Ieee);
  Generator gen(in, out, seed);
  Case cs;
  std::uint64_t failures = 0, per_class[kClasses] = {}, ties = 0, inexact = 0, overflows = 0, nans = 0, zeros = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::uint64_t i = 0; i < n; ++i) {
    gen.make(cs);
    const std::span<const std::uint64_t> a(cs.a, static_cast<std::size_t>(cs.k)), b(cs.b, static_cast<std::size_t>(cs.k));
    const std::uint64_t got = adder.dot(a, b, cs.c);
    const RoundResult want = ref(a, b, cs.c);
    ++per_class[cs.cls];
    inexact += want.inexact;
    overflows += want.overflow;
    nans += mpfr_nan_p(ref.last_exact()) != 0;
    zeros += mpfr_zero_p(ref.last_exact()) != 0;
    if ((cs.cls == kTie || cs.cls == kNearTie) && want.inexact && !want.overflow && is_midpoint(ref.last_exact(), out))
      ++ties;
    if (got != want.bits) {
      ++failures;
      if (report && failures <= 8) {
        FAIL_CHECK(in.name << "->" << out.name << " " << to_string(mode) << " case " << i << " (" << class_name(cs.cls) << ") k=" << cs.k
                           << " a=" << hex_list(in, cs.a, cs.k) << " b=" << hex_list(in, cs.b, cs.k)
                           << " c=" << bits_to_hex(out, cs.c) << " -> adder " << bits_to_hex(out, got) << " mpfr "
                           << bits_to_hex(out, want.bits) << " (exact " << mpfr_hex(ref.last_exact()) << ")");
      }
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[reference] %s->%s %s: %llu cases in %.1f s (%llu inexact, %llu overflow, %llu NaN, %llu exact zero;"
              " %llu exact ties), %llu mismatches; F=%d\n",
              in.name.c_str(), out.name.c_str(), to_string(mode).c_str(), static_cast<unsigned long long>(n), secs,
              static_cast<unsigned long long>(inexact), static_cast<unsigned long long>(overflows),
              static_cast<unsigned long long>(nans), static_cast<unsigned long long>(zeros),
              static_cast<unsigned long long>(ties), static_cast<unsigned long long>(failures),
              adder.config().fraction_bits);
  return failures;
}

void run_pair(const Format& in, const Format& out, std::uint64_t base_count, std::uint64_t default_seed) {
  const std::string name = "adder exact vs mpfr " + in.name + "->" + out.name;
  const std::uint64_t seed = test::seed(name.c_str(), default_seed);
  const FixedPointAdder adder(exact_adder_config(in, out, kMaxK));
  CHECK(compare(adder, in, out, test::count(base_count), seed, true) == 0);
}

}  // namespace

// One million cases per pair at scale 1 (fp64 -> fp64 too: its F = 4,195-bit register
// costs about twice a binary32 case, still ~10 s per million on one core).
TEST_CASE("adder exact vs MPFR: fp16 -> fp32") { run_pair(formats::fp16(), formats::fp32(), 1000000, 101); }
TEST_CASE("adder exact vs MPFR: fp16 -> fp16") { run_pair(formats::fp16(), formats::fp16(), 1000000, 102); }
TEST_CASE("adder exact vs MPFR: bf16 -> fp32") { run_pair(formats::bf16(), formats::fp32(), 1000000, 103); }
TEST_CASE("adder exact vs MPFR: tf32 -> fp32") { run_pair(formats::tf32(), formats::fp32(), 1000000, 104); }
TEST_CASE("adder exact vs MPFR: e4m3 -> fp32") { run_pair(formats::e4m3(), formats::fp32(), 1000000, 105); }
TEST_CASE("adder exact vs MPFR: e5m2 -> fp32") { run_pair(formats::e5m2(), formats::fp32(), 1000000, 106); }
TEST_CASE("adder exact vs MPFR: e4m3 -> fp16") { run_pair(formats::e4m3(), formats::fp16(), 1000000, 107); }
TEST_CASE("adder exact vs MPFR: e2m1 -> fp32") { run_pair(formats::e2m1(), formats::fp32(), 1000000, 108); }
TEST_CASE("adder exact vs MPFR: e2m3 -> fp32") { run_pair(formats::e2m3(), formats::fp32(), 1000000, 109); }
TEST_CASE("adder exact vs MPFR: e3m2 -> fp32") { run_pair(formats::e3m2(), formats::fp32(), 1000000, 110); }
TEST_CASE("adder exact vs MPFR: fp32 -> fp32") { run_pair(formats::fp32(), formats::fp32(), 1000000, 111); }
TEST_CASE("adder exact vs MPFR: fp64 -> fp64") { run_pair(formats::fp64(), formats::fp64(), 1000000, 112); }

// The comparison has teeth: adders that are not exact must be caught. Hardware-like
// truncation (F = 24, alignment RZ), an RZ final rounding, and too few carry bits.
TEST_CASE("adder exact vs MPFR: the comparison catches inexact adders (mutation check)") {
  const Format& in = formats::fp16();
  const Format& out = formats::fp32();
  const std::uint64_t seed = test::seed("adder exact vs mpfr mutation", 120);
  const std::uint64_t n = std::max<std::uint64_t>(test::count(20000), 2000);
  AdderConfig truncating = exact_adder_config(in, out, kMaxK);
  truncating.fraction_bits = 24;
  AdderConfig rz = exact_adder_config(in, out, kMaxK);
  rz.final_rounding = Rounding::TowardZero;
  AdderConfig narrow = exact_adder_config(in, out, kMaxK);
  narrow.carry_bits = 0;
  for (const AdderConfig& cfg : {truncating, rz, narrow}) {
    INFO(cfg.describe());
    CHECK(compare(FixedPointAdder(cfg), in, out, n, seed, false, Rounding::NearestEven) > 0);
  }
}

// The exact adder with the directed final roundings (RZ, RU, RD) against MPFR in the same
// mode: 10^5 cases per mode and pair.
TEST_CASE("adder exact vs MPFR: directed final rounding rz ru rd") {
  const std::pair<Format, Format> pairs[] = {{formats::fp16(), formats::fp32()},
                                             {formats::e4m3(), formats::fp16()},
                                             {formats::bf16(), formats::fp32()}};
  const std::uint64_t seed = test::seed("adder exact vs mpfr directed", 130);
  for (const auto& [in, out] : pairs) {
    for (Rounding mode : {Rounding::TowardZero, Rounding::Up, Rounding::Down}) {
      AdderConfig cfg = exact_adder_config(in, out, kMaxK);
      cfg.final_rounding = mode;
      INFO(cfg.describe());
      CHECK(compare(FixedPointAdder(cfg), in, out, test::count(100000), seed, true) == 0);
    }
  }
}
