// libFuzzer target: the fixed-point adder itself. The input is a random configuration (F,
// carry bits, roundings, sticky bit, clamp, placement of c, normalization, order, overflow,
// subnormal flags, formats of a and b drawn apart, and the AMD row parameters of issue 24:
// c after with its AfterAdd, product groups, input truncation, product rounding and
// overflow, positive flush, zero sign) and random operands. Three claims are checked:
//   - the block kernel (run and run_planar), where it accepts the configuration, returns the
//     reference adder's bits (FixedPointAdder::dot);
//   - the reference adder configured exact (exact_adder_config) returns MPFR's correctly
//     rounded c + sum a_i b_i in the fuzzed rounding mode;
//   - no configuration or operand makes either crash; a refused configuration is a
//     std::invalid_argument from validate().
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "tcsim/reference/mpfr_dot.hpp"
#include "tcsim/sim/adder.hpp"
#include "tcsim/sim/block_kernel.hpp"
#include "tcsim/sim/codec.hpp"

namespace {

using namespace tcsim;

[[noreturn]] void fail(const char* what, const AdderConfig& cfg, std::uint64_t got, std::uint64_t want) {
  std::fprintf(stderr, "fuzz_adder: %s: got %s, want %s; %s\n", what, bits_to_hex(cfg.out_format, got).c_str(),
               bits_to_hex(cfg.out_format, want).c_str(), cfg.describe().c_str());
  std::abort();
}

template <class E, std::size_t N>
E pick(FuzzedDataProvider& p, const E (&v)[N]) { return v[p.ConsumeIntegralInRange<std::size_t>(0, N - 1)]; }

// Signed formats with a zero: the output and accumulator formats the units use.
const Format& pick_out(FuzzedDataProvider& p) {
  static const std::vector<Format> outs = [] {
    std::vector<Format> v;
    for (const Format& f : builtin_formats())
      if (f.is_signed && f.has_zero) v.push_back(f);
    return v;
  }();
  return outs[p.ConsumeIntegralInRange<std::size_t>(0, outs.size() - 1)];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider p(data, size);
  static constexpr Rounding align_modes[] = {Rounding::TowardZero, Rounding::Down, Rounding::Up, Rounding::NearestEven};
  static constexpr Rounding final_modes[] = {Rounding::NearestEven, Rounding::TowardZero, Rounding::Up, Rounding::Down,
                                             Rounding::ToOdd};
  static constexpr OverflowMode overflows[] = {OverflowMode::Ieee, OverflowMode::Saturate, OverflowMode::ToNaN,
                                               OverflowMode::FormatDefault};
  const auto& all = builtin_formats();
  AdderConfig cfg;
  cfg.a_format = cfg.b_format = all[p.ConsumeIntegralInRange<std::size_t>(0, all.size() - 1)];
  if (p.ConsumeBool()) cfg.b_format = all[p.ConsumeIntegralInRange<std::size_t>(0, all.size() - 1)];  // mixed
  cfg.c_format = cfg.out_format = pick_out(p);
  cfg.fraction_bits = p.ConsumeIntegralInRange(0, 80);
  cfg.carry_bits = p.ConsumeIntegralInRange(0, 8);
  cfg.alignment_rounding = pick(p, align_modes);
  cfg.sticky_bit = p.ConsumeBool();
  if (p.ConsumeBool()) cfg.min_exponent = p.ConsumeIntegralInRange(-200, 40);
  cfg.product_exponent = p.ConsumeBool() ? ProductExponent::Unnormalized : ProductExponent::Normalized;
  cfg.c_placement = p.ConsumeBool() ? CPlacement::Aligned : CPlacement::Late;
  if (cfg.c_placement == CPlacement::Late && p.ConsumeBool()) cfg.late_products_rounding = pick(p, final_modes);
  cfg.normalization = p.ConsumeBool() ? Normalization::Deferred : Normalization::PerStep;
  cfg.order = pick(p, {AccumulationOrder::LargestFirst, AccumulationOrder::Sequential, AccumulationOrder::Pairwise});
  cfg.final_rounding = pick(p, final_modes);
  cfg.overflow = pick(p, overflows);
  cfg.subnormal_inputs = p.ConsumeBool();
  cfg.subnormal_outputs = p.ConsumeBool();
  // The AMD parameters, each in a quarter of the inputs (invalid combinations are refused by
  // validate(), which is checked too).
  auto rare = [&] { return p.ConsumeIntegralInRange(0, 3) == 0; };
  if (rare()) cfg.zero_sign = ZeroSign::Positive;
  if (rare()) {
    cfg.c_placement = CPlacement::After;
    cfg.late_products_rounding.reset();
    cfg.after.sum_fraction_bits = p.ConsumeIntegralInRange(0, 60);
    cfg.after.c_fraction_bits = p.ConsumeIntegralInRange(0, 60);
    cfg.after.rounding = pick(p, align_modes);
    if (p.ConsumeBool()) cfg.after.renormalize_fraction_bits = p.ConsumeIntegralInRange(0, 60);
    else cfg.after.renormalize_fraction_bits.reset();
    if (p.ConsumeBool()) cfg.after.drop_c_below = p.ConsumeIntegralInRange(0, 60);
    cfg.product_groups = p.ConsumeIntegralInRange(1, 4);
  }
  if (rare()) cfg.input_fraction_bits = p.ConsumeIntegralInRange(0, 52);
  if (rare()) cfg.flush_inputs_positive = true;
  if (rare()) cfg.product_rounding = pick(p, final_modes);
  if (rare()) cfg.product_overflow_inf = true;
  const std::size_t k = p.ConsumeIntegralInRange<std::size_t>(0, 32);
  const std::size_t n = p.ConsumeIntegralInRange<std::size_t>(1, 4);
  std::vector<std::uint64_t> a(n * k), b(n * k), c(n), d(n);
  for (auto& x : a) x = p.ConsumeIntegral<std::uint64_t>() & cfg.a_format.width_mask();
  for (auto& x : b) x = p.ConsumeIntegral<std::uint64_t>() & cfg.b_format.width_mask();
  for (auto& x : c) x = p.ConsumeIntegral<std::uint64_t>() & cfg.c_format.width_mask();

  std::vector<std::uint64_t> want(n);
  try {
    const FixedPointAdder adder(cfg);
    for (std::size_t i = 0; i < n; ++i) {
      want[i] = adder.dot({a.data() + i * k, k}, {b.data() + i * k, k}, c[i]);
      if (want[i] & ~cfg.out_format.width_mask()) fail("pattern wider than the format", cfg, want[i], 0);
    }
  } catch (const std::invalid_argument&) {
    return 0;  // refused configuration: fine, as long as it says so
  }
  if (!block_kernel_unsupported(cfg, k)) {
    const BlockKernel kernel(cfg, k);
    kernel.run(n, k, a.data(), k, b.data(), k, c.data(), d.data());
    for (std::size_t i = 0; i < n; ++i)
      if (d[i] != want[i]) fail("block kernel", cfg, d[i], want[i]);
    if (cfg.a_format.width <= 16 && cfg.b_format.width <= 16) {
      std::vector<std::uint16_t> at(n * k), bt(n * k);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t t = 0; t < k; ++t) {
          at[t * n + i] = static_cast<std::uint16_t>(a[i * k + t]);
          bt[t * n + i] = static_cast<std::uint16_t>(b[i * k + t]);
        }
      kernel.run_planar(n, k, at.data(), n, bt.data(), n, c.data(), d.data());
      for (std::size_t i = 0; i < n; ++i)
        if (d[i] != want[i]) fail("planar block kernel", cfg, d[i], want[i]);
    }
  }
  // Reference path against MPFR: the exact configuration of the same formats.
  AdderConfig exact = exact_adder_config(cfg.a_format, cfg.out_format, k);
  exact.b_format = cfg.b_format;
  exact.fraction_bits = exact.exact_fraction_bits();
  exact.final_rounding = cfg.final_rounding;
  const FixedPointAdder exact_adder(exact);
  for (std::size_t i = 0; i < n; ++i) {
    const std::span<const std::uint64_t> ai(a.data() + i * k, k), bi(b.data() + i * k, k);
    std::uint64_t got = 0;
    try {
      got = exact_adder.dot(ai, bi, c[i]);
    } catch (const std::invalid_argument&) {
      // A NaN result in an output format without NaN (e3m2): refused, as documented. The
      // fuzzed configuration computed a number there, so it lost the NaN: only the encoding
      // truncation of input_fraction_bits may do that (an IEEE NaN with its payload in the
      // cleared bits becomes Inf, as X25 models xf32).
      if (!cfg.input_fraction_bits) fail("a NaN operand lost (exact adder: NaN)", cfg, want[i], 0);
      continue;
    }
    const std::uint64_t mpfr = reference::correctly_rounded_dot(exact.a_format, exact.b_format, exact.c_format,
                                                                exact.out_format, ai, bi, c[i], exact.final_rounding,
                                                                OverflowMode::Ieee)
                                   .bits;
    if (got != mpfr) fail("exact adder against MPFR", exact, got, mpfr);
  }
  return 0;
}
