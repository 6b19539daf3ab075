// dot_batch of the AMD after-add (CDNA3) and exact-block (CDNA1) kernels on the SIMD lanes
// (issue 25): a batch of independent elements is one wide row of lanes (amd_lanes.hpp,
// a_per_lane), each element's whole chain over K runs there (amd_lanes::chain), and the
// operands are decoded once per call into product-major planes through a table of every
// pattern of the operand format, built once per kernel. The lanes are the GEMM tiles' (same
// Block functions, same flags); flagged lanes take the scalar block() of their element, as in
// the tiles. Proven equal to Unit::dot by models/tests/test_amd_dot_batch.cpp.
#include <array>
#include <bit>
#include <cmath>
#include <mutex>
#include <vector>

#include "amd_lanes.hpp"
#include "tcsim/sim/after_add.hpp"
#include "tcsim/sim/exact_block.hpp"

namespace tcsim {

// Per role (0: a, 1: b) the planes' form {value, 2^-e_ref} of every pattern of a <= 16-bit
// format (exact-block uses the value only).
struct AmdPlaneTables {
  std::once_flag once[2];
  std::vector<std::array<double, 2>> table[2];
};

std::shared_ptr<AmdPlaneTables> new_amd_plane_tables() { return std::make_shared<AmdPlaneTables>(); }

namespace {

// Product-major planes of n elements (padded to np with +0 operands: value 0, inv +Inf):
// plane[t * np + e] from bits[e * se + t * st]. decode_one(bits, value,
// inv) is the kernel's own decoding; table (may be empty) holds it for every pattern below its
// size. With_inv: the after-add lanes' 2^-e_ref plane too.
template <bool WithInv, class T, class DecodeOne>
void fill_planes(const std::vector<std::array<double, 2>>& table, std::size_t n, std::size_t np, std::size_t K,
                 const T* bits, std::size_t se, std::size_t st, double* value, double* inv,
                 const DecodeOne& decode_one) {
  const std::size_t size = table.size();
  auto one = [&](std::size_t e, std::size_t t) {
    const std::uint64_t x = bits[e * se + t * st];
    const std::size_t o = t * np + e;
    if (x < size) [[likely]] {
      value[o] = table[x][0];
      if constexpr (WithInv) inv[o] = table[x][1];
    } else {
      double unused = 0;
      decode_one(x, value[o], WithInv ? inv[o] : unused);  // a wider format, or not a pattern of it: decode's error
    }
  };
  // Plane by plane (element-major input too: writing 2 K planes at once is slower than reading
  // a chunk's patterns K times from L1/L2).
  for (std::size_t t = 0; t < K; ++t)
    for (std::size_t e = 0; e < n; ++e) one(e, t);
  for (std::size_t t = 0; t < K; ++t) {
    std::fill(value + t * np + n, value + (t + 1) * np, 0.0);
    if constexpr (WithInv) std::fill(inv + t * np + n, inv + (t + 1) * np, HUGE_VAL);
  }
}

template <class DecodeOne>
const std::vector<std::array<double, 2>>& table_of(AmdPlaneTables& tables, int role, const Format& f,
                                                   const DecodeOne& decode_one) {
  std::call_once(tables.once[role], [&] {
    if (f.width > 16) return;  // decoded one by one
    auto& t = tables.table[role];
    t.resize(std::size_t{1} << f.width);
    for (std::size_t p = 0; p < t.size(); ++p) decode_one(p, t[p][0], t[p][1]);
  });
  return tables.table[role];
}

// after_add.cpp's lane parameters of a configuration.
amd_lanes::AfterParams after_params(const AdderConfig& cfg) {
  amd_lanes::AfterParams p;
  p.fraction_bits = cfg.fraction_bits;
  p.groups = cfg.product_groups;
  p.sum_bits = cfg.after.sum_fraction_bits;
  p.c_bits = cfg.after.c_fraction_bits;
  p.renormalize_bits = cfg.after.renormalize_fraction_bits.value_or(0);
  p.drop_c_below = cfg.after.drop_c_below.value_or(-1);
  p.positive_zero = cfg.zero_sign == ZeroSign::Positive;
  return p;
}

// The accumulators (binary32 patterns in floats), padded lanes +0.
void load_acc(std::size_t n, std::size_t np, const std::uint64_t* c, std::vector<float>& acc) {
  acc.assign(np, 0.0f);
  for (std::size_t e = 0; e < n; ++e) acc[e] = std::bit_cast<float>(static_cast<std::uint32_t>(c[e]));
}

}  // namespace

template <class T>
void AfterAddKernel::dot_chain_any(std::size_t n, std::size_t K, std::size_t group, const T* a, const T* b,
                                   std::size_t se, std::size_t st, const std::uint64_t* c, std::uint64_t* d) const {
  if (n == 0) return;
  const std::size_t np = amd_lanes::padded(n);
  auto decode_a = [&](std::uint64_t x, double& v, double& i) { decode_plane(cfg_.a_format, x, v, i); };
  auto decode_b = [&](std::uint64_t x, double& v, double& i) { decode_plane(cfg_.b_format, x, v, i); };
  thread_local std::vector<double> av, ai, bv, bi;
  thread_local std::vector<float> acc;
  av.resize(K * np), ai.resize(K * np), bv.resize(K * np), bi.resize(K * np);
  fill_planes<true>(table_of(*dot_tables_, 0, cfg_.a_format, decode_a), n, np, K, a, se, st, av.data(), ai.data(), decode_a);
  fill_planes<true>(table_of(*dot_tables_, 1, cfg_.b_format, decode_b), n, np, K, b, se, st, bv.data(), bi.data(), decode_b);
  load_acc(n, np, c, acc);
  const amd_lanes::AfterParams params = after_params(cfg_);
  amd_lanes::chain(
      1, np, n, K, k_, group, acc.data(),
      [&](std::size_t pos, std::size_t len, const float* cur, float* out, std::uint8_t* fix) {
        amd_lanes::Block blk;
        blk.w = np, blk.len = len, blk.a_per_lane = true, blk.ldb = np;
        // K = 0: the planes are empty, and the block reads no products.
        blk.a_val = K == 0 ? nullptr : av.data() + pos * np, blk.a_inv = K == 0 ? nullptr : ai.data() + pos * np;
        blk.b_val = K == 0 ? nullptr : bv.data() + pos * np, blk.b_inv = K == 0 ? nullptr : bi.data() + pos * np;
        blk.c = cur, blk.out = out, blk.fix = fix, blk.ldc = np;
        return amd_lanes::after_add_block(params, blk);
      },
      [&](std::size_t, std::size_t e, std::size_t pos, std::size_t len, std::uint32_t cv) -> std::uint64_t {
        std::vector<Operand> x(len), y(len);
        for (std::size_t t = 0; t < len; ++t) {
          x[t] = decode(cfg_.a_format, a[e * se + (pos + t) * st]);
          y[t] = decode(cfg_.b_format, b[e * se + (pos + t) * st]);
        }
        return block(len, x.data(), 1, y.data(), 1, cv);
      });
  for (std::size_t e = 0; e < n; ++e) d[e] = std::bit_cast<std::uint32_t>(acc[e]);
}

void AfterAddKernel::dot_chain(std::size_t n, std::size_t K, std::size_t group, const std::uint64_t* a,
                               const std::uint64_t* b, const std::uint64_t* c, std::uint64_t* d) const {
  dot_chain_any(n, K, group, a, b, K, 1, c, d);
}

void AfterAddKernel::dot_chain_planar(std::size_t n, std::size_t K, std::size_t group, const std::uint16_t* a,
                                      const std::uint16_t* b, std::size_t ld, const std::uint64_t* c,
                                      std::uint64_t* d) const {
  dot_chain_any(n, K, group, a, b, 1, ld, c, d);
}

template <class T>
void ExactBlockKernel::dot_chain_any(std::size_t n, std::size_t K, std::size_t group, const T* a, const T* b,
                                     std::size_t se, std::size_t st, const std::uint64_t* c, std::uint64_t* d) const {
  if (n == 0) return;
  const std::size_t np = amd_lanes::padded(n);
  auto decode_a = [&](std::uint64_t x, double& v, double& i) { v = plane_value(config().a_format, x), i = 0; };
  auto decode_b = [&](std::uint64_t x, double& v, double& i) { v = plane_value(config().b_format, x), i = 0; };
  thread_local std::vector<double> av, bv;
  thread_local std::vector<float> acc;
  av.resize(K * np), bv.resize(K * np);
  fill_planes<false>(table_of(*dot_tables_, 0, config().a_format, decode_a), n, np, K, a, se, st, av.data(), nullptr,
              decode_a);
  fill_planes<false>(table_of(*dot_tables_, 1, config().b_format, decode_b), n, np, K, b, se, st, bv.data(), nullptr,
              decode_b);
  load_acc(n, np, c, acc);
  const bool positive_zero = config().zero_sign == ZeroSign::Positive;
  amd_lanes::chain(
      1, np, n, K, k_, group, acc.data(),
      [&](std::size_t pos, std::size_t len, const float* cur, float* out, std::uint8_t* fix) {
        amd_lanes::Block blk;
        blk.w = np, blk.len = len, blk.a_per_lane = true, blk.ldb = np;
        blk.a_val = K == 0 ? nullptr : av.data() + pos * np, blk.b_val = K == 0 ? nullptr : bv.data() + pos * np;
        blk.c = cur, blk.out = out, blk.fix = fix, blk.ldc = np;
        return amd_lanes::exact_block_block(positive_zero, blk);
      },
      [&](std::size_t, std::size_t e, std::size_t pos, std::size_t len, std::uint32_t cv) -> std::uint64_t {
        std::vector<Operand> x(len), y(len);
        std::vector<std::uint64_t> xb(len), yb(len);
        for (std::size_t t = 0; t < len; ++t) {
          xb[t] = a[e * se + (pos + t) * st];
          yb[t] = b[e * se + (pos + t) * st];
          x[t] = decode(config().a_format, xb[t]);
          y[t] = decode(config().b_format, yb[t]);
        }
        return block(len, x.data(), xb.data(), 1, y.data(), yb.data(), 1, cv);
      });
  for (std::size_t e = 0; e < n; ++e) d[e] = std::bit_cast<std::uint32_t>(acc[e]);
}

void ExactBlockKernel::dot_chain(std::size_t n, std::size_t K, std::size_t group, const std::uint64_t* a,
                                 const std::uint64_t* b, const std::uint64_t* c, std::uint64_t* d) const {
  dot_chain_any(n, K, group, a, b, K, 1, c, d);
}

void ExactBlockKernel::dot_chain_planar(std::size_t n, std::size_t K, std::size_t group, const std::uint16_t* a,
                                        const std::uint16_t* b, std::size_t ld, const std::uint64_t* c,
                                        std::uint64_t* d) const {
  dot_chain_any(n, K, group, a, b, 1, ld, c, d);
}

}  // namespace tcsim
