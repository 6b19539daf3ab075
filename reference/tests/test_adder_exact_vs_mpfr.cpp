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

#include "operand_gen.hpp"
#include "tcsim/reference/mpfr_dot.hpp"
#include "tcsim/sim/adder.hpp"
#include "tcsim/sim/codec.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::reference;
using namespace tcsim::reftest;

namespace {

constexpr int kMaxK = 16;

enum CaseClass {
  kWide,          // operands over the whole exponent range
  kNarrow,        // operands within a few binades: carries, interactions
  kPairs,         // a_{j+1} = -a_j, b_{j+1} = b_j (+- 1 ulp): massive cancellation
  kCCancels,      // c = -RNE(sum of the products): tiny remainders
  kSubnormal,     // subnormal and tiny operands and c
  kTie,           // exact sum = output value + half its ulp (RNE tie), disguised by pairs
  kNearTie,       // the same plus a tiny product: just above/below the tie
  kSpecial,       // NaN, Inf, zeros mixed in
  kHuge,          // near the top of the ranges: overflow of the output
  kClasses
};
const char* class_name(int c) {
  static const char* n[] = {"wide", "narrow", "pairs", "c-cancels", "subnormal", "tie", "near-tie", "special", "huge"};
  return n[c];
}

struct Case {
  int k = 0;
  int cls = 0;
  std::uint64_t a[kMaxK] = {}, b[kMaxK] = {};
  std::uint64_t c = 0;
};

// Smallest lead exponent of a product of two values of `in`, largest of the output grid.
int min_product_lead(const Format& in) { return 2 * lowest_lead(in); }

class Generator {
 public:
  Generator(const Format& in, const Format& out, std::uint64_t seed)
      : in_(in), out_(out), rng_(seed), rne_(in, in, out, out, Rounding::NearestEven, OverflowMode::Ieee) {}

  void make(Case& cs) {
    cs.k = rng_.range(1, kMaxK);
    cs.cls = static_cast<int>(rng_.below(kClasses));
    Rng& r = rng_;
    const int center = r.range(lowest_lead(in_), in_.emax);
    auto fill = [&](auto gen) {
      for (int j = 0; j < cs.k; ++j) {
        cs.a[j] = gen();
        cs.b[j] = gen();
      }
    };
    auto c_random = [&]() { return r.below(5) == 0 ? zero_pattern(out_, r) : random_finite(out_, r); };
    switch (cs.cls) {
      case kWide:
        fill([&] { return random_finite(in_, r); });
        cs.c = c_random();
        break;
      case kNarrow:
        fill([&] { return value_with_lead(in_, r, center + r.range(-3, 3)); });
        cs.c = r.below(4) == 0 ? zero_pattern(out_, r) : value_with_lead(out_, r, 2 * center + r.range(-6, 6));
        break;
      case kPairs:
        fill([&] { return value_with_lead(in_, r, center + r.range(-4, 4)); });
        mirror_pairs(cs, 0);
        cs.c = r.below(2) == 0 ? zero_pattern(out_, r) : value_with_lead(out_, r, 2 * center + r.range(-40, 4));
        break;
      case kCCancels: {
        fill([&] { return value_with_lead(in_, r, center + r.range(-3, 3)); });
        if (r.below(2) == 0) mirror_pairs(cs, 1);
        const RoundResult s = rne_(std::span<const std::uint64_t>(cs.a, cs.k), std::span<const std::uint64_t>(cs.b, cs.k),
                                   out_.zero(false));
        cs.c = s.overflow || s.invalid ? zero_pattern(out_, r) : negate_any(out_, s.bits);
        break;
      }
      case kSubnormal:
        fill([&] { return r.below(3) == 0 ? random_finite(in_, r) : random_subnormal_or_tiny(in_, r); });
        cs.c = r.below(3) == 0 ? zero_pattern(out_, r) : random_subnormal_or_tiny(out_, r);
        break;
      case kTie:
      case kNearTie:
        if (!make_tie(cs)) {  // no tie reachable: fall back to narrow
          fill([&] { return value_with_lead(in_, r, center + r.range(-3, 3)); });
          cs.c = c_random();
        }
        break;
      case kSpecial:
        fill([&] { return r.below(4) == 0 ? random_special(in_, r) : random_finite(in_, r); });
        cs.c = r.below(4) == 0 ? random_special(out_, r) : c_random();
        break;
      case kHuge:
        fill([&] { return r.below(4) == 0 ? random_finite(in_, r) : random_huge(in_, r); });
        cs.c = r.below(2) == 0 ? random_huge(out_, r) : c_random();
        break;
    }
  }

 private:
  // Pairs (j, j+1): a_{j+1} = -a_j, b_{j+1} = b_j; with perturb, the fraction's last bit of
  // a_{j+1} flips half the time (the pair then leaves one ulp-sized product).
  void mirror_pairs(Case& cs, int perturb) {
    if (!in_.is_signed) return;
    for (int j = 0; j + 1 < cs.k; j += 2) {
      cs.a[j + 1] = negate(in_, cs.a[j]);
      cs.b[j + 1] = cs.b[j];
      if (perturb && (rng_.next() & 1) && in_.fraction_bits > 0) cs.a[j + 1] ^= 1;  // stays finite: fraction lsb
    }
  }
  static std::uint64_t negate_any(const Format& f, std::uint64_t bits) {
    if (!f.is_signed) return bits;
    if (f.nan == NanEncoding::NegativeZero && (bits & ~f.sign_mask()) == 0) return 0;
    return bits ^ f.sign_mask();
  }

  // c = v (an output value), one product = +-half ulp of v (a power of two 2^t = 2^x 2^y),
  // the remaining slots cancelling pairs; kNearTie adds the smallest product too.
  bool make_tie(Case& cs) {
    Rng& r = rng_;
    const int p = out_.precision;
    const int t_lo = std::max(min_product_lead(in_), out_.subnormals ? out_.emin - p : out_.emin - p + 1);
    const int t_hi = std::min(2 * in_.emax, out_.emax - p);
    if (t_lo > t_hi) return false;
    const int t = r.range(t_lo, t_hi);
    int lead = t + p;  // v normal with quantum 2^(t+1)
    if (lead < out_.emin) return false;
    if (out_.subnormals && t == out_.emin - p) lead = r.range(lowest_lead(out_), out_.emin);  // subnormal grid
    // 2^t = 2^x * 2^y with both representable in the input format.
    int x = 0;
    std::uint64_t ax = 0, by = 0;
    bool ok = false;
    for (int attempt = 0; attempt < 8 && !ok; ++attempt) {
      x = r.range(std::max(lowest_lead(in_), t - in_.emax), std::min(in_.emax, t - lowest_lead(in_)));
      ok = power_of_two(in_, x, r.next() & 1, ax) && power_of_two(in_, t - x, r.next() & 1, by);
    }
    if (!ok) return false;
    std::uint64_t v = value_with_lead(out_, r, lead);
    if (lead == t + p && out_.max_finite(false) == (v & ~out_.sign_mask())) v ^= 1;  // keep v + ulp/2 finite-ish
    cs.c = v;
    int j = 0;
    cs.a[j] = ax;
    cs.b[j] = by;
    ++j;
    if (cs.cls == kNearTie && j < cs.k) {  // the smallest positive product, either sign
      std::uint64_t s1 = 0, s2 = 0;
      power_of_two(in_, lowest_lead(in_), r.next() & 1, s1);
      power_of_two(in_, lowest_lead(in_), false, s2);
      cs.a[j] = s1;
      cs.b[j] = s2;
      ++j;
    }
    const int center = r.range(lowest_lead(in_), in_.emax);
    for (; j + 1 < cs.k; j += 2) {
      cs.a[j] = value_with_lead(in_, r, center + r.range(-3, 3));
      cs.b[j] = value_with_lead(in_, r, center + r.range(-3, 3));
      cs.a[j + 1] = in_.is_signed ? negate(in_, cs.a[j]) : in_.zero(false);
      cs.b[j + 1] = in_.is_signed ? cs.b[j] : in_.zero(false);
    }
    for (; j < cs.k; ++j) {
      cs.a[j] = in_.zero(false);
      cs.b[j] = random_finite(in_, r);
    }
    // Shuffle the products (order must not matter).
    for (int i = cs.k - 1; i > 0; --i) {
      const int s = static_cast<int>(r.below(static_cast<std::uint64_t>(i) + 1));
      std::swap(cs.a[i], cs.a[s]);
      std::swap(cs.b[i], cs.b[s]);
    }
    return true;
  }

  const Format& in_;
  const Format& out_;
  Rng rng_;
  CorrectlyRoundedDot rne_;
};

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
