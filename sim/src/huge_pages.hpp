// Planes that ask for 2 MiB pages before their first touch (the AMD kernels' decoded GEMM
// operands, sim after_add.cpp and exact_block.cpp). Those planes are PanelVector or
// PanelAllocator vectors now (tcsim/sim/panel_cache.hpp: 2 MiB-aligned, advised and kept by the
// thread from 2 MiB on); the advice here still covers smaller planes' aligned interiors (none).
#pragma once

#include <cstdint>
#include <vector>

#include <sys/mman.h>

namespace tcsim {

// Reserves a plane at its final size (one allocation) and asks for 2 MiB pages over its aligned interior before the first touch:
// a fault per 2 MiB instead of per 4 KiB (page faults cost much in a VM; advice only).
template <class T, class Alloc>
void reserve_huge(std::vector<T, Alloc>& v, std::size_t count) {
  constexpr std::uintptr_t kHuge = std::uintptr_t{1} << 21;
  v.reserve(count);
  const auto lo = (reinterpret_cast<std::uintptr_t>(v.data()) + kHuge - 1) & ~(kHuge - 1);
  const auto hi = (reinterpret_cast<std::uintptr_t>(v.data() + count)) & ~(kHuge - 1);
  if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
}

}  // namespace tcsim
