// mma_dump: run one tensor-core instruction on random inputs on the local GPU and write
// the results as a/b/c/d dump files in the format of shared/data/gpu/README.md, so that
//   tcsim validate-dump --unit <unit> --in <fmt> --out <fp32|fp16> --a ... --b ... --c ... --d ...
// checks tcsim's model of this card bit for bit (validation/cuda/README.md). It prints those
// commands, with the unit of the --gpu name and, for the fp8 ops, --instruction mma.sync
// (on h100 the default fp8 -> fp32 row is wgmma).
//
// Operations (one output element = one case; all K products of the instruction are used
// unless --k asks for fewer nonzero ones):
//   wmma-fp16  wmma m16n16k16, half inputs, float or half accumulator  (sm_70+)
//   wmma-bf16  wmma m16n16k16, bf16 inputs, float accumulator          (sm_80+)
//   wmma-tf32  wmma m16n16k8,  tf32 inputs, float accumulator          (sm_80+)
//   mma-e4m3   mma.sync.aligned.m16n8k32.row.col.{f32,f16}.e4m3.e4m3.{f32,f16}  (sm_89+)
//   mma-e5m2   the same with e5m2 inputs                                          (sm_89+)
//   mma-e4m3-k16, mma-e5m2-k16  mma.sync.aligned.m16n8k16 with fp8 inputs (PTX ISA 8.7: CUDA
//              12.8+, sm_89+; RTX Blackwell sm_120 runs it as one block of 16, units.md 3b)
//   mxf8f6f4-e4m3, mxf8f6f4-e5m2  mma.sync.aligned.m16n8k32.kind::mxf8f6f4.block_scale with
//              every ue8m0 scale 1 (the dump format holds no scales), fp32 output (sm_120a)
//   mxf4nvf4-e2m1  mma.sync.aligned.m16n8k64.kind::mxf4nvf4.block_scale.scale_vec::2X with fp4
//              (e2m1) inputs, every ue8m0 scale 1, fp32 output (sm_120a)
// Both outputs of an op come from one run on the same a, b and c. For binary16 output c is a
// binary32 value rounded to binary16 (RNE) on the host, as the published runs did; the c
// file holds the binary32 value, like theirs. The c and d file names do not name the input
// format (as in shared/data/gpu, where each format has its folder): one --dir per op.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

#define CHECK_CUDA(call)                                                                   \
  do {                                                                                     \
    cudaError_t err_ = (call);                                                             \
    if (err_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "mma_dump: CUDA error %s at %s:%d: %s\n", cudaGetErrorName(err_), \
                   __FILE__, __LINE__, cudaGetErrorString(err_));                          \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

enum class Op { WmmaFp16, WmmaBf16, WmmaTf32, MmaE4m3, MmaE5m2, MmaE4m3K16, MmaE5m2K16, MxE4m3, MxE5m2, MxE2m1 };
// The m16n8k16 fp8 form needs PTX ISA 8.7 (CUDA 12.8 or newer).
#if defined(__CUDACC_VER_MAJOR__) && (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 8))
#define TCSIM_HAVE_FP8_K16 1
#else
#define TCSIM_HAVE_FP8_K16 0
#endif
bool is_e4m3(Op op) { return op == Op::MmaE4m3 || op == Op::MmaE4m3K16 || op == Op::MxE4m3; }
bool is_fp8(Op op) {
  return op == Op::MmaE4m3 || op == Op::MmaE5m2 || op == Op::MmaE4m3K16 || op == Op::MmaE5m2K16 || op == Op::MxE4m3 ||
         op == Op::MxE5m2;
}

struct OpInfo {
  Op op;
  const char* name;       // --op value
  const char* fmt;        // file-name format (as in shared/data/gpu): fp16, bf16, tf32, E4M3, E5M2
  int m, n, k;            // instruction shape
  int min_cc;             // compute capability * 10
  bool fp16_out;          // binary16 output supported
  int in_bytes;           // storage of one input value on the device
  int precision, emin, emax, exp_bits;  // input format (t, emin, emax, exponent field bits)
};

const OpInfo kOps[] = {
    {Op::WmmaFp16, "wmma-fp16", "fp16", 16, 16, 16, 70, true, 2, 11, -14, 15, 5},
    {Op::WmmaBf16, "wmma-bf16", "bf16", 16, 16, 16, 80, false, 2, 8, -126, 127, 8},
    {Op::WmmaTf32, "wmma-tf32", "tf32", 16, 16, 8, 80, false, 4, 11, -126, 127, 8},
    {Op::MmaE4m3, "mma-e4m3", "E4M3", 16, 8, 32, 89, true, 1, 4, -6, 8, 4},
    {Op::MmaE5m2, "mma-e5m2", "E5M2", 16, 8, 32, 89, true, 1, 3, -14, 15, 5},
    {Op::MmaE4m3K16, "mma-e4m3-k16", "E4M3", 16, 8, 16, 89, true, 1, 4, -6, 8, 4},
    {Op::MmaE5m2K16, "mma-e5m2-k16", "E5M2", 16, 8, 16, 89, true, 1, 3, -14, 15, 5},
    {Op::MxE4m3, "mxf8f6f4-e4m3", "E4M3", 16, 8, 32, 120, false, 1, 4, -6, 8, 4},
    {Op::MxE5m2, "mxf8f6f4-e5m2", "E5M2", 16, 8, 32, 120, false, 1, 3, -14, 15, 5},
    // fp4 e2m1: one value per byte on the host and in device memory, packed into nibbles by the kernel.
    {Op::MxE2m1, "mxf4nvf4-e2m1", "E2M1", 16, 8, 64, 120, false, 1, 2, 0, 2, 2},
};
// The block-scaled ops (sm_120a only; run with unit scales).
bool is_block_scaled(Op op) { return op == Op::MxE4m3 || op == Op::MxE5m2 || op == Op::MxE2m1; }

// ------------------------------------------------------------------ host-side formats

std::uint32_t f32_bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
float f32_of(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// Binary32 pattern of a finite value (-1)^s * m * 2^e, exact for the small formats here.
std::uint32_t binary32_of(bool negative, std::uint64_t m, int e) {
  if (m == 0) return negative ? 0x80000000u : 0u;
  double v = std::ldexp(static_cast<double>(m), e);  // exact: m < 2^24, e in range
  float f = static_cast<float>(v);                   // exact for every value generated
  std::uint32_t b = f32_bits(f);
  return negative ? (b | 0x80000000u) : b;
}

// Decodes a pattern of an input format (IEEE-style fields) into binary32. NaN/Inf are never
// generated, so only finite encodings are handled.
std::uint32_t input_to_binary32(const OpInfo& info, std::uint32_t bits) {
  if (info.op == Op::WmmaTf32) return bits;  // stored as binary32 with 13 zero low bits
  const int width = info.in_bytes * 8;
  const int frac_bits = info.precision - 1;
  const int bias = (1 << (info.exp_bits - 1)) - 1;
  const bool neg = (bits >> (width - 1)) & 1u;
  const std::uint32_t field = (bits >> frac_bits) & ((1u << info.exp_bits) - 1);
  const std::uint32_t frac = bits & ((1u << frac_bits) - 1);
  if (field == 0) return binary32_of(neg, frac, 1 - bias - frac_bits);
  return binary32_of(neg, frac | (1u << frac_bits), static_cast<int>(field) - bias - frac_bits);
}

// Binary16 result -> binary32, exact; unlike the inputs, results can be Inf or NaN (a wide
// --exp-range overflows binary16).
std::uint32_t half_to_binary32(std::uint16_t h) {
  if ((h & 0x7c00u) == 0x7c00u)
    return (static_cast<std::uint32_t>(h & 0x8000u) << 16) | 0x7f800000u |
           (static_cast<std::uint32_t>(h & 0x3ffu) << 13);
  return input_to_binary32(kOps[0], h);
}

// Binary32 -> binary16, round to nearest even (host code of cuda_fp16.h).
std::uint16_t binary32_to_half_rne(std::uint32_t b) {
  __half h = __float2half_rn(f32_of(b));
  std::uint16_t r;
  std::memcpy(&r, &h, 2);
  return r;
}

// splitmix64
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int range(int lo, int hi) { return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1)); }
};

struct Options {
  const OpInfo* op = nullptr;
  bool out_fp32 = true, out_fp16 = true;
  long cases = 5000;
  int k_nonzero = 0;  // 0: all K of the instruction
  std::uint64_t seed = 1;
  int exp_lo = -4, exp_hi = 1;  // exponents of the random inputs (main clamps them to the format)
  int subnormal_percent = 2;    // share of subnormal inputs
  std::string dir = ".";
  std::string gpu = "GPU";
  int device = 0;
  bool corners = false;  // --corners: tiles of the corner classes instead of random inputs
  std::string inputs;    // --inputs DIR: the cases of a_*_<fmt>.txt, b_*, c_* in DIR (tcsim fit --suggest)
};

// A random input pattern: sign, exponent in [exp_lo, exp_hi], random fraction; some
// subnormals and zeros.
std::uint32_t random_input(const OpInfo& info, const Options& o, Rng& rng) {
  const int frac_bits = info.precision - 1;
  const std::uint32_t frac = static_cast<std::uint32_t>(rng.next()) & ((1u << frac_bits) - 1);
  const bool neg = rng.next() & 1u;
  const int roll = rng.range(0, 99);
  if (info.op == Op::WmmaTf32) {
    // binary32 pattern with only the tf32 fraction bits.
    const int e = rng.range(o.exp_lo, o.exp_hi);
    std::uint32_t b = (static_cast<std::uint32_t>(e + 127) << 23) | (frac << 13);
    if (roll < o.subnormal_percent) b = (frac << 13) & 0x7fffffu;
    if (roll == 99) b = 0;
    return neg ? (b | 0x80000000u) : b;
  }
  const int width = info.in_bytes * 8;
  const int bias = (1 << (info.exp_bits - 1)) - 1;
  std::uint32_t field = static_cast<std::uint32_t>(rng.range(o.exp_lo, o.exp_hi) + bias);
  if (roll < o.subnormal_percent) field = 0;
  std::uint32_t b = (field << frac_bits) | frac;
  if (roll == 99) b = 0;
  // E4M3: S.1111.111 is NaN; avoid it.
  if (is_e4m3(info.op) && (b & 0x7fu) == 0x7fu) b = 0x7eu;
  return neg ? (b | (1u << (width - 1))) : b;
}

// The pattern of (-1)^neg * (1 + frac / 2^(p-1)) * 2^e in the op's input format, e clamped to
// its normal range; e below it gives the subnormal with the same fraction.
std::uint32_t input_pattern(const OpInfo& info, bool neg, int e, std::uint32_t frac) {
  const int frac_bits = info.precision - 1;
  frac &= (1u << frac_bits) - 1;
  if (e > info.emax) e = info.emax;
  if (info.op == Op::WmmaTf32) {
    const std::uint32_t b = e < info.emin ? (frac << 13) : (static_cast<std::uint32_t>(e + 127) << 23) | (frac << 13);
    return neg ? (b | 0x80000000u) : b;
  }
  const int width = info.in_bytes * 8;
  const int bias = (1 << (info.exp_bits - 1)) - 1;
  std::uint32_t b = e < info.emin ? frac : (static_cast<std::uint32_t>(e + bias) << frac_bits) | frac;
  if (is_e4m3(info.op) && (b & 0x7fu) == 0x7fu) b = 0x7eu;  // S.1111.111 is NaN
  return neg ? (b | (1u << (width - 1))) : b;
}

// --corners (issue 22): tile t is of class t % 3, each deciding one NVIDIA corner rule on a
// real GPU (docs/units/README.md "Corner cases"):
//  0 overflow: half the products (+-)2^emax * ~1, c near the top binary32 binade (2^127): the
//    bf16/tf32 sums reach 2^128 (Inf, or the largest finite value under plain RZ);
//  1 zero signs: A of even rows all -0, of odd rows +-0; B positive in even columns; c = -0
//    in even rows: case (even row, even column) has every term -0 (+0 or -0);
//  2 tiny terms: c = +-0, a few products of subnormal or tiny operands (the binary16
//    alignment floor); row 0 x column 0 of fp16 tiles is the floor decider of tcsim probe
//    --corners: 1.25*2^-14 * 2^-9 + 2^-24 * 2^-23 (0x0002 with floor -21, 0x0003 with -22).
void corner_tile(const OpInfo& info, int t, Rng& rng, std::uint32_t* A, std::uint32_t* B, std::uint32_t* C) {
  const int cls = t % 3;
  const std::uint32_t fmask = (1u << (info.precision - 1)) - 1;
  auto frac = [&] { return static_cast<std::uint32_t>(rng.next()) & fmask; };
  for (int i = 0; i < info.m; ++i)
    for (int k = 0; k < info.k; ++k) {
      std::uint32_t& a = A[i * info.k + k];
      if (cls == 0) a = rng.range(0, 1) ? input_pattern(info, rng.next() & 1u, info.emax - rng.range(0, 1), frac())
                                        : input_pattern(info, rng.next() & 1u, rng.range(-4, 1), frac());
      else if (cls == 1) a = input_pattern(info, i % 2 == 0 || (rng.next() & 1u), info.emin - info.precision, 0);
      else a = rng.range(0, 3) == 0 ? input_pattern(info, rng.next() & 1u, info.emin - rng.range(0, info.precision - 1), frac())
                                    : input_pattern(info, false, info.emin - info.precision, 0);
    }
  for (int j = 0; j < info.n; ++j)
    for (int k = 0; k < info.k; ++k) {
      std::uint32_t& b = B[j * info.k + k];
      if (cls == 0) b = input_pattern(info, false, rng.range(0, 1), frac());
      else if (cls == 1) b = input_pattern(info, j % 2 == 1 && (rng.next() & 1u), rng.range(info.emin, info.emax), frac());
      else b = input_pattern(info, rng.next() & 1u, rng.range(info.emin, 0), frac());
    }
  for (int i = 0; i < info.m; ++i)
    for (int j = 0; j < info.n; ++j) {
      std::uint32_t& c = C[i * info.n + j];
      const bool neg = rng.next() & 1u;
      if (cls == 0) c = (neg ? 0x80000000u : 0u) | (static_cast<std::uint32_t>(126 + rng.range(0, 1) + 127) << 23) |
                        (static_cast<std::uint32_t>(rng.next()) & 0x7fffffu);
      else c = (cls == 1 && i % 2 == 0) || neg ? 0x80000000u : 0u;
    }
  if (cls == 2 && info.op == Op::WmmaFp16) {  // the floor decider (fp16 patterns)
    for (int k = 0; k < info.k; ++k) A[k] = B[k] = 0;
    A[0] = 0x0500u;  // 1.25 * 2^-14
    B[0] = 0x1800u;  // 2^-9
    A[1] = 0x0001u;  // 2^-24
    B[1] = 0x0002u;  // 2^-23
    C[0] = 0;
  }
}

// A random binary32 accumulator input with an exponent near the products' (within the
// normal binary32 range, which the products of bf16/tf32 extremes exceed).
std::uint32_t random_c(const Options& o, Rng& rng) {
  const int e = rng.range(std::max(o.exp_lo * 2 - 1, -126), std::min(o.exp_hi * 2 + 1, 127));
  const std::uint32_t frac = static_cast<std::uint32_t>(rng.next()) & 0x7fffffu;
  const bool neg = rng.next() & 1u;
  if (rng.range(0, 99) == 0) return neg ? 0x80000000u : 0u;
  return (neg ? 0x80000000u : 0u) | (static_cast<std::uint32_t>(e + 127) << 23) | frac;
}

// ------------------------------------------------------------------ kernels
//
// Memory layout, per tile t (one warp each): A[t] M x K row-major, B[t] K x N stored
// column-major (B[t][j*K + k]), C[t] and D[t] M x N row-major in the output type.

using namespace nvcuda;

template <class InT, class AccT>
__global__ void wmma16_kernel(const InT* A, const InT* B, const AccT* C, AccT* D) {
#if __CUDA_ARCH__ >= 700
  const int t = blockIdx.x;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, InT, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, InT, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, AccT> fc;
  wmma::load_matrix_sync(fa, A + t * 256, 16);
  wmma::load_matrix_sync(fb, B + t * 256, 16);
  wmma::load_matrix_sync(fc, C + t * 256, 16, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(D + t * 256, fc, 16, wmma::mem_row_major);
#endif
}

__global__ void wmma_bf16_kernel(const __nv_bfloat16* A, const __nv_bfloat16* B, const float* C, float* D) {
#if __CUDA_ARCH__ >= 800
  const int t = blockIdx.x;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::load_matrix_sync(fa, A + t * 256, 16);
  wmma::load_matrix_sync(fb, B + t * 256, 16);
  wmma::load_matrix_sync(fc, C + t * 256, 16, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(D + t * 256, fc, 16, wmma::mem_row_major);
#endif
}

__global__ void wmma_tf32_kernel(const float* A, const float* B, const float* C, float* D) {
#if __CUDA_ARCH__ >= 800
  const int t = blockIdx.x;
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
  wmma::load_matrix_sync(fa, A + t * 128, 8);
  wmma::load_matrix_sync(fb, B + t * 128, 8);
  wmma::load_matrix_sync(fc, C + t * 256, 16, wmma::mem_row_major);
  // The inputs are tf32 values already; the conversion keeps them unchanged.
  for (int i = 0; i < fa.num_elements; ++i) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
  for (int i = 0; i < fb.num_elements; ++i) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(D + t * 256, fc, 16, wmma::mem_row_major);
#endif
}

// mma.sync.aligned.m16n8k32 with fp8 inputs. Fragment layout (PTX ISA, "Matrix fragments
// for mma.m16n8k32", 8-bit types): groupID g = lane / 4, thread-in-group q = lane % 4;
//   A: reg r (4 bytes, byte i): row g + 8*(r & 1), column 4q + i + 16*(r >> 1)
//   B: reg r (4 bytes, byte i): row (k) 4q + i + 16*r, column g
//   C/D: element i (0..3): row g + 8*(i >> 1), column 2q + (i & 1)
#if __CUDA_ARCH__ >= 890  // like its callers' bodies; an unused definition draws a warning
__device__ void load_fp8_fragments(const std::uint8_t* A, const std::uint8_t* B, unsigned a[4], unsigned b[2]) {
  const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  for (int r = 0; r < 4; ++r) {
    const int row = g + 8 * (r & 1), col = 4 * q + 16 * (r >> 1);
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<unsigned>(A[row * 32 + col + i]) << (8 * i);
    a[r] = v;
  }
  for (int r = 0; r < 2; ++r) {
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<unsigned>(B[g * 32 + 4 * q + i + 16 * r]) << (8 * i);
    b[r] = v;
  }
}
#endif

template <bool E5M2>
__global__ void mma_fp8_f32_kernel(const std::uint8_t* A, const std::uint8_t* B, const float* C, float* D) {
#if __CUDA_ARCH__ >= 890
  const int t = blockIdx.x;
  A += t * 16 * 32;
  B += t * 8 * 32;
  C += t * 16 * 8;
  D += t * 16 * 8;
  unsigned a[4], b[2];
  load_fp8_fragments(A, B, a, b);
  const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  float c[4], d[4];
  for (int i = 0; i < 4; ++i) c[i] = C[(g + 8 * (i >> 1)) * 8 + 2 * q + (i & 1)];
  if (E5M2) {
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%10,%11,%12,%13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%10,%11,%12,%13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]));
  }
  for (int i = 0; i < 4; ++i) D[(g + 8 * (i >> 1)) * 8 + 2 * q + (i & 1)] = d[i];
#endif
}

template <bool E5M2>
__global__ void mma_fp8_f16_kernel(const std::uint8_t* A, const std::uint8_t* B, const __half* C, __half* D) {
#if __CUDA_ARCH__ >= 890
  const int t = blockIdx.x;
  A += t * 16 * 32;
  B += t * 8 * 32;
  C += t * 16 * 8;
  D += t * 16 * 8;
  unsigned a[4], b[2];
  load_fp8_fragments(A, B, a, b);
  const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  // C/D .f16: two .f16x2 registers; register r holds row g + 8r, columns 2q and 2q + 1.
  unsigned c[2], d[2];
  for (int r = 0; r < 2; ++r) {
    const __half lo = C[(g + 8 * r) * 8 + 2 * q], hi = C[(g + 8 * r) * 8 + 2 * q + 1];
    c[r] = static_cast<unsigned>(__half_as_ushort(lo)) | (static_cast<unsigned>(__half_as_ushort(hi)) << 16);
  }
  if (E5M2) {
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};\n"
        : "=r"(d[0]), "=r"(d[1])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};\n"
        : "=r"(d[0]), "=r"(d[1])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
  }
  for (int r = 0; r < 2; ++r) {
    D[(g + 8 * r) * 8 + 2 * q] = __ushort_as_half(static_cast<unsigned short>(d[r] & 0xffffu));
    D[(g + 8 * r) * 8 + 2 * q + 1] = __ushort_as_half(static_cast<unsigned short>(d[r] >> 16));
  }
#endif
}

// mma.sync.aligned.m16n8k16 with fp8 inputs (8-bit m16n8k16 fragments, PTX ISA): groupID g,
// thread-in-group q as above; A: reg r (4 bytes, byte i): row g + 8r, column 4q + i;
// B: one reg, byte i: row (k) 4q + i, column g; C/D as m16n8k32.
template <bool E5M2, bool F16OUT>
__global__ void mma_fp8_k16_kernel(const std::uint8_t* A, const std::uint8_t* B, const void* Cv, void* Dv) {
#if __CUDA_ARCH__ >= 890 && TCSIM_HAVE_FP8_K16
  const int t = blockIdx.x, lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  A += t * 16 * 16;
  B += t * 8 * 16;
  unsigned a[2], b = 0;
  for (int r = 0; r < 2; ++r) {
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<unsigned>(A[(g + 8 * r) * 16 + 4 * q + i]) << (8 * i);
    a[r] = v;
  }
  for (int i = 0; i < 4; ++i) b |= static_cast<unsigned>(B[g * 16 + 4 * q + i]) << (8 * i);
  if (F16OUT) {
    const __half* C = static_cast<const __half*>(Cv) + t * 16 * 8;
    __half* D = static_cast<__half*>(Dv) + t * 16 * 8;
    unsigned c[2], d[2];
    for (int r = 0; r < 2; ++r)
      c[r] = static_cast<unsigned>(__half_as_ushort(C[(g + 8 * r) * 8 + 2 * q])) |
             (static_cast<unsigned>(__half_as_ushort(C[(g + 8 * r) * 8 + 2 * q + 1])) << 16);
    if (E5M2)
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.e5m2.e5m2.f16 {%0,%1}, {%2,%3}, {%4}, {%5,%6};\n"
                   : "=r"(d[0]), "=r"(d[1]) : "r"(a[0]), "r"(a[1]), "r"(b), "r"(c[0]), "r"(c[1]));
    else
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.e4m3.e4m3.f16 {%0,%1}, {%2,%3}, {%4}, {%5,%6};\n"
                   : "=r"(d[0]), "=r"(d[1]) : "r"(a[0]), "r"(a[1]), "r"(b), "r"(c[0]), "r"(c[1]));
    for (int r = 0; r < 2; ++r) {
      D[(g + 8 * r) * 8 + 2 * q] = __ushort_as_half(static_cast<unsigned short>(d[r] & 0xffffu));
      D[(g + 8 * r) * 8 + 2 * q + 1] = __ushort_as_half(static_cast<unsigned short>(d[r] >> 16));
    }
  } else {
    const float* C = static_cast<const float*>(Cv) + t * 16 * 8;
    float* D = static_cast<float*>(Dv) + t * 16 * 8;
    float c[4], d[4];
    for (int i = 0; i < 4; ++i) c[i] = C[(g + 8 * (i >> 1)) * 8 + 2 * q + (i & 1)];
    if (E5M2)
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.e5m2.e5m2.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};\n"
                   : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                   : "r"(a[0]), "r"(a[1]), "r"(b), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    else
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};\n"
                   : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                   : "r"(a[0]), "r"(a[1]), "r"(b), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    for (int i = 0; i < 4; ++i) D[(g + 8 * (i >> 1)) * 8 + 2 * q + (i & 1)] = d[i];
  }
#endif
}

// mma.sync...kind::mxf8f6f4.block_scale.scale_vec::1X (sm_120a): the m16n8k32 fp8 fragments,
// every byte of both scale registers ue8m0 0x7f (= 1), selectors 0, so that the result is the
// unscaled product's (tcsim: --instruction mma.sync.mxf8f6f4 with unit scales).
template <bool E5M2>
__global__ void mx_fp8_kernel(const std::uint8_t* A, const std::uint8_t* B, const float* C, float* D) {
#if defined(__CUDA_ARCH_FEAT_SM120_ALL)
  const int t = blockIdx.x;
  A += t * 16 * 32;
  B += t * 8 * 32;
  C += t * 16 * 8;
  D += t * 16 * 8;
  unsigned a[4], b[2];
  load_fp8_fragments(A, B, a, b);
  const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  float c[4], d[4];
  for (int i = 0; i < 4; ++i) c[i] = C[(g + 8 * (i >> 1)) * 8 + 2 * q + (i & 1)];
  const unsigned one = 0x7f7f7f7fu;
  if (E5M2)
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e5m2.f32.ue8m0 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13}, %14, {0, 0}, %15, {0, 0};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]), "r"(one), "r"(one));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13}, %14, {0, 0}, %15, {0, 0};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]), "r"(one), "r"(one));
  for (int i = 0; i < 4; ++i) D[(g + 8 * (i >> 1)) * 8 + 2 * q + (i & 1)] = d[i];
#elif defined(__CUDA_ARCH__)
  // Not compiled for sm_120a: mark every result (finite inputs never give this NaN) so that
  // the host refuses to write a dump.
  const int t = blockIdx.x, lane = threadIdx.x & 31;
  for (int i = 0; i < 4; ++i) D[t * 16 * 8 + lane * 4 + i] = __uint_as_float(0xffffffffu);
#endif
}

// mma.sync...kind::mxf4nvf4.block_scale.scale_vec::2X m16n8k64 (sm_120a): fp4 e2m1 operands,
// both scale registers ue8m0 0x7f (= 1) in every byte, selectors 0 (tcsim: --instruction
// mma.sync.mxf4nvf4 with unit scales). Fragment layout (PTX ISA, "Matrix fragments for
// mma.m16n8k64", 4-bit types; g = lane / 4, q = lane % 4), nibble i of a register = element i:
//   A: reg r (8 nibbles): row g + 8*(r & 1), column 8q + i + 32*(r >> 1)
//   B: reg r (8 nibbles): row (k) 8q + i + 32*r, column g
//   C/D: as m16n8k32.
__global__ void mx_fp4_kernel(const std::uint8_t* A, const std::uint8_t* B, const float* C, float* D) {
#if defined(__CUDA_ARCH_FEAT_SM120_ALL)
  const int t = blockIdx.x;
  A += t * 16 * 64;
  B += t * 8 * 64;
  C += t * 16 * 8;
  D += t * 16 * 8;
  const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  unsigned a[4], b[2];
  for (int r = 0; r < 4; ++r) {
    const int row = g + 8 * (r & 1), col = 8 * q + 32 * (r >> 1);
    unsigned v = 0;
    for (int i = 0; i < 8; ++i) v |= (static_cast<unsigned>(A[row * 64 + col + i]) & 0xfu) << (4 * i);
    a[r] = v;
  }
  for (int r = 0; r < 2; ++r) {
    unsigned v = 0;
    for (int i = 0; i < 8; ++i) v |= (static_cast<unsigned>(B[g * 64 + 8 * q + i + 32 * r]) & 0xfu) << (4 * i);
    b[r] = v;
  }
  float c[4], d[4];
  for (int i = 0; i < 4; ++i) c[i] = C[(g + 8 * (i >> 1)) * 8 + 2 * q + (i & 1)];
  const unsigned one = 0x7f7f7f7fu;
  asm volatile(
      "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13}, %14, {0, 0}, %15, {0, 0};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
        "f"(c[3]), "r"(one), "r"(one));
  for (int i = 0; i < 4; ++i) D[(g + 8 * (i >> 1)) * 8 + 2 * q + (i & 1)] = d[i];
#elif defined(__CUDA_ARCH__)
  // Not compiled for sm_120a: mark every result, as mx_fp8_kernel.
  const int t = blockIdx.x, lane = threadIdx.x & 31;
  for (int i = 0; i < 4; ++i) D[t * 16 * 8 + lane * 4 + i] = __uint_as_float(0xffffffffu);
#endif
}

// ------------------------------------------------------------------ host driver

template <class T>
T* to_device(const std::vector<T>& v) {
  T* p = nullptr;
  CHECK_CUDA(cudaMalloc(&p, v.size() * sizeof(T) + 16));
  CHECK_CUDA(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return p;
}
template <class T>
std::vector<T> from_device(const T* p, std::size_t n) {
  std::vector<T> v(n);
  CHECK_CUDA(cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

// Runs the instruction for `tiles` tiles. a_bits: tiles*M*K input patterns (row-major),
// b_bits: tiles*N*K (column j of tile t at [t*N*K + j*K]), c32: tiles*M*N binary32.
// Returns D as binary32 patterns (binary16 results converted exactly).
std::vector<std::uint32_t> run(const OpInfo& info, bool fp16_out, int tiles, const std::vector<std::uint32_t>& a_bits,
                               const std::vector<std::uint32_t>& b_bits, const std::vector<std::uint32_t>& c32) {
  const std::size_t mn = static_cast<std::size_t>(tiles) * info.m * info.n;
  std::vector<std::uint32_t> out(mn);
  auto pack16 = [](const std::vector<std::uint32_t>& v) {
    std::vector<std::uint16_t> r(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) r[i] = static_cast<std::uint16_t>(v[i]);
    return r;
  };
  auto pack8 = [](const std::vector<std::uint32_t>& v) {
    std::vector<std::uint8_t> r(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) r[i] = static_cast<std::uint8_t>(v[i]);
    return r;
  };
  std::vector<float> cf(mn);
  std::vector<std::uint16_t> ch(mn);
  for (std::size_t i = 0; i < mn; ++i) {
    cf[i] = f32_of(c32[i]);
    ch[i] = binary32_to_half_rne(c32[i]);
  }
  void* dA = nullptr;
  void* dB = nullptr;
  void* dC = nullptr;
  void* dD = nullptr;
  if (info.in_bytes == 2) {
    dA = to_device(pack16(a_bits));
    dB = to_device(pack16(b_bits));
  } else if (info.in_bytes == 1) {
    dA = to_device(pack8(a_bits));
    dB = to_device(pack8(b_bits));
  } else {
    dA = to_device(a_bits);
    dB = to_device(b_bits);
  }
  dC = fp16_out ? static_cast<void*>(to_device(ch)) : static_cast<void*>(to_device(cf));
  CHECK_CUDA(cudaMalloc(&dD, mn * 4 + 16));
  switch (info.op) {
    case Op::WmmaFp16:
      if (fp16_out)
        wmma16_kernel<half, half><<<tiles, 32>>>(static_cast<half*>(dA), static_cast<half*>(dB),
                                                 static_cast<half*>(dC), static_cast<half*>(dD));
      else
        wmma16_kernel<half, float><<<tiles, 32>>>(static_cast<half*>(dA), static_cast<half*>(dB),
                                                  static_cast<float*>(dC), static_cast<float*>(dD));
      break;
    case Op::WmmaBf16:
      wmma_bf16_kernel<<<tiles, 32>>>(static_cast<__nv_bfloat16*>(dA), static_cast<__nv_bfloat16*>(dB),
                                      static_cast<float*>(dC), static_cast<float*>(dD));
      break;
    case Op::WmmaTf32:
      wmma_tf32_kernel<<<tiles, 32>>>(static_cast<float*>(dA), static_cast<float*>(dB), static_cast<float*>(dC),
                                      static_cast<float*>(dD));
      break;
    case Op::MxE4m3:
    case Op::MxE5m2: {
      auto* a = static_cast<std::uint8_t*>(dA);
      auto* b = static_cast<std::uint8_t*>(dB);
      auto* c = static_cast<float*>(dC);
      auto* d = static_cast<float*>(dD);
      if (info.op == Op::MxE5m2) mx_fp8_kernel<true><<<tiles, 32>>>(a, b, c, d);
      else mx_fp8_kernel<false><<<tiles, 32>>>(a, b, c, d);
      break;
    }
    case Op::MxE2m1:
      mx_fp4_kernel<<<tiles, 32>>>(static_cast<std::uint8_t*>(dA), static_cast<std::uint8_t*>(dB),
                                   static_cast<float*>(dC), static_cast<float*>(dD));
      break;
    case Op::MmaE4m3K16:
    case Op::MmaE5m2K16: {
      if (!TCSIM_HAVE_FP8_K16) {
        std::fprintf(stderr, "mma_dump: %s needs CUDA 12.8 or newer (PTX ISA 8.7)\n", info.name);
        std::exit(1);
      }
      auto* a = static_cast<std::uint8_t*>(dA);
      auto* b = static_cast<std::uint8_t*>(dB);
      const bool e5 = info.op == Op::MmaE5m2K16;
      if (fp16_out) {
        if (e5) mma_fp8_k16_kernel<true, true><<<tiles, 32>>>(a, b, dC, dD);
        else mma_fp8_k16_kernel<false, true><<<tiles, 32>>>(a, b, dC, dD);
      } else {
        if (e5) mma_fp8_k16_kernel<true, false><<<tiles, 32>>>(a, b, dC, dD);
        else mma_fp8_k16_kernel<false, false><<<tiles, 32>>>(a, b, dC, dD);
      }
      break;
    }
    case Op::MmaE4m3:
    case Op::MmaE5m2: {
      auto* a = static_cast<std::uint8_t*>(dA);
      auto* b = static_cast<std::uint8_t*>(dB);
      const bool e5 = info.op == Op::MmaE5m2;
      if (fp16_out) {
        auto* c = static_cast<__half*>(dC);
        auto* d = static_cast<__half*>(dD);
        if (e5) mma_fp8_f16_kernel<true><<<tiles, 32>>>(a, b, c, d);
        else mma_fp8_f16_kernel<false><<<tiles, 32>>>(a, b, c, d);
      } else {
        auto* c = static_cast<float*>(dC);
        auto* d = static_cast<float*>(dD);
        if (e5) mma_fp8_f32_kernel<true><<<tiles, 32>>>(a, b, c, d);
        else mma_fp8_f32_kernel<false><<<tiles, 32>>>(a, b, c, d);
      }
      break;
    }
  }
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  if (fp16_out) {
    const auto d = from_device(static_cast<std::uint16_t*>(dD), mn);
    for (std::size_t i = 0; i < mn; ++i) out[i] = half_to_binary32(d[i]);
  } else {
    out = from_device(static_cast<std::uint32_t*>(dD), mn);
  }
  if (is_block_scaled(info.op) && !out.empty() && out[0] == 0xffffffffu) {
    std::fprintf(stderr, "mma_dump: %s ran without sm_120a code; build with -arch=sm_120a (or "
                         "-DCMAKE_CUDA_ARCHITECTURES=120a)\n", info.name);
    std::exit(1);
  }
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
  cudaFree(dD);
  return out;
}

void usage(std::FILE* f) {
  std::fprintf(f,
               "usage: mma_dump --op <op> [--out fp32|fp16|both] [--cases N] [--k K] [--seed S]\n"
               "                [--exp-range LO:HI] [--subnormals PERCENT] [--gpu NAME] [--dir DIR] [--device I]\n"
               "                [--corners]  (tiles of overflow, all -0 and tiny-term cases: issue 22's rules)\n"
               "                [--inputs DIR]  (the cases of DIR/a_*_<fmt>.txt, b_*, c_*_fp32.txt: tcsim fit --suggest)\n"
               "ops: wmma-fp16 (sm_70+), wmma-bf16, wmma-tf32 (sm_80+), mma-e4m3, mma-e5m2 (sm_89+),\n"
               "     mma-e4m3-k16, mma-e5m2-k16 (sm_89+, CUDA 12.8+), mxf8f6f4-e4m3, mxf8f6f4-e5m2,\n"
               "     mxf4nvf4-e2m1 (sm_120a; every scale 1)\n"
               "writes DIR/a_<GPU>_<fmt>.txt, b_<GPU>_<fmt>.txt, c_<GPU>_fp32.txt, d_<GPU>_<out>.txt\n"
               "(the layout of shared/data/gpu; c and d do not name the format, so one DIR per op,\n"
               "e.g. for f in e4m3 e5m2; do mma_dump --op mma-$f --gpu H100 --dir H100/$f; done),\n"
               "then prints the tcsim validate-dump commands to run, for the unit of the --gpu name\n"
               "(V100, T4, A100, A2, A30, L40S, Ada, RTX4090, H100, H200, B200).\n");
}

// tcsim unit of a --gpu name (case, spaces and dashes ignored), or nullptr.
const char* unit_of_gpu(const std::string& gpu) {
  static const char* const kUnits[][2] = {
      {"v100", "v100"}, {"t4", "t4"},
      {"a100", "a100"}, {"a2", "a100"},  {"a30", "a100"},
      {"l40s", "l40s"}, {"ada", "l40s"}, {"rtx4090", "l40s"},
      {"h100", "h100"}, {"h200", "h100"},
      {"b200", "b200"},
      {"rtx5090", "rtx5090"}, {"rtx5080", "rtx5090"}, {"rtxpro6000", "rtx5090"},
  };
  std::string key;
  for (const char ch : gpu)
    if (std::isalnum(static_cast<unsigned char>(ch)))
      key += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (const auto& e : kUnits)
    if (key == e[0]) return e[1];
  return nullptr;
}

// The input-format pattern of a binary32 value the format holds exactly (the a/b files of
// tcsim fit --suggest); Inf and NaN take the all-ones exponent field.
std::uint32_t binary32_to_input(const OpInfo& info, std::uint32_t b) {
  if (info.op == Op::WmmaTf32) return b;
  const int width = info.in_bytes * 8;
  const int frac_bits = info.precision - 1;
  const int bias = (1 << (info.exp_bits - 1)) - 1;
  const std::uint32_t sign = (b >> 31) ? (1u << (width - 1)) : 0u;
  const float v = std::fabs(f32_of(b));
  const std::uint32_t top = (1u << info.exp_bits) - 1;
  if (std::isnan(v)) return sign | (top << frac_bits) | ((1u << frac_bits) - 1);
  if (std::isinf(v)) return sign | (top << frac_bits);
  if (v == 0) return sign;
  int e = 0;
  const double m = std::frexp(static_cast<double>(v), &e);  // v = m 2^e, m in [0.5, 1)
  const int E = e - 1;
  if (E < info.emin)
    return sign | static_cast<std::uint32_t>(std::ldexp(static_cast<double>(v), frac_bits - info.emin));
  const auto frac = static_cast<std::uint32_t>(std::ldexp(m * 2 - 1, frac_bits));
  return sign | (static_cast<std::uint32_t>(E + bias) << frac_bits) | frac;
}

// The values of one dump file: hex binary32 patterns (a, b) or 0/1 strings (c), per line.
std::vector<std::vector<std::uint32_t>> read_lines(const std::string& path, bool binary) {
  std::vector<std::vector<std::uint32_t>> lines;
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return lines;
  char buf[1 << 16];
  while (std::fgets(buf, sizeof buf, f)) {
    std::vector<std::uint32_t> v;
    for (char* p = buf; *p;) {
      while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') ++p;
      if (!*p) break;
      char* end = p;
      v.push_back(binary ? static_cast<std::uint32_t>(std::strtoul(p, &end, 2)) : static_cast<std::uint32_t>(std::strtoul(p, &end, 16)));
      if (end == p) break;
      p = end;
    }
    if (!v.empty()) lines.push_back(std::move(v));
  }
  std::fclose(f);
  return lines;
}

// The one file of DIR named <prefix>_*_<suffix>.txt (tcsim fit --suggest writes *_FIT_*), or "".
std::string find_input(const std::string& dir, const std::string& prefix, const std::string& suffix) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind(prefix + "_", 0) == 0 && n.size() > suffix.size() + 5 && n.substr(n.size() - suffix.size() - 5) == "_" + suffix + ".txt")
      return e.path().string();
  }
  return "";
}

std::string binary_line(std::uint32_t b) {
  std::string s(32, '0');
  for (int i = 0; i < 32; ++i)
    if ((b >> (31 - i)) & 1u) s[i] = '1';
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::string out = "both";
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "mma_dump: option %s needs a value\n", k.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (k == "--op") {
      const std::string v = value();
      for (const auto& info : kOps)
        if (v == info.name) o.op = &info;
      if (!o.op) {
        std::fprintf(stderr, "mma_dump: unknown --op '%s'\n", v.c_str());
        usage(stderr);
        return 2;
      }
    } else if (k == "--out") {
      out = value();
    } else if (k == "--cases") {
      o.cases = std::atol(value().c_str());
    } else if (k == "--k") {
      o.k_nonzero = std::atoi(value().c_str());
    } else if (k == "--seed") {
      o.seed = std::strtoull(value().c_str(), nullptr, 0);
    } else if (k == "--exp-range") {
      const std::string v = value();
      if (std::sscanf(v.c_str(), "%d:%d", &o.exp_lo, &o.exp_hi) != 2 || o.exp_lo > o.exp_hi) {
        std::fprintf(stderr, "mma_dump: --exp-range wants LO:HI, got '%s'\n", v.c_str());
        return 2;
      }
    } else if (k == "--subnormals") {
      o.subnormal_percent = std::atoi(value().c_str());
    } else if (k == "--gpu") {
      o.gpu = value();
    } else if (k == "--dir") {
      o.dir = value();
    } else if (k == "--corners") {
      o.corners = true;
    } else if (k == "--inputs") {
      o.inputs = value();
    } else if (k == "--device") {
      o.device = std::atoi(value().c_str());
    } else if (k == "--help" || k == "-h") {
      usage(stdout);
      return 0;
    } else {
      std::fprintf(stderr, "mma_dump: unknown option '%s'\n", k.c_str());
      usage(stderr);
      return 2;
    }
  }
  if (!o.op) {
    usage(stderr);
    return 2;
  }
  const OpInfo& info = *o.op;
  if (out == "fp32") o.out_fp16 = false;
  else if (out == "fp16") o.out_fp32 = false;
  else if (out != "both") {
    std::fprintf(stderr, "mma_dump: --out wants fp32, fp16 or both\n");
    return 2;
  }
  if (!info.fp16_out) o.out_fp16 = false;
  if (!o.out_fp32 && !o.out_fp16) {
    std::fprintf(stderr, "mma_dump: %s has no binary16 output\n", info.name);
    return 2;
  }
  if (o.k_nonzero <= 0 || o.k_nonzero > info.k) o.k_nonzero = info.k;
  o.exp_lo = std::max(o.exp_lo, info.emin);
  o.exp_hi = std::min(o.exp_hi, info.emax);
  if (o.exp_lo > o.exp_hi) {
    std::fprintf(stderr, "mma_dump: --exp-range has no exponent of %s (normal exponents %d:%d)\n", info.fmt,
                 info.emin, info.emax);
    return 2;
  }
  if (o.cases <= 0) o.cases = 1;

  CHECK_CUDA(cudaSetDevice(o.device));
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, o.device));
  const int cc = prop.major * 10 + prop.minor;
  std::printf("device %d: %s (sm_%d)\n", o.device, prop.name, cc);
  if (cc < info.min_cc) {
    std::fprintf(stderr, "mma_dump: %s needs sm_%d or newer; this device is sm_%d\n", info.name, info.min_cc, cc);
    return 1;
  }

  // --inputs: the given cases, one per diagonal element (row q, column q) of each tile, so
  // that every case has its own row of A and column of B; the other elements are zero.
  std::vector<std::vector<std::uint32_t>> in_a, in_b, in_c;
  if (!o.inputs.empty()) {
    if (o.corners) {
      std::fprintf(stderr, "mma_dump: --inputs and --corners exclude each other\n");
      return 2;
    }
    const std::string pa = find_input(o.inputs, "a", info.fmt), pb = find_input(o.inputs, "b", info.fmt),
                      pc = find_input(o.inputs, "c", "fp32");
    if (pa.empty() || pb.empty() || pc.empty()) {
      std::fprintf(stderr, "mma_dump: --inputs: '%s' needs a_*_%s.txt, b_*_%s.txt and c_*_fp32.txt\n", o.inputs.c_str(),
                   info.fmt, info.fmt);
      return 2;
    }
    in_a = read_lines(pa, false);
    in_b = read_lines(pb, false);
    in_c = read_lines(pc, true);
    const std::size_t K = in_a.empty() ? 0 : in_a[0].size();
    bool ok = !in_a.empty() && in_b.size() == in_a.size() && in_c.size() == in_a.size() && K <= static_cast<std::size_t>(info.k);
    for (std::size_t n = 0; ok && n < in_a.size(); ++n) ok = in_a[n].size() == K && in_b[n].size() == K && in_c[n].size() == 1;
    if (!ok) {
      std::fprintf(stderr, "mma_dump: --inputs: the a, b and c files of '%s' must have the same lines, at most %d values each\n",
                   o.inputs.c_str(), info.k);
      return 2;
    }
    o.cases = static_cast<long>(in_a.size());
    o.k_nonzero = static_cast<int>(K);
  }
  const int diag = std::min(info.m, info.n);
  const bool given = !o.inputs.empty();
  // Inputs: every tile gets random A (M x K), B (K x N) and C; products beyond k_nonzero
  // are zero (a zero in A), as in the published data.
  const int per_tile = info.m * info.n;
  const int tiles = given ? static_cast<int>((o.cases + diag - 1) / diag) : static_cast<int>((o.cases + per_tile - 1) / per_tile);
  // Case n: tile, row and column of its output element.
  auto place = [&](long n, int& t, int& i, int& j) {
    if (given) { t = static_cast<int>(n / diag); i = j = static_cast<int>(n % diag); return; }
    t = static_cast<int>(n / per_tile);
    i = static_cast<int>(n % per_tile) / info.n;
    j = static_cast<int>(n % per_tile) % info.n;
  };
  Rng rng{o.seed};
  std::vector<std::uint32_t> A(static_cast<std::size_t>(tiles) * info.m * info.k);
  std::vector<std::uint32_t> B(static_cast<std::size_t>(tiles) * info.n * info.k);
  std::vector<std::uint32_t> C(static_cast<std::size_t>(tiles) * per_tile);
  for (int t = 0; t < tiles && !given; ++t) {
    for (int i = 0; i < info.m; ++i)
      for (int k = 0; k < info.k; ++k)
        A[(static_cast<std::size_t>(t) * info.m + i) * info.k + k] = k < o.k_nonzero ? random_input(info, o, rng) : 0;
    for (int j = 0; j < info.n; ++j)
      for (int k = 0; k < info.k; ++k)
        B[(static_cast<std::size_t>(t) * info.n + j) * info.k + k] = random_input(info, o, rng);
    for (int i = 0; i < per_tile; ++i) C[static_cast<std::size_t>(t) * per_tile + i] = random_c(o, rng);
    if (o.corners)
      corner_tile(info, t, rng, &A[static_cast<std::size_t>(t) * info.m * info.k],
                  &B[static_cast<std::size_t>(t) * info.n * info.k], &C[static_cast<std::size_t>(t) * per_tile]);
    for (int i = 0; i < info.m; ++i)  // products beyond --k stay zero (the files list only --k)
      for (int k = o.k_nonzero; k < info.k; ++k) A[(static_cast<std::size_t>(t) * info.m + i) * info.k + k] = 0;
  }

  for (long n = 0; given && n < o.cases; ++n) {
    int t, i, j;
    place(n, t, i, j);
    for (int k = 0; k < o.k_nonzero; ++k) {
      A[(static_cast<std::size_t>(t) * info.m + i) * info.k + k] = binary32_to_input(info, in_a[n][k]);
      B[(static_cast<std::size_t>(t) * info.n + j) * info.k + k] = binary32_to_input(info, in_b[n][k]);
    }
    C[static_cast<std::size_t>(t) * per_tile + i * info.n + j] = in_c[n][0];
  }

  std::error_code dir_error;
  std::filesystem::create_directories(o.dir, dir_error);  // the fopen below reports a failure
  const std::string base = o.dir + "/";
  const std::string a_path = base + "a_" + o.gpu + "_" + info.fmt + ".txt";
  const std::string b_path = base + "b_" + o.gpu + "_" + info.fmt + ".txt";
  const std::string c_path = base + "c_" + o.gpu + "_fp32.txt";
  std::FILE* fa = std::fopen(a_path.c_str(), "w");
  std::FILE* fb = std::fopen(b_path.c_str(), "w");
  std::FILE* fc = std::fopen(c_path.c_str(), "w");
  if (!fa || !fb || !fc) {
    std::fprintf(stderr, "mma_dump: cannot write into '%s'\n", o.dir.c_str());
    return 1;
  }
  for (long n = 0; n < o.cases; ++n) {
    int t, i, j;
    place(n, t, i, j);
    for (int k = 0; k < o.k_nonzero; ++k) {
      const std::uint32_t a = A[(static_cast<std::size_t>(t) * info.m + i) * info.k + k];
      const std::uint32_t b = B[(static_cast<std::size_t>(t) * info.n + j) * info.k + k];
      std::fprintf(fa, "%s%08x", k ? " " : "", input_to_binary32(info, a));
      std::fprintf(fb, "%s%08x", k ? " " : "", input_to_binary32(info, b));
    }
    std::fprintf(fa, "\n");
    std::fprintf(fb, "\n");
    std::fprintf(fc, "%s\n", binary_line(C[static_cast<std::size_t>(t) * per_tile + i * info.n + j]).c_str());
  }
  std::fclose(fa);
  std::fclose(fb);
  std::fclose(fc);

  const char* unit = unit_of_gpu(o.gpu);
  std::string in = info.fmt;
  for (auto& ch : in) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const bool fp8 = is_fp8(info.op) || info.op == Op::MxE2m1;
  // fp8: the mma.sync family (h100's default fp8 -> fp32 row is wgmma); the k16 form by its full
  // name, which makes tcsim chain instructions of 16 (rtx5090; docs/units/blackwell.md).
  const bool k16 = info.op == Op::MmaE4m3K16 || info.op == Op::MmaE5m2K16;
  const bool mx = info.op == Op::MxE4m3 || info.op == Op::MxE5m2;
  const std::string fp8_instruction = info.op == Op::MxE2m1 ? " --instruction mma.sync.mxf4nvf4"
                                      : mx    ? " --instruction mma.sync.mxf8f6f4"
                                      : k16 ? " --instruction mma.sync.m16n8k16"
                                            : " --instruction mma.sync";
  std::string commands;
  for (int pass = 0; pass < 2; ++pass) {
    const bool fp16 = pass == 1;
    if (fp16 ? !o.out_fp16 : !o.out_fp32) continue;
    const auto D = run(info, fp16, tiles, A, B, C);
    const std::string d_path = base + "d_" + o.gpu + "_" + (fp16 ? "fp16" : "fp32") + ".txt";
    std::FILE* fd = std::fopen(d_path.c_str(), "w");
    if (!fd) {
      std::fprintf(stderr, "mma_dump: cannot write '%s'\n", d_path.c_str());
      return 1;
    }
    for (long n = 0; n < o.cases; ++n) {
      int t, i, j;
      place(n, t, i, j);
      std::fprintf(fd, "%s\n", binary_line(D[static_cast<std::size_t>(t) * per_tile + i * info.n + j]).c_str());
    }
    std::fclose(fd);
    // --instruction mma.sync for fp8: h100's default fp8 -> fp32 row is wgmma; every fp8 unit accepts it.
    commands += std::string("  tcsim validate-dump --unit ") + (unit ? unit : "<unit>") + " --in " + in +
                " --out " + (fp16 ? "fp16" : "fp32") + (fp8 ? fp8_instruction : std::string()) + " --a " + a_path +
                " --b " + b_path + " --c " + c_path + " --d " + d_path + "\n";
  }
  std::printf("wrote %ld cases of K = %d (%s, %d tiles)\nvalidate with:\n%s", o.cases, o.k_nonzero, info.name, tiles,
              commands.c_str());
  if (!unit)
    std::printf("note: no tcsim unit is known for --gpu '%s' (names: V100, T4, A100, A2, A30, L40S, Ada, RTX4090,\n"
                "H100, H200, B200); put your card's unit for <unit> (tcsim units lists them)\n",
                o.gpu.c_str());
  return 0;
}
