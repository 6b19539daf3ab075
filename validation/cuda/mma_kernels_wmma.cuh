// mma_dump's wmma kernels (mma_dump.cu): m16n16k16 with fp16 inputs (Volta, Turing and later)
// or bf16 inputs, m16n16k8 with tf32 inputs (Ampere and later). One template: the forms differ
// only in types and K. Included once, by mma_dump.cu.
//
// Memory layout, per tile t (one warp each): A[t] M x K row-major, B[t] K x N stored
// column-major (B[t][j*K + k]), C[t] and D[t] M x N row-major in the output type.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <type_traits>

#include "mma_dump_ops.cuh"

namespace {

using namespace nvcuda;

// Tile blockIdx.x through wmma with fragments of element type Frag and shape m16n16k<K>.
template <class Frag, int K, class InT, class AccT>
__device__ void wmma_tile(const InT* A, const InT* B, const AccT* C, AccT* D) {
  const int t = blockIdx.x;
  wmma::fragment<wmma::matrix_a, 16, 16, K, Frag, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, K, Frag, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, K, AccT> fc;
  wmma::load_matrix_sync(fa, A + t * 16 * K, K);
  wmma::load_matrix_sync(fb, B + t * 16 * K, K);
  wmma::load_matrix_sync(fc, C + t * 256, 16, wmma::mem_row_major);
  if constexpr (std::is_same_v<InT, float>) {
    // The inputs are tf32 values already; the conversion keeps them unchanged.
    for (int i = 0; i < fa.num_elements; ++i) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
    for (int i = 0; i < fb.num_elements; ++i) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
  }
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(D + t * 256, fc, 16, wmma::mem_row_major);
}

// InT: half (m16n16k16, sm_70+), __nv_bfloat16 (m16n16k16, sm_80+) or float holding tf32
// values (m16n16k8, sm_80+); the bf16 and tf32 fragments exist from sm_80 on.
template <class InT, class AccT>
__global__ void wmma_kernel(const InT* A, const InT* B, const AccT* C, AccT* D) {
#if __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<InT, float>) wmma_tile<wmma::precision::tf32, 8>(A, B, C, D);
  else wmma_tile<InT, 16>(A, B, C, D);
#elif __CUDA_ARCH__ >= 700
  if constexpr (std::is_same_v<InT, half>) wmma_tile<half, 16>(A, B, C, D);
#endif
}

// Launches the wmma op of `info` on device buffers (inputs as the op stores them; C and D in
// the output type).
void launch_wmma(const OpInfo& info, bool fp16_out, int tiles, void* dA, void* dB, void* dC, void* dD) {
  switch (info.op) {
    case Op::WmmaFp16:
      if (fp16_out)
        wmma_kernel<half, half><<<tiles, 32>>>(static_cast<half*>(dA), static_cast<half*>(dB), static_cast<half*>(dC),
                                               static_cast<half*>(dD));
      else
        wmma_kernel<half, float><<<tiles, 32>>>(static_cast<half*>(dA), static_cast<half*>(dB), static_cast<float*>(dC),
                                                static_cast<float*>(dD));
      break;
    case Op::WmmaBf16:
      wmma_kernel<__nv_bfloat16, float><<<tiles, 32>>>(static_cast<__nv_bfloat16*>(dA), static_cast<__nv_bfloat16*>(dB),
                                                       static_cast<float*>(dC), static_cast<float*>(dD));
      break;
    case Op::WmmaTf32:
      wmma_kernel<float, float><<<tiles, 32>>>(static_cast<float*>(dA), static_cast<float*>(dB), static_cast<float*>(dC),
                                               static_cast<float*>(dD));
      break;
    default: break;
  }
}

}  // namespace
