// simulate_gemm (gemm.hpp): validation, the variant actually run, power-of-two scaling
// (mary2024 eq. (3.1)-(3.4)) and dispatch to the paths of gemm_variants.cpp and
// gemm_multiword.cpp.
#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gemm_impl.hpp"

namespace tcsim::models {

namespace {

using namespace gemm_detail;

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument(what); }

std::string str(std::size_t x) { return std::to_string(x); }

// Every value of f is a binary32 number (the fp32 variant runs on binary32 operands).
bool exact_in_binary32(const Format& f) {
  const int lowest = f.subnormals ? f.emin - (f.precision - 1) : f.emin;
  return f.precision <= 24 && f.emax <= 127 && lowest >= -149;
}


// The unit must run in -> out (for `instruction`); the unit's own error says what it offers.
void check_pair(const Unit& unit, const Format& in, const Format& out, const std::string& instruction,
                const std::string& variant) {
  try {
    (void)unit.datapath(in, out, instruction);
  } catch (const std::invalid_argument& e) {
    fail("variant " + variant + " needs " + in.name + " -> " + out.name + " on the unit: " + e.what());
  }
}

void validate(std::size_t m, std::size_t n, std::size_t k, std::span<const double> A, std::span<const double> B,
              std::span<const double> C, const GemmOptions& o) {
  if (m == 0 || n == 0 || k == 0)
    fail("m, n and k must be at least 1, got m = " + str(m) + ", n = " + str(n) + ", k = " + str(k));
  if (A.size() != m * k) fail("A has " + str(A.size()) + " entries; m * k = " + str(m * k));
  if (B.size() != k * n) fail("B has " + str(B.size()) + " entries; k * n = " + str(k * n));
  if (!C.empty() && C.size() != m * n)
    fail("C has " + str(C.size()) + " entries; m * n = " + str(m * n) + " (or none: C = 0)");
  if (o.input_rounding == Rounding::Stochastic)
    fail("input_rounding: sr (stochastic) needs random bits the conversions do not have; allowed: rne, rz, ru, rd, ro");
  if (o.words < 1 || o.words > 8) fail("words must be between 1 and 8, got " + std::to_string(o.words));
  if (o.split_k < 0 || static_cast<unsigned long long>(o.split_k) > k)
    fail("split_k must be between 1 and k = " + str(k) + ", got " + std::to_string(o.split_k) + " (0 or 1: off)");
  if (o.fabsum_block < 0)
    fail("fabsum_block must be 0 (off) or a block size of at least 1, got " + std::to_string(o.fabsum_block));
  bool combine_ok = false;
  try {
    const Format& f = parse_format(o.fabsum_combine);
    combine_ok = f == formats::fp32() || f == formats::fp64();
  } catch (const std::invalid_argument&) {
  }
  if (!combine_ok) fail("fabsum_combine: '" + o.fabsum_combine + "' is not allowed; allowed: fp32, fp64");
  if (o.split_k > 1 && o.fabsum_block > 0)
    fail("split_k and fabsum_block cannot be combined; choose one (split_k " + std::to_string(o.split_k) +
         ", fabsum_block " + std::to_string(o.fabsum_block) + ")");
  if (o.words > 1 && (o.split_k > 1 || o.fabsum_block > 0))
    fail("words > 1 cannot be combined with split_k or fabsum_block");
}

}  // namespace

std::string variant_name(GemmVariant v) {
  switch (v) {
    case GemmVariant::Unit: return "unit";
    case GemmVariant::Fp16: return "fp16";
    case GemmVariant::Tc16: return "tc16";
    case GemmVariant::Tc32: return "tc32";
    case GemmVariant::Fp32: return "fp32";
  }
  return "unit";
}

GemmVariant parse_variant(std::string_view text, std::string_view field) {
  for (GemmVariant v : {GemmVariant::Unit, GemmVariant::Fp16, GemmVariant::Tc16, GemmVariant::Tc32, GemmVariant::Fp32})
    if (text == variant_name(v)) return v;
  throw std::invalid_argument(std::string(field) + ": '" + std::string(text) +
                              "' is not a variant; allowed: unit, fp16, tc16, tc32, fp32");
}

GemmResult simulate_gemm(const Unit& unit, const Format& in, const Format& out, std::size_t m, std::size_t n,
                         std::size_t k, std::span<const double> A, std::span<const double> B,
                         std::span<const double> C, const GemmOptions& o) {
  validate(m, n, k, A, B, C, o);

  // The variant actually run and the format the products accumulate in.
  GemmVariant v = o.variant;
  if (v == GemmVariant::Unit && out == formats::fp32()) v = GemmVariant::Tc32;
  if (v == GemmVariant::Unit && out == formats::fp16()) v = GemmVariant::Tc16;
  const bool ieee = v == GemmVariant::Fp16 || v == GemmVariant::Fp32;
  const Format& acc = v == GemmVariant::Tc16 || v == GemmVariant::Fp16   ? formats::fp16()
                      : v == GemmVariant::Tc32 || v == GemmVariant::Fp32 ? formats::fp32()
                                                                          : out;
  const std::string name = variant_name(v);
  if (ieee && o.words > 1) fail("variant " + name + " (no tensor core) cannot be combined with words > 1");
  if (v == GemmVariant::Fp16 && !(in == formats::fp16()))
    fail("variant fp16 needs the input format fp16 (binary16 FMAs on binary16 operands), got " + in.name);
  if (v == GemmVariant::Fp32 && !exact_in_binary32(in))
    fail("variant fp32 needs an input format whose values are binary32 numbers (fp32, tf32, bf16, fp16, fp8, fp6, "
         "fp4), got " +
         in.name);
  const Format& in_b = o.b_format ? *o.b_format : in;
  if (!(in_b == in)) {  // mixed operand formats: one unit GEMM of A in `in` and B in `in_b`
    if (ieee) fail("variant " + name + " (no tensor core) takes A and B in one format; mixed formats need the unit");
    if (o.words > 1 || o.scaled_words) fail("mixed operand formats cannot be combined with words > 1");
    if (o.scaling) fail("mixed operand formats cannot be combined with scaling");
    try {
      (void)unit.datapath(in, in_b, acc, o.instruction);
    } catch (const std::invalid_argument& e) {
      fail("variant " + name + " needs " + in.name + " x " + in_b.name + " -> " + acc.name + " on the unit: " + e.what());
    }
  } else if (!ieee) {
    check_pair(unit, in, acc, o.instruction, name);
  }

  // Scaling, mary2024 eq. (3.1)-(3.2): Lambda A and B M with power-of-two diagonals, the
  // largest magnitude of each row of A / column of B in (theta/2, theta],
  // theta = min(f_max, sqrt(F_max / n)) with f_max of the input format, F_max of the
  // accumulation format and n the inner dimension (k here). C enters as Lambda C M, and
  // D = Lambda^-1 D' M^-1 in binary64.
  std::vector<int> ea, eb;
  std::vector<double> As, Bs, Cs;
  if (o.scaling) {
    const double f_max = value_of(in, in.max_finite(false)), F_max = value_of(acc, acc.max_finite(false));
    const double theta = std::min(f_max, std::sqrt(F_max / static_cast<double>(k)));
    ea.assign(m, 0);
    eb.assign(n, 0);
    const unsigned th = o.threads;
    parallel_ranges(th, m, 64, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) {
        double row = 0;
        for (std::size_t t = 0; t < k; ++t) row = std::max(row, std::fabs(A[i * k + t]));  // NaN ignored
        ea[i] = scale_exponent(row, theta);
      }
    });
    std::vector<double> col(n, 0.0);
    for (std::size_t t = 0; t < k; ++t)
      for (std::size_t j = 0; j < n; ++j) col[j] = std::max(col[j], std::fabs(B[t * n + j]));
    for (std::size_t j = 0; j < n; ++j) eb[j] = scale_exponent(col[j], theta);
    As = huge_vector<double>(m * k);
    Bs = huge_vector<double>(k * n);
    parallel_ranges(th, m, 64, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i)
        for (std::size_t t = 0; t < k; ++t) As[i * k + t] = times_pow2(A[i * k + t], ea[i]);
    });
    parallel_ranges(th, k, 64, [&](std::size_t b, std::size_t e) {
      for (std::size_t t = b; t < e; ++t)
        for (std::size_t j = 0; j < n; ++j) Bs[t * n + j] = times_pow2(B[t * n + j], eb[j]);
    });
    if (!C.empty()) {
      Cs = huge_vector<double>(m * n);
      parallel_ranges(th, m, 64, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i)
          for (std::size_t j = 0; j < n; ++j) Cs[i * n + j] = times_pow2(C[i * n + j], ea[i] + eb[j]);
      });
    }
    A = As;
    B = Bs;
    if (!C.empty()) C = Cs;
  }

  auto run_rows = [&](std::size_t r0, std::size_t rows) {
    const Problem p{unit, in, acc, rows, n, k, A.subspan(r0 * k, rows * k), B,
                    C.empty() ? C : C.subspan(r0 * n, rows * n), o};
    return ieee ? (o.split_k > 1 || o.fabsum_block > 0 ? run_ieee_sliced(p, v) : run_ieee(p, v))
                : (o.words > 1 ? run_multiword(p) : run_unit(p));
  };
  // With a progress hook, the GEMM runs by blocks of rows (each element depends on its row
  // only; multiword stays whole). Blocks of at least 64 rows keep B's conversion negligible.
  const std::size_t parts = o.progress && o.words == 1 ? std::clamp<std::size_t>(m / 64, 1, 16) : 1;
  Product r;
  if (parts == 1) {
    r = run_rows(0, m);
  } else {
    r.D = huge_vector<double>(m * n);
    r.bits = huge_vector<std::uint64_t>(m * n);
    for (std::size_t part = 0; part < parts; ++part) {
      const std::size_t r0 = m * part / parts, r1 = m * (part + 1) / parts;
      Product s = run_rows(r0, r1 - r0);
      std::copy(s.D.begin(), s.D.end(), r.D.begin() + static_cast<std::ptrdiff_t>(r0 * n));
      std::copy(s.bits.begin(), s.bits.end(), r.bits.begin() + static_cast<std::ptrdiff_t>(r0 * n));
      r.storage = s.storage;
      r.calls = s.calls;
      o.progress(part + 1, parts);
    }
  }
  if (parts == 1 && o.progress) o.progress(1, 1);

  GemmResult g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.variant = name;
  g.path = ieee ? "ieee" : unit.batch_path(in, in_b, acc, o.instruction);
  g.unit_calls = r.calls;
  g.D = std::move(r.D);
  g.bits = std::move(r.bits);
  g.storage = r.storage;
  if (o.scaling) {
    // D = Lambda^-1 D' M^-1: exact powers of two in binary64, unless the unscaled value
    // over/underflows binary64 itself (D beyond 2^1024 or below 2^-1022: the multiplication
    // rounds, far outside any product of binary64 data that does not itself over/underflow).
    g.storage = formats::fp64().name;
    parallel_ranges(o.threads, m, 64, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i)
        for (std::size_t j = 0; j < n; ++j) {
          double& d = g.D[i * n + j];
          d = times_pow2(d, -(ea[i] + eb[j]));
          g.bits[i * n + j] = std::isnan(d) ? formats::fp64().canonical_nan() : std::bit_cast<std::uint64_t>(d);
        }
    });
  }
  return g;
}

}  // namespace tcsim::models
