// Unit models: a tensor-core unit is a table of datapaths (data) over the fixed-point
// adder, plus chaining of block FMAs, instruction shapes and block-scaled (MX) ops.
// Adding a GPU is adding rows (models/src/unit_table.cpp).
//
// Semantics of one element (units.md section 1): d = c + sum_{i<K} a_i b_i is computed
// as ceil(K/k) block FMAs of k = fma_size products (the last block padded with +0
// products), each one's rounded output being the next one's c (step 6). c and d are
// bit patterns of the output format; a and b of the input format. K = 0 runs one
// block of zero products (so c still goes through the adder, as on hardware).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tcsim/sim/adder.hpp"
#include "tcsim/sim/format.hpp"
#include "tcsim/sim/rounding.hpp"

namespace tcsim::models {

// How the products of a long dot product are cut into block FMAs.
enum class KSplit {
  Consecutive,  // "consecutive": k products at a time, in index order
  PairsMod4,    // "pairs-mod4": per instruction K of 2k products, the first block takes the
                // indices with i mod 4 in {0,1}, the second those in {2,3} (fp8 operands
                // converted pairwise into fp16x2 registers: the fp8 mma.sync emulation of
                // Hopper and Blackwell)
};
// Where c enters the chain of block FMAs.
enum class CEntry {
  Accumulator,  // "accumulator": c is the first block's accumulator input
  FinalAdd,     // "final-add": per instruction (2k products with pairs-mod4, else k), the
                // blocks start from +0, each rounded into the output format with the final
                // rounding, and the incoming accumulator (c, then the previous instruction's
                // d) is added to their result by one IEEE addition in the output format,
                // rounded with final_add_rounding
};

// Block scaling of an MX-style row (Blackwell kind::mxf8f6f4 / kind::mxf4nvf4).
// Product i of a block FMA uses scale i / block_size of each operand; the scales
// multiply into the products (power-of-two ue8m0 scales add to the product exponents).
struct BlockScaleSpec {
  std::vector<std::string> scale_formats;  // "ue8m0", "ue4m3"
  std::vector<int> block_sizes;            // elements per scale factor: 16, 32
  // 0: every scaled product is a separate term of the fused sum (mxf8f6f4).
  // g > 0: each group of g products is summed exactly, multiplied by its scales and
  // becomes one term of the fused sum (mxf4nvf4, g = 16).
  int group_size = 0;
  bool operator==(const BlockScaleSpec&) const = default;
};

// One datapath of a unit = one row of the user-defined-unit JSON schema
// (docs: models/README.md). A row covers every (input, output) pair of its format lists.
struct DatapathSpec {
  // "" = the unit's generic datapath for these formats: it serves every instruction
  // named by its shapes. Otherwise the instruction (family) it models: "mma.sync",
  // "tcgen05", "wgmma", "tcgen05.mxf8f6f4", ... For each (input, output) pair the
  // first row in the table is the default (the one the published data used).
  std::string instruction;
  std::vector<std::string> input_formats;   // names as parse_format accepts
  std::vector<std::string> output_formats;
  int fma_size = 4;                         // products per block FMA (k)
  int fraction_bits = 23;                   // F; kExactFractionBits ("exact"): no alignment loss
  static constexpr int kExactFractionBits = -1;
  int carry_bits = 3;
  Rounding alignment_rounding = Rounding::TowardZero;  // rz|rd|ru|rne
  bool sticky_bit = false;
  Normalization normalization = Normalization::Deferred;
  AccumulationOrder order = AccumulationOrder::LargestFirst;
  CPlacement c_placement = CPlacement::Aligned;
  // Late c only (optional): the products' fused sum is first rounded into the output
  // format with this mode, then c is added (AdderConfig::late_products_rounding).
  std::optional<Rounding> late_products_rounding;
  // Optional keys of the AMD datapaths (units.md 3b; AdderConfig in sim/adder.hpp):
  // "after_add" {sum_fraction_bits, c_fraction_bits, rounding, renormalize_fraction_bits,
  // drop_c_below}: used with c_placement "after"; "product_groups" (interleaved groups, with
  // "after"); "input_fraction_bits" (a and b truncated, xf32: 10); "flushed_input_sign"
  // ("keep" | "positive"); "product_rounding" (per-step: products rounded into the output
  // format first); "product_overflow" ("exact" | "inf": deferred products >= 2^(emax+1) are Inf).
  AfterAdd after_add;
  int product_groups = 1;
  std::optional<int> input_fraction_bits;
  bool flush_inputs_positive = false;
  std::optional<Rounding> product_rounding;
  bool product_overflow_inf = false;
  // Optional key "mixed_inputs": a and b may have different formats, any ordered pair of
  // input_formats (CDNA3 fp8_bf8 / bf8_fp8 MFMA, Blackwell kind::f8f6f4 and sm_120 fp8 mma):
  // each operand is decoded in its own format, the products are exact. false: a and b share
  // one format.
  bool mixed_inputs = false;
  KSplit k_split = KSplit::Consecutive;     // optional key "k_split"
  CEntry c_entry = CEntry::Accumulator;     // optional key "c_entry"
  std::map<std::string, Rounding> final_rounding;       // per output format name (all of them)
  // c_entry final-add only, per output format: the rounding of the addition of c (rne,
  // rz, ru, rd, ro). Unit fills missing outputs with rne, the IEEE default, which is what
  // the Hopper/Blackwell fp8 emulation does for both outputs while its blocks round the
  // binary32 result toward zero (units.md s2). Must be empty with c_entry accumulator.
  std::map<std::string, Rounding> final_add_rounding;
  std::map<std::string, int> min_exponent;              // optional clamp of E per output format
  // Optional key "overflow": a result beyond the largest finite value. "ieee" (Inf, or the
  // largest finite value when the mode rounds toward zero), "inf" (Inf whatever the mode:
  // NVIDIA, X25's hardware tests), "saturate", "nan". Every output format of the row.
  OverflowMode overflow = OverflowMode::Ieee;
  // Optional key "zero_sign": the sign of an exact zero result: "ieee" (-0 when every term
  // is -0) or "positive" (+0 always: NVIDIA, X25's hardware tests "minus zero -> +0.0").
  ZeroSign zero_sign = ZeroSign::Ieee;
  bool subnormal_inputs = true;
  bool subnormal_outputs = true;
  // Optional, per output format: the normalized result keeps only this many fraction bits
  // (rounded with the final rounding mode) although it is encoded in the output format.
  // Ada/Hopper fp8 -> fp32: 13 (units.md s2: "binary32 output keeps only 13 fraction
  // bits"). Missing: the output format's own fraction bits.
  std::map<std::string, int> result_fraction_bits;
  // NaN result pattern per output format; missing: 0x7fffffff (fp32), 0x7fff (fp16) [X25],
  // the format's canonical NaN otherwise.
  std::map<std::string, std::uint64_t> nan_pattern;
  // Instruction shapes served by this row: "<instruction>.m<M>n<N>k<K>[b<B>][:<in>,...]",
  // e.g. "wmma.m16n16k16", "mma.sync.m16n8k16", "wgmma.m64nNk16" (N = 8, 16, ..., 256),
  // "tcgen05.m128nN16k16" (N a multiple of 16 up to 256), or an ISA instruction by its own
  // name, "v_mfma_f32_16x16x4f16.m16n16k4b4:fp16": B independent blocks of m x n x k (the
  // batched MFMA forms), served only for the listed input formats (the name fixes them).
  std::vector<std::string> shapes;
  std::optional<BlockScaleSpec> block_scale;  // MX rows only
  std::string evidence;                       // sources: units.md, fasi2021, data files

  bool operator==(const DatapathSpec&) const = default;
};

struct UnitSpec {
  std::string name;                   // canonical: v100, t4, a100, l40s, h100, b200, or user's
  std::string architecture;           // volta, turing, ampere, ada, hopper, blackwell, user
  std::vector<std::string> aliases;   // further accepted names (a2, a30, h200, ...)
  std::vector<DatapathSpec> datapaths;
  bool operator==(const UnitSpec&) const = default;
};

// An instruction shape: D (MxN) = A (MxK) B (KxN) + C (MxN).
struct MmaShape {
  std::string instruction;  // "wmma", "mma.sync", "wgmma", "tcgen05", "v_mfma_f32_32x32x8_f16", ...
  int m = 0, n = 0, k = 0;
  int blocks = 1;           // independent blocks of m x n x k (AMD's batched _2b/_4b/_16b forms)
  std::string name() const;  // "mma.sync.m16n8k16"
};

// A shape pattern of a row, parsed: N may be a range (step, max).
struct ShapePattern {
  std::string instruction;
  int m = 0, k = 0;
  int n = 0;          // fixed N, or 0 when N is a range
  int n_step = 0;     // range: N = n_step, 2 n_step, ..., n_max
  int n_max = 0;
  int blocks = 1;     // "b<B>": independent blocks
  std::vector<std::string> input_formats;  // ":<in>,...": canonical names; empty = all of the row's
  // ":<a>*<b>": a name that fixes each operand's format (CDNA3 v_mfma_*_fp8_bf8): a's format in
  // input_formats, b's here (a mixed_inputs row). Such a shape serves only a x b.
  std::vector<std::string> input_formats_b;
  std::string text;   // as written
  bool matches(int m_, int n_, int k_) const;
};
// Parses "<instruction>.m<M>n<N|N|N16>k<K>[b<B>][:<in>,...|:<a>*<b>]"; throws std::invalid_argument
// naming `field`. Format names are checked (and made canonical) by Unit's constructor.
ShapePattern parse_shape_pattern(std::string_view text, std::string_view field = "shapes");

// What an `instruction` argument selects for in -> out (Unit::select_instruction).
struct InstructionSelection {
  std::size_t row = 0;            // index into UnitSpec::datapaths
  // When the name identifies one instruction shape (an ISA name such as
  // "v_mfma_f32_32x32x4_2b_f16", a full shape name such as "mma.sync.m16n8k16", or a family
  // with a single shape): that shape. Its k is then the K of one instruction, which dot,
  // dot_batch, gemm and mma chain by (blocks of min(k, fma_size) products, padded); without
  // it the row's own grouping applies. Blocks of a batched form are independent: they do
  // not change K.
  std::optional<MmaShape> shape;
};

// One instruction a unit offers by name (Unit::named_instructions), for listings.
struct NamedInstruction {
  std::string name;                     // "v_mfma_f32_32x32x8_f16", "mma.sync.m16n8k32", "wgmma.m64nNk16"
  std::size_t row = 0;                  // serving row
  std::vector<std::string> input_formats, output_formats;
  ShapePattern shape;
};

class Unit {
 public:
  // Validates every row: throws std::invalid_argument naming the unit, the row and the
  // field, with the allowed values. Builds one adder per (row, input, output).
  explicit Unit(UnitSpec spec);
  ~Unit();
  Unit(Unit&&) noexcept;
  Unit& operator=(Unit&&) noexcept;
  Unit(const Unit&) = delete;
  Unit& operator=(const Unit&) = delete;

  const std::string& name() const { return spec_.name; }
  const UnitSpec& spec() const { return spec_; }

  // The row serving in -> out for `instruction` ("" = the default row of the pair;
  // a generic row serves every instruction its shapes name). Throws
  // std::invalid_argument: "unit 'v100' does not support e4m3 -> fp32; supported:
  // fp16->fp32, fp16->fp16", or the instructions available for the pair.
  const DatapathSpec& datapath(const Format& in, const Format& out,
                               std::string_view instruction = "") const;
  std::size_t datapath_index(const Format& in, const Format& out,
                             std::string_view instruction = "") const;
  // Mixed operand formats: a of `in_a`, b of `in_b` (in_a == in_b: as above). A pair no
  // mixed_inputs row serves throws std::invalid_argument: "unit 'mi300x' does not support
  // e4m3fnuz x fp16 -> fp32; mixed pairs (a x b): e4m3fnuz x e5m2fnuz -> fp32, ...". adder,
  // batch_path(_planar), dot, dot_batch(_planar) and gemm_into have such overloads too.
  const DatapathSpec& datapath(const Format& in_a, const Format& in_b, const Format& out,
                               std::string_view instruction = "") const;
  std::size_t datapath_index(const Format& in_a, const Format& in_b, const Format& out,
                             std::string_view instruction = "") const;
  // The mixed pairs the unit serves: "e4m3 x e5m2 -> fp32", in table order without duplicates.
  std::vector<std::string> mixed_pairs() const;
  // The adder of one block FMA of that row (cached at construction). Its out_format is
  // `out`, or, for rows with result_fraction_bits, a narrower format (same exponent range,
  // precision result_fraction_bits + 1) whose patterns dot() re-encodes in `out`.
  const FixedPointAdder& adder(const Format& in, const Format& out,
                               std::string_view instruction = "") const;
  const FixedPointAdder& adder(const Format& in_a, const Format& in_b, const Format& out,
                               std::string_view instruction = "") const;

  // How dot_batch evaluates in -> out: "kernel" (sim's BlockKernel, int64 lanes, proven
  // equal to the reference adder by differential tests) or "reference: <why the kernel
  // refuses the row>" (FixedPointAdder element by element); block-scaled rows with group sums
  // "kernel (group sums, binary32 lanes)" or, on targets with fewer than 8 binary32 lanes,
  // "kernel (group sums)" (binary64 lanes; gemm runs these, gemm_scaled the group tiles); the
  // AMD rows their kernels' names (docs/performance.md, "Paths").
  std::string batch_path(const Format& in, const Format& out, std::string_view instruction = "") const;
  std::string batch_path(const Format& in_a, const Format& in_b, const Format& out,
                         std::string_view instruction = "") const;

  // How dot_batch_planar evaluates in -> out: "kernel (planar)" (one element per SIMD lane)
  // or "regrouped for dot_batch: " + batch_path().
  std::string batch_path_planar(const Format& in, const Format& out, std::string_view instruction = "") const;
  std::string batch_path_planar(const Format& in_a, const Format& in_b, const Format& out,
                                std::string_view instruction = "") const;

  // Resolves an instruction name for in -> out: a row's instruction ("wgmma", "v1"), a shape
  // family ("mma.sync"), a full shape name ("mma.sync.m16n8k32") or an ISA name
  // ("v_mfma_f32_32x32x8_f16"; also without "v_", in any case, and with or without the
  // underscore CDNA3 puts before the type: "v_mfma_f32_32x32x8f16"). "" = the default row.
  // Throws std::invalid_argument listing the instructions for the pair, or saying which
  // formats a known name takes.
  InstructionSelection select_instruction(const Format& in, const Format& out, std::string_view instruction) const;
  // The same for a x b operands of two formats (a row with mixed_inputs).
  InstructionSelection select_instruction(const Format& in_a, const Format& in_b, const Format& out,
                                          std::string_view instruction) const;
  // Every instruction shape of every row, in table order (one entry per shape entry).
  std::vector<NamedInstruction> named_instructions() const;

  // Supported (input, output) pairs, in table order without duplicates: "fp16->fp32".
  std::vector<std::string> format_pairs() const;
  // Instructions serving in -> out, the default first.
  std::vector<std::string> instructions(const Format& in, const Format& out) const;

  // One element, any K = a.size() (== b.size(), else std::invalid_argument).
  std::uint64_t dot(const Format& in, const Format& out, std::span<const std::uint64_t> a,
                    std::span<const std::uint64_t> b, std::uint64_t c,
                    std::string_view instruction = "") const;
  std::uint64_t dot(const Format& in_a, const Format& in_b, const Format& out, std::span<const std::uint64_t> a,
                    std::span<const std::uint64_t> b, std::uint64_t c, std::string_view instruction = "") const;
  // n elements of K products each: a, b hold n*K patterns (element i uses [i*K, i*K+K)),
  // c and d n patterns; the same bits as dot() on each element, through the block kernel
  // where batch_path() says so. Deterministic; `threads` > 1 splits the elements over
  // threads (0 = hardware concurrency). Thread-safe (a Unit is immutable).
  void dot_batch(const Format& in, const Format& out, std::size_t n, std::size_t K,
                 const std::uint64_t* a, const std::uint64_t* b, const std::uint64_t* c,
                 std::uint64_t* d, std::string_view instruction = "",
                 unsigned threads = 1) const;
  void dot_batch(const Format& in_a, const Format& in_b, const Format& out, std::size_t n, std::size_t K,
                 const std::uint64_t* a, const std::uint64_t* b, const std::uint64_t* c, std::uint64_t* d,
                 std::string_view instruction = "", unsigned threads = 1) const;

  // The same on 16-bit patterns stored product-major, as a K x n matrix whose columns are
  // the elements: operand t of element i at a[t * n + i], b[t * n + i] (numpy's a.T of an
  // n x K array). A quarter of the bytes of dot_batch and one element per SIMD lane: the
  // fast layout for many independent elements. Formats of at most 16 bits (else
  // std::invalid_argument naming `in`); rows the planar kernel does not serve are regrouped
  // for dot_batch. The same bits as dot() on each element, for any `threads`.
  void dot_batch_planar(const Format& in, const Format& out, std::size_t n, std::size_t K,
                        const std::uint16_t* a, const std::uint16_t* b, const std::uint64_t* c,
                        std::uint64_t* d, std::string_view instruction = "", unsigned threads = 1) const;
  void dot_batch_planar(const Format& in_a, const Format& in_b, const Format& out, std::size_t n, std::size_t K,
                        const std::uint16_t* a, const std::uint16_t* b, const std::uint64_t* c, std::uint64_t* d,
                        std::string_view instruction = "", unsigned threads = 1) const;

  // D = C + A B for any m, n, K: A (m x K) and B (K x n) row-major patterns of `in`, C and
  // the result (m x n) of `out`. D[i][j] has the bits of dot() on row i of A, column j of B
  // and C[i][j] (blanchard2020 Algorithm 3.1: k split into the unit's blocks, chained through
  // the accumulator). Operands are decoded once; rows served by the block kernel
  // (batch_path()) run it over one row of A against panels of B's columns. The result is the
  // same for any `threads` (0: all cores): every element is computed by the same sequence.
  std::vector<std::uint64_t> gemm(const Format& in, const Format& out, std::size_t m, std::size_t n,
                                  std::size_t K, std::span<const std::uint64_t> A,
                                  std::span<const std::uint64_t> B, std::span<const std::uint64_t> C,
                                  std::string_view instruction = "", unsigned threads = 0) const;

  // gemm() into a caller's D (m x n patterns): no allocation of the result (repeated GEMMs,
  // benchmarks).
  void gemm_into(const Format& in, const Format& out, std::size_t m, std::size_t n, std::size_t K,
                 std::span<const std::uint64_t> A, std::span<const std::uint64_t> B,
                 std::span<const std::uint64_t> C, std::span<std::uint64_t> D, std::string_view instruction = "",
                 unsigned threads = 0) const;
  // Mixed operand formats: A of `in_a`, B of `in_b`.
  void gemm_into(const Format& in_a, const Format& in_b, const Format& out, std::size_t m, std::size_t n,
                 std::size_t K, std::span<const std::uint64_t> A, std::span<const std::uint64_t> B,
                 std::span<const std::uint64_t> C, std::span<std::uint64_t> D, std::string_view instruction = "",
                 unsigned threads = 0) const;
  // Shapes the unit offers for in -> out (all rows serving the pair, or only those for
  // `instruction`), as written in the table.
  std::vector<std::string> shapes(const Format& in, const Format& out,
                                  std::string_view instruction = "") const;
  // Resolves "m16n8k16" or "mma.sync.m16n8k16" against the unit's shapes for the pair;
  // throws listing the available shapes.
  MmaShape resolve_shape(const Format& in, const Format& out, std::string_view shape,
                         std::string_view instruction = "") const;
  // D = A B + C for one instruction shape: A MxK, B KxN, C and D MxN, row-major bit
  // patterns; every element is the chained dot() of the serving row (split k).
  std::vector<std::uint64_t> mma(const Format& in, const Format& out, std::string_view shape,
                                 std::span<const std::uint64_t> A,
                                 std::span<const std::uint64_t> B,
                                 std::span<const std::uint64_t> C,
                                 std::string_view instruction = "") const;

  // Block-scaled element (MX rows): scale_a / scale_b hold ceil(K / block_size) patterns
  // of `scale_format`; product i uses scale i / block_size. Chained over blocks of k as
  // dot(). `block_size` 0 = the row's first block size. `instruction` "" = the first
  // block-scaled row of the pair.
  std::uint64_t dot_scaled(const Format& in, const Format& out,
                           std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                           const Format& scale_format, std::span<const std::uint64_t> scale_a,
                           std::span<const std::uint64_t> scale_b, std::uint64_t c,
                           int block_size = 0, std::string_view instruction = "") const;
  // Mixed operand formats (a block-scaled row with mixed_inputs: kind::mxf8f6f4), each
  // operand with its own scales.
  std::uint64_t dot_scaled(const Format& in_a, const Format& in_b, const Format& out,
                           std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                           const Format& scale_format, std::span<const std::uint64_t> scale_a,
                           std::span<const std::uint64_t> scale_b, std::uint64_t c,
                           int block_size = 0, std::string_view instruction = "") const;

  // Block-scaled GEMM (MX rows): D = C + A B through the block-scaled row, every output as
  // dot_scaled of row i of A and column j of B with their scales. nb = ceil(K / block_size);
  // scale_a holds m x nb patterns of `scale_format` (row i, products [q bs, (q+1) bs) at
  // [i * nb + q]), scale_b nb x n ([q * n + j]). On the kernel's lanes where the row has them
  // (batch_path), the scales folded into the decoded operands.
  std::vector<std::uint64_t> gemm_scaled(const Format& in, const Format& out, std::size_t m, std::size_t n,
                                         std::size_t K, std::span<const std::uint64_t> A,
                                         std::span<const std::uint64_t> B, std::span<const std::uint64_t> C,
                                         const Format& scale_format, std::span<const std::uint64_t> scale_a,
                                         std::span<const std::uint64_t> scale_b, int block_size = 0,
                                         std::string_view instruction = "", unsigned threads = 0) const;

 private:
  // The block-scaled row dot_scaled and gemm_scaled use; checks scale_format and block_size
  // (0: set to the row's first).
  std::size_t scaled_row(const Format& in, const Format& in_b, const Format& out, const Format& scale_format, int& block_size,
                         std::string_view instruction) const;
  // One element through row `row` (already resolved for in -> out).
  // instruction_k > 0: the K of one instruction (InstructionSelection::shape), which
  // accumulator rows with consecutive products chain by.
  std::uint64_t dot_in_row(std::size_t row, const Format& in, const Format& out,
                           std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                           std::uint64_t c, std::size_t instruction_k = 0) const {
    return dot_in_row(row, in, in, out, a, b, c, instruction_k);
  }
  std::uint64_t dot_in_row(std::size_t row, const Format& in_a, const Format& in_b, const Format& out,
                           std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                           std::uint64_t c, std::size_t instruction_k = 0) const;
  // instruction_k of a selection for its row (0 where the row groups by itself).
  std::size_t instruction_k(const InstructionSelection& s) const;
  // The instructions serving in_a x in_b -> out, the default first.
  std::vector<std::string> instructions(const Format& in_a, const Format& in_b, const Format& out) const;
  struct Impl;
  UnitSpec spec_;
  std::unique_ptr<Impl> impl_;
};

// The adder configuration of one row for in -> out (the mapping from the schema). With
// result_fraction_bits for `out`, out_format is result_format(out, bits) and c_format `out`.
AdderConfig make_adder_config(const DatapathSpec& row, const Format& in, const Format& out);
// Mixed operand formats (a row with mixed_inputs): a_format in_a, b_format in_b.
AdderConfig make_adder_config(const DatapathSpec& row, const Format& in_a, const Format& in_b, const Format& out);

// blanchard2020's block-FMA model for one row: the result of a block FMA carries a relative
// error of at most u_fma (its final rounding, plus the accumulator addition of final-add
// rows), and the internal sum of b terms of at most b u_bar (alignment to F bits below the
// largest term: u_bar = (b+1)/b 2^-F when truncated; u_bar = u_fma when normalized at every
// step). First order, normal operands (no underflow), as the papers' bounds. `how` says
// where the two figures come from.
struct BlockFmaRoundoff {
  double b = 4;
  double u_fma = 0;
  double u_bar = 0;
  std::string how;
};
BlockFmaRoundoff block_fma_roundoff(const Unit& unit, const Format& in, const Format& out,
                                    std::string_view instruction = "");

// `out` with only `fraction_bits` fraction bits (same exponent range and specials), named
// "<out>r<bits>": the format the adder rounds into for result_fraction_bits.
Format result_format(const Format& out, int fraction_bits);

// Built-in units (unit_table.cpp, unit_table_amd.cpp): v100, t4, a100, l40s, h100, b200, rtx5090, mi100,
// mi250x, mi300x, in that order.
const std::vector<UnitSpec>& builtin_unit_specs();
// Looks a built-in unit up by name, alias or architecture, case-insensitively; throws
// std::invalid_argument listing every accepted name.
const Unit& builtin_unit(std::string_view name);
// "v100 (volta), t4 (turing), ..." for error messages and help texts.
std::string builtin_unit_names();

// Carry bits that never wrap on k unnormalised products (each < 4*2^E) plus c (< 2*2^E):
// ceil(log2(4k+2)) - 1.
int safe_carry_bits(int fma_size);

// Vocabulary of the JSON schema (shared with the JSON reader): "rz", "per-step", ...
std::string schema_string(Rounding r);
std::string schema_string(Normalization n);
std::string schema_string(AccumulationOrder o);
std::string schema_string(CPlacement c);
std::string schema_string(OverflowMode m);  // ieee, inf, saturate, nan
std::string schema_string(ZeroSign z);      // ieee, positive
std::string schema_string(KSplit k);
std::string schema_string(CEntry c);

// The allowed values of a row's integer keys: fma_size 1..65536, fraction_bits
// 0..AdderConfig::kMaxFractionBits, carry_bits 0..AdderConfig::kMaxCarryBits. One rule for the
// JSON reader, Unit's constructor and `tcsim explore --vary` (std::logic_error for other keys).
struct RowIntRange {
  long long lo, hi;
};
RowIntRange row_int_range(std::string_view key);
// "<value> is out of range; allowed: <lo>..<hi>", or empty when `value` is allowed.
std::string row_int_refusal(std::string_view key, long long value);

}  // namespace tcsim::models
