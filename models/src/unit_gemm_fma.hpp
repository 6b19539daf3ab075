// Private to models/src: the GEMM of the fma-chain rows (detail::is_fma_chain: IEEE binary32
// or binary64 FMA chains in index order), in the SIMD lanes of sim's fma_lanes.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tcsim::models::detail {

// D = C + A B (row-major patterns: A m x K, B K x n, C and D m x n) as each element's chain
// fma(a_t, b_t, .) from c in t order, then the +0 padding products of the last block of k
// (K = 0: one block of them), exactly as detail::fma_chain; a NaN result is `nan`. binary32:
// std::fmaf's operation on the low 32 bits of each pattern, else binary64. Tasks of 16 rows x
// 256 columns as TBB tasks (`threads` as Unit::gemm): the bits do not depend on the count.
void gemm_fma_chain(bool binary32, std::size_t k, std::size_t m, std::size_t n, std::size_t K,
                    const std::uint64_t* A, const std::uint64_t* B, const std::uint64_t* C, std::uint64_t* D,
                    std::uint64_t nan, unsigned threads);

}  // namespace tcsim::models::detail
