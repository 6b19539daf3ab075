# Issue 22, part 1 (the shared validation layer): behaviours that are not errors, so not rows
# of the catalogue of bad inputs (docs/reliability.md section 3), but that were silently wrong:
# explore reporting "monotonic" for designs never checked, and matrix files from pipes refused.
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)
tcsim_scratch_dir(dir)
set(fixtures "${CMAKE_CURRENT_LIST_DIR}/bad_inputs")

# A matrix file from a pipe (`--a <(cat m.mtx)`, /dev/stdin) is read like a regular file: the
# same D as the file itself.
foreach(where file pipe)
  if(where STREQUAL "file")
    set(a_path "${fixtures}/m2x2.mtx")
    set(feed "")
  else()
    set(a_path "/dev/stdin")
    set(feed COMMAND cat "${fixtures}/m2x2.mtx")
  endif()
  execute_process(${feed} COMMAND "${TCSIM}" gemm --unit h100 --in fp16 --a ${a_path} --b "${fixtures}/m2x2.mtx"
                  --write-d "${dir}/d_${where}.txt" --json
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    tcsim_fail("gemm --a from a ${where} failed (${rc}): ${err}")
  endif()
endforeach()
if(EXISTS "${dir}/d_file.txt" AND EXISTS "${dir}/d_pipe.txt")
  file(READ "${dir}/d_file.txt" d_file)
  file(READ "${dir}/d_pipe.txt" d_pipe)
  if(NOT d_file STREQUAL d_pipe OR d_file STREQUAL "")
    tcsim_fail("gemm --a /dev/stdin (a pipe) gave another D than the file:\n${d_pipe}\nvs\n${d_file}")
  endif()
else()
  tcsim_fail("gemm --write-d wrote no D for the file or the pipe")
endif()
execute_process(COMMAND cat "${fixtures}/m2x2.mtx" COMMAND "${TCSIM}" lu --unit h100 --matrix /dev/stdin --json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\"backward_error")
  tcsim_fail("lu --matrix from a pipe failed (${rc}): ${err}${out}")
endif()

# explore with the monotonicity search skipped says "not checked" (JSON null), never "monotonic".
find_program(gnuplot_exe gnuplot)
execute_process(COMMAND python3 -c "import matplotlib" RESULT_VARIABLE py3_rc OUTPUT_QUIET ERROR_QUIET)
execute_process(COMMAND /usr/bin/python3 -c "import matplotlib" RESULT_VARIABLE usr_py3_rc OUTPUT_QUIET ERROR_QUIET)
if(gnuplot_exe OR py3_rc EQUAL 0 OR usr_py3_rc EQUAL 0)
  tcsim_check(NAME "explore with --monotonicity-budget 0 claims no monotonicity"
    ARGS explore --base v100 --vary fraction_bits=22..23 --workload gemm:k=64,m=2,n=2 --monotonicity-budget 0
         --out-dir ${dir}/explore --json
    STDOUT "\"monotonic\":null"
    NOT_OUTPUT "\"monotonic\":(true|false)")
  if(EXISTS "${dir}/explore/explore.md")
    file(READ "${dir}/explore/explore.md" md)
    if(NOT md MATCHES "\\| not checked \\|" OR md MATCHES "\\| yes \\| [0-9]+ \\|" OR NOT md MATCHES "monotonicity: not checked")
      tcsim_fail("explore.md should say 'not checked' for every design:\n${md}")
    endif()
  else()
    tcsim_fail("explore did not write explore.md")
  endif()
else()
  message(STATUS "explore checks skipped: no plotting tool (python3-matplotlib or gnuplot)")
endif()
