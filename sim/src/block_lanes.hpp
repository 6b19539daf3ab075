// Private to sim/src: the SIMD core of the block kernel (block_lanes.cpp, Highway with
// runtime dispatch). One output element per binary64 lane.
//
// Operands arrive decoded: a value (exact in binary64: at most 12 significand bits) and
// its reference exponent e_ref (the adder's alignment exponent: the exponent for normal
// values, emin for subnormals) as a double; zeros carry kZeroExponent so that they never
// set E. Then, per lane:
//   E = max(e_ref(c), e_ref(a_t) + e_ref(b_t), min_exponent),  scale = 2^(F - E),
//   s = align(c * scale) + sum_t align(a_t * b_t * scale)       (align: trunc/floor/ceil/round)
// Every product and every scaled term is exact in binary64 and so is the sum while
// F + 2 + log2(k + 1) <= 53 (checked by the caller). d = round(s * 2^(E - F)) into the output
// format, in integer lanes. A lane whose answer needs more than this (a NaN/Inf operand, a
// zero sum and its sign rules, a register wrap, a result outside the output's normal
// range) is flagged for the caller's exact scalar path instead.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tcsim::lanes {

inline constexpr double kZeroExponent = -1.0e9;
inline constexpr std::size_t kMaxPatternLen = 64;  // products per block on the pattern path

struct LaneParams {
  double fraction_bits = 0;        // F
  double min_exponent = -1.0e8;    // clamp of E (or far below every exponent)
  double wrap_limit = 0;           // 2^(1 + carry_bits + F): |s| at or above it wraps
  int alignment = 0;               // 0 rz, 1 rd, 2 ru, 3 rne
  // Output format and final rounding (0 rz, 1 rd, 2 ru, 3 rne, 4 ro).
  int final_rounding = 0;
  int out_precision = 24, out_emin = -126, out_emax = 127, out_bias = 127, out_width = 32;
  std::uint64_t out_max_finite_significand = 0;  // at emax, implicit bit included
  // Outputs below 2^out_emin kept as subnormals and read back as c the same way (c's format is
  // the output's, subnormal inputs kept: e_ref out_emin): block_tile_chain then carries binary16
  // block results down to 2^-24 instead of stopping (issue 25, h100k).
  bool out_subnormals = false;
};

// Decoding of a pattern format with the standard layout (block_kernel.cpp checks it):
// sign bit at width-1, exponent field above precision-1 fraction bits.
struct PatternCodec {
  int precision = 11, width = 16, bias = 15, emin = -14;
  std::uint64_t top_field = 31;  // all-ones exponent field
  int nan = 0;                   // 0: top field is Inf/NaN (IEEE); 1: all-ones pattern is NaN; 2: no NaN
  std::uint64_t width_mask = 0xffff;
};

// Whether block_fma_patterns can run with these parameters: alignment rz/rd/ru, a and b of
// at most 12 significand bits, and every block sum of up to `max_len` terms below 2^63
// (F + 2 + log2(max_len) <= 62); c decodable into binary64.
bool patterns_supported(const LaneParams& p, const PatternCodec& a, const PatternCodec& b, const PatternCodec& c,
                        bool keep_subnormals, std::size_t max_len);

// n block FMAs on patterns, element-major as BlockKernel::run takes them: operand t of
// element i at a[i * lda + t], b[i * ldb + t]; c[i]. Vectorized across the products of one
// element in integer lanes (exact significand products, shifts that round like the
// alignment, one integer sum), then across elements for c and the final rounding. Writes
// d[i], and fixup[i] = 1 where the caller must compute element i exactly (NaN/Inf or
// out-of-range patterns, no nonzero term, zero sums, wraps, results outside the normal range).
void block_fma_patterns(const LaneParams& p, const PatternCodec& a, const PatternCodec& b, const PatternCodec& c,
                        bool keep_subnormals, std::size_t n, std::size_t len, const std::uint64_t* a_bits,
                        std::size_t lda, const std::uint64_t* b_bits, std::size_t ldb, const std::uint64_t* c_bits,
                        std::uint64_t* d, std::uint8_t* fixup);

// The planar path: 16-bit patterns product-major (operand t of element i at a[t * lda + i]),
// one element per lane. Operand formats with exponent fields of 1 to 5 bits and at most 10
// fraction bits (decoded by moving the fields to binary16's places), subnormals kept, rz
// alignment, the int32 sum of each chunk of tile_chunk_len(F) products exact (at most kTileMaxChunks
// chunks, added in binary64), c as for
// patterns_supported.
bool planar16_supported(const LaneParams& p, const PatternCodec& a, const PatternCodec& b, const PatternCodec& c,
                        bool keep_subnormals, std::size_t max_len);
// Elements per vector of the planar path on this machine (n of block_fma_planar16 is a
// multiple of it); 0 where it has none (the scalar target).
std::size_t planar16_lane_count();
// n block FMAs on the planar path; writes d[i] and fixup[i] as block_fma_patterns.
void block_fma_planar16(const LaneParams& p, const PatternCodec& a, const PatternCodec& b, const PatternCodec& c,
                        std::size_t n, std::size_t len, const std::uint16_t* a_bits, std::size_t lda,
                        const std::uint16_t* b_bits, std::size_t ldb, const std::uint64_t* c_bits, std::uint64_t* d,
                        std::uint8_t* fixup);
// The same with operand t of element i at a_rows[t][offset + i] (rows anywhere; issue 25).
void block_fma_planar16_rows(const LaneParams& p, const PatternCodec& a, const PatternCodec& b, const PatternCodec& c,
                             std::size_t n, std::size_t len, const std::uint16_t* const* a_rows,
                             const std::uint16_t* const* b_rows, std::size_t offset, const std::uint64_t* c_bits,
                             std::uint64_t* d, std::uint8_t* fixup);

// Lanes of the best target on this machine (elements per vector).
std::size_t lane_count();

// n block FMAs, n a multiple of lane_count(). Operand t of element i is at [t * ld + i]
// (a_broadcast: a is one value per t, at a_value[t], shared by every element: a GEMM row).
// c_value/c_eref hold one entry per element. Writes the pattern d[i], and (when not null)
// the rounded value and its e_ref, ready to be the next block's c; fixup[i] = 1 where the
// caller must compute element i exactly (the other outputs are then unspecified).
void block_fma(const LaneParams& p, std::size_t n, std::size_t len, const double* a_value, const double* a_eref,
               bool a_broadcast, const double* b_value, const double* b_eref, std::size_t ld,
               const double* c_value, const double* c_eref, std::uint64_t* d, double* d_value, double* d_eref,
               std::uint8_t* fixup);

// Block-scaled rows that sum their products exactly in groups (models' BlockScaleSpec::group_size,
// unit scales): per element j the terms are the group sums
//   G_g = sum over t in [g * group, (g + 1) * group), t < len, of a_value[t] * b_value[t * ld + j] (a_value[t * ld + j] unless a_broadcast),
// each aligned on its own leading bit (e_ref = floor(log2 |G_g|), zero sums set no E); the rest
// (c, E, the clamp, alignment, sum, rounding, flags) as block_fma with a broadcast. The caller
// checks that every group sum is exact in binary64 and a normal number (BlockKernel).
void block_fma_groups(const LaneParams& p, std::size_t n, std::size_t len, std::size_t group, const double* a_value,
                      bool a_broadcast, const double* b_value, std::size_t ld, const double* c_value, const double* c_eref,
                      std::uint64_t* d, double* d_value, double* d_eref, std::uint8_t* fixup);

// x[i] + y[i] (two values of the output format) rounded into it with `rounding` (as
// LaneParams::final_rounding): one IEEE addition, exact through binary64 for RNE when the
// output has at most 25 significand bits (2p + 2 <= 53: the binary64 sum's rounding is
// innocuous). Zero sums, NaN/Inf and results outside the normal range are flagged.
void add_round(const LaneParams& p, int rounding, std::size_t n, const double* x, const double* y, std::uint64_t* d,
               double* d_value, double* d_eref, std::uint8_t* fixup);

}  // namespace tcsim::lanes

namespace tcsim::lanes {

// ---- Tiles of a GEMM in binary32 lanes (block_tile.cpp): for rz alignment, operands exact in
// binary32 with at most 12 significand bits (fp16, bf16, tf32, fp8, ...), F + 2 + log2(k) <= 31
// (the block sum is exact in int32) or blocks of at most kTileMaxChunks int32 chunks summed in
// binary64 (F + 3 + log2(k) <= 53) and c/d formats exact in binary32 (block_kernel.cpp checks
// all this); outputs whose products could leave binary32's range are flagged (kTileMaxE).
// An operand is its value (binary32, exact) and e_ref (int32); zeros carry kTileZero and
// NaN/Inf (or patterns out of range) kTileSpecial, so that a block touching them is flagged.
inline constexpr std::int32_t kTileZero = -(1 << 26);
inline constexpr std::int32_t kTileSpecial = 1 << 28;
inline constexpr std::size_t kTileRows = 4;  // rows of A per micro-tile
// A and B's e_refs as int16 (twice the lanes in block_tile's E pass). Normal e_refs of tile
// formats lie within +-300; the sentinels keep every sum of two far from them:
// zero + normal <= -5700, special + anything >= 5700, special + special fits int16.
inline constexpr std::int16_t kTileZero16 = -6000;
inline constexpr std::int16_t kTileSpecial16 = 12000;
// Products per int32 partial sum: 2^(29 - F) keeps F + 2 + log2(chunk) <= 31. Blocks of up to
// kTileMaxChunks chunks run on the tiles, their chunk sums added in binary64 (issue 25: the
// fp8/fp6/fp4 rows with F = 25 and k = 32 take two chunks of 16); 0 where F > 29.
inline constexpr std::size_t kTileMaxChunks = 4;
inline std::size_t tile_chunk_len(double fraction_bits) {
  return fraction_bits >= 0 && fraction_bits <= 29 ? std::size_t{1} << (29 - static_cast<int>(fraction_bits)) : 0;
}
inline constexpr std::int32_t kTileFlagLimit = 4096;  // |raw E| beyond it: no nonzero term, or a special
// Raw E above it is flagged: a product a b < 2^(E + 2) with at most 24 significant bits is a
// finite binary32 number up to E = 126 (bf16 and tf32 products reach 2^256).
inline constexpr std::int32_t kTileMaxE = 126;
inline std::int16_t tile_eref16(std::int32_t e) {
  return e == kTileZero ? kTileZero16 : (e == kTileSpecial ? kTileSpecial16 : static_cast<std::int16_t>(e));
}

// Patterns of `f` into binary32 values (exact, NaN for NaN/Inf and out-of-range patterns) and
// int32 e_refs (kTileZero, kTileSpecial).
void decode_tile_lanes(const PatternCodec& f, bool keep_subnormals, std::size_t count, const std::uint64_t* bits,
                       float* value, std::int32_t* eref);
// The same with int16 e_refs (tile_eref16's), for rows x cols patterns: row r at bits + r *
// ld_bits into value, eref at [r * ld_out + j].
void decode_tile16_lanes(const PatternCodec& f, bool keep_subnormals, std::size_t rows, std::size_t cols,
                         const std::uint64_t* bits, std::size_t ld_bits, float* value, std::int16_t* eref,
                         std::size_t ld_out);

// Columns per micro-tile on this machine (cols passed to block_tile is a multiple of it).
std::size_t tile_columns();

// One block FMA for every output of a rows x cols tile: d[r][j] = c[r][j] +
// sum_{t < len} a[r][t] b[t][j] (a at a_value[r * lda + t], b at b_value[t * ldb + j], their
// e_refs as tile_eref16, c and d
// at [r * ldc + j]). Writes d's pattern, value and e_ref, and returns how many outputs the
// caller must compute exactly, their offsets r * ldc + j in flagged[] (room for rows * ldc).
std::size_t block_tile(const LaneParams& p, std::size_t rows, std::size_t cols, std::size_t len, const float* a_value,
                       const std::int16_t* a_eref, std::size_t lda, const float* b_value, const std::int16_t* b_eref,
                       std::size_t ldb, const float* c_value, const std::int32_t* c_eref, std::uint64_t* d_bits,
                       float* d_value, std::int32_t* d_eref, std::size_t ldc, std::uint32_t* flagged);

// ---- The block-scaled GEMM with group sums on tiles (block_group_tile.cpp; issue 25: mxf4nvf4):
// d[r][j] = the block FMA from c[r][j] whose terms are, for every group g < ceil(len / group),
//   T_g = (sum over t in [g * group, (g + 1) * group), t < len, of a[r * lda + t] * b[t * ldb + j])
//         * a_scale[r * ldas + g] * b_scale[g * ldb + j],
// each aligned on its own leading bit (zeros set no E), then as block_fma_groups. The group sums
// run in binary32 lanes: the caller checks that every product and partial sum is exact there
// (BlockKernel::group_tile_supported) and that every T_g is exact and normal in binary64 (or
// NaN: a NaN scale flags its outputs). c and d at [r * ldc + j] (value, e_ref, pattern);
// fixup[r * ldc + j] = 1 where the caller must compute the output exactly. cols is a multiple of
// group_tile_columns(); groups at most kMaxTileGroups.
inline constexpr std::size_t kMaxTileGroups = 8;
std::size_t group_tile_columns();
void block_group_tile(const LaneParams& p, std::size_t rows, std::size_t cols, std::size_t len, std::size_t group,
                      const float* a, std::size_t lda, const double* a_scale, std::size_t ldas, const float* b,
                      std::size_t ldb, const double* b_scale, const double* c_value, const double* c_eref,
                      std::size_t ldc, std::uint64_t* d_bits, double* d_value, double* d_eref, std::uint8_t* fixup);

// ---- Group sums on product-major 16-bit patterns (block_group_planar.cpp; issue 25: dot_batch of
// mxf4nvf4): n elements (a multiple of group_planar_lanes(2^width)), operand t of element i at
// a[t * lda + i], b[t * ldb + i], patterns of `width` bits whose top bit is the sign: the value is
// table[pattern & (2^(width-1) - 1)] with that sign (NaN entries for NaN/Inf patterns). The terms
// are the group sums (in binary32: the caller checks they are exact), times a_scale[g * lds + i] *
// b_scale[g * lds + i] where a_scale is not null (exact in binary64: checked by the caller), then as
// block_fma_groups. Elements with a pattern of more than `width` bits are flagged.
// ints (may be null): the same values as integers, a value = ints->a[pattern] * 2^a_exp for every
// pattern of `width` bits (both signs; ints->unit = 2^(a_exp + b_exp)), with every partial group
// sum of the integer products below 2^15 in magnitude (the caller checks both): where the target
// has int16 lanes with a table of 2^width patterns (group_int_lanes()), the group sums run there.
struct IntTables {
  std::int16_t a[32] = {}, b[32] = {};
  float unit = 1;
};
std::size_t group_planar_lanes(std::size_t table_size);  // 0 where the half table does not fit a vector
std::size_t group_int_lanes();                            // 0 where the int16 group sums do not run
void block_groups_planar(const LaneParams& p, int width, const float* a_table, const float* b_table,
                         const IntTables* ints, std::size_t n, std::size_t len, std::size_t group,
                         const std::uint16_t* a, std::size_t lda, const std::uint16_t* b, std::size_t ldb,
                         const double* a_scale, const double* b_scale, std::size_t lds, const double* c_value,
                         const double* c_eref, std::uint64_t* d_bits, double* d_value, double* d_eref,
                         std::uint8_t* fixup);

}  // namespace tcsim::lanes
