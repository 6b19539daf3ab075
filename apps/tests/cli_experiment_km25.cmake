# tcsim experiment km25-multiword --quick without KM25's data files: the experiment runs, its
# checks hold, the report says why there is no comparison, and its first two v100 points are
# KM25's (cli_experiment_km25_cdna.cmake: the AMD twin; cli_experiment_km25_data.cmake compares
# with the files when a copy is found).
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)
tcsim_scratch_dir(dir)

find_program(gnuplot_exe gnuplot)
execute_process(COMMAND python3 -c "import matplotlib" RESULT_VARIABLE py3_rc OUTPUT_QUIET ERROR_QUIET)
execute_process(COMMAND /usr/bin/python3 -c "import matplotlib" RESULT_VARIABLE usr_py3_rc OUTPUT_QUIET ERROR_QUIET)
if(NOT (gnuplot_exe OR py3_rc EQUAL 0 OR usr_py3_rc EQUAL 0))
  message(STATUS "no plotting tool (python3-matplotlib or gnuplot): cli_experiment.cmake checks the message; nothing to run here")
  return()
endif()

set(ENV{TCSIM_KM25_DIR} "${dir}/no-km25-here")
foreach(id km25-multiword)
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
endforeach()

# The first point of KM25's v100 file, from MATLAB's rng(1) stream (MT19937): 2.533386e-05.
file(READ "${dir}/km25-multiword.md" md)
if(NOT md MATCHES "\\| v100 binary16 p = 1 \\| 0 \\| 2[.]533386e-05 \\| 1[.]508825e-04 \\|")
  tcsim_fail("km25-multiword.md does not give KM25's first two v100 points:\n${md}")
endif()
