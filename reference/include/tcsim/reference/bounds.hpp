// Rounding error bounds of the seed papers, as functions of the dimensions and of the unit
// roundoffs. Doubles: bounds are not on the bit-exact path. Each function names its paper
// and equation by its key (blanchard2020, mary2021, mary2024, lopez2022, fasi2021: ../shared/seeds/README.md).
//
// Notation (blanchard2020, section 2): gamma_k = k u / (1 - k u) (returned as +inf when k u >= 1,
// where the papers' assumption k u < 1 fails and the bound says nothing); a block FMA takes
// A, B in precision u_low, computes C + AB internally at precision u_bar (0 = exactly) and
// outputs at precision u_fma in {u_low, u_high}; u is the working precision of the
// algorithm (storage of C between calls). NVIDIA V100 tensor cores: b = 4, u_low = u16 =
// 2^-11, u_high = u32 = 2^-24; TC16: u_fma = u_bar = u16; TC32: u_fma = u_bar = u32.
//
// Reconstructions (the seeds are text extracted from PDFs): every place where a formula
// was garbled and had to be rebuilt from its proof is marked "RECONSTRUCTED" in the
// comments, with the reasoning.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tcsim/sim/format.hpp"

namespace tcsim::reference::bounds {

// Unit roundoffs (round to nearest): u = 2^-t with t the precision.
inline constexpr double u_fp64 = 0x1p-53;
inline constexpr double u_fp32 = 0x1p-24;
inline constexpr double u_fp16 = 0x1p-11;
inline constexpr double u_bf16 = 0x1p-8;
inline constexpr double u_tf32 = 0x1p-11;
// 2^-precision of `fmt` (mary2024 Table 2.1 column u).
double unit_roundoff(const Format& fmt);

// gamma_k = k u / (1 - k u); 0 when k <= 0 or u == 0; +inf when k u >= 1.
double gamma(double k, double u);

// ---------------------------------------------------------------------------------------
// blanchard2020: Blanchard, Higham, Lopez, Mary, Pranesh, "Mixed precision block fused
// multiply-add: error analysis and application to GPU tensor cores", SISC 2020.

// Eq. (3.3): u~_FMA = u if u > u_fma (a rounding to the working precision after each
// block FMA); else 0 if u_bar >= u_fma (the FMA's output rounding is no extra error);
// else u_fma.
double blanchard_u_fma_tilde(double u, double u_fma, double u_bar);

// Parameters of Algorithm 3.1 / 4.1. q = n/b is rounded up when b does not divide n (the
// paper assumes it does; rounding up only enlarges the bound).
struct BlockFmaParams {
  double n = 0;       // inner dimension (matrix size for LU)
  double b = 4;       // block FMA size (inner dimension of one block FMA)
  double u_low = u_fp16;
  double u_fma = u_fp32;  // output precision of the block FMA
  double u_bar = u_fp32;  // internal precision of C + AB (0: exact, eq. (2.1))
  double u = u_fp32;      // working precision of the algorithm
};

// Theorem 3.1, eq. (3.5): |C - C^| <= (g~_q^FMA + g-_n + g~_q^FMA g-_n) |A||B| for A, B
// given in precision u_low. Returns the constant.
double blanchard_thm31(const BlockFmaParams& p);
// Theorem 3.2, eq. (3.6): A, B not given in u_low (converted first):
// 2 u_low + u_low^2 + (thm31)(1 + u_low)^2.
double blanchard_thm32(const BlockFmaParams& p);
// Corollary 4.1, eq. (4.1): B = A - sum_{j=1}^q X_j Y_j with a b x b FMA:
// g~_q^FMA + g-_{n+1} + g~_q^FMA g-_{n+1}.
// RECONSTRUCTED: the extracted text prints a tilde on gamma_{n+1}; it is the u_bar gamma
// (g-), as the proof of Theorem 4.3 uses it ("the +1 comes from the subtraction with A").
double blanchard_cor41(const BlockFmaParams& p);
// Theorem 4.3, eq. (4.4): LU by Algorithm 4.1 (b x b blocks, q = n/b):
// 2 u_low + u_low^2 + max(g~_{q-1}^FMA + g-_{n-b+1} + g~_{q-1}^FMA g-_{n-b+1}, g_b)(1+u_low)^2,
// with g_b at the working precision u.
// RECONSTRUCTED: (4.4) prints g~_{n-b+1}; the proof (and (4.6)) use g-_{n-b+1}. (4.6) as
// extracted brackets (2u_low + u_low^2 + max(...))(1+u_low)^2, but the proof adds
// |G| <= (2u_low + u_low^2)sum|L||U| to max(...)(1+u_low)^2(...), which is (4.4)'s form.
double blanchard_thm43(const BlockFmaParams& p);
// Theorem 4.4, eq. (4.7): solution of Ax = b with those factors (substitutions at u):
// thm43 + 2 g_n + g_n^2 (g_n at the working precision u).
// RECONSTRUCTED: the extracted (4.7) reads "(...)(1+u_low)^2 + 2g_n + g_n^2 x (|A|+|L||U|)";
// with Higham's Thm 9.4 argument ((L+dL)(U+dU)x = b, |dL| <= g_n|L|, |dU| <= g_n|U|) the
// constant multiplying (|A| + |L^||U^|) is thm43 + 2 g_n + g_n^2, which reproduces Table 4.1
// ((3n-1)u16 for TC16, 2u16 + (3n-3)u32 for TC32).
double blanchard_thm44(const BlockFmaParams& p);

// Table 3.2 (first-order terms of (3.6), A and B not in u_low, u_high << u_low assumed).
enum class Table32Method {
  StandardLow,      // standard product in precision u_low: (n+2) u_low
  FmaLowBarLow,     // u_fma = u_low,  u_bar = u_low:  (n+2) u_low
  FmaLowBarHigh,    // u_fma = u_low,  u_bar = u_high: (q+2) u_low + n u_high
  FmaLowBarExact,   // u_fma = u_low,  u_bar = 0:      (q+2) u_low
  FmaHighBarLow,    // u_fma = u_high, u_bar = u_low:  (n+2) u_low
  FmaHighBarHigh,   // u_fma = u_high, u_bar = u_high: 2 u_low + n u_high
  FmaHighBarExact,  // u_fma = u_high, u_bar = 0:      2 u_low + q u_high
  StandardHigh,     // standard product in precision u_high: n u_high
};
double blanchard_table32(Table32Method m, double n, double b, double u_low, double u_high);
// The BlockFmaParams a Table 3.2 row stands for (u = u_fma, A and B given in u_high); the
// standard rows map to "block FMA" rows with u_fma = u_bar of that precision.
BlockFmaParams blanchard_table32_params(Table32Method m, double n, double b, double u_low, double u_high);

// Tables 3.3 and 4.1: NVIDIA tensor cores (b = 4, u_low = u16, u_high = u32).
enum class TcVariant { Fp16, TC16, TC32, Fp32 };
// Table 3.3: matrix product, A and B given in precision u16 (inputs_in_u16) or u32.
//   u16 inputs: n u16 | n u16 | n u32 | n u32;  u32 inputs: (n+2)u16 | (n+2)u16 | 2u16 + n u32 | n u32.
double blanchard_table33(TcVariant v, bool inputs_in_u16, double n, double u16 = u_fp16, double u32 = u_fp32);
// Table 4.1: LU (Thm 4.3) or Ax = b (Thm 4.4), u = u16 for fp16/TC16, u32 for fp32/TC32.
//   LU:    n u16 | (n-1) u16 | 2u16 + (n-3) u32 | n u32
//   Ax=b: 3n u16 | (3n-1) u16 | 2u16 + (3n-3) u32 | 3n u32
double blanchard_table41(TcVariant v, bool solve, double n, double u16 = u_fp16, double u32 = u_fp32);

// ---------------------------------------------------------------------------------------
// mary2021: Mary, "Multiple word arithmetic with GPU tensor cores: theory and practice"
// (SIAM LA 2021 talk; analysis of Fasi, Higham, Lopez, Mary, Mikaitis 2022).

// Slide "General error analysis": p-word A and B (x = sum_{i=1}^p x_i + dx, |dx| <= u_low^p|x|)
// and the products A_i B_j chained through the block FMA in u_high:
//   all p^2 products:              2 u_low^p + u_low^(2p) + (n + p^2) u_high;
//   skipping i + j > p + 1 (p(p+1)/2 products): the above
//                                  + sum_{i=1}^{p-1} (p - i) u_low^(p+i-1) (1 + u_low)^2.
// First-order slide bounds (no gamma): the constant multiplying |A||B|. The slide's table
// rounds further (fp16, p = 2: "n x 2^-24", dropping the 3 u16^2 = 3 x 2^-22 term).
double mary_multiword(double n, int p, double u_low, double u_high, bool skip_high_order_products);
// Slide "A proposed cure": FABsum (blocks of b summed at u_block, combined at u_combine):
// b u_block + (n/b) u_combine (first order).
double mary_fabsum(double n, double b, double u_block, double u_combine);

// ---------------------------------------------------------------------------------------
// mary2024: Mary, Mikaitis, "Error analysis of matrix multiplication with narrow range
// floating-point arithmetic" (2024). Model 1: input format (u, f_min, f_max, g_min),
// accumulation format (U, F_min, F_max, G_min); round to nearest.

struct RangeParams {
  double u = 0;     // 2^-t
  double fmin = 0;  // 2^emin
  double fmax = 0;  // largest finite value (Table 2.1: 2^emax (2 - 2u), but 448 for E4M3)
  double gmin = 0;  // eq. (2.1)/(2.2): fmin/2 without subnormals, u fmin with them
};
// Table 2.1's parameters of a tcsim format; `subnormals` overrides the format's flag
// (the paper's experiments switch subnormals off for any format).
RangeParams range_params(const Format& fmt);
RangeParams range_params(const Format& fmt, bool subnormals);

// Eq. (3.2): theta = min(f_max, sqrt(F_max / n)), the scaling target.
double mm_theta(double n, const RangeParams& in, const RangeParams& acc);
// Eq. (3.15): omega = g_min / theta.
double mm_omega(double n, const RangeParams& in, const RangeParams& acc);
// Theorem 3.1, eq. (3.25) (normwise, infinity norm):
// ((2u + u^2 + 4 n^2 omega (1 + u + omega))(1 + nU) + nU + 8 n^2 theta^-2 G_min.
double mary_mikaitis_thm31(double n, const RangeParams& in, const RangeParams& acc);
// Eq. (3.26), (3.25) to first order: 2u + nU + 4 n^2 theta^-1 g_min + 8 n^2 theta^-2 G_min.
double mary_mikaitis_thm31_first_order(double n, const RangeParams& in, const RangeParams& acc);
// Theorem 4.1, eq. (4.32) (first order, p-word scaled splitting (4.29)-(4.31)):
// (p+1) u^p + 4 n u^(p-1) theta^-1 g_min + (n + p^2) U + 4 p (p+1) n^2 theta^-2 G_min.
// NOTE (not a reconstruction, a remark): for p = 1 the input-underflow term is 4 n omega,
// not Theorem 3.1's 4 n^2 omega: (4.20) bounds ||dA||_inf directly (zeta carries one n),
// while (3.24) passes through componentwise |e_ij| and a row sum (one more n).
double mary_mikaitis_thm41(double n, int p, const RangeParams& in, const RangeParams& acc);
// Eq. (4.28): the same before simplification, with zeta of (4.20):
// 2 zeta + zeta^2 + (p-1) u^p + (n + p^2) U + 4 p (p+1) n^2 theta^-2 G_min.
double mary_mikaitis_eq428(double n, int p, const RangeParams& in, const RangeParams& acc);
// Eq. (4.33): Fasi et al.'s multiword bound without range limits: (p+1) u^p + (n + p^2) U.
double fasi_multiword_eq433(double n, int p, double u, double U);

// ---------------------------------------------------------------------------------------
// lopez2022: Lopez, Mary, "Mixed precision LU factorization on GPU tensor cores: reducing
// data movement and memory footprint", IJHPCA 2022. n x n matrix, r x r (outer) blocks,
// s x s inner blocks, t x t tensor core block FMA (t = 4 on V100).

// Theorem 1, eq. (3.1) (right-looking Algorithm 3.1 = blanchard2020's Algorithm 4.1, TC32):
// f = 2u16 + u16^2 + max(g_r, g32_{n-r+1} + g~_{(n-r)/t})(1 + u16)^2, with g_r at u and
// u~ = u if u > u32 else 0. (3.2): u = u32 gives about 2u16 + n u32; (3.3): u = u16 gives
// about n u16 / 4.
// (blanchard2020's product term g~ g- is absent here: the paper folds it into + O(u32 u16).)
double lopez_mary_thm1(double n, double r, double u16, double u32, double u, double t = 4);
// Theorem 2, eq. (4.7) (left-looking Algorithm 4.1, fp16 LU factors, fp32 buffers):
// f = max(u16 + g32_{n-r+1} + u16 g32_{n-r+1}, g16_r), and
// |dA| <= u16|A| + f((1+u16)|A| + |L^||U^|).
double lopez_mary_thm2(double n, double r, double u16, double u32);
// Theorem 3, eq. (5.1) (Algorithm 5.1, fp32 panel factorization):
// f = max(g32_{n-r+1}, 2u16 + u16^2 + g32_r (1 + u16)^2).
double lopez_mary_thm3(double n, double r, double u16, double u32);
// Theorem 4, eq. (5.7) (doubly partitioned Algorithm 5.2 with a PanelFactor of bound g):
// f = max(u_in + g32_{n-r+1} + u_in g32_{n-r+1}, g (1 + u_out)^2 + 2 u_out + u_out^2),
// u_in = u16 when PanelFactor reads fp16 (its input must be converted), 0 for fp32 input;
// u_out = u16 when it returns fp32 (converted to fp16 after), 0 for fp16 output.
// RECONSTRUCTED: the sentence defining u~_in/u~_out in the extracted text says "u16 or 0
// depending on whether PanelFactor takes fp32 or fp16 input, respectively", which
// contradicts the proof ("the conversion of R_ik is not needed if PanelFactor takes fp32
// input") and Table 2 (Alg. 2.1 with u = u16: u~_in = u16); the proof's reading is used.
double lopez_mary_thm4(double n, double r, double g, double u_in, double u_out, double u32);
// The single constant c with |dA| <= c (|A| + |L^||U^|) implied by eqs. (4.7), (5.1), (5.6):
// u16|A| + f((1+u16)|A| + |L||U|) <= (u16 + (1+u16) f)(|A| + |L||U|).
double lopez_mary_total(double f, double u16);

// Table 1: dominant term of f. Alg. 3.1 (u = u32): 2u16 + n u32; Alg. 3.1 (u = u16):
// n u16 / 4; Alg. 4.1: u16 + max(n u32, r u16). Also the fp32 storage (entries): n^2, 0, n r.
enum class LopezMaryAlgorithm { Alg31U32, Alg31U16, Alg41 };
double lopez_mary_table1(LopezMaryAlgorithm a, double n, double r, double u16 = u_fp16, double u32 = u_fp32);
double lopez_mary_table1_fp32_entries(LopezMaryAlgorithm a, double n, double r);

// Table 2: PanelFactor choices of Algorithm 5.2 with their u~_in, u~_out and the dominant
// terms of g(r, s) and f(n, r, s), as printed. DOUBT: the row "Alg. 3.1 (u = u32)" prints
// u~_out = 0 although that PanelFactor returns fp32 factors (converted to fp16 afterwards,
// which by the rule of Theorem 4 means u~_out = u16 and about 2u16 more in f); the row is
// returned as printed.
enum class PanelFactor { Alg21U16, Alg21U32, Alg31U16, Alg31U32, Alg41, Alg51 };
struct Table2Row {
  double u_in, u_out;  // u~_in, u~_out
  double g, f;         // dominant terms
};
Table2Row lopez_mary_table2(PanelFactor pf, double n, double r, double s, double u16 = u_fp16,
                            double u32 = u_fp32);

// ---------------------------------------------------------------------------------------
// Catalogue for reports: every bound above with its source, and its value for the V100
// tensor-core case at inner dimension / matrix size n (b = t = 4, u16, u32; r = 256, s = 8
// for the LU algorithms of lopez2022; fp8 E4M3 inputs with fp32 accumulation for mary2024).
struct BoundInfo {
  std::string name;      // function name above
  std::string source;    // paper
  std::string equation;  // theorem / equation / table
  std::string formula;   // plain-text formula
  std::function<double(double n)> example;  // value in the example setting above
  std::string example_setting;
};
const std::vector<BoundInfo>& bound_catalog();

}  // namespace tcsim::reference::bounds
