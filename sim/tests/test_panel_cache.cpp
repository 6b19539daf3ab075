// The per-thread cache of large GEMM planes (tcsim/sim/panel_cache.hpp, issue 25, session 38):
// exact sizes back, the limit kept with the largest planes out first, and the allocators on it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <thread>

#include "tcsim/sim/panel_cache.hpp"

using tcsim::PanelCache;

namespace {
constexpr std::size_t kMiB = std::size_t{1} << 20;
}

TEST_CASE("panel cache: planes come back by their exact size, within the limit, the largest out first",
          "[panel_cache]") {
  PanelCache cache;
  void* a = cache.take(4 * kMiB);
  void* b = cache.take(8 * kMiB);
  REQUIRE(a);
  REQUIRE(b);
  cache.give(a, 4 * kMiB);
  cache.give(b, 8 * kMiB);
  CHECK(cache.kept_count() == 2);
  CHECK(cache.kept_bytes() == 12 * kMiB);
  // Only the same size is taken back (a plane's size is known again from the request).
  CHECK(cache.take(8 * kMiB) == b);
  CHECK(cache.take(4 * kMiB) == a);
  CHECK(cache.kept_count() == 0);
  cache.give(a, 4 * kMiB);
  void* c = cache.take(2 * kMiB);
  CHECK(c != a);
  CHECK(cache.kept_bytes() == 4 * kMiB);
  // 4 + 8 + 2 MiB kept, then a plane of limit - 8 MiB: the 8 MiB plane goes (4 + 2 + limit - 8
  // fits); one past the limit is freed at once.
  cache.give(b, 8 * kMiB);
  cache.give(c, 2 * kMiB);
  void* big = cache.take(PanelCache::kKeptLimit - 8 * kMiB);
  cache.give(big, PanelCache::kKeptLimit - 8 * kMiB);
  CHECK(cache.kept_count() == 3);
  CHECK(cache.kept_bytes() == PanelCache::kKeptLimit - 2 * kMiB);
  void* d = cache.take(8 * kMiB);  // none of 8 MiB kept now: a new plane, the books unchanged
  CHECK(cache.kept_count() == 3);
  std::free(d);
  void* over = cache.take(PanelCache::kKeptLimit + 2 * kMiB);
  cache.give(over, PanelCache::kKeptLimit + 2 * kMiB);
  CHECK(cache.kept_bytes() == PanelCache::kKeptLimit - 2 * kMiB);
  cache.release();
  CHECK(cache.kept_count() == 0);
  CHECK(cache.kept_bytes() == 0);
}

TEST_CASE("panel cache: vectors on the allocators reuse the thread's planes, and PanelVector still zero-fills",
          "[panel_cache]") {
  std::thread([] {  // a thread of its own: an empty cache
    PanelCache& cache = PanelCache::of_this_thread();
    const std::size_t n = 3 * kMiB / sizeof(std::int32_t);  // a 4 MiB plane
    const std::int32_t* first = nullptr;
    {
      tcsim::PanelVector<std::int32_t> v(n);
      first = v.data();
      CHECK(reinterpret_cast<std::uintptr_t>(first) % PanelCache::kHuge == 0);
      std::fill(v.begin(), v.end(), 7);
    }
    CHECK(cache.kept_count() == 1);
    CHECK(cache.kept_bytes() == 4 * kMiB);
    {
      tcsim::PanelVector<std::int32_t> v(n);
      CHECK(v.data() == first);
      CHECK(std::count(v.begin(), v.end(), 0) == static_cast<std::ptrdiff_t>(n));  // value-initialized
    }
    {
      std::vector<float, tcsim::PanelUninitAllocator<float>> u;
      u.reserve(n);
      CHECK(u.data() == reinterpret_cast<const float*>(first));
      u.resize(n);  // left as it was: no fill
    }
    // Small vectors: malloc, not kept.
    { tcsim::PanelVector<std::int32_t> small(1000); }
    CHECK(cache.kept_count() == 1);
  }).join();
}

TEST_CASE("panel cache: planes freed after the thread's cache is gone go straight to free()", "[panel_cache]") {
  // Thread-local objects die in the reverse order of their construction: `late` is constructed
  // before the cache (which the allocation below constructs), so it dies after it. Its plane must
  // not go into the destroyed cache (under AddressSanitizer: a use after free of its list).
  std::thread([] {
    thread_local std::unique_ptr<tcsim::PanelVector<std::int32_t>> late;
    late = std::make_unique<tcsim::PanelVector<std::int32_t>>(3 * kMiB / sizeof(std::int32_t));
    CHECK(PanelCache::of_this_thread().kept_count() == 0);
  }).join();
  std::thread([] {
    thread_local std::unique_ptr<tcsim::PanelVector<std::int32_t>> late;
    { tcsim::PanelVector<std::int32_t> first(3 * kMiB / sizeof(std::int32_t)); }  // kept
    late = std::make_unique<tcsim::PanelVector<std::int32_t>>(3 * kMiB / sizeof(std::int32_t));  // taken again
    CHECK(PanelCache::of_this_thread().kept_count() == 0);
  }).join();
  SUCCEED("both threads ended");
}
