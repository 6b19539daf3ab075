// The group sums of kind::mxf4nvf4 (b200 tcgen05, rtx5090 mma.sync) in binary32 lanes on
// product-major 16-bit patterns (BlockKernel::run_groups_planar; issue 25, branch mxdot), under
// every compiled SIMD target this CPU runs: Unit::dot_batch and dot_batch_planar against
// Unit::dot element by element (every scale 1: element counts across the lanes and the chunks
// of 512, K = 0 to 5 blocks, zeros of both signs, groups that cancel exactly, tiny products
// against c = +-2^e, ties in fp32's last place, c = NaN/Inf, subnormal, near overflow), and the lanes with group scales
// against Unit::dot_scaled (ue8m0 NaN 0xff, 2^-127, 2^127; ue4m3 subnormals, zero, 448, NaN).
// TCSIM_DOT_GROUPS_LARGE=N: also N block FMAs per row and scale format on the CPU's own target.
#include <catch2/catch.hpp>
#include <hwy/targets.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "block_scale_edges.hpp"
#include "kernel_fills.hpp"
#include "models_test_helpers.hpp"
#include "tcsim/models/convert.hpp"
#include "tcsim/sim/block_kernel.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using tcsim::test::Rng;

namespace {

template <class Fn>
void for_each_group_row(const Fn& fn) {
  for (const char* unit_name : {"b200", "rtx5090"}) {
    const Unit& unit = builtin_unit(unit_name);
    for (const auto& row : unit.spec().datapaths)
      if (row.block_scale && row.block_scale->group_size > 0)
        fn(unit, row, std::string(unit_name) + " " + row.instruction);
  }
}

// c from the edges: +-0, +-1, 2^24 (ties of sums with a half), Inf, NaN, subnormals, the
// largest finite values, anything up to 2^16.
std::uint64_t edge_c(Rng& r) {
  switch (r.below(7)) {
    case 3: {
      if (r.below(2)) return r.next() & 0x807fffffu;
      const std::uint32_t near_max = 0x7f7fffffu - static_cast<std::uint32_t>(r.below(4));  // named draws: operand order is unspecified
      return near_max | static_cast<std::uint32_t>(r.below(2) << 31);
    }
    case 0: return r.below(2) ? 0x80000000u : 0;
    case 1: return r.below(2) ? 0xbf800000u : 0x3f800000u;
    case 2: return r.below(3) ? 0x4b800000u | (r.below(2) << 31) : 0x7f800000u | r.below(2) << 22;
    default: return r.next() & 0xc7ffffffu;
  }
}

// n elements of K products through dot_batch and dot_batch_planar against Unit::dot; returns
// the mismatches.
std::uint64_t run_batch(const Unit& unit, const DatapathSpec& row, std::size_t n, std::size_t K, unsigned threads,
                        Rng& r, const std::string& label) {
  const Format &in = formats::e2m1(), &out = formats::fp32();
  std::vector<std::uint64_t> A(n * K), B(n * K), C(n), D(n), Dp(n);
  for (std::size_t e = 0; e < n; ++e) {
    reftest::fill_groups(in, out, r, A.data() + e * K, B.data() + e * K, K, C[e]);
    if (r.below(3) == 0) C[e] = edge_c(r);
  }
  std::vector<std::uint16_t> At(n * K), Bt(n * K);
  for (std::size_t e = 0; e < n; ++e)
    for (std::size_t t = 0; t < K; ++t) {
      At[t * n + e] = static_cast<std::uint16_t>(A[e * K + t]);
      Bt[t * n + e] = static_cast<std::uint16_t>(B[e * K + t]);
    }
  unit.dot_batch(in, out, n, K, A.data(), B.data(), C.data(), D.data(), row.instruction, threads);
  unit.dot_batch_planar(in, out, n, K, At.data(), Bt.data(), C.data(), Dp.data(), row.instruction, threads);
  std::uint64_t bad = 0;
  for (std::size_t e = 0; e < n; ++e) {
    const std::uint64_t want = unit.dot(in, out, {A.data() + e * K, K}, {B.data() + e * K, K}, C[e], row.instruction);
    if ((want != D[e] || want != Dp[e]) && bad++ < 3)
      std::printf("[dot-groups] MISMATCH %s n %zu K %zu element %zu: dot_batch %s, planar %s, dot %s\n", label.c_str(),
                  n, K, e, bits_to_hex(out, D[e]).c_str(), bits_to_hex(out, Dp[e]).c_str(),
                  bits_to_hex(out, want).c_str());
  }
  return bad;
}

// m elements of one block of len <= k products with group scales through the lanes
// (run_groups_planar) against dot_scaled; decided and flagged lanes counted.
struct ScaledCount {
  std::uint64_t decided = 0, flagged = 0, bad = 0;
};
void run_scaled(const Unit& unit, const DatapathSpec& row, const BlockKernel& gk, const Format& sf, int bs,
                std::size_t m, std::size_t len, Rng& r, ScaledCount& n, const std::string& label) {
  const Format &in = formats::e2m1(), &out = formats::fp32();
  const std::size_t group = static_cast<std::size_t>(row.block_scale->group_size);
  const std::size_t groups = (len + group - 1) / group, nb = (len + bs - 1) / bs;
  std::vector<std::uint64_t> A(m * len), B(m * len), C(m), sa(m * nb), sb(m * nb);
  for (std::size_t e = 0; e < m; ++e) {
    reftest::fill_groups(in, out, r, A.data() + e * len, B.data() + e * len, len, C[e]);
    if (r.below(3) == 0) C[e] = edge_c(r);
  }
  const bool nan_scales = r.below(3) == 0;
  for (auto* v : {&sa, &sb})
    for (auto& x : *v) {
      x = edge_scale(sf, r);
      if (!nan_scales && x == (sf.name == "ue8m0" ? 0xffu : 0x7fu)) x = sf.name == "ue8m0" ? 0x7f : 0x38;
    }
  std::vector<std::uint16_t> At(len * m), Bt(len * m);
  for (std::size_t e = 0; e < m; ++e)
    for (std::size_t t = 0; t < len; ++t) {
      At[t * m + e] = static_cast<std::uint16_t>(A[e * len + t]);
      Bt[t * m + e] = static_cast<std::uint16_t>(B[e * len + t]);
    }
  // Each group's scales are those of its block (the group size divides the block size).
  std::vector<double> va(groups * m), vb(groups * m), cv(m), ce(m), dv(m), de(m);
  for (std::size_t g = 0; g < groups; ++g)
    for (std::size_t e = 0; e < m; ++e) {
      va[g * m + e] = value_of(sf, sa[e * nb + g * group / bs]);
      vb[g * m + e] = value_of(sf, sb[e * nb + g * group / bs]);
    }
  gk.decode(BlockKernel::Role::C, m, C.data(), cv.data(), ce.data());
  std::vector<std::uint64_t> pattern(16);
  std::vector<double> ta(16), tb(16), scratch(16);
  for (std::uint64_t x = 0; x < 16; ++x) pattern[x] = x;
  gk.decode(BlockKernel::Role::A, 16, pattern.data(), ta.data(), scratch.data());
  gk.decode(BlockKernel::Role::B, 16, pattern.data(), tb.data(), scratch.data());
  std::vector<std::uint64_t> D(m);
  std::vector<std::uint8_t> fixup(m);
  REQUIRE(gk.run_groups_planar(m, len, group, ta.data(), tb.data(), At.data(), m, Bt.data(), m, va.data(), vb.data(), m,
                               cv.data(), ce.data(), D.data(), dv.data(), de.data(), fixup.data()));
  for (std::size_t e = 0; e < m; ++e) {
    bool nan = false;
    for (std::size_t q = 0; q < nb; ++q)
      nan = nan || std::isnan(value_of(sf, sa[e * nb + q])) || std::isnan(value_of(sf, sb[e * nb + q]));
    if (fixup[e]) {
      ++n.flagged;
      continue;
    }
    ++n.decided;
    const std::uint64_t want = unit.dot_scaled(in, out, {A.data() + e * len, len}, {B.data() + e * len, len}, sf,
                                               {sa.data() + e * nb, nb}, {sb.data() + e * nb, nb}, C[e], bs,
                                               row.instruction);
    // A NaN scale must be flagged (the lanes cannot give the reference's NaN pattern).
    if ((nan || want != D[e]) && n.bad++ < 3)
      std::printf("[dot-groups scaled] MISMATCH %s len %zu element %zu: lanes %s, dot_scaled %s%s\n", label.c_str(), len,
                  e, bits_to_hex(out, D[e]).c_str(), bits_to_hex(out, want).c_str(), nan ? " (NaN scale not flagged)" : "");
  }
}

}  // namespace

TEST_CASE("dot_batch group sums on binary32 lanes: every SIMD target, both layouts", "[kernel][differential]") {
  Rng r(tcsim::test::seed("dot_batch group lanes", 0x6d78646f));
  const std::uint64_t reps = tcsim::test::count(40);
  std::size_t rows = 0;
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string tname = hwy::TargetName(target);
    INFO("target " << tname);
    for_each_group_row([&](const Unit& unit, const DatapathSpec& row, const std::string& name) {
      ++rows;
      const std::size_t k = static_cast<std::size_t>(row.fma_size);
      std::uint64_t elements = 0, bad = 0;
      for (std::uint64_t rep = 0; rep < reps; ++rep) {
        // Element counts across the lanes' vectors and the chunks of 512; K of 0 to 5 blocks.
        const std::size_t n = r.below(4) == 0 ? 500 + r.below(40) : 1 + r.below(70);
        std::size_t K = 0;
        if (r.below(8) == 0) {
          K = r.below(3);
        } else {  // named draws: operand order is unspecified
          K = k * r.below(5);
          K += r.below(k);
        }
        bad += run_batch(unit, row, n, K, 1 + static_cast<unsigned>(r.below(2)), r, tname + " " + name);
        elements += n;
      }
      std::printf("[dot-groups] %-8s %-28s %s: %llu elements, %llu mismatches\n", tname.c_str(), name.c_str(),
                  unit.batch_path(formats::e2m1(), formats::fp32(), row.instruction).c_str(),
                  static_cast<unsigned long long>(elements), static_cast<unsigned long long>(bad));
      CHECK(bad == 0);
    });
  }
  hwy::SetSupportedTargetsForTest(0);
  CHECK(rows >= 4);  // b200 and rtx5090, per target
}

TEST_CASE("group lanes with group scales against dot_scaled: every SIMD target, edge scales",
          "[kernel][differential]") {
  Rng r(tcsim::test::seed("group lanes scaled", 0x5ca1ed));
  // At least 10 GEMMs per scale format: with fewer (the ASan pass scales counts by 0.02) a
  // format's 9-11 elements can all be flagged, and the share check below means nothing.
  const std::uint64_t reps = std::max<std::uint64_t>(tcsim::test::count(10), 10);
  std::uint64_t ran = 0;
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string tname = hwy::TargetName(target);
    INFO("target " << tname);
    for_each_group_row([&](const Unit& unit, const DatapathSpec& row, const std::string& name) {
      const Format &in = formats::e2m1(), &out = formats::fp32();
      const std::size_t k = static_cast<std::size_t>(row.fma_size);
      const BlockKernel gk(unit.adder(in, out, row.instruction).config(), k);
      const std::size_t group = static_cast<std::size_t>(row.block_scale->group_size);
      std::vector<double> t(16, 0.0);
      if (!gk.run_groups_planar(0, 0, group, t.data(), t.data(), nullptr, 0, nullptr, 0, nullptr, nullptr, 0, nullptr,
                                nullptr, nullptr, nullptr, nullptr, nullptr)) {
        std::printf("[dot-groups scaled] %-8s %s: no binary32 group lanes on this target\n", tname.c_str(), name.c_str());
        return;
      }
      for (const auto& sf_name : row.block_scale->scale_formats)
        for (const int bs : row.block_scale->block_sizes) {
          const Format& sf = parse_format(sf_name);
          ScaledCount c;
          for (std::uint64_t rep = 0; rep < reps; ++rep) {
            // Now and then whole blocks of 512 elements (the int16 sums' product-row-outer blocks).
            const std::size_t m = r.below(8) == 0 ? 512 + r.below(100) : 1 + r.below(80);
            const std::size_t len = r.below(4) == 0 ? r.below(k + 1) : k;
            run_scaled(unit, row, gk, sf, bs, m, len, r, c, tname + " " + name);
          }
          std::printf("[dot-groups scaled] %-8s %-28s %s/%d: %llu decided, %llu flagged, %llu mismatches\n",
                      tname.c_str(), name.c_str(), sf_name.c_str(), bs, static_cast<unsigned long long>(c.decided),
                      static_cast<unsigned long long>(c.flagged), static_cast<unsigned long long>(c.bad));
          CHECK(c.bad == 0);
          CHECK(4 * c.decided > c.decided + c.flagged);  // the lanes decide many (NaN scales, tails and zero sums are flagged)
          ++ran;
        }
    });
  }
  hwy::SetSupportedTargetsForTest(0);
  CHECK(ran >= 1);
}

// The int16 group sums (AVX-512, block_group_planar.cpp; issue 25, dotf4) in the cases the random
// fills above reach rarely: whole blocks of 512 elements (product row outermost) beside the
// 32-element steps and the binary32 remainder, every operand +-6 (the largest products, 144 in
// the integers, group sums up to 2304), and patterns with bits beyond e2m1's 4 (0x10 .. 0xfff0,
// 0x8000: they must be flagged to the reference, which refuses them as Unit::dot does, in
// whichever block or step they fall).
TEST_CASE("group lanes' int16 sums: blocks of 512, the largest sums, patterns beyond the width, every SIMD target",
          "[kernel][differential]") {
  Rng r(tcsim::test::seed("group lanes int16", 0x16b175));
  const std::uint64_t reps = std::max<std::uint64_t>(tcsim::test::count(8), 2);
  constexpr std::uint64_t kWide[] = {0x10, 0x20, 0x100, 0x8000, 0xfff0, 0xffff};
  const Format &in = formats::e2m1(), &out = formats::fp32();
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string tname = hwy::TargetName(target);
    INFO("target " << tname);
    for_each_group_row([&](const Unit& unit, const DatapathSpec& row, const std::string& name) {
      const std::size_t k = static_cast<std::size_t>(row.fma_size);
      std::uint64_t elements = 0, bad = 0, wide = 0;
      for (std::uint64_t rep = 0; rep < 3 * reps; ++rep) {
        const std::uint64_t mode = rep % 3;  // 0: +-6 only, 1: any pattern, 2: any with some beyond the width
        const std::size_t n = r.below(2) ? 512 * (1 + r.below(2)) + 16 * r.below(4) : 16 * (1 + r.below(40));
        std::size_t K = k * (1 + r.below(2));
        if (r.below(3) == 0) K += r.below(k);
        std::vector<std::uint64_t> A(n * K), B(n * K), C(n), D(n), Dp(n);
        for (std::size_t e = 0; e < n; ++e) {
          const std::uint64_t sign = r.below(2) ? 8 : 0;  // one sign per element: the sums grow
          for (std::size_t t = 0; t < K; ++t) {
            if (mode == 0) {
              A[e * K + t] = 0x7 | sign;
              B[e * K + t] = r.below(8) ? 0x7 : 0xf;
            } else {
              A[e * K + t] = r.below(16);
              B[e * K + t] = r.below(16);
            }
          }
          C[e] = r.below(2) ? edge_c(r) : 0x3f800000u | (r.below(2) << 31);
        }
        if (mode == 2) {  // one pattern beyond the width, anywhere
          const std::uint64_t extra = kWide[r.below(std::size(kWide))];
          const std::size_t at = r.below(n * K);
          (r.below(2) ? A : B)[at] |= extra;
        }
        std::vector<std::uint16_t> At(n * K), Bt(n * K);
        for (std::size_t e = 0; e < n; ++e)
          for (std::size_t t = 0; t < K; ++t) {
            At[t * n + e] = static_cast<std::uint16_t>(A[e * K + t]);
            Bt[t * n + e] = static_cast<std::uint16_t>(B[e * K + t]);
          }
        const unsigned threads = 1 + static_cast<unsigned>(r.below(2));
        if (mode == 2) {
          // Unit::dot refuses such a pattern; so must both batch calls (the lanes flag the element to
          // the reference, which refuses it). Unflagged, the lanes would give a number.
          CHECK_THROWS_AS(unit.dot_batch(in, out, n, K, A.data(), B.data(), C.data(), D.data(), row.instruction, threads),
                          std::invalid_argument);
          CHECK_THROWS_AS(unit.dot_batch_planar(in, out, n, K, At.data(), Bt.data(), C.data(), Dp.data(),
                                                row.instruction, threads),
                          std::invalid_argument);
          wide += K > 0;
          continue;
        }
        unit.dot_batch(in, out, n, K, A.data(), B.data(), C.data(), D.data(), row.instruction, threads);
        unit.dot_batch_planar(in, out, n, K, At.data(), Bt.data(), C.data(), Dp.data(), row.instruction, threads);
        for (std::size_t e = 0; e < n; ++e) {
          const std::uint64_t want =
              unit.dot(in, out, {A.data() + e * K, K}, {B.data() + e * K, K}, C[e], row.instruction);
          if ((want != D[e] || want != Dp[e]) && bad++ < 3)
            std::printf("[dot-groups int16] MISMATCH %s %s mode %llu n %zu K %zu element %zu: dot_batch %s, planar %s, "
                        "dot %s\n",
                        tname.c_str(), name.c_str(), static_cast<unsigned long long>(mode), n, K, e,
                        bits_to_hex(out, D[e]).c_str(), bits_to_hex(out, Dp[e]).c_str(), bits_to_hex(out, want).c_str());
        }
        elements += n;
      }
      std::printf("[dot-groups int16] %-8s %-28s: %llu elements (%llu calls with a pattern beyond the width), %llu mismatches\n",
                  tname.c_str(), name.c_str(), static_cast<unsigned long long>(elements),
                  static_cast<unsigned long long>(wide), static_cast<unsigned long long>(bad));
      CHECK(bad == 0);
      CHECK(wide > 0);
    });
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST_CASE("dot_batch group lanes: long run (TCSIM_DOT_GROUPS_LARGE block FMAs per row and scale format)",
          "[kernel][differential][long]") {
  const char* env = std::getenv("TCSIM_DOT_GROUPS_LARGE");
  if (!env) return;
  const std::uint64_t total = std::strtoull(env, nullptr, 0);
  Rng r(tcsim::test::seed("dot_batch group lanes long", 0x10a6d07));
  for_each_group_row([&](const Unit& unit, const DatapathSpec& row, const std::string& name) {
    const Format &in = formats::e2m1(), &out = formats::fp32();
    const std::size_t k = static_cast<std::size_t>(row.fma_size);
    std::uint64_t fmas = 0, bad = 0;
    while (fmas < total) {
      const std::size_t n = 4096, blocks = 1 + r.below(3);
      bad += run_batch(unit, row, n, k * blocks, 2, r, name);
      fmas += n * blocks;
    }
    std::printf("[dot-groups long] %-28s unit scales: %llu block FMAs, %llu mismatches\n", name.c_str(),
                static_cast<unsigned long long>(fmas), static_cast<unsigned long long>(bad));
    CHECK(bad == 0);
    const BlockKernel gk(unit.adder(in, out, row.instruction).config(), k);
    for (const auto& sf_name : row.block_scale->scale_formats)
      for (const int bs : row.block_scale->block_sizes) {
        ScaledCount c;
        while (c.decided + c.flagged < total) run_scaled(unit, row, gk, parse_format(sf_name), bs, 4096, k, r, c, name);
        std::printf("[dot-groups long] %-28s %s/%d: %llu decided, %llu flagged, %llu mismatches\n", name.c_str(),
                    sf_name.c_str(), bs, static_cast<unsigned long long>(c.decided),
                    static_cast<unsigned long long>(c.flagged), static_cast<unsigned long long>(c.bad));
        CHECK(c.bad == 0);
      }
  });
}
