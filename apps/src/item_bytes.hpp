// The results of a sweep's work items as bytes (distributed_items.hpp): numbers kept bit for
// bit (NaN and infinities included, which JSON would not keep), strings with their length.
#pragma once
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tcsim::cli {

class ItemWriter {
 public:
  template <class T>
    requires std::is_arithmetic_v<T>
  ItemWriter& put(T v) {
    bytes_.append(reinterpret_cast<const char*>(&v), sizeof v);
    return *this;
  }
  ItemWriter& put(const std::string& s) {
    put(static_cast<std::uint64_t>(s.size()));
    bytes_ += s;
    return *this;
  }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class ItemReader {
 public:
  explicit ItemReader(const std::string& bytes) : bytes_(bytes) {}
  template <class T>
    requires std::is_arithmetic_v<T>
  T get() {
    T v{};
    need(sizeof v);
    std::memcpy(&v, bytes_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  std::string get_string() {
    const auto n = static_cast<std::size_t>(get<std::uint64_t>());
    need(n);
    std::string s = bytes_.substr(at_, n);
    at_ += n;
    return s;
  }

 private:
  void need(std::size_t n) const {
    if (n > bytes_.size() - at_) throw std::logic_error("a work item's result is shorter than its reader expects");
  }
  const std::string& bytes_;
  std::size_t at_ = 0;
};

}  // namespace tcsim::cli
