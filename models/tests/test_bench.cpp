// Throughput of Unit::dot (hidden: run with `tcsim_models_tests "[bench]"`).
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>

#include "models_test_helpers.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;

TEST_CASE("bench: Unit::dot throughput per unit and format pair", "[.][bench]") {
  struct B {
    const char* unit;
    const char* in;
    const char* out;
    std::size_t K;
    const char* instr;
  };
  const B benches[] = {{"v100", "fp16", "fp32", 4, ""},   {"v100", "fp16", "fp32", 64, ""},
                       {"a100", "bf16", "fp32", 8, ""},   {"h100", "fp16", "fp16", 16, ""},
                       {"h100", "e4m3", "fp32", 32, ""},  {"b200", "e4m3", "fp32", 32, ""},
                       {"a100", "fp64", "fp64", 4, ""},   {"b200", "e2m1", "fp32", 64, "tcgen05.mxf4nvf4"}};
  tcsim::test::Rng rng(1);
  for (const B& b : benches) {
    const Unit& u = builtin_unit(b.unit);
    const Format& in = parse_format(b.in);
    const Format& out = parse_format(b.out);
    const std::size_t n = 20000;
    std::vector<std::uint64_t> a(n * b.K), bb(n * b.K), c(n), d(n);
    for (auto& x : a) x = models::test::bits(in, static_cast<double>(rng.below(64)) / 16 - 2);
    for (auto& x : bb) x = models::test::bits(in, static_cast<double>(rng.below(64)) / 8 - 4);
    for (auto& x : c) x = models::test::bits(out, static_cast<double>(rng.below(1000)) / 7);
    const auto t0 = std::chrono::steady_clock::now();
    u.dot_batch(in, out, n, b.K, a.data(), bb.data(), c.data(), d.data(), b.instr);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("[bench] %s %s->%s K=%zu %s: %.0f dots/s (%.2f us/dot, %.0f products/s)\n", b.unit, b.in, b.out, b.K,
                b.instr, n / s, 1e6 * s / n, n * b.K / s);
  }
}
