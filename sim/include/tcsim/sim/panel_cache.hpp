// Large uninitialized planes of the GEMMs (decoded operands, packed copies), kept by the calling
// thread for its next GEMM (issue 25, session 38). A fresh plane costs a page fault and the
// kernel's zero fill per 2 MiB on every call: 5-9 such faults per n = 1024 h100 fp16 GEMM, and
// runs of 20 to 30 ms where kept planes gave 20.0-20.5 ms (docs/performance.md "Session 38").
// A native GEMM's small blocking buffers pay that once.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <vector>

namespace tcsim {

// The large planes one thread keeps between its GEMMs: at most kKeptLimit bytes, in whole
// 2 MiB pages with transparent huge pages requested. Per thread (thread_local), so no locks
// and nothing shared between threads; freed when the thread ends. Under AddressSanitizer a
// plane taken again is filled with a pattern first, so that a read before a write shows as
// wrong bits in the sanitizer pass.
class PanelCache {
 public:
  static constexpr std::size_t kHuge = std::size_t{1} << 21;
  // A GEMM of n = 1024 (k = 1024) needs about 20 MiB; larger GEMMs' n^3 work dwarfs their faults.
  static constexpr std::size_t kKeptLimit = std::size_t{64} << 20;

  // A plane of `bytes` (a multiple of kHuge): a kept one of that size, else a new one (null if
  // the system has none). Sizes match exactly, so that a plane's size is known again from the
  // request when it comes back (panel_free, PanelAllocator::deallocate).
  void* take(std::size_t bytes);
  // Keeps `p` (of `bytes`) within the limit, the largest kept planes freed first; else frees it.
  void give(void* p, std::size_t bytes);
  void release();  // frees every kept plane
  std::size_t kept_bytes() const { return kept_bytes_; }
  std::size_t kept_count() const { return kept_.size(); }
  ~PanelCache() { release(); }

  static PanelCache& of_this_thread();

 private:
  struct Kept {
    void* p;
    std::size_t bytes;
  };
  std::vector<Kept> kept_;
  std::size_t kept_bytes_ = 0;
};

// Raw planes: of this thread's cache from 2 MiB on (rounded up to whole 2 MiB), malloc below.
void* panel_allocate(std::size_t bytes);
void panel_free(void* p, std::size_t bytes);  // the same `bytes` as allocated

// An allocator on panel_allocate: std::vector<T, PanelAllocator<T>> keeps its large planes in
// the thread's cache (elements value-initialized on resize, as std::allocator's).
template <class T>
struct PanelAllocator {
  using value_type = T;
  PanelAllocator() = default;
  template <class U>
  PanelAllocator(const PanelAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(panel_allocate(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { panel_free(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const PanelAllocator<U>&) const noexcept { return true; }
};

// The same with elements left uninitialized on resize, for planes whose every element is
// written before it is read.
template <class T>
struct PanelUninitAllocator : PanelAllocator<T> {
  template <class U>
  struct rebind {
    using other = PanelUninitAllocator<U>;
  };
  PanelUninitAllocator() = default;
  template <class U>
  PanelUninitAllocator(const PanelUninitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class V>
  void construct(U* p, V&& v) {
    ::new (static_cast<void*>(p)) U(static_cast<V&&>(v));
  }
};

template <class T>
using PanelVector = std::vector<T, PanelAllocator<T>>;

}  // namespace tcsim
