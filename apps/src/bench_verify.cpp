// tcsim bench verify: the differential campaign of issue 11 (docs/reliability.md).
//
// Cases come in groups of kGroup: a group is one configuration (a random row of a built-in
// unit, or a random user-defined row), one K, one rounding mode for the MPFR check, and
// kGroup elements of operands from the test suites' generators (kernel_cases.hpp for the
// kernel paths, exact_cases.hpp for the MPFR classes: ties, cancellation, subnormals,
// specials, huge values). Everything in group g derives from counter_random(seed, g), so
// the result is the same for any thread count, and case i reruns alone with
// --seed S --first i --cases 1. Each case is checked three ways:
//   kernel  Unit::dot_batch (block kernel, FMA chain or reference, as the row goes) and,
//           for formats of at most 16 bits, dot_batch_planar, against Unit::dot;
//   gemm    (a quarter of the groups) an 8 x 8 Unit::gemm of the group's operands against
//           Unit::dot of each output;
//   mpfr    the reference adder configured exact (exact_adder_config: nothing lost in
//           alignment) with the group's final rounding against MPFR's correctly rounded
//           c + sum a_i b_i. (A unit's own result is not the correctly rounded value, so the
//           unit itself cannot be compared with MPFR; the kernel check ties it to the adder.)
#include "bench_verify.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_support.hpp"
#include "distributed_items.hpp"
#include "exact_cases.hpp"
#include "item_bytes.hpp"
#include "json_output.hpp"
#include "progress.hpp"
#include "kernel_cases.hpp"
#include "tcsim/models/unit.hpp"
#include "tcsim/models/unit_json.hpp"
#include "tcsim/reference/mpfr_dot.hpp"
#include "tcsim/sim/adder.hpp"
#include "tcsim/sim/codec.hpp"

namespace tcsim::cli {

namespace {

using reftest::Rng;
constexpr std::uint64_t kGroup = 64;      // cases per group (part of the case numbering)
constexpr std::size_t kMaxReported = 20;  // mismatches listed in full (the lowest indices)

struct Group {
  std::shared_ptr<const models::Unit> owned;  // user-defined rows
  const models::Unit* unit = nullptr;
  std::string instruction;
  const Format* in = nullptr;
  const Format* in_b = nullptr;  // b's format: `in`, or another one of a mixed_inputs row
  const Format* out = nullptr;
  std::size_t K = 0;
  Rounding mpfr_mode = Rounding::NearestEven;
  bool gemm = false;
  std::vector<std::uint64_t> a, b, c;  // kGroup elements
};

struct Mismatch {
  std::uint64_t index;
  nlohmann::json detail;
};

struct Tally {
  std::uint64_t cases = 0, builtin = 0, user = 0, kernel_path = 0, fma_chain_path = 0, reference_path = 0;
  std::uint64_t kernel = 0, planar = 0, gemm = 0, mpfr = 0;                   // checks made
  std::uint64_t kernel_bad = 0, planar_bad = 0, gemm_bad = 0, mpfr_bad = 0;  // mismatches
  std::uint64_t errors = 0;  // exceptions (a generated configuration or case was refused)
  std::vector<Mismatch> listed;
  std::uint64_t mismatches() const { return kernel_bad + planar_bad + gemm_bad + mpfr_bad + errors; }
  void add(Tally&& o) {
    cases += o.cases; builtin += o.builtin; user += o.user; kernel_path += o.kernel_path;
    fma_chain_path += o.fma_chain_path; reference_path += o.reference_path; kernel += o.kernel; planar += o.planar;
    gemm += o.gemm; mpfr += o.mpfr; kernel_bad += o.kernel_bad; planar_bad += o.planar_bad; gemm_bad += o.gemm_bad;
    mpfr_bad += o.mpfr_bad; errors += o.errors;
    for (auto& m : o.listed) note(std::move(m));
  }
  // Keeps the kMaxReported lowest case indices: the same list for any split of the work.
  void note(Mismatch m) {
    listed.push_back(std::move(m));
    std::sort(listed.begin(), listed.end(), [](const Mismatch& x, const Mismatch& y) {
      return x.index != y.index ? x.index < y.index : x.detail.dump() < y.detail.dump();
    });
    if (listed.size() > kMaxReported) listed.resize(kMaxReported);
  }
};

template <class T>
const T& pick(Rng& r, const std::vector<T>& v) { return v[r.below(v.size())]; }

Rounding pick_rounding(Rng& r) {
  static const Rounding modes[] = {Rounding::NearestEven, Rounding::TowardZero, Rounding::Up, Rounding::Down};
  return modes[r.below(4)];
}

// The (input, output) pairs of the built-in rows without block scaling: the formats a
// user-defined row is given.
const std::vector<std::pair<std::string, std::string>>& builtin_pairs() {
  static const auto pairs = [] {
    std::vector<std::pair<std::string, std::string>> v;
    for (const auto& spec : models::builtin_unit_specs())
      for (const auto& row : spec.datapaths)
        if (!row.block_scale)
          for (const auto& i : row.input_formats)
            for (const auto& o : row.output_formats)
              if (std::find(v.begin(), v.end(), std::pair{i, o}) == v.end()) v.emplace_back(i, o);
    return v;
  }();
  return pairs;
}

// A random user-defined row over a built-in format pair: every field of the schema drawn,
// F mostly small enough for the block kernel (F + 2 + log2(k+1) <= 62), sometimes not.
// The parameters added after the campaign's numbering was fixed (issue 24: mixed operand
// formats, input_fraction_bits, fraction_bits "exact") come from a second stream `x`, so that
// the main stream, and with it every other field of every group, stays as it was.
void add_late_parameters(Rng& x, models::DatapathSpec& row) {
  const Format& in = parse_format(row.input_formats[0]);
  const std::string& out_name = row.output_formats[0];
  if (x.below(6) == 0) {  // a second input format with the same output, a and b in any two of them
    std::vector<std::string> others;
    for (const auto& [i, o] : builtin_pairs())
      if (o == out_name && i != row.input_formats[0]) others.push_back(i);
    if (!others.empty()) {
      row.input_formats.push_back(pick(x, others));
      row.mixed_inputs = true;
    }
  }
  if (x.below(10) == 0) {  // a and b truncated (CDNA3 xf32)
    int p = in.precision;
    bool all_ones_nan = false;  // e4m3's NaN would become finite: such rows are refused (B314)
    for (const auto& n : row.input_formats) {
      p = std::min(p, parse_format(n).precision);
      all_ones_nan |= parse_format(n).nan == NanEncoding::AllOnes;
    }
    if (p >= 2) {
      const int bits = static_cast<int>(x.below(static_cast<std::uint64_t>(p - 1)));  // drawn anyway: the stream stays
      if (!all_ones_nan) row.input_fraction_bits = bits;
    }
  }
  // No alignment loss (CDNA1); refused by Unit where the exact F exceeds the limit (fp64 x fp64 rows fit).
  if (x.below(12) == 0) row.fraction_bits = models::DatapathSpec::kExactFractionBits;
}

models::UnitSpec random_user_spec(Rng& r, Rng& x) {
  const auto& [in_name, out_name] = pick(r, builtin_pairs());
  const Format& out = parse_format(out_name);
  models::DatapathSpec row;
  row.input_formats = {in_name};
  row.output_formats = {out_name};
  static const std::vector<int> sizes = {1, 2, 3, 4, 5, 8, 16, 32};
  row.fma_size = pick(r, sizes);
  row.fraction_bits = r.below(8) ? r.range(0, 50) : r.range(51, 90);
  row.carry_bits = r.range(0, 6);
  row.alignment_rounding = pick_rounding(r);
  row.sticky_bit = r.below(6) == 0;
  if (r.below(6) == 0) {
    row.normalization = Normalization::PerStep;
    static const std::vector<AccumulationOrder> orders = {AccumulationOrder::LargestFirst, AccumulationOrder::Sequential,
                                                          AccumulationOrder::Pairwise};
    row.order = pick(r, orders);
  }
  if (r.below(8) == 0) {
    row.c_placement = CPlacement::Late;
    if (r.below(2)) row.late_products_rounding = pick_rounding(r);
  }
  if (row.fma_size % 2 == 0 && r.below(8) == 0) row.k_split = models::KSplit::PairsMod4;
  if (r.below(8) == 0) {
    row.c_entry = models::CEntry::FinalAdd;
    row.final_add_rounding[out_name] = pick_rounding(r);
  }
  row.final_rounding[out_name] = pick_rounding(r);
  if (r.below(4) == 0) row.min_exponent[out_name] = out.emin - r.range(0, 40);
  row.subnormal_inputs = r.below(6) != 0;
  row.subnormal_outputs = r.below(6) != 0;
  // The NVIDIA corner rules (issue 22): Inf on overflow whatever the mode, +0 for exact zeros.
  if (r.below(3) == 0) row.overflow = OverflowMode::Infinity;
  if (r.below(3) == 0) row.zero_sign = ZeroSign::Positive;
  if (out.fraction_bits > 2 && r.below(8) == 0) row.result_fraction_bits[out_name] = r.range(1, out.fraction_bits - 1);
  // The AMD row parameters (issue 24; docs/units/amd.md): c added after the products with
  // rounded operands, interleaved product groups, product overflow, products rounded in
  // per-step rows, flushed inputs as +0. The kernels refuse them: these groups check that the
  // fallback gives dot()'s bits.
  if (r.below(10) == 0) {
    if (row.normalization == Normalization::Deferred && r.below(2)) {
      row.c_placement = CPlacement::After;
      row.late_products_rounding.reset();
      row.sticky_bit = false;
      row.min_exponent.clear();
      row.after_add.sum_fraction_bits = r.range(20, 34);
      row.after_add.c_fraction_bits = r.range(20, 26);
      row.after_add.rounding = pick_rounding(r);
      row.after_add.renormalize_fraction_bits = r.below(2) ? std::optional<int>(r.range(20, 32)) : std::nullopt;
      row.after_add.drop_c_below = r.below(3) == 0 ? std::optional<int>(r.range(20, 30)) : std::nullopt;
      row.product_groups = r.range(1, 2);
      row.product_overflow_inf = r.below(2) == 0;
    }
    if (row.normalization == Normalization::PerStep && r.below(2)) row.product_rounding = pick_rounding(r);
    row.flush_inputs_positive = r.below(2) == 0;
  }
  add_late_parameters(x, row);
  models::UnitSpec spec;
  spec.name = "verify-user";
  spec.architecture = "user";
  spec.datapaths = {row};
  return spec;
}

// Group g of the campaign: its configuration and operands, from counter_random(seed, g).
Group make_group(std::uint64_t seed, std::uint64_t g) {
  Rng r(counter_random(seed, g));
  Group grp;
  const bool user = r.below(3) == 0;
  const models::DatapathSpec* row = nullptr;
  if (user) {
    Rng x(counter_random(seed ^ 0x6c617465, g));  // "late": the late parameters' stream
    grp.owned = std::make_shared<const models::Unit>(random_user_spec(r, x));
    grp.unit = grp.owned.get();
    row = &grp.unit->spec().datapaths[0];
  } else {
    const auto& specs = models::builtin_unit_specs();
    grp.unit = &models::builtin_unit(specs[r.below(specs.size())].name);
    row = &pick(r, grp.unit->spec().datapaths);
    grp.instruction = row->instruction;
  }
  grp.in = &parse_format(pick(r, row->input_formats));
  grp.out = &parse_format(pick(r, row->output_formats));
  grp.in_b = grp.in;
  if (row->mixed_inputs) {  // b in any format of the row (a second stream: the main one as before)
    Rng x(counter_random(seed ^ 0x6d69786564, g));
    if (x.below(4) != 0) grp.in_b = &parse_format(pick(x, row->input_formats));
  }
  const std::size_t k = static_cast<std::size_t>(row->fma_size);
  const std::size_t instruction_k = row->k_split == models::KSplit::PairsMod4 ? 2 * k : k;
  switch (r.below(10)) {
    case 0: grp.K = r.below(4); break;                    // K = 0..3: empty and partial blocks
    case 1: grp.K = 1 + r.below(64); break;               // anything
    case 2: case 3: case 4: {  // named draws: operand order is unspecified
      const std::size_t blocks = 1 + r.below(3);
      grp.K = instruction_k * blocks + r.below(instruction_k);
      break;
    }
    default: grp.K = instruction_k; break;                // one instruction
  }
  grp.mpfr_mode = pick_rounding(r);
  grp.gemm = r.below(4) == 0;
  const std::size_t K = grp.K;
  grp.a.assign(kGroup * K, 0);
  grp.b.assign(kGroup * K, 0);
  grp.c.assign(kGroup, 0);
  if (K >= 1 && K <= static_cast<std::size_t>(reftest::kMaxK) && r.below(3) == 0) {
    reftest::Generator gen(*grp.in, *grp.out, r.next());
    for (std::uint64_t e = 0; e < kGroup; ++e) {
      reftest::Case cs;
      gen.make(cs, static_cast<int>(K));
      std::copy_n(cs.a, K, grp.a.data() + e * K);
      std::copy_n(cs.b, K, grp.b.data() + e * K);
      grp.c[e] = cs.c;
    }
  } else {
    for (std::uint64_t e = 0; e < kGroup; ++e)
      reftest::fill_element(*grp.in, *grp.out, r, grp.a.data() + e * K, grp.b.data() + e * K, K, grp.c[e]);
  }
  if (grp.in_b != grp.in) {  // b drawn in its own format, as a (kernel_cases.hpp), from the second stream
    Rng x(counter_random(seed ^ 0x62666d74, g));
    std::vector<std::uint64_t> a2(K), b2(K);
    for (std::uint64_t e = 0; e < kGroup; ++e) {
      std::uint64_t c2 = 0;
      reftest::fill_element(*grp.in_b, *grp.out, x, a2.data(), b2.data(), K, c2);
      std::copy_n(b2.data(), K, grp.b.data() + e * K);
    }
  }
  return grp;
}

nlohmann::json hex_array(const Format& f, const std::uint64_t* v, std::size_t n, std::size_t stride = 1) {
  nlohmann::json j = nlohmann::json::array();
  for (std::size_t i = 0; i < n; ++i) j.push_back(bits_to_hex(f, v[i * stride]));
  return j;
}

nlohmann::json describe(const Group& g, std::uint64_t seed, std::uint64_t index, const char* check) {
  nlohmann::json j = {{"case", index},
                      {"seed", seed},
                      {"check", check},
                      {"unit", g.unit->name()},
                      {"instruction", g.instruction},
                      {"in", g.in->name},
                      {"in_b", g.in_b->name},
                      {"out", g.out->name},
                      {"K", g.K},
                      {"rerun", "tcsim bench verify --seed " + std::to_string(seed) + " --first " +
                                    std::to_string(index) + " --cases 1 --json"}};
  if (g.owned) j["unit_json"] = models::to_json(g.unit->spec());
  return j;
}

// --inject <check>@<case>: the last bit of that check's result flipped, so that a test can
// show the campaign catching a wrong bit (a checker that cannot fail proves nothing).
struct Injection {
  std::string check;
  std::uint64_t index = ~std::uint64_t{0};
  // Set when the flip happened: an injection that hit no result must not pass silently.
  std::shared_ptr<std::atomic<bool>> applied = std::make_shared<std::atomic<bool>>(false);
  std::uint64_t flip(const char* c, std::uint64_t i, std::uint64_t bits) const {
    if (check != c || index != i) return bits;
    applied->store(true);
    return bits ^ 1;
  }
};

Injection parse_injection(const std::string& text) {
  const auto at = text.find('@');
  Injection inj;
  if (at != std::string::npos) inj.check = text.substr(0, at);
  std::size_t used = 0;
  try {
    if (at != std::string::npos) inj.index = std::stoull(text.substr(at + 1), &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (at == std::string::npos || used == 0 || used != text.size() - at - 1 ||
      (inj.check != "kernel" && inj.check != "planar" && inj.check != "mpfr"))
    throw std::invalid_argument("--inject must be <check>@<case> with check kernel, planar or mpfr and a case index, got '" +
                                text + "'");
  return inj;
}

// Runs the checks of group g on the cases of [first, end) it holds.
void run_group(std::uint64_t seed, std::uint64_t g, std::uint64_t first, std::uint64_t end, const Injection& inject,
               Tally& t) {
  const std::uint64_t base = g * kGroup;
  const std::uint64_t lo = std::max(first, base) - base, hi = std::min(end, base + kGroup) - base;
  Tally gt;
  try {
    Group grp = make_group(seed, g);
    gt.builtin = grp.owned ? 0 : hi - lo;
    gt.user = grp.owned ? hi - lo : 0;
    const Format &in = *grp.in, &in_b = *grp.in_b, &out = *grp.out;
    const models::Unit& unit = *grp.unit;
    const std::size_t K = grp.K;
    const std::string path = unit.batch_path(in, in_b, out, grp.instruction);
    // The AMD host-arithmetic kernels (binary32-tree, after-add, exact-block; issue 25) and
    // "kernel (group sums...)" (block-scaled rows with group sums; binary32 or binary64 lanes) count as kernel.
    const bool kernel_path = path.rfind("kernel", 0) == 0 || path == "binary32-tree" ||
                             path.rfind("after-add", 0) == 0 || path.rfind("exact-block", 0) == 0;
    (kernel_path ? gt.kernel_path : path == "fma-chain" ? gt.fma_chain_path : gt.reference_path) += hi - lo;
    const std::uint64_t* a = grp.a.data();
    const std::uint64_t* b = grp.b.data();
    std::vector<std::uint64_t> d(kGroup), d_planar(kGroup), want(kGroup);
    unit.dot_batch(in, in_b, out, kGroup, K, a, b, grp.c.data(), d.data(), grp.instruction, 1);
    const bool planar = in.width <= 16 && in_b.width <= 16;
    if (planar) {
      const Planar16 at = product_major16(a, kGroup, K), bt = product_major16(b, kGroup, K);
      unit.dot_batch_planar(in, in_b, out, kGroup, K, at.data(), bt.data(), grp.c.data(), d_planar.data(), grp.instruction,
                            1);
    }
    AdderConfig exact_cfg = exact_adder_config(in, out, K);
    exact_cfg.b_format = in_b;
    exact_cfg.fraction_bits = exact_cfg.exact_fraction_bits();
    exact_cfg.final_rounding = grp.mpfr_mode;
    const FixedPointAdder exact(exact_cfg);
    reference::CorrectlyRoundedDot mpfr(in, in_b, out, out, grp.mpfr_mode, OverflowMode::Ieee);
    auto mismatch = [&](std::uint64_t e, const char* check, std::uint64_t got, std::uint64_t expected) {
      nlohmann::json j = describe(grp, seed, base + e, check);
      j["a"] = hex_array(in, a + e * K, K);
      j["b"] = hex_array(in_b, b + e * K, K);
      j["c"] = bits_to_hex(out, grp.c[e]);
      j["got"] = bits_to_hex(out, got);
      j["want"] = bits_to_hex(out, expected);
      if (std::string(check) == "mpfr") j["rounding"] = to_string(grp.mpfr_mode);
      gt.note({base + e, std::move(j)});
    };
    for (std::uint64_t e = 0; e < kGroup; ++e) {
      const std::span<const std::uint64_t> ae(a + e * K, K), be(b + e * K, K);
      want[e] = unit.dot(in, in_b, out, ae, be, grp.c[e], grp.instruction);
      if (e < lo || e >= hi) continue;
      ++gt.cases;
      ++gt.kernel;
      d[e] = inject.flip("kernel", base + e, d[e]);
      if (d[e] != want[e]) ++gt.kernel_bad, mismatch(e, "kernel", d[e], want[e]);
      if (planar) {
        ++gt.planar;
        d_planar[e] = inject.flip("planar", base + e, d_planar[e]);
        if (d_planar[e] != want[e]) ++gt.planar_bad, mismatch(e, "planar", d_planar[e], want[e]);
      }
      ++gt.mpfr;
      const std::uint64_t got = inject.flip("mpfr", base + e, exact.dot(ae, be, grp.c[e]));
      const std::uint64_t rounded = mpfr(ae, be, grp.c[e]).bits;
      if (got != rounded) ++gt.mpfr_bad, mismatch(e, "mpfr", got, rounded);
    }
    if (grp.gemm && lo == 0 && hi == kGroup) {  // whole groups only: its outputs mix 8 cases
      constexpr std::size_t m = 8, n = 8;
      std::vector<std::uint64_t> B(K * n), col(K);
      for (std::size_t s = 0; s < K; ++s)
        for (std::size_t j = 0; j < n; ++j) B[s * n + j] = b[j * K + s];
      const std::vector<std::uint64_t> A(a, a + m * K), C(grp.c.begin(), grp.c.begin() + m * n);
      std::vector<std::uint64_t> D(m * n);
      unit.gemm_into(in, in_b, out, m, n, K, A, B, C, D, grp.instruction, 1);
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
          ++gt.gemm;
          std::copy_n(b + j * K, K, col.data());
          const std::uint64_t w = unit.dot(in, in_b, out, {a + i * K, K}, col, C[i * n + j], grp.instruction);
          if (D[i * n + j] != w) {
            ++gt.gemm_bad;
            nlohmann::json jd = describe(grp, seed, base, "gemm");
            jd["output"] = {i, j};
            jd["a"] = hex_array(in, a + i * K, K);
            jd["b"] = hex_array(in_b, col.data(), K);
            jd["c"] = bits_to_hex(out, C[i * n + j]);
            jd["got"] = bits_to_hex(out, D[i * n + j]);
            jd["want"] = bits_to_hex(out, w);
            gt.note({base, std::move(jd)});
          }
        }
      // Block-scaled rows: the same 8 x 8 GEMM through Unit::gemm_scaled with random scales
      // (edges on purpose: NaN, 2^-127, 2^127, ue4m3 subnormals and zero; else near 1) against
      // Unit::dot_scaled, from a stream of their own (the group's numbering stays as it was).
      if (const models::DatapathSpec& row = unit.datapath(in, out, grp.instruction); row.block_scale && &in == &in_b) {
        Rng x(counter_random(seed ^ 0x7363616c6573, g));  // "scales"
        const Format& sf = parse_format(pick(x, row.block_scale->scale_formats));
        const int bs = pick(x, row.block_scale->block_sizes);
        const std::size_t nb = (K + static_cast<std::size_t>(bs) - 1) / static_cast<std::size_t>(bs);
        const bool ue8 = sf.name == "ue8m0";
        auto scale = [&] {
          switch (x.below(8)) {
            case 0: return std::uint64_t{ue8 ? 0xffu : 0x7fu};
            case 1: return std::uint64_t{ue8 ? 0x00u : 1 + x.below(7)};
            case 2: return std::uint64_t{ue8 ? 0xfeu : (x.below(2) ? 0x7eu : 0x00u)};
            case 3: return x.below(sf.width_mask() + 1);
            default: return ue8 ? 0x7f - 6 + x.below(13) : 0x38 - 12 + x.below(25);
          }
        };
        std::vector<std::uint64_t> sa(m * nb), sb(nb * n), sc(nb);
        for (auto& v : sa) v = scale();
        for (auto& v : sb) v = scale();
        const auto DS = unit.gemm_scaled(in, out, m, n, K, A, B, C, sf, sa, sb, bs, grp.instruction, 1);
        for (std::size_t i = 0; i < m; ++i)
          for (std::size_t j = 0; j < n; ++j) {
            ++gt.gemm;
            std::copy_n(b + j * K, K, col.data());
            for (std::size_t q = 0; q < nb; ++q) sc[q] = sb[q * n + j];
            const std::uint64_t w = unit.dot_scaled(in, out, {a + i * K, K}, col, sf, {sa.data() + i * nb, nb}, sc,
                                                    C[i * n + j], bs, grp.instruction);
            if (DS[i * n + j] != w) {
              ++gt.gemm_bad;
              nlohmann::json jd = describe(grp, seed, base, "gemm_scaled");
              jd["output"] = {i, j};
              jd["scale_format"] = sf.name;
              jd["block_size"] = bs;
              jd["got"] = bits_to_hex(out, DS[i * n + j]);
              jd["want"] = bits_to_hex(out, w);
              gt.note({base, std::move(jd)});
            }
          }
      }
    }
  } catch (const std::exception& e) {
    // A refused configuration or case is a defect of the generator or of the library: counted.
    Tally et;
    et.cases = hi - lo;
    et.errors = 1;
    et.note({base + lo, {{"case", base + lo}, {"seed", seed}, {"check", "error"}, {"what", e.what()}}});
    t.add(std::move(et));
    return;
  }
  t.add(std::move(gt));
}

// A rank's tally as bytes (distributed_items.hpp): the counts, whether --inject flipped a
// result, and the listed mismatches as JSON text.
std::string to_bytes(const Tally& t, bool applied) {
  ItemWriter w;
  for (std::uint64_t v : {t.cases, t.builtin, t.user, t.kernel_path, t.fma_chain_path, t.reference_path, t.kernel, t.planar,
                          t.gemm, t.mpfr, t.kernel_bad, t.planar_bad, t.gemm_bad, t.mpfr_bad, t.errors})
    w.put(v);
  w.put(std::uint8_t{applied}).put(static_cast<std::uint64_t>(t.listed.size()));
  for (const Mismatch& m : t.listed) w.put(m.index).put(m.detail.dump());
  return w.take();
}

Tally from_bytes(const std::string& bytes, bool& applied) {
  ItemReader r(bytes);
  Tally t;
  for (std::uint64_t* v : {&t.cases, &t.builtin, &t.user, &t.kernel_path, &t.fma_chain_path, &t.reference_path, &t.kernel,
                           &t.planar, &t.gemm, &t.mpfr, &t.kernel_bad, &t.planar_bad, &t.gemm_bad, &t.mpfr_bad, &t.errors})
    *v = r.get<std::uint64_t>();
  applied = r.get<std::uint8_t>() != 0 || applied;
  for (auto n = r.get<std::uint64_t>(); n > 0; --n) {
    const std::uint64_t index = r.get<std::uint64_t>();
    t.listed.push_back({index, nlohmann::json::parse(r.get_string())});
  }
  return t;
}

}  // namespace

int bench_verify(const ParsedArgs& a) {
  for (const char* name : {"unit", "unit-config", "in", "out", "instruction", "k", "elements", "seconds", "n", "r"})
    if (a.has(name))
      throw std::invalid_argument(std::string("--") + name + " does not apply to 'tcsim bench verify' (allowed: --cases, "
                                  "--first, --threads, --seed, --progress, --inject, --json)");
  const auto cases = static_cast<std::uint64_t>(a.get_int("cases", 1, 1'000'000'000'000ll, 1'000'000));
  const auto first = static_cast<std::uint64_t>(a.get_int("first", 0, 1'000'000'000'000'000ll, 0));
  const std::uint64_t seed = a.get_uint64("seed", 1);
  const auto threads_opt = static_cast<unsigned>(a.get_int("threads", 0, 1024, 0));
  const unsigned threads = threads_opt ? threads_opt : std::max(1u, std::thread::hardware_concurrency());
  const bool json = a.has("json"), progress = a.has("progress");
  const Injection inject = a.has("inject") ? parse_injection(a.get("inject")) : Injection{};
  const std::uint64_t end = first + cases, g_first = first / kGroup, g_end = (end + kGroup - 1) / kGroup;
  if (a.has("inject") && (inject.index < first || inject.index >= end))
    throw std::invalid_argument("--inject: case " + std::to_string(inject.index) + " is outside the run (cases " +
                                std::to_string(first) + ".." + std::to_string(end - 1) +
                                " from --first and --cases); nothing would be injected");

  const auto t0 = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  Progress reporter("tcsim bench verify", !a.has("quiet"));
  // Under mpirun each rank takes the groups g_first + part + j parts (distributed_items.hpp)
  // and its threads share them; a group's cases depend on (seed, g) alone, and the tallies
  // merge the same way for any split. Alone: one part.
  const std::vector<std::string> parts = map_parts([&](int part, int nparts) {
    const auto parts_u = static_cast<std::uint64_t>(nparts);
    const std::uint64_t mine = (g_end - g_first + parts_u - static_cast<std::uint64_t>(part) - 1) / parts_u;  // its groups
    std::atomic<std::uint64_t> next{0}, done{0}, bad{0};
    std::vector<Tally> tallies(threads);
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < threads; ++w)
      pool.emplace_back([&, w] {
        for (std::uint64_t j; (j = next.fetch_add(1)) < mine;) {
          const std::uint64_t before = tallies[w].mismatches();
          run_group(seed, g_first + static_cast<std::uint64_t>(part) + j * static_cast<std::uint64_t>(nparts), first, end,
                    inject, tallies[w]);
          bad.fetch_add(tallies[w].mismatches() - before, std::memory_order_relaxed);
          done.fetch_add(1, std::memory_order_relaxed);
        }
      });
    {  // the common progress (after 2 s); with --progress also a summary line a minute, for long background runs.
       // Under mpirun: rank 0's groups scaled by the ranks (rank 0 alone prints).
      double last = 0;
      const std::uint64_t scale = static_cast<std::uint64_t>(nparts);
      while (done.load() < mine) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        reporter.update("cases", static_cast<std::size_t>(std::min<std::uint64_t>(done.load() * scale * kGroup, cases)),
                        static_cast<std::size_t>(cases));
        if (!progress || seconds() - last < 60) continue;
        last = seconds();
        const double n = static_cast<double>(std::min<std::uint64_t>(done.load() * scale * kGroup, cases));
        std::fprintf(stderr, "[verify] %.0f of %llu cases in %.0f s (%.0f cases/s), %llu mismatches so far%s\n", n,
                     static_cast<unsigned long long>(cases), last, n / last, static_cast<unsigned long long>(bad.load()),
                     nparts > 1 ? " (under mpirun: rank 0's cases times the ranks, rank 0's mismatches)" : "");
        std::fflush(stderr);
      }
    }
    for (auto& th : pool) th.join();
    Tally mine_total;
    for (auto& t : tallies) mine_total.add(std::move(t));
    return to_bytes(mine_total, inject.applied->load());
  });
  Tally total;
  bool applied = false;
  for (const std::string& part : parts) total.add(from_bytes(part, applied));
  if (a.has("inject") && !applied)  // e.g. planar@I where case I is wider than 16 bits
    throw std::invalid_argument("--inject: case " + std::to_string(inject.index) + " has no " + inject.check +
                                " result to flip (the planar check runs on inputs of at most 16 bits only); "
                                "nothing was injected");
  reporter.update("cases", static_cast<std::size_t>(cases), static_cast<std::size_t>(cases));
  reporter.done();
  const double secs = seconds();

  if (json) {
    nlohmann::json j = {{"benchmark", "verify"}, {"cases", total.cases}, {"first", first}, {"seed", seed},
                        {"threads", threads}, {"seconds", secs}, {"cases_per_second", total.cases / secs},
                        {"mismatches", total.mismatches()}};
    j["checks"] = {{"kernel", total.kernel}, {"planar", total.planar}, {"gemm", total.gemm}, {"mpfr", total.mpfr}};
    j["mismatches_by_check"] = {{"kernel", total.kernel_bad}, {"planar", total.planar_bad}, {"gemm", total.gemm_bad},
                                {"mpfr", total.mpfr_bad}, {"error", total.errors}};
    j["cases_by_source"] = {{"builtin", total.builtin}, {"user", total.user}};
    j["cases_by_path"] = {{"kernel", total.kernel_path}, {"fma-chain", total.fma_chain_path},
                          {"reference", total.reference_path}};
    j["mismatch_list"] = nlohmann::json::array();
    for (const auto& m : total.listed) j["mismatch_list"].push_back(m.detail);
    print_json(j);
  } else {
    auto u = [](std::uint64_t x) { return static_cast<unsigned long long>(x); };
    std::printf("verify: %llu cases (first %llu, seed %llu) on %u threads in %.1f s (%.0f cases/s)\n", u(total.cases),
                u(first), u(seed), threads, secs, total.cases / secs);
    std::printf("sources: %llu built-in rows, %llu user-defined rows; paths: %llu kernel, %llu fma-chain, %llu reference\n",
                u(total.builtin), u(total.user), u(total.kernel_path), u(total.fma_chain_path), u(total.reference_path));
    std::printf("checks: kernel %llu (%llu mismatches), planar %llu (%llu), gemm %llu (%llu), mpfr %llu (%llu), errors %llu\n",
                u(total.kernel), u(total.kernel_bad), u(total.planar), u(total.planar_bad), u(total.gemm),
                u(total.gemm_bad), u(total.mpfr), u(total.mpfr_bad), u(total.errors));
    for (const auto& m : total.listed) std::printf("MISMATCH %s\n", m.detail.dump().c_str());
    std::printf("mismatches: %llu\n", u(total.mismatches()));
  }
  return total.mismatches() == 0 ? 0 : 1;
}

}  // namespace tcsim::cli
