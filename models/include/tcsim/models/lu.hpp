// Simulated LU factorization and solution of Ax = b on a tensor-core unit (issue 8).
//
// Every matrix-multiply update runs through the unit (simulate_gemm: L and U rounded to the
// unit's input format, as blanchard2020 Algorithm 4.1 line 8 and lopez2022 Algorithm 3.1
// lines 11-12 convert them); every other operation is correctly rounded on its own in the
// named precision (a product, then a difference, then a quotient; never fused).
//
// Algorithms (n x n, blocks of r columns; q = ceil(n / r), the last block may be narrower):
// - rl: right-looking, blanchard2020 Algorithm 4.1 = lopez2022 Algorithm 3.1. The matrix is
//   stored in u = fp16 or fp32; per block column the panel is factorized and U's block row
//   solved in u, then A22 <- A22 - L21 U12 through the unit in the variant of blanchard2020
//   Table 4.1 (fp16, tc16, tc32, fp32) and stored back in u. Storage by default fp16 for the
//   fp16 and tc16 variants and fp32 for tc32 and fp32; --storage fp16 alone means tc16
//   (lopez2022's Algorithm 3.1 with u = u16 rounds D to fp16 after every block FMA).
// - ll: lopez2022 Algorithm 4.1, left-looking (Crout), fp16 storage: the block column and
//   block row of step k are copied to fp32 buffers (at most n r entries), updated by all
//   earlier steps through the unit in TC32 (one GEMM of depth (k-1) r: the block FMA chain of
//   lines 7-10), rounded back to fp16, then factorized in fp16.
// - ll-fp32-panel: lopez2022 Algorithm 5.1: as ll, but the panel is factorized in fp32 in the
//   buffer and its L and U rounded to fp16 afterwards.
// - dp: lopez2022 Algorithm 5.2, doubly partitioned: as ll with outer blocks r, the panel
//   factorized by PanelFactor, a partitioned LU with inner blocks s whose updates also run
//   through the unit: rl-fp16 (Algorithm 3.1, u = u16: TC16), rl-fp32 (Algorithm 3.1,
//   u = u32 on the fp32 buffer: TC32, result rounded to fp16), ll (Algorithm 4.1) or
//   ll-fp32-panel (Algorithm 5.1), as lopez2022 Table 2.
// - ref-rl, ref-ll: the uniform-precision references, lopez2022 Algorithms 2.1 and 2.2, in
//   fp16, fp32 or fp64 (--storage): no unit; an update A_ij - L_ik U_kj is computed entry by
//   entry as d <- fl(d - fl(l u)) in k order.
//
// Pivoting: off by default (as in the papers); with pivot = true the panel factorization
// swaps whole rows (partial pivoting on the column being eliminated). In the left-looking
// algorithms the block row of a step is updated after its panel's pivots are chosen (the
// same operations as the papers' order for ll and ll-fp32-panel; dp then solves the block row
// with the panel's factors as stored, in fp16, see lu.cpp). A zero, subnormal or
// non-finite pivot, and a value that overflows a format it must be stored in, stop the
// factorization with LuBreakdown naming the step, the block and the value (on_breakdown = Stop,
// the default). With on_breakdown = Continue the factorization carries on as the GPU does, in
// IEEE arithmetic (blanchard2020 ran its fp16 variants to n = 45000 without pivoting): a
// subnormal pivot divides as IEEE does, a zero pivot gives +-Inf or NaN multipliers, overflow
// gives +-Inf (whatever the storage rounding and the unit's rows give), Inf - Inf gives NaN;
// LuResult::events names the first subnormal pivot, zero pivot, overflow (Inf) and NaN.
//
// Reported per run: the fp32 buffer entries of lopez2022 Table 1 and the bytes moved under
// its two-level memory model ((4.4) for the right-looking algorithms: every trailing entry
// loaded once per step, in the storage precision; (4.5) for the left-looking ones: the L and
// U entries the updates of the block column and row load, in fp16).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tcsim/models/gemm.hpp"
#include "tcsim/models/lu_matrices.hpp"
#include "tcsim/models/unit.hpp"

namespace tcsim::models {

enum class LuAlgorithm { Rl, Ll, LlFp32Panel, Dp, RefRl, RefLl };
std::string lu_algorithm_name(LuAlgorithm a);  // "rl", "ll", "ll-fp32-panel", "dp", "ref-rl", "ref-ll"
LuAlgorithm parse_lu_algorithm(std::string_view text, std::string_view field = "alg");

// PanelFactor of dp (lopez2022 Table 2 rows Alg. 3.1 u16, Alg. 3.1 u32, Alg. 4.1, Alg. 5.1).
enum class LuPanel { RlFp16, RlFp32, Ll, LlFp32Panel };
std::string lu_panel_name(LuPanel p);  // "rl-fp16", "rl-fp32", "ll", "ll-fp32-panel"
LuPanel parse_lu_panel(std::string_view text, std::string_view field = "panel");

// What a breakdown does: stop (LuBreakdown) or continue in IEEE arithmetic (see above).
enum class LuOnBreakdown { Stop, Continue };
std::string lu_on_breakdown_name(LuOnBreakdown b);  // "stop", "continue"
// Throws std::invalid_argument "<field>: 'x' is not allowed; allowed: stop, continue".
LuOnBreakdown parse_lu_on_breakdown(std::string_view text, std::string_view field = "on_breakdown");

struct LuOptions {
  LuAlgorithm algorithm = LuAlgorithm::Rl;
  GemmVariant variant = GemmVariant::Tc32;  // rl: the update GEMMs (fp16, tc16, tc32, fp32);
                                            // the others run TC32 (ll, dp) or no unit (ref)
  std::string storage;                      // rl: fp16 | fp32; ref-*: fp16 | fp32 | fp64;
                                            // ll, ll-fp32-panel, dp: fp16; "": the default
  LuPanel panel = LuPanel::LlFp32Panel;     // dp's PanelFactor
  std::size_t block = 64;                   // r: columns per (outer) block, >= 1
  std::size_t inner_block = 8;              // s: dp's inner blocks, 1 <= s <= r
  bool pivot = false;                       // partial pivoting (rows of the whole matrix)
  std::string instruction;                  // unit row of the update GEMMs
  unsigned threads = 0;                     // 0: all cores; the bits do not depend on it
  LuOnBreakdown on_breakdown = LuOnBreakdown::Stop;
  // Called after each outer block with the fraction of columns done (progress bars).
  std::function<void(double)> progress;
};

// The first event of one kind in a factorization (or a substitution) run with
// LuOnBreakdown::Continue: "first" in the order of a sequential run (steps in order; within a
// pass, the loop order), so it does not depend on the threads.
struct LuEvent {
  bool found = false;
  std::size_t step = 0;      // 1-based column being eliminated, as in LuBreakdown's messages;
                             // 0: A rounded to the storage format (or a substitution)
  std::size_t block = 0;     // 1-based block of r columns holding the step (0 with step 0)
  std::size_t row = 0, col = 0;  // the entry LU[row][col] as stored then (rows after the swaps
                                 // made so far); a substitution: row = col = the index in y or x
  double value = 0;          // the value the entry (or the pivot) holds: +-Inf, NaN, a subnormal, 0
  std::string where;         // "the elimination", "the update A22 - L21 U12", "converting the fp32
                             // buffer to fp16", "rounding A to the fp16 storage", "the pivot",
                             // "the forward substitution (y)", "the back substitution (x)"
};
struct LuEvents {
  LuEvent subnormal_pivot;  // a nonzero pivot below the normal range of the panel's precision
  LuEvent zero_pivot;       // a pivot equal to zero: the multipliers below it become +-Inf or NaN
  LuEvent overflow;         // the first +-Inf (a value beyond the format's range, or x / 0)
  LuEvent nan;              // the first NaN (Inf - Inf, 0 / 0, 0 * Inf, or from the unit)
  bool any() const { return subnormal_pivot.found || zero_pivot.found || overflow.found || nan.found; }
};

struct LuResult {
  std::size_t n = 0;
  // n x n row-major values of the storage format: U on and above the diagonal, L's
  // multipliers below it (L has a unit diagonal).
  std::vector<double> LU;
  std::vector<std::size_t> perm;  // row i of LU is row perm[i] of A (identity without pivoting)
  std::string algorithm;          // lu_algorithm_name
  std::string storage;            // format name of the factors: fp16, fp32 or fp64
  std::string variant;            // variant_name of the outer updates, or "uniform" (ref-*)
  std::string panel;              // dp: lu_panel_name; "" otherwise
  std::size_t block = 0, inner_block = 0;  // r; s (dp only, else 0)
  std::string path;               // simulate_gemm's path of the updates ("kernel", "ieee", ...)
  std::size_t unit_calls = 0;     // GEMMs run through the unit
  double fp32_buffer_entries = 0; // lopez2022 Table 1: fp32 entries held at once
  double bytes_moved = 0;         // lopez2022 (4.4) / (4.5), see above
  std::string bytes_model;        // "lopez2022 (4.4)" or "lopez2022 (4.5)"
  std::string on_breakdown = "stop";  // lu_on_breakdown_name of the options
  LuEvents events;                // on_breakdown continue: the first events (none with stop)
};

// A factorization that cannot continue: what() names the step (column), the block and the value.
struct LuBreakdown : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A (n x n, row-major binary64 values) rounded to the storage format (RNE), then factorized.
// Throws std::invalid_argument naming the option and what is allowed (block 0, s > r, a
// variant or storage the algorithm does not take, A of the wrong size), LuBreakdown as above.
LuResult simulate_lu(const Unit& unit, const Format& in, std::size_t n, std::span<const double> A,
                     const LuOptions& options = {});

// The LuResult of simulate_lu without the factorization (LU, perm and events empty): the
// option checks (the same exceptions) and the run's description, for a caller that factorizes
// in its own way with the same bits (tcsim::dist's distributed LU).
LuResult describe_lu(const Unit& unit, const Format& in, std::size_t n, const LuOptions& options = {});

// x solving L U x = P b by forward and back substitution, each operation correctly rounded to
// `precision`: "fp16", "fp32" or "fp64", or "" for the storage precision of `lu` (lopez2022
// section 2.3 substitutes in fp32 whatever the storage). b is rounded to that format first.
// The substitutions run in IEEE arithmetic whatever happens (Inf, NaN flow through); `events`
// (optional) receives the first +-Inf and the first NaN of y (forward) then x (back, i from
// n - 1 down), in the order they are computed.
struct LuSolveEvents {
  LuEvent overflow, nan;
  LuEvent first;  // the earlier of the two in the order computed
  bool any() const { return overflow.found || nan.found; }
};
std::vector<double> lu_solve(const LuResult& lu, std::span<const double> b, std::string_view precision = "",
                             LuSolveEvents* events = nullptr);
// The LuBreakdown text for substitutions whose events are `e` in `precision` ("" when none):
// "LU breakdown in the substitutions: the back substitution (x) gives x[0] = nan, not finite in fp32".
std::string lu_solve_breakdown(const LuSolveEvents& e, std::string_view precision);

// Backward errors of a computed solution x of Ax = b with factors `lu`, in binary64:
// componentwise max_i |A x - b|_i / ((|A| + |L||U|) |x|)_i (blanchard2020 section 4.2; rows
// permuted as the factors are) and normwise ||A x - b||_inf / (||A||_inf ||x||_inf + ||b||_inf).
// NaN or Inf anywhere in x or the factors gives a NaN or Inf error, never a finite one.
struct LuBackwardErrors {
  double componentwise = 0;
  double normwise = 0;
};
LuBackwardErrors lu_backward_errors(const LuResult& lu, std::span<const double> A, std::span<const double> x,
                                    std::span<const double> b);

}  // namespace tcsim::models
