// The mary2024 experiments of `tcsim experiment` (experiment.hpp): Figures 5.1 and 5.2,
// normwise errors of matrix products on Model 1 (models/model1.hpp) with narrow input and
// accumulation formats, p = 1, 2, 3 words, subnormals off and on, beside the same products
// with an unbounded exponent range; the bounds of Theorems 3.1 (p = 1) and 4.1 (p > 1).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "experiment.hpp"
#include "item_bytes.hpp"
#include "tcsim/models/model1.hpp"
#include "tcsim/reference/bounds.hpp"
#include "tcsim/reference/mpfr_dot.hpp"
#include "tcsim/sim/adder.hpp"
#include "tcsim/sim/codec.hpp"

namespace tcsim::cli::experiments {

namespace {

constexpr std::size_t kSizeM = 10, kSizeQ = 10;  // mary2024 section 5.1: m = q = 10
constexpr int kWords = 3;

// Section 5.1's entries: +-10^phi, the sign with probability 1/2, phi uniform in [-10, 10].
std::vector<double> entries(std::size_t count, std::uint64_t seed, std::uint64_t stream) {
  std::vector<double> v(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t r = counter_random(seed ^ (stream << 56), i);
    const double phi = -10 + 20 * (static_cast<double>(r >> 11) * 0x1p-53);
    v[i] = ((counter_random(seed ^ (stream << 56) ^ 0x5bd1e995, i) & 1) ? -1.0 : 1.0) * std::pow(10.0, phi);
  }
  return v;
}

// The exact A B (MPFR exact dot products of the binary64 entries), rounded to binary64.
std::vector<double> exact_product(std::size_t k, const std::vector<double>& A, const std::vector<double>& B,
                                  unsigned threads) {
  std::vector<double> C(kSizeM * kSizeQ);
  auto body = [&] {
    tbb::parallel_for(std::size_t{0}, kSizeM * kSizeQ, [&](std::size_t idx) {
      const std::size_t i = idx / kSizeQ, j = idx % kSizeQ;
      std::vector<std::uint64_t> a(k), b(k);
      for (std::size_t t = 0; t < k; ++t) {
        a[t] = bits_of_double(A[i * k + t]);
        b[t] = bits_of_double(B[t * kSizeQ + j]);
      }
      C[idx] = to_double(reference::exact_dot(formats::fp64(), formats::fp64(), a, b, 0));
    });
  };
  if (threads == 0) body();
  else tbb::task_arena(static_cast<int>(threads)).execute(body);
  return C;
}

double inf_norm(const std::vector<double>& X, std::size_t rows, std::size_t cols) {
  double best = 0;
  for (std::size_t i = 0; i < rows; ++i) {
    double s = 0;
    for (std::size_t j = 0; j < cols; ++j) s += std::fabs(X[i * cols + j]);
    best = std::max(best, s);
  }
  return best;
}

// Eq. (5.1): ||C^ - C||_inf / (||A||_inf ||B||_inf).
double normwise(const std::vector<double>& Chat, const std::vector<double>& C, double norms) {
  std::vector<double> d(C.size());
  for (std::size_t i = 0; i < C.size(); ++i) d[i] = Chat[i] - C[i];
  return inf_norm(d, kSizeM, kSizeQ) / norms;
}

struct Panel {
  const Format* in;
  const Format* acc;
  bool subnormals;
  std::string title() const {
    return in->name + " in, " + acc->name + " accumulation, subnormals " + (subnormals ? "on" : "off");
  }
};

// Errors of one panel: [p - 1][size] for the narrow and the unbounded range, and the bound.
struct PanelData {
  std::vector<std::vector<double>> narrow, unbounded, bound;
};

// Theorem 3.1 eq. (3.25) for p = 1, Theorem 4.1 eq. (4.32) for p > 1; above 1 they say nothing
// about a relative error and are not drawn.
double bound_of(const Panel& pn, int p, double n) {
  const reference::bounds::RangeParams in = reference::bounds::range_params(*pn.in, pn.subnormals);
  const reference::bounds::RangeParams acc = reference::bounds::range_params(*pn.acc, pn.subnormals);
  const double b = p == 1 ? reference::bounds::mary_mikaitis_thm31(n, in, acc) : reference::bounds::mary_mikaitis_thm41(n, p, in, acc);
  return b <= 1 ? b : std::numeric_limits<double>::quiet_NaN();
}

struct PanelSweep {
  std::vector<std::size_t> sizes;
  std::vector<PanelData> data;
};

PanelSweep sweep(const std::vector<Panel>& panels, const Context& c) {
  PanelSweep s;
  for (std::size_t n = 16; n <= (c.quick ? std::size_t{4096} : std::size_t{1} << 20); n *= 4) s.sizes.push_back(n);
  s.data.assign(panels.size(), {});
  for (PanelData& d : s.data) d.narrow = d.unbounded = d.bound = std::vector<std::vector<double>>(kWords);
  // Each size is a work item (spread over MPI ranks by tcsim experiment): its panels share the
  // matrices and the exact product.
  const std::vector<std::string> results = run_items(c, s.sizes.size(), [&](std::size_t si) {
    const std::size_t n = s.sizes[si];
    const std::vector<double> A = entries(kSizeM * n, c.seed, 1), B = entries(n * kSizeQ, c.seed, 2);
    if (c.progress) c.progress("n = " + std::to_string(n) + ": exact product", static_cast<double>(si) / s.sizes.size());
    const std::vector<double> C = exact_product(n, A, B, c.threads);
    const double norms = inf_norm(A, kSizeM, n) * inf_norm(B, n, kSizeQ);
    ItemWriter bytes;
    for (std::size_t pi = 0; pi < panels.size(); ++pi) {
      if (c.progress)
        c.progress("n = " + std::to_string(n) + ": " + panels[pi].title(),
                   (static_cast<double>(si) + static_cast<double>(pi + 1) / (panels.size() + 1)) / s.sizes.size());
      models::Model1Options o;
      o.subnormals = panels[pi].subnormals;
      o.threads = c.threads;
      const auto narrow = models::model1_gemm_words(*panels[pi].in, *panels[pi].acc, kSizeM, kSizeQ, n, A, B, kWords, o);
      o.bounded = false;
      const auto wide = models::model1_gemm_words(*panels[pi].in, *panels[pi].acc, kSizeM, kSizeQ, n, A, B, kWords, o);
      for (int p = 1; p <= kWords; ++p) bytes.put(normwise(narrow[p - 1], C, norms)).put(normwise(wide[p - 1], C, norms));
    }
    return bytes.take();
  });
  for (std::size_t si = 0; si < s.sizes.size(); ++si) {
    ItemReader bytes(results[si]);
    for (std::size_t pi = 0; pi < panels.size(); ++pi)
      for (int p = 1; p <= kWords; ++p) {
        s.data[pi].narrow[p - 1].push_back(bytes.get<double>());
        s.data[pi].unbounded[p - 1].push_back(bytes.get<double>());
        s.data[pi].bound[p - 1].push_back(bound_of(panels[pi], p, static_cast<double>(s.sizes[si])));
      }
  }
  return s;
}

Figure figure_of(const std::vector<Panel>& panels, const PanelSweep& s, const std::string& title) {
  Figure f;
  f.title = title;
  f.xlabel = "n";
  f.ylabel = "||C^ - C|| / (||A|| ||B||)";
  f.panel_columns = 2;
  std::vector<double> x;
  for (std::size_t n : s.sizes) x.push_back(static_cast<double>(n));
  for (std::size_t pi = 0; pi < panels.size(); ++pi)
    for (int p = 1; p <= kWords; ++p) {
      const std::string label = "p = " + std::to_string(p);
      Series narrow, wide, bound;
      narrow.label = label;
      wide.label = label + ", unbounded range";
      bound.label = label + " bound (" + (p == 1 ? "Thm 3.1 (3.25)" : "Thm 4.1 (4.32)") + ")";
      narrow.y = s.data[pi].narrow[p - 1];
      wide.y = s.data[pi].unbounded[p - 1];
      bound.y = s.data[pi].bound[p - 1];
      narrow.x = wide.x = bound.x = x;
      wide.twin = true;
      wide.bounds = label;
      bound.bound = true;
      bound.bounds = label;
      for (Series* t : {&narrow, &wide, &bound}) {
        t->panel = panels[pi].title();
        f.series.push_back(*t);
      }
    }
  return f;
}

// Largest narrow / unbounded error ratio of a panel over the sizes with n <= n_max (every
// p); 1 when both are 0.
double divergence(const PanelData& d, const std::vector<std::size_t>& sizes, std::size_t n_max) {
  double worst = 1;
  for (int p = 0; p < kWords; ++p)
    for (std::size_t i = 0; i < sizes.size(); ++i)
      if (sizes[i] <= n_max && d.unbounded[p][i] > 0) worst = std::max(worst, d.narrow[p][i] / d.unbounded[p][i]);
  return worst;
}

std::string table(const std::vector<Panel>& panels, const PanelSweep& s) {
  std::string t = "| panel | p | range |";
  for (std::size_t n : s.sizes) t += " n = " + std::to_string(n) + " |";
  t += "\n|---|---|---|";
  for (std::size_t i = 0; i < s.sizes.size(); ++i) t += "---|";
  t += "\n";
  for (std::size_t pi = 0; pi < panels.size(); ++pi)
    for (int p = 1; p <= kWords; ++p)
      for (int wide = 0; wide < 2; ++wide) {
        t += "| " + panels[pi].title() + " | " + std::to_string(p) + " | " + (wide ? "unbounded" : "narrow") + " |";
        for (double e : (wide ? s.data[pi].unbounded : s.data[pi].narrow)[p - 1]) t += " " + num(e) + " |";
        t += "\n";
      }
  return t;
}

// Every error against its bound, where the bound is drawn.
Check bound_check(const PanelSweep& s) {
  double worst = 0;
  for (const PanelData& d : s.data)
    for (int p = 0; p < kWords; ++p)
      for (std::size_t i = 0; i < s.sizes.size(); ++i)
        if (std::isfinite(d.bound[p][i])) worst = std::max(worst, d.narrow[p][i] / d.bound[p][i]);
  return make_check("every error is below its bound (Thm 3.1 (3.25) for p = 1, Thm 4.1 (4.32) for p > 1, where the bound "
                    "is below 1)",
                    worst, worst <= 1, "largest error / bound");
}

const char* const kSetting =
    "Model 1 (models/model1.hpp) on binary64 host arithmetic, every rounding to nearest even, checked against "
    "tcsim's exact rounding step; inner products by recursive summation in the accumulation format (each product "
    "and each sum rounded); power-of-two scaling (3.1)-(3.4) with theta = min(f_max, sqrt(F_max / n)); p words by "
    "(4.29)-(4.30), the products P_ij with i + j < p each summed from 0, then sum u^(i+j) P_ij in the accumulation "
    "format, smallest first (4.31). Subnormals off means both formats round values below 2^emin to 0 or 2^emin. The "
    "unbounded twin keeps the precisions and drops the exponent limits. m = q = 10, entries +-10^phi with phi "
    "uniform in [-10, 10] (section 5.1), sim's counter-based generator; the exact product by MPFR (the paper uses "
    "binary64). Bounds above 1 say nothing about a relative error and are not drawn. ";

std::string sizes_text(const PanelSweep& s, const Context& c) {
  return "Sizes n = " + std::to_string(s.sizes.front()) + " to " + std::to_string(s.sizes.back()) +
         " by factors of 4" + (c.quick ? std::string(" (--quick; full mode goes to 2^20)") : std::string()) + ".";
}

Result fig51(const Context& c) {
  const std::vector<Panel> panels = {{&formats::e5m2(), &formats::fp16(), false},
                                     {&formats::e5m2(), &formats::fp16(), true},
                                     {&formats::e4m3(), &formats::fp16(), false},
                                     {&formats::e4m3(), &formats::fp16(), true}};
  const PanelSweep s = sweep(panels, c);
  Result r;
  r.figure = figure_of(panels, s, "mary2024 Fig. 5.1: Model 1, fp8 inputs, binary16 accumulation (dotted: unbounded range)");
  const std::size_t below = 65504;  // n < F_max: theta = sqrt(F_max / n) >= 1
  double overlap = 1;
  for (std::size_t pi : {0u, 1u, 3u}) overlap = std::max(overlap, divergence(s.data[pi], s.sizes, s.sizes.back()));
  r.checks.push_back(make_check("narrow and unbounded range give overlapping errors (within 2x) in every panel but "
                                "E4M3 without subnormals",
                                overlap, overlap <= 2, "largest narrow / unbounded error over n and p"));
  const double small = divergence(s.data[2], s.sizes, below);
  r.checks.push_back(make_check("E4M3 without subnormals overlaps too while n < 65504 (theta >= 1)", small, small <= 2,
                                "largest narrow / unbounded error over n < 65504 and p"));
  if (!c.quick) {
    const double large = divergence(s.data[2], s.sizes, s.sizes.back());
    r.checks.push_back(make_check("E4M3 without subnormals diverges at the largest n (theta < 1 once n > 65504)",
                                  large, large > small && large > 1.1,
                                  "largest narrow / unbounded error over all n and p"));
  }
  r.checks.push_back(bound_check(s));
  r.paper =
      "mary2024 section 5.2: \"in almost all cases the two types of error overlap ... underflows do not contribute "
      "significantly to the overall error\"; \"the only case where the errors with narrow range and unbounded range "
      "slightly diverge is in the bottom-left subplot of Figure 5.1\" (E4M3 input, binary16 accumulation, subnormals "
      "off), \"only for the largest values of n\": once n > 65504, theta = sqrt(65504 / n) < 1 and inputs underflow; "
      "\"the divergence disappears when using subnormals and/or binary32 accumulation, and is in any case very "
      "small\".";
  r.simulated = "Normwise errors (5.1):\n\n" + table(panels, s);
  r.setting = std::string(kSetting) + sizes_text(s, c);
  return r;
}

Result fig52(const Context& c) {
  const std::vector<Panel> panels = {{&formats::fp16(), &formats::fp32(), false},
                                     {&formats::fp16(), &formats::fp32(), true},
                                     {&formats::e5m2(), &formats::fp32(), false},
                                     {&formats::e5m2(), &formats::fp32(), true},
                                     {&formats::e4m3(), &formats::fp32(), false},
                                     {&formats::e4m3(), &formats::fp32(), true}};
  const PanelSweep s = sweep(panels, c);
  Result r;
  r.figure = figure_of(panels, s,
                       "mary2024 Fig. 5.2: Model 1, binary16 and fp8 inputs, binary32 accumulation (dotted: unbounded range)");
  double overlap = 1;
  for (std::size_t pi = 0; pi < panels.size(); ++pi) overlap = std::max(overlap, divergence(s.data[pi], s.sizes, s.sizes.back()));
  r.checks.push_back(make_check("narrow and unbounded range give overlapping errors (within 2x) in every panel", overlap,
                                overlap <= 2, "largest narrow / unbounded error over panels, n and p"));
  double e4m3_p3 = 0;
  for (std::size_t pi : {4u, 5u}) e4m3_p3 = std::max(e4m3_p3, *std::max_element(s.data[pi].narrow[2].begin(), s.data[pi].narrow[2].end()));
  r.checks.push_back(make_check("triple-word E4M3 reaches an accuracy of order 1e-5 or better", e4m3_p3, e4m3_p3 <= 3e-5,
                                "largest p = 3 E4M3 error over n (of order 1e-5: at most 3e-5)"));
  double gain = std::numeric_limits<double>::infinity();
  for (const PanelData& d : s.data)
    gain = std::min({gain, d.narrow[0].front() / d.narrow[1].front(), d.narrow[1].front() / d.narrow[2].front()});
  r.checks.push_back(make_check("each extra word lowers the error (at the smallest n, where nU does not dominate)", gain,
                                gain > 1, "smallest error(p) / error(p + 1) at n = 16 over panels"));
  r.checks.push_back(bound_check(s));
  r.paper =
      "mary2024 section 5.2: \"in almost all cases the two types of error overlap ... this is true both for single-word "
      "and multiword arithmetic: for example, in Figure 5.2, using triple-word arithmetic (p = 3) with fp8-E4M3 input "
      "achieves an accuracy of order at least 10^-5, despite its very narrow range\".";
  r.simulated = "Normwise errors (5.1):\n\n" + table(panels, s);
  r.setting = std::string(kSetting) + sizes_text(s, c);
  return r;
}

}  // namespace

void add_mary2024_experiments(std::vector<Experiment>& out) {
  out.push_back({"mary2024-fig5.1", "Model 1 with fp8 inputs and binary16 accumulation: narrow against unbounded range",
                 fig51});
  out.push_back({"mary2024-fig5.2",
                 "Model 1 with binary16 or fp8 inputs and binary32 accumulation: narrow against unbounded range", fig52});
}

}  // namespace tcsim::cli::experiments
