// The LU experiments of `tcsim experiment` (experiment.hpp): blanchard2020 Fig. 4.2 and
// lopez2022 Figures 2a, 3a, 4a and 5, on simulated V100 tensor cores (the papers' GPU).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "experiment.hpp"
#include "item_bytes.hpp"
#include "lu_bound.hpp"
#include "tcsim/models/lu.hpp"

namespace tcsim::cli::experiments {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string size_list(const std::vector<std::size_t>& sizes) {
  std::string t;
  for (std::size_t n : sizes) t += (t.empty() ? "" : ", ") + std::to_string(n);
  return t;
}

// One algorithm of a figure: its label, its options and the precision of the substitutions.
struct Variant {
  std::string label;
  models::LuOptions options;
  std::string solve;  // "" : the storage precision
};

// Componentwise backward error (blanchard2020 section 4.2, lopez2022 (2.2)) of x = ones
// solved with the simulated factors, and the bound of the algorithm's theorem; NaN and the
// message when the factorization breaks down.
struct Point {
  double error = kNaN, bound = kNaN;
  std::string breakdown;
};

Point run_point(const models::Unit& unit, const std::vector<double>& A, std::size_t n, const Variant& v, unsigned threads) {
  Point p;
  models::LuOptions o = v.options;
  o.threads = threads;
  models::LuResult lu;
  try {
    lu = models::simulate_lu(unit, formats::fp16(), n, A, o);
  } catch (const models::LuBreakdown& e) {
    p.breakdown = e.what();
    // The bound does not depend on the values: the options' algorithm at this size.
    lu.n = n;
    lu.algorithm = models::lu_algorithm_name(o.algorithm);
    lu.block = o.block;
    lu.inner_block = o.algorithm == models::LuAlgorithm::Dp ? o.inner_block : 0;
    lu.panel = o.algorithm == models::LuAlgorithm::Dp ? models::lu_panel_name(o.panel) : "";
    lu.variant = models::variant_name(o.variant);
    const bool low = o.variant == models::GemmVariant::Fp16 || o.variant == models::GemmVariant::Tc16;
    lu.storage = o.algorithm == models::LuAlgorithm::Rl ? (o.storage.empty() ? (low ? "fp16" : "fp32") : o.storage) : "fp16";
    const std::string solve = v.solve.empty() ? lu.storage : v.solve;
    p.bound = lu_bound(lu, unit, formats::fp16(), "", solve).value;
    return p;
  }
  const std::string solve = v.solve.empty() ? lu.storage : v.solve;
  std::vector<double> b(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < n; ++c) b[i] += A[i * n + c];
  p.error = models::lu_backward_errors(lu, A, models::lu_solve(lu, b, solve), b).componentwise;
  p.bound = lu_bound(lu, unit, formats::fp16(), "", solve).value;
  if (!std::isfinite(p.error)) p.breakdown = "the solution is not finite (the " + solve + " substitutions overflowed)";
  return p;
}

// The errors of every variant at every n, with bounds, and the breakdowns met.
struct Sweep {
  std::vector<std::size_t> sizes;
  std::vector<std::vector<Point>> points;  // [variant][size]
  std::string breakdowns;
};

// The memory need, checked up front (Context::require_memory): a point of size n holds its matrix,
// the generator's temporaries, the factors and the substitutions, as `tcsim lu` does: the
// measured 44 n^2 bytes. Under mpirun each rank holds its own points (item i on rank i mod P)
// one at a time: its largest.
void check_sweep_memory(const std::vector<std::size_t>& sizes, std::size_t V, const Context& c) {
  if (!c.require_memory) return;
  const std::size_t total = V * sizes.size(), ranks = static_cast<std::size_t>(std::max(c.ranks, 1));
  std::vector<double> bytes(std::min(std::max<std::size_t>(total, 1), ranks), 0.0);
  for (std::size_t item = 0; item < total; ++item) {
    const double n = static_cast<double>(sizes[item / V]);
    bytes[item % ranks] = std::max(bytes[item % ranks], 44 * n * n);
  }
  bytes.resize(ranks, 0.0);  // ranks without a point need nothing
  std::string option = c.sizes_option;
  if (option.empty()) option = "n = " + std::to_string(sizes.empty() ? 0 : sizes.back());
  else if (option == "--full") option += " (n up to " + std::to_string(sizes.back()) + ")";
  c.require_memory(option, bytes);
}

Sweep sweep(const models::Unit& unit, const std::vector<Variant>& variants, const std::vector<std::size_t>& sizes,
            const std::function<std::vector<double>(std::size_t)>& matrix, const Context& c) {
  Sweep s;
  s.sizes = sizes;
  s.points.assign(variants.size(), {});
  // Point (size i, variant v) is work item i V + v (under mpirun on rank (i V + v) mod P); a
  // rank keeps the last matrix it generated for the next variants of the same size.
  const std::size_t V = variants.size(), total = V * sizes.size();
  check_sweep_memory(sizes, V, c);
  std::size_t held_n = 0;
  std::vector<double> A;
  const std::vector<std::string> results = run_items(c, total, [&](std::size_t item) {
    const std::size_t n = sizes[item / V], v = item % V;
    if (held_n != n || A.empty()) {
      if (c.progress) c.progress("matrix n = " + std::to_string(n), static_cast<double>(item) / static_cast<double>(total));
      A = matrix(n);
      held_n = n;
    }
    if (c.progress) c.progress(variants[v].label + ", n = " + std::to_string(n), static_cast<double>(item) / static_cast<double>(total));
    const Point p = run_point(unit, A, n, variants[v], c.threads);
    ItemWriter bytes;
    bytes.put(p.error).put(p.bound).put(p.breakdown);
    return bytes.take();
  });
  for (std::size_t item = 0; item < total; ++item) {
    const std::size_t n = sizes[item / V], v = item % V;
    ItemReader bytes(results[item]);
    Point p;
    p.error = bytes.get<double>();
    p.bound = bytes.get<double>();
    p.breakdown = bytes.get_string();
    if (!p.breakdown.empty()) s.breakdowns += "- " + variants[v].label + ", n = " + std::to_string(n) + ": " + p.breakdown + "\n";
    s.points[v].push_back(p);
  }
  return s;
}

Figure figure_of(const Sweep& s, const std::vector<Variant>& variants, const std::string& title, const std::string& bound_name) {
  Figure f;
  f.title = title;
  f.xlabel = "n";
  f.ylabel = "componentwise backward error";
  for (std::size_t v = 0; v < variants.size(); ++v)
    add_with_bound(f, variants[v].label, variants[v].label + " bound (" + bound_name + ")", s.sizes,
                   [&](std::size_t i) { return s.points[v][i].error; },
                   [&](std::size_t i) { return s.points[v][i].bound; });
  return f;
}

// The largest n at which every variant ran to completion (checks are made there).
std::size_t last_complete(const Sweep& s) {
  for (std::size_t i = s.sizes.size(); i-- > 0;) {
    bool all = true;
    for (const auto& v : s.points) all = all && std::isfinite(v[i].error);
    if (all) return i;
  }
  return s.sizes.size();
}

std::string table(const Sweep& s, const std::vector<Variant>& variants) {
  std::string t = "| n |";
  for (const Variant& v : variants) t += " " + v.label + " |";
  t += "\n|---|";
  for (std::size_t v = 0; v < variants.size(); ++v) t += "---|";
  t += "\n";
  for (std::size_t i = 0; i < s.sizes.size(); ++i) {
    t += "| " + std::to_string(s.sizes[i]) + " |";
    for (std::size_t v = 0; v < variants.size(); ++v)
      t += " " + (std::isfinite(s.points[v][i].error) ? num(s.points[v][i].error) : std::string("breakdown")) + " |";
    t += "\n";
  }
  return t;
}

Check ratio_check(const std::string& claim, double num_err, double den_err, double lo, double hi, const std::string& what) {
  const double ratio = num_err / den_err;
  return make_check(claim, ratio, std::isfinite(ratio) && ratio >= lo && ratio <= hi, what);
}

// The claim that every point that completed is below its bound: the largest error / bound.
Check bound_check(const Sweep& s, const std::string& claim, const std::string& how) {
  double worst = 0;
  for (const auto& points : s.points)
    for (const Point& p : points)
      if (std::isfinite(p.error)) worst = std::max(worst, p.error / p.bound);
  return make_check(claim, worst, worst <= 1, how);
}

models::LuOptions rl(models::GemmVariant v, std::size_t r, const std::string& storage = "") {
  models::LuOptions o;
  o.variant = v;
  o.block = r;
  o.storage = storage;
  return o;
}

models::LuOptions alg(models::LuAlgorithm a, std::size_t r, std::size_t s = 8, models::LuPanel p = models::LuPanel::LlFp32Panel) {
  models::LuOptions o;
  o.algorithm = a;
  o.block = r;
  o.inner_block = s;
  o.panel = p;
  return o;
}

constexpr double kNoLimit = std::numeric_limits<double>::infinity();

Result blanchard2020_fig42(const Context& c) {
  using models::GemmVariant;
  const std::size_t r = 32;
  // Substitutions in fp32: blanchard2020 section 4.2 uses fp32 as the working precision.
  const std::vector<Variant> variants = {{"fp16", rl(GemmVariant::Fp16, r), "fp32"},
                                         {"TC16", rl(GemmVariant::Tc16, r), "fp32"},
                                         {"TC32", rl(GemmVariant::Tc32, r), "fp32"},
                                         {"fp32", rl(GemmVariant::Fp32, r), "fp32"}};
  const std::vector<std::size_t> sizes = !c.sizes.empty() ? c.sizes
                                         : c.quick        ? std::vector<std::size_t>{64, 128, 256}
                                                          : std::vector<std::size_t>{128, 256, 512, 1024, 2048};
  const std::uint64_t seed = c.seed;
  const Sweep s = sweep(models::builtin_unit("v100"), variants, sizes,
                        [&](std::size_t n) { return models::matrix_q1dq2(n, 1e3, seed); }, c);
  Result res;
  res.figure = figure_of(s, variants, "blanchard2020 Fig. 4.2: LU on simulated V100 tensor cores, q1dq2 cond 1e3",
                         "Thm 4.3 + fp32 solves");
  const std::size_t i = last_complete(s);
  const std::string at = i < sizes.size() ? "at n = " + std::to_string(sizes[i]) : "(no size completed)";
  auto err = [&](std::size_t v) { return i < sizes.size() ? s.points[v][i].error : kNaN; };
  res.checks.push_back(ratio_check("fp16 >= TC16", err(0), err(1), 1, kNoLimit, "fp16 / TC16 " + at));
  res.checks.push_back(ratio_check("TC16 > TC32", err(1), err(2), 1 + 1e-12, kNoLimit, "TC16 / TC32 " + at));
  res.checks.push_back(ratio_check("TC32 > fp32", err(2), err(3), 1 + 1e-12, kNoLimit, "TC32 / fp32 " + at));
  res.checks.push_back(ratio_check("TC32 is one to two orders of magnitude below TC16", err(1), err(2), 10, 100,
                                   "TC16 / TC32 " + at));
  res.checks.push_back(bound_check(s, "every error is below its bound (Theorem 4.3 (4.4) plus 2 g_n + g_n^2 for the fp32 "
                                      "substitutions)",
                                   "largest error / bound over all points"));
  res.paper =
      "blanchard2020 section 4.2 (V100, cuBLAS updates, no pivoting, q1dq2 with cond 1e3, n from 1000 to 45000): "
      "\"the TC16 variant gives a smaller backward error than the fp16 one\"; \"the TC32 variant gives a backward "
      "error between one and two orders of magnitude smaller than the fp16 and TC16 variants\"; \"the fp32 variant "
      "gives the smallest backward error\".";
  res.simulated = "Componentwise backward errors (rl, blocks of r = " + std::to_string(r) +
                  ", storage as blanchard2020 Table 4.1 takes u: fp16 for fp16 and TC16, fp32 for TC32 and fp32; "
                  "substitutions in fp32):\n\n" +
                  table(s, variants) +
                  (s.breakdowns.empty() ? std::string()
                                        : "\nBreakdowns without pivoting (tiny or zero pivots, or overflow, in fp16 "
                                          "storage; the paper does not report them):\n\n" +
                                              s.breakdowns);
  res.setting = "Unit v100 (fp16 inputs), q1dq2 matrices (Haar Q1, Q2, singular values 1 to 1e-3, seed " +
                std::to_string(seed) + "), no pivoting, x = ones, b = A x. Sizes " +
                (!c.sizes.empty() ? size_list(sizes) + " (" + c.sizes_option.substr(0, c.sizes_option.find(' ')) + ")"
                 : c.quick        ? std::string("64, 128, 256 (--quick)")
                                  : std::string("128 to 2048")) +
                (c.sizes_option == "--full" ? "; the paper's n from 1000 to 45000 (section 4.2)."
                                            : "; the paper goes to 45000 (--full), beyond a CPU simulation of this machine "
                                              "in minutes.");
  return res;
}

// lopez2022's four experiments share their setting: V100, no pivoting, x = ones, fp32
// substitutions, r = 256 and s = 8 in the paper.
struct LopezSetting {
  std::size_t r, s = 8;
  std::vector<std::size_t> sizes;
};

LopezSetting lopez_setting(const Context& c) {
  if (!c.sizes.empty()) return {64, 8, c.sizes};
  if (c.quick) return {64, 8, {256, 512, 1024}};
  return {64, 8, {512, 1024, 2048, 4096}};
}

std::string lopez_setting_text(const LopezSetting& ls, const Context& c, const std::string& matrix) {
  std::string sizes = size_list(ls.sizes);
  if (!c.sizes.empty()) sizes += " (" + c.sizes_option.substr(0, c.sizes_option.find(' ')) + ")";
  return "Unit v100 (fp16 inputs), " + matrix + " (seed " + std::to_string(c.seed) +
         "), no pivoting, x = ones, b = A x, substitutions in fp32 (lopez2022 section 2.3). r = " +
         std::to_string(ls.r) + ", s = " + std::to_string(ls.s) + ", n = " + sizes +
         ". The paper uses r = 256 and n from 2000 to 50000 on a GPU; r is cut to 64 so that the sizes a CPU "
         "simulation reaches here still have several blocks.";
}

Variant v31(bool u16, std::size_t r) {
  return {u16 ? "Alg. 3.1 (u = u16)" : "Alg. 3.1 (u = u32)",
          rl(u16 ? models::GemmVariant::Tc16 : models::GemmVariant::Tc32, r, u16 ? "fp16" : "fp32"), "fp32"};
}

Result lopez2022(const Context& c, const std::string& fig) {
  using models::LuAlgorithm;
  using models::LuPanel;
  const LopezSetting ls = lopez_setting(c);
  const std::size_t r = ls.r, s8 = ls.s;
  std::vector<Variant> variants = {v31(true, r), v31(false, r)};
  if (fig == "fig2a" || fig == "fig3a") variants.push_back({"Alg. 4.1", alg(LuAlgorithm::Ll, r), "fp32"});
  if (fig == "fig3a") variants.push_back({"Alg. 5.1", alg(LuAlgorithm::LlFp32Panel, r), "fp32"});
  if (fig == "fig4a" || fig == "fig5") {
    variants.push_back({"Alg. 5.2 (PanelFactor 4.1)", alg(LuAlgorithm::Dp, r, s8, LuPanel::Ll), "fp32"});
    variants.push_back({"Alg. 5.2 (PanelFactor 5.1)", alg(LuAlgorithm::Dp, r, s8, LuPanel::LlFp32Panel), "fp32"});
  }
  const std::uint64_t seed = c.seed;
  const bool tunable = fig == "fig5";
  const Sweep s = sweep(models::builtin_unit("v100"), variants, ls.sizes, [&](std::size_t n) {
    return tunable ? models::matrix_tunable(n, 1e3, seed) : models::matrix_hpl_ai(n, seed);
  }, c);
  Result res;
  const std::string matrix = tunable ? "Fasi-Higham matrices with kappa_inf = 1e3" : "hpl-ai matrices";
  res.figure = figure_of(s, variants, "lopez2022 " + fig + ": LU on simulated V100 tensor cores, " + matrix,
                         "lopez2022 Thm");
  const std::size_t i = last_complete(s);
  const std::string at = i < ls.sizes.size() ? "at n = " + std::to_string(ls.sizes[i]) : "(no size completed)";
  auto err = [&](std::size_t v) { return i < ls.sizes.size() ? s.points[v][i].error : kNaN; };
  if (fig == "fig2a") {
    res.checks.push_back(ratio_check("storing the matrix in fp16 costs Algorithm 3.1 at least an order of magnitude",
                                     err(0), err(1), 10, kNoLimit, "3.1 (u16) / 3.1 (u32) " + at));
    res.checks.push_back(ratio_check("Algorithm 4.1 is no less accurate than Algorithm 3.1 with u = u16", err(0), err(2),
                                     1, kNoLimit, "3.1 (u16) / 4.1 " + at));
    res.checks.push_back(ratio_check("Algorithm 4.1 does not recover the accuracy of Algorithm 3.1 with u = u32",
                                     err(2), err(1), 1, kNoLimit, "4.1 / 3.1 (u32) " + at));
    res.paper = "lopez2022 section 4.3: Algorithm 4.1 is more accurate than Algorithm 3.1 with u = u16, \"reducing the "
                "error by about an order of magnitude for large n\", but does not \"fully recover the same accuracy as "
                "Algorithm 3.1 (which stores the matrix in fp32), with an error about an order of magnitude larger\". "
                "Section 3: switching Algorithm 3.1 from u32 to u16 increases the error by about two orders.";
  } else if (fig == "fig3a") {
    res.checks.push_back(ratio_check("with fp16 storage Algorithm 3.1 is clearly less accurate than Algorithm 5.1",
                                     err(0), err(3), 4, kNoLimit, "3.1 (u16) / 5.1 " + at));
    res.checks.push_back(ratio_check("Algorithm 5.1 is more accurate than Algorithm 4.1", err(2), err(3), 1 + 1e-12, kNoLimit,
                                     "4.1 / 5.1 " + at));
    res.checks.push_back(ratio_check("Algorithm 5.1 comes within a small factor (<= 10) of Algorithm 3.1 with u = u32",
                                     err(3), err(1), 0, 10, "5.1 / 3.1 (u32) " + at));
    res.paper = "lopez2022 section 5.1: \"Algorithm 5.1 is indeed more accurate than Algorithm 4.1, up to about an "
                "order of magnitude\"; \"there still remains a small gap of about a factor three between the errors of "
                "Algorithms 5.1 and 3.1 with u = u32\".";
  } else if (fig == "fig4a") {
    res.checks.push_back(ratio_check("Algorithm 5.2 with PanelFactor 5.1 comes within a small factor (<= 10) of "
                                     "Algorithm 3.1 with u = u32",
                                     err(3), err(1), 0, 10, "5.2 (5.1) / 3.1 (u32) " + at));
    res.checks.push_back(ratio_check("Algorithm 5.2 with PanelFactor 4.1 is more accurate than Algorithm 3.1 with "
                                     "u = u16",
                                     err(0), err(2), 1 + 1e-12, kNoLimit, "3.1 (u16) / 5.2 (4.1) " + at));
    res.checks.push_back(ratio_check("PanelFactor 5.1 is no less accurate than PanelFactor 4.1", err(2), err(3), 1, kNoLimit,
                                     "5.2 (4.1) / 5.2 (5.1) " + at));
    res.paper = "lopez2022 section 5.2: Algorithm 5.2 with PanelFactor 5.1 \"achieves high accuracy, similar to that "
                "of Algorithm 5.1 ... and almost comparable to Algorithm 3.1 with u = u32\"; with PanelFactor 4.1 it "
                "\"achieves a lesser accuracy\" but \"remain[s] significantly more accurate than Algorithm 3.1 with "
                "u = u16\".";
  } else {  // fig5
    double others_max = 0;
    for (std::size_t v = 1; v < variants.size(); ++v) others_max = std::max(others_max, err(v));
    double others_min = kNoLimit;
    for (std::size_t v = 0; v < variants.size(); ++v)
      if (v != 1) others_min = std::min(others_min, err(v));
    res.checks.push_back(ratio_check("Algorithm 3.1 with u = u32 is the most accurate", others_min, err(1), 1, kNoLimit,
                                     "smallest other error / 3.1 (u32) " + at));
    res.checks.push_back(ratio_check("Algorithm 3.1 with u = u16 is the least accurate", err(0), others_max, 1, kNoLimit,
                                     "3.1 (u16) / largest other error " + at));
    res.paper = "lopez2022 section 6.1 (Fasi-Higham matrices, kappa(A) = 1e3): \"the behavior of the four algorithms "
                "on these matrices is similar to the one previously analyzed\" (section 6.2 and Table 3: Algorithm 3.1 "
                "with u = u32 the most accurate, with u = u16 the least).";
  }
  res.checks.push_back(bound_check(s, "every error is below its theorem's bound",
                                   "largest error / bound over all points (lopez2022 Theorems 1-4 plus the fp32 "
                                   "substitutions)"));
  res.simulated = "Componentwise backward errors (2.2):\n\n" + table(s, variants) +
                  (s.breakdowns.empty() ? std::string() : "\nBreakdowns:\n\n" + s.breakdowns);
  res.setting = lopez_setting_text(ls, c, matrix);
  return res;
}

}  // namespace

std::vector<std::size_t> lu_paper_sizes(const std::string& id) {
  // blanchard2020 section 4.2: "n ranging between 1000 and 45000" (Figs. 4.1 and 4.2).
  if (id == "blanchard2020-fig4.2") return {1000, 2000, 5000, 10000, 15000, 20000, 25000, 30000, 35000, 40000, 45000};
  // lopez2022 sections 4-6 (Figs. 2 to 5): n from 2000 up to the 16 GB V100's limit, n ~ 5e4.
  if (id.rfind("lopez2022-", 0) == 0) return {2000, 5000, 10000, 20000, 30000, 40000, 50000};
  return {};
}

std::string lu_sized_experiment_ids() {
  return "blanchard2020-fig4.2, lopez2022-fig2a, lopez2022-fig3a, lopez2022-fig4a, lopez2022-fig5";
}

std::vector<std::size_t> parse_lu_sizes(const std::string& text) {
  const std::string allowed = "; allowed: increasing sizes n in 16..50000, comma-separated (e.g. 256,512,1024)";
  std::vector<std::size_t> sizes;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty() || item.size() > 6 || item.find_first_not_of("0123456789") != std::string::npos)
      throw std::invalid_argument("--sizes: '" + item + "' is not a size" + allowed);
    const std::size_t n = std::stoul(item);
    if (n < 16 || n > 50000) throw std::invalid_argument("--sizes: " + item + " is out of range" + allowed);
    if (!sizes.empty() && n <= sizes.back())
      throw std::invalid_argument("--sizes: " + item + " after " + std::to_string(sizes.back()) + " does not increase" +
                                  allowed);
    sizes.push_back(n);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (sizes.size() > 64) throw std::invalid_argument("--sizes: " + std::to_string(sizes.size()) + " sizes; at most 64");
  return sizes;
}

void add_lu_experiments(std::vector<Experiment>& out) {
  out.push_back({"blanchard2020-fig4.2", "LU backward error of the fp16, TC16, TC32 and fp32 variants on q1dq2 matrices",
                 blanchard2020_fig42});
  out.push_back({"lopez2022-fig2a", "Algorithms 3.1 (u16, u32) and 4.1 on hpl-ai matrices",
                 [](const Context& c) { return lopez2022(c, "fig2a"); }});
  out.push_back({"lopez2022-fig3a", "Algorithms 3.1 (u16, u32), 4.1 and 5.1 on hpl-ai matrices",
                 [](const Context& c) { return lopez2022(c, "fig3a"); }});
  out.push_back({"lopez2022-fig4a", "Algorithm 5.2 with PanelFactor 4.1 or 5.1 against Algorithm 3.1 on hpl-ai matrices",
                 [](const Context& c) { return lopez2022(c, "fig4a"); }});
  out.push_back({"lopez2022-fig5", "Algorithms 3.1 and 5.2 on Fasi-Higham matrices with kappa = 1e3",
                 [](const Context& c) { return lopez2022(c, "fig5"); }});
}

}  // namespace tcsim::cli::experiments
