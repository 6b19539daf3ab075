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

// True in the sanitizer pass (TCSIM_TEST_SCALE below 1): for the fixed-size parts of a test
// that check a paper's claim at its size, whose code smaller tests already run.
inline bool reduced_scale() { return count(1000000) < 1000000; }

// Long runs split over processes: true when the environment variable `env` is unset or empty,
// or when `label` contains one of its comma-separated texts.
inline bool selected(const char* env, const std::string& label) {
  const char* only = std::getenv(env);
  if (!only || !*only) return true;
  for (std::string list = only; !list.empty();) {
    const std::size_t comma = list.find(',');
    if (label.find(list.substr(0, comma)) != std::string::npos) return true;
    list = comma == std::string::npos ? "" : list.substr(comma + 1);
  }
  return false;
}

// A seed of its own per label (FNV-1a of the label mixed into `seed`): a case set that does not
// depend on which other labels ran before it (selected() may leave them out).
inline std::uint64_t label_seed(std::uint64_t seed, const std::string& label) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const char ch : label) h = (h ^ static_cast<unsigned char>(ch)) * 0x100000001b3ull;
  return seed ^ h;
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
