// The per-thread cache of large GEMM planes (tcsim/sim/panel_cache.hpp).
#include "tcsim/sim/panel_cache.hpp"

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

namespace tcsim {

void* PanelCache::take(std::size_t bytes) {
  for (auto it = kept_.begin(); it != kept_.end(); ++it)
    if (it->bytes == bytes) {
      void* p = it->p;
      kept_bytes_ -= bytes;
      kept_.erase(it);
#ifdef TCSIM_PANEL_POISON
      std::memset(p, 0xA5, bytes);
#endif
      return p;
    }
  void* p = std::aligned_alloc(kHuge, bytes);
  if (p) madvise(p, bytes, MADV_HUGEPAGE);  // advice only: failure changes nothing
  return p;
}

void PanelCache::give(void* p, std::size_t bytes) {
  if (bytes > kKeptLimit) {
    std::free(p);
    return;
  }
  // Room for it: the largest kept planes go first (the next GEMM of this shape wants this one).
  while (kept_bytes_ + bytes > kKeptLimit) {
    auto largest =
        std::max_element(kept_.begin(), kept_.end(), [](const Kept& x, const Kept& y) { return x.bytes < y.bytes; });
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

namespace {
// Set when the thread's cache is destroyed (a trivially destructible thread_local stays readable
// until the thread's storage goes): planes freed after that, by objects destroyed later at the
// thread's or the program's exit, go straight to free().
thread_local bool cache_gone = false;

struct ThreadCache {
  PanelCache cache;
  ~ThreadCache() { cache_gone = true; }
};
}  // namespace

PanelCache& PanelCache::of_this_thread() {
  thread_local ThreadCache slot;
  return slot.cache;
}

namespace {
std::size_t rounded_plane(std::size_t bytes) {
  return bytes < PanelCache::kHuge ? 0 : (bytes + PanelCache::kHuge - 1) / PanelCache::kHuge * PanelCache::kHuge;
}
}  // namespace

void* panel_allocate(std::size_t bytes) {
  // A large plane is always a cache-sized one (panel_free gives it to the cache by its size).
  const std::size_t r = rounded_plane(bytes);
  void* p = !r ? std::malloc(bytes ? bytes : 1)
            : cache_gone ? std::aligned_alloc(PanelCache::kHuge, r)
                         : PanelCache::of_this_thread().take(r);
  if (!p) throw std::bad_alloc();
  return p;
}

void panel_free(void* p, std::size_t bytes) {
  if (!p) return;
  if (const std::size_t r = rounded_plane(bytes); r && !cache_gone) PanelCache::of_this_thread().give(p, r);
  else std::free(p);
}

}  // namespace tcsim
