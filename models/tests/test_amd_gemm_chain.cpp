// Unit::gemm of the after-add rows (AMD CDNA3, mi300x) on the chain tiles with c in registers
// and the int32 epilogue (sim/src/amd_chain.cpp, issue 25) against Unit::dot (the reference
// adder, chained): every mi300x after-add row and format pair, the fp16/bf16 K = 4 instruction
// forms too, on every compiled SIMD target. Likewise the exact-block rows (AMD CDNA1, mi100) on
// their binary64 chain tiles (sim/src/exact_chain.cpp, i25mi100), with c also placed up to 70
// binades below and 40 above the products (terms beyond the exact span: the scalar block). GEMMs of 1-40 x 1-300 outputs (tiles, padding,
// panel edges) with chains of 1 to 9 instructions or of 1 to 40 blocks, plus a remainder; the
// fp8 rows (two groups, even/odd products) and xf32 run on the chain too (mi300); each row of A, column of B
// and entry of C drawn from one kind: kernel_cases.hpp and flush_edges.hpp elements (zeros,
// subnormals, cancellation, ties, NaN/Inf), "GEMM-like" values (leads -6..0, c -8..6: the
// accumulator grows over the products), or c placed 30 binades below to 10 above the
// products (E = e_dot or e_c, D around 4, far and dropped c). Seed logged; TCSIM_TEST_SCALE
// scales the counts (docs/performance.md, section "i25amdgemm").
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <hwy/targets.h>
#include <iterator>
#include <string>
#include <vector>

#include "flush_edges.hpp"
#include "diff_checks.hpp"
#include "kernel_fills.hpp"
#include "models_test_helpers.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::reftest;
using tcsim::test::Rng;

namespace {

struct Pair {
  const char *a, *b, *instruction;
};

// One operand vector of K entries (stride st) of format f, and optionally c, of one kind.
// Kind 3: c from 70 binades below to 40 above the products.
void fill_kind(int kind, const Format& f, const Format& out, Rng& r, std::uint64_t* x, std::size_t st, std::size_t K,
               std::uint64_t* c) {
  std::vector<std::uint64_t> a(K), b(K);
  std::uint64_t cc = 0;
  if (kind == 0) {
    half_with_elements<fill_flush_edges>(f, out, r, a.data(), b.data(), K, cc);
  } else {
    for (std::size_t t = 0; t < K; ++t) a[t] = r.below(16) == 0 ? zero_pattern(f, r) : value_with_lead(f, r, r.range(-6, 0));
    const int lead = kind == 1 ? r.range(-8, 6) : kind == 2 ? r.range(-30, 10) : r.range(-70, 40);
    cc = r.below(32) == 0 ? zero_pattern(out, r) : value_with_lead(out, r, lead);
  }
  for (std::size_t t = 0; t < K; ++t) x[t * st] = a[t];
  if (c) *c = cc;
}

struct Tally {
  std::uint64_t outputs = 0, blocks = 0, mismatches = 0;
};

Tally run_pair(const Unit& unit, const Pair& p, Rng& r, std::uint64_t total, unsigned threads, int far_kind) {
  const Format &in_a = parse_format(p.a), &in_b = parse_format(p.b), &out = formats::fp32();
  const InstructionSelection sel = unit.select_instruction(in_a, in_b, out, p.instruction);
  const std::size_t row_k = static_cast<std::size_t>(unit.spec().datapaths[sel.row].fma_size);
  const std::size_t k = sel.shape ? sel.shape->k : row_k, block = std::min(k, row_k);
  Tally t;
  while (t.outputs < total) {
    const std::size_t m = 1 + r.below(40), n = 1 + r.below(300);
    // Half the GEMMs with chains of 1-9 instructions plus a remainder, half with 1-40 blocks
    // (long chains: c carried in registers over many blocks, the fp8 rows' two groups too).
    const std::size_t K = r.below(2) ? k * (1 + r.below(9)) + r.below(k) : block * (1 + r.below(40)) + r.below(block);
    std::vector<std::uint64_t> A(m * K), B(K * n), C(m * n), D(m * n);
    auto kind = [&] { const auto x = r.below(4); return x == 0 ? 0 : x == 3 ? far_kind : 1; };
    for (std::size_t i = 0; i < m; ++i) fill_kind(kind(), in_a, out, r, A.data() + i * K, 1, K, nullptr);
    for (std::size_t j = 0; j < n; ++j) fill_kind(kind(), in_b, out, r, B.data() + j, n, K, nullptr);
    std::vector<std::uint64_t> ignored(1);
    for (std::size_t e = 0; e < m * n; ++e) fill_kind(kind(), in_a, out, r, ignored.data(), 1, 1, &C[e]);
    unit.gemm_into(in_a, in_b, out, m, n, K, A, B, C, D, p.instruction, threads);
    gemm_mismatches(unit, in_a, in_b, out, m, n, K, A, B, C, D, p.instruction,
                    {"amd-gemm-chain", std::string(p.a) + "*" + p.b + " " + p.instruction}, t.mismatches);
    t.outputs += m * n;
    t.blocks += m * n * ((K + block - 1) / block);
  }
  return t;
}

const Pair kPairs[] = {
    {"fp16", "fp16", ""},
    {"fp16", "fp16", "v1"},
    {"fp16", "fp16", "v_mfma_f32_32x32x4_2b_f16"},
    {"fp16", "fp16", "v_mfma_f32_32x32x4_2b_f16.v1"},
    {"bf16", "bf16", ""},
    {"bf16", "bf16", "v1"},
    {"bf16", "bf16", "v_mfma_f32_32x32x4_2b_bf16"},
    {"bf16", "bf16", "v_mfma_f32_32x32x4_2b_bf16.v1"},
    {"e4m3fnuz", "e4m3fnuz", ""},
    {"e4m3fnuz", "e4m3fnuz", "v1"},
    {"e5m2fnuz", "e5m2fnuz", ""},
    {"e5m2fnuz", "e5m2fnuz", "v1"},
    {"e4m3fnuz", "e5m2fnuz", ""},
    {"e5m2fnuz", "e4m3fnuz", "v1"},
    {"fp32", "fp32", "xf32"},
    {"fp32", "fp32", "xf32.v1"},
};

// Every pair on every compiled SIMD target (the CPU's own first, with `best` outputs per pair).
std::uint64_t run_targets(const char* unit_name, const char* path, const Pair* pairs, std::size_t count, Rng& r,
                          std::uint64_t best, std::uint64_t others, int far_kind) {
  const Unit& unit = builtin_unit(unit_name);
  std::uint64_t mismatches = 0;
  const auto targets = hwy::SupportedAndGeneratedTargets();
  for (const std::int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string name = hwy::TargetName(target);
    for (std::size_t i = 0; i < count; ++i) {
      const Pair& p = pairs[i];
      INFO(std::string(unit_name) + " " + p.a + "*" + p.b + " " + p.instruction + " on " + name);
      REQUIRE(unit.batch_path(parse_format(p.a), formats::fp32(), p.instruction).rfind(path, 0) == 0);
      const Tally t = run_pair(unit, p, r, target == targets.front() ? best : others, 1 + r.below(2), far_kind);
      std::printf("[amd-gemm-chain] %s %s %s*%s %-30s %llu outputs (%llu block FMAs), %llu mismatches\n", unit_name,
                  name.c_str(), p.a, p.b, p.instruction, static_cast<unsigned long long>(t.outputs),
                  static_cast<unsigned long long>(t.blocks), static_cast<unsigned long long>(t.mismatches));
      mismatches += t.mismatches;
    }
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the CPU's own
  return mismatches;
}

const Pair kExactPairs[] = {
    {"fp16", "fp16", ""},
    {"fp16", "fp16", "v_mfma_f32_16x16x16f16"},
    {"bf16", "bf16", ""},
    {"bf16", "bf16", "v_mfma_f32_16x16x8bf16"},
};

}  // namespace

TEST_CASE("after-add gemm chain: c in registers, int32 epilogue, every SIMD target, against Unit::dot",
          "[kernel][differential][amd]") {
  Rng r(tcsim::test::seed("after-add gemm chain", 0xa7c4a1d0));
  const std::uint64_t best = tcsim::test::count(20'000), others = tcsim::test::count(3'000);
  CHECK(run_targets("mi300x", "after-add", kPairs, std::size(kPairs), r, best, others, 2) == 0);
}

TEST_CASE("exact-block gemm chain: c in registers, binary64 lanes, every SIMD target, against Unit::dot",
          "[kernel][differential][amd]") {
  Rng r(tcsim::test::seed("exact-block gemm chain", 0xe8ac7c10));
  const std::uint64_t best = tcsim::test::count(40'000), others = tcsim::test::count(6'000);
  CHECK(run_targets("mi100", "exact-block", kExactPairs, std::size(kExactPairs), r, best, others, 3) == 0);
}
