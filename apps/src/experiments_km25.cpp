// KM25's multiword experiments (experiment.hpp): mary2024's multiword GEMM in a narrow range as
// KM25's experiments/matmul_test.m runs it (experiments.m: NVIDIA models; experiments_CDNA.m:
// AMD CDNA models), with tcsim's units in place of KM25's models, beside KM25's published data
// files when a copy of their repository is found (km25_data.hpp).
//
// The procedure is theirs step by step: the matrices from MATLAB's rng(1) stream (reset per
// model, continued across the word counts of a model), the power-of-two scaling to theta, the
// split into p words, and each word product A_j B_k (j + k - 2 < p, j outer) as one GEMM
// TC(alpha = u^(j+k-2), A_j, B_k, beta = 1, C) whose model rounds alpha A_j into the input
// format before multiplying (KM25 models/tools/GEMM.m) and accumulates into C in binary32.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "experiment.hpp"
#include "item_bytes.hpp"
#include "km25_data.hpp"
#include "matlab_twister.hpp"
#include "tcsim/models/gemm.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/rounding.hpp"

namespace tcsim::cli::experiments {

namespace {

constexpr std::size_t kM = 10, kQ = 10;  // matmul_test.m: m = q = 10
// floor(logspace(1, 6, 20)), matmul_test.m's nlist.
const std::vector<std::size_t> kSizes = {10,    18,    33,    61,    112,    206,    379,    695,    1274,   2335,
                                         4281,  7847,  14384, 26366, 48329,  88586,  162377, 297635, 545559, 1000000};
constexpr std::size_t kQuickSizes = 7;  // n <= 379
constexpr int kQuickPositions = 3;      // the stream positions of p = 1, 2, 3 (or 1, 4, 6) of a model

// A model of KM25's scripts and the tcsim unit in its place.
struct Model {
  std::string km25;         // the name in KM25's file names
  std::string unit;         // tcsim's unit ("b200rn": b200 with RNE final rounding, KM25's B200TCRN)
  std::string instruction;  // its row ("" = default)
  std::string gemm_format;  // the format the model rounds alpha A_j and B_k into ("" = the input format)
};

// One line of a KM25 script: matmul_test with input `km25_in`, `p` words, on `model`, drawing its
// matrices at `position` (0: right after rng(1); 1: after one full pass over nlist, ...).
struct Run {
  std::string km25_in;  // binary16, bfloat16, fp8-e5m2
  Model model;
  int p = 1;
  int position = 0;
  // The first matmul_test of a MATLAB session: its first point (n = 10) rounds L A and B M to
  // nearest; every later rounding of matmul_test rounds toward zero (see input_rounding).
  bool session_start = false;
  std::string file() const {
    return km25_in + "_binary32_words_" + std::to_string(p) + "_model_" + model.km25;
  }
  std::string label() const { return model.km25 + " " + km25_in + " p = " + std::to_string(p); }
};

const Format& input_format(const std::string& km25_in) {
  if (km25_in == "binary16") return formats::fp16();
  if (km25_in == "bfloat16") return formats::bf16();
  return formats::e5m2();
}

// B200 with round to nearest even at the end (KM25's hypothetical B200TCRN: frmode 'rne', the
// alignment still truncating).
const models::Unit& b200_round_to_nearest() {
  static const std::shared_ptr<const models::Unit> unit = [] {
    models::UnitSpec spec = models::builtin_unit("b200").spec();
    spec.name = "b200rn";
    spec.aliases.clear();
    for (auto& row : spec.datapaths)
      for (auto& [format, mode] : row.final_rounding) mode = Rounding::NearestEven;
    return std::make_shared<const models::Unit>(std::move(spec));
  }();
  return *unit;
}

const models::Unit& unit_of(const Model& m) {
  return m.unit == "b200rn" ? b200_round_to_nearest() : models::builtin_unit(m.unit);
}

// CPFloat's rounding into f (subnormals kept).
double round_to(const Format& f, double x, Rounding mode = Rounding::NearestEven) {
  return to_double(decode(f, round_bits(decode(formats::fp64(), bits_of_double(x)), f, mode)));
}

// The matrices of one point: A (m x n) and B (n x q) row-major, with their binary64 product.
struct Matrices {
  std::size_t n = 0;
  std::vector<double> A, B, exact;
  double normA = 0, normB = 0;
};

// A = 10.^(rand(m,n)*2l - l), B likewise, then the signs randi(2,m,n)*2-3 and randi(2,n,q)*2-3,
// column-major; randi(2) = floor(2 rand) + 1 (one double each: the n = 10 point of KM25's v100
// file agrees to all its digits with this mapping, docs/research/km25_multiword_rng.md).
Matrices draw(MatlabTwister& rng, std::size_t n) {
  Matrices x;
  x.n = n;
  x.A.assign(kM * n, 0);
  x.B.assign(n * kQ, 0);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i = 0; i < kM; ++i) x.A[i * n + j] = std::pow(10.0, rng.next_double() * 2 * 10 - 10);
  for (std::size_t j = 0; j < kQ; ++j)
    for (std::size_t i = 0; i < n; ++i) x.B[i * kQ + j] = std::pow(10.0, rng.next_double() * 2 * 10 - 10);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i = 0; i < kM; ++i) x.A[i * n + j] *= std::floor(2 * rng.next_double()) * 2 - 1;
  for (std::size_t j = 0; j < kQ; ++j)
    for (std::size_t i = 0; i < n; ++i) x.B[i * kQ + j] *= std::floor(2 * rng.next_double()) * 2 - 1;
  x.exact.assign(kM * kQ, 0);
  for (std::size_t i = 0; i < kM; ++i)
    for (std::size_t j = 0; j < kQ; ++j) {
      double s = 0;
      for (std::size_t t = 0; t < n; ++t) s += x.A[i * n + t] * x.B[t * kQ + j];
      x.exact[i * kQ + j] = s;
    }
  for (std::size_t i = 0; i < kM; ++i) {
    double s = 0;
    for (std::size_t t = 0; t < n; ++t) s += std::fabs(x.A[i * n + t]);
    x.normA = std::max(x.normA, s);
  }
  for (std::size_t t = 0; t < n; ++t) {
    double s = 0;
    for (std::size_t j = 0; j < kQ; ++j) s += std::fabs(x.B[t * kQ + j]);
    x.normB = std::max(x.normB, s);
  }
  return x;
}

// Words drawn per point: 2 (a double) for each of the 2 (m n + n q) entries and signs.
std::uint64_t words_of(std::size_t n) { return 4 * (kM * n + n * kQ); }

double previous_pow2(double x) { return std::exp2(std::floor(std::log2(x))); }

// u = 2^-t, t the precision, as CPFloat's params give it.
double unit_roundoff(const Format& f) { return std::ldexp(1.0, -f.precision); }
// matmul_test.m's fmax = 2^emax (2 - 2u) (CPFloat's params; the largest finite value of fp16, bf16, E5M2).
double largest(const Format& f) { return std::ldexp(2 - 2 * unit_roundoff(f), f.emax); }

// matmul_test.m's error of one point: norm(C - Ctrue, inf) / norm(A, inf) / norm(B, inf).
// The rounding of matmul_test's cpfloat(temp, inopt) calls. CPFloat's MATLAB interface keeps the
// fields an options struct leaves out from the previous call, and inopt sets only the format:
// after GEMM.m's last call, cpfloat(beta*C, def_outopts) with round = 4, they round toward zero.
// Only the calls before a session's first GEMM use the default, round to nearest even. This is
// how KM25's data files were made (docs/research/km25_multiword_rng.md).
Rounding input_rounding(const Run& r, std::size_t n) {
  return r.session_start && n == kSizes.front() ? Rounding::NearestEven : Rounding::TowardZero;
}

double run_point(const Run& r, const Matrices& x, unsigned threads) {
  const std::size_t n = x.n;
  const Rounding split_rounding = input_rounding(r, n);
  const Format& in = input_format(r.km25_in);
  const Format& gemm_in = r.model.gemm_format.empty() ? in : parse_format(r.model.gemm_format);
  const double u = unit_roundoff(in), fmax = largest(in), Fmax = largest(formats::fp32());
  const double theta = std::min(fmax, std::sqrt(Fmax / static_cast<double>(n)));
  std::vector<double> L(kM), M(kQ);
  for (std::size_t i = 0; i < kM; ++i) {
    double top = 0;
    for (std::size_t t = 0; t < n; ++t) top = std::max(top, std::fabs(x.A[i * n + t]));
    L[i] = previous_pow2(theta / top);
  }
  for (std::size_t j = 0; j < kQ; ++j) {
    double top = 0;
    for (std::size_t t = 0; t < n; ++t) top = std::max(top, std::fabs(x.B[t * kQ + j]));
    M[j] = previous_pow2(theta / top);
  }
  std::vector<double> temp1(kM * n), temp2(n * kQ);
  for (std::size_t i = 0; i < kM; ++i)
    for (std::size_t t = 0; t < n; ++t) temp1[i * n + t] = L[i] * x.A[i * n + t];
  for (std::size_t t = 0; t < n; ++t)
    for (std::size_t j = 0; j < kQ; ++j) temp2[t * kQ + j] = x.B[t * kQ + j] * M[j];
  // The words: LA{1} = fl(temp1); LA{j} = fl((temp1 - LA{j-1} u^(j-2)) / u^(j-1)), temp1 updated.
  std::vector<std::vector<double>> LA(r.p), BM(r.p);
  auto split = [&](std::vector<double>& temp, std::vector<std::vector<double>>& words) {
    words[0].resize(temp.size());
    for (std::size_t e = 0; e < temp.size(); ++e) words[0][e] = round_to(in, temp[e], split_rounding);
    for (int j = 2; j <= r.p; ++j) {
      words[j - 1].resize(temp.size());
      const double back = std::pow(u, j - 2), scale = std::pow(u, j - 1);
      for (std::size_t e = 0; e < temp.size(); ++e) {
        temp[e] = temp[e] - words[j - 2][e] * back;
        words[j - 1][e] = round_to(in, temp[e] / scale, split_rounding);
      }
    }
  };
  split(temp1, LA);
  split(temp2, BM);
  const models::Unit& unit = unit_of(r.model);
  models::GemmOptions o;
  o.variant = models::GemmVariant::Tc32;
  o.instruction = r.model.instruction;
  o.threads = threads;
  std::vector<double> D(kM * kQ, 0.0), Aj(kM * n), Bk(n * kQ);
  for (int j = 1; j <= r.p; ++j)
    for (int k = 1; k <= r.p; ++k) {
      if (j + k - 2 >= r.p) continue;
      const double alpha = std::pow(u, j + k - 2);
      for (std::size_t e = 0; e < Aj.size(); ++e) Aj[e] = round_to(gemm_in, alpha * LA[j - 1][e]);
      for (std::size_t e = 0; e < Bk.size(); ++e) Bk[e] = round_to(gemm_in, BM[k - 1][e]);
      D = models::simulate_gemm(unit, gemm_in, formats::fp32(), kM, kQ, n, Aj, Bk, D, o).D;
    }
  double worst = 0;
  for (std::size_t i = 0; i < kM; ++i) {
    double s = 0;
    for (std::size_t j = 0; j < kQ; ++j) s += std::fabs((1 / L[i]) * D[i * kQ + j] * (1 / M[j]) - x.exact[i * kQ + j]);
    worst = std::max(worst, s);
  }
  return worst / x.normA / x.normB;
}

// Bound (3.26) of matmul_test.m for p = 1: 2u + nU + 4 n^2 fmin / theta + 4 n^2 Fmin / theta^2.
double bound_326(const std::string& km25_in, double n) {
  const Format& in = input_format(km25_in);
  const double u = unit_roundoff(in), U = 0x1p-24, fmin = std::ldexp(1.0, in.emin), Fmin = 0x1p-126;
  const double theta = std::min(largest(in), std::sqrt(largest(formats::fp32()) / n));
  return 2 * u + n * U + 4 * n * n * fmin / theta + 4 * n * n * Fmin / (theta * theta);
}

std::string printed(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%e", x);
  return buf;
}

struct Script {
  std::string id, source;  // "experiments.m"
  std::vector<Run> runs;
};

// Appends `model`'s lines for input `in` with word counts `words`, drawing from `first_position`.
void add(Script& s, const std::string& in, const Model& model, std::vector<int> words, int first_position = 0) {
  for (std::size_t i = 0; i < words.size(); ++i)
    s.runs.push_back({in, model, words[i], first_position + static_cast<int>(i)});
}

// Marks the p = 1 line of `model` and `in` as the first of a MATLAB session. Which lines were is
// read off the data files: the n = 10 point of exactly these files needs round to nearest (the
// first line of experiments.m; h100's fp8 files, added to the repository on their own; the
// first line of experiments_CDNA.m; and mi300x bfloat16, the first line of the script version
// that added its files).
void session_start(Script& s, const std::string& in, const std::string& model) {
  for (Run& r : s.runs)
    if (r.km25_in == in && r.model.km25 == model && r.p == 1) r.session_start = true;
}

Script nvidia_script() {
  Script s{"km25-multiword", "experiments.m", {}};
  const Model v100{"v100", "v100", "", ""}, a100{"a100", "a100", "", ""}, b200{"b200", "b200", "", ""},
      b200rn{"b200rn", "b200rn", "", ""};
  for (const Model& m : {v100, a100, b200, b200rn}) add(s, "binary16", m, {1, 2, 3});
  for (const Model& m : {a100, b200, b200rn}) add(s, "bfloat16", m, {1, 2, 3});
  // fp8: KM25's L40S, H100 and B200 fp8 models have F = 13, 13 and 25 with blocks of 16, 32, 32:
  // tcsim's l40s row, h100's wgmma row and b200's tcgen05 row.
  add(s, "fp8-e5m2", {"l40s", "l40s", "", ""}, {1, 4, 6});
  add(s, "fp8-e5m2", {"h100", "h100", "wgmma", ""}, {1, 4, 6});
  add(s, "fp8-e5m2", {"b200", "b200", "tcgen05", ""}, {1, 4, 6});
  // experiments.m has no rng(seed) between its fp8 b200 and b200rn lines: b200rn continues the stream.
  add(s, "fp8-e5m2", {"b200rn", "b200rn", "tcgen05", ""}, {1, 4, 6}, 3);
  session_start(s, "binary16", "v100");
  session_start(s, "fp8-e5m2", "h100");
  return s;
}

Script cdna_script() {
  Script s{"km25-cdna-multiword", "experiments_CDNA.m", {}};
  const Model mi100{"mi100", "mi100", "", ""}, mi250{"mi250", "mi250x", "", ""}, mi300x{"mi300x", "mi300x", "", ""};
  for (const char* in : {"binary16", "bfloat16"})
    for (const Model& m : {mi100, mi250, mi300x}) add(s, in, m, {1, 2, 3});
  // CDNA3 fp8 is FNUZ: KM25's GEMM.m rounds alpha A_j and B_k into E5M2FNUZ (params [3, -15, 15]).
  add(s, "fp8-e5m2", {"mi300x", "mi300x", "", "e5m2fnuz"}, {1, 4, 6});
  session_start(s, "binary16", "mi100");
  session_start(s, "bfloat16", "mi300x");
  return s;
}

struct Comparison {
  bool present = false;
  std::vector<Km25Point> points;
  std::vector<int> digits;  // per computed point
};

Result run_script(const Script& script, const Context& c) {
  const std::size_t sizes = c.quick ? kQuickSizes : kSizes.size();
  std::vector<Run> runs;
  for (const Run& r : script.runs)
    if (!c.quick || r.position < kQuickPositions) runs.push_back(r);
  int positions = 0;
  for (const Run& r : runs) positions = std::max(positions, r.position + 1);
  std::vector<std::vector<double>> err(runs.size(), std::vector<double>(sizes, std::numeric_limits<double>::quiet_NaN()));
  // Each (line, size) point is a work item (spread over MPI ranks by tcsim experiment, item i on
  // rank i mod P), heaviest first so that round-robin balances the ranks: a point costs about n
  // times its GEMMs, p (p + 1) / 2 (ties in stream order, then in line order). A point draws its
  // matrices at its own place in the rng(1) stream (the words of every earlier point, those
  // outside --quick too, skipped); the lines of a pass draw the same matrices, each for itself
  // (a draw costs about a tenth of a p = 1 GEMM).
  struct Point {
    std::size_t ri, si;
    std::uint64_t place;  // in words from rng(1)
    double cost;
  };
  std::vector<Point> work;  // in stream order, then sorted
  std::vector<std::uint64_t> starts;  // the places of the passes' sizes, increasing
  std::uint64_t place = 0;
  for (int pos = 0; pos < positions; ++pos)
    for (std::size_t si = 0; si < kSizes.size(); ++si) {
      if (si < sizes) {
        starts.push_back(place);
        for (std::size_t ri = 0; ri < runs.size(); ++ri)
          if (runs[ri].position == pos)
            work.push_back({ri, si, place, runs[ri].p * (runs[ri].p + 1) / 2 * static_cast<double>(kSizes[si])});
      }
      place += words_of(kSizes[si]);
    }
  std::stable_sort(work.begin(), work.end(), [](const Point& a, const Point& b) { return a.cost > b.cost; });
  // A rank walks one generator forward (`front`, from rng(1): every model of the scripts starts
  // there) and keeps a copy of it (2.5 KB) at each place it passes, so it generates the stream at
  // most once whatever the order of its points.
  MatlabTwister front(1);
  std::uint64_t front_place = 0;
  std::size_t next_start = 0;
  std::map<std::uint64_t, MatlabTwister> at_place;
  const std::size_t total = work.size();
  const std::vector<std::string> results = run_items(c, total, [&](std::size_t item) {
    const Point& pt = work[item];
    for (; next_start < starts.size() && starts[next_start] <= pt.place; ++next_start) {
      front.discard(starts[next_start] - front_place);
      front_place = starts[next_start];
      at_place.emplace(front_place, front);
    }
    if (c.progress)
      c.progress(runs[pt.ri].label() + ", n = " + std::to_string(kSizes[pt.si]),
                 static_cast<double>(item) / static_cast<double>(total));
    MatlabTwister rng = at_place.at(pt.place);
    const Matrices x = draw(rng, kSizes[pt.si]);
    ItemWriter bytes;
    bytes.put(run_point(runs[pt.ri], x, c.threads));
    return bytes.take();
  });
  for (std::size_t item = 0; item < total; ++item) err[work[item].ri][work[item].si] = ItemReader(results[item]).get<double>();

  const Km25Data data = find_km25_data();
  std::vector<Comparison> cmp(runs.size());
  for (std::size_t ri = 0; ri < runs.size(); ++ri) {
    const auto points = read_km25_file(data, runs[ri].file());
    if (!points) continue;
    cmp[ri].present = true;
    cmp[ri].points = *points;
    for (std::size_t si = 0; si < sizes; ++si) {
      int d = 0;
      for (const Km25Point& p : *points)
        if (p.n == static_cast<double>(kSizes[si])) d = agreeing_digits(printed(err[ri][si]), p.printed);
      cmp[ri].digits.push_back(d);
    }
  }

  Result res;
  Figure& f = res.figure;
  bool any_file = false;
  for (const Comparison& k : cmp) any_file = any_file || k.present;
  f.title = "KM25 " + script.source + ": multiword GEMM in a narrow range on tcsim's units" +
            (any_file ? " (dotted: KM25's data files)" : " (KM25's data files not found: tcsim alone)");
  f.xlabel = "n";
  f.ylabel = "norm(C - A B, inf) / (norm(A, inf) norm(B, inf))";
  f.panel_columns = 3;
  for (std::size_t ri = 0; ri < runs.size(); ++ri) {
    const Run& r = runs[ri];
    Series s;
    // One colour per word-count slot across panels: fp8 runs p = 1, 4, 6 where the others run 1, 2, 3.
    const int slot = r.position % kQuickPositions;
    s.label = slot == 0 ? "p = 1" : slot == 1 ? "p = 2 (fp8: 4)" : "p = 3 (fp8: 6)";
    s.panel = r.model.km25 + (r.model.unit != r.model.km25 ? " (tcsim " + r.model.unit + ")" : std::string()) + ", " +
              r.km25_in + " in, binary32 out";
    for (std::size_t si = 0; si < sizes; ++si) {
      s.x.push_back(static_cast<double>(kSizes[si]));
      s.y.push_back(err[ri][si]);
    }
    f.series.push_back(s);
    if (cmp[ri].present) {
      Series k;
      k.label = s.label + ", KM25 data";
      k.panel = s.panel;
      k.twin = true;
      k.bounds = s.label;
      for (const Km25Point& p : cmp[ri].points)
        if (p.n <= static_cast<double>(kSizes[sizes - 1])) {
          k.x.push_back(p.n);
          k.y.push_back(p.error);
        }
      f.series.push_back(k);
    }
  }

  // Checks on the computed numbers.
  double gain = std::numeric_limits<double>::infinity(), over = 0;
  for (std::size_t ri = 0; ri < runs.size(); ++ri) {
    if (runs[ri].p != 1) continue;
    for (std::size_t rj = 0; rj < runs.size(); ++rj)
      if (runs[rj].model.km25 == runs[ri].model.km25 && runs[rj].km25_in == runs[ri].km25_in &&
          runs[rj].position == runs[ri].position + 1)
        for (std::size_t si = 0; si < sizes; ++si) gain = std::min(gain, err[ri][si] / err[rj][si]);
    for (std::size_t si = 0; si < sizes; ++si)
      over = std::max(over, err[ri][si] / bound_326(runs[ri].km25_in, static_cast<double>(kSizes[si])));
  }
  res.checks.push_back(make_check("more words are more accurate: the second word count of every model and format "
                                  "(p = 2, or p = 4 for fp8) beats p = 1 at every n",
                                  gain, gain > 1, "smallest error(p = 1) / error(second word count) over models and n"));
  res.checks.push_back(make_check("every p = 1 error is below matmul_test.m's bound (3.26), 2u + nU + 4n^2 fmin/theta + "
                                  "4n^2 Fmin/theta^2",
                                  over, over <= 1, "largest error / bound over models and n"));

  // Agreement with KM25's files.
  std::string table, first_check_label;
  int first_digits = -1, files = 0, full_points = 0, points = 0;
  table = "| KM25 file (matmul_test_...) | digits agreeing at n = " ;
  for (std::size_t si = 0; si < sizes; ++si) table += (si ? ", " : "") + std::to_string(kSizes[si]);
  table += " | points with all 7 digits | leading n with all 7 digits |\n|---|---|---|---|\n";
  for (std::size_t ri = 0; ri < runs.size(); ++ri) {
    if (!cmp[ri].present) continue;
    ++files;
    std::string ds;
    int full = 0;
    std::size_t lead = 0;
    bool leading = true;
    for (std::size_t si = 0; si < cmp[ri].digits.size(); ++si) {
      ds += (si ? " " : "") + std::to_string(cmp[ri].digits[si]);
      if (cmp[ri].digits[si] == 7) ++full;
      if (leading && cmp[ri].digits[si] == 7) lead = si + 1;
      else leading = false;
    }
    full_points += full;
    points += static_cast<int>(cmp[ri].digits.size());
    table += "| " + runs[ri].file() + " | " + ds + " | " + std::to_string(full) + " of " +
             std::to_string(cmp[ri].digits.size()) + " | " +
             (lead ? "n = 10.." + std::to_string(kSizes[lead - 1]) : std::string("none")) + " |\n";
    if (first_digits < 0 && runs[ri].p == 1) {
      first_digits = cmp[ri].digits.empty() ? 0 : cmp[ri].digits[0];
      first_check_label = runs[ri].model.km25 + " " + runs[ri].km25_in;
    }
  }
  if (points > 0)
    res.checks.push_back(make_check("tcsim's units reproduce KM25's data files: every point agrees to all 7 printed digits",
                                    static_cast<double>(full_points) / points, full_points == points,
                                    "share of the points of KM25's files computed here that agree to 7 digits"));
  if (first_digits >= 0)
    res.checks.push_back(make_check("the matrices are KM25's: the first point (n = 10, p = 1) of " + first_check_label +
                                        " agrees with KM25's data file to all 7 printed digits",
                                    first_digits, first_digits == 7, "leading digits tcsim and the file share"));

  std::string errors = "| run | position in the rng(1) stream |";
  for (std::size_t si = 0; si < sizes; ++si) errors += " n = " + std::to_string(kSizes[si]) + " |";
  errors += "\n|---|---|";
  for (std::size_t si = 0; si < sizes; ++si) errors += "---|";
  errors += "\n";
  for (std::size_t ri = 0; ri < runs.size(); ++ri) {
    errors += "| " + runs[ri].label() + " | " + std::to_string(runs[ri].position) + " |";
    for (std::size_t si = 0; si < sizes; ++si) {
      errors += " " + printed(err[ri][si]);
      // KM25's value beside tcsim's where they differ.
      if (cmp[ri].present && cmp[ri].digits[si] < 7)
        for (const Km25Point& p : cmp[ri].points)
          if (p.n == static_cast<double>(kSizes[si])) errors += " (KM25: " + p.printed + ")";
      errors += " |";
    }
    errors += "\n";
  }
  res.paper =
      "KM25 (Khattak and Mikaitis 2025, north-numerical-computing/MATLAB-tensor-core, " + script.source +
      " and matmul_test" + (script.id == "km25-cdna-multiword" ? std::string("_CDNA") : std::string()) +
      ".m) run mary2024's experiment on their MATLAB models: m = q = 10, n = floor(logspace(1, 6, 20)), entries "
      "+-10^phi with phi uniform in [-10, 10] from rng(1), power-of-two scaling to theta = min(f_max, sqrt(F_max / "
      "n)), p words, and publish the normwise errors as experiments/data/matmul_test_*.dat (7 significant digits).";
  std::string agreement;
  if (files == 0) {
    agreement = data.absent.empty() ? "KM25's copy holds none of these data files: no comparison.\n"
                                    : data.absent + ".\n";
  } else {
    char buf[200];
    std::snprintf(buf, sizeof buf, "%d of %d points (%d files) agree with KM25's data to all 7 printed digits.\n\n",
                  full_points, points, files);
    agreement = "Agreement with KM25's data files (read from " + data.dir + "; leading significant digits shared by "
                "tcsim's error and the file's, 7 = all printed digits): " + buf + table +
                "\nTwo steps of KM25's scripts make the agreement possible; both are reproduced here. Each word "
                "product rounds u^(j+k-2) A_j into the input format (GEMM.m). And matmul_test.m's own roundings "
                "(L A, B M, the words) go toward zero after the first GEMM of a MATLAB session: CPFloat keeps the "
                "fields an options struct leaves out from its previous call, GEMM.m's round-toward-zero binary32 "
                "conversion. With round to nearest there, only each session's first point agrees." +
                std::string(script.id == "km25-cdna-multiword"
                                ? " A point that differs on mi300x is CDNA3's final addition: tcsim's default row is "
                                  "X25's v2, KM25's MI300MC is v1 (tcsim's row v1); which one an MI300X returns is open "
                                  "(the one such point found, fp8 with p = 6 at n = 14384, is outside --quick)."
                                : "") +
                " docs/research/km25_multiword_rng.md.\n";
  }
  res.simulated = agreement + "\nErrors computed by tcsim (%e, as the data files print them" +
                  (files ? std::string("; KM25's value beside it where the two differ") : std::string()) + "):\n\n" +
                  errors;
  res.setting =
      "matmul_test.m step by step: MATLAB's rng(1) stream reproduced (MT19937, init_genrand(1), 53-bit doubles; "
      "randi(2) = floor(2 rand) + 1), reset per model and continued across its word counts as the script does; "
      "A*B in binary64; L A and B M rounded to the input format (RNE, subnormals kept), split into p words; each "
      "word product through tcsim's unit as KM25's GEMM.m does it: alpha A_j rounded into the input format (E5M2FNUZ "
      "on mi300x), C chained in binary32 (tcsim gemm --variant tc32). Units: " +
      std::string(script.id == "km25-cdna-multiword"
                      ? "mi100, mi250x (KM25's mi250), mi300x (default rows; fp8 E5M2FNUZ)"
                      : "v100, a100, b200, b200rn (b200 with RNE final rounding: KM25's B200TCRN), l40s, h100 "
                        "(wgmma row for fp8), b200 tcgen05 row for fp8") +
      ". Sizes n = 10 to " + std::to_string(kSizes[sizes - 1]) +
      (c.quick ? std::string(" (--quick: 7 of the 20 sizes, the first three stream positions; full mode runs "
                             "every size to 10^6)")
               : std::string()) +
      ". No seed option: the stream is rng(1), as in KM25. KM25's data: $TCSIM_KM25_DIR, else "
      "../shared/MATLAB-tensor-core.";
  return res;
}

}  // namespace

void add_km25_experiments(std::vector<Experiment>& out) {
  out.push_back({"km25-multiword",
                 "KM25 experiments.m: mary2024's multiword GEMM on the NVIDIA units beside KM25's data files",
                 [](const Context& c) { return run_script(nvidia_script(), c); }});
  out.push_back({"km25-cdna-multiword",
                 "KM25 experiments_CDNA.m: mary2024's multiword GEMM on the AMD CDNA units beside KM25's data files",
                 [](const Context& c) { return run_script(cdna_script(), c); }});
}

std::string seed_refusal(const std::string& id) {
  if (id != "km25-multiword" && id != "km25-cdna-multiword") return "";
  return id + ": KM25's matrices come from MATLAB's rng(1) stream, which this experiment reproduces; it takes no seed";
}

}  // namespace tcsim::cli::experiments
