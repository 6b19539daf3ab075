// Blackwell block-scaled MX ops (units.md section 2): kind::mxf8f6f4 (ue8m0 per 32, k = 32,
// F = 25, RZ; scales multiply into the product exponents) and kind::mxf4nvf4 (fp4 with
// ue8m0 / ue4m3 scales per 16 or 32; k = 64, F = 35; groups of 16 summed exactly, scaled,
// fused). Hand-computed cases.
#include <catch2/catch.hpp>
#include <cmath>

#include "models_test_helpers.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::models::test;
using Catch::Matchers::Contains;

namespace {

const Format& f32 = formats::fp32();
const Format& e4 = formats::e4m3();
const Format& fp4 = formats::e2m1();
const Format& ue8 = formats::ue8m0();
const Format& ue4 = formats::ue4m3();

std::uint64_t e8(int exponent) { return static_cast<std::uint64_t>(exponent + 127); }  // ue8m0 2^exponent

std::vector<std::uint64_t> filled(const Format& f, std::size_t n, double x) { return std::vector<std::uint64_t>(n, bits(f, x)); }

}  // namespace

TEST_CASE("mxf8f6f4: ue8m0 scales multiply into the product exponents") {
  const Unit& b = builtin_unit("b200");
  const auto ones = filled(e4, 32, 1.0);
  // 32 products of 1 scaled by 2^1 * 2^-3: 8.
  std::vector<std::uint64_t> sa = {e8(1)}, sb = {e8(-3)};
  CHECK(value(f32, b.dot_scaled(e4, f32, ones, ones, ue8, sa, sb, 0)) == 8.0);
  // One product 1.5 * 2 scaled by 2^10, plus c = 1: 3073.
  auto a = filled(e4, 32, 0.0), bb = filled(e4, 32, 0.0);
  a[5] = bits(e4, 1.5);
  bb[5] = bits(e4, 2.0);
  sa = {e8(10)};
  sb = {e8(0)};
  CHECK(value(f32, b.dot_scaled(e4, f32, a, bb, ue8, sa, sb, bits(f32, 1.0))) == 3073.0);
  // Explicit instruction and block size.
  CHECK(value(f32, b.dot_scaled(e4, f32, a, bb, ue8, sa, sb, bits(f32, 1.0), 32, "tcgen05.mxf8f6f4")) == 3073.0);
}

TEST_CASE("mxf8f6f4: F = 25 truncation sees the scaled exponents") {
  const Unit& b = builtin_unit("b200");
  auto a = filled(e4, 32, 0.0);
  for (int i = 0; i < 4; ++i) a[static_cast<std::size_t>(i)] = bits(e4, 1.0);
  // Four products of 2^-25 against c = 1 (E = 0, last kept bit 2^-25): 1 + 2^-23.
  std::vector<std::uint64_t> sa = {e8(-25)}, sb = {e8(0)};
  CHECK(value(f32, b.dot_scaled(e4, f32, a, a, ue8, sa, sb, bits(f32, 1.0))) == 1 + std::ldexp(1, -23));
  // Four products of 2^-26 are all truncated: 1.
  sa = {e8(-26)};
  CHECK(value(f32, b.dot_scaled(e4, f32, a, a, ue8, sa, sb, bits(f32, 1.0))) == 1.0);
  // The unscaled kind::f8f6f4 datapath (F = 25 too) agrees with scale 1.
  sa = {e8(0)};
  const auto two = filled(e4, 32, 2.0);
  CHECK(b.dot_scaled(e4, f32, two, a, ue8, sa, sa, bits(f32, 0.25)) == b.dot(e4, f32, two, a, bits(f32, 0.25), "tcgen05"));
}

TEST_CASE("mxf8f6f4: K = 64 chains two blocks, each with its own scales, fp6/fp4 inputs") {
  const Unit& b = builtin_unit("b200");
  const auto ones = filled(e4, 64, 1.0);
  const std::vector<std::uint64_t> sa = {e8(0), e8(4)}, sb = {e8(0), e8(0)};
  CHECK(value(f32, b.dot_scaled(e4, f32, ones, ones, ue8, sa, sb, 0)) == 32.0 + 32.0 * 16.0);
  // fp4 E2M1: 6 * 6 * 16 products * 2^-4 = 36.
  auto six = filled(fp4, 32, 0.0);
  for (int i = 0; i < 16; ++i) six[static_cast<std::size_t>(i)] = bits(fp4, 6.0);
  const std::vector<std::uint64_t> s1 = {e8(-4)}, s0 = {e8(0)};
  CHECK(value(f32, b.dot_scaled(fp4, f32, six, six, ue8, s1, s0, 0)) == 36.0);
  // fp6 E3M2 with a negative scale exponent and negative products.
  auto x = filled(formats::e3m2(), 32, 0.0), y = filled(formats::e3m2(), 32, 0.0);
  x[0] = bits(formats::e3m2(), 28.0);
  y[0] = bits(formats::e3m2(), -0.25);
  CHECK(value(f32, b.dot_scaled(formats::e3m2(), f32, x, y, ue8, s1, s0, bits(f32, 1.0))) == 1.0 - 7.0 / 16.0);
}

TEST_CASE("mxf8f6f4: NaN scales and operands give 0x7fffffff, errors") {
  const Unit& b = builtin_unit("b200");
  const auto ones = filled(e4, 32, 1.0);
  std::vector<std::uint64_t> sa = {0xff}, sb = {e8(0)};
  CHECK(b.dot_scaled(e4, f32, ones, ones, ue8, sa, sb, 0) == 0x7fffffffu);
  CHECK_THROWS_WITH(b.dot_scaled(e4, f32, ones, ones, ue4, sb, sb, 0),
                    Contains("scale_format: 'ue4m3' is not allowed") && Contains("ue8m0"));
  CHECK_THROWS_WITH(b.dot_scaled(e4, f32, ones, ones, ue8, std::vector<std::uint64_t>{}, sb, 0),
                    Contains("ceil(K / 32) = 1"));
  CHECK_THROWS_WITH(b.dot_scaled(e4, f32, ones, ones, ue8, sb, sb, 0, 16), Contains("block_size: 16 is not allowed"));
  CHECK_THROWS_WITH(b.dot_scaled(e4, f32, ones, ones, ue8, sb, sb, 0, 0, "mma.sync"), Contains("takes no scale factors"));
  CHECK_THROWS_WITH(builtin_unit("h100").dot_scaled(e4, f32, ones, ones, ue8, sb, sb, 0),
                    Contains("block-scaled instructions for the pair: (none)"));
}

TEST_CASE("mxf4nvf4: ue4m3 scales per 16 multiply group sums") {
  const Unit& b = builtin_unit("b200");
  auto a = filled(fp4, 64, 0.0);
  for (int i = 0; i < 16; ++i) a[static_cast<std::size_t>(i)] = bits(fp4, 6.0);
  // Group 0: 16 * 36 = 576, times 1.5 (ue4m3) = 864.
  const std::vector<std::uint64_t> sa = {bits(ue4, 1.5), bits(ue4, 1.0), bits(ue4, 1.0), bits(ue4, 1.0)};
  const std::vector<std::uint64_t> sb(4, bits(ue4, 1.0));
  CHECK(value(f32, b.dot_scaled(fp4, f32, a, a, ue4, sa, sb, 0, 16, "tcgen05.mxf4nvf4")) == 864.0);
  // Every group with scale 0.125 * 3 = 0.375: 4 groups * 16 * 1 = 64 * 0.375 = 24.
  const auto ones = filled(fp4, 64, 1.0);
  const std::vector<std::uint64_t> s8(4, bits(ue4, 0.125)), s3(4, bits(ue4, 3.0));
  CHECK(value(f32, b.dot_scaled(fp4, f32, ones, ones, ue4, s8, s3, bits(f32, -24.0), 16, "tcgen05.mxf4nvf4")) == 0.0);
  CHECK(b.dot_scaled(fp4, f32, ones, ones, ue4, s8, s3, bits(f32, -24.0), 16, "tcgen05.mxf4nvf4") == 0u);
}

TEST_CASE("mxf4nvf4: ue8m0 per 32, and F = 35 truncates whole group sums") {
  const Unit& b = builtin_unit("b200");
  const auto ones = filled(fp4, 64, 1.0);
  const std::vector<std::uint64_t> sa = {e8(-1), e8(2)}, sb = {e8(0), e8(0)};
  CHECK(value(f32, b.dot_scaled(fp4, f32, ones, ones, ue8, sa, sb, 0, 32, "tcgen05.mxf4nvf4")) == 144.0);
  // Group 0: one product 1 scaled by 2^40; group 1: sixteen 1.5 * 1.5 = 36 unscaled.
  // With c = -2^40: E = 40, last kept bit 2^5 = 32: the group sum 36 is truncated as a
  // whole to 32 (products truncated one by one would give 0; exact would be 36).
  auto a = filled(fp4, 64, 0.0);
  a[0] = bits(fp4, 1.0);
  for (int i = 16; i < 32; ++i) a[static_cast<std::size_t>(i)] = bits(fp4, 1.5);
  const std::vector<std::uint64_t> s16a = {e8(40), e8(0), e8(0), e8(0)}, s16b(4, e8(0));
  CHECK(value(f32, b.dot_scaled(fp4, f32, a, a, ue8, s16a, s16b, bits(f32, -std::ldexp(1, 40)), 16,
                                "tcgen05.mxf4nvf4")) == 32.0);
  // Without c the 2^40 term dominates: RZ to fp32 gives 2^40.
  CHECK(value(f32, b.dot_scaled(fp4, f32, a, a, ue8, s16a, s16b, 0, 16, "tcgen05.mxf4nvf4")) == std::ldexp(1, 40));
}

TEST_CASE("block-scaled rows through plain dot use unit scales") {
  const Unit& b = builtin_unit("b200");
  const auto a = filled(fp4, 64, 1.5), c = filled(fp4, 64, -0.5);
  CHECK(value(f32, b.dot(fp4, f32, a, c, bits(f32, 100.0), "tcgen05.mxf4nvf4")) == 100.0 - 48.0);
  CHECK(value(f32, b.dot(fp4, f32, a, c, bits(f32, 100.0), "tcgen05.mxf8f6f4")) == 100.0 - 48.0);
  // The default datapath for e2m1 -> fp32 is the unscaled kind::f8f6f4 one.
  CHECK(b.datapath(fp4, f32).instruction == "tcgen05");
}
