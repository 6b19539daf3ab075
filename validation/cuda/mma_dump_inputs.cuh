// mma_dump's inputs (mma_dump.cu): the options, the random and --corners cases, and the
// dump files read back for --inputs. Included once, by mma_dump.cu.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "mma_dump_ops.cuh"

namespace {

// splitmix64
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int range(int lo, int hi) { return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1)); }
};

struct Options {
  const OpInfo* op = nullptr;
  bool out_fp32 = true, out_fp16 = true;
  long cases = 5000;
  int k_nonzero = 0;  // 0: all K of the instruction
  std::uint64_t seed = 1;
  int exp_lo = -4, exp_hi = 1;  // exponents of the random inputs (main clamps them to the format)
  int subnormal_percent = 2;    // share of subnormal inputs
  std::string dir = ".";
  std::string gpu = "GPU";
  int device = 0;
  bool corners = false;  // --corners: tiles of the corner classes instead of random inputs
  std::string inputs;    // --inputs DIR: the cases of a_*_<fmt>.txt, b_*, c_* in DIR (tcsim fit --suggest)
};

// A random input pattern: sign, exponent in [exp_lo, exp_hi], random fraction; some
// subnormals and zeros.
std::uint32_t random_input(const OpInfo& info, const Options& o, Rng& rng) {
  const int frac_bits = info.precision - 1;
  const std::uint32_t frac = static_cast<std::uint32_t>(rng.next()) & ((1u << frac_bits) - 1);
  const bool neg = rng.next() & 1u;
  const int roll = rng.range(0, 99);
  if (info.op == Op::WmmaTf32) {
    // binary32 pattern with only the tf32 fraction bits.
    const int e = rng.range(o.exp_lo, o.exp_hi);
    std::uint32_t b = (static_cast<std::uint32_t>(e + 127) << 23) | (frac << 13);
    if (roll < o.subnormal_percent) b = (frac << 13) & 0x7fffffu;
    if (roll == 99) b = 0;
    return neg ? (b | 0x80000000u) : b;
  }
  const int width = info.in_bytes * 8;
  const int bias = (1 << (info.exp_bits - 1)) - 1;
  std::uint32_t field = static_cast<std::uint32_t>(rng.range(o.exp_lo, o.exp_hi) + bias);
  if (roll < o.subnormal_percent) field = 0;
  std::uint32_t b = (field << frac_bits) | frac;
  if (roll == 99) b = 0;
  // E4M3: S.1111.111 is NaN; avoid it.
  if (is_e4m3(info.op) && (b & 0x7fu) == 0x7fu) b = 0x7eu;
  return neg ? (b | (1u << (width - 1))) : b;
}

// The pattern of (-1)^neg * (1 + frac / 2^(p-1)) * 2^e in the op's input format, e clamped to
// its normal range; e below it gives the subnormal with the same fraction.
std::uint32_t input_pattern(const OpInfo& info, bool neg, int e, std::uint32_t frac) {
  const int frac_bits = info.precision - 1;
  frac &= (1u << frac_bits) - 1;
  if (e > info.emax) e = info.emax;
  if (info.op == Op::WmmaTf32) {
    const std::uint32_t b = e < info.emin ? (frac << 13) : (static_cast<std::uint32_t>(e + 127) << 23) | (frac << 13);
    return neg ? (b | 0x80000000u) : b;
  }
  const int width = info.in_bytes * 8;
  const int bias = (1 << (info.exp_bits - 1)) - 1;
  std::uint32_t b = e < info.emin ? frac : (static_cast<std::uint32_t>(e + bias) << frac_bits) | frac;
  if (is_e4m3(info.op) && (b & 0x7fu) == 0x7fu) b = 0x7eu;  // S.1111.111 is NaN
  return neg ? (b | (1u << (width - 1))) : b;
}

// --corners (issue 22): tile t is of class t % 3, each deciding one NVIDIA corner rule on a
// real GPU (docs/units/README.md "Corner cases"):
//  0 overflow: half the products (+-)2^emax * ~1, c near the top binary32 binade (2^127): the
//    bf16/tf32 sums reach 2^128 (Inf, or the largest finite value under plain RZ);
//  1 zero signs: A of even rows all -0, of odd rows +-0; B positive in even columns; c = -0
//    in even rows: case (even row, even column) has every term -0 (+0 or -0);
//  2 tiny terms: c = +-0, a few products of subnormal or tiny operands (the binary16
//    alignment floor); row 0 x column 0 of fp16 tiles is the floor decider of tcsim probe
//    --corners: 1.25*2^-14 * 2^-9 + 2^-24 * 2^-23 (0x0002 with floor -21, 0x0003 with -22).
void corner_tile(const OpInfo& info, int t, Rng& rng, std::uint32_t* A, std::uint32_t* B, std::uint32_t* C) {
  const int cls = t % 3;
  const std::uint32_t fmask = (1u << (info.precision - 1)) - 1;
  auto frac = [&] { return static_cast<std::uint32_t>(rng.next()) & fmask; };
  for (int i = 0; i < info.m; ++i)
    for (int k = 0; k < info.k; ++k) {
      std::uint32_t& a = A[i * info.k + k];
      if (cls == 0) a = rng.range(0, 1) ? input_pattern(info, rng.next() & 1u, info.emax - rng.range(0, 1), frac())
                                        : input_pattern(info, rng.next() & 1u, rng.range(-4, 1), frac());
      else if (cls == 1) a = input_pattern(info, i % 2 == 0 || (rng.next() & 1u), info.emin - info.precision, 0);
      else a = rng.range(0, 3) == 0 ? input_pattern(info, rng.next() & 1u, info.emin - rng.range(0, info.precision - 1), frac())
                                    : input_pattern(info, false, info.emin - info.precision, 0);
    }
  for (int j = 0; j < info.n; ++j)
    for (int k = 0; k < info.k; ++k) {
      std::uint32_t& b = B[j * info.k + k];
      if (cls == 0) b = input_pattern(info, false, rng.range(0, 1), frac());
      else if (cls == 1) b = input_pattern(info, j % 2 == 1 && (rng.next() & 1u), rng.range(info.emin, info.emax), frac());
      else b = input_pattern(info, rng.next() & 1u, rng.range(info.emin, 0), frac());
    }
  for (int i = 0; i < info.m; ++i)
    for (int j = 0; j < info.n; ++j) {
      std::uint32_t& c = C[i * info.n + j];
      const bool neg = rng.next() & 1u;
      if (cls == 0) c = (neg ? 0x80000000u : 0u) | (static_cast<std::uint32_t>(126 + rng.range(0, 1) + 127) << 23) |
                        (static_cast<std::uint32_t>(rng.next()) & 0x7fffffu);
      else c = (cls == 1 && i % 2 == 0) || neg ? 0x80000000u : 0u;
    }
  if (cls == 2 && info.op == Op::WmmaFp16) {  // the floor decider (fp16 patterns)
    for (int k = 0; k < info.k; ++k) A[k] = B[k] = 0;
    A[0] = 0x0500u;  // 1.25 * 2^-14
    B[0] = 0x1800u;  // 2^-9
    A[1] = 0x0001u;  // 2^-24
    B[1] = 0x0002u;  // 2^-23
    C[0] = 0;
  }
}

// A random binary32 accumulator input with an exponent near the products' (within the
// normal binary32 range, which the products of bf16/tf32 extremes exceed).
std::uint32_t random_c(const Options& o, Rng& rng) {
  const int e = rng.range(std::max(o.exp_lo * 2 - 1, -126), std::min(o.exp_hi * 2 + 1, 127));
  const std::uint32_t frac = static_cast<std::uint32_t>(rng.next()) & 0x7fffffu;
  const bool neg = rng.next() & 1u;
  if (rng.range(0, 99) == 0) return neg ? 0x80000000u : 0u;
  return (neg ? 0x80000000u : 0u) | (static_cast<std::uint32_t>(e + 127) << 23) | frac;
}

// The values of one dump file: hex binary32 patterns (a, b) or 0/1 strings (c), per line.
std::vector<std::vector<std::uint32_t>> read_lines(const std::string& path, bool binary) {
  std::vector<std::vector<std::uint32_t>> lines;
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return lines;
  char buf[1 << 16];
  while (std::fgets(buf, sizeof buf, f)) {
    std::vector<std::uint32_t> v;
    for (char* p = buf; *p;) {
      while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') ++p;
      if (!*p) break;
      char* end = p;
      v.push_back(binary ? static_cast<std::uint32_t>(std::strtoul(p, &end, 2)) : static_cast<std::uint32_t>(std::strtoul(p, &end, 16)));
      if (end == p) break;
      p = end;
    }
    if (!v.empty()) lines.push_back(std::move(v));
  }
  std::fclose(f);
  return lines;
}

// The one file of DIR named <prefix>_*_<suffix>.txt (tcsim fit --suggest writes *_FIT_*), or "".
std::string find_input(const std::string& dir, const std::string& prefix, const std::string& suffix) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind(prefix + "_", 0) == 0 && n.size() > suffix.size() + 5 && n.substr(n.size() - suffix.size() - 5) == "_" + suffix + ".txt")
      return e.path().string();
  }
  return "";
}

}  // namespace
