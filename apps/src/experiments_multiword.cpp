// The mary2021 experiments of `tcsim experiment` (experiment.hpp): multiword GEMM on tensor
// cores against binary32 GEMM, with an ablation of the unit's round-toward-zero, and FABsum
// as the cure.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "experiment.hpp"
#include "item_bytes.hpp"
#include "tcsim/models/gemm.hpp"
#include "tcsim/reference/bounds.hpp"
#include "tcsim/reference/gemm_error.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/rounding.hpp"

namespace tcsim::cli::experiments {

namespace {

// V100 with every rounding to nearest: alignment and final rounding (the ablation of
// mary2021's explanation "the culprit is round to zero").
const models::Unit& v100_round_to_nearest() {
  static const std::shared_ptr<const models::Unit> unit = [] {
    models::UnitSpec spec = models::builtin_unit("v100").spec();
    spec.name = "v100-rn";
    for (auto& row : spec.datapaths) {
      row.alignment_rounding = Rounding::NearestEven;
      for (auto& [format, mode] : row.final_rounding) mode = Rounding::NearestEven;
    }
    return std::make_shared<const models::Unit>(std::move(spec));
  }();
  return *unit;
}

// Componentwise error of one GEMM A (8 x n) B (n x 8), C = 0, against the exact product.
double gemm_error(const models::Unit& unit, const Format& in, std::size_t n, const std::vector<double>& A,
                  const std::vector<double>& B, const models::GemmOptions& o, unsigned threads) {
  models::GemmOptions g = o;
  g.threads = threads;
  const models::GemmResult r = models::simulate_gemm(unit, in, formats::fp32(), 8, 8, n, A, B, {}, g);
  return reference::gemm_errors(8, 8, n, A, B, {}, r.D, {}, threads).componentwise;
}

models::GemmOptions words(int p) {
  models::GemmOptions o;
  o.variant = models::GemmVariant::Tc32;
  o.words = p;
  return o;
}

models::GemmOptions fp32_gemm() {
  models::GemmOptions o;
  o.variant = models::GemmVariant::Fp32;
  return o;
}

Result mary2021_multiword(const Context& c) {
  std::vector<std::size_t> sizes;
  for (std::size_t n = 1024; n <= (c.quick ? 65536u : (1u << 20)); n *= 4) sizes.push_back(n);
  struct Line {
    std::string label;
    const models::Unit* unit;
    const Format* in;
    models::GemmOptions options;
    bool positive;
  };
  const models::Unit& v100 = models::builtin_unit("v100");
  const models::Unit& a100 = models::builtin_unit("a100");
  const std::vector<Line> lines = {
      {"fp32, [0, 1]", &v100, &formats::fp32(), fp32_gemm(), true},
      {"double-fp16 (V100), [0, 1]", &v100, &formats::fp16(), words(2), true},
      {"double-fp16 (V100, RN accumulation), [0, 1]", &v100_round_to_nearest(), &formats::fp16(), words(2), true},
      {"triple-bf16 (A100), [0, 1]", &a100, &formats::bf16(), words(3), true},
      {"fp32, [-1, 1]", &v100, &formats::fp32(), fp32_gemm(), false},
      {"double-fp16 (V100), [-1, 1]", &v100, &formats::fp16(), words(2), false},
  };
  Figure f;
  f.title = "mary2021: multiword GEMM on simulated tensor cores against binary32";
  f.xlabel = "n";
  f.ylabel = "componentwise error max |C^ - C| / (|A||B|)";
  std::vector<std::vector<double>> err(lines.size());
  // Each size is a work item (spread over MPI ranks by tcsim experiment): its six lines share the data.
  const std::vector<std::string> results = run_items(c, sizes.size(), [&](std::size_t i) {
    const std::size_t n = sizes[i];
    if (c.progress) c.progress("n = " + std::to_string(n), static_cast<double>(i) / static_cast<double>(sizes.size()));
    const std::vector<double> Ap = uniform_f32(8 * n, 0, 1, c.seed, 1), Bp = uniform_f32(n * 8, 0, 1, c.seed, 2);
    const std::vector<double> As = uniform_f32(8 * n, -1, 1, c.seed, 3), Bs = uniform_f32(n * 8, -1, 1, c.seed, 4);
    ItemWriter bytes;
    for (const Line& L : lines)
      bytes.put(gemm_error(*L.unit, *L.in, n, L.positive ? Ap : As, L.positive ? Bp : Bs, L.options, c.threads));
    return bytes.take();
  });
  for (const std::string& result : results) {
    ItemReader bytes(result);
    for (std::size_t l = 0; l < lines.size(); ++l) err[l].push_back(bytes.get<double>());
  }
  for (std::size_t l = 0; l < lines.size(); ++l) {
    Series s;
    s.label = lines[l].label;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      s.x.push_back(static_cast<double>(sizes[i]));
      s.y.push_back(err[l][i]);
    }
    f.series.push_back(s);
  }
  // Bounds (constants c of |C^ - C| <= c |A||B|), dashed in the colour of the [0, 1] line:
  // fp32 recursive summation gamma_n(u32); the multiword ones of mary2021's slides.
  namespace bd = reference::bounds;
  const struct {
    std::size_t line;
    std::string label;
    double (*bound)(double);
  } bounds[] = {
      {0, "fp32 bound (gamma_n, u32)", [](double n) { return bd::gamma(n, bd::u_fp32); }},
      {1, "double-fp16 bound (mary2021)",
       [](double n) { return bd::mary_multiword(n, 2, bd::u_fp16, bd::u_fp32, true); }},
      {3, "triple-bf16 bound (mary2021)",
       [](double n) { return bd::mary_multiword(n, 3, bd::u_bf16, bd::u_fp32, true); }},
  };
  double worst = 0;
  for (const auto& b : bounds) {
    Series s;
    s.label = b.label;
    s.bound = true;
    s.bounds = lines[b.line].label;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      s.x.push_back(static_cast<double>(sizes[i]));
      s.y.push_back(b.bound(static_cast<double>(sizes[i])));
      worst = std::max(worst, err[b.line][i] / s.y.back());
      if (b.line <= 1) worst = std::max(worst, err[b.line + 4][i] / s.y.back());  // its [-1, 1] twin
    }
    f.series.push_back(s);
  }
  Result r;
  r.figure = f;
  r.checks.push_back(make_check("every error is below its bound (fp32: gamma_n; multiword: mary2021's general error "
                                "analysis)",
                                worst, worst <= 1, "largest error / bound over n, [0, 1] and [-1, 1] data"));
  const std::size_t last = sizes.size() - 1;
  const std::string at = " at n = " + std::to_string(sizes[last]);
  const double sym = err[5][last] / err[4][last], pos = err[1][last] / err[0][last], rn = err[2][last] / err[0][last];
  r.checks.push_back(make_check("with [-1, 1] entries double-fp16 is about as accurate as fp32 (within 10x)", sym,
                                sym <= 10, "double-fp16 / fp32" + at));
  r.checks.push_back(make_check("with [0, 1] entries double-fp16 is much less accurate than fp32 (10x or more)", pos,
                                pos >= 10, "double-fp16 / fp32" + at));
  r.checks.push_back(make_check("round toward zero is the culprit: with RN accumulation double-fp16 is 10x or more "
                                "closer to fp32",
                                pos / rn, pos >= 10 * rn, "(double-fp16 / fp32) / (RN double-fp16 / fp32)" + at));
  std::string table = "| n |";
  for (const auto& L : lines) table += " " + L.label + " |";
  table += "\n|---|";
  for (std::size_t l = 0; l < lines.size(); ++l) table += "---|";
  table += "\n";
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    table += "| " + std::to_string(sizes[i]) + " |";
    for (std::size_t l = 0; l < lines.size(); ++l) table += " " + num(err[l][i]) + " |";
    table += "\n";
  }
  r.paper = "mary2021 (slides): double-fp16 on tensor cores gives a \"similar backward error\" to fp32 \"for matrices "
            "with random [-1,1] uniform entries\", but not for \"[0,1] uniform entries\"; \"the culprit is round to "
            "zero (RZ)\": \"with data of nonzero mean and RZ, most rounding errors happen in the same direction\", so "
            "the worst-case bound n u32 is attained.";
  r.simulated = "Componentwise errors against the exact product (double-fp16: p = 2 words, the p(p+1)/2 = 3 products "
                "i + j <= p + 1, smallest first; triple-bf16: p = 3, 6 products):\n\n" +
                table +
                "\nThe ablation unit is V100 with its alignment and its final rounding switched from toward zero to "
                "nearest even (a user-defined unit; everything else is V100's row).";
  r.setting = "A (8 x n) and B (n x 8) with binary32 entries uniform in [0, 1] or [-1, 1], C = 0, seed " +
              std::to_string(c.seed) + ", n = 1024 to " + std::to_string(sizes[last]) +
              " by factors of 4; the exact product is MPFR's; the words and their products as simulate_gemm's multiword "
              "mode (mary2021).";
  return r;
}

Result mary2021_fabsum(const Context& c) {
  const std::size_t n = c.quick ? 65536 : (1u << 20);
  // fp16-exact data in [0, 1]: the accumulation, not the conversion, makes the error.
  std::vector<double> A = uniform_f32(8 * n, 0, 1, c.seed, 5), B = uniform_f32(n * 8, 0, 1, c.seed, 6);
  const models::Unit& v100 = models::builtin_unit("v100");
  auto to_fp16 = [](std::vector<double>& v) {
    // RNE into binary16 through tcsim's rounding (clang 14 has no _Float16 on x86).
    for (double& x : v)
      x = to_double(decode(formats::fp16(), round_to_format(decode(formats::fp64(), bits_of_double(x)), formats::fp16(), {}).bits));
  };
  to_fp16(A);
  to_fp16(B);
  models::GemmOptions tc32;
  tc32.variant = models::GemmVariant::Tc32;
  std::vector<double> blocks;
  for (std::size_t b = 16; b <= n / 4; b *= 4) blocks.push_back(static_cast<double>(b));
  const char* const combines[2] = {"fp32", "fp64"};
  // Work items (spread over MPI ranks by tcsim experiment; every rank draws the same A and B):
  // 0 plain TC32, 1 fp32 GEMM, 2 + 2 i + k block size i with combine k.
  const std::size_t total = 2 + 2 * blocks.size();
  const std::vector<std::string> results = run_items(c, total, [&](std::size_t item) {
    if (c.progress)
      c.progress(item < 2 ? "plain TC32 and fp32" : "b = " + num(blocks[(item - 2) / 2]),
                 static_cast<double>(item) / static_cast<double>(total));
    ItemWriter bytes;
    if (item == 0) {
      bytes.put(gemm_error(v100, formats::fp16(), n, A, B, tc32, c.threads));
    } else if (item == 1) {
      bytes.put(gemm_error(v100, formats::fp32(), n, A, B, fp32_gemm(), c.threads));
    } else {
      models::GemmOptions o = tc32;
      o.fabsum_block = static_cast<int>(blocks[(item - 2) / 2]);
      o.fabsum_combine = combines[(item - 2) % 2];
      bytes.put(gemm_error(v100, formats::fp16(), n, A, B, o, c.threads));
    }
    return bytes.take();
  });
  auto error_of = [&](std::size_t item) { return ItemReader(results[item]).get<double>(); };
  const double plain = error_of(0);
  const double fp32 = error_of(1);
  Series s32, s64, sp, sf;
  s32.label = "FABsum, blocks combined in fp32";
  s64.label = "FABsum, blocks combined in fp64";
  sp.label = "plain TC32 (no blocking)";
  sf.label = "fp32 GEMM";
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    s32.y.push_back(error_of(2 + 2 * i));
    s64.y.push_back(error_of(2 + 2 * i + 1));
    s32.x.push_back(blocks[i]);
    s64.x.push_back(blocks[i]);
    sp.x.push_back(blocks[i]);
    sp.y.push_back(plain);
    sf.x.push_back(blocks[i]);
    sf.y.push_back(fp32);
  }
  Result r;
  r.figure.title = "mary2021 FABsum on simulated V100 tensor cores, n = " + std::to_string(n) + ", entries in [0, 1]";
  r.figure.xlabel = "FABsum block size b";
  r.figure.ylabel = "componentwise error max |C^ - C| / (|A||B|)";
  // mary2021's FABsum bound, b u_block + (n / b) u_combine, dashed beside each combine.
  Series b32, b64;
  b32.label = "bound, fp32 combine: b u32 + (n/b) u32";
  b64.label = "bound, fp64 combine: b u32 + (n/b) u64";
  b32.bound = b64.bound = true;
  b32.bounds = s32.label;
  b64.bounds = s64.label;
  double worst = 0;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    namespace bd = reference::bounds;
    const double nn = static_cast<double>(n);
    b32.x.push_back(blocks[i]);
    b64.x.push_back(blocks[i]);
    b32.y.push_back(bd::mary_fabsum(nn, blocks[i], bd::u_fp32, bd::u_fp32));
    b64.y.push_back(bd::mary_fabsum(nn, blocks[i], bd::u_fp32, bd::u_fp64));
    worst = std::max({worst, s32.y[i] / b32.y[i], s64.y[i] / b64.y[i]});
  }
  r.figure.series = {s32, s64, sp, sf, b32, b64};
  r.checks.push_back(make_check("every FABsum error is below mary2021's bound b u32 + (n/b) u_combine", worst, worst <= 1,
                                "largest error / bound over b and both combines"));
  double best = 1e300, best_b = 0;
  for (std::size_t i = 0; i < blocks.size(); ++i)
    if (s64.y[i] < best) best = s64.y[i], best_b = blocks[i];
  r.checks.push_back(make_check("FABsum is an order of magnitude more accurate than plain tensor-core GEMM", plain / best,
                                plain >= 10 * best, "plain TC32 / best FABsum (fp64 combine, b = " + num(best_b) + ")"));
  r.checks.push_back(make_check("FABsum comes close to fp32 GEMM (within 10x)", best / fp32, best <= 10 * fp32,
                                "best FABsum / fp32 GEMM"));
  const double small = s64.y.front(), large = s64.y.back();
  r.checks.push_back(make_check("b trades accuracy: the error grows with the block size", large / small, large > small,
                                "error at b = " + num(blocks.back()) + " / at b = " + num(blocks.front()) + " (fp64 combine)"));
  std::string table = "| b | fp32 combine | fp64 combine | unit calls per output element |\n|---|---|---|---|\n";
  for (std::size_t i = 0; i < blocks.size(); ++i)
    table += "| " + num(blocks[i]) + " | " + num(s32.y[i]) + " | " + num(s64.y[i]) + " | " +
             num(static_cast<double>(n) / blocks[i]) + " block GEMMs |\n";
  r.paper = "mary2021 (slides): FABsum (blanchard2020's blocked summation: blocks of b summed by the tensor cores, the "
            "n/b block sums combined in higher precision; bound b u32 + n u64 / b) is \"as fast as cuBLAS but an order "
            "of magnitude more accurate\", \"almost as accurate as fp32\", \"and anything in between: flexible "
            "tradeoff\".";
  r.simulated = "Plain TC32 error " + num(plain) + ", fp32 GEMM " + num(fp32) + "; FABsum:\n\n" + table +
                "\nCost proxy: each output element needs n/b block sums combined outside the unit.";
  r.setting = "Unit v100, A (8 x n) and B (n x 8) with entries uniform in [0, 1] rounded to fp16 (exact inputs: the "
              "error is the accumulation's), C = 0, n = " + std::to_string(n) + ", seed " + std::to_string(c.seed) +
              "; the exact product is MPFR's.";
  return r;
}

}  // namespace

void add_multiword_experiments(std::vector<Experiment>& out) {
  out.push_back({"mary2021-multiword", "double-fp16 and triple-bf16 GEMM against fp32, with a round-to-nearest ablation",
                 mary2021_multiword});
  out.push_back({"mary2021-fabsum", "FABsum block size against accuracy, beside plain tensor-core GEMM and fp32",
                 mary2021_fabsum});
}

}  // namespace tcsim::cli::experiments
