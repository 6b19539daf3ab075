// block_fma_roundoff (unit.hpp): the two unit roundoffs of blanchard2020's block-FMA model
// (u_fma of the result, u_bar of the internal sum), derived from a row's parameters so the
// bounds of GEMM and LU follow the unit rather than an assumed IEEE binary32 accumulator.
#include <cmath>
#include <string>

#include "tcsim/models/unit.hpp"

namespace tcsim::models {
namespace {
// Relative error of one rounding to `precision` significant bits in mode r: half an ulp for
// round to nearest, a whole ulp for the directed modes, round to odd and stochastic rounding.
double rounding_unit(int precision, Rounding r) {
  return std::ldexp(1.0, r == Rounding::NearestEven ? -precision : 1 - precision);
}
std::string mode_name(Rounding r) { return r == Rounding::NearestEven ? "rne" : "directed"; }
}  // namespace

BlockFmaRoundoff block_fma_roundoff(const Unit& unit, const Format& in, const Format& out,
                                    std::string_view instruction) {
  const DatapathSpec& row = unit.datapath(in, out, instruction);
  const AdderConfig c = make_adder_config(row, in, out);  // out_format: result_fraction_bits applied
  BlockFmaRoundoff r;
  r.b = row.fma_size;
  // An instruction named with a K below the row's k (CDNA3's K = 4 forms, RTX m16n8k16 fp8)
  // runs blocks of K: the model's b.
  if (const auto sel = unit.select_instruction(in, out, instruction);
      sel.shape && sel.shape->k < row.fma_size && !row.block_scale && row.k_split == KSplit::Consecutive &&
      row.c_entry == CEntry::Accumulator)
    r.b = sel.shape->k;
  r.u_fma = rounding_unit(c.out_format.precision, c.final_rounding);
  r.how = "u_fma = " + mode_name(c.final_rounding) + " rounding to " + std::to_string(c.out_format.precision) + " bits";
  if (row.c_entry == CEntry::FinalAdd) {
    // Each block is rounded, and at most one IEEE addition of the incoming accumulator
    // follows each block: both roundings are charged to the block.
    const Rounding add = row.final_add_rounding.count(out.name) ? row.final_add_rounding.at(out.name)
                                                                 : Rounding::NearestEven;
    r.u_fma += rounding_unit(out.precision, add);
    r.how += " + the final addition's rounding";
  }
  if (c.normalization == Normalization::PerStep) {
    // Every partial sum is rounded into the output: recursive summation at u_fma.
    r.u_bar = r.u_fma;
    r.how += "; u_bar = u_fma (normalized at every step)";
    return r;
  }
  // Deferred normalization: each of the b products and c loses less than 2^(E-F) (half that
  // when aligned to nearest) and the largest term is at least 2^E (normal operands), so one
  // block's internal error is below (b+1) 2^-F times the sum of its terms' magnitudes.
  const double per_term = std::ldexp(1.0, c.alignment_rounding == Rounding::NearestEven ? -c.fraction_bits - 1
                                                                                       : -c.fraction_bits);
  r.u_bar = per_term * (r.b + 1) / r.b;
  r.how += "; u_bar = (b+1)/b 2^-" + std::to_string(c.fraction_bits) +
           (c.alignment_rounding == Rounding::NearestEven ? "/2 (alignment to nearest)" : " (truncated alignment)");
  if (c.late_products_rounding) {
    r.u_bar += rounding_unit(c.out_format.precision, *c.late_products_rounding);
    r.how += " + the products' rounding before c";
  }
  return r;
}

}  // namespace tcsim::models
