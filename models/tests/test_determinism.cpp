// Determinism (issue 11): the same bits for 1, 2 and 8 threads and across repeated runs, for
// dot (dot_batch, dot_batch_planar), GEMM (Unit::gemm and every simulate_gemm variant) and LU
// (every algorithm and dp panel, with and without pivoting). Each case also checks that the
// inputs are not trivial (a result that cannot differ would make the test unable to fail).
#include <catch2/catch.hpp>
#include <tbb/global_control.h>

#include <bit>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "diff_checks.hpp"
#include "kernel_cases.hpp"
#include "tcsim/models/gemm.hpp"
#include "tcsim/models/lu.hpp"
#include "tcsim/models/lu_matrices.hpp"
#include "tcsim/models/unit.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using tcsim::test::Rng;

namespace {

constexpr unsigned kThreads[] = {1, 2, 8};

// TBB caps its workers at the machine's cores; raised so that 8 threads are 8 on 2 cores too.
tbb::global_control eight_workers() { return {tbb::global_control::max_allowed_parallelism, 8}; }

std::vector<double> uniform(Rng& r, std::size_t n) {
  std::vector<double> v(n);
  for (auto& x : v) x = static_cast<double>(r.next() >> 11) * 0x1p-52 - 1.0;  // [-1, 1)
  return v;
}

// Distinct values in a result: more than a handful means the bits carry information.
template <class T>
std::size_t distinct(const std::vector<T>& v) { return std::set<T>(v.begin(), v.end()).size(); }

}  // namespace

TEST_CASE("determinism: dot_batch and dot_batch_planar give the same bits for 1, 2, 8 threads and reruns",
          "[determinism]") {
  const auto workers = eight_workers();
  Rng r(tcsim::test::seed("determinism dot", 0xde7e0001));
  struct Row {
    const char* unit;
    const char* in;
    const char* out;
    const char* instruction;
  };
  // Kernel, FMA chain, fp8 emulation (pairs-mod4, final add) and reference-path rows.
  for (const Row row : {Row{"h100", "fp16", "fp32", ""}, Row{"a100", "fp64", "fp64", ""}, Row{"b200", "e5m2", "fp16", ""},
                        Row{"v100", "fp16", "fp16", ""}, Row{"a100", "tf32", "fp32", ""}}) {
    const Unit& unit = builtin_unit(row.unit);
    const Format &in = parse_format(row.in), &out = parse_format(row.out);
    INFO(row.unit << " " << row.in << "->" << row.out << " [" << unit.batch_path(in, out, row.instruction) << "]");
    const std::size_t n = 5000, K = 37;  // n splits unevenly over 8 threads; K is not a multiple of the block
    std::vector<std::uint64_t> a(n * K), b(n * K), c(n);
    for (std::size_t e = 0; e < n; ++e) reftest::fill_element(in, out, r, a.data() + e * K, b.data() + e * K, K, c[e]);
    std::vector<std::uint64_t> first;
    for (int rerun = 0; rerun < 2; ++rerun)
      for (unsigned t : kThreads) {
        std::vector<std::uint64_t> d(n);
        unit.dot_batch(in, out, n, K, a.data(), b.data(), c.data(), d.data(), row.instruction, t);
        if (first.empty()) first = d;
        CHECK(d == first);
        if (in.width <= 16) {
          std::vector<std::uint16_t> at, bt;
          reftest::product_major16(a.data(), n, K, at);
          reftest::product_major16(b.data(), n, K, bt);
          std::vector<std::uint64_t> dp(n);
          unit.dot_batch_planar(in, out, n, K, at.data(), bt.data(), c.data(), dp.data(), row.instruction, t);
          CHECK(dp == first);
        }
      }
    CHECK(distinct(first) > n / 4);
  }
}

TEST_CASE("determinism: Unit::gemm gives the same bits for 1, 2, 8 threads and reruns", "[determinism]") {
  const auto workers = eight_workers();
  Rng r(tcsim::test::seed("determinism unit gemm", 0xde7e0002));
  const std::size_t m = 67, n = 53, K = 41;
  for (const char* unit_name : {"h100", "v100", "b200"}) {
    const Unit& unit = builtin_unit(unit_name);
    const Format &in = unit_name[0] == 'b' ? formats::e4m3() : formats::fp16(), &out = formats::fp32();
    INFO(unit_name << " " << in.name << "->fp32");
    std::vector<std::uint64_t> A(m * K), B(K * n), C(m * n), scratch(K);
    for (std::size_t i = 0; i < m; ++i) reftest::fill_element(in, out, r, A.data() + i * K, scratch.data(), K, C[i]);
    for (std::size_t j = 0; j < n; ++j) reftest::fill_element(in, out, r, scratch.data(), B.data() + j * K, K, C[j]);
    for (auto& c : C) c = reftest::random_finite(out, r);
    std::vector<std::uint64_t> first;
    for (int rerun = 0; rerun < 2; ++rerun)
      for (unsigned t : kThreads) {
        const std::vector<std::uint64_t> D = unit.gemm(in, out, m, n, K, A, B, C, "", t);
        if (first.empty()) first = D;
        CHECK(D == first);
      }
    CHECK(distinct(first) > m * n / 4);
  }
}

TEST_CASE("determinism: every simulate_gemm variant gives the same bits for 1, 2, 8 threads and reruns",
          "[determinism]") {
  const auto workers = eight_workers();
  Rng r(tcsim::test::seed("determinism simulate_gemm", 0xde7e0003));
  const std::size_t m = 45, n = 38, k = 70;
  const auto A = uniform(r, m * k), B = uniform(r, k * n), C = uniform(r, m * n);
  struct Case {
    const char* name;
    GemmOptions o;
  };
  std::vector<Case> cases;
  for (GemmVariant v : {GemmVariant::Unit, GemmVariant::Fp16, GemmVariant::Tc16, GemmVariant::Tc32, GemmVariant::Fp32}) {
    GemmOptions o;
    o.variant = v;
    cases.push_back({"variant", o});
  }
  GemmOptions o;
  o.split_k = 3;
  cases.push_back({"split-k 3", o});
  o = {};
  o.fabsum_block = 16;
  cases.push_back({"fabsum 16 fp32", o});
  o.fabsum_combine = "fp64";
  cases.push_back({"fabsum 16 fp64", o});
  o = {};
  o.words = 2;
  cases.push_back({"2 words", o});
  o.words = 3;
  o.all_word_products = true;
  o.word_order = WordOrder::LargestFirst;
  cases.push_back({"3 words, all products, largest first", o});
  o = {};
  o.words = 2;
  o.scaled_words = true;
  cases.push_back({"2 scaled words", o});
  o = {};
  o.scaling = true;
  o.subnormals = false;
  cases.push_back({"scaling, no subnormals", o});
  const Unit& unit = builtin_unit("h100");
  for (const Case& cs : cases) {
    INFO(cs.name << " variant " << variant_name(cs.o.variant));
    std::vector<std::uint64_t> first;
    for (int rerun = 0; rerun < 2; ++rerun)
      for (unsigned t : kThreads) {
        GemmOptions opt = cs.o;
        opt.threads = t;
        const GemmResult g = simulate_gemm(unit, formats::fp16(), formats::fp32(), m, n, k, A, B, C, opt);
        if (first.empty()) first = g.bits;
        CHECK(g.bits == first);
      }
    CHECK(distinct(first) > m * n / 2);
  }
}

TEST_CASE("determinism: every LU algorithm gives the same factors for 1, 2, 8 threads and reruns", "[determinism]") {
  const auto workers = eight_workers();
  const std::size_t n = 96;
  const std::vector<double> A = matrix_hpl_ai(n, 11);
  struct Case {
    LuAlgorithm alg;
    LuPanel panel;
    bool pivot;
  };
  std::vector<Case> cases;
  for (LuAlgorithm alg : {LuAlgorithm::Rl, LuAlgorithm::Ll, LuAlgorithm::LlFp32Panel, LuAlgorithm::RefRl, LuAlgorithm::RefLl})
    for (bool pivot : {false, true}) cases.push_back({alg, LuPanel::LlFp32Panel, pivot});
  for (LuPanel panel : {LuPanel::RlFp16, LuPanel::RlFp32, LuPanel::Ll, LuPanel::LlFp32Panel})
    cases.push_back({LuAlgorithm::Dp, panel, false});
  const Unit& unit = builtin_unit("h100");
  for (const Case& cs : cases) {
    LuOptions o;
    o.algorithm = cs.alg;
    o.panel = cs.panel;
    o.pivot = cs.pivot;
    o.block = 16;
    o.inner_block = 4;
    INFO(lu_algorithm_name(cs.alg) << " panel " << lu_panel_name(cs.panel) << (cs.pivot ? " pivoting" : ""));
    std::vector<double> first;
    std::vector<std::size_t> first_perm;
    for (int rerun = 0; rerun < 2; ++rerun)
      for (unsigned t : kThreads) {
        o.threads = t;
        const LuResult lu = simulate_lu(unit, formats::fp16(), n, A, o);
        if (first.empty()) first = lu.LU, first_perm = lu.perm;
        CHECK(lu.LU == first);  // doubles compared exactly: the same bits (no NaN in these factors)
        CHECK(lu.perm == first_perm);
      }
    CHECK(distinct(first) > n * n / 2);
  }
}

TEST_CASE("determinism: LU with on_breakdown continue gives the same factors and events for 1, 2, 8 threads",
          "[determinism]") {
  const auto workers = eight_workers();
  const std::size_t n = 96;
  // A normal matrix scaled by 2000, no pivoting: the fp16 elimination overflows, then NaN spreads.
  std::vector<double> A = matrix_normal(n, 5);
  for (double& v : A) v *= 2000;
  const Unit& unit = builtin_unit("h100");
  // Equal values, every NaN equal to every NaN (the sign of a NaN is not a result).
  auto same = [](const std::vector<double>& a, const std::vector<double>& b) {
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!(std::isnan(a[i]) && std::isnan(b[i])) && std::bit_cast<std::uint64_t>(a[i]) != std::bit_cast<std::uint64_t>(b[i]))
        return false;
    return a.size() == b.size();
  };
  auto key = [](const LuEvent& e) {
    return std::to_string(e.found) + " " + std::to_string(e.step) + " " + std::to_string(e.row) + " " +
           std::to_string(e.col) + " " + e.where;
  };
  for (LuAlgorithm alg : {LuAlgorithm::Rl, LuAlgorithm::Ll, LuAlgorithm::LlFp32Panel, LuAlgorithm::Dp, LuAlgorithm::RefRl}) {
    LuOptions o;
    o.algorithm = alg;
    o.storage = alg == LuAlgorithm::Rl || alg == LuAlgorithm::RefRl ? "fp16" : "";
    if (alg == LuAlgorithm::Rl) o.variant = GemmVariant::Tc16;
    o.block = 16;
    o.inner_block = 4;
    o.on_breakdown = LuOnBreakdown::Continue;
    INFO(lu_algorithm_name(alg));
    std::vector<double> first;
    std::string first_events;
    for (unsigned t : kThreads) {
      o.threads = t;
      const LuResult lu = simulate_lu(unit, formats::fp16(), n, A, o);
      const std::string events = key(lu.events.subnormal_pivot) + "; " + key(lu.events.zero_pivot) + "; " +
                                 key(lu.events.overflow) + "; " + key(lu.events.nan);
      if (first.empty()) first = lu.LU, first_events = events;
      INFO(events);
      CHECK(same(lu.LU, first));
      CHECK(events == first_events);
      CHECK(lu.events.overflow.found);
      CHECK(lu.events.nan.found);
    }
  }
}
