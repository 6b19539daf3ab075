// Block-scaled rows in tcsim bench gemm (bench_gemm_scaled.hpp).
#include "bench_gemm_scaled.hpp"

#include <algorithm>
#include <cmath>

#include "tcsim/sim/adder.hpp"
#include "tcsim/sim/codec.hpp"

namespace tcsim::cli {

std::optional<BenchScales> bench_scales(const models::Unit& unit, const Format& in, const Format& out,
                                        const std::string& instruction, std::size_t m, std::size_t n, std::size_t k,
                                        std::uint64_t seed) {
  const models::DatapathSpec& row = unit.datapath(in, out, instruction);
  if (!row.block_scale) return std::nullopt;
  BenchScales s;
  s.format = &parse_format(row.block_scale->scale_formats.front(), "scale_format");
  s.block_size = row.block_scale->block_sizes.front();
  std::vector<std::uint64_t> pool;  // the patterns with values in [2^-4, 2^4]
  for (std::uint64_t b = 0; b <= s.format->width_mask(); ++b) {
    const ExactValue v = decode(*s.format, b);
    if (v.is_nan() || v.is_inf()) continue;
    const double x = to_double(v);
    if (x >= 0x1p-4 && x <= 0x1p4) pool.push_back(b);
  }
  const std::size_t nb = (k + static_cast<std::size_t>(s.block_size) - 1) / static_cast<std::size_t>(s.block_size);
  s.a.resize(m * nb);
  s.b.resize(nb * n);
  std::uint64_t index = 0;
  for (auto& x : s.a) x = pool[counter_random(seed + 11, index++) % pool.size()];
  for (auto& x : s.b) x = pool[counter_random(seed + 11, index++) % pool.size()];
  s.label = "gemm_scaled, random " + s.format->name + " scales in [2^-4, 2^4] per " + std::to_string(s.block_size);
  return s;
}

void bench_gemm_run(const models::Unit& unit, const Format& in, const Format& out, std::size_t m, std::size_t n,
                    std::size_t k, std::span<const std::uint64_t> A, std::span<const std::uint64_t> B,
                    std::span<const std::uint64_t> C, std::span<std::uint64_t> D, const std::string& instruction,
                    unsigned threads, const std::optional<BenchScales>& scales) {
  if (!scales) return unit.gemm_into(in, out, m, n, k, A, B, C, D, instruction, threads);
  const std::vector<std::uint64_t> r = unit.gemm_scaled(in, out, m, n, k, A, B, C, *scales->format, scales->a,
                                                        scales->b, scales->block_size, instruction, threads);
  std::copy(r.begin(), r.end(), D.begin());
}

std::uint64_t bench_gemm_entry(const models::Unit& unit, const Format& in, const Format& out, std::size_t n,
                               std::size_t k, std::span<const std::uint64_t> A, std::span<const std::uint64_t> B,
                               std::span<const std::uint64_t> C, const std::string& instruction,
                               const std::optional<BenchScales>& scales, std::size_t i, std::size_t j) {
  std::vector<std::uint64_t> column(k);
  for (std::size_t t = 0; t < k; ++t) column[t] = B[t * n + j];
  const auto a = A.subspan(i * k, k);
  if (!scales) return unit.dot(in, out, a, column, C[i * n + j], instruction);
  const std::size_t bs = static_cast<std::size_t>(scales->block_size), nb = (k + bs - 1) / bs;
  std::vector<std::uint64_t> sa(scales->a.begin() + static_cast<std::ptrdiff_t>(i * nb),
                                scales->a.begin() + static_cast<std::ptrdiff_t>((i + 1) * nb));
  std::vector<std::uint64_t> sb(nb);
  for (std::size_t q = 0; q < nb; ++q) sb[q] = scales->b[q * n + j];
  return unit.dot_scaled(in, out, a, column, *scales->format, sa, sb, C[i * n + j], scales->block_size, instruction);
}

}  // namespace tcsim::cli
