// The probe's engine, shared by the probe_*.cpp files (private to the library): the
// experiments are members of one Prober, each file holding one group of them.
//
// Every experiment is a list of terms (exact values sig * 2^exp placed relative to a
// reference exponent e) that is realized as bit patterns: each product a_i b_i with a
// carrying the significand and b a power of two (so the product's significand is in
// [1,2) and its exponent is the same under either product-exponent convention), c as one
// pattern of the output format. e is chosen so that every operand, c and the expected
// results are normal numbers of their formats (the largest terms always use normal
// operands; smaller ones may use subnormal operands once subnormal inputs are known to
// be honoured).
#pragma once
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/exact.hpp"
#include "tcsim/validation/probe.hpp"

namespace tcsim::validation::detail {

inline constexpr Rounding kModes[] = {Rounding::TowardZero, Rounding::Down, Rounding::Up, Rounding::NearestEven};

inline int bitlen(std::uint64_t v) { return v ? 64 - __builtin_clzll(v) : 0; }

// A term: (-1)^neg * sig * 2^exp (relative to the reference exponent e until placed).
struct Term {
  bool neg = false;
  std::uint64_t sig = 0;  // 0: a zero product
  std::int64_t exp = 0;
  std::int64_t lead() const { return exp + bitlen(sig) - 1; }
};
inline Term pow2(std::int64_t x, bool neg = false) { return Term{neg, 1, x}; }

inline ExactValue value_of(const Term& t, std::int64_t e = 0) {
  if (t.sig == 0) return ExactValue::zero(t.neg);
  return ExactValue::finite(t.neg, t.sig, t.exp + e);
}

struct Layout {
  std::vector<Term> products;  // relative to e
  Term c;                      // relative to e (sig 0: c = +0)
  std::vector<std::int64_t> result_leads;  // relative leads of results that must be normal out values
};

struct Realized {
  std::vector<std::uint64_t> a, b;
  std::uint64_t c = 0;
  std::int64_t e = 0;
};

class Prober {
 public:
  Prober(const BlackBox& box, const ProbeOptions& opt);
  ProbeReport run();

 private:
  const BlackBox& box_;
  const Format& in_;
  const Format& out_;
  ProbeOptions opt_;
  ProbeReport rep_;
  long calls_ = 0;
  std::uint64_t rng_;
  bool sub_in_ = false;   // subnormal a/b operands may be used
  bool sub_out_ = false;  // subnormal results are produced
  // Measured so far.
  std::optional<int> fprime_;  // largest j such that 2^(E-j) survives (F, or F+1 with a sticky bit)
  std::optional<int> F_;       // fraction bits (without the sticky position)
  std::optional<int> k_;
  int k_lower_ = 0;  // when k was not found: every position tried shared one block (k >= k_lower_)
  std::optional<Rounding> align_;
  bool sticky_ = false;
  std::optional<int> carry_;
  std::vector<Rounding> final_candidates_{std::begin(kModes), std::end(kModes)};
  bool per_step_ = false;
  std::optional<Format> eff_;  // the output format with the measured result precision, when reduced
  std::optional<int> c_small_;  // first j for which c had to carry the small term
  // Block view (c entry final-add): the positions of one instruction's products in
  // accumulation order (block 1's, then block 2's, ...). A layout's c term is then carried
  // by the product at view_[0] and its products by view_[1], view_[2], ... (index i >= K
  // in instruction i / K), with the real c = +0, so that the experiments measure the
  // blocks. Empty: layouts are placed as written.
  std::vector<int> view_;
  int c_slots() const { return view_.empty() ? 0 : 1; }  // block positions c's term takes
  // Products that share one block with c's term, when a block sums k products.
  int beside_c(int k) const { return k - c_slots(); }
  // Significant bits c's term can have.
  int c_bits() const { return view_.empty() ? out_.precision : in_.precision; }
  // Products one block is known to sum: k, or its lower bound (then only for sizing tests).
  std::optional<int> capacity() const { return k_ ? k_ : k_lower_ ? std::optional<int>(k_lower_) : std::nullopt; }
  std::string k_text() const { return k_ ? "k=" + std::to_string(*k_) : "k>=" + std::to_string(k_lower_); }

  // Random numbers of the searches (splitmix64; deterministic from ProbeOptions::seed).
  std::uint64_t next();
  std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }
  int range(int lo, int hi) { return hi < lo ? lo : lo + static_cast<int>(below(static_cast<std::uint64_t>(hi - lo + 1))); }

  // ---- probe_layout.cpp: terms as bit patterns ----
  // The exact pattern of v in f, if v is representable (normal unless allow_sub).
  std::optional<std::uint64_t> enc(const Format& f, const ExactValue& v, bool allow_sub) const;
  // Operands a (significand) and b (power of two) with a*b = t * 2^e exactly.
  std::optional<std::pair<std::uint64_t, std::uint64_t>> product(const Term& t, std::int64_t e, bool top) const;
  std::optional<Realized> realize(const Layout& l, std::int64_t e) const;
  // The layout as the box sees it: in the block view, c's term moved to the products.
  Layout in_view(const Layout& l) const;
  // realize() of a layout already in view.
  std::optional<Realized> encode(const Layout& l, std::int64_t e) const;
  // The reference exponent closest to `prefer` for which the layout is realizable.
  std::optional<Realized> place(const Layout& l, std::int64_t prefer = 0) const;
  std::uint64_t call(const Realized& r);
  ExactValue val(std::uint64_t d) const { return decode(out_, d); }
  std::string hex(std::uint64_t d) const { return val(d).to_hex(); }
  std::string term_hex(const Term& t, std::int64_t e) const { return value_of(t, e).to_hex(); }
  // Exact sum of a placed layout.
  static ExactValue exact_sum(const Layout& l, std::int64_t e);
  // v rounded to the output format as the unit delivers it (the result precision measured
  // by result_precision(), the output's own otherwise).
  ExactValue rnd(const ExactValue& v, Rounding m) const;
  // c = 2^e, a1b1 = -2^e, a_position b_position = small (zeros between).
  Layout cancel_layout(const Term& small, int position = 2) const;
  // The same with c as the small term and the cancelling pair as products.
  Layout cancel_layout_c(const Term& small) const;

  // ---- probe_inputs.cpp ----
  void subnormals();
  void subnormals_against_register();  // after F
  void products_exact();

  // ---- probe_structure.cpp: F, result bits, k, carry bits ----
  bool blocks_of_one_product();
  void fraction_bits();
  void fraction_bits_one_product();
  void fma_size();
  void fma_size_c();
  void result_precision();
  void set_result_bits(int bits, const std::string& ev);
  void carry_bits();

  // ---- probe_rounding.cpp ----
  void alignment_rounding();
  void final_rounding();

  // ---- probe_placement.cpp: c aligned or late ----
  void c_placement();
  void products_fraction_bits();

  // ---- probe_instruction.cpp: the blocks of an instruction whose c is added late ----
  enum class Shared { Yes, No, Unclear };
  // Positions of the instruction (K products, c = 0): the terms {p: 2^e, q: -2^e, r: 2^(e-J)}.
  Shared shares_block(int K, int p, int q, int r, int J);
  // d of the instruction with the given terms at the given positions, placed at one exponent.
  std::optional<ExactValue> at_positions(int K, const std::vector<std::pair<int, Term>>& terms, const Term& c,
                                         std::int64_t e);
  void instruction_structure();
  std::optional<std::vector<std::vector<int>>> partition(int K, int J, std::string& ev);
  void c_entry(int K, const std::vector<int>& first);
  void measure_blocks(const std::vector<std::vector<int>>& blocks);
  void block_chain(int K, int J, const std::vector<std::vector<int>>& blocks);

  // ---- probe_accumulation.cpp: normalization, E clamp, order, monotonicity ----
  // Per-step prediction: partial sums in decreasing magnitude (c first on ties), each
  // aligned to the larger with F bits (alignment mode), then rounded to out.
  ExactValue per_step_predict(const Layout& l, std::int64_t e, Rounding fin, bool sequential) const;
  void normalization();
  void exponent_clamp();
  void order();
  bool check_pair(const Realized& x, const Realized& y, bool negative);
  void monotonicity();
};

}  // namespace tcsim::validation::detail
