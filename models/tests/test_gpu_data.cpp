// Early feedback on the built-in parameters: the first lines of every real-GPU data file
// (shared/data/gpu, format in its README) through the matching built-in unit. The full
// validator lives in validation/; this only measures match rates and checks that the
// non-open datapaths reproduce the hardware bit for bit.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "models_test_helpers.hpp"
#include "test_support.hpp"

using namespace tcsim;
using namespace tcsim::models;
using namespace tcsim::models::test;

namespace {

struct Case {
  const char* gpu;
  const char* folder;  // input format folder
  const char* unit;
  const char* in;
  const char* out;
  bool c_is_zero;      // H100 fp8 fp32: wgmma into a zeroed D
  double min_rate;     // required match rate
};

// Every data folder x output file, each required to match on every line read.
const Case kCases[] = {
    {"V100", "fp16", "v100", "fp16", "fp32", false, 1.0},
    {"V100", "fp16", "v100", "fp16", "fp16", false, 1.0},
    {"A100", "fp16", "a100", "fp16", "fp32", false, 1.0},
    {"A100", "fp16", "a100", "fp16", "fp16", false, 1.0},
    {"A100", "bf16", "a100", "bf16", "fp32", false, 1.0},
    {"A100", "tf32", "a100", "tf32", "fp32", false, 1.0},
    {"Ada", "fp16", "l40s", "fp16", "fp32", false, 1.0},
    {"Ada", "fp16", "l40s", "fp16", "fp16", false, 1.0},
    {"Ada", "bf16", "l40s", "bf16", "fp32", false, 1.0},
    {"Ada", "tf32", "l40s", "tf32", "fp32", false, 1.0},
    {"Ada", "E4M3", "l40s", "e4m3", "fp32", false, 1.0},
    {"Ada", "E4M3", "l40s", "e4m3", "fp16", false, 1.0},
    {"Ada", "E5M2", "l40s", "e5m2", "fp32", false, 1.0},
    {"Ada", "E5M2", "l40s", "e5m2", "fp16", false, 1.0},
    {"H100", "fp16", "h100", "fp16", "fp32", false, 1.0},
    {"H100", "fp16", "h100", "fp16", "fp16", false, 1.0},
    {"H100", "bf16", "h100", "bf16", "fp32", false, 1.0},
    {"H100", "tf32", "h100", "tf32", "fp32", false, 1.0},
    {"H100", "E4M3", "h100", "e4m3", "fp32", true, 1.0},
    {"H100", "E4M3", "h100", "e4m3", "fp16", false, 1.0},  // fp16-tensor-core emulation (docs/research)
    {"H100", "E5M2", "h100", "e5m2", "fp32", true, 1.0},
    {"H100", "E5M2", "h100", "e5m2", "fp16", false, 1.0},
};

std::uint32_t parse_binary_line(const std::string& s) {
  std::uint32_t v = 0;
  for (char ch : s)
    if (ch == '0' || ch == '1') v = (v << 1) | static_cast<std::uint32_t>(ch - '0');
  return v;
}

std::vector<std::uint64_t> parse_hex_line(const std::string& s, const Format& in) {
  std::vector<std::uint64_t> v;
  std::istringstream is(s);
  std::string tok;
  while (is >> tok) {
    const auto b32 = static_cast<std::uint32_t>(std::stoul(tok, nullptr, 16));
    v.push_back(round_bits(decode(formats::fp32(), b32), in, Rounding::NearestEven));
  }
  return v;
}

bool same(const Format& f, std::uint64_t x, std::uint64_t y) {
  if (classify(f, x) == FpClass::NaN && classify(f, y) == FpClass::NaN) return true;
  return x == y;
}

}  // namespace

TEST_CASE("real GPU data: built-in units reproduce the first lines of every data file", "[data]") {
  const std::string dir = tcsim::test::gpu_data_dir();
  if (!std::filesystem::exists(dir + "/V100")) {
    WARN("real-GPU data not found in '" << dir << "' (set TCSIM_GPU_DATA); skipped");
    return;
  }
  const std::size_t lines = static_cast<std::size_t>(tcsim::test::count(200));
  for (const Case& cs : kCases) {
    const std::string base = dir + "/" + cs.gpu + "/" + cs.folder + "/";
    const std::string tag = std::string(cs.gpu) + "/" + cs.folder;
    auto A = read_lines(base + "a_" + cs.gpu + "_" + cs.folder + ".txt", lines);
    auto B = read_lines(base + "b_" + cs.gpu + "_" + cs.folder + ".txt", lines);
    auto C = read_lines(base + "c_" + cs.gpu + "_fp32.txt", lines);
    auto D = read_lines(base + "d_" + cs.gpu + "_" + cs.out + ".txt", lines);
    if (A.empty() || D.empty()) {
      WARN("missing data files for " << tag << " " << cs.out);
      continue;
    }
    const Unit& unit = builtin_unit(cs.unit);
    const Format& in = parse_format(cs.in);
    const Format& out = parse_format(cs.out);
    std::size_t match = 0, n = std::min({A.size(), B.size(), C.size(), D.size()});
    std::string first_mismatch;
    for (std::size_t i = 0; i < n; ++i) {
      const auto a = parse_hex_line(A[i], in), b = parse_hex_line(B[i], in);
      const ExactValue c32 = decode(formats::fp32(), parse_binary_line(C[i]));
      const std::uint64_t c = cs.c_is_zero ? 0 : round_bits(c32, out, Rounding::NearestEven);
      const std::uint64_t want = round_bits(decode(formats::fp32(), parse_binary_line(D[i])), out, Rounding::NearestEven);
      const std::uint64_t got = unit.dot(in, out, a, b, c);
      if (same(out, got, want)) ++match;
      else if (first_mismatch.empty())
        first_mismatch = "line " + std::to_string(i + 1) + ": got " + hex(out, got) + " want " + hex(out, want);
    }
    const double rate = n ? static_cast<double>(match) / static_cast<double>(n) : 0.0;
    std::printf("[data] %-10s %s -> %s via %s: %zu / %zu match (%.1f %%)%s%s\n", tag.c_str(), cs.in, cs.out,
                cs.unit, match, n, 100.0 * rate, first_mismatch.empty() ? "" : "; first mismatch ",
                first_mismatch.c_str());
    INFO(tag << " " << cs.in << " -> " << cs.out << ": " << match << " / " << n << " " << first_mismatch);
    CHECK(rate >= cs.min_rate);
  }
}

// The same files, every line, through the fast paths: dot_batch (the block kernel's pattern
// path) and gemm (its tile path: each case a 1 x 1 GEMM), both against the hardware.
TEST_CASE("real GPU data: the block kernel's batch and GEMM paths reproduce every line", "[data][kernel]") {
  const std::string dir = tcsim::test::gpu_data_dir();
  if (!std::filesystem::exists(dir + "/V100")) {
    WARN("real-GPU data not found in '" << dir << "' (set TCSIM_GPU_DATA); skipped");
    return;
  }
  const std::size_t lines = static_cast<std::size_t>(tcsim::test::count(1000000));
  std::size_t files = 0;
  for (const Case& cs : kCases) {
    const std::string base = dir + "/" + cs.gpu + "/" + cs.folder + "/";
    const std::string tag = std::string(cs.gpu) + "/" + cs.folder + " -> " + cs.out;
    auto A = read_lines(base + "a_" + cs.gpu + "_" + cs.folder + ".txt", lines);
    auto B = read_lines(base + "b_" + cs.gpu + "_" + cs.folder + ".txt", lines);
    auto C = read_lines(base + "c_" + cs.gpu + "_fp32.txt", lines);
    auto D = read_lines(base + "d_" + cs.gpu + "_" + cs.out + ".txt", lines);
    const std::size_t n = std::min({A.size(), B.size(), C.size(), D.size()});
    if (n == 0) {
      WARN("missing data files for " << tag);
      continue;
    }
    ++files;
    const Unit& unit = builtin_unit(cs.unit);
    const Format& in = parse_format(cs.in);
    const Format& out = parse_format(cs.out);
    const std::size_t K = parse_hex_line(A[0], in).size();
    std::vector<std::uint64_t> a(n * K), b(n * K), c(n), want(n), got(n);
    for (std::size_t i = 0; i < n; ++i) {
      const auto ai = parse_hex_line(A[i], in), bi = parse_hex_line(B[i], in);
      REQUIRE(ai.size() == K);
      REQUIRE(bi.size() == K);
      std::copy(ai.begin(), ai.end(), a.begin() + static_cast<std::ptrdiff_t>(i * K));
      std::copy(bi.begin(), bi.end(), b.begin() + static_cast<std::ptrdiff_t>(i * K));
      c[i] = cs.c_is_zero ? 0 : round_bits(decode(formats::fp32(), parse_binary_line(C[i])), out, Rounding::NearestEven);
      want[i] = round_bits(decode(formats::fp32(), parse_binary_line(D[i])), out, Rounding::NearestEven);
    }
    unit.dot_batch(in, out, n, K, a.data(), b.data(), c.data(), got.data(), "", 2);
    std::size_t batch_bad = 0, planar_bad = 0, gemm_bad = 0;
    for (std::size_t i = 0; i < n; ++i) batch_bad += !same(out, got[i], want[i]);
    // The planar layout (16-bit patterns, product-major) where the input format fits.
    std::string planar_path = "(wider than 16 bits)";
    if (in.width <= 16) {
      std::vector<std::uint16_t> at(n * K), bt(n * K);
      for (std::size_t t = 0; t < K; ++t)
        for (std::size_t i = 0; i < n; ++i) {
          at[t * n + i] = static_cast<std::uint16_t>(a[i * K + t]);
          bt[t * n + i] = static_cast<std::uint16_t>(b[i * K + t]);
        }
      unit.dot_batch_planar(in, out, n, K, at.data(), bt.data(), c.data(), got.data(), "", 2);
      for (std::size_t i = 0; i < n; ++i) planar_bad += !same(out, got[i], want[i]);
      planar_path = unit.batch_path_planar(in, out);
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::vector<std::uint64_t> d =
          unit.gemm(in, out, 1, 1, K, {a.data() + i * K, K}, {b.data() + i * K, K}, {c.data() + i, 1}, "", 1);
      gemm_bad += !same(out, d[0], want[i]);
    }
    std::printf("[data-kernel] %-18s %zu lines via %s [%s; planar: %s]: batch %zu mismatches, planar %zu, gemm %zu\n",
                tag.c_str(), n, cs.unit, unit.batch_path(in, out).c_str(), planar_path.c_str(), batch_bad, planar_bad,
                gemm_bad);
    INFO(tag);
    CHECK(batch_bad == 0);
    CHECK(planar_bad == 0);
    CHECK(gemm_bad == 0);
  }
  CHECK(files == std::size(kCases));
}
