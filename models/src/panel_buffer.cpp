// The GEMMs' panel buffers and the per-thread cache of the large ones (panel_buffer.hpp).
#include "panel_buffer.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#define TCSIM_PANEL_POISON 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TCSIM_PANEL_POISON 1
#endif
#endif

namespace tcsim::models::detail {

void* PanelCache::take(std::size_t bytes, std::size_t& got) {
  auto best = kept_.end();
  for (auto it = kept_.begin(); it != kept_.end(); ++it)
    if (it->bytes >= bytes && (best == kept_.end() || it->bytes < best->bytes)) best = it;
  if (best != kept_.end()) {
    void* p = best->p;
    got = best->bytes;
    kept_bytes_ -= best->bytes;
    kept_.erase(best);
#ifdef TCSIM_PANEL_POISON
    std::memset(p, 0xA5, got);
#endif
    return p;
  }
  void* p = std::aligned_alloc(kHuge, bytes);
  if (!p) return nullptr;
  madvise(p, bytes, MADV_HUGEPAGE);  // advice only: failure changes nothing
  got = bytes;
  return p;
}

void PanelCache::give(void* p, std::size_t bytes) {
  if (bytes > kKeptLimit) {
    std::free(p);
    return;
  }
  // Room for it: the largest kept buffers go first (the next GEMM of this shape wants this one).
  while (kept_bytes_ + bytes > kKeptLimit) {
    auto largest = std::max_element(kept_.begin(), kept_.end(),
                                    [](const Kept& x, const Kept& y) { return x.bytes < y.bytes; });
    kept_bytes_ -= largest->bytes;
    std::free(largest->p);
    kept_.erase(largest);
  }
  kept_.push_back({p, bytes});
  kept_bytes_ += bytes;
}

void PanelCache::release() {
  for (const Kept& k : kept_) std::free(k.p);
  kept_.clear();
  kept_bytes_ = 0;
}

PanelCache& PanelCache::of_this_thread() {
  thread_local PanelCache cache;
  return cache;
}

void* panel_allocate(std::size_t bytes, std::size_t& cached_bytes) {
  cached_bytes = 0;
  void* p = nullptr;
  if (bytes >= PanelCache::kHuge) {
    const std::size_t rounded = (bytes + PanelCache::kHuge - 1) / PanelCache::kHuge * PanelCache::kHuge;
    p = PanelCache::of_this_thread().take(rounded, cached_bytes);
  }
  if (!p) p = std::malloc(bytes);
  if (!p) throw std::bad_alloc();
  return p;
}

void panel_free(void* p, std::size_t cached_bytes) {
  if (cached_bytes) PanelCache::of_this_thread().give(p, cached_bytes);
  else std::free(p);
}

}  // namespace tcsim::models::detail
