// Issue 25: the frame the tile-chain differential tests share (test_tile_chain_emax, _expadd,
// _half_round, _resume, _subnormal): their lines (a unit's row, or a user copy of it with another
// binary16 rounding or flushed subnormals), the loop over the SIMD targets and the lines, and the
// GEMMs a test draws until a line has its block FMAs, each run by Unit::gemm against Unit::dot.
#pragma once
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "gemm_tally.hpp"
#include "models_test_helpers.hpp"
#include "test_support.hpp"

namespace tcsim::reftest {

struct ChainLine {
  const char *unit, *instruction, *in, *out;
  bool pairs = false;         // pairs-mod4: K a multiple of 2 k (whole instructions chain)
  const char* rounding = "";  // the binary16 output's rounding of a user copy ("" keeps the row's)
  bool flush_out = false, flush_in = false;  // a user copy flushing subnormal outputs / inputs
};

// The unit a line runs: the built-in one, changed as the line says.
inline models::Unit chain_line_unit(const ChainLine& l) {
  models::UnitSpec spec = models::builtin_unit(l.unit).spec();
  for (auto& row : spec.datapaths) {
    if (*l.rounding && row.final_rounding.count("fp16")) row.final_rounding["fp16"] = parse_rounding(l.rounding);
    if (l.flush_out) row.subnormal_outputs = false;
    if (l.flush_in) row.subnormal_inputs = false;
  }
  return models::Unit(spec);
}

inline std::string chain_line_label(const ChainLine& l) {
  std::string s = std::string(l.unit) + " " + l.instruction + " " + l.in + "->" + l.out;
  if (*l.rounding) s += std::string(" ") + l.rounding;
  if (l.flush_out) s += " flush-out";
  if (l.flush_in) s += " flush-in";
  return s;
}

// What a test's draw sees of the line it fills a GEMM for.
struct ChainLineRun {
  const ChainLine& line;
  const models::Unit& unit;
  const Format &in, &out;
  const models::DatapathSpec& row;
  std::size_t k;  // the row's FMA size
  int F;          // its fraction bits
  std::string label;
};

// One GEMM of a draw: D = C + A B, A m x K, B K x n, C m x n, row-major patterns, run on
// `threads` threads.
struct ChainGemm {
  std::size_t m = 24, n = 40, K = 0;
  std::vector<std::uint64_t> A, B, C;
  unsigned threads = 1;
  // Sets the shape and sizes the operands, each element `fill`.
  void shape(std::size_t rows, std::size_t cols, std::size_t depth, std::uint64_t fill = 0) {
    m = rows, n = cols, K = depth;
    A.assign(m * K, fill), B.assign(K * n, fill), C.assign(m * n, fill);
  }
};

// K for a GEMM of 1 .. blocks blocks of k products (of 2 k in pairs-mod4 lines), a quarter of the
// plain lines' with a shorter last block.
inline std::size_t random_chain_K(tcsim::test::Rng& r, std::size_t k, bool pairs, std::size_t blocks = 12) {
  std::size_t K = (1 + r.below(blocks)) * (pairs ? 2 * k : k);
  if (!pairs && r.below(4) == 0) K += 1 + r.below(k - 1);
  return K;
}

struct NothingAfterLine {
  void operator()(const ChainLineRun&) const {}
};

// On every SIMD target and line: draw(run, gemm) fills a GEMM, Unit::gemm against
// Unit::dot, until the line has `best` block FMAs on the CPU's best target and `others` on the
// other targets; the line's summary under `tag`, then after(run). Returns the mismatches.
template <std::size_t N, class Draw, class After = NothingAfterLine>
std::uint64_t chain_lines_differential(const char* tag, const ChainLine (&lines)[N], std::uint64_t best,
                                       std::uint64_t others, Draw&& draw, After&& after = {}) {
  std::uint64_t mismatches = 0;
  each_simd_target([&](const std::string& target, bool first) {
    for (const ChainLine& l : lines) {
      const models::Unit unit = chain_line_unit(l);
      const Format &in = parse_format(l.in), &out = parse_format(l.out);
      const models::DatapathSpec& row = unit.datapath(in, out, l.instruction);
      const ChainLineRun run{l, unit, in, out, row, static_cast<std::size_t>(row.fma_size),
                             static_cast<int>(row.fraction_bits), target + " " + chain_line_label(l)};
      INFO(run.label);
      const GemmLabel at{tag, run.label};
      GemmTally t;
      ChainGemm g;
      while (t.blocks < (first ? best : others)) {
        draw(run, g);
        t.run(unit, in, out, g.m, g.n, g.K, run.k, g.A, g.B, g.C, row.instruction, at, g.threads);
      }
      t.print(at);
      after(run);
      mismatches += t.mismatches;
    }
  });
  return mismatches;
}

}  // namespace tcsim::reftest
