// dot_batch of the AMD after-add (CDNA3) and exact-block (CDNA1) kernels on the SIMD lanes
// (issue 25): a batch of independent elements is one wide row of lanes (amd_lanes.hpp,
// a_per_lane), each element's whole chain over K runs there (amd_lanes::chain), and the
// operands are decoded once per call into product-major planes through a table of every
// pattern of the operand format, built once per kernel. The lanes are the GEMM tiles' (same
// Block functions, same flags); flagged lanes take the scalar block() of their element, as in
// the tiles. After-add rows with tiles_supported() (every mi300x row) compute each block's
// product sums in binary32/int32 lanes from the patterns instead (after_dot_lanes.hpp) and
// only the block's tail on the binary64 lanes. Proven equal to Unit::dot by
// models/tests/test_amd_dot_batch.cpp.
#include <array>
#include <bit>
#include <cmath>
#include <mutex>
#include <type_traits>
#include <vector>

#include "after_dot_lanes.hpp"
#include "amd_lanes.hpp"
#include "tcsim/sim/fma_lanes.hpp"
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

// The accumulators (binary32 patterns in floats), padded lanes +0.
void load_acc(std::size_t n, std::size_t np, const std::uint64_t* c, std::vector<float>& acc) {
  acc.assign(np, 0.0f);
  for (std::size_t e = 0; e < n; ++e) acc[e] = std::bit_cast<float>(static_cast<std::uint32_t>(c[e]));
}

// Both kernels' chain on binary64 lanes over product-major planes decoded once per call
// (decode_a/decode_b: the kernel's decoding, through tables of every pattern of a <= 16-bit
// format); run_block(blk) is the kernel's block on the lanes, fallback its scalar block.
template <bool WithInv, class T, class DecodeA, class DecodeB, class RunBlock, class Fallback>
void decoded_planes_chain(AmdPlaneTables& tables, const Format& fa, const Format& fb, const DecodeA& decode_a,
                          const DecodeB& decode_b, std::size_t n, std::size_t K, std::size_t k, std::size_t group,
                          const T* a, const T* b, std::size_t se, std::size_t st, float* acc,
                          const RunBlock& run_block, const Fallback& fallback) {
  const std::size_t np = amd_lanes::padded(n);
  thread_local std::vector<double> av, ai, bv, bi;
  av.resize(K * np), bv.resize(K * np);
  if constexpr (WithInv) ai.resize(K * np), bi.resize(K * np);
  fill_planes<WithInv>(table_of(tables, 0, fa, decode_a), n, np, K, a, se, st, av.data(), ai.data(), decode_a);
  fill_planes<WithInv>(table_of(tables, 1, fb, decode_b), n, np, K, b, se, st, bv.data(), bi.data(), decode_b);
  amd_lanes::chain(
      1, np, n, K, k, group, acc,
      [&](std::size_t pos, std::size_t len, const float* cur, float* out, std::uint8_t* fix) {
        amd_lanes::Block blk;
        blk.w = np, blk.len = len, blk.a_per_lane = true, blk.ldb = np;
        if (K > 0) {  // K = 0: the planes are empty, and the block reads no products
          blk.a_val = av.data() + pos * np, blk.b_val = bv.data() + pos * np;
          if constexpr (WithInv) blk.a_inv = ai.data() + pos * np, blk.b_inv = bi.data() + pos * np;
        }
        blk.c = cur, blk.out = out, blk.fix = fix, blk.ldc = np;
        return run_block(blk);
      },
      fallback);
}

}  // namespace

// The planar rows' patterns product-major for the sums lanes: lanes [0, w) read the caller's
// rows in place, the last partial vector's (n - w elements) from a copy padded with +0.
template <class T>
struct SumsSource {
  const T *a = nullptr, *b = nullptr;
  std::size_t ld = 0, w = 0;  // lanes [0, w) at a[t * ld + j]
  const T *ta = nullptr, *tb = nullptr;  // lanes [w, np) at ta[t * kPad + j - w]
};

template <class T>
void AfterAddKernel::dot_chain_any(std::size_t n, std::size_t K, std::size_t group, const T* a, const T* b,
                                   std::size_t se, std::size_t st, const std::uint64_t* c, std::uint64_t* d) const {
  if (n == 0) return;
  const std::size_t np = amd_lanes::padded(n);
  thread_local std::vector<float> acc;
  load_acc(n, np, c, acc);
  auto fallback = [&](std::size_t, std::size_t e, std::size_t pos, std::size_t len, std::uint32_t cv) -> std::uint64_t {
    std::vector<Operand> x(len), y(len);
    for (std::size_t t = 0; t < len; ++t) {
      x[t] = decode(cfg_.a_format, a[e * se + (pos + t) * st]);
      y[t] = decode(cfg_.b_format, b[e * se + (pos + t) * st]);
    }
    return block(len, x.data(), 1, y.data(), 1, cv);
  };
  if (!dot_sums_chain(n, K, group, a, b, se, st, acc.data(), fallback)) {
    auto decode_a = [&](std::uint64_t x, double& v, double& i) { decode_plane(cfg_.a_format, x, v, i); };
    auto decode_b = [&](std::uint64_t x, double& v, double& i) { decode_plane(cfg_.b_format, x, v, i); };
    const amd_lanes::AfterParams params = after_lane_params(cfg_);
    decoded_planes_chain<true>(
        *dot_tables_, cfg_.a_format, cfg_.b_format, decode_a, decode_b, n, K, k_, group, a, b, se, st, acc.data(),
        [&](const amd_lanes::Block& blk) { return amd_lanes::after_add_block(params, blk); }, fallback);
  }
  for (std::size_t e = 0; e < n; ++e) d[e] = std::bit_cast<std::uint32_t>(acc[e]);
}

// The chain with each block's product sums in binary32/int32 lanes (after_dot_lanes.hpp),
// decoded from the patterns in the lanes, then the binary64 lanes' after_sum steps on one
// term per lane (s 2^(e_dot - F) times 1, exponent e_dot) with c: false where the row or the
// patterns do not allow it (the caller then runs the binary64 lanes on decoded planes).
template <class T, class Fallback>
bool AfterAddKernel::dot_sums_chain(std::size_t n, std::size_t K, std::size_t group, const T* a, const T* b,
                                    std::size_t se, std::size_t st, float* acc, const Fallback& fallback) const {
  if (!tiles_) return false;  // operands of <= 12 significand bits, 1 or 2 groups, group sums below 2^30
  const auto fa = after_dot::fields_of(cfg_.a_format, cfg_.input_fraction_bits);
  const auto fb = after_dot::fields_of(cfg_.b_format, cfg_.input_fraction_bits);
  if (!fa || !fb) return false;
  const std::size_t np = amd_lanes::padded(n), P = amd_lanes::kPad;
  thread_local std::vector<std::uint32_t> a32, b32;
  thread_local std::vector<std::uint16_t> a16, b16;
  SumsSource<std::uint32_t> s32;
  SumsSource<std::uint16_t> s16;
  if constexpr (std::is_same_v<T, std::uint16_t>) {  // planar: in place, the last partial vector copied
    s16.a = a, s16.b = b, s16.ld = st, s16.w = n / P * P;
    a16.assign(K * P, 0), b16.assign(K * P, 0);
    for (std::size_t t = 0; t < K; ++t)
      for (std::size_t e = s16.w; e < n; ++e) a16[t * P + e - s16.w] = a[t * st + e], b16[t * P + e - s16.w] = b[t * st + e];
    s16.ta = a16.data(), s16.tb = b16.data();
  } else {  // element-major: product-major planes of 32-bit patterns (wider ones: the decoded planes)
    a32.assign(K * np, 0), b32.assign(K * np, 0);
    std::uint64_t wide = 0;
    for (std::size_t t = 0; t < K; ++t)
      for (std::size_t e = 0; e < n; ++e) {
        const std::uint64_t x = a[e * se + t * st], y = b[e * se + t * st];
        wide |= (x | y) >> 32;
        a32[t * np + e] = static_cast<std::uint32_t>(x), b32[t * np + e] = static_cast<std::uint32_t>(y);
      }
    if (wide) return false;
    s32.a = a32.data(), s32.b = b32.data(), s32.ld = np, s32.w = np;
  }
  const after_dot::Params sp{*fa, *fb, cfg_.fraction_bits, cfg_.product_groups};
  amd_lanes::AfterParams params = after_lane_params(cfg_);
  params.groups = 1;  // the groups are combined in the sums
  thread_local std::vector<double> val, inv;
  val.resize(np), inv.resize(np);
  static const double one = 1.0;
  auto sums = [&](const auto& src, std::size_t pos, std::size_t len) {
    // K = 0: no pattern is read (len 0), and no offset is added to a null pointer.
    if (src.w) after_dot::block_sums(sp, src.w, len, len ? src.a + pos * src.ld : src.a, len ? src.b + pos * src.ld : src.b,
                                     src.ld, val.data(), inv.data());
    if (src.w < np) after_dot::block_sums(sp, np - src.w, len, src.ta + pos * P, src.tb + pos * P, P,
                                          val.data() + src.w, inv.data() + src.w);
  };
  const fma_lanes::DefaultFloatEnvironment env;  // binary32 subnormal operands not read as 0 (no DAZ)
  amd_lanes::chain(
      1, np, n, K, k_, group, acc,
      [&](std::size_t pos, std::size_t len, const float* cur, float* out, std::uint8_t* fix) {
        if constexpr (std::is_same_v<T, std::uint16_t>) sums(s16, pos, len);
        else sums(s32, pos, len);
        amd_lanes::Block blk;
        blk.w = np, blk.len = 1, blk.a_val = &one, blk.a_inv = &one, blk.a_per_lane = false;
        blk.b_val = val.data(), blk.b_inv = inv.data(), blk.ldb = np;
        blk.c = cur, blk.out = out, blk.fix = fix, blk.ldc = np;
        return amd_lanes::after_add_block(params, blk);
      },
      fallback);
  return true;
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
  thread_local std::vector<float> acc;
  load_acc(n, amd_lanes::padded(n), c, acc);
  auto decode_a = [&](std::uint64_t x, double& v, double& i) { v = plane_value(config().a_format, x), i = 0; };
  auto decode_b = [&](std::uint64_t x, double& v, double& i) { v = plane_value(config().b_format, x), i = 0; };
  const bool positive_zero = config().zero_sign == ZeroSign::Positive;
  decoded_planes_chain<false>(
      *dot_tables_, config().a_format, config().b_format, decode_a, decode_b, n, K, k_, group, a, b, se, st,
      acc.data(), [&](const amd_lanes::Block& blk) { return amd_lanes::exact_block_block(positive_zero, blk); },
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
