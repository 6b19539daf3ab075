// Binary32TreeKernel (AMD CDNA2's pairwise binary32 trees in host arithmetic, issue 25)
// against the reference FixedPointAdder: directed cases for each flushing and sign rule, then
// random cases (tests/flush_edges.hpp and the block-kernel kinds) through run() and through
// run_chain() on every compiled SIMD target. Every case must give the reference's bits.
#include <catch2/catch.hpp>

#include <bit>
#include <cstdio>
#include <string>
#include <vector>

#include <hwy/targets.h>

#include "flush_edges.hpp"
#include "operand_gen.hpp"
#include "tcsim/sim/ieee_tree.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::reftest;
using tcsim::test::Rng;

namespace {

// The CDNA2 row (models/src/unit_table_amd.cpp, cdna2_pairwise) as an adder configuration.
AdderConfig cdna2(const Format& in) {
  AdderConfig c;
  c.a_format = c.b_format = in;
  c.c_format = c.out_format = formats::fp32();
  c.fraction_bits = 50;
  c.carry_bits = 3;
  c.sticky_bit = true;
  c.normalization = Normalization::PerStep;
  c.order = AccumulationOrder::Pairwise;
  c.product_rounding = Rounding::NearestEven;
  c.final_rounding = Rounding::NearestEven;
  c.subnormal_inputs = false;
  c.subnormal_outputs = false;
  c.flush_inputs_positive = true;
  c.nan_pattern = 0x7fffffffu;
  return c;
}

std::uint64_t run_one(const Binary32TreeKernel& kern, const std::vector<std::uint64_t>& a,
                      const std::vector<std::uint64_t>& b, std::uint64_t c) {
  std::uint64_t d = 0;
  kern.run(1, a.size(), a.data(), a.size(), b.data(), b.size(), &c, &d);
  return d;
}

// Run-chain on one element (a 1 x 16 tile, column 0 real, the rest +0), K = a.size() in one
// instruction of blocks of k.
std::uint64_t chain_one(const Binary32TreeKernel& kern, const std::vector<std::uint64_t>& a,
                        const std::vector<std::uint64_t>& b, std::uint64_t c) {
  const std::size_t K = a.size();
  std::vector<float> av(K), bv(K * 16, 0.0f), acc(16, 0.0f);
  kern.decode_operands(K, a.data(), av.data());
  for (std::size_t t = 0; t < K; ++t) bv[t * 16] = kern.decode_operand(b[t]);
  acc[0] = kern.decode_c(c);
  kern.run_chain(1, 16, K, K, av.data(), K, bv.data(), 16, acc.data(), 16);
  return kern.encode(acc[0]);
}

}  // namespace

TEST_CASE("ieee tree: which configurations it accepts", "[ieee_tree]") {
  CHECK_FALSE(binary32_tree_unsupported(cdna2(formats::fp16()), 4));
  CHECK_FALSE(binary32_tree_unsupported(cdna2(formats::bf16()), 2));
  CHECK(*binary32_tree_unsupported(cdna2(formats::fp16()), 3) == "fma_size 3 is not 1, 2, 4 or 8");
  AdderConfig x = cdna2(formats::fp16());
  x.subnormal_outputs = true;
  CHECK(*binary32_tree_unsupported(x, 4) == "subnormals are not flushed");
  x = cdna2(formats::fp16());
  x.fraction_bits = 30;
  CHECK(binary32_tree_unsupported(x, 4).has_value());
  CHECK(binary32_tree_unsupported(cdna2(formats::fp32()), 4).has_value());  // 24-bit operands
  CHECK(binary32_tree_unsupported(cdna2(parse_format("e4m3")), 4).has_value());  // no Inf
  CHECK_THROWS_WITH(Binary32TreeKernel(x, 4), Catch::StartsWith("binary32 tree: additions not correctly rounded"));
}

TEST_CASE("ieee tree: flushing, signs and specials, case by case", "[ieee_tree]") {
  const Format& bf = formats::bf16();
  const Format& h = formats::fp16();
  struct Case {
    const char* what;
    const Format* in;
    std::vector<std::uint64_t> a, b;
    std::uint64_t c, want;
  };
  const std::vector<Case> cases = {
      // a subnormal operand (fp16 -2^-24) is +0: products +0, +0 + -0 = +0
      {"subnormal input to +0", &h, {0x8001, 0, 0, 0}, {0x3c00, 0, 0, 0}, 0x80000000u, 0x00000000u},
      // -2^-100 * 2^-30 = -2^-130 (bf16) is flushed to -0; every other product -0: the sum -0
      {"product below 2^-126 to -0", &bf, {0x8d80, 0x8000, 0x8000, 0x8000}, {0x3080, 0x3f80, 0x3f80, 0x3f80}, 0x80000000u,
       0x80000000u},
      // tree -2^-126 (2^-63 * -2^-63), c = 2^-126 (1 + 2^-23): the sum 2^-149 is flushed to +0
      {"sum below 2^-126 to +0", &bf, {0x2000, 0, 0, 0}, {0xa000, 0, 0, 0}, 0x00800001u, 0x00000000u},
      // the same with signs swapped: -0
      {"sum below 2^-126 to -0", &bf, {0x2000, 0, 0, 0}, {0x2000, 0, 0, 0}, 0x80800001u, 0x80000000u},
      // a subnormal c is +0: -0 products + (+0) = +0
      {"subnormal c to +0", &bf, {0x8000, 0x8000, 0x8000, 0x8000}, {0x3f80, 0x3f80, 0x3f80, 0x3f80}, 0x80000001u,
       0x00000000u},
      // 2^64 * 2^64 = 2^128 overflows to Inf
      {"product overflow", &bf, {0x5f80, 0, 0, 0}, {0x5f80, 0, 0, 0}, 0x3f800000u, 0x7f800000u},
      // Inf - Inf in the tree: NaN pattern
      {"Inf - Inf", &h, {0x7c00, 0xfc00, 0, 0}, {0x3c00, 0x3c00, 0, 0}, 0, 0x7fffffffu},
      // Inf * subnormal (flushed to 0): NaN
      {"Inf * flushed subnormal", &h, {0x7c00, 0, 0, 0}, {0x0001, 0, 0, 0}, 0, 0x7fffffffu},
      // exact cancellation: 1 - 1 = +0, and + (-0) stays +0
      {"cancellation to +0", &h, {0x3c00, 0xbc00, 0, 0}, {0x3c00, 0x3c00, 0, 0}, 0x80000000u, 0x00000000u},
      // every product -0 and c -0: -0
      {"all -0", &h, {0x8000, 0x8000, 0x8000, 0x8000}, {0x3c00, 0x3c00, 0x3c00, 0x3c00}, 0x80000000u, 0x80000000u},
      // each addition rounded: 1 + 2^-24 ties to 1, then + 2^-24 ties to 1 again (exactly: 1 + 2^-23)
      {"pairwise order", &h, {0x3c00, 0x0c00, 0, 0}, {0x3c00, 0x0c00, 0, 0}, 0x33800000u, 0x3f800000u},
  };
  for (const Case& cs : cases) {
    INFO(cs.what);
    const AdderConfig cfg = cdna2(*cs.in);
    const FixedPointAdder ref(cfg);
    const Binary32TreeKernel kern(cfg, cs.a.size());
    CHECK(ref.dot(cs.a, cs.b, cs.c) == cs.want);
    CHECK(run_one(kern, cs.a, cs.b, cs.c) == cs.want);
    CHECK(chain_one(kern, cs.a, cs.b, cs.c) == cs.want);
  }
}

TEST_CASE("ieee tree: random cases against the reference on every SIMD target", "[ieee_tree]") {
  Rng r(tcsim::test::seed("ieee tree random", 0x1ee3b32));
  const std::uint64_t total = tcsim::test::count(20'000);
  std::uint64_t mismatches = 0, cases = 0;
  const auto targets = hwy::SupportedAndGeneratedTargets();
  for (const Format* in : {&formats::fp16(), &formats::bf16()})
    for (std::size_t k : {2u, 4u}) {
      AdderConfig cfg = cdna2(*in);
      if (r.below(4) == 0) cfg.flush_inputs_positive = false;
      if (r.below(4) == 0) cfg.zero_sign = ZeroSign::Positive;
      const FixedPointAdder ref(cfg);
      const Binary32TreeKernel kern(cfg, k);
      for (std::uint64_t i = 0; i < total; ++i) {
        std::size_t K = k * (1 + r.below(3));  // chains, a padded last block (named draws: operand order is unspecified)
        K += r.below(2);
        std::vector<std::uint64_t> a(K), b(K);
        std::uint64_t c = 0;
        fill_flush_edges(*in, formats::fp32(), r, a.data(), b.data(), K, c);
        // the reference chain: blocks of k, the last padded with +0 products
        std::uint64_t want = c;
        for (std::size_t pos = 0; pos < K; pos += k) {
          std::vector<std::uint64_t> pa(k, 0), pb(k, 0);
          for (std::size_t t = 0; t < k && pos + t < K; ++t) pa[t] = a[pos + t], pb[t] = b[pos + t];
          want = ref.dot(pa, pb, want);
        }
        std::uint64_t got_run = c;
        for (std::size_t pos = 0; pos < K; pos += k) {
          const std::size_t len = std::min(k, K - pos);
          std::uint64_t d = 0;
          kern.run(1, len, a.data() + pos, K, b.data() + pos, K, &got_run, &d);
          got_run = d;
        }
        ++cases;
        if (got_run != want && mismatches++ < 5)
          std::printf("[ieee-tree] MISMATCH run %s k %zu: a = %s b = %s c = 0x%08llx: %08llx, want %08llx\n",
                      in->name.c_str(), k, hex_list(*in, a.data(), K).c_str(), hex_list(*in, b.data(), K).c_str(),
                      static_cast<unsigned long long>(c), static_cast<unsigned long long>(got_run),
                      static_cast<unsigned long long>(want));
        // run_chain on one target in turn (cheap to switch: the table is re-read per call)
        const auto target = targets[i % targets.size()];
        hwy::SetSupportedTargetsForTest(target);
        const std::uint64_t got_chain = chain_one(kern, a, b, c);
        hwy::SetSupportedTargetsForTest(0);
        if (got_chain != want && mismatches++ < 5)
          std::printf("[ieee-tree] MISMATCH run_chain (%s) %s k %zu: a = %s b = %s c = 0x%08llx: %08llx, want %08llx\n",
                      hwy::TargetName(target), in->name.c_str(), k, hex_list(*in, a.data(), K).c_str(),
                      hex_list(*in, b.data(), K).c_str(), static_cast<unsigned long long>(c),
                      static_cast<unsigned long long>(got_chain), static_cast<unsigned long long>(want));
      }
    }
  std::printf("[ieee-tree] %llu cases, %llu mismatches\n", static_cast<unsigned long long>(cases),
              static_cast<unsigned long long>(mismatches));
  CHECK(mismatches == 0);
}
