# The KM25 experiment tests (cli_experiment_km25*.cmake), each run for km25-multiword (NVIDIA)
# and km25-cdna-multiword (AMD).
include(${CMAKE_CURRENT_LIST_DIR}/cli_test.cmake)

# km25_without_data_check(<id> <first points regex> <what>): `tcsim experiment <id> --quick`
# with TCSIM_KM25_DIR pointing nowhere: the checks hold, the outputs exist, the report says
# why there is no comparison, the CSV holds tcsim's points alone, and the .md's first line of
# points matches <first points regex> (KM25's first points from MATLAB's rng(1) stream).
function(km25_without_data_check id first_points what)
  tcsim_scratch_dir(dir)
  find_program(gnuplot_exe gnuplot)
  execute_process(COMMAND python3 -c "import matplotlib" RESULT_VARIABLE py3_rc OUTPUT_QUIET ERROR_QUIET)
  execute_process(COMMAND /usr/bin/python3 -c "import matplotlib" RESULT_VARIABLE usr_py3_rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT (gnuplot_exe OR py3_rc EQUAL 0 OR usr_py3_rc EQUAL 0))
    message(STATUS "no plotting tool (python3-matplotlib or gnuplot): cli_experiment.cmake checks the message; nothing to run here")
    return()
  endif()

  set(ENV{TCSIM_KM25_DIR} "${dir}/no-km25-here")
  tcsim_check(NAME "experiment ${id} --quick without KM25's data: checks hold, JSON"
    ARGS experiment ${id} --quick --out ${dir} --json
    STDOUT "\"id\":\"${id}\"" "\"all_hold\":true" "\"claim\":\"more words are more accurate"
           "\"claim\":\"every p = 1 error is below matmul_test.m's bound")
  foreach(ext csv png md)
    if(NOT EXISTS "${dir}/${id}.${ext}")
      tcsim_fail("experiment did not write ${id}.${ext}")
    endif()
  endforeach()
  file(READ "${dir}/${id}.md" md)
  if(NOT md MATCHES "KM25's data files were not found in '[^']*/no-km25-here' \\(set TCSIM_KM25_DIR to a clone of north-numerical-computing/MATLAB-tensor-core, a work tree or a git directory\\): the comparison with them is skipped")
    tcsim_fail("${id}.md does not say why there is no comparison:\n${md}")
  endif()
  file(READ "${dir}/${id}.csv" csv)
  if(csv MATCHES "KM25 data" OR NOT csv MATCHES "^panel,series,kind,n,[^\n]*\n\"[a-z0-9]+, binary16 in, binary32 out\",\"p = 1\",measured,10,")
    tcsim_fail("${id}.csv does not hold tcsim's points alone, panel by panel:\n${csv}")
  endif()
  if(NOT md MATCHES "${first_points}")
    tcsim_fail("${id}.md does not give KM25's first ${what} points:\n${md}")
  endif()
endfunction()

# km25_data_check(<id> <points> <files>): `tcsim experiment <id> --quick` beside KM25's data
# files: every point agrees with them to all 7 printed digits (the .md reports <points> of
# <points> points in <files> files). Returns early (SKIPPED) without a copy of
# north-numerical-computing/MATLAB-tensor-core ($TCSIM_KM25_DIR, else
# ../shared/MATLAB-tensor-core beside the source tree; a work tree or a git directory: tcsim
# never ships their data) or without a plotting tool.
function(km25_data_check id points files)
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
endfunction()
