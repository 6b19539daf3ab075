// Unit::dot_batch through the block kernel against Unit::dot (the reference adder and the
// reference chaining), on every built-in row and format pair: the same bits for K from 0 to
// several instructions, for any thread count, with zeros, subnormals, specials, cancellation
// and overflow mixed in.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "diff_checks.hpp"
#include "kernel_cases.hpp"
#include "models_test_helpers.hpp"
#include "operand_gen.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::reftest;
using tcsim::test::Rng;

namespace {

// Elements of d that differ from Unit::dot on the same operands (element-major a, b); the
// first three are printed with their operands.
std::size_t mismatches_against_dot(const Unit& unit, const DatapathSpec& row, const Format& in, const Format& out,
                                   std::size_t K, const std::vector<std::uint64_t>& a,
                                   const std::vector<std::uint64_t>& b, const std::vector<std::uint64_t>& c,
                                   const std::vector<std::uint64_t>& d, const std::string& what) {
  std::size_t bad = 0;
  for (std::size_t e = 0; e < d.size(); ++e) {
    const std::uint64_t want = unit.dot(in, out, {a.data() + e * K, K}, {b.data() + e * K, K}, c[e], row.instruction);
    if (want == d[e] || ++bad > 3) continue;
    std::printf("%s K %zu: a = %s, b = %s, c = %s: got %s, dot %s\n", what.c_str(), K,
                hex_list(in, a.data() + e * K, K).c_str(), hex_list(in, b.data() + e * K, K).c_str(),
                bits_to_hex(out, c[e]).c_str(), bits_to_hex(out, d[e]).c_str(), bits_to_hex(out, want).c_str());
  }
  return bad;
}

// fn(unit, row, in, out, name) for every format pair of every built-in row without block
// scales; name is "unit instruction in->out" ("(any)" for a row without an instruction).
template <class Fn>
void for_each_builtin_pair(const Fn& fn) {
  for (const auto& spec : builtin_unit_specs()) {
    const Unit& unit = builtin_unit(spec.name);
    for (const auto& row : spec.datapaths) {
      if (row.block_scale) continue;
      for (const auto& in_name : row.input_formats)
        for (const auto& out_name : row.output_formats) {
          const Format &in = parse_format(in_name), &out = parse_format(out_name);
          fn(unit, row, in, out,
             spec.name + " " + (row.instruction.empty() ? "(any)" : row.instruction) + " " + in.name + "->" + out.name);
        }
    }
  }
}

}  // namespace

TEST_CASE("dot_batch through the block kernel equals dot on every built-in row", "[units][kernel]") {
  Rng r(tcsim::test::seed("unit kernel every row", 424242));
  const std::size_t elements = tcsim::test::count(40000);
  std::size_t rows_on_kernel = 0;
  for_each_builtin_pair([&](const Unit& unit, const DatapathSpec& row, const Format& in, const Format& out,
                            const std::string& name) {
    const std::string path = unit.batch_path(in, out, row.instruction);
    const std::string label = name + " [" + path + "]";
    INFO(label);
    if (path != "kernel") return;
    ++rows_on_kernel;
    const std::size_t k = static_cast<std::size_t>(row.fma_size);
    for (std::size_t K : {std::size_t{0}, std::size_t{1}, k, 2 * k + 3, 4 * k}) {
      const std::size_t n = std::max<std::size_t>(1, elements / (K + 1));
      std::vector<std::uint64_t> a(n * K), b(n * K), c(n), d(n);
      for (std::size_t e = 0; e < n; ++e) fill_element(in, out, r, a.data() + e * K, b.data() + e * K, K, c[e]);
      unit.dot_batch(in, out, n, K, a.data(), b.data(), c.data(), d.data(), row.instruction, 2);
      CHECK(mismatches_against_dot(unit, row, in, out, K, a, b, c, d, "[unit-kernel] MISMATCH batch " + label) == 0);
    }
  });
  std::printf("[unit-kernel] %zu (row, format pair) combinations ran on the kernel\n", rows_on_kernel);
  CHECK(rows_on_kernel >= 20);
}

TEST_CASE("batch_path: the kernel serves the NVIDIA rows, fp64 the FMA chain, the reference the rest, with the reason", "[units][kernel]") {
  const Format &f16 = formats::fp16(), &f32 = formats::fp32(), &e4 = formats::e4m3(), &f64 = formats::fp64();
  CHECK(builtin_unit("v100").batch_path(f16, f32) == "kernel");
  CHECK(builtin_unit("h100").batch_path(e4, f32) == "kernel");              // wgmma, 13 result bits
  CHECK(builtin_unit("h100").batch_path(e4, f16, "mma.sync") == "kernel");  // the emulation's blocks
  CHECK(builtin_unit("b200").batch_path(e4, f32, "mma.sync") == "kernel");
  CHECK(builtin_unit("a100").batch_path(f64, f64) == "fma-chain");  // detail::is_fma_chain
  // Block-scaled rows without scales (issue 25): mxf8f6f4 is its adder's plain block FMA,
  // mxf4nvf4 has its own group-sum lanes.
  CHECK(builtin_unit("b200").batch_path(e4, f32, "tcgen05.mxf8f6f4") == "kernel");
  // Its binary32 lanes where the target has 8 binary32 lanes (AVX2, AVX-512), else the binary64 ones.
  const std::string groups = builtin_unit("b200").batch_path(formats::e2m1(), f32, "tcgen05.mxf4nvf4");
  CHECK((groups == "kernel (group sums, binary32 lanes)" || groups == "kernel (group sums)"));
  CHECK(builtin_unit("mi100").batch_path(formats::fp32(), f32) == "fma-chain");  // binary32 FMA chain (std::fmaf)
  // No built-in row is left on the reference path: a user row with per-step normalization
  // that is not an FMA chain (fp16 inputs, sequential order) is, with the reason.
  UnitSpec spec = builtin_unit("v100").spec();
  spec.name = "perstep";
  for (auto& row : spec.datapaths) {
    row.normalization = Normalization::PerStep;
    row.order = AccumulationOrder::Sequential;
  }
  CHECK(Unit(spec).batch_path(f16, f32) == "reference: per-step normalization");
}

TEST_CASE("dot_batch is bitwise the same for any thread count", "[units][kernel]") {
  Rng r(tcsim::test::seed("unit kernel threads", 31));
  const Unit& u = builtin_unit("h100");
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  const std::size_t n = 5000, K = 40;
  std::vector<std::uint64_t> a(n * K), b(n * K), c(n), d1(n), d2(n), d3(n);
  for (std::size_t e = 0; e < n; ++e) fill_element(f16, f32, r, a.data() + e * K, b.data() + e * K, K, c[e]);
  u.dot_batch(f16, f32, n, K, a.data(), b.data(), c.data(), d1.data(), "", 1);
  u.dot_batch(f16, f32, n, K, a.data(), b.data(), c.data(), d2.data(), "", 2);
  u.dot_batch(f16, f32, n, K, a.data(), b.data(), c.data(), d3.data(), "", 7);
  CHECK(d1 == d2);
  CHECK(d1 == d3);
}

// dot_batch_planar: the same elements product-major in 16-bit patterns (element e's operand t
// at [t * n + e]); n rarely a multiple of the SIMD lanes, K across block and instruction edges.
TEST_CASE("dot_batch_planar equals dot on every built-in row with inputs of at most 16 bits", "[units][kernel]") {
  Rng r(tcsim::test::seed("unit kernel planar every row", 424243));
  const std::size_t elements = tcsim::test::count(40000);
  std::size_t planar_rows = 0, regrouped_rows = 0;
  for_each_builtin_pair([&](const Unit& unit, const DatapathSpec& row, const Format& in, const Format& out,
                            const std::string& name) {
    if (in.width > 16) return;
    const std::string path = unit.batch_path_planar(in, out, row.instruction);
    const std::string label = name + " [" + path + "]";
    INFO(label);
    (path == "kernel (planar)" ? planar_rows : regrouped_rows) += 1;
    const std::size_t k = static_cast<std::size_t>(row.fma_size);
    for (std::size_t K : {std::size_t{0}, std::size_t{1}, k, 2 * k + 3, 4 * k}) {
      const std::size_t n = std::max<std::size_t>(1, elements / (K + 1) / (path == "kernel (planar)" ? 1 : 8));
      std::vector<std::uint64_t> a(n * K), b(n * K), c(n), d(n);
      std::vector<std::uint16_t> at, bt;
      for (std::size_t e = 0; e < n; ++e) fill_element(in, out, r, a.data() + e * K, b.data() + e * K, K, c[e]);
      product_major16(a.data(), n, K, at);
      product_major16(b.data(), n, K, bt);
      unit.dot_batch_planar(in, out, n, K, at.data(), bt.data(), c.data(), d.data(), row.instruction, 2);
      CHECK(mismatches_against_dot(unit, row, in, out, K, a, b, c, d, "[unit-planar] MISMATCH planar " + label) == 0);
    }
  });
  std::printf("[unit-planar] %zu (row, format pair) combinations on the planar kernel, %zu regrouped\n", planar_rows,
              regrouped_rows);
  CHECK(planar_rows >= 15);
  CHECK(regrouped_rows >= 5);
}

TEST_CASE("batch_path_planar names the planar kernel or the regrouping, and wide inputs are refused", "[units][kernel]") {
  const Format &f16 = formats::fp16(), &f32 = formats::fp32(), &e4 = formats::e4m3();
  CHECK(builtin_unit("h100").batch_path_planar(f16, f32) == "kernel (planar)");
  CHECK(builtin_unit("h100").batch_path_planar(e4, f32) == "kernel (planar)");
  // bf16 runs planar in binary32 lanes (decoded by a 16-bit shift; docs/performance.md).
  CHECK(builtin_unit("a100").batch_path_planar(formats::bf16(), f32) == "kernel (planar)");
  // The pairs-mod4 emulation: the planar lanes on each instruction's permuted rows (issue 25).
  CHECK(builtin_unit("b200").batch_path_planar(e4, f32) == "kernel (planar, pairs-mod4 rows permuted per instruction)");
  // Block-scaled rows with group sums read the product-major patterns (issue 25).
  CHECK(builtin_unit("b200").batch_path_planar(formats::e2m1(), f32, "tcgen05.mxf4nvf4") ==
        (builtin_unit("b200").batch_path(formats::e2m1(), f32, "tcgen05.mxf4nvf4") == "kernel (group sums)"
             ? "kernel (group sums, planar)"
             : "kernel (group sums, binary32 lanes, planar)"));
  const std::uint16_t x[1] = {0};
  const std::uint64_t c[1] = {0};
  std::uint64_t d[1];
  CHECK_THROWS_WITH(builtin_unit("a100").dot_batch_planar(formats::tf32(), f32, 1, 1, x, x, c, d),
                    "in: dot_batch_planar takes patterns of at most 16 bits; 'tf32' has 19 (use dot_batch)");
}

TEST_CASE("dot_batch_planar is bitwise the same for any thread count", "[units][kernel]") {
  Rng r(tcsim::test::seed("unit kernel planar threads", 32));
  const Unit& u = builtin_unit("h100");
  const Format &f16 = formats::fp16(), &f32 = formats::fp32();
  const std::size_t n = 5003, K = 40;
  std::vector<std::uint64_t> a(n * K), b(n * K), c(n), d1(n), d2(n), d3(n), want(n);
  std::vector<std::uint16_t> at, bt;
  for (std::size_t e = 0; e < n; ++e) fill_element(f16, f32, r, a.data() + e * K, b.data() + e * K, K, c[e]);
  product_major16(a.data(), n, K, at);
  product_major16(b.data(), n, K, bt);
  u.dot_batch_planar(f16, f32, n, K, at.data(), bt.data(), c.data(), d1.data(), "", 1);
  u.dot_batch_planar(f16, f32, n, K, at.data(), bt.data(), c.data(), d2.data(), "", 2);
  u.dot_batch_planar(f16, f32, n, K, at.data(), bt.data(), c.data(), d3.data(), "", 7);
  u.dot_batch(f16, f32, n, K, a.data(), b.data(), c.data(), want.data(), "", 1);
  CHECK(d1 == want);
  CHECK(d1 == d2);
  CHECK(d1 == d3);
}
