// The SIMD lanes of the AMD kernels (AfterAddKernel, ExactBlockKernel; sim/src/amd_lanes.cpp)
// against the reference FixedPointAdder: batches through run() (every lane busy, padding lanes,
// unsure lanes taking the scalar block) and GEMM tiles through gemm_operands/gemm_tile (blocks
// chained over K in instructions, edges of tiles). Shared by test_after_add.cpp and
// test_exact_block.cpp.
#pragma once
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <hwy/targets.h>

#include "operand_gen.hpp"
#include "tcsim/sim/adder.hpp"

namespace tcsim::reftest {

// Fills one element: a, b (k patterns each) and c.
using LaneFill = void (*)(const Format& fa, const Format& fb, Rng& r, std::uint64_t* a, std::uint64_t* b,
                          std::size_t k, std::uint64_t& c);

struct LaneTally {
  std::uint64_t cases = 0, mismatches = 0;
};

inline void lane_mismatch(LaneTally& t, const std::string& label, const AdderConfig& cfg, std::size_t len,
                          const std::uint64_t* a, const std::uint64_t* b, std::size_t k, std::uint64_t c,
                          std::uint64_t got, std::uint64_t want) {
  if (t.mismatches++ >= 5) return;
  std::printf("[amd-lanes] MISMATCH %s len %zu: a = %s b = %s c = 0x%08llx: %08llx, want %08llx\n", label.c_str(), len,
              hex_list(cfg.a_format, a, k).c_str(), hex_list(cfg.b_format, b, k).c_str(),
              static_cast<unsigned long long>(c), static_cast<unsigned long long>(got),
              static_cast<unsigned long long>(want));
}

// run() on batches of 1..300 elements (a few blocks padded: len < k) against ref.dot.
template <class Kernel>
LaneTally lanes_batches(const Kernel& kern, const FixedPointAdder& ref, std::size_t k, LaneFill fill, Rng& r,
                        std::uint64_t total, const std::string& label) {
  const AdderConfig& cfg = ref.config();
  LaneTally t;
  std::vector<std::uint64_t> a, b, c, d, pa(k), pb(k);
  while (t.cases < total) {
    const std::size_t n = 1 + static_cast<std::size_t>(r.below(300));
    const std::size_t len = r.below(4) ? k : static_cast<std::size_t>(r.below(k + 1));
    a.assign(n * k, 0), b.assign(n * k, 0), c.assign(n, 0), d.assign(n, 0);
    for (std::size_t e = 0; e < n; ++e) fill(cfg.a_format, cfg.b_format, r, a.data() + e * k, b.data() + e * k, k, c[e]);
    kern.run(n, len, a.data(), k, b.data(), k, c.data(), d.data());
    for (std::size_t e = 0; e < n; ++e) {
      for (std::size_t s = 0; s < k; ++s) pa[s] = s < len ? a[e * k + s] : 0, pb[s] = s < len ? b[e * k + s] : 0;
      const std::uint64_t want = ref.dot(pa, pb, c[e]);
      if (d[e] != want) lane_mismatch(t, label, cfg, len, a.data() + e * k, b.data() + e * k, k, c[e], d[e], want);
    }
    t.cases += n;
  }
  return t;
}

// gemm_tile over a small GEMM (m, n, K random; K = 0 included; instructions of K or of k
// products) in tiles of up to 7 rows and 16 or 32 columns, against each element's chain of
// ref.dot blocks. Rows of A and columns of B are filled as elements (fill), C likewise.
template <class Kernel>
LaneTally lanes_gemm(const Kernel& kern, const FixedPointAdder& ref, std::size_t k, LaneFill fill, Rng& r,
                     std::uint64_t total, const std::string& label) {
  const AdderConfig& cfg = ref.config();
  LaneTally t;
  while (t.cases < total) {
    const std::size_t m = 1 + r.below(20), n = 1 + r.below(70), K = r.below(3 * k + 2);
    const std::size_t group = r.below(2) ? std::max<std::size_t>(K, 1) : k;
    const std::size_t KK = std::max<std::size_t>(K, 1);
    std::vector<std::uint64_t> A(m * KK), Bt(n * KK), B(KK * n), C(m * n), D(m * n, 0), scratch(KK);
    std::uint64_t ignored = 0;
    for (std::size_t i = 0; i < m; ++i) fill(cfg.a_format, cfg.b_format, r, A.data() + i * KK, scratch.data(), KK, C[i * n]);
    for (std::size_t j = 0; j < n; ++j) fill(cfg.a_format, cfg.b_format, r, scratch.data(), Bt.data() + j * KK, KK, ignored);
    for (std::size_t e = 0; e < m * n; ++e)
      if (e % n) fill(cfg.a_format, cfg.b_format, r, scratch.data(), scratch.data(), KK, C[e]);
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t s = 0; s < K; ++s) B[s * n + j] = Bt[j * KK + s];
    // A (m x K) and B (K x n) as Unit::gemm passes them.
    std::vector<std::uint64_t> Ak(m * K);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t s = 0; s < K; ++s) Ak[i * K + s] = A[i * KK + s];
    const auto ops = kern.gemm_operands(m, n, K, Ak.data(), B.data());
    const std::size_t tile_rows = 1 + r.below(7), tile_cols = r.below(2) ? 16 : 32;
    for (std::size_t i0 = 0; i0 < m; i0 += tile_rows)
      for (std::size_t j0 = 0; j0 < n; j0 += tile_cols)
        kern.gemm_tile(ops, i0, std::min(m, i0 + tile_rows) - i0, j0, std::min(n, j0 + tile_cols) - j0, group,
                       C.data(), D.data());
    std::vector<std::uint64_t> pa(k), pb(k), col(KK);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        std::uint64_t acc = C[i * n + j];
        std::size_t start = 0;
        do {  // the chain of Unit::dot: instructions of `group`, blocks of k, K = 0 one block
          const std::size_t end = std::min(K, start + group);
          std::size_t pos = start;
          do {
            const std::size_t len = std::min(k, end - pos);
            for (std::size_t s = 0; s < k; ++s)
              pa[s] = s < len ? Ak[i * K + pos + s] : 0, pb[s] = s < len ? B[(pos + s) * n + j] : 0;
            acc = ref.dot(pa, pb, acc);
            pos += len;
          } while (pos < end);
          start = end;
        } while (start < K);
        if (D[i * n + j] != acc) {
          for (std::size_t s = 0; s < K; ++s) col[s] = B[s * n + j];
          lane_mismatch(t, label + " gemm K " + std::to_string(K), cfg, K, Ak.data() + i * K, col.data(), K,
                        C[i * n + j], D[i * n + j], acc);
        }
      }
    t.cases += m * n;
  }
  return t;
}

// run() on batches and gemm_tile of one configuration, one line of output under `tag`.
template <class Kernel>
LaneTally lanes_batches_and_gemm(const char* tag, const Kernel& kern, const FixedPointAdder& ref, std::size_t k,
                                 LaneFill fill, Rng& r, std::uint64_t total, std::uint64_t gemm_total,
                                 const std::string& label) {
  const LaneTally tb = lanes_batches(kern, ref, k, fill, r, total, label);
  const LaneTally tg = lanes_gemm(kern, ref, k, fill, r, gemm_total, label);
  std::printf("[%s] %-36s batches %llu cases, %llu mismatches; gemm %llu outputs, %llu mismatches\n", tag,
              label.c_str(), static_cast<unsigned long long>(tb.cases), static_cast<unsigned long long>(tb.mismatches),
              static_cast<unsigned long long>(tg.cases), static_cast<unsigned long long>(tg.mismatches));
  return {tb.cases + tg.cases, tb.mismatches + tg.mismatches};
}

// fn(name) with each compiled SIMD target this CPU runs (AVX-512, AVX2, SSE4, SSSE3, EMU128...)
// forced in turn, then the CPU's own again.
template <class Fn>
void for_each_simd_target(const char* tag, const Fn& fn) {
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string name = hwy::TargetName(target);
    fn(name);
    std::printf("[%s] target %s done\n", tag, name.c_str());
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace tcsim::reftest
