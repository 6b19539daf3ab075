// What the benches share (cmd_bench.cpp, bench_gemm_rows.cpp, bench_dot_rows.cpp,
// bench_verify.cpp): the built-in row list of --all-rows, their random inputs, the product-major
// copy of dot_batch_planar, the timing loop of bench dot, the native baseline on a row's
// formats, and the process's memory figures and load average.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "native_gemm.hpp"
#include "tcsim/models/unit.hpp"

namespace tcsim::cli {

// One line of `tcsim bench gemm --all-rows` and `tcsim bench dot --all-rows`: a datapath row of a
// built-in unit for one format pair, with every instruction it serves ("" if none named).
struct BenchRow {
  const models::Unit* unit = nullptr;
  const Format* in = nullptr;
  const Format* out = nullptr;
  std::vector<std::string> instructions;
  std::string label() const;  // "h100 fp16->fp32 mma.sync.m16n8k16" (progress lines)
  nlohmann::json json() const;  // unit, in, out, instruction (the first), instructions: a --json row's start
};

// Every built-in unit's (or `only`'s) format pairs, one row per datapath: the instructions that
// share a datapath (a generic row serving several) are one row, listed in the unit's order.
std::vector<BenchRow> builtin_bench_rows(const models::Unit* only);

// "a, b, (generic)": the instructions column of the --all-rows tables.
std::string join_instructions(const std::vector<std::string>& instructions);

// A finite value of `f` with leading exponent in [lo, hi] (clamped to the format's normal
// range), random sign and fraction from counter_random(seed, index++): the GPU dumps' kind of
// data, the inputs of `tcsim bench dot`.
std::uint64_t bench_random_value(const Format& f, std::uint64_t seed, std::uint64_t& index, int lo, int hi);

// The 64 random bits `random` as a value uniform in (-1, 1), rounded to nearest even into `f`:
// the inputs of `tcsim bench gemm`.
std::uint64_t bench_uniform_value(const Format& f, std::uint64_t random);

// Storage on 64-byte boundaries (cache lines). Where malloc puts a large array (16 bytes past a
// page when mapped; on any 16 bytes from the heap, depending on what ran before) moved the
// mxf4nvf4 dot_batch_planar rate by up to 1.3 x from run to run: every 64-byte load then spans
// two lines (issue 25, dotf4). The benches time the kernel, not that draw.
template <class T>
struct LineAligned {
  using value_type = T;
  LineAligned() = default;
  template <class U>
  LineAligned(const LineAligned<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{64})); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t{64}); }
  template <class U>
  bool operator==(const LineAligned<U>&) const { return true; }
};
using Planar16 = std::vector<std::uint16_t, LineAligned<std::uint16_t>>;

// x[e K + t] (n elements of K, element-major) as product-major 16-bit patterns [t n + e]: the
// operands of dot_batch_planar, on a 64-byte boundary.
Planar16 product_major16(const std::uint64_t* x, std::size_t n, std::size_t K);

// `call` (n elements) once to warm up, then repeated until min_seconds have passed: elements
// per second and the number of timed calls.
struct BenchRate {
  double per_second = 0;
  std::size_t runs = 0;
};
template <class Call>
BenchRate measure_rate(const Call& call, std::size_t n, double min_seconds) {
  call();  // warm-up
  std::size_t runs = 0;
  double elapsed = 0;
  while (elapsed < min_seconds) {
    const auto t0 = std::chrono::steady_clock::now();
    call();
    elapsed += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++runs;
  }
  return {static_cast<double>(runs * n) / elapsed, runs};
}

// The native baseline of a GEMM on patterns of `in` (A n x k, B k x n) and `out` (C n x n):
// Eigen's binary64 GEMM if `binary64`, else binary32, on the values, best of 3 runs.
NativeGemm native_baseline(const Format& in, const Format& out, bool binary64, std::size_t n, std::size_t k,
                           const std::vector<std::uint64_t>& A, const std::vector<std::uint64_t>& B,
                           const std::vector<std::uint64_t>& C, unsigned threads);

// /proc/self/status fields in bytes (0 where unreadable); reset_peak_resident() resets VmHWM
// (writing 5 to /proc/self/clear_refs, Linux) so that one GEMM's peak can be read, after
// freeing the planes this thread kept from earlier GEMMs (tcsim/sim/panel_cache.hpp).
std::size_t status_field_bytes(const char* field);
void reset_peak_resident();
// /proc/loadavg's first three fields ("1.52 1.40 1.31"; "" where unreadable).
std::string load_average_text();

}  // namespace tcsim::cli
