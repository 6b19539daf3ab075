// Uninitialized panel buffers of the GEMMs (unit_gemm.cpp, unit_gemm_scaled_tiles.cpp): every
// entry is written before it is read. Large ones are 2 MiB-aligned with transparent huge pages
// requested, so that first touches cost a fault per 2 MiB rather than per 4 KiB, and the calling
// thread keeps them for its next GEMM (issue 25): a fresh page costs a fault and the kernel's zero
// fill each call (5-9 huge-page faults per n = 1024 h100 fp16 GEMM, and runs of 20 to 30 ms where
// the reused buffers gave 20.0-20.5 ms; docs/performance.md "Session 38"), which a native GEMM's
// small blocking buffers pay once.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace tcsim::models::detail {

// The large panel buffers one thread keeps between its GEMMs: at most kept_limit bytes, whole
// 2 MiB pages. Per thread (thread_local), so no locks and no state shared between threads;
// freed when the thread ends. Under AddressSanitizer a buffer taken again is filled with a
// pattern first, so that a read before a write shows as wrong bits in the sanitizer pass.
class PanelCache {
 public:
  static constexpr std::size_t kHuge = std::size_t{1} << 21;
  static constexpr std::size_t kKeptLimit = std::size_t{64} << 20;  // n = 1024 at k = 1024 needs about 20 MiB

  // A buffer of at least `bytes` (a multiple of kHuge): the smallest kept one that fits, else a new one.
  void* take(std::size_t bytes, std::size_t& got);
  // Keeps `p` (of `bytes`) if it fits within the limit (dropping the largest kept buffers
  // first); else frees it.
  void give(void* p, std::size_t bytes);
  std::size_t kept_bytes() const { return kept_bytes_; }
  std::size_t kept_count() const { return kept_.size(); }
  void release();  // frees every kept buffer
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

// A panel of `count` T, from the thread's cache when large.
template <class T>
class PanelBuffer {
 public:
  explicit PanelBuffer(std::size_t count);
  ~PanelBuffer();
  PanelBuffer(const PanelBuffer&) = delete;
  PanelBuffer& operator=(const PanelBuffer&) = delete;
  T* get() const { return p_; }
  T* data() const { return p_; }
  T& operator[](std::size_t i) const { return p_[i]; }

 private:
  T* p_ = nullptr;
  std::size_t cached_bytes_ = 0;  // 0: malloc'ed (small), else taken from the thread's cache
};

void* panel_allocate(std::size_t bytes, std::size_t& cached_bytes);
void panel_free(void* p, std::size_t cached_bytes);

template <class T>
PanelBuffer<T>::PanelBuffer(std::size_t count) {
  p_ = static_cast<T*>(panel_allocate((count > 0 ? count : 1) * sizeof(T), cached_bytes_));
}

template <class T>
PanelBuffer<T>::~PanelBuffer() {
  panel_free(p_, cached_bytes_);
}

}  // namespace tcsim::models::detail
