# Helpers of the distributed LU tests (apps/dist/tests/mpi_lu_*.cmake), on top of
# mpi_test.cmake (environment, mpi_run, mpi_fail).
include(${CMAKE_CURRENT_LIST_DIR}/mpi_test.cmake)

# mpi_lu_same_as_alone(NAME <name> RUNS <ranks>:<grid> ... ARGS <tcsim lu args> [RC <code>]
#                      [TEXT]): tcsim lu alone, then under mpirun for each run (grid "auto": no
# --grid). The exit code must be RC (default 0) every time; the --write-lu files (factors and
# permutation as bit patterns) identical; stdout (--json, or the text with TEXT) the same but
# for the timings; stderr the same.
function(mpi_lu_same_as_alone)
  cmake_parse_arguments(T "TEXT" "NAME;RC" "RUNS;ARGS" ${ARGN})
  if(NOT DEFINED T_RC)
    set(T_RC 0)
  endif()
  string(MAKE_C_IDENTIFIER "${T_NAME}" dir)
  set(dir "${WORK_DIR}/${dir}")
  file(MAKE_DIRECTORY "${dir}")
  set(mode --json)
  if(T_TEXT)
    set(mode)
  endif()
  mpi_run(0 alone alone_err rc lu ${T_ARGS} ${mode} --quiet --write-lu "${dir}/alone.hex")
  if(NOT rc EQUAL T_RC)
    mpi_fail("${T_NAME}: tcsim alone exited ${rc}, expected ${T_RC}: ${alone_err}")
  endif()
  _mpi_lu_strip_times(alone)
  set(alone_lu "")
  if(EXISTS "${dir}/alone.hex")
    file(READ "${dir}/alone.hex" alone_lu)
  endif()
  foreach(run ${T_RUNS})
    mpi_parse_run("${run}")
    set(what "${T_NAME}, -n ${ranks} --grid ${grid}")
    file(REMOVE "${dir}/n${ranks}-${grid}.hex")
    mpi_run(${ranks} out err rc lu ${T_ARGS} ${grid_args} ${mode} --quiet --write-lu "${dir}/n${ranks}-${grid}.hex")
    if(NOT rc EQUAL T_RC)
      mpi_fail("${what}: exited ${rc}, expected ${T_RC}: ${err}")
    endif()
    _mpi_lu_strip_times(out)
    if(NOT out STREQUAL alone)
      mpi_fail("${what}: stdout differs from tcsim alone:\n${out}\nalone:\n${alone}")
    endif()
    if(NOT err STREQUAL alone_err)
      mpi_fail("${what}: stderr differs from tcsim alone:\n${err}\nalone:\n${alone_err}")
    endif()
    set(lu "")
    if(EXISTS "${dir}/n${ranks}-${grid}.hex")
      file(READ "${dir}/n${ranks}-${grid}.hex" lu)
    endif()
    if(NOT lu STREQUAL alone_lu)
      mpi_fail("${what}: the factors differ from tcsim alone (${dir})")
    endif()
    message(STATUS "${what}: factors, output and exit code ${rc} equal tcsim alone")
  endforeach()
endfunction()

# The timings removed: "phases_per_rank" (first: it holds "seconds" keys), "seconds" in the JSON, "factorized in X s" in the text.
macro(_mpi_lu_strip_times var)
  string(REGEX REPLACE "\"phases_per_rank\":\\[[^]]*\\]," "" ${var} "${${var}}")  # under mpirun only
  string(REGEX REPLACE "\"seconds\":[^,}]*" "" ${var} "${${var}}")
  string(REGEX REPLACE "factorized in [0-9.]+ s" "factorized in _ s" ${var} "${${var}}")
  string(REGEX REPLACE "\"memory\":{[^}]*}," "" ${var} "${${var}}")  # under mpirun only
endmacro()
