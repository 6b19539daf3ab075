// Unit::gemm_scaled on the group tiles (BlockKernel::run_group_tile; issue 25: b200 tcgen05
// kind::mxf4nvf4 and rtx5090 mma.sync mxf4nvf4) against Unit::dot_scaled (the block-scaled
// reference scaled_block_fma) output by output, under every compiled SIMD target this CPU runs:
// GEMMs of 1 to 20 blocks (and a partial one), scales from the edges (ue8m0 NaN 0xff, 2^-127,
// 2^127; ue4m3 subnormals, zero, 448, NaN 0x7f), zeros of both signs, groups that cancel
// exactly, c = +-0, +-1, NaN/Inf and sums that tie in the output's last place.
// TCSIM_GROUP_TILES_LARGE=N: also N block FMAs per row and scale format on the CPU's own target
// (the long run of docs/performance.md "i25mxf4").
#include <catch2/catch.hpp>
#include <hwy/targets.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "block_scale_edges.hpp"
#include "models_test_helpers.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using tcsim::test::Rng;

namespace {

// One GEMM of m x n outputs over K on `row`, compared with dot_scaled; returns the mismatches.
std::uint64_t run_case(const Unit& unit, const DatapathSpec& row, const Format& sf, int bs, std::size_t m,
                       std::size_t n, std::size_t K, Rng& r, bool nan_scales, const std::string& label) {
  const Format &in = formats::e2m1(), &out = formats::fp32();
  const std::size_t nb = (K + bs - 1) / bs;
  std::vector<std::uint64_t> A(m * K), B(K * n), C(m * n), sa(m * nb), sb(nb * n);
  const unsigned zeros = static_cast<unsigned>(r.below(4));  // 0: none, else 1 in 2^zeros
  auto element = [&] { return zeros && r.below(1u << zeros) == 0 ? (r.below(2) ? 0x8 : 0x0) : r.below(16); };
  for (auto& x : A) x = element();
  for (auto& x : B) x = element();
  if (r.below(3) == 0)  // groups that cancel exactly against B's first columns
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t t = 0; t + 1 < K; t += 2) {
        A[i * K + t + 1] = A[i * K + t] ^ 0x8;
        for (std::size_t j = 0; j < std::min<std::size_t>(n, 3); ++j) B[(t + 1) * n + j] = B[t * n + j];
      }
  for (auto& x : C) {
    switch (r.below(6)) {
      case 0: x = r.below(2) ? 0x80000000u : 0; break;             // +-0
      case 1: x = r.below(2) ? 0xbf800000u : 0x3f800000u; break;   // +-1: ties against small sums
      case 2: x = r.below(3) ? 0x4b800000u : 0x7f800000u | r.below(2) << 22; break;  // 2^24 (ties), Inf, NaN
      default: x = r.next() & 0xc7ffffffu; break;                  // anything up to 2^16
    }
  }
  for (auto& x : sa) {
    x = edge_scale(sf, r);
    if (!nan_scales && x == (sf.name == "ue8m0" ? 0xffu : 0x7fu)) x = sf.name == "ue8m0" ? 0x7f : 0x38;
  }
  for (auto& x : sb) {
    x = edge_scale(sf, r);
    if (!nan_scales && x == (sf.name == "ue8m0" ? 0xffu : 0x7fu)) x = sf.name == "ue8m0" ? 0x7f : 0x38;
  }
  const auto D = unit.gemm_scaled(in, out, m, n, K, A, B, C, sf, sa, sb, bs, row.instruction, 1);
  std::vector<std::uint64_t> col(K), sc(nb);
  std::uint64_t bad = 0;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t t = 0; t < K; ++t) col[t] = B[t * n + j];
      for (std::size_t q = 0; q < nb; ++q) sc[q] = sb[q * n + j];
      const std::uint64_t want = unit.dot_scaled(in, out, {A.data() + i * K, K}, col, sf, {sa.data() + i * nb, nb}, sc,
                                                 C[i * n + j], bs, row.instruction);
      if (want != D[i * n + j] && bad++ < 3)
        std::printf("[group-tiles] MISMATCH %s K %zu i %zu j %zu: gemm_scaled %s, dot_scaled %s\n", label.c_str(), K, i,
                    j, bits_to_hex(out, D[i * n + j]).c_str(), bits_to_hex(out, want).c_str());
    }
  return bad;
}

template <class Fn>
void for_each_scaled_group_row(const Fn& fn) {
  for (const char* unit_name : {"b200", "rtx5090"}) {
    const Unit& unit = builtin_unit(unit_name);
    for (const auto& row : unit.spec().datapaths) {
      if (!row.block_scale || row.block_scale->group_size == 0) continue;
      for (const auto& sf_name : row.block_scale->scale_formats)
        for (const int bs : row.block_scale->block_sizes)
          fn(unit, row, parse_format(sf_name), bs,
             std::string(unit_name) + " " + row.instruction + " " + sf_name + "/" + std::to_string(bs));
    }
  }
}

}  // namespace

TEST_CASE("gemm_scaled group tiles: every SIMD target, 1 to 20 blocks, edge scales", "[kernel][differential]") {
  Rng r(tcsim::test::seed("gemm_scaled group tiles", 0x6f4a11e5));
  const std::uint64_t reps = tcsim::test::count(6);
  std::size_t rows = 0;
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string tname = hwy::TargetName(target);
    INFO("target " << tname);
    for_each_scaled_group_row([&](const Unit& unit, const DatapathSpec& row, const Format& sf, int bs, const std::string& name) {
      ++rows;
      const std::size_t k = static_cast<std::size_t>(row.fma_size);
      std::uint64_t outputs = 0, bad = 0;
      for (std::uint64_t rep = 0; rep < reps; ++rep) {
        const std::size_t blocks = 1 + r.below(20), m = 1 + r.below(9), n = 1 + r.below(70);
        const std::size_t K = k * blocks - (r.below(3) == 0 ? 8 * r.below(k / 8) : 0);
        bad += run_case(unit, row, sf, bs, m, n, K, r, r.below(3) == 0, tname + " " + name);
        outputs += m * n;
      }
      std::printf("[group-tiles] %-8s %-40s %llu outputs, %llu mismatches\n", tname.c_str(), name.c_str(),
                  static_cast<unsigned long long>(outputs), static_cast<unsigned long long>(bad));
      CHECK(bad == 0);
    });
  }
  hwy::SetSupportedTargetsForTest(0);
  CHECK(rows >= 6);  // b200 mxf4nvf4 x 4 (ue8m0/ue4m3 x 16/32) + rtx5090 x 2 or more, per target
}

TEST_CASE("gemm_scaled group tiles: long run (TCSIM_GROUP_TILES_LARGE block FMAs per row and scales)",
          "[kernel][differential][long]") {
  const char* env = std::getenv("TCSIM_GROUP_TILES_LARGE");
  if (!env) return;
  const std::uint64_t total = std::strtoull(env, nullptr, 0);
  Rng r(tcsim::test::seed("gemm_scaled group tiles long", 0x1a26e5));
  for_each_scaled_group_row([&](const Unit& unit, const DatapathSpec& row, const Format& sf, int bs, const std::string& name) {
    const std::size_t k = static_cast<std::size_t>(row.fma_size);
    std::uint64_t fmas = 0, bad = 0;
    while (fmas < total) {
      const std::size_t blocks = 1 + r.below(8), m = 16, n = 64;
      bad += run_case(unit, row, sf, bs, m, n, k * blocks, r, r.below(4) == 0, name);
      fmas += m * n * blocks;
    }
    std::printf("[group-tiles long] %-40s %llu block FMAs, %llu mismatches\n", name.c_str(),
                static_cast<unsigned long long>(fmas), static_cast<unsigned long long>(bad));
    CHECK(bad == 0);
  });
}
