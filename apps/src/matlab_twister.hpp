// MATLAB's default generator after rng(seed): the Mersenne twister MT19937 (Matsumoto and
// Nishimura 1998) seeded by its init_genrand(seed), whose rand is the 53-bit double of two
// 32-bit words, (a >> 5) 2^26 + (b >> 6) over 2^53 (genrand_res53). numpy's legacy
// RandomState(seed).random_sample gives the same doubles. Written from the published
// algorithm; used to draw KM25's matrices (experiments_km25.cpp).
#pragma once
#include <array>
#include <cstdint>

namespace tcsim::cli {

class MatlabTwister {
 public:
  explicit MatlabTwister(std::uint32_t seed) {
    state_[0] = seed;
    for (std::uint32_t i = 1; i < kN; ++i) state_[i] = 1812433253u * (state_[i - 1] ^ (state_[i - 1] >> 30)) + i;
    index_ = kN;
  }

  std::uint32_t next_word() {
    if (index_ == kN) refill();
    std::uint32_t y = state_[index_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
  }

  // rand: uniform in [0, 1) on the 2^-53 grid, from two words.
  double next_double() {
    const std::uint32_t a = next_word() >> 5, b = next_word() >> 6;
    return (static_cast<double>(a) * 67108864.0 + static_cast<double>(b)) * (1.0 / 9007199254740992.0);
  }

  // Skips `words` 32-bit words (a rand is two).
  void discard(std::uint64_t words) {
    while (words > 0) {
      if (index_ == kN) refill();
      const std::uint64_t step = words < kN - index_ ? words : kN - index_;
      index_ += static_cast<std::uint32_t>(step);
      words -= step;
    }
  }

 private:
  static constexpr std::uint32_t kN = 624, kM = 397;
  void refill() {
    for (std::uint32_t i = 0; i < kN; ++i) {
      const std::uint32_t y = (state_[i] & 0x80000000u) | (state_[(i + 1) % kN] & 0x7fffffffu);
      state_[i] = state_[(i + kM) % kN] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    index_ = 0;
  }
  std::array<std::uint32_t, kN> state_{};
  std::uint32_t index_ = kN;
};

}  // namespace tcsim::cli
