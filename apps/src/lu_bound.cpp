// lu_bound (lu_bound.hpp).
#include "lu_bound.hpp"

#include "tcsim/reference/bounds.hpp"

namespace tcsim::cli {

namespace {

namespace rb = reference::bounds;

double roundoff_of(const std::string& precision) {
  return precision == "fp16" ? rb::u_fp16 : precision == "fp32" ? rb::u_fp32 : rb::u_fp64;
}

}  // namespace

// The constant c with |dA| <= c (|A| + |L^||U^|) and (A + dA) x^ = b: the factorization's
// bound from its theorem plus the substitutions in u_s, 2 g_n + g_n^2 (Higham's Theorem 9.4
// argument, as blanchard2020 (4.7) adds it).
LuBound lu_bound(const models::LuResult& lu, const models::Unit& unit, const Format& in, const std::string& instruction,
               const std::string& solve) {
  const double n = static_cast<double>(lu.n), r = static_cast<double>(lu.block), s = static_cast<double>(lu.inner_block);
  const double us = roundoff_of(solve);
  LuBound b;
  double f = 0;
  if (lu.algorithm == "rl") {
    rb::BlockFmaParams p;
    p.n = n;
    p.u = roundoff_of(lu.storage);
    if (lu.variant == "fp16" || lu.variant == "fp32") {  // no tensor core: one precision
      p.b = 1;
      p.u_low = p.u_fma = p.u_bar = lu.variant == "fp16" ? rb::u_fp16 : rb::u_fp32;
    } else {
      const bool tc16 = lu.variant == "tc16";
      const models::BlockFmaRoundoff ro =
          models::block_fma_roundoff(unit, in, tc16 ? formats::fp16() : formats::fp32(), instruction);
      p.b = unit.datapath(in, tc16 ? formats::fp16() : formats::fp32(), instruction).fma_size;
      p.u_low = rb::unit_roundoff(in);
      p.u_fma = ro.u_fma;
      p.u_bar = ro.u_bar;
    }
    f = rb::blanchard_thm43(p);
    b.source = "blanchard2020 Theorem 4.3 (4.4)";
  } else if (lu.algorithm == "ll") {
    f = rb::lopez_mary_total(rb::lopez_mary_thm2(n, r, rb::u_fp16, rb::u_fp32), rb::u_fp16);
    b.source = "lopez2022 Theorem 2";
  } else if (lu.algorithm == "ll-fp32-panel") {
    f = rb::lopez_mary_total(rb::lopez_mary_thm3(n, r, rb::u_fp16, rb::u_fp32), rb::u_fp16);
    b.source = "lopez2022 Theorem 3 (5.1)";
  } else if (lu.algorithm == "dp") {
    const rb::PanelFactor pf = lu.panel == "rl-fp16"   ? rb::PanelFactor::Alg31U16
                               : lu.panel == "rl-fp32" ? rb::PanelFactor::Alg31U32
                               : lu.panel == "ll"      ? rb::PanelFactor::Alg41
                                                       : rb::PanelFactor::Alg51;
    const rb::Table2Row row = rb::lopez_mary_table2(pf, n, r, s);
    f = rb::lopez_mary_total(rb::lopez_mary_thm4(n, r, row.g, row.u_in, row.u_out, rb::u_fp32), rb::u_fp16);
    b.source = "lopez2022 Theorem 4 (5.6)-(5.7) with Table 2's g";
  } else {  // uniform precision: Higham (2002) Theorem 9.3, |dA| <= g_n |L^||U^|
    f = rb::gamma(n, roundoff_of(lu.storage));
    b.source = "uniform LU, gamma_n (lopez2022 Algorithms 2.1/2.2)";
  }
  const double gs = rb::gamma(n, us);
  b.value = f + 2 * gs + gs * gs;
  b.source += ", + substitutions in " + solve + " (2 gamma_n + gamma_n^2)";
  return b;
}

}  // namespace tcsim::cli
