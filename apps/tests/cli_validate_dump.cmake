# tcsim validate-dump on small hand-made dumps (the real-GPU data is checked by the
# validation test suite): counts on the last line, exit 1 on mismatches, errors with
# file:line, inputs that are no dump files (exit 2), and the real H100 files and B200
# vectors when their folders are there.
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

# The real B200 vectors (fp8 mma.sync, both formats, both outputs; ../shared/data/gpu-vectors
# or $TCSIM_GPU_VECTORS). b200's default row for fp8 is mma.sync; the option says it anyway.
set(vectors "${SOURCE_DIR}/../shared/data/gpu-vectors")
if(DEFINED ENV{TCSIM_GPU_VECTORS})
  set(vectors "$ENV{TCSIM_GPU_VECTORS}")
endif()
foreach(fmt_cases E4M3:5 E5M2:9)
  string(REPLACE ":" ";" fmt_cases "${fmt_cases}")
  list(GET fmt_cases 0 fmt)
  list(GET fmt_cases 1 cases)
  string(TOLOWER ${fmt} in)
  set(v "${vectors}/B200/${fmt}")
  if(NOT IS_DIRECTORY "${v}")
    message(STATUS "real B200 vectors not found in ${v}: skipping the B200 ${fmt} checks "
                   "(set TCSIM_GPU_VECTORS to the gpu-vectors folder)")
    continue()
  endif()
  foreach(out fp32 fp16)
    set(c_rounding "from the file")
    if(out STREQUAL "fp16")
      set(c_rounding "from the file, rounded to nearest even")
    endif()
    tcsim_check(NAME "validate-dump: real B200 ${fmt} -> ${out} vectors (mma.sync)"
      ARGS validate-dump --unit b200 --in ${in} --out ${out} --instruction mma.sync
           --a ${v}/a_B200_${fmt}.txt --b ${v}/b_B200_${fmt}.txt --c ${v}/c_B200_fp32.txt --d ${v}/d_B200_${out}.txt
      EXIT 0
      STDOUT_IS "unit b200, ${in} -> ${out}, instruction mma.sync, K = 32, c ${c_rounding}\n${cases} cases, 0 mismatches\n"
      STDERR "^$")
  endforeach()
endforeach()

# Inputs that are not dump files fail fast with exit 2, naming the file (issue 6).
tcsim_check(NAME "validate-dump: an endless input stops at the line-length limit"
  ARGS validate-dump --unit v100 --in fp16 --out fp32 --a /dev/zero --b ${dir}/b.txt --zero-c --d ${dir}/d.txt
  EXIT 2
  STDERR_IS "tcsim validate-dump: error: /dev/zero:1: line longer than 65536 characters; a dump line holds one case (K values of 8 hex digits, or 32 characters 0/1)\n")
string(REPEAT "3f800000 " 8000 long_line)  # 72,000 characters
file(WRITE "${dir}/long.txt" "3f800000\n${long_line}\n")
tcsim_check(NAME "validate-dump: a line beyond 64 KiB names the file and line"
  ARGS validate-dump --unit v100 --in fp16 --out fp32 --a ${dir}/a.txt --b ${dir}/b.txt --zero-c --d ${dir}/long.txt
  EXIT 2
  STDERR_IS "tcsim validate-dump: error: ${dir}/long.txt:2: line longer than 65536 characters; a dump line holds one case (K values of 8 hex digits, or 32 characters 0/1)\n")
tcsim_check(NAME "validate-dump: a directory as a dump file"
  ARGS validate-dump --unit v100 --in fp16 --out fp32 --a ${dir} --b ${dir}/b.txt --zero-c --d ${dir}/d.txt
  EXIT 2
  STDERR_IS "tcsim validate-dump: error: '${dir}' is a directory; give a dump file\n")
if(EXISTS /proc/self/mem)
  tcsim_check(NAME "validate-dump: an unreadable dump file"
    ARGS validate-dump --unit v100 --in fp16 --out fp32 --a /proc/self/mem --b ${dir}/b.txt --zero-c --d ${dir}/d.txt
    EXIT 2
    STDERR_IS "tcsim validate-dump: error: cannot read file '/proc/self/mem'\n")
endif()
tcsim_check(NAME "validate-dump: --help states the limits of a dump file"
  ARGS validate-dump --help
  STDOUT "A dump file may hold lines of at most 65536 characters and at most 1 GiB")
tcsim_check(NAME "validate-dump: --max-report out of range"
  ARGS validate-dump --unit v100 --in fp16 --out fp32 --a ${dir}/a.txt --b ${dir}/b.txt --zero-c --d ${dir}/d.txt
       --max-report -1
  EXIT 2
  STDERR_IS "tcsim validate-dump: error: option '--max-report' for 'tcsim validate-dump' expects an integer in 0..1000000, got '-1'\n")
tcsim_check(NAME "validate-dump: --max-report does not wrap"
  ARGS validate-dump --unit v100 --in fp16 --out fp32 --a ${dir}/a.txt --b ${dir}/b.txt --zero-c --d ${dir}/d.txt
       --max-report 18446744073709551617
  EXIT 2
  STDERR_IS "tcsim validate-dump: error: option '--max-report' for 'tcsim validate-dump' expects an integer in 0..1000000, got '18446744073709551617'\n")
