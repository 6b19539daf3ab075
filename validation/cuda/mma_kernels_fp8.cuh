// mma_dump's fp8 mma.sync forms (mma_dump.cu): m16n8k32 (Ada, Hopper, Blackwell: sm_89+) and
// m16n8k16 (PTX ISA 8.7, CUDA 12.8+; RTX Blackwell runs it as one block of 16, units.md 3b),
// e4m3 or e5m2 inputs, .f32 or .f16 accumulator, on the shared m16n8 kernel
// (mma_kernels_m16n8.cuh). Included once, by mma_dump.cu.
#pragma once
#include <cuda_fp16.h>

#include <type_traits>

#include "mma_dump_ops.cuh"
#include "mma_kernels_m16n8.cuh"

namespace {

// mma.sync.aligned.m16n8k<K>.row.col.<out>.<t>.<t>.<out>, t = e5m2 or e4m3.
template <int Kdim, class OutT, bool E5M2>
struct MmaFp8 {
  static constexpr int K = Kdim, BITS = 8;
  using Out = OutT;
  static __device__ void run(const unsigned* a, const unsigned* b, const Acc<Out>& cs, Acc<Out>& ds) {
#if __CUDA_ARCH__ >= 890
    [[maybe_unused]] const auto* c = cs.r;
    [[maybe_unused]] auto* d = ds.r;
    constexpr bool f32 = std::is_same_v<Out, float>;
    if constexpr (K == 32 && f32)
      TCSIM_FP8_MMA(E5M2, "mma.sync.aligned.m16n8k32.row.col.f32.",
                    ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n",
                    : TCSIM_D_F32 : TCSIM_A4_B2, TCSIM_C_F32);
    else if constexpr (K == 32)
      TCSIM_FP8_MMA(E5M2, "mma.sync.aligned.m16n8k32.row.col.f16.", ".f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};\n",
                    : TCSIM_D_F16 : TCSIM_A4_B2, TCSIM_C_F16);
    else if constexpr (K == 16 && TCSIM_HAVE_FP8_K16 && f32)
      TCSIM_FP8_MMA(E5M2, "mma.sync.aligned.m16n8k16.row.col.f32.", ".f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};\n",
                    : TCSIM_D_F32 : TCSIM_A2_B1, TCSIM_C_F32);
    else if constexpr (K == 16 && TCSIM_HAVE_FP8_K16)
      TCSIM_FP8_MMA(E5M2, "mma.sync.aligned.m16n8k16.row.col.f16.", ".f16 {%0,%1}, {%2,%3}, {%4}, {%5,%6};\n",
                    : TCSIM_D_F16 : TCSIM_A2_B1, TCSIM_C_F16);
    else
      ds.mark();
#else
    (void)a, (void)b, (void)cs;
    ds.mark();
#endif
  }
};

// One form on the device buffers: E5M2 or E4M3 inputs.
template <int K, class Out>
void launch_fp8_form(bool e5, int tiles, void* dA, void* dB, void* dC, void* dD) {
  if (e5) launch_m16n8<MmaFp8<K, Out, true>>(tiles, dA, dB, dC, dD);
  else launch_m16n8<MmaFp8<K, Out, false>>(tiles, dA, dB, dC, dD);
}

// Launches the fp8 op of `info` (mma-e4m3, mma-e5m2 and their -k16 forms).
void launch_fp8(const OpInfo& info, bool fp16_out, int tiles, void* dA, void* dB, void* dC, void* dD) {
  const bool e5 = info.op == Op::MmaE5m2 || info.op == Op::MmaE5m2K16;
  if (info.op == Op::MmaE4m3K16 || info.op == Op::MmaE5m2K16) {
    if (fp16_out) launch_fp8_form<16, __half>(e5, tiles, dA, dB, dC, dD);
    else launch_fp8_form<16, float>(e5, tiles, dA, dB, dC, dD);
  } else {
    if (fp16_out) launch_fp8_form<32, __half>(e5, tiles, dA, dB, dC, dD);
    else launch_fp8_form<32, float>(e5, tiles, dA, dB, dC, dD);
  }
}

}  // namespace
