# Instructions by their ISA names (issue 24): the AMD MFMA names and the RTX Blackwell mma
# forms select the row and the K of one instruction in dot, validate-dump, gemm and lu;
# `tcsim units --instructions` lists them with m x n x k. Catalogue rows B260-B279 hold the errors.
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)

# CDNA3 f16: four products 2^-26 then 1 - 1. One block of 8 (the row, and the K = 8 form)
# truncates the small ones: 0. The K = 4 forms chain instructions of 4: 2^-24 (0x33800000).
set(small_a "0x1p-13,0x1p-13,0x1p-13,0x1p-13,1,-1,0,0")
set(small_b "0x1p-13,0x1p-13,0x1p-13,0x1p-13,1,1,0,0")
tcsim_check(NAME "dot mi300x v_mfma_f32_32x32x8_f16: one block of 8"
  ARGS dot --unit mi300x --in fp16 --out fp32 --instruction v_mfma_f32_32x32x8_f16 --a ${small_a} --b ${small_b}
  STDOUT "^unit mi300x, fp16 -> fp32, instruction v_mfma_f32_32x32x8_f16 \\(32x32x8\\): k = 8, F = 24, 8 products in 1 block FMA\n"
         "\nd += 0x00000000 ")
tcsim_check(NAME "dot mi300x v_mfma_f32_32x32x4_2b_f16: K = 4 per block, chained"
  ARGS dot --unit mi300x --in fp16 --out fp32 --instruction mfma_f32_32x32x4_2b_f16 --a ${small_a} --b ${small_b}
  STDOUT "^unit mi300x, fp16 -> fp32, instruction v_mfma_f32_32x32x4_2b_f16 \\(32x32x4, 2 independent blocks\\): k = 4, F = 24, 8 products in 2 block FMAs\n"
         "\nd += 0x33800000 ")
tcsim_check(NAME "dot mi300x --json names the instruction shape"
  ARGS dot --unit mi300x --in fp16 --out fp32 --instruction V_MFMA_F32_4X4X4_16B_F16 --a ${small_a} --b ${small_b} --json
  STDOUT "\"instruction\":\"v_mfma_f32_4x4x4_16b_f16\"" "\"instruction_shape\":{\"blocks\":16,\"k\":4,\"m\":4,\"n\":4}"
         "\"bits\":\"0x33800000\"" "\"fma_size\":4")
# The v1 final addition by ISA name: the units.md 3b vector.
tcsim_check(NAME "dot mi300x v_mfma_f32_32x32x8_f16.v1: the v1 vector"
  ARGS dot --unit mi300x --in fp16 --out fp32 --instruction v_mfma_f32_32x32x8f16.v1
       --a bits:0x2f67,bits:0x14fd,bits:0xacef,bits:0xa96a,bits:0x944c,bits:0x97f3,bits:0x1805,bits:0xaacb
       --b bits:0x21d5,bits:0x2530,bits:0x1b5d,bits:0x1c83,bits:0x1955,bits:0x23aa,bits:0x17b0,bits:0x16c2 --c -1
  STDOUT "\nd += 0xbf7fce00 ")

# RTX Blackwell fp8: m16n8k32 is one block of 32, m16n8k16 chains blocks of 16.
set(rtx_a "256,-256,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9")
set(rtx_b "256,256,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9,0x1p-9")
tcsim_check(NAME "dot rtx5090 mma.sync.m16n8k32"
  ARGS dot --unit rtx5090 --in e4m3 --out fp32 --instruction mma.sync.m16n8k32 --a ${rtx_a} --b ${rtx_b}
  STDOUT "instruction mma.sync \\(16x8x32\\): k = 32," "\nd += 0x00000000 ")
tcsim_check(NAME "dot rtx5090 mma.sync.m16n8k16"
  ARGS dot --unit rtx5090 --in e4m3 --out fp32 --instruction mma.sync.m16n8k16 --a ${rtx_a} --b ${rtx_b}
  STDOUT "instruction mma.sync \\(16x8x16\\): k = 16, F = 25, 32 products in 2 block FMAs" "\nd += 0x38800000 ")
tcsim_check(NAME "dot rtx5090 mxf4nvf4 with ue4m3 scales per 16"
  ARGS dot --unit rtx5090 --in e2m1 --out fp32 --instruction mma.sync.mxf4nvf4 --a 6 --b 6 --c 1
       --scale-format ue4m3 --scale-a 2 --scale-b 2 --block-size 16
  STDOUT "\nd += 0x43110000 ")

# gemm and lu take the names too (gemm: the K = 4 form differs from the row's blocks of 8
# on this problem; the numbers are checked against dot above, here only that it runs).
tcsim_check(NAME "gemm mi300x by ISA name"
  ARGS gemm --unit mi300x --in fp16 --m 4 --n 4 --k 64 --instruction v_mfma_f32_16x16x4_4b_f16 --seed 1 --json
  STDOUT "\"instruction\":\"v_mfma_f32_16x16x4_4b_f16\"" "\"unit\":\"mi300x\"")
tcsim_check(NAME "lu mi250x by ISA name"
  ARGS lu --unit mi250x --n 32 --r 8 --instruction v_mfma_f32_32x32x8f16 --json
  STDOUT "\"unit\":\"mi250x\"" "\"unit_calls\":[1-9]")

# validate-dump by ISA name on a dump written from tcsim's own results (one case, K = 8).
tcsim_scratch_dir(dump_dir)
file(WRITE "${dump_dir}/a.txt" "39000000 39000000 39000000 39000000 3f800000 bf800000 00000000 00000000\n")
file(WRITE "${dump_dir}/b.txt" "39000000 39000000 39000000 39000000 3f800000 3f800000 00000000 00000000\n")
file(WRITE "${dump_dir}/c.txt" "00000000000000000000000000000000\n")
file(WRITE "${dump_dir}/d.txt" "00110011100000000000000000000000\n")
tcsim_check(NAME "validate-dump mi300x v_mfma_f32_32x32x4_2b_f16"
  ARGS validate-dump --unit mi300x --in fp16 --out fp32 --instruction v_mfma_f32_32x32x4_2b_f16
       --a ${dump_dir}/a.txt --b ${dump_dir}/b.txt --c ${dump_dir}/c.txt --d ${dump_dir}/d.txt
  STDOUT "1 cases, 0 mismatches")
tcsim_check(NAME "validate-dump mi300x v_mfma_f32_32x32x8_f16 differs on that case"
  ARGS validate-dump --unit mi300x --in fp16 --out fp32 --instruction v_mfma_f32_32x32x8_f16
       --a ${dump_dir}/a.txt --b ${dump_dir}/b.txt --c ${dump_dir}/c.txt --d ${dump_dir}/d.txt
  EXIT 1 STDOUT "1 cases, 1 mismatches")

# tcsim units: every instruction with m x n x k, in the row listing and on its own.
tcsim_check(NAME "units mi300x lists the ISA instructions"
  ARGS units --unit mi300x
  STDOUT "shapes: v_mfma_f32_32x32x4_2b_f16 32x32x4 \\(2 blocks\\) \\[fp16\\], v_mfma_f32_16x16x4_4b_f16 16x16x4 \\(4 blocks\\) \\[fp16\\]")
tcsim_check(NAME "units --instructions lists every instruction of a unit"
  ARGS units --unit mi250x --instructions
  STDOUT "^mi250x\n"
         "\n  v_mfma_f32_4x4x4bf16_1k 4x4x4 \\(16 blocks\\) +bf16 -> fp32, row \\(any\\), block FMA of 4\n"
         "\n  v_mfma_f32_32x32x2bf16 32x32x2 \\(2 blocks\\) +bf16 -> fp32, row bf16-legacy, block FMA of 2\n"
         "\n  v_mfma_f64_4x4x4f64 4x4x4 \\(4 blocks\\) +fp64 -> fp64, row \\(any\\), block FMA of 1\n")
tcsim_check(NAME "units --instructions --json"
  ARGS units --unit rtx5090 --instructions --json
  STDOUT "\"name\": \"mma.sync.m16n8k16\"" "\"block_fma_products\": 16"
         "\"name\": \"mma.sync.mxf4nvf4.m16n8k64\"")

# CDNA3's mixed fp8 names fix each operand's format (fp8_bf8: a e4m3fnuz, b e5m2fnuz); the
# units.md 3b vector with a in bf8 and b in fp8 gives 0x4adffffe (test_isa_instructions.cpp).
tcsim_check(NAME "dot mi300x v_mfma_f32_16x16x32_bf8_fp8"
  ARGS dot --unit mi300x --in-a e5m2fnuz --in-b e4m3fnuz --out fp32 --instruction v_mfma_f32_16x16x32_bf8_fp8
       --a -8192,-0.5,-0.25,-0.125,0,0,0,0,0,0,0,0,0,0,0,0 --b 128,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0 --c 8388608
  STDOUT "^unit mi300x, e5m2fnuz x e4m3fnuz -> fp32, instruction v_mfma_f32_16x16x32_bf8_fp8 \\(16x16x32\\)"
         "\nd += 0x4adffffe ")
tcsim_check(NAME "units --instructions lists the mixed fp8 names with their pair"
  ARGS units --unit mi300x --instructions
  STDOUT "\n  v_mfma_f32_16x16x32_fp8_bf8 16x16x32 \\[e4m3fnuz x e5m2fnuz\\] +e4m3fnuz x e5m2fnuz -> fp32, row \\(any\\), block FMA of 16\n"
         "\n  v_mfma_f32_32x32x16_bf8_fp8.v1 32x32x16 \\[e5m2fnuz x e4m3fnuz\\] +e5m2fnuz x e4m3fnuz -> fp32, row v1, block FMA of 16\n")
