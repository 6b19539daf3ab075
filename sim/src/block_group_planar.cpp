// Group sums of block-scaled rows on product-major 16-bit patterns (block_lanes.hpp:
// block_groups_planar; issue 25: dot_batch of kind::mxf4nvf4), compiled once per SIMD target by
// Google Highway and chosen at run time. One element per binary32 lane: each operand decoded by
// one table lookup across the lanes (its magnitude bits index a table of at most Lanes values,
// its sign bit moved to binary32's), each group's products summed exactly by binary32 FMAs
// (BlockKernel::group_tile_supported: every product and partial sum a multiple of one power of
// two with at most 24 significant bits), then per half vector in binary64: the sums times the
// group's scales (exact), their leading bits into E, and c, alignment, sum and rounding as
// BlockFmaGroups (block_lanes.cpp).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "block_group_planar.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <algorithm>
#include <cstdint>

#include "block_lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tcsim::lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr std::size_t kAhead = 512;  // elements prefetched ahead in each product row

constexpr std::size_t kIntBlock = 512;  // elements per block of the int16 sums (16 vectors of 32)

// Lanes of the int16 group sums (a table of at most that many patterns), 0 without them.
std::size_t GroupIntLanes() {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  return hn::Lanes(hn::ScalableTag<std::int16_t>());
#else
  return 0;
#endif
}

std::size_t GroupPlanarLanes(std::size_t table_size) {
  const std::size_t nf = hn::Lanes(hn::ScalableTag<float>());
  // The sign-free half of the table must fit one vector (TableLookupLanes' indices < Lanes).
  return table_size >= 2 && table_size / 2 <= nf ? nf : 0;
}

// kFull: the whole table (both signs) fits one vector (AVX-512: e2m1's 16 patterns), so that an
// operand is one lookup; else the magnitude's lookup and the sign moved to binary32's.
template <bool kFull>
void GroupsPlanar(const LaneParams& p, int width, const float* a_table, const float* b_table, const IntTables* ints,
                  std::size_t n, std::size_t len, std::size_t group, const std::uint16_t* a, std::size_t lda,
                  const std::uint16_t* b, std::size_t ldb, const double* a_scale, const double* b_scale,
                  std::size_t lds, const double* c_value, const double* c_eref, std::uint64_t* d_bits,
                  double* d_value, double* d_eref, std::uint8_t* fixup) {
  const hn::ScalableTag<float> df;
  const hn::RebindToUnsigned<decltype(df)> di;
  const hn::Rebind<std::uint16_t, decltype(di)> d16;
  const hn::ScalableTag<double> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const hn::RebindToSigned<decltype(d)> dil;
  const hn::Rebind<float, decltype(d)> df_half;
  const hn::Rebind<std::uint32_t, decltype(d)> di_half;
  using VF = hn::Vec<decltype(df)>;
  using VI = hn::Vec<decltype(di)>;
  using VD = hn::Vec<decltype(d)>;
  using VU = hn::Vec<decltype(du)>;
  const std::size_t NF = hn::Lanes(df), ND = hn::Lanes(d);
  const std::size_t half = std::size_t{1} << (width - 1);
  // The magnitude tables padded to a whole vector (indices below `half` only are used).
  HWY_ALIGN float ta[HWY_MAX_BYTES / sizeof(float)] = {};
  HWY_ALIGN float tb[HWY_MAX_BYTES / sizeof(float)] = {};
  std::copy(a_table, a_table + std::min(half, NF), ta);  // the caller checked half <= NF (GroupPlanarLanes)
  std::copy(b_table, b_table + std::min(half, NF), tb);
  if (kFull)
    for (std::size_t x = 0; x < half && x + half < NF; ++x) {
      ta[x + half] = -ta[x];
      tb[x + half] = -tb[x];
    }
  const VF va_table = hn::Load(df, ta), vb_table = hn::Load(df, tb);
  const VI magnitude = hn::Set(di, static_cast<std::uint32_t>(kFull ? 2 * half - 1 : half - 1));
  const VI sign_bit = hn::Set(di, 0x80000000u);
  const VI too_wide = hn::Set(di, static_cast<std::uint32_t>(2 * half - 1));  // patterns above it: bits beyond the width
  const int sign_shift = 32 - width;
  const VD zero_e = hn::Set(d, kZeroExponent), bias = hn::Set(d, 1023.0);
  const hn::Vec<decltype(du)> field_mask = hn::Set(du, 0x7ff);
  const OutRounding rounding(p, p.final_rounding);
  const BlockEnd end(p);
  const std::size_t groups = (len + group - 1) / group;
  // Group sums of the elements in flight (at most kIntBlock of them: the int16 sums below) and
  // their "pattern beyond the width" flags.
  HWY_ALIGN float G[kMaxTileGroups * kIntBlock];
  HWY_ALIGN std::uint32_t wide[kIntBlock];

  // One operand row's patterns at p: binary32 values (NaN patterns give NaN entries), their OR
  // into `any`.
  auto decode = [&](const std::uint16_t* at, const VF& table, VI& any) {
    const VI x = hn::PromoteTo(di, hn::LoadU(d16, at));
    any = hn::Or(any, x);
    const VF mag = hn::TableLookupLanes(table, hn::IndicesFromVec(df, hn::And(x, magnitude)));
    if (kFull) return mag;
    return hn::Or(mag, hn::BitCast(df, hn::And(hn::ShiftLeftSame(x, sign_shift), sign_bit)));
  };

  // The group sums of NV vectors of elements from i: NV independent FMA chains, and with NV = 2
  // each product row's 64-byte line read in one step.
  auto sums = [&]<std::size_t NV>(std::size_t i) {
    VI any = hn::Zero(di);
    for (std::size_t g = 0; g < groups; ++g) {
      VF acc[NV];
      for (std::size_t v = 0; v < NV; ++v) acc[v] = hn::Zero(df);
      for (std::size_t t = g * group; t < std::min(len, (g + 1) * group); ++t) {
        // Every product row is its own stream, more than the hardware prefetcher follows (the
        // loads stalled about half the time without this; issue 25, mxdot). Addresses as
        // integers: past the rows' end a prefetch is harmless, pointer arithmetic not.
        hwy::Prefetch(reinterpret_cast<const std::uint16_t*>(reinterpret_cast<std::uintptr_t>(a + t * lda + i) + 2 * kAhead));
        hwy::Prefetch(reinterpret_cast<const std::uint16_t*>(reinterpret_cast<std::uintptr_t>(b + t * ldb + i) + 2 * kAhead));
        for (std::size_t v = 0; v < NV; ++v)
          acc[v] = hn::MulAdd(decode(a + t * lda + i + v * NF, va_table, any), decode(b + t * ldb + i + v * NF, vb_table, any),
                              acc[v]);
      }
      for (std::size_t v = 0; v < NV; ++v) hn::Store(acc[v], df, G + g * NV * NF + v * NF);
    }
    // A pattern beyond the width flags its lane position in every vector (they go to the exact path).
    for (std::size_t v = 0; v < NV; ++v) hn::Store(hn::VecFromMask(di, hn::Gt(any, too_wide)), di, wide + v * NF);
    return NV * NF;
  };

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  // Group sums in int16 lanes (issue 25, dotf4), where the caller found every operand value an
  // integer multiple of one power of two per operand (IntTables): a value is ints->a[pattern] *
  // 2^a_exp exactly, so each product is an integer times 2^(a_exp + b_exp), and the caller
  // checked that every partial group sum of those integers stays below 2^15 in magnitude
  // (BlockKernel::run_groups_planar: e2m1 integers up to 12, products up to 144, 16 or 32 of
  // them below 2^13). So the int16 sums never wrap and equal the binary32 sums above times
  // 2^-(a_exp + b_exp); the conversion back (an integer below 2^15 to binary32, times a power of
  // two within binary32's normal range) is exact, and G holds the same numbers as the binary32
  // path writes. One operand is one vpermw of its pattern (the table of the 2^width <= 32
  // patterns of both signs in one register), a product one vpmullw, 32 elements per vector.
  // Blocks of up to kIntBlock elements, product row outermost: each row's 1 KB of the block is
  // read as one contiguous run (the binary32 path above reads the 128 product rows of a
  // 64-byte column in turn, more streams than the prefetchers follow; with 16 accumulators in
  // registers the rows run in order, and software prefetch 1-8 rows ahead measured no gain).
  const hn::ScalableTag<std::int16_t> ds;
  using VS = hn::Vec<decltype(ds)>;
  const std::size_t NS = hn::Lanes(ds);
  VS ta16 = hn::Zero(ds), tb16 = hn::Zero(ds);
  if (ints) {
    ta16 = hn::LoadU(ds, ints->a);
    tb16 = hn::LoadU(ds, ints->b);
  }
  const VS too_wide16 = hn::Set(ds, static_cast<std::int16_t>(2 * half - 1));
  const VF unit = hn::Set(df, ints ? ints->unit : 1.0f);
  auto lookup16 = [](const VS& table, const VS& x) { return VS{_mm512_permutexvar_epi16(x.raw, table.raw)}; };
  auto isums = [&]<std::size_t NV>(std::size_t i) {
    VS any = hn::Zero(ds);
    const std::size_t W = NV * NS;
    for (std::size_t g = 0; g < groups; ++g) {
      VS acc[NV];
      for (std::size_t v = 0; v < NV; ++v) acc[v] = hn::Zero(ds);
      for (std::size_t t = g * group; t < std::min(len, (g + 1) * group); ++t) {
        const std::uint16_t* ra = a + t * lda + i;
        const std::uint16_t* rb = b + t * ldb + i;
        for (std::size_t v = 0; v < NV; ++v) {
          const VS xa = hn::LoadU(ds, reinterpret_cast<const std::int16_t*>(ra + v * NS));
          const VS xb = hn::LoadU(ds, reinterpret_cast<const std::int16_t*>(rb + v * NS));
          any = hn::Or(any, hn::Or(xa, xb));
          acc[v] = hn::Add(acc[v], hn::Mul(lookup16(ta16, xa), lookup16(tb16, xb)));
        }
      }
      for (std::size_t v = 0; v < NV; ++v) {
        const hn::Half<decltype(ds)> dh;
        const hn::Rebind<std::int32_t, decltype(dh)> d32;
        float* out = G + g * W + v * NS;
        hn::Store(hn::Mul(hn::ConvertTo(df, hn::PromoteTo(d32, hn::LowerHalf(dh, acc[v]))), unit), df, out);
        hn::Store(hn::Mul(hn::ConvertTo(df, hn::PromoteTo(d32, hn::UpperHalf(dh, acc[v]))), unit), df, out + NF);
      }
    }
    // As above: a pattern beyond the width (unsigned: also 0x8000 and up) flags its lane position
    // in every vector.
    const hn::RebindToUnsigned<decltype(ds)> dus;
    const VS flag = hn::BitCast(ds, hn::VecFromMask(dus, hn::Gt(hn::BitCast(dus, any), hn::BitCast(dus, too_wide16))));
    const hn::Half<decltype(ds)> dh;
    const hn::Rebind<std::int32_t, decltype(dh)> d32;
    const auto lo = hn::BitCast(di, hn::PromoteTo(d32, hn::LowerHalf(dh, flag)));
    const auto hi = hn::BitCast(di, hn::PromoteTo(d32, hn::UpperHalf(dh, flag)));
    for (std::size_t v = 0; v < NV; ++v) {
      hn::Store(lo, di, wide + v * NS);
      hn::Store(hi, di, wide + v * NS + NF);
    }
    return W;
  };
#else
  (void)ints;  // no int16 lanes with a 32-entry table on this target
#endif

  for (std::size_t i = 0; i < n;) {
    std::size_t W = 0;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
    if (ints && i + kIntBlock <= n)
      W = isums.template operator()<kIntBlock / 32>(i);
    else if (ints && i + NS <= n)
      W = isums.template operator()<1>(i);
#endif
    if (W == 0) W = i + 2 * NF <= n ? sums.template operator()<2>(i) : sums.template operator()<1>(i);
    for (std::size_t j = 0; j < W; j += ND) {
      // The terms: group sums (exact) times their scales (exact in binary64: checked by the
      // caller), each on its own leading bit; zero terms set no E.
      VD E = hn::LoadU(d, c_eref + i + j);
      VD T[kMaxPatternLen];
      for (std::size_t g = 0; g < groups; ++g) {
        VD term = hn::PromoteTo(d, hn::Load(df_half, G + g * W + j));
        if (a_scale)
          term = hn::Mul(hn::Mul(term, hn::LoadU(d, a_scale + g * lds + i + j)), hn::LoadU(d, b_scale + g * lds + i + j));
        T[g] = term;
        const VU field = hn::And(hn::ShiftRight<52>(hn::BitCast(du, term)), field_mask);
        const VD lead = hn::Sub(hn::ConvertTo(d, hn::BitCast(dil, field)), bias);
        E = hn::Max(E, hn::IfThenElse(hn::Eq(term, hn::Zero(d)), zero_e, lead));
      }
      auto bad = end.ClampE(E);
      VD shift, scale;
      bad = hn::Or(bad, end.Scale(E, shift, scale));
      // Patterns with bits beyond the width go to the exact path.
      bad = hn::Or(bad, hn::RebindMask(d, hn::Ne(hn::PromoteTo(du, hn::Load(di_half, wide + j)), hn::Zero(du))));
      VD s = end.Term(hn::LoadU(d, c_value + i + j), scale);
      for (std::size_t g = 0; g < groups; ++g) s = hn::Add(s, end.Term(T[g], scale));
      // NaN scales or c make s non-finite; zero sums, wraps go to the exact path.
      FinishLane(end, rounding, s, shift, bad, d_bits + i + j, d_value ? d_value + i + j : nullptr,
                 d_eref ? d_eref + i + j : nullptr, fixup + i + j);
    }
    i += W;
  }
}

void BlockGroupsPlanar(const LaneParams& p, int width, const float* a_table, const float* b_table,
                       const IntTables* ints, std::size_t n, std::size_t len, std::size_t group,
                       const std::uint16_t* a, std::size_t lda, const std::uint16_t* b, std::size_t ldb,
                       const double* a_scale, const double* b_scale, std::size_t lds, const double* c_value,
                       const double* c_eref, std::uint64_t* d_bits, double* d_value, double* d_eref,
                       std::uint8_t* fixup) {
  const bool full = (std::size_t{1} << width) <= hn::Lanes(hn::ScalableTag<float>());
  // The int16 sums where this target has them (AVX-512: vpermw) and the table fits a vector.
  const bool int_sums = GroupIntLanes() != 0 && (std::size_t{1} << width) <= GroupIntLanes();
  (full ? GroupsPlanar<true> : GroupsPlanar<false>)(p, width, a_table, b_table, int_sums ? ints : nullptr, n, len,
                                                    group, a, lda, b, ldb, a_scale, b_scale, lds, c_value, c_eref,
                                                    d_bits, d_value, d_eref, fixup);
}

}  // namespace tcsim::lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tcsim::lanes {

HWY_EXPORT(GroupPlanarLanes);
HWY_EXPORT(BlockGroupsPlanar);
HWY_EXPORT(GroupIntLanes);

std::size_t group_planar_lanes(std::size_t table_size) { return HWY_DYNAMIC_DISPATCH(GroupPlanarLanes)(table_size); }
std::size_t group_int_lanes() { return HWY_DYNAMIC_DISPATCH(GroupIntLanes)(); }

void block_groups_planar(const LaneParams& p, int width, const float* a_table, const float* b_table,
                         const IntTables* ints, std::size_t n, std::size_t len, std::size_t group,
                         const std::uint16_t* a, std::size_t lda, const std::uint16_t* b, std::size_t ldb,
                         const double* a_scale, const double* b_scale, std::size_t lds, const double* c_value,
                         const double* c_eref, std::uint64_t* d_bits, double* d_value, double* d_eref,
                         std::uint8_t* fixup) {
  HWY_DYNAMIC_DISPATCH(BlockGroupsPlanar)(p, width, a_table, b_table, ints, n, len, group, a, lda, b, ldb, a_scale,
                                          b_scale, lds, c_value, c_eref, d_bits, d_value, d_eref, fixup);
}

}  // namespace tcsim::lanes
#endif
