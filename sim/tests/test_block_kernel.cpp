// The int64 block kernel against the reference FixedPointAdder: every case must give the
// same bits. Cases are structured (TestFloat style): products in a window of exponents so
// that alignment truncates, exact cancellations, sums that outgrow the carry bits, zeros of
// both signs, subnormals, NaN/Inf, results in the output's subnormal and overflow ranges,
// and the min_exponent clamp. The configurations are those of the NVIDIA rows (units.md
// s2) plus random ones over every parameter the kernel accepts.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include <hwy/targets.h>

#include "operand_gen.hpp"
#include "tcsim/sim/block_kernel.hpp"
#include "tcsim/sim/codec.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::reftest;
using tcsim::test::Rng;

namespace {

AdderConfig row(const Format& in, const Format& out, int F, int carry, Rounding final_rounding,
                std::optional<int> min_exponent) {
  AdderConfig c;
  c.a_format = c.b_format = in;
  c.c_format = c.out_format = out;
  c.fraction_bits = F;
  c.carry_bits = carry;
  c.final_rounding = final_rounding;
  c.min_exponent = min_exponent;
  c.overflow = OverflowMode::Infinity;  // the NVIDIA corner rules (models/src/unit_table.cpp)
  c.zero_sign = ZeroSign::Positive;
  return c;
}

// One operand pair for product t of a case of scenario `kind`, around lead exponent `center`.
void make_case(const AdderConfig& cfg, std::size_t k, Rng& r, std::vector<std::uint64_t>& a,
               std::vector<std::uint64_t>& b, std::uint64_t& c) {
  const Format &fa = cfg.a_format, &fb = cfg.b_format, &fc = cfg.c_format;
  const int kind = static_cast<int>(r.below(8));
  const int width = 1 + static_cast<int>(r.below(40));  // exponent spread of the products
  const int ca = r.range(lowest_lead(fa), fa.emax), cb = r.range(lowest_lead(fb), fb.emax);
  for (std::size_t t = 0; t < k; ++t) {
    switch (kind) {
      case 0:  // window of exponents: alignment truncates
        a[t] = value_with_lead(fa, r, ca - static_cast<int>(r.below(static_cast<std::uint64_t>(width))));
        b[t] = value_with_lead(fb, r, cb - static_cast<int>(r.below(static_cast<std::uint64_t>(width))));
        break;
      case 1:  // anywhere
        a[t] = random_finite(fa, r);
        b[t] = random_finite(fb, r);
        break;
      case 2:  // zeros, subnormals, specials mixed in
        a[t] = r.below(4) == 0 ? random_special(fa, r) : (r.below(2) ? random_subnormal_or_tiny(fa, r) : random_finite(fa, r));
        b[t] = r.below(4) == 0 ? random_special(fb, r) : random_finite(fb, r);
        break;
      case 3:  // same exponent, large significands, one sign: carries (and wraps with few carry bits)
        a[t] = value_with_lead(fa, r, ca) | (fa.width_mask() >> (fa.width - fa.fraction_bits)) ;
        a[t] &= ~fa.sign_mask();
        b[t] = value_with_lead(fb, r, cb) & ~fb.sign_mask();
        break;
      case 4:  // huge: overflow of the output
        a[t] = random_huge(fa, r);
        b[t] = random_huge(fb, r);
        break;
      case 5:  // tiny: subnormal outputs and the min_exponent clamp
        a[t] = random_subnormal_or_tiny(fa, r);
        b[t] = value_with_lead(fb, r, r.range(lowest_lead(fb), fb.emin + 2));
        break;
      default:  // mostly zeros
        a[t] = r.below(3) ? zero_pattern(fa, r) : random_finite(fa, r);
        b[t] = random_finite(fb, r);
        break;
    }
  }
  if (r.below(8) == 0) {  // every term -0: the sign of an exact zero (zero_sign)
    for (std::size_t t = 0; t < k; ++t) {
      a[t] = fa.zero(true);
      b[t] = r.below(2) ? value_with_lead(fb, r, cb) & ~fb.sign_mask() : fb.zero(false);
    }
    c = fc.zero(true);
    return;
  }
  // Exact cancellation: negate the second half's copy of the first half.
  if (kind == 0 && k >= 2 && r.below(3) == 0)
    for (std::size_t t = 0; t + 1 < k; t += 2) {
      a[t + 1] = negate(fa, a[t]);
      b[t + 1] = b[t];
    }
  switch (r.below(6)) {
    case 0: c = zero_pattern(fc, r); break;
    case 1: c = random_special(fc, r); break;
    case 2: c = random_finite(fc, r); break;
    default: c = value_with_lead(fc, r, std::clamp(ca + cb + r.range(-30, 4), lowest_lead(fc), fc.emax)); break;
  }
}

// Runs `cases` cases of `cfg` through both implementations (and run_planar for formats of at
// most 16 bits), in batches (so that the SIMD lanes run: batches of one element take the
// scalar path) of full blocks and of shorter ones.
std::size_t compare(const AdderConfig& cfg, std::size_t k, std::size_t cases, Rng& r, const std::string& label) {
  const BlockKernel kernel(cfg, k);
  const FixedPointAdder adder(cfg);
  std::size_t mismatches = 0;
  const std::size_t batch = 1000;
  std::vector<std::uint64_t> a(batch * k), b(batch * k), c(batch), d(batch), d_planar(batch), pa(k), pb(k), ea(k), eb(k);
  std::vector<std::uint16_t> at, bt;
  std::vector<std::uint32_t> at32, bt32;  // run_planar32 (formats of 17 to 32 bits: tf32)
  for (std::size_t done = 0; done < cases; done += batch) {
    const std::size_t n = std::min(batch, cases - done);
    const std::size_t len = r.below(4) == 0 ? r.below(k + 1) : k;
    for (std::size_t i = 0; i < n; ++i) {
      make_case(cfg, k, r, ea, eb, c[i]);
      std::copy(ea.begin(), ea.end(), a.begin() + static_cast<std::ptrdiff_t>(i * k));
      std::copy(eb.begin(), eb.end(), b.begin() + static_cast<std::ptrdiff_t>(i * k));
    }
    kernel.run(n, len, a.data(), k, b.data(), k, c.data(), d.data());
    // The same block FMAs product-major in 16-bit patterns (run_planar; lda = n + 5: strided).
    const bool planar = cfg.a_format.width <= 16 && cfg.b_format.width <= 16;
    if (planar) {
      const std::size_t ld = n + 5;
      at.assign(ld * k, 0);
      bt.assign(ld * k, 0);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t t = 0; t < len; ++t) {
          at[t * ld + i] = static_cast<std::uint16_t>(a[i * k + t]);
          bt[t * ld + i] = static_cast<std::uint16_t>(b[i * k + t]);
        }
      kernel.run_planar(n, len, at.data(), ld, bt.data(), ld, c.data(), d_planar.data());
    }
    const bool planar32 = !planar && cfg.a_format.width <= 32 && cfg.b_format.width <= 32;
    if (planar32) {
      const std::size_t ld = n + 3;
      at32.assign(ld * k, 0);
      bt32.assign(ld * k, 0);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t t = 0; t < len; ++t) {
          at32[t * ld + i] = static_cast<std::uint32_t>(a[i * k + t]);
          bt32[t * ld + i] = static_cast<std::uint32_t>(b[i * k + t]);
        }
      kernel.run_planar32(n, len, at32.data(), ld, bt32.data(), ld, c.data(), d_planar.data());
    }
    for (std::size_t i = 0; i < n; ++i) {
      std::fill(pa.begin(), pa.end(), 0);
      std::fill(pb.begin(), pb.end(), 0);
      std::copy_n(a.begin() + static_cast<std::ptrdiff_t>(i * k), len, pa.begin());
      std::copy_n(b.begin() + static_cast<std::ptrdiff_t>(i * k), len, pb.begin());
      const std::uint64_t want = adder.dot(pa, pb, c[i]);
      if (d[i] != want && ++mismatches <= 3)
        std::printf("[block-kernel] MISMATCH %s (%s), len %zu: a = %s, b = %s, c = %s: kernel %s, reference %s\n",
                    label.c_str(), cfg.describe().c_str(), len, hex_list(cfg.a_format, pa.data(), k).c_str(),
                    hex_list(cfg.b_format, pb.data(), k).c_str(), bits_to_hex(cfg.c_format, c[i]).c_str(),
                    bits_to_hex(cfg.out_format, d[i]).c_str(), bits_to_hex(cfg.out_format, want).c_str());
      if ((planar || planar32) && d_planar[i] != want && ++mismatches <= 3)
        std::printf("[block-kernel] MISMATCH planar %s (%s), len %zu: a = %s, b = %s, c = %s: kernel %s, reference %s\n",
                    label.c_str(), cfg.describe().c_str(), len, hex_list(cfg.a_format, pa.data(), k).c_str(),
                    hex_list(cfg.b_format, pb.data(), k).c_str(), bits_to_hex(cfg.c_format, c[i]).c_str(),
                    bits_to_hex(cfg.out_format, d_planar[i]).c_str(), bits_to_hex(cfg.out_format, want).c_str());
    }
  }
  return mismatches;
}

}  // namespace

TEST_CASE("block kernel equals the reference adder on the NVIDIA datapaths", "[adder][kernel]") {
  Rng r(tcsim::test::seed("block kernel nvidia rows", 20261123));
  const Format &f16 = formats::fp16(), &f32 = formats::fp32(), &bf = formats::bf16(), &tf = formats::tf32(),
               &e4 = formats::e4m3(), &e5 = formats::e5m2();
  struct Row {
    const char* name;
    AdderConfig cfg;
    std::size_t k;
  };
  const Rounding rz = Rounding::TowardZero, rne = Rounding::NearestEven;
  const Row rows[] = {
      {"v100 fp16->fp32", row(f16, f32, 23, 4, rz, std::nullopt), 4},
      {"v100 fp16->fp16", row(f16, f16, 23, 4, rne, -19), 4},
      {"a100 fp16->fp32", row(f16, f32, 24, 5, rz, -132), 8},
      {"a100 fp16->fp16", row(f16, f16, 24, 5, rne, -20), 8},
      {"a100 bf16->fp32", row(bf, f32, 24, 5, rz, -132), 8},
      {"a100 tf32->fp32", row(tf, f32, 24, 4, rz, -132), 4},
      {"h100 fp16->fp32", row(f16, f32, 25, 6, rz, -133), 16},
      {"h100 fp16->fp16", row(f16, f16, 25, 6, rne, -21), 16},
      {"h100 bf16->fp32", row(bf, f32, 25, 6, rz, -133), 16},
      {"h100 tf32->fp32", row(tf, f32, 25, 5, rz, -133), 8},
      {"l40s e4m3->fp16", row(e4, f16, 13, 6, rne, -20), 16},
      {"l40s e5m2->fp32", row(e5, f32, 13, 6, rz, -132), 16},
      {"h100 e4m3->fp32 wgmma", row(e4, f32, 13, 7, rz, -133), 32},
      {"b200 e5m2->fp32 tcgen05", row(e5, f32, 25, 7, rz, -133), 32},
      {"b200 e2m1->fp32 tcgen05", row(formats::e2m1(), f32, 25, 7, rz, -133), 32},
  };
  const std::size_t cases = tcsim::test::count(200000);
  for (const Row& w : rows) {
    INFO(w.name);
    CHECK(compare(w.cfg, w.k, cases, r, w.name) == 0);
  }
  // The narrow result format of Ada/Hopper fp8 -> fp32 (13 fraction bits, binary32 range).
  AdderConfig narrow = row(e4, f32, 13, 7, rz, -133);
  narrow.out_format = make_format("fp32r13", 14, -126, 127, true, true, NanEncoding::Ieee);
  CHECK(compare(narrow, 32, cases, r, "fp8 -> fp32r13") == 0);
}

TEST_CASE("block kernel equals the reference adder on random configurations", "[adder][kernel]") {
  Rng r(tcsim::test::seed("block kernel random configurations", 77));
  const std::vector<const Format*> ins = {&formats::fp16(), &formats::bf16(), &formats::tf32(), &formats::e4m3(),
                                          &formats::e5m2(), &formats::e2m3(), &formats::e3m2(), &formats::e2m1()};
  const std::vector<const Format*> outs = {&formats::fp32(), &formats::fp16(), &formats::bf16(), &formats::fp64(),
                                           &formats::e5m2()};
  const Rounding aligns[] = {Rounding::TowardZero, Rounding::Down, Rounding::Up, Rounding::NearestEven};
  const Rounding finals[] = {Rounding::TowardZero, Rounding::NearestEven, Rounding::Up, Rounding::Down,
                             Rounding::ToOdd};
  const std::size_t configs = 300, cases = tcsim::test::count(3000);
  std::size_t run = 0, refused = 0;
  for (std::size_t i = 0; i < configs; ++i) {
    // Named draws (argument order is unspecified), last argument first as GCC did.
    const Rounding final_mode = finals[r.below(5)];
    const int carry = r.range(0, 8), fraction = r.range(0, 50);
    const Format& out_format = *outs[r.below(outs.size())];
    AdderConfig cfg = row(*ins[r.below(ins.size())], out_format, fraction, carry, final_mode, std::nullopt);
    cfg.b_format = *ins[r.below(ins.size())];
    cfg.alignment_rounding = aligns[r.below(4)];
    cfg.subnormal_inputs = r.below(4) != 0;
    cfg.subnormal_outputs = r.below(4) != 0;
    if (r.below(2)) cfg.min_exponent = r.range(-140, 10);
    cfg.overflow = r.below(2) ? OverflowMode::Infinity : OverflowMode::Ieee;
    cfg.zero_sign = r.below(2) ? ZeroSign::Positive : ZeroSign::Ieee;
    const std::size_t k = 1 + r.below(64);
    if (block_kernel_unsupported(cfg, k)) {
      ++refused;
      CHECK_THROWS_AS(BlockKernel(cfg, k), std::invalid_argument);
      continue;
    }
    ++run;
    const std::string label = "random config " + std::to_string(i) + ", k " + std::to_string(k);
    INFO(label << ": " << cfg.describe());
    CHECK(compare(cfg, k, cases, r, label) == 0);
  }
  std::printf("[block-kernel] random configurations: %zu run, %zu refused (F too wide for int64)\n", run, refused);
  CHECK(run > configs / 2);
}

TEST_CASE("block kernel refuses what it cannot prove exact, with the reason", "[adder][kernel]") {
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  AdderConfig cfg = row(f16, f32, 23, 3, Rounding::TowardZero, std::nullopt);
  auto why = [&](const AdderConfig& c, std::size_t k = 4) { return block_kernel_unsupported(c, k).value_or("(none)"); };
  CHECK(why(cfg) == "(none)");
  AdderConfig x = cfg;
  x.normalization = Normalization::PerStep;
  CHECK(why(x) == "per-step normalization");
  x = cfg;
  x.sticky_bit = true;
  CHECK(why(x) == "sticky bit");
  x = cfg;
  x.c_placement = CPlacement::Late;
  CHECK(why(x) == "c added late");
  x = cfg;
  x.final_rounding = Rounding::Stochastic;
  CHECK(why(x) == "stochastic final rounding");
  x = row(formats::fp32(), f32, 23, 3, Rounding::TowardZero, std::nullopt);
  CHECK_THAT(why(x), Catch::Contains("more than 12 significand bits"));
  x = row(formats::e4m3fnuz(), f32, 23, 3, Rounding::TowardZero, std::nullopt);
  CHECK_THAT(why(x), Catch::Contains("FNUZ"));
  x = row(f16, f32, 57, 3, Rounding::TowardZero, std::nullopt);
  CHECK_THAT(why(x, 16), Catch::Contains("F = 57 with 16 products does not fit int64"));
  CHECK_THROWS_WITH(BlockKernel(x, 16), Catch::Contains("block kernel: F = 57"));
  const BlockKernel kernel(cfg, 4);
  std::uint64_t a[5] = {}, c = 0, d = 0;
  CHECK_THROWS_WITH(kernel.run(1, 5, a, 5, a, 5, &c, &d), Catch::Contains("5 products exceed the block's 4"));
}

TEST_CASE("block kernel: strided elements and every length give the reference's bits", "[adder][kernel]") {
  Rng r(tcsim::test::seed("block kernel strided", 5));
  const AdderConfig cfg = row(formats::fp16(), formats::fp32(), 24, 5, Rounding::TowardZero, -132);
  const std::size_t n = 257, k = 8, lda = 11, ldb = 13;
  std::vector<std::uint64_t> a(n * lda), b(n * ldb), c(n), d(n);
  for (auto& x : a) x = random_finite(formats::fp16(), r);
  for (auto& x : b) x = random_finite(formats::fp16(), r);
  for (auto& x : c) x = random_finite(formats::fp32(), r);
  const BlockKernel kernel(cfg, k);
  const FixedPointAdder adder(cfg);
  for (std::size_t len = 0; len <= k; ++len) {
    kernel.run(n, len, a.data(), lda, b.data(), ldb, c.data(), d.data());
    for (std::size_t i = 0; i < n; ++i) {
      std::vector<std::uint64_t> pa(k, 0), pb(k, 0);
      std::copy_n(a.begin() + static_cast<std::ptrdiff_t>(i * lda), len, pa.begin());
      std::copy_n(b.begin() + static_cast<std::ptrdiff_t>(i * ldb), len, pb.begin());
      INFO("len " << len << " element " << i);
      CHECK(bits_to_hex(formats::fp32(), d[i]) == bits_to_hex(formats::fp32(), adder.dot(pa, pb, c[i])));
    }
  }
}

// The SIMD code is compiled for several instruction sets and chosen at run time; this machine
// would only ever run its best one. Each compiled target this CPU supports (AVX-512, AVX2,
// SSE4, SSSE3, scalar...) is forced in turn and must give the reference's bits.
TEST_CASE("block kernel: every compiled SIMD target gives the reference's bits", "[adder][kernel]") {
  Rng r(tcsim::test::seed("block kernel targets", 20261124));
  const Format &f16 = formats::fp16(), &f32 = formats::fp32(), &e4 = formats::e4m3();
  const Rounding rz = Rounding::TowardZero, rne = Rounding::NearestEven;
  const std::size_t cases = tcsim::test::count(30000);
  const auto targets = hwy::SupportedAndGeneratedTargets();
  CHECK(!targets.empty());
  for (const std::int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string name = hwy::TargetName(target);
    INFO("target " << name);
    std::printf("[block-kernel] target %s\n", name.c_str());
    CHECK(compare(row(f16, f32, 25, 6, rz, -133), 16, cases, r, "h100 fp16->fp32 on " + name) == 0);
    CHECK(compare(row(f16, f16, 23, 4, rne, -19), 4, cases, r, "v100 fp16->fp16 on " + name) == 0);
    CHECK(compare(row(e4, f32, 13, 7, rz, -133), 32, cases, r, "h100 e4m3->fp32 on " + name) == 0);
    CHECK(compare(row(formats::bf16(), f32, 24, 5, rz, -132), 8, cases, r, "a100 bf16->fp32 on " + name) == 0);
    CHECK(compare(row(formats::tf32(), f32, 24, 4, rz, -132), 4, cases, r, "a100 tf32->fp32 on " + name) == 0);
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the CPU's own
}

// The sanitizer build compiles fewer Highway targets (CMakeLists.txt): what is left must still
// hold a 128-bit, a 256-bit and a 512-bit one, so that the tails of every width are checked.
TEST_CASE("block kernel: the compiled targets cover 128-, 256- and 512-bit vectors", "[kernel]") {
#if HWY_ARCH_X86
  const std::int64_t compiled = HWY_TARGETS;
  CHECK((compiled & (HWY_EMU128 | HWY_SSSE3 | HWY_SSE4)) != 0);
  CHECK((compiled & HWY_AVX2) != 0);
  CHECK((compiled & HWY_AVX3) != 0);
#else
  SUCCEED("not x86: Highway's own target set");
#endif
}

TEST_CASE("block kernel: the planar path serves the rz rows of binary16-like formats only", "[adder][kernel]") {
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  // The planar path needs a SIMD target (the scalar one has none).
  const bool simd = (hwy::SupportedTargets() & HWY_TARGETS & ~static_cast<std::int64_t>(HWY_SCALAR)) != 0;
  CHECK(BlockKernel(row(f16, f32, 25, 6, Rounding::TowardZero, -133), 16).planar_supported() == simd);
  CHECK(BlockKernel(row(formats::e4m3(), f32, 13, 7, Rounding::TowardZero, -133), 32).planar_supported() == simd);
  CHECK(BlockKernel(row(formats::e5m2(), formats::fp16(), 13, 7, Rounding::TowardZero, -30), 32).planar_supported() == simd);
  // bf16 (issue 25): decoded by a shift, its products flagged where they could leave binary32's
  // range; F = 30 leaves no room in the int32 sum. The tiles take bf16 and tf32 alike.
  CHECK(BlockKernel(row(formats::bf16(), f32, 24, 5, Rounding::TowardZero, -132), 8).planar_supported() == simd);
  CHECK_FALSE(BlockKernel(row(formats::bf16(), f32, 30, 3, Rounding::TowardZero, -132), 8).planar_supported());
  CHECK(BlockKernel(row(formats::bf16(), f32, 24, 5, Rounding::TowardZero, -132), 8).tile_supported());
  CHECK(BlockKernel(row(formats::tf32(), f32, 24, 5, Rounding::TowardZero, -132), 4).tile_supported());
  CHECK_FALSE(BlockKernel(row(formats::bf16(), f32, 30, 3, Rounding::TowardZero, -132), 8).tile_supported());
  CHECK_FALSE(BlockKernel(row(f16, f32, 30, 3, Rounding::TowardZero, -133), 16).planar_supported());
  AdderConfig rd = row(f16, f32, 25, 6, Rounding::TowardZero, -133);
  rd.alignment_rounding = Rounding::Down;
  CHECK_FALSE(BlockKernel(rd, 16).planar_supported());
}

// Issue 25: tf32 (19-bit patterns in 32-bit words) on the planar lanes of 32-bit patterns:
// the rz rows of formats laid out as binary32's top bits with at most 12 significand bits.
TEST_CASE("block kernel: the 32-bit planar path serves tf32-like formats only", "[adder][kernel]") {
  const Format &f16 = formats::fp16(), &f32 = formats::fp32(), &tf = formats::tf32();
  const bool simd = (hwy::SupportedTargets() & HWY_TARGETS & ~static_cast<std::int64_t>(HWY_SCALAR)) != 0;
  CHECK(BlockKernel(row(tf, f32, 24, 4, Rounding::TowardZero, -132), 4).planar32_supported() == simd);
  CHECK(BlockKernel(row(tf, f32, 25, 6, Rounding::TowardZero, -133), 8).planar32_supported() == simd);
  CHECK_FALSE(BlockKernel(row(f16, f32, 25, 6, Rounding::TowardZero, -133), 16).planar32_supported());  // 16 bits
  CHECK_FALSE(BlockKernel(row(formats::bf16(), f32, 24, 5, Rounding::TowardZero, -132), 8).planar32_supported());
  CHECK_FALSE(BlockKernel(row(tf, f32, 30, 3, Rounding::TowardZero, -132), 4).planar32_supported());  // int32 sum
  AdderConfig rd = row(tf, f32, 24, 4, Rounding::TowardZero, -132);
  rd.alignment_rounding = Rounding::Down;
  CHECK_FALSE(BlockKernel(rd, 4).planar32_supported());
}

// Patterns with bits between the format's width and 32 are not tf32 patterns: the lanes flag
// them and the exact path refuses them with run()'s message.
TEST_CASE("block kernel: run_planar32 hands patterns beyond the width to the exact path", "[adder][kernel]") {
  const AdderConfig cfg = row(formats::tf32(), formats::fp32(), 24, 4, Rounding::TowardZero, -132);
  const BlockKernel kernel(cfg, 4);
  const std::size_t n = 64;
  std::vector<std::uint64_t> a(n * 4), b(n * 4), c(n, 0), d(n), d32(n);
  std::vector<std::uint32_t> at(n * 4), bt(n * 4);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t t = 0; t < 4; ++t) {
      a[i * 4 + t] = 0x1f800u + t + (i % 7 == 0 && t == 2 ? 0x80000u << (i % 13) : 0);  // 0.5 + ulps; bits 19..31 set on some
      b[i * 4 + t] = 0x1fc00u;  // 1.0
      at[t * n + i] = static_cast<std::uint32_t>(a[i * 4 + t]);
      bt[t * n + i] = static_cast<std::uint32_t>(b[i * 4 + t]);
    }
  CHECK_THROWS_WITH(kernel.run(n, 4, a.data(), 4, b.data(), 4, c.data(), d.data()),
                    "a[2] = 0x9f802 has bits above the 19-bit width of tf32");
  CHECK_THROWS_WITH(kernel.run_planar32(n, 4, at.data(), n, bt.data(), n, c.data(), d32.data()),
                    "a[2] = 0x9f802 has bits above the 19-bit width of tf32");
  // Without them both give the same bits.
  for (std::size_t i = 0; i < n; ++i) a[i * 4 + 2] = at[2 * n + i] = 0x1f802u;
  kernel.run(n, 4, a.data(), 4, b.data(), 4, c.data(), d.data());
  kernel.run_planar32(n, 4, at.data(), n, bt.data(), n, c.data(), d32.data());
  CHECK(d32 == d);
}

// Issue 25: the 16-bit planar path moves fp8/fp6/fp4 patterns to binary16's places once, when
// it copies their rows, and checks the bits above the format's width there: such patterns go
// to the exact path, which refuses them with run()'s message, on every element and position.
TEST_CASE("block kernel: run_planar hands e4m3 patterns beyond the width to the exact path", "[adder][kernel]") {
  const AdderConfig cfg = row(formats::e4m3(), formats::fp32(), 13, 4, Rounding::TowardZero, -133);
  const BlockKernel kernel(cfg, 4);
  REQUIRE(kernel.planar_supported());
  const std::size_t n = 256;
  for (std::size_t bad = 0; bad < n; bad += 37) {
    std::vector<std::uint64_t> a(n * 4), b(n * 4), c(n, 0), d(n), dp(n);
    std::vector<std::uint16_t> at(n * 4), bt(n * 4);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t t = 0; t < 4; ++t) {
        a[i * 4 + t] = 0x30u + t + (i % 5) * 8;                  // 0.5 .. 4 and their neighbours
        b[i * 4 + t] = (i == bad && t == 1 ? 0x100u << (bad % 8) : 0) | (0xb8u - t);  // -1 and neighbours
        at[t * n + i] = static_cast<std::uint16_t>(a[i * 4 + t]);
        bt[t * n + i] = static_cast<std::uint16_t>(b[i * 4 + t]);
      }
    std::string message;
    try {
      kernel.run(n, 4, a.data(), 4, b.data(), 4, c.data(), d.data());
    } catch (const std::invalid_argument& e) {
      message = e.what();
    }
    INFO("bad element " << bad);
    CHECK(message.find("has bits above the 8-bit width of e4m3") != std::string::npos);
    CHECK_THROWS_WITH(kernel.run_planar(n, 4, at.data(), n, bt.data(), n, c.data(), dp.data()), message);
    // Without them both give the same bits.
    b[bad * 4 + 1] &= 0xff;
    bt[n + bad] &= 0xff;
    kernel.run(n, 4, a.data(), 4, b.data(), 4, c.data(), d.data());
    kernel.run_planar(n, 4, at.data(), n, bt.data(), n, c.data(), dp.data());
    CHECK(dp == d);
  }
}

namespace {

// A NaN (any sign and payload) or an infinity of `f`; a huge finite value where f has neither.
std::uint64_t special_operand(const Format& f, Rng& r) {
  const bool negative = r.below(2) != 0;
  const std::uint64_t sign = negative ? f.sign_mask() : 0;
  if (f.infinities && r.below(2)) return f.infinity(negative);
  if (!f.has_nan()) return random_huge(f, r);
  std::uint64_t nan = f.canonical_nan() | sign;
  if (f.infinities) nan |= random_bits(r, f.fraction_bits) & frac_mask(f);  // another payload; canonical's top bit kept
  return nan;
}

}  // namespace

// BlockKernel::Impl::special() decides a block with a NaN or Inf term without the reference
// adder (the GEMM's NaN/Inf cliff). Every block here holds one: NaN in a, b or c, infinities of
// one or both signs, Inf x 0 (zeros and flushed subnormals), an infinite c beside finite
// products (a chain's accumulator after an overflow), under every overflow mode, final
// rounding and NaN pattern: the kernel's bits must be the reference's.
TEST_CASE("block kernel: blocks with NaN or Inf terms give the reference's bits", "[adder][kernel]") {
  Rng r(tcsim::test::seed("block kernel specials", 41));
  const std::vector<const Format*> ins = {&formats::fp16(), &formats::bf16(), &formats::tf32(),
                                          &formats::e4m3(), &formats::e5m2(), &formats::e2m1()};
  // e4m3 outputs have no infinity: an infinite sum rounds to its NaN or largest value. (e2m1
  // outputs have no NaN: the reference adder refuses a NaN result there, so they are not drawn.)
  const std::vector<const Format*> outs = {&formats::fp32(), &formats::fp16(), &formats::bf16(), &formats::e5m2(),
                                           &formats::e4m3()};
  const Rounding finals[] = {Rounding::TowardZero, Rounding::NearestEven, Rounding::Up, Rounding::Down};
  const OverflowMode overflows[] = {OverflowMode::FormatDefault, OverflowMode::Ieee, OverflowMode::Saturate,
                                    OverflowMode::ToNaN, OverflowMode::Infinity};
  const std::size_t configs = 120, cases = tcsim::test::count(2000);
  std::size_t run = 0, nan_results = 0, inf_results[2] = {0, 0}, inf_times_zero = 0, finite_results = 0, mismatches = 0;
  for (std::size_t i = 0; i < configs; ++i) {
    // Named draws (argument order is unspecified), last argument first as GCC did.
    const Rounding final_mode = finals[r.below(4)];
    const Format& out_format = *outs[r.below(outs.size())];
    const int carry = r.range(0, 6), fraction = r.range(4, 30);
    const Format& in_format = *ins[r.below(ins.size())];
    AdderConfig cfg = row(in_format, out_format, fraction, carry, final_mode, std::nullopt);
    cfg.b_format = *ins[r.below(ins.size())];
    cfg.subnormal_inputs = r.below(2) != 0;
    cfg.overflow = overflows[r.below(5)];
    if (out_format.has_nan() && r.below(2)) cfg.nan_pattern = out_format.canonical_nan() | out_format.sign_mask();
    const std::size_t k = 1 + r.below(16);
    if (block_kernel_unsupported(cfg, k)) continue;
    ++run;
    const BlockKernel kernel(cfg, k);
    const FixedPointAdder adder(cfg);
    const Format &fa = cfg.a_format, &fb = cfg.b_format, &fc = cfg.c_format;
    std::vector<std::uint64_t> a(cases * k), b(cases * k), c(cases), d(cases);
    for (std::size_t e = 0; e < cases; ++e) {
      std::uint64_t* x = &a[e * k];
      std::uint64_t* y = &b[e * k];
      for (std::size_t t = 0; t < k; ++t) {
        const int kind_a = static_cast<int>(r.below(4)), kind_b = static_cast<int>(r.below(4));
        x[t] = kind_a == 0 ? zero_pattern(fa, r) : kind_a == 1 ? random_subnormal_or_tiny(fa, r) : random_finite(fa, r);
        y[t] = kind_b == 0 ? zero_pattern(fb, r) : kind_b == 1 ? random_huge(fb, r) : random_finite(fb, r);
      }
      // One to three special operands (a, b or c), so that infinities meet zeros and each other.
      const std::size_t specials = 1 + r.below(3);
      for (std::size_t s = 0; s < specials; ++s) {
        const std::size_t where = r.below(2 * k + 1);
        if (where == 2 * k) c[e] = special_operand(fc, r);
        else if (where < k) x[where] = special_operand(fa, r);
        else y[where - k] = special_operand(fb, r);
      }
      if (r.below(2) && c[e] == 0) c[e] = random_finite(fc, r);
    }
    const std::size_t len = k;
    kernel.run(cases, len, a.data(), k, b.data(), k, c.data(), d.data());
    for (std::size_t e = 0; e < cases; ++e) {
      const std::vector<std::uint64_t> pa(a.begin() + static_cast<std::ptrdiff_t>(e * k), a.begin() + static_cast<std::ptrdiff_t>((e + 1) * k));
      const std::vector<std::uint64_t> pb(b.begin() + static_cast<std::ptrdiff_t>(e * k), b.begin() + static_cast<std::ptrdiff_t>((e + 1) * k));
      const std::uint64_t want = adder.dot(pa, pb, c[e]);
      const FpClass cls = classify(cfg.out_format, want);
      if (cls == FpClass::NaN) ++nan_results;
      else if (cls == FpClass::Infinity) ++inf_results[(want & cfg.out_format.sign_mask()) != 0];
      else ++finite_results;
      for (std::size_t t = 0; t < k; ++t) {
        const FpClass ca = classify(fa, pa[t]), cb = classify(fb, pb[t]);
        const bool zero_a = ca == FpClass::Zero || (ca == FpClass::Subnormal && !cfg.subnormal_inputs);
        const bool zero_b = cb == FpClass::Zero || (cb == FpClass::Subnormal && !cfg.subnormal_inputs);
        if ((ca == FpClass::Infinity && zero_b) || (cb == FpClass::Infinity && zero_a)) {
          ++inf_times_zero;
          break;
        }
      }
      if (d[e] != want && ++mismatches <= 3)
        std::printf("[block-kernel] MISMATCH specials (%s), k %zu: a = %s, b = %s, c = %s: kernel %s, reference %s\n",
                    cfg.describe().c_str(), k, hex_list(fa, pa.data(), k).c_str(), hex_list(fb, pb.data(), k).c_str(),
                    bits_to_hex(fc, c[e]).c_str(), bits_to_hex(cfg.out_format, d[e]).c_str(),
                    bits_to_hex(cfg.out_format, want).c_str());
    }
  }
  std::printf("[block-kernel] specials: %zu configurations, results NaN %zu, +Inf %zu, -Inf %zu, finite %zu; "
              "Inf x 0 in %zu blocks; %zu mismatches\n",
              run, nan_results, inf_results[0], inf_results[1], finite_results, inf_times_zero, mismatches);
  CHECK(mismatches == 0);
  // Every rule is exercised: each kind of result and Inf x 0 in a share of the blocks.
  const std::size_t blocks = nan_results + inf_results[0] + inf_results[1] + finite_results;
  CHECK(run > configs / 2);
  CHECK(nan_results * 10 > blocks);
  CHECK(inf_results[0] * 40 > blocks);
  CHECK(inf_results[1] * 40 > blocks);
  CHECK(inf_times_zero * 50 > blocks);
}
