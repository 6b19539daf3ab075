// mma_dump's block-scaled mma.sync forms of RTX Blackwell (sm_120a) (mma_dump.cu), with every
// scale ue8m0 0x7f (= 1) in every byte of both scale registers and selectors 0, so that the
// result is the unscaled product's (the dump format holds no scales): kind::mxf8f6f4
// m16n8k32 (scale_vec::1X, e4m3 or e5m2; tcsim --instruction mma.sync.mxf8f6f4) and
// kind::mxf4nvf4 m16n8k64 (scale_vec::2X, e2m1; --instruction mma.sync.mxf4nvf4), .f32
// accumulator, on the shared m16n8 kernel (mma_kernels_m16n8.cuh). Without sm_120a code every
// result is marked (a NaN that finite inputs never give) and the host refuses to write a
// dump. Included once, by mma_dump.cu.
#pragma once
#include "mma_dump_ops.cuh"
#include "mma_kernels_m16n8.cuh"

namespace {

// The operands of both forms: D, A, B, C, the two scale registers and their selectors.
#define TCSIM_MX_OPERANDS "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13}, %14, {0, 0}, %15, {0, 0};\n"

// E2M1: kind::mxf4nvf4 with fp4 operands; else kind::mxf8f6f4 with e5m2 (E5M2) or e4m3.
template <bool E2M1, bool E5M2 = false>
struct MmaBlockScaled {
  static constexpr int K = E2M1 ? 64 : 32, BITS = E2M1 ? 4 : 8;
  using Out = float;
  static __device__ void run(const unsigned* a, const unsigned* b, const Acc<float>& cs, Acc<float>& ds) {
#if defined(__CUDA_ARCH_FEAT_SM120_ALL)
    const float* c = cs.r;
    float* d = ds.r;
    const unsigned one = 0x7f7f7f7fu;
    if constexpr (E2M1)
      asm volatile("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0 "
                   TCSIM_MX_OPERANDS : TCSIM_D_F32 : TCSIM_A4_B2, TCSIM_C_F32, "r"(one), "r"(one));
    else
      TCSIM_FP8_MMA(E5M2, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.",
                    ".f32.ue8m0 " TCSIM_MX_OPERANDS, : TCSIM_D_F32 : TCSIM_A4_B2, TCSIM_C_F32, "r"(one), "r"(one));
#else
    (void)a, (void)b, (void)cs;
    ds.mark();
#endif
  }
};

// Launches the block-scaled op of `info` (mxf8f6f4-e4m3, mxf8f6f4-e5m2, mxf4nvf4-e2m1).
void launch_block_scaled(const OpInfo& info, int tiles, void* dA, void* dB, void* dC, void* dD) {
  if (info.op == Op::MxE2m1) launch_m16n8<MmaBlockScaled<true>>(tiles, dA, dB, dC, dD);
  else if (info.op == Op::MxE5m2) launch_m16n8<MmaBlockScaled<false, true>>(tiles, dA, dB, dC, dD);
  else launch_m16n8<MmaBlockScaled<false, false>>(tiles, dA, dB, dC, dD);
}

}  // namespace
