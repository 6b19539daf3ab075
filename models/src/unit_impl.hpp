// Private to models/src: the Unit's per-row cache (formats, adders, fast kernels) and the
// helpers its files share.
#pragma once
#include <algorithm>
#include <bit>
#include <cmath>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tcsim/models/unit.hpp"
#include "tcsim/sim/block_kernel.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/after_add.hpp"
#include "tcsim/sim/exact_block.hpp"
#include "tcsim/sim/ieee_tree.hpp"

namespace tcsim::models::detail {

std::string lower(std::string_view s);
std::string join(const std::vector<std::string>& v, const char* sep = ", ");
void push_unique(std::vector<std::string>& v, const std::string& s);
inline std::string pair_text(const Format& in, const Format& out) { return in.name + "->" + out.name; }
// Whether a shape of a row serves input format `in` (its ":<in>,..." list, else every input).
// (A shape naming a pair, ":<a>*<b>", serves no single format.)
inline bool shape_serves(const ShapePattern& p, const Format& in) {
  if (!p.input_formats_b.empty()) return false;
  return p.input_formats.empty() ||
         std::find(p.input_formats.begin(), p.input_formats.end(), in.name) != p.input_formats.end();
}

// One instruction's products for KSplit::PairsMod4 (at most `group` = 2k): indices with
// i mod 4 in {0,1} first, then {2,3}, padded with +0 products to `group` (unit_dot.cpp).
void split_pairs_mod4(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b, std::size_t group,
                      std::vector<std::uint64_t>& pa, std::vector<std::uint64_t>& pb);
// d + c as one IEEE addition in `out` with `mode` (CEntry::FinalAdd); NaN gives `nan`; an
// overflow follows the row's `overflow` (OverflowMode::Infinity: Inf even under RZ).
std::uint64_t ieee_add(const Format& out, std::uint64_t d, std::uint64_t c, Rounding mode, std::uint64_t nan,
                       OverflowMode overflow = OverflowMode::Ieee);


// Rows whose block FMAs are IEEE binary64 FMAs in index order (the fp64 rows: per-step
// normalization, sequential order, a sticky bit, F wide enough for an exact product and RNE
// into binary64 at every step): dot_batch and gemm evaluate them with std::fma. Equality with
// the reference adder: models/tests/test_kernel_differential.cpp.
// The binary32 rows of the same shape (AMD v_mfma_f32_*f32) use std::fmaf (issue 25).
inline bool is_fma_chain(const AdderConfig& cfg, const DatapathSpec& row) {
  const Format& f = cfg.out_format;
  if (!(f == formats::fp64()) && !(f == formats::fp32())) return false;
  return cfg.a_format == f && cfg.b_format == f && cfg.c_format == f &&
         cfg.normalization == Normalization::PerStep && cfg.order == AccumulationOrder::Sequential &&
         cfg.c_placement == CPlacement::Aligned && cfg.final_rounding == Rounding::NearestEven && cfg.sticky_bit &&
         cfg.fraction_bits >= 2 * f.precision + 3 && cfg.subnormal_inputs && cfg.subnormal_outputs && !cfg.min_exponent &&
         cfg.zero_sign == ZeroSign::Ieee &&  // std::fma's zeros; overflow under RNE is Inf either way
         (cfg.overflow == OverflowMode::Ieee || cfg.overflow == OverflowMode::Infinity) &&
         row.c_entry == CEntry::Accumulator && row.k_split == KSplit::Consecutive && !cfg.uses_extended_fields();
}

// One element of such a row: K products a[t * sa] b[t * sb] fused into c in index order, the
// +0 padding products of the last block included (they decide the sign of a zero), any NaN
// as the row's NaN pattern.
// The binary32 rows: std::fmaf (correctly rounded, subnormals kept: the default environment).
inline std::uint64_t fma_chain32(std::size_t K, std::size_t k, const std::uint64_t* a, std::size_t sa,
                                 const std::uint64_t* b, std::size_t sb, std::uint64_t c, std::uint64_t nan) {
  auto f = [](std::uint64_t x) { return std::bit_cast<float>(static_cast<std::uint32_t>(x)); };
  float acc = f(c);
  for (std::size_t t = 0; t < K; ++t) acc = std::fmaf(f(a[t * sa]), f(b[t * sb]), acc);
  const std::size_t padding = K == 0 ? k : (k - K % k) % k;
  for (std::size_t t = 0; t < padding; ++t) acc = std::fmaf(0.0f, 0.0f, acc);
  return std::isnan(acc) ? nan : std::bit_cast<std::uint32_t>(acc);
}

inline std::uint64_t fma_chain(std::size_t K, std::size_t k, const std::uint64_t* a, std::size_t sa,
                               const std::uint64_t* b, std::size_t sb, std::uint64_t c, std::uint64_t nan,
                               bool binary32 = false) {
  if (binary32) return fma_chain32(K, k, a, sa, b, sb, c, nan);
  double acc = std::bit_cast<double>(c);
  for (std::size_t t = 0; t < K; ++t)
    acc = std::fma(std::bit_cast<double>(a[t * sa]), std::bit_cast<double>(b[t * sb]), acc);
  const std::size_t padding = K == 0 ? k : (k - K % k) % k;
  for (std::size_t t = 0; t < padding; ++t) acc = std::fma(0.0, 0.0, acc);
  return std::isnan(acc) ? nan : std::bit_cast<std::uint64_t>(acc);
}

}  // namespace tcsim::models::detail

namespace tcsim::models {

struct Unit::Impl {
  struct Row {
    std::vector<Format> ins, outs;
    std::vector<ShapePattern> shapes;
    std::vector<std::string> shape_instructions;  // unique, in order
    // index i * outs.size() + o; a mixed_inputs row then appends the mixed pairs (mixed_index)
    std::vector<FixedPointAdder> adders;
    bool mixed = false;                           // the row's mixed_inputs
    // The fast block kernel of each adder (same index), null where it refuses; then
    // kernel_refusals says why (dot_batch falls back to the reference adder).
    std::vector<std::shared_ptr<const BlockKernel>> kernels;
    std::vector<std::string> kernel_refusals;
    // Block-scaled rows with group sums (BlockScaleSpec::group_size > 0): the kernel whose
    // run_row_groups serves gemm with unit scales (same index), null where it cannot.
    std::vector<std::shared_ptr<const BlockKernel>> group_kernels;
    std::vector<bool> fma_chains;  // per pair: detail::is_fma_chain (dot_batch and gemm use fma_chain)
    // Per pair: binary32 trees in host arithmetic (AMD CDNA2; sim ieee_tree.hpp) where the block
    // kernel refuses and binary32_tree_unsupported accepts; null otherwise.
    std::vector<std::shared_ptr<const Binary32TreeKernel>> trees;
    // Per pair: c added after the products in int64 (AMD CDNA3; sim after_add.hpp), likewise.
    std::vector<std::shared_ptr<const AfterAddKernel>> afters;
    // Per pair: exact blocks in 128-bit integers (AMD CDNA1; sim exact_block.hpp), likewise.
    std::vector<std::shared_ptr<const ExactBlockKernel>> exacts;
    std::vector<std::optional<Format>> narrow;    // per output: result_fraction_bits format
    std::vector<std::uint64_t> nan_out;           // per output: NaN pattern
    OverflowMode overflow = OverflowMode::Ieee;   // the row's, for the final-add addition
    std::vector<Format> scale_formats;
    std::size_t out_index(const Format& out) const {
      return static_cast<std::size_t>(std::find(outs.begin(), outs.end(), out) - outs.begin());
    }
    // A block's result in the output format (re-encoding a narrow result).
    // The narrow format has the output's sign and exponent field, fewer fraction bits: the
    // fraction moves up, every value (subnormals and Inf included) stays the same.
    std::uint64_t to_out(std::size_t o, std::uint64_t bits) const {
      if (!narrow[o]) return bits;
      const Format& nf = *narrow[o];
      const Format& of = outs[o];
      if (of.nan != NanEncoding::Ieee || nf.exponent_bits != of.exponent_bits || nf.bias != of.bias ||
          (bits & ~nf.width_mask())) {  // not a field-for-field re-encoding: by value
        const ExactValue v = decode(nf, bits);
        if (v.is_nan()) return nan_out[o];
        return round_bits(v, of, Rounding::NearestEven);  // exact
      }
      const int nfrac = nf.fraction_bits, ofrac = of.fraction_bits;
      const std::uint64_t field = (bits >> nfrac) & ((std::uint64_t{1} << nf.exponent_bits) - 1);
      const std::uint64_t frac = bits & ((std::uint64_t{1} << nfrac) - 1);
      if (field == (std::uint64_t{1} << nf.exponent_bits) - 1 && frac != 0) return nan_out[o];
      const std::uint64_t sign = (bits & nf.sign_mask()) ? of.sign_mask() : 0;
      return sign | (field << ofrac) | (frac << (ofrac - nfrac));
    }
    bool has(const Format& in, const Format& out) const {
      return std::find(ins.begin(), ins.end(), in) != ins.end() &&
             std::find(outs.begin(), outs.end(), out) != outs.end();
    }
    std::size_t pair_index(const Format& in, const Format& out) const {
      const auto i = static_cast<std::size_t>(std::find(ins.begin(), ins.end(), in) - ins.begin());
      return i * outs.size() + out_index(out);
    }
    const FixedPointAdder& adder(const Format& in, const Format& out) const { return adders[pair_index(in, out)]; }
    std::size_t in_index(const Format& in) const {
      return static_cast<std::size_t>(std::find(ins.begin(), ins.end(), in) - ins.begin());
    }
    // Mixed pairs (ia != ib), in the order the constructor builds them: ia, then ib != ia, then o.
    std::size_t mixed_index(std::size_t ia, std::size_t ib, std::size_t o) const {
      const std::size_t pair = ia * (ins.size() - 1) + (ib < ia ? ib : ib - 1);
      return ins.size() * outs.size() + pair * outs.size() + o;
    }
    bool has(const Format& a, const Format& b, const Format& out) const {
      return has(a, out) && has(b, out) && (a == b || mixed);
    }
    std::size_t pair_index(const Format& a, const Format& b, const Format& out) const {
      if (a == b) return pair_index(a, out);
      return mixed_index(in_index(a), in_index(b), out_index(out));
    }
    const FixedPointAdder& adder(const Format& a, const Format& b, const Format& out) const {
      return adders[pair_index(a, b, out)];
    }
  };
  std::vector<Row> rows;
};


}  // namespace tcsim::models
