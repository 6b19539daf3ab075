// Helpers shared by the test suites: logged, re-runnable seeds and a size scale.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>

namespace tcsim::test {

// Seed of a random test: TCSIM_TEST_SEED when set (to rerun a failure), else `fallback`.
// Always printed, so every failing run says how to reproduce it.
inline std::uint64_t seed(const char* test_name, std::uint64_t fallback) {
  std::uint64_t s = fallback;
  if (const char* env = std::getenv("TCSIM_TEST_SEED")) s = std::strtoull(env, nullptr, 0);
  std::printf("[seed] %s: TCSIM_TEST_SEED=%llu\n", test_name, static_cast<unsigned long long>(s));
  return s;
}

// Number of random cases: `n` scaled by TCSIM_TEST_SCALE (default 1; the sanitizer
// run of CI uses a smaller scale because instrumented code is ~10x slower).
inline std::uint64_t count(std::uint64_t n) {
  double scale = 1.0;
  if (const char* env = std::getenv("TCSIM_TEST_SCALE")) scale = std::strtod(env, nullptr);
  auto m = static_cast<std::uint64_t>(static_cast<double>(n) * scale);
  return m < 1 ? 1 : m;
}

// Deterministic 64-bit generator (splitmix64): cheap, seedable, the same on every platform.
struct Rng {
  std::uint64_t state;
  explicit Rng(std::uint64_t s) : state(s) {}
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }
  int range(int lo, int hi) { return lo + static_cast<int>(below(static_cast<std::uint64_t>(hi - lo + 1))); }
};

// Directory of the real-GPU data: TCSIM_GPU_DATA, else ../shared/data/gpu beside the source tree.
inline std::string gpu_data_dir() {
  if (const char* env = std::getenv("TCSIM_GPU_DATA")) return env;
#ifdef TCSIM_SOURCE_DIR
  return std::string(TCSIM_SOURCE_DIR) + "/../shared/data/gpu";
#else
  return "../shared/data/gpu";
#endif
}

// Directory of the real B200 test vectors: TCSIM_GPU_VECTORS, else ../shared/data/gpu-vectors
// beside the source tree.
inline std::string gpu_vectors_dir() {
  if (const char* env = std::getenv("TCSIM_GPU_VECTORS")) return env;
#ifdef TCSIM_SOURCE_DIR
  return std::string(TCSIM_SOURCE_DIR) + "/../shared/data/gpu-vectors";
#else
  return "../shared/data/gpu-vectors";
#endif
}

}  // namespace tcsim::test
