// A GEMM's plane of `count` T, uninitialized (every entry is written before it is read): from
// the calling thread's cache of large planes (tcsim/sim/panel_cache.hpp, issue 25 session 38).
#pragma once

#include <cstddef>

#include "tcsim/sim/panel_cache.hpp"

namespace tcsim::models::detail {

template <class T>
class PanelBuffer {
 public:
  explicit PanelBuffer(std::size_t count)
      : bytes_((count > 0 ? count : 1) * sizeof(T)), p_(static_cast<T*>(panel_allocate(bytes_))) {}
  ~PanelBuffer() { panel_free(p_, bytes_); }
  PanelBuffer(const PanelBuffer&) = delete;
  PanelBuffer& operator=(const PanelBuffer&) = delete;
  T* get() const { return p_; }
  T* data() const { return p_; }
  T& operator[](std::size_t i) const { return p_[i]; }

 private:
  std::size_t bytes_;
  T* p_;
};

}  // namespace tcsim::models::detail
