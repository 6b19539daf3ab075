# tcsim fit on the real A100 fp16 -> fp32 dump: a row that reproduces every case, written with
# --write-unit and read back by validate-dump --unit-config (0 mismatches); --json holds the row.
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)

# tcsim bench fit: dumps of built-in rows fitted back within the time target, and a spoiled
# dump (1 result in 50 off by one ulp) for which no row fits (the pair search's time limit).
# 15 s: the seeds get 60 % of the limit before the restarts, and the sanitizer build is about
# ten times slower (h100 wgmma e4m3 was not yet exact after 2 s there); the spoiled dump runs to it.
tcsim_check(NAME "bench fit: speed rows"
  ARGS bench fit --cases 1000 --fit-seconds 15 --no-certainty
  EXIT 0
  STDOUT "\na100 fp16 -> fp32 +8 +1000 " "no row fits \\(as made\\)"
         "\n6 rows: 6 as expected \\(exact, or no row for a spoiled dump\\), slowest fit [0-9.]+ s \\(target 120 s\\)")

# The built-in evaluation runs each fit on a work budget by default (100,000,000 cases, the
# path of a quiet 90 s clock for every built-in row), so that its counts do not move with the load.
tcsim_check(NAME "bench fit: the built-in evaluation runs on a work budget"
  ARGS bench fit --evaluate builtin --only "v100 fp16 -> fp16" --check 1000 --json --no-certainty
  EXIT 0
  STDOUT "\"capped\": 0," "\"exact\": 1," "\"fit_budget\": 100000000," "\"not_sure\": 0," "\"sure\": 0,")
# A random row (bench fit --seed 2, random 1) whose dump decides it: called sure, and it agrees
# with the hidden row on the check cases (docs/fit.md, "How sure": no row called sure differed).
tcsim_check(NAME "bench fit: a random row called sure agrees on the check"
  ARGS bench fit --evaluate random --rows 1 --seed 2 --check 20000 --json
  EXIT 0
  STDOUT "\"not_sure\": 0," "\"sure\": 1," "\"sure_differ\": 0\n" "\"agree\": 1,")

tcsim_scratch_dir(dir)

# Outputs (as cli_outputs.cmake for the other commands): --write-unit to a full device is an
# error, not exit 0 with nothing written; the paths of --write-unit and --suggest-dir are checked
# before the search, which would run its whole time limit (an hour here) on a dump no row fits.
set(bad ${CMAKE_CURRENT_LIST_DIR}/bad_inputs)
set(tiny fit --in fp16 --out fp32 --a ${bad}/a.txt --b ${bad}/b.txt --c ${bad}/c.txt)
tcsim_check(NAME "fit: --write-unit /dev/full"
  ARGS ${tiny} --d ${bad}/d.txt --no-certainty --write-unit /dev/full
  EXIT 2 STDOUT "^$"
  STDERR_IS "tcsim fit: error: --write-unit: /dev/full: write failed: No space left on device\n")
file(WRITE ${dir}/d_none.txt "00111111100000000000000000000000\n00111111100000000000000000000000\n")  # 1, 1: no row gives 5, 4
foreach(output "--write-unit;${dir}/missing/row.json;--write-unit: ${dir}/missing/row.json: the folder '${dir}/missing' does not exist"
               "--suggest;5;--suggest-dir;/dev/null/ask;--suggest-dir: /dev/null/ask: cannot create the folder: Not a directory")
  list(POP_BACK output want)
  execute_process(COMMAND "${TCSIM}" ${tiny} --d ${dir}/d_none.txt --seconds 3600 ${output} TIMEOUT 60
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 2 OR NOT err STREQUAL "tcsim fit: error: ${want}\n" OR NOT out STREQUAL "")
    tcsim_fail("fit ${output} before the search: exit ${rc}, stderr '${err}', stdout '${out}'")
  else()
    message(STATUS "ok: fit ${output} refused before the search")
  endif()
endforeach()

set(data "${SOURCE_DIR}/../shared/data/gpu")
if(DEFINED ENV{TCSIM_GPU_DATA})
  set(data "$ENV{TCSIM_GPU_DATA}")
endif()
set(g "${data}/A100/fp16")
if(EXISTS "${g}/d_A100_fp32.txt")
  set(files --a ${g}/a_A100_fp16.txt --b ${g}/b_A100_fp16.txt --c ${g}/c_A100_fp32.txt --d ${g}/d_A100_fp32.txt)
  tcsim_check(NAME "fit: real A100 fp16 -> fp32 reproduced, row written"
    ARGS fit --in fp16 --out fp32 ${files} --write-unit ${dir}/fitted.json
    EXIT 0
    STDOUT "a row reproduces every case" "fraction_bits = 24: decided"
           # How sure: moderate random values cannot decide subnormal results (docs/fit.md).
           "\nhow sure \\(fp16 -> fp32, K = 8\\): NOT sure: the 200 rows that reproduce every case answer [0-9]+ ways"
           "\n  subnormal_outputs true -> false: [1-9][0-9]* of the 8000 mix cases \\([0-9]+ per 10\\^6\\), e\\.g\\. a 0x"
           "\n  to decide: --suggest N --suggest-dir DIR"
           "\ncheck through validate-dump's path: 5000 cases, 0 mismatches\n$")
  tcsim_check(NAME "fit: the written row passes validate-dump"
    ARGS validate-dump --unit-config ${dir}/fitted.json --in fp16 --out fp32 ${files}
    EXIT 0
    STDOUT "\n5000 cases, 0 mismatches\n$")
  # The sanitizer pass (TCSIM_TEST_SCALE < 1) runs the how-sure check once, above: about 16 s
  # each there; its JSON and the --dumps list's two pairs run in the Release pass.
  set(certainty_json "\"certainty\": {\n    \"exact\": true,\n    \"sets\": ." "\"sure\": false" "\"d_fitted\": \"0x")
  set(light)
  if(DEFINED ENV{TCSIM_TEST_SCALE} AND "$ENV{TCSIM_TEST_SCALE}" LESS 1)
    set(certainty_json "\"exact\": true")
    set(light --no-certainty)
  endif()
  tcsim_check(NAME "fit: --json"
    ARGS fit --in fp16 --out fp32 ${files} --json --base v100 ${light}
    EXIT 0
    STDOUT "\"exact\": true" "\"mismatches\": 0" "\"fraction_bits\": 24" ${certainty_json})
  tcsim_check(NAME "fit: --no-certainty leaves the how-sure check out"
    ARGS fit --in fp16 --out fp32 ${files} --no-certainty
    EXIT 0
    STDOUT "a row reproduces every case"
    NOT_OUTPUT "how sure")
  # Two dumps of the unit (both outputs of one run) in one call, as groups and as a --dumps list.
  set(d16 --a ${g}/a_A100_fp16.txt --b ${g}/b_A100_fp16.txt --c ${g}/c_A100_fp32.txt --d ${g}/d_A100_fp16.txt)
  tcsim_check(NAME "fit: two dumps (fp32 and fp16 outputs) give one row"
    ARGS fit --in fp16 --out fp32 --out fp16 ${files} ${d16} --no-certainty
    EXIT 0
    STDOUT "fit fp16 -> fp32, K = 8, 5000 cases\nfit fp16 -> fp16, K = 8, 5000 cases\na row reproduces every case"
           "final_rounding.fp16 = rne: decided\n  not rz: dump 2 case 1: "
           "\ncheck through validate-dump's path: 10000 cases, 0 mismatches\n$")
  file(WRITE ${dir}/dumps.txt "# in out a b c d\nfp16 fp32 ${g}/a_A100_fp16.txt ${g}/b_A100_fp16.txt ${g}/c_A100_fp32.txt ${g}/d_A100_fp32.txt\n"
                              "fp16 fp16 ${g}/a_A100_fp16.txt ${g}/b_A100_fp16.txt ${g}/c_A100_fp32.txt ${g}/d_A100_fp16.txt\n")
  # one how-sure line per format pair
  set(certainty_lines "\nhow sure \\(fp16 -> fp32, K = 8\\): NOT sure: " "\nhow sure \\(fp16 -> fp16, K = 8\\): NOT sure: ")
  if(light)
    set(certainty_lines "a row reproduces every case")
  endif()
  tcsim_check(NAME "fit: the same two dumps from a --dumps list"
    ARGS fit --dumps ${dir}/dumps.txt ${light}
    EXIT 0
    STDOUT "fit fp16 -> fp16, K = 8, 5000 cases\n" "10000 cases, 0 mismatches\n$" ${certainty_lines})
  # --suggest: the cases that split the rows still fitting, as a/b/c files for mma_dump --inputs.
  tcsim_check(NAME "fit: --suggest writes the a/b/c files"
    ARGS fit --in fp16 --out fp32 ${files} --suggest 40 --suggest-dir ${dir}/ask --no-certainty
    EXIT 0
    STDOUT "\nsuggest fp16 -> fp32, K = 8: 40 cases tell the [0-9]+ fitting rows apart into [0-9]+ groups \\(pool 4000\\)\n"
           "wrote ${dir}/ask/a_FIT_fp16.txt\n" "wrote ${dir}/ask/c_FIT_fp32.txt\n")
  file(STRINGS ${dir}/ask/a_FIT_fp16.txt lines)
  list(LENGTH lines n)
  if(NOT n EQUAL 40)
    tcsim_fail("fit --suggest 40: a_FIT_fp16.txt has ${n} lines, expected 40")
  endif()
  # The suggested inputs read back as a dump (d = c here: only the reader is checked).
  tcsim_check(NAME "fit: the suggested files read as a dump"
    ARGS validate-dump --unit a100 --in fp16 --out fp32 --a ${dir}/ask/a_FIT_fp16.txt --b ${dir}/ask/b_FIT_fp16.txt
         --c ${dir}/ask/c_FIT_fp32.txt --d ${dir}/ask/c_FIT_fp32.txt
    EXIT 1
    STDOUT "\n40 cases, [1-9][0-9]* mismatches\n$")
else()
  message(STATUS "real-GPU data not found in ${data}: skipping the fit of a real dump")
endif()
