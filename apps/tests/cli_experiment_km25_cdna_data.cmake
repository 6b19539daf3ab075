# tcsim experiment km25-cdna-multiword --quick beside KM25's data files: every point agrees with
# them to all 7 printed digits. Runs when a copy of
# north-numerical-computing/MATLAB-tensor-core is found ($TCSIM_KM25_DIR, else
# ../shared/MATLAB-tensor-core beside the source tree; a work tree or a git directory), else
# prints SKIPPED (tcsim never ships their data).
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)
tcsim_scratch_dir(dir)

if(DEFINED ENV{TCSIM_KM25_DIR} AND NOT "$ENV{TCSIM_KM25_DIR}" STREQUAL "")
  set(km25 "$ENV{TCSIM_KM25_DIR}")
else()
  get_filename_component(km25 "${SOURCE_DIR}/../shared/MATLAB-tensor-core" ABSOLUTE)
endif()
if(NOT (EXISTS "${km25}/experiments/data" OR EXISTS "${km25}/HEAD"))
  message("SKIPPED: KM25's data files not found in '${km25}' (set TCSIM_KM25_DIR to a clone of north-numerical-computing/MATLAB-tensor-core)")
  return()
endif()
find_program(gnuplot_exe gnuplot)
execute_process(COMMAND python3 -c "import matplotlib" RESULT_VARIABLE py3_rc OUTPUT_QUIET ERROR_QUIET)
execute_process(COMMAND /usr/bin/python3 -c "import matplotlib" RESULT_VARIABLE usr_py3_rc OUTPUT_QUIET ERROR_QUIET)
if(NOT (gnuplot_exe OR py3_rc EQUAL 0 OR usr_py3_rc EQUAL 0))
  message("SKIPPED: no plotting tool (python3-matplotlib or gnuplot) for tcsim experiment")
  return()
endif()
set(ENV{TCSIM_KM25_DIR} "${km25}")

foreach(case "km25-cdna-multiword;147;21")
  list(GET case 0 id)
  list(GET case 1 points)
  list(GET case 2 files)
  tcsim_check(NAME "experiment ${id} --quick beside KM25's data: the matrices are KM25's"
    ARGS experiment ${id} --quick --out ${dir} --json
    STDOUT "\"id\":\"${id}\"" "\"all_hold\":true" "\"claim\":\"the matrices are KM25's: the first point")
  file(READ "${dir}/${id}.md" md)
  if(NOT md MATCHES "${points} of ${points} points \\(${files} files\\) agree with KM25's data to all 7 printed digits")
    tcsim_fail("${id}.md: not every quick point agrees with KM25's data to 7 digits:\n${md}")
  endif()
  file(READ "${dir}/${id}.csv" csv)
  if(NOT csv MATCHES "\"p = 1, KM25 data\",twin,10,")
    tcsim_fail("${id}.csv lacks KM25's points as twins:\n${csv}")
  endif()
endforeach()
