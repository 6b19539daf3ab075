// Helpers of the models tests: patterns from doubles, hex printing, data files.
#pragma once
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tcsim/models/unit.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/format.hpp"
#include "tcsim/sim/rounding.hpp"

namespace tcsim::models::test {

// The pattern of `x` in `f`, rounded to nearest even (exact for the values the tests use).
inline std::uint64_t bits(const Format& f, double x) {
  return round_bits(decode(formats::fp64(), bits_of_double(x)), f, Rounding::NearestEven);
}
inline std::vector<std::uint64_t> bits(const Format& f, std::initializer_list<double> xs) {
  std::vector<std::uint64_t> v;
  for (double x : xs) v.push_back(bits(f, x));
  return v;
}
// The units.md 3b vector with a in bf8 (e5m2fnuz) and b in fp8 (e4m3fnuz): products -2^20, -0.5,
// -0.25, -0.125, then +0 up to 16 products (mi300x with c = 2^23 gives 0x4adffffe).
inline void bf8_fp8_vector_3b(std::vector<std::uint64_t>& x, std::vector<std::uint64_t>& y) {
  x.assign(16, 0);
  y.assign(16, 0);
  const double xa[] = {-8192.0, -0.5, -0.25, -0.125}, yb[] = {128.0, 1.0, 1.0, 1.0};
  for (int i = 0; i < 4; ++i) {
    x[i] = bits(formats::e5m2fnuz(), xa[i]);
    y[i] = bits(formats::e4m3fnuz(), yb[i]);
  }
}
inline double value(const Format& f, std::uint64_t b) { return to_double(decode(f, b)); }
inline std::string hex(const Format& f, std::uint64_t b) { return bits_to_hex(f, b); }

// The lines of a text file (empty vector when it cannot be opened).
inline std::vector<std::string> read_lines(const std::string& path, std::size_t max_lines) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  std::string line;
  while (lines.size() < max_lines && std::getline(in, line)) lines.push_back(line);
  return lines;
}

}  // namespace tcsim::models::test
