# tcsim validate-dump on small hand-made dumps (the real-GPU data is checked by the
# validation test suite): counts on the last line, exit 1 on mismatches, errors with
# file:line, and the real H100 files when the data directory is there.
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)

tcsim_scratch_dir(dir)
# V100 fp16 -> fp32, K = 4: 1*1 + 1*1 + 1*1 + 1*1 + c.
file(WRITE "${dir}/a.txt" "3f800000 3f800000 3f800000 3f800000\n3f800000 3f800000 3f800000 3f800000\n")
file(WRITE "${dir}/b.txt" "3f800000 3f800000 3f800000 3f800000\n3f800000 3f800000 3f800000 3f800000\n")
file(WRITE "${dir}/c.txt" "00111111100000000000000000000000\n00000000000000000000000000000000\n")
# 5 and 4 are right; the second dump has 4.5 (wrong) in line 2.
file(WRITE "${dir}/d.txt" "01000000101000000000000000000000\n01000000100000000000000000000000\n")
file(WRITE "${dir}/d_bad.txt" "01000000101000000000000000000000\n01000000100100000000000000000000\n")
file(WRITE "${dir}/a_bad.txt" "3f800000 3f800000 3f800000 3f800000\n3f800000 3f800000 3f800001 3f800000\n")

tcsim_check(NAME "validate-dump: all cases match"
  ARGS validate-dump --unit v100 --in fp16 --out fp32 --a ${dir}/a.txt --b ${dir}/b.txt
       --c ${dir}/c.txt --d ${dir}/d.txt
  EXIT 0
  STDOUT "\n2 cases, 0 mismatches\n$")

tcsim_check(NAME "validate-dump: a mismatch is shown with both patterns and exits 1"
  ARGS validate-dump --unit v100 --in fp16 --out fp32 --a ${dir}/a.txt --b ${dir}/b.txt
       --c ${dir}/c.txt --d ${dir}/d_bad.txt
  EXIT 1
  STDOUT "line 2" "0x40900000" "0x40800000" "\n2 cases, 1 mismatches\n$")

tcsim_check(NAME "validate-dump: --zero-c"
  ARGS validate-dump --unit v100 --in fp16 --out fp32 --a ${dir}/a.txt --b ${dir}/b.txt
       --zero-c --d ${dir}/d.txt
  EXIT 1
  STDOUT "\n2 cases, 1 mismatches\n$")

tcsim_check(NAME "validate-dump: a value the input format cannot hold names file and line"
  ARGS validate-dump --unit v100 --in fp16 --out fp32 --a ${dir}/a_bad.txt --b ${dir}/b.txt
       --c ${dir}/c.txt --d ${dir}/d.txt
  EXIT 2
  STDERR "a_bad.txt:2: " "3f800001")

file(WRITE "${dir}/unit.json" [=[
{"name": "my-v100", "input_formats": ["fp16"], "output_formats": ["fp32", "fp16"],
 "fma_size": 4, "fraction_bits": 23, "carry_bits": 3, "alignment_rounding": "rz",
 "sticky_bit": false, "normalization": "deferred", "order": "largest-first",
 "c_placement": "aligned", "final_rounding": {"fp32": "rz", "fp16": "rne"},
 "subnormal_inputs": true, "subnormal_outputs": true}
]=])
tcsim_check(NAME "validate-dump: a user-defined unit from JSON"
  ARGS validate-dump --unit-config ${dir}/unit.json --in fp16 --out fp32 --a ${dir}/a.txt
       --b ${dir}/b.txt --c ${dir}/c.txt --d ${dir}/d.txt
  EXIT 0
  STDOUT "unit my-v100" "\n2 cases, 0 mismatches\n$")

tcsim_check(NAME "validate-dump: needs c or --zero-c"
  ARGS validate-dump --unit v100 --in fp16 --out fp32 --a ${dir}/a.txt --b ${dir}/b.txt
       --d ${dir}/d.txt
  EXIT 2
  STDERR "zero-c")

tcsim_check(NAME "validate-dump: unsupported format pair"
  ARGS validate-dump --unit v100 --in e4m3 --out fp32 --a ${dir}/a.txt --b ${dir}/b.txt
       --c ${dir}/c.txt --d ${dir}/d.txt
  EXIT 2
  STDERR "v100")

set(data "${SOURCE_DIR}/../shared/data/gpu")
if(DEFINED ENV{TCSIM_GPU_DATA})
  set(data "$ENV{TCSIM_GPU_DATA}")
endif()
if(EXISTS "${data}/H100/E5M2/d_H100_fp32.txt")
  tcsim_check(NAME "validate-dump: real H100 E5M2 -> fp32 (wgmma, c = 0)"
    ARGS validate-dump --unit h100 --in e5m2 --out fp32 --instruction wgmma --zero-c
         --a ${data}/H100/E5M2/a_H100_E5M2.txt --b ${data}/H100/E5M2/b_H100_E5M2.txt
         --d ${data}/H100/E5M2/d_H100_fp32.txt
    EXIT 0
    STDOUT "\n5000 cases, 0 mismatches\n$")
else()
  message(STATUS "real-GPU data not found in ${data}: skipping the real-data check")
endif()

# The real B200 vectors (../shared/data/gpu-vectors): fp8 mma.sync, both formats, both outputs.
set(vectors "${SOURCE_DIR}/../shared/data/gpu-vectors")
if(DEFINED ENV{TCSIM_GPU_VECTORS})
  set(vectors "$ENV{TCSIM_GPU_VECTORS}")
endif()
if(EXISTS "${vectors}/B200/E4M3/d_B200_fp32.txt")
  foreach(fmt E4M3 E5M2)
    string(TOLOWER ${fmt} in)
    set(cases 5)
    if(fmt STREQUAL "E5M2")
      set(cases 9)
    endif()
    set(v "${vectors}/B200/${fmt}")
    foreach(out fp32 fp16)
      tcsim_check(NAME "validate-dump: real B200 ${fmt} -> ${out} vectors (mma.sync emulation)"
        ARGS validate-dump --unit b200 --in ${in} --out ${out} --instruction mma.sync
             --a ${v}/a_B200_${fmt}.txt --b ${v}/b_B200_${fmt}.txt --c ${v}/c_B200_fp32.txt --d ${v}/d_B200_${out}.txt
        EXIT 0
        STDOUT "\n${cases} cases, 0 mismatches\n$")
    endforeach()
  endforeach()
else()
  message(STATUS "real B200 vectors not found in ${vectors}: skipping the B200 checks")
endif()

# Inputs that are not dump files fail fast, naming the file (issue 6).
tcsim_check(NAME "validate-dump: an endless input stops at the line-length limit"
  ARGS validate-dump --unit v100 --in fp16 --out fp32 --a /dev/zero --b ${dir}/b.txt --zero-c --d ${dir}/d.txt
  EXIT 2
  STDERR "/dev/zero:1: line longer than 65536 characters")
tcsim_check(NAME "validate-dump: a directory as a dump file"
  ARGS validate-dump --unit v100 --in fp16 --out fp32 --a ${dir} --b ${dir}/b.txt --zero-c --d ${dir}/d.txt
  EXIT 2
  STDERR "' is a directory; give a dump file" NOT_OUTPUT "holds no cases")
tcsim_check(NAME "validate-dump: --max-report out of range"
  ARGS validate-dump --unit v100 --in fp16 --out fp32 --a ${dir}/a.txt --b ${dir}/b.txt --zero-c --d ${dir}/d.txt
       --max-report -1
  EXIT 2
  STDERR "option '--max-report' for 'tcsim validate-dump' expects an integer in 0..1000000, got '-1'")
