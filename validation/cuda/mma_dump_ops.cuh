// mma_dump's operations (mma_dump.cu): the --op table with each instruction's shape and
// input format. Included once, by mma_dump.cu.
#pragma once
#include <cuda.h>

namespace {

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

}  // namespace
