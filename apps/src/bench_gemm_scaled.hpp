// tcsim bench gemm on block-scaled rows (b200 tcgen05.mxf8f6f4 / mxf4nvf4, rtx5090
// mma.sync.mxf8f6f4 / mxf4nvf4): the GEMM runs Unit::gemm_scaled with random scales, the
// sample is checked against Unit::dot_scaled.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tcsim/models/unit.hpp"

namespace tcsim::cli {

// Random scales of a block-scaled row: the row's first scale format and block size, each
// scale a pattern whose value is in [2^-4, 2^4] (uniform over those patterns), from `seed`.
struct BenchScales {
  const Format* format = nullptr;
  int block_size = 0;
  std::vector<std::uint64_t> a, b;  // m x ceil(k/bs), ceil(k/bs) x n
  std::string label;                // "gemm_scaled, random ue8m0 scales in [2^-4, 2^4] per 16"
};

// nullopt when the row of (in, out, instruction) is not block-scaled.
std::optional<BenchScales> bench_scales(const models::Unit& unit, const Format& in, const Format& out,
                                        const std::string& instruction, std::size_t m, std::size_t n, std::size_t k,
                                        std::uint64_t seed);

// D = C + A B: Unit::gemm_into, or Unit::gemm_scaled with `scales`.
void bench_gemm_run(const models::Unit& unit, const Format& in, const Format& out, std::size_t m, std::size_t n,
                    std::size_t k, std::span<const std::uint64_t> A, std::span<const std::uint64_t> B,
                    std::span<const std::uint64_t> C, std::span<std::uint64_t> D, const std::string& instruction,
                    unsigned threads, const std::optional<BenchScales>& scales);

// Entry (i, j) by the reference path: Unit::dot, or Unit::dot_scaled with the scales.
std::uint64_t bench_gemm_entry(const models::Unit& unit, const Format& in, const Format& out, std::size_t n,
                               std::size_t k, std::span<const std::uint64_t> A, std::span<const std::uint64_t> B,
                               std::span<const std::uint64_t> C, const std::string& instruction,
                               const std::optional<BenchScales>& scales, std::size_t i, std::size_t j);

// The GEMM's path from Unit::batch_path (which names dot_batch's): rows with group sums
// (mxf4nvf4) run the group tiles in gemm_scaled (models/src/unit_gemm_scaled.cpp, for the
// built-in rows' scale formats and block sizes) and the binary64 group lanes in gemm. Defined
// in gemm_scaled.cpp: the Python package (tcsim_cli_core) reports it too.
std::string gemm_group_path(const std::string& batch_path, bool scaled);

}  // namespace tcsim::cli
