// The seed papers' error bounds; see bounds.hpp for sources and reconstructions.
#include "tcsim/reference/bounds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace tcsim::reference::bounds {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

double sq(double x) { return x * x; }

// q = n/b rounded up (Algorithm 3.1 assumes b divides n).
double blocks(double n, double b) {
  if (!(b > 0)) throw std::invalid_argument("b: block size must be > 0, got " + std::to_string(b));
  return std::ceil(n / b);
}

// x + y + x y for two gammas (the product of two (1+theta) factors), inf-safe.
double compose(double x, double y) {
  if (std::isinf(x) || std::isinf(y)) return kInf;
  return x + y + x * y;
}
}  // namespace

double unit_roundoff(const Format& fmt) { return std::ldexp(1.0, -fmt.precision); }

double gamma(double k, double u) {
  if (k <= 0 || u == 0) return 0;
  const double ku = k * u;
  if (ku >= 1) return kInf;
  return ku / (1 - ku);
}

// ------------------------------------------------------------------------------ blanchard2020

double blanchard_u_fma_tilde(double u, double u_fma, double u_bar) {
  if (u > u_fma) return u;          // first case takes precedence (text after (3.3))
  if (u_bar >= u_fma) return 0;
  return u_fma;
}

double blanchard_thm31(const BlockFmaParams& p) {
  const double q = blocks(p.n, p.b);
  const double gt = gamma(q, blanchard_u_fma_tilde(p.u, p.u_fma, p.u_bar));
  const double gb = gamma(p.n, p.u_bar);
  return compose(gt, gb);
}

double blanchard_thm32(const BlockFmaParams& p) {
  return 2 * p.u_low + sq(p.u_low) + blanchard_thm31(p) * sq(1 + p.u_low);
}

double blanchard_cor41(const BlockFmaParams& p) {
  const double q = blocks(p.n, p.b);
  const double gt = gamma(q, blanchard_u_fma_tilde(p.u, p.u_fma, p.u_bar));
  const double gb = gamma(p.n + 1, p.u_bar);
  return compose(gt, gb);
}

double blanchard_thm43(const BlockFmaParams& p) {
  const double q = blocks(p.n, p.b);
  const double gt = gamma(q - 1, blanchard_u_fma_tilde(p.u, p.u_fma, p.u_bar));
  const double gb = gamma(p.n - p.b + 1, p.u_bar);
  const double m = std::max(compose(gt, gb), gamma(p.b, p.u));
  return 2 * p.u_low + sq(p.u_low) + m * sq(1 + p.u_low);
}

double blanchard_thm44(const BlockFmaParams& p) {
  const double gn = gamma(p.n, p.u);
  return blanchard_thm43(p) + 2 * gn + sq(gn);
}

double blanchard_table32(Table32Method m, double n, double b, double u_low, double u_high) {
  const double q = blocks(n, b);
  switch (m) {
    case Table32Method::StandardLow:
    case Table32Method::FmaLowBarLow:
    case Table32Method::FmaHighBarLow: return (n + 2) * u_low;
    case Table32Method::FmaLowBarHigh: return (q + 2) * u_low + n * u_high;
    case Table32Method::FmaLowBarExact: return (q + 2) * u_low;
    case Table32Method::FmaHighBarHigh: return 2 * u_low + n * u_high;
    case Table32Method::FmaHighBarExact: return 2 * u_low + q * u_high;
    case Table32Method::StandardHigh: return n * u_high;
  }
  return kInf;
}

BlockFmaParams blanchard_table32_params(Table32Method m, double n, double b, double u_low, double u_high) {
  BlockFmaParams p;
  p.n = n;
  p.b = b;
  p.u_low = u_low;
  switch (m) {
    case Table32Method::StandardLow:
    case Table32Method::FmaLowBarLow: p.u_fma = u_low; p.u_bar = u_low; break;
    case Table32Method::FmaLowBarHigh: p.u_fma = u_low; p.u_bar = u_high; break;
    case Table32Method::FmaLowBarExact: p.u_fma = u_low; p.u_bar = 0; break;
    case Table32Method::FmaHighBarLow: p.u_fma = u_high; p.u_bar = u_low; break;
    case Table32Method::FmaHighBarHigh: p.u_fma = u_high; p.u_bar = u_high; break;
    case Table32Method::FmaHighBarExact: p.u_fma = u_high; p.u_bar = 0; break;
    case Table32Method::StandardHigh:  // no conversion, everything at u_high
      p.u_low = 0; p.u_fma = u_high; p.u_bar = u_high; break;
  }
  p.u = p.u_fma;  // "u <= u_FMA is assumed" (Table 3.2 caption)
  return p;
}

double blanchard_table33(TcVariant v, bool inputs_in_u16, double n, double u16, double u32) {
  switch (v) {
    case TcVariant::Fp16:
    case TcVariant::TC16: return inputs_in_u16 ? n * u16 : (n + 2) * u16;
    case TcVariant::TC32: return inputs_in_u16 ? n * u32 : 2 * u16 + n * u32;
    case TcVariant::Fp32: return n * u32;
  }
  return kInf;
}

double blanchard_table41(TcVariant v, bool solve, double n, double u16, double u32) {
  switch (v) {
    case TcVariant::Fp16: return (solve ? 3 * n : n) * u16;
    case TcVariant::TC16: return (solve ? 3 * n - 1 : n - 1) * u16;
    case TcVariant::TC32: return 2 * u16 + (solve ? 3 * n - 3 : n - 3) * u32;
    case TcVariant::Fp32: return (solve ? 3 * n : n) * u32;
  }
  return kInf;
}

// ------------------------------------------------------------------------------ mary2021

double mary_multiword(double n, int p, double u_low, double u_high, bool skip) {
  if (p < 1) throw std::invalid_argument("p: number of words must be >= 1, got " + std::to_string(p));
  double e = 2 * std::pow(u_low, p) + std::pow(u_low, 2 * p) + (n + double(p) * p) * u_high;
  if (skip)
    for (int i = 1; i <= p - 1; ++i) e += (p - i) * std::pow(u_low, p + i - 1) * sq(1 + u_low);
  return e;
}

double mary_fabsum(double n, double b, double u_block, double u_combine) {
  return b * u_block + (n / b) * u_combine;
}

// ------------------------------------------------------------------------------ mary2024

RangeParams range_params(const Format& fmt, bool subnormals) {
  RangeParams r;
  r.u = unit_roundoff(fmt);
  r.fmin = std::ldexp(1.0, fmt.emin);
  r.fmax = std::ldexp(static_cast<double>(fmt.max_finite_significand()), fmt.emax - (fmt.precision - 1));
  r.gmin = subnormals ? r.u * r.fmin : r.fmin / 2;
  return r;
}
RangeParams range_params(const Format& fmt) { return range_params(fmt, fmt.subnormals); }

double mm_theta(double n, const RangeParams& in, const RangeParams& acc) {
  return std::min(in.fmax, std::sqrt(acc.fmax / n));
}
double mm_omega(double n, const RangeParams& in, const RangeParams& acc) { return in.gmin / mm_theta(n, in, acc); }

double mary_mikaitis_thm31(double n, const RangeParams& in, const RangeParams& acc) {
  const double th = mm_theta(n, in, acc);
  const double om = in.gmin / th;
  const double u = in.u, U = acc.u;
  return (2 * u + u * u + 4 * n * n * om * (1 + u + om)) * (1 + n * U) + n * U + 8 * n * n * acc.gmin / (th * th);
}

double mary_mikaitis_thm31_first_order(double n, const RangeParams& in, const RangeParams& acc) {
  const double th = mm_theta(n, in, acc);
  return 2 * in.u + n * acc.u + 4 * n * n * in.gmin / th + 8 * n * n * acc.gmin / (th * th);
}

double mary_mikaitis_thm41(double n, int p, const RangeParams& in, const RangeParams& acc) {
  if (p < 1) throw std::invalid_argument("p: number of words must be >= 1, got " + std::to_string(p));
  const double th = mm_theta(n, in, acc);
  return (p + 1) * std::pow(in.u, p) + 4 * n * std::pow(in.u, p - 1) * in.gmin / th +
         (n + double(p) * p) * acc.u + 4.0 * p * (p + 1) * n * n * acc.gmin / (th * th);
}

double mary_mikaitis_eq428(double n, int p, const RangeParams& in, const RangeParams& acc) {
  if (p < 1) throw std::invalid_argument("p: number of words must be >= 1, got " + std::to_string(p));
  const double th = mm_theta(n, in, acc);
  const double zeta = std::max(std::pow(in.u, p), 2 * n * std::pow(in.u, p - 1) * in.gmin / th);
  return 2 * zeta + zeta * zeta + (p - 1) * std::pow(in.u, p) + (n + double(p) * p) * acc.u +
         4.0 * p * (p + 1) * n * n * acc.gmin / (th * th);
}

double fasi_multiword_eq433(double n, int p, double u, double U) {
  return (p + 1) * std::pow(u, p) + (n + double(p) * p) * U;
}

// ------------------------------------------------------------------------------ lopez2022

double lopez_mary_thm1(double n, double r, double u16, double u32, double u, double t) {
  const double ut = u > u32 ? u : 0;
  const double inner = std::max(gamma(r, u), gamma(n - r + 1, u32) + gamma((n - r) / t, ut));
  return 2 * u16 + sq(u16) + inner * sq(1 + u16);
}

double lopez_mary_thm2(double n, double r, double u16, double u32) {
  const double g = gamma(n - r + 1, u32);
  return std::max(compose(u16, g), gamma(r, u16));
}

double lopez_mary_thm3(double n, double r, double u16, double u32) {
  return std::max(gamma(n - r + 1, u32), 2 * u16 + sq(u16) + gamma(r, u32) * sq(1 + u16));
}

double lopez_mary_thm4(double n, double r, double g, double u_in, double u_out, double u32) {
  const double gn = gamma(n - r + 1, u32);
  return std::max(compose(u_in, gn), g * sq(1 + u_out) + 2 * u_out + sq(u_out));
}

double lopez_mary_total(double f, double u16) { return u16 + (1 + u16) * f; }

double lopez_mary_table1(LopezMaryAlgorithm a, double n, double r, double u16, double u32) {
  switch (a) {
    case LopezMaryAlgorithm::Alg31U32: return 2 * u16 + n * u32;
    case LopezMaryAlgorithm::Alg31U16: return n * u16 / 4;
    case LopezMaryAlgorithm::Alg41: return u16 + std::max(n * u32, r * u16);
  }
  return kInf;
}

double lopez_mary_table1_fp32_entries(LopezMaryAlgorithm a, double n, double r) {
  switch (a) {
    case LopezMaryAlgorithm::Alg31U32: return n * n;
    case LopezMaryAlgorithm::Alg31U16: return 0;
    case LopezMaryAlgorithm::Alg41: return n * r;
  }
  return kInf;
}

Table2Row lopez_mary_table2(PanelFactor pf, double n, double r, double s, double u16, double u32) {
  switch (pf) {
    case PanelFactor::Alg21U16: return {u16, 0, r * u16, r * u16 + n * u32};
    case PanelFactor::Alg21U32: return {0, u16, r * u32, 2 * u16 + n * u32};
    case PanelFactor::Alg31U16: return {u16, 0, r * u16 / 4, r * u16 / 4 + n * u32};
    case PanelFactor::Alg31U32: return {0, 0, 2 * u16 + r * u32, 2 * u16 + n * u32};
    case PanelFactor::Alg41: return {u16, 0, std::max(u16 + r * u32, s * u16), s * u16 + n * u32};
    case PanelFactor::Alg51: return {u16, 0, std::max(r * u32, 2 * u16 + s * u32), 2 * u16 + n * u32};
  }
  return {kInf, kInf, kInf, kInf};
}

// ------------------------------------------------------------------------------ catalogue

const std::vector<BoundInfo>& bound_catalog() {
  static const std::vector<BoundInfo> all = [] {
    const std::string s000 = "blanchard2020: Blanchard, Higham, Lopez, Mary, Pranesh, SISC 2020";
    const std::string s001 = "mary2021: Mary, SIAM LA 2021 (multiword, with Fasi, Higham, Lopez, Mikaitis)";
    const std::string s002 = "mary2024: Mary, Mikaitis 2024 (narrow range)";
    const std::string s003 = "lopez2022: Lopez, Mary, IJHPCA 2022 (mixed precision LU)";
    const std::string tc32 = "V100 TC32: b = 4, u_low = u16, u_fma = u_bar = u = u32";
    const std::string tc32_lu = "V100 TC32: b = 4, u_low = u16, u_fma = u_bar = u32, working u = u32";
    auto p32 = [](double n) {
      BlockFmaParams p;
      p.n = n;
      p.b = 4;
      p.u_low = u_fp16;
      p.u_fma = p.u_bar = p.u = u_fp32;
      return p;
    };
    const RangeParams e4m3 = range_params(formats::e4m3());
    const RangeParams f32 = range_params(formats::fp32());
    std::vector<BoundInfo> v = {
        {"gamma", s000, "section 2 (gamma_k)", "k u / (1 - k u), +inf when k u >= 1",
         [](double n) { return gamma(n, u_fp32); }, "k = n, u = u32"},
        {"blanchard_thm31", s000, "Theorem 3.1, eq. (3.5)", "g~_q^FMA + g-_n + g~_q^FMA g-_n, q = n/b",
         [=](double n) { return blanchard_thm31(p32(n)); }, tc32},
        {"blanchard_thm32", s000, "Theorem 3.2, eq. (3.6)",
         "2u_low + u_low^2 + (g~_q^FMA + g-_n + g~_q^FMA g-_n)(1 + u_low)^2",
         [=](double n) { return blanchard_thm32(p32(n)); }, tc32},
        {"blanchard_cor41", s000, "Corollary 4.1, eq. (4.1)", "g~_q^FMA + g-_{n+1} + g~_q^FMA g-_{n+1}",
         [=](double n) { return blanchard_cor41(p32(n)); }, tc32},
        {"blanchard_thm43", s000, "Theorem 4.3, eq. (4.4)",
         "2u_low + u_low^2 + max(g~_{q-1}^FMA + g-_{n-b+1} + g~_{q-1}^FMA g-_{n-b+1}, g_b)(1 + u_low)^2",
         [=](double n) { return blanchard_thm43(p32(n)); }, tc32_lu},
        {"blanchard_thm44", s000, "Theorem 4.4, eq. (4.7)", "thm43 + 2 g_n + g_n^2",
         [=](double n) { return blanchard_thm44(p32(n)); }, tc32_lu},
        {"blanchard_table32", s000, "Table 3.2", "first-order constants of (3.6) per block FMA variant",
         [](double n) { return blanchard_table32(Table32Method::FmaHighBarHigh, n, 4, u_fp16, u_fp32); },
         "row u_fma = u_bar = u_high: 2u16 + n u32"},
        {"blanchard_table33", s000, "Table 3.3", "Theorems 3.1/3.2 for V100: fp16, TC16, TC32, fp32",
         [](double n) { return blanchard_table33(TcVariant::TC32, false, n); }, "TC32, A and B in u32"},
        {"blanchard_table41", s000, "Table 4.1", "Theorems 4.3/4.4 for V100: fp16, TC16, TC32, fp32",
         [](double n) { return blanchard_table41(TcVariant::TC32, false, n); }, "TC32, LU"},
        {"mary_multiword", s001, "slide 'General error analysis' (skipping i + j > p + 1)",
         "2u_low^p + u_low^2p + (n + p^2) u_high [+ sum_{i<p} (p-i) u_low^(p+i-1) (1+u_low)^2]",
         [](double n) { return mary_multiword(n, 2, u_fp16, u_fp32, true); }, "double-fp16, p = 2, skipping"},
        {"mary_fabsum", s001, "slide 'A proposed cure' (FABsum)", "b u_block + (n/b) u_combine",
         [](double n) { return mary_fabsum(n, 32, u_fp32, u_fp64); }, "b = 32, u32 blocks, u64 combine"},
        {"mary_mikaitis_thm31", s002, "Theorem 3.1, eq. (3.25)",
         "((2u + u^2 + 4n^2 w(1 + u + w))(1 + nU) + nU + 8n^2 theta^-2 G_min, w = g_min/theta",
         [=](double n) { return mary_mikaitis_thm31(n, e4m3, f32); }, "E4M3 inputs (subnormals), fp32 accumulation"},
        {"mary_mikaitis_thm31_first_order", s002, "eq. (3.26)", "2u + nU + 4n^2 theta^-1 g_min + 8n^2 theta^-2 G_min",
         [=](double n) { return mary_mikaitis_thm31_first_order(n, e4m3, f32); },
         "E4M3 inputs (subnormals), fp32 accumulation"},
        {"mary_mikaitis_thm41", s002, "Theorem 4.1, eq. (4.32)",
         "(p+1)u^p + 4n u^(p-1) theta^-1 g_min + (n + p^2)U + 4p(p+1)n^2 theta^-2 G_min",
         [=](double n) { return mary_mikaitis_thm41(n, 2, e4m3, f32); }, "p = 2 words of E4M3, fp32 accumulation"},
        {"mary_mikaitis_eq428", s002, "eq. (4.28)",
         "2 zeta + zeta^2 + (p-1)u^p + (n + p^2)U + 4p(p+1)n^2 theta^-2 G_min",
         [=](double n) { return mary_mikaitis_eq428(n, 2, e4m3, f32); }, "p = 2 words of E4M3, fp32 accumulation"},
        {"fasi_multiword_eq433", s002, "eq. (4.33) (Fasi et al. Thm 2.1)", "(p+1)u^p + (n + p^2)U",
         [](double n) { return fasi_multiword_eq433(n, 2, u_fp16, u_fp32); }, "p = 2, fp16 words, fp32"},
        {"lopez_mary_thm1", s003, "Theorem 1, eq. (3.1)",
         "2u16 + u16^2 + max(g_r, g32_{n-r+1} + g~_{(n-r)/4})(1 + u16)^2",
         [](double n) { return lopez_mary_thm1(n, 256, u_fp16, u_fp32, u_fp16); }, "r = 256, fp16 storage (u = u16)"},
        {"lopez_mary_thm2", s003, "Theorem 2, eq. (4.7)", "f = max(u16 + g32_{n-r+1} + u16 g32_{n-r+1}, g16_r)",
         [](double n) { return lopez_mary_thm2(n, 256, u_fp16, u_fp32); }, "r = 256"},
        {"lopez_mary_thm3", s003, "Theorem 3, eq. (5.1)", "f = max(g32_{n-r+1}, 2u16 + u16^2 + g32_r (1 + u16)^2)",
         [](double n) { return lopez_mary_thm3(n, 256, u_fp16, u_fp32); }, "r = 256"},
        {"lopez_mary_thm4", s003, "Theorem 4, eq. (5.7)",
         "f = max(u_in + g32_{n-r+1} + u_in g32_{n-r+1}, g (1 + u_out)^2 + 2u_out + u_out^2)",
         [](double n) {
           // PanelFactor = Algorithm 5.1 on r x r panels with s x s inner blocks: g from
           // Theorem 3 at n = r, r = s; fp16 in and out.
           return lopez_mary_thm4(n, 256, lopez_mary_thm3(256, 8, u_fp16, u_fp32), u_fp16, 0, u_fp32);
         },
         "r = 256, s = 8, PanelFactor = Alg. 5.1 (g = Theorem 3 on the panel)"},
        {"lopez_mary_table1", s003, "Table 1", "dominant terms of f: 2u16 + n u32 | n u16/4 | u16 + max(n u32, r u16)",
         [](double n) { return lopez_mary_table1(LopezMaryAlgorithm::Alg41, n, 256); }, "Alg. 4.1, r = 256"},
        {"lopez_mary_table2", s003, "Table 2", "dominant terms of g and f per PanelFactor",
         [](double n) { return lopez_mary_table2(PanelFactor::Alg51, n, 256, 8).f; }, "PanelFactor Alg. 5.1, r = 256, s = 8"},
    };
    return v;
  }();
  return all;
}

}  // namespace tcsim::reference::bounds
