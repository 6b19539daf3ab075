// The tiles' decode into int16 e_refs (BlockKernel::decode_tile with int16 e_refs and
// decode_tile_rows, session 39: narrowed in the lanes, no longer element by element after an
// int32 decode) against the int32 decode: the same binary32 values bit for bit, and the int16
// e_ref of each pattern as the int32 one, with the sentinels of zeros and of NaN/Inf (and
// patterns outside the format) mapped as the chains read them. Every pattern of the 8- and
// 16-bit formats, random and edge patterns of the 19- and 32-bit ones; rows at strides with
// gaps that must stay untouched; every SIMD target.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <hwy/targets.h>

#include "operand_gen.hpp"
#include "tcsim/sim/block_kernel.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::reftest;
using tcsim::test::Rng;

namespace {

// sim/src/block_lanes.hpp: kTileZero, kTileSpecial (int32) and their int16 forms.
constexpr std::int32_t kZero32 = -(1 << 26), kSpecial32 = 1 << 28;
constexpr std::int16_t kZero16 = -6000, kSpecial16 = 12000;

std::int16_t narrowed(std::int32_t e) {
  if (e == kZero32) return kZero16;
  if (e == kSpecial32) return kSpecial16;
  return static_cast<std::int16_t>(e);
}

std::uint32_t bits_of(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

AdderConfig tile_row(const Format& in, const Format& out) {
  AdderConfig c;
  c.a_format = c.b_format = in;
  c.c_format = c.out_format = out;
  c.fraction_bits = 25;
  c.carry_bits = 6;
  c.final_rounding = Rounding::TowardZero;
  c.min_exponent = -133;
  c.overflow = OverflowMode::Infinity;
  c.zero_sign = ZeroSign::Positive;
  return c;
}

// Patterns of f: all of them up to 16 bits, else random finite, subnormal or tiny, zeros,
// specials and bits outside the format's width.
std::vector<std::uint64_t> patterns_of(const Format& f, Rng& r) {
  std::vector<std::uint64_t> p;
  if (f.width <= 16) {
    for (std::uint64_t x = 0; x < (std::uint64_t{1} << f.width); ++x) p.push_back(x);
    return p;
  }
  const std::size_t count = static_cast<std::size_t>(tcsim::test::count(200'000));
  for (std::size_t i = 0; i < count; ++i) {
    switch (r.below(6)) {
      case 0: p.push_back(zero_pattern(f, r)); break;
      case 1: p.push_back(random_special(f, r)); break;
      case 2: p.push_back(random_subnormal_or_tiny(f, r)); break;
      case 3: p.push_back(r.next() & f.width_mask()); break;
      default: p.push_back(random_finite(f, r)); break;
    }
  }
  return p;
}

}  // namespace

TEST_CASE("tile decode: int16 e_refs and strided rows equal the int32 decode, every SIMD target", "[kernel]") {
  Rng r(tcsim::test::seed("tile decode int16", 0x5eed16d0));
  struct Case {
    const Format& in;
    const Format& out;
  };
  const Case cases[] = {{formats::fp16(), formats::fp32()}, {formats::bf16(), formats::fp32()},
                        {formats::tf32(), formats::fp32()}, {formats::e4m3(), formats::fp32()},
                        {formats::e5m2(), formats::fp16()}};
  const auto targets = hwy::SupportedAndGeneratedTargets();
  std::uint64_t compared = 0, differing = 0;
  for (const std::int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string name = hwy::TargetName(target);
    for (const Case& cs : cases) {
      const BlockKernel kernel(tile_row(cs.in, cs.out), 16);
      REQUIRE(kernel.tile_supported());
      for (const auto role : {BlockKernel::Role::A, BlockKernel::Role::C}) {
        const Format& f = role == BlockKernel::Role::A ? cs.in : cs.out;
        INFO(name << " " << f.name);
        const std::vector<std::uint64_t> p = patterns_of(f, r);
        const std::size_t n = p.size();
        std::vector<float> v32(n), v16(n);
        std::vector<std::int32_t> e32(n);
        std::vector<std::int16_t> e16(n);
        kernel.decode_tile(role, n, p.data(), v32.data(), e32.data());
        kernel.decode_tile(role, n, p.data(), v16.data(), e16.data());
        std::uint64_t bad = 0;
        for (std::size_t i = 0; i < n; ++i)
          if (bits_of(v16[i]) != bits_of(v32[i]) || e16[i] != narrowed(e32[i])) {
            if (bad++ < 3)
              std::printf("[tile-decode] %s %s pattern %llx: value %08x e_ref %d, int32 decode %08x %d\n", name.c_str(),
                          f.name.c_str(), static_cast<unsigned long long>(p[i]), bits_of(v16[i]), e16[i],
                          bits_of(v32[i]), e32[i]);
          }
        // The zero and special sentinels were reached.
        bool zero = false, special = false;
        for (const std::int16_t e : e16) zero |= e == kZero16, special |= e == kSpecial16;
        CHECK(zero);
        CHECK(special);
        // Rows: cols of every row of p at stride ld_bits, into stride ld_out; the gaps keep their fill.
        const std::size_t cols = 1 + r.below(70), ld_bits = cols + r.below(5), ld_out = cols + 1 + r.below(5);
        const std::size_t rows = std::min<std::size_t>(40, n / ld_bits);
        std::vector<float> rv(rows * ld_out, -7.0f);
        std::vector<std::int16_t> re(rows * ld_out, 4321);
        kernel.decode_tile_rows(role, rows, cols, p.data(), ld_bits, rv.data(), re.data(), ld_out);
        for (std::size_t i = 0; i < rows; ++i)
          for (std::size_t j = 0; j < ld_out; ++j) {
            const std::size_t at = i * ld_out + j;
            const bool ok = j < cols ? bits_of(rv[at]) == bits_of(v32[i * ld_bits + j]) && re[at] == narrowed(e32[i * ld_bits + j])
                                     : rv[at] == -7.0f && re[at] == 4321;
            bad += !ok;
          }
        std::printf("[tile-decode] %-8s %-5s %s: %zu patterns, %zu x %zu rows, %llu differing\n", name.c_str(),
                    f.name.c_str(), role == BlockKernel::Role::A ? "A" : "C", n, rows, cols,
                    static_cast<unsigned long long>(bad));
        compared += n;
        differing += bad;
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  CHECK(compared > 0);
  CHECK(differing == 0);
}
