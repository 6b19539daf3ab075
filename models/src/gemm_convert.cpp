// Conversions of binary64 matrices into the unit's formats and the exact host arithmetic of
// the fp16/fp32 variants and the slice sums (gemm_impl.hpp).
#include <sys/mman.h>

#include <bit>
#include <cmath>
#include <limits>

#include "gemm_impl.hpp"
#include "tcsim/sim/codec.hpp"

namespace tcsim::models::gemm_detail {

void advise_huge_pages(const void* data, std::size_t bytes) {
  constexpr std::uintptr_t kHuge = std::uintptr_t{1} << 21;
  const auto begin = (reinterpret_cast<std::uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // failure: 4 KiB pages
}

Bits convert(std::span<const double> v, const Converter& c, unsigned threads) {
  Bits out = huge_vector<std::uint64_t>(v.size());
  parallel_ranges(threads, v.size(), 1 << 14, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) out[i] = c(v[i]);
  });
  return out;
}

std::vector<double> values_of(const Bits& bits, const Format& f, unsigned threads) {
  std::vector<double> v = huge_vector<double>(bits.size());
  const bool fp32 = f == formats::fp32(), fp64 = f == formats::fp64();
  const Decoder decode(f);
  parallel_ranges(threads, bits.size(), 1 << 14, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      if (fp32)
        v[i] = std::bit_cast<float>(static_cast<std::uint32_t>(bits[i]));
      else if (fp64)
        v[i] = std::bit_cast<double>(bits[i]);
      else
        v[i] = decode(bits[i]);
    }
  });
  return v;
}

}  // namespace tcsim::models::gemm_detail
