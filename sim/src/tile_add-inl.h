// Private to sim/src: the final addition u + c of the fp8 mma.sync emulation rows in SIMD
// lanes (tile_add.cpp: tile_add_rne, pattern_add_rne; block_tile_chain.cpp: the pairs-mod4
// chain), one vector at a time, included once per Highway target. See tile_add.cpp for why
// each exit is exact.
#if defined(TCSIM_SIM_TILE_ADD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TCSIM_SIM_TILE_ADD_INL_H_
#undef TCSIM_SIM_TILE_ADD_INL_H_
#else
#define TCSIM_SIM_TILE_ADD_INL_H_
#endif

#include <hwy/highway.h>

#include <cstdint>

#include "block_lanes.hpp"

HWY_BEFORE_NAMESPACE();
namespace tcsim::lanes::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// x + c rounded to nearest even into binary32 (kBinary16 false) or binary16, x and c exact
// values of that format held as binary32: the result's pattern (low 16 or 32 bits), its value
// and e_ref (as decode_tile: zeros kTileZero, binary16 subnormals -14); returns the lanes the
// caller must add exactly (tile_add.hpp: tile_add_rne says which).
template <bool kBinary16, class DF>
HWY_INLINE hn::Mask<DF> AddVec(DF df, hn::Vec<DF> x, hn::Vec<DF> c, hn::Vec<hn::RebindToUnsigned<DF>>& bits,
                               hn::Vec<DF>& value, hn::Vec<hn::RebindToSigned<DF>>& eref) {
  const hn::RebindToSigned<DF> di;
  const hn::RebindToUnsigned<DF> du;
  const auto zero_i = hn::Zero(di), one_i = hn::Set(di, 1);
  const auto tile_zero = hn::Set(di, kTileZero);
  const auto sign_bit = hn::Set(du, 0x80000000u);
  const auto s = hn::Add(x, c);
  // Two zeros: the tile values of zeros need not carry their signs (decode_tile's exact path
  // keeps +0), so the sign of the sum is left to the exact addition.
  auto bad = hn::Or(hn::Not(hn::IsFinite(s)), hn::And(hn::Eq(x, hn::Zero(df)), hn::Eq(c, hn::Zero(df))));
  const auto s_sign = hn::And(hn::BitCast(du, s), sign_bit);
  if constexpr (!kBinary16) {
    const auto min_normal = hn::Set(df, 0x1p-126f);
    auto tiny = [&](auto v) { return hn::And(hn::Lt(hn::Abs(v), min_normal), hn::Ne(v, hn::Zero(df))); };
    bad = hn::Or(bad, hn::Or(tiny(s), hn::Or(tiny(x), tiny(c))));
    // A zero sum of operands that are not opposite: flushed by FTZ (never in the default environment).
    bad = hn::Or(bad, hn::And(hn::Eq(s, hn::Zero(df)), hn::Ne(x, hn::Neg(c))));
    bits = hn::BitCast(du, s);
    value = s;
    const auto field = hn::BitCast(di, hn::And(hn::ShiftRight<23>(bits), hn::Set(du, 0xffu)));
    eref = hn::IfThenElse(hn::RebindMask(di, hn::Eq(s, hn::Zero(df))), tile_zero, hn::Sub(field, hn::Set(di, 127)));
  } else {
    const auto bb = hn::Sub(s, x);
    const auto err = hn::Add(hn::Sub(x, hn::Sub(s, bb)), hn::Sub(c, bb));  // x + c = s + err exactly
    const auto inexact = hn::RebindMask(di, hn::Ne(err, hn::Zero(df)));
    // |exact| < |s| where err's sign differs from s's: truncation is one step down.
    const auto below = hn::And(inexact, hn::Lt(hn::Xor(hn::BitCast(di, err), hn::BitCast(di, s)), zero_i));
    auto u = hn::BitCast(di, hn::Abs(s));
    u = hn::Or(hn::Sub(u, hn::IfThenElseZero(below, one_i)), hn::IfThenElseZero(inexact, one_i));  // round to odd
    const auto field = hn::ShiftRight<23>(u);
    const auto sig = hn::Or(hn::And(u, hn::Set(di, 0x7fffff)), hn::IfThenElseZero(hn::Ne(u, zero_i), hn::Set(di, 0x800000)));
    // Bits below binary16's last place: 13 in its normal range, more below 2^-14 (field 113).
    const auto under = hn::Max(hn::Sub(hn::Set(di, 113), field), zero_i);
    const auto drop = hn::BitCast(du, hn::Min(hn::Add(hn::Set(di, 13), under), hn::Set(di, 30)));
    const auto usig = hn::BitCast(du, sig);
    const auto kept = usig >> drop;
    const auto rem = hn::Sub(usig, kept << drop);
    const auto half = hn::Set(du, 1) << hn::Sub(drop, hn::Set(du, 1));
    const auto up = hn::Or(hn::Gt(rem, half), hn::And(hn::Eq(rem, half), hn::Ne(hn::And(kept, hn::Set(du, 1)), hn::Zero(du))));
    const auto rounded = hn::BitCast(di, hn::Add(kept, hn::IfThenElseZero(up, hn::Set(du, 1))));
    const auto mag16 = hn::Add(hn::ShiftLeft<10>(hn::Max(hn::Sub(field, hn::Set(di, 113)), zero_i)), rounded);
    bad = hn::Or(bad, hn::RebindMask(df, hn::Gt(mag16, hn::Set(di, 0x7bff))));
    bits = hn::Or(hn::BitCast(du, mag16), hn::ShiftRight<16>(s_sign));
    // The value as binary32: normal binary16 fields rebiased; subnormals mag16 * 2^-24.
    const auto normal = hn::Gt(mag16, hn::Set(di, 0x3ff));
    const auto as_normal = hn::BitCast(df, hn::Add(hn::ShiftLeft<13>(mag16), hn::Set(di, 112 << 23)));
    const auto as_sub = hn::Mul(hn::ConvertTo(df, mag16), hn::Set(df, 0x1p-24f));
    value = hn::BitCast(df, hn::Or(hn::BitCast(du, hn::IfThenElse(hn::RebindMask(df, normal), as_normal, as_sub)), s_sign));
    eref = hn::IfThenElse(normal, hn::Sub(hn::ShiftRight<10>(mag16), hn::Set(di, 15)), hn::Set(di, -14));
    eref = hn::IfThenElse(hn::Eq(mag16, zero_i), tile_zero, eref);
  }
  return bad;
}

}  // namespace tcsim::lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
