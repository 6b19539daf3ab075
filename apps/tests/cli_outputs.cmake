# Outputs (issue 22, docs/design.md "Outputs, JSON numbers and progress"): every write is
# checked through the close (a full disk is an error, exit 2, never an empty file and exit 0);
# output paths are checked before any computation; --write-d - cannot share stdout with
# --json; numbers that are not finite are the strings "inf", "-inf", "nan" in every JSON.
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)

tcsim_scratch_dir(dir)
set(small gemm --unit h100 --in fp16 --m 4 --n 3 --k 8)

# --write-d to a full device: the error names the option and the path.
tcsim_check(NAME "--write-d /dev/full"
  ARGS ${small} --write-d /dev/full
  EXIT 2 STDOUT "^$"
  STDERR_IS "tcsim gemm: error: --write-d: /dev/full: write failed: No space left on device\n")

# Standard output on a full device (OUTPUT_FILE /dev/full): the JSON of gemm, dot and a
# text report all fail with exit 2, not 0.
function(stdout_to_full name want_prefix)
  execute_process(COMMAND "${TCSIM}" ${ARGN} OUTPUT_FILE /dev/full ERROR_VARIABLE err RESULT_VARIABLE rc)
  set(want "tcsim ${name}: error: ${want_prefix}standard output: write failed: No space left on device\n")
  if(NOT rc EQUAL 2 OR NOT err STREQUAL want)
    tcsim_fail("stdout to /dev/full: tcsim ${ARGN}: exit ${rc}, stderr '${err}', expected exit 2 and '${want}'")
  else()
    message(STATUS "ok: stdout to /dev/full: ${ARGN}")
  endif()
endfunction()
stdout_to_full(gemm "" ${small} --json)
stdout_to_full(gemm "" ${small})
stdout_to_full(gemm "--write-d: " ${small} --write-d -)
stdout_to_full(dot "" dot --unit v100 --in fp16 --out fp32 --a 1,2 --b 3,4 --c 0 --json)
stdout_to_full(units "" units --json)

# The written D is whole, and --write-d - with --json is refused before computing.
tcsim_check(NAME "--write-d file" ARGS ${small} --write-d ${dir}/D.txt --json STDOUT "\"rows_checked\":4")
file(STRINGS "${dir}/D.txt" d_lines)
list(LENGTH d_lines d_count)
if(NOT d_count EQUAL 4)
  tcsim_fail("--write-d wrote ${d_count} lines, expected 4")
endif()
tcsim_check(NAME "--write-d - with --json"
  ARGS ${small} --json --write-d -
  EXIT 2 STDOUT "^$"
  STDERR_IS "tcsim gemm: error: --write-d -: standard output holds the JSON object (--json); give --write-d a file\n")

# Paths refused before computing: a GEMM of 8192^3 would take minutes, the refusal returns
# at once (TIMEOUT), and nothing is created.
set(big gemm --unit h100 --in fp16 --m 8192 --n 8192 --k 8192)
execute_process(COMMAND "${TCSIM}" ${big} --write-d ${dir}/missing/D.txt TIMEOUT 30
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
if(NOT rc EQUAL 2 OR NOT err STREQUAL
   "tcsim gemm: error: --write-d: ${dir}/missing/D.txt: the folder '${dir}/missing' does not exist\n")
  tcsim_fail("missing folder not refused before computing: exit '${rc}', stderr '${err}'")
elseif(EXISTS "${dir}/missing")
  tcsim_fail("the refused --write-d created '${dir}/missing'")
else()
  message(STATUS "ok: missing --write-d folder refused before computing")
endif()
file(WRITE "${dir}/a_file" "x\n")
execute_process(COMMAND "${TCSIM}" experiment lopez2022-fig3a --out ${dir}/a_file TIMEOUT 30
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err STREQUAL "tcsim experiment: error: --out: ${dir}/a_file: is a file, not a folder\n")
  tcsim_fail("experiment --out a file: exit '${rc}', stderr '${err}'")
endif()
tcsim_check(NAME "explore --out-dir is a file"
  ARGS explore --base v100 --vary fraction_bits=20..21 --out-dir ${dir}/a_file
  EXIT 2 STDERR_IS "tcsim explore: error: --out-dir: ${dir}/a_file: is a file, not a folder\n")
# A missing output folder of explore is created (with its parents), as before.
tcsim_check(NAME "explore --out-dir created"
  ARGS explore --base v100 --vary fraction_bits=20..21 --monotonicity-budget 0 --out-dir ${dir}/new/sweep --json
  STDOUT "\"plot_tool\"")

# Non-finite numbers: fp16 accumulation overflows (60000 * 60000 * 2), D = inf, so both
# errors are +inf: "inf" in the JSON, never null.
file(WRITE "${dir}/big_a.mtx" "%%MatrixMarket matrix array real general\n1 2\n60000\n60000\n")
file(WRITE "${dir}/big_b.mtx" "%%MatrixMarket matrix array real general\n2 1\n60000\n60000\n")
tcsim_check(NAME "gemm JSON inf"
  ARGS gemm --unit v100 --in fp16 --out fp16 --a ${dir}/big_a.mtx --b ${dir}/big_b.mtx --json
  STDOUT "\"componentwise_error\":\"inf\"" "\"normwise_error\":\"inf\""
  NOT_OUTPUT "null")
tcsim_check(NAME "gemm text inf"
  ARGS gemm --unit v100 --in fp16 --out fp16 --a ${dir}/big_a.mtx --b ${dir}/big_b.mtx
  STDOUT "componentwise max [^\n]*= inf ")
tcsim_check(NAME "dot JSON inf"
  ARGS dot --unit v100 --in fp16 --out fp32 --a inf,1 --b 1,1 --c 0 --json
  STDOUT "\"value\":\"inf\"" NOT_OUTPUT "null")

# --check-rows: a sample of a large problem is said, in the text and in the JSON.
tcsim_check(NAME "check-rows sample"
  ARGS gemm --unit h100 --in fp16 --m 64 --n 8 --k 8 --check-rows 4 --json
  STDOUT "\"rows_checked\":4" "\"sampled\":true" "\"checked_rows\":\\[0,21,42,63\\]")
tcsim_check(NAME "check-rows all"
  ARGS gemm --unit h100 --in fp16 --m 64 --n 8 --k 8 --check-rows all
  STDOUT "errors against the exact product \\(MPFR\\), all 64 rows:")
tcsim_check(NAME "check-rows sample text"
  ARGS gemm --unit h100 --in fp16 --m 64 --n 8 --k 8 --check-rows 4
  STDOUT "MPFR\\), 4 of 64 rows, evenly spaced \\(first and last included; --check-rows all checks every row\\):")
