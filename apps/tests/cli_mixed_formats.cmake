# Mixed operand formats (issue 24 part 2): --in-a / --in-b beside --in in dot, validate-dump
# and gemm on the rows with mixed_inputs (mi300x fp8_bf8, rtx5090 fp8 mma, b200 tcgen05
# f8f6f4), each operand decoded in its own format; tcsim units shows the pairs' batch paths.
# The refusals are rows of the catalogue (docs/reliability.md, B280-B289).
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)

# The pattern 0x38 is 1.0 in e4m3 and 0.5 in e5m2: 0x38 (e4m3) x 0x38 (e5m2) = 0.5.
tcsim_check(NAME "dot: --in-a e4m3 --in-b e5m2 decodes each operand in its own format"
  ARGS dot --unit rtx5090 --in-a e4m3 --in-b e5m2 --out fp32 --a bits:0x38 --b bits:0x38
  STDOUT "unit rtx5090, e4m3 x e5m2 -> fp32" "d  *= 0x3f000000 ")
tcsim_check(NAME "dot: --in with --in-b (b in its own format)"
  ARGS dot --unit rtx5090 --in e4m3 --in-b e5m2 --out fp32 --a bits:0x38 --b bits:0x38 --json
  STDOUT "\"bits\":\"0x3f000000\"" "\"in\":\"e4m3 x e5m2\"" "\"in_a\":\"e4m3\"" "\"in_b\":\"e5m2\""
         "\"equals_correctly_rounded\":{\"rne\":true")
tcsim_check(NAME "dot: --in alone is both operands (e4m3 x e4m3 = 1)"
  ARGS dot --unit rtx5090 --in e4m3 --out fp32 --a bits:0x38 --b bits:0x38 --json
  STDOUT "\"bits\":\"0x3f800000\"" "\"in\":\"e4m3\"")
tcsim_check(NAME "dot: mi300x bf8 x fp8 (FNUZ: 0x38 is 0.25 in e5m2fnuz, 0.5 in e4m3fnuz)"
  ARGS dot --unit mi300x --in-a e5m2fnuz --in-b e4m3fnuz --out fp32 --a bits:0x38 --b bits:0x38 --json
  STDOUT "\"bits\":\"0x3e000000\"")
tcsim_check(NAME "dot: b200 tcgen05 fp8 x fp4 (448 x 6)"
  ARGS dot --unit b200 --in-a e4m3 --in-b e2m1 --out fp32 --a 448 --b 6 --json
  STDOUT "\"bits\":\"0x45280000\"" "\"instruction\":\"tcgen05\"")

# validate-dump: a in e4m3 (1.125 needs 3 fraction bits), b in e5m2 (57344 is beyond e4m3).
tcsim_scratch_dir(dir)
file(WRITE "${dir}/a.txt" "3f900000\n3f900000\n")
file(WRITE "${dir}/b.txt" "47600000\n47600000\n")
# 1.125 x 57344 = 64512 (0x477c0000); the second line says 64000 (wrong).
file(WRITE "${dir}/d.txt" "01000111011111000000000000000000\n01000111011111000000000000000000\n")
file(WRITE "${dir}/d_bad.txt" "01000111011111000000000000000000\n01000111011110100000000000000000\n")
tcsim_check(NAME "validate-dump: a mixed dump (e4m3 x e5m2)"
  ARGS validate-dump --unit rtx5090 --in-a e4m3 --in-b e5m2 --out fp32 --a ${dir}/a.txt --b ${dir}/b.txt --zero-c
       --d ${dir}/d.txt
  STDOUT "unit rtx5090, e4m3 x e5m2 -> fp32" "\n2 cases, 0 mismatches\n$")
tcsim_check(NAME "validate-dump: a mixed dump's mismatch shows b in its own format"
  ARGS validate-dump --unit rtx5090 --in-a e4m3 --in-b e5m2 --out fp32 --a ${dir}/a.txt --b ${dir}/b.txt --zero-c
       --d ${dir}/d_bad.txt
  EXIT 1
  STDOUT "0x7b" "\n2 cases, 1 mismatches\n$")
tcsim_check(NAME "validate-dump: the same b file in e4m3 is refused (57344 is beyond e4m3)"
  ARGS validate-dump --unit rtx5090 --in e4m3 --out fp32 --a ${dir}/a.txt --b ${dir}/b.txt --zero-c --d ${dir}/d.txt
  EXIT 2
  STDERR "not representable in e4m3")

# gemm: the fast kernel on rtx5090, after-add on mi300x (c after; issue 25), both named.
tcsim_check(NAME "gemm: --in-a e4m3 --in-b e5m2 on rtx5090 (kernel path)"
  ARGS gemm --unit rtx5090 --in-a e4m3 --in-b e5m2 --m 8 --n 8 --k 64 --dist uniform-11 --seed 3 --json
  STDOUT "\"in\":\"e4m3 x e5m2\"" "\"in_b\":\"e5m2\"" "\"path\":\"kernel\"")
tcsim_check(NAME "gemm: mi300x fp8_bf8 (after-add path)"
  ARGS gemm --unit mi300x --in-a e4m3fnuz --in-b e5m2fnuz --m 4 --n 4 --k 32 --dist uniform-11 --seed 3 --json
  STDOUT "\"in\":\"e4m3fnuz x e5m2fnuz\"" "\"path\":\"after-add \\(lanes\\)\"")

# tcsim units: the mixed pairs and their batch paths.
tcsim_check(NAME "units: the mixed pairs of a row and their batch path"
  ARGS units --unit rtx5090
  STDOUT "mixed_inputs" "mixed a x b e4m3 x e5m2, e5m2 x e4m3: batch path: kernel")
tcsim_check(NAME "units --json: the mixed pairs' batch paths"
  ARGS units --unit mi300x --json
  STDOUT "\"mixed_inputs\": true" "\"e4m3fnuz x e5m2fnuz->fp32\": \"after-add \\(lanes\\)\"")

# Block-scaled kind::mxf8f6f4 with a mixed pair, each operand with its own scales:
# 448 (e4m3) * 2^-3 times 6 (e2m1) * 4 = 1344 (0x44a80000), the exact value, so RZ = RNE.
tcsim_check(NAME "dot: b200 tcgen05.mxf8f6f4 e4m3 x e2m1 with each operand's scales"
  ARGS dot --unit b200 --instruction tcgen05.mxf8f6f4 --in-a e4m3 --in-b e2m1 --out fp32 --a 448 --b 6
       --scale-format ue8m0 --scale-a 0x1p-3 --scale-b 4 --json
  STDOUT "\"bits\":\"0x44a80000\"" "\"in\":\"e4m3 x e2m1\"" "\"equals_correctly_rounded\":{\"rne\":true")
# rtx5090: 0x38 is 1.0 in e4m3 and 0.5 in e5m2; scales 2 and 8: 8 (0x41000000).
tcsim_check(NAME "dot: rtx5090 mma.sync.mxf8f6f4 e5m2 x e4m3 with scales"
  ARGS dot --unit rtx5090 --in-a e5m2 --in-b e4m3 --out fp32 --a bits:0x38 --b bits:0x38
       --scale-format ue8m0 --scale-a 2 --scale-b 8
  STDOUT "unit rtx5090, e5m2 x e4m3 -> fp32, instruction mma.sync.mxf8f6f4" "d  *= 0x41000000 ")
