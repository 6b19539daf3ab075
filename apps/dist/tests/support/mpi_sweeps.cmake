# Helpers of the sweep and campaign MPI tests (mpi_sweeps_*.cmake): a command alone and under
# mpirun must print the same text or JSON (timings aside) and write the same files byte for byte.
include(${CMAKE_CURRENT_LIST_DIR}/mpi_test.cmake)

# Timings out of an output: "seconds" and "cases_per_second" in JSON, "1.2 s" (a decimal point) and
# "123 cases/s" in text.
function(mpi_strip_timings var)
  set(text "${${var}}")
  string(REGEX REPLACE "\"(seconds|cases_per_second)\":[^,}]*" "\"\\1\":T" text "${text}")
  string(REGEX REPLACE "[0-9]+\\.[0-9]+ s" "T s" text "${text}")
  string(REGEX REPLACE "[0-9]+ cases/s" "N cases/s" text "${text}")
  set(${var} "${text}" PARENT_SCOPE)
endfunction()

# mpi_sweep_same(NAME <name> RANKS <n>... [CODE <exit code, default 0>] [FILES <names>...]
#                [EXPECT <regex the output must match>] [TIMEOUT <seconds per run, default 60>]
#                ARGS <tcsim arguments>): tcsim alone, then under mpirun -n <n> for each n, each
# run in its own folder (so that relative output folders have the same name); stdout
# (timings aside) and every file of FILES must equal the run alone's, stderr must be empty.
function(mpi_sweep_same)
  cmake_parse_arguments(T "" "NAME;CODE;EXPECT;TIMEOUT" "RANKS;FILES;ARGS" ${ARGN})
  if(NOT DEFINED T_CODE)
    set(T_CODE 0)
  endif()
  if(NOT DEFINED T_TIMEOUT)
    set(T_TIMEOUT 60)
  endif()
  string(MAKE_C_IDENTIFIER "${T_NAME}" id)
  foreach(ranks 0 ${T_RANKS})
    set(dir "${WORK_DIR}/${id}/n${ranks}")
    file(MAKE_DIRECTORY "${dir}")
    if(ranks EQUAL 0)
      set(cmd "${TCSIM}" ${T_ARGS})
    else()
      set(cmd "${MPIEXEC}" -q --oversubscribe --bind-to none -n ${ranks} "${TCSIM}" ${T_ARGS})
    endif()
    execute_process(COMMAND ${cmd} WORKING_DIRECTORY "${dir}" OUTPUT_VARIABLE out ERROR_VARIABLE err
                    RESULT_VARIABLE rc TIMEOUT ${T_TIMEOUT})
    if(NOT rc EQUAL T_CODE)
      mpi_fail("${T_NAME}, -n ${ranks}: exit code ${rc}, expected ${T_CODE} (stderr: ${err})")
    endif()
    if(NOT err STREQUAL "")
      mpi_fail("${T_NAME}, -n ${ranks}: unexpected stderr: ${err}")
    endif()
    mpi_strip_timings(out)
    if(ranks EQUAL 0)
      set(alone "${out}")
      if(alone STREQUAL "")
        mpi_fail("${T_NAME}: tcsim alone printed nothing")
      endif()
      if(DEFINED T_EXPECT AND NOT alone MATCHES "${T_EXPECT}")
        mpi_fail("${T_NAME}: tcsim alone's output does not match '${T_EXPECT}':\n${alone}")
      endif()
      continue()
    endif()
    if(NOT out STREQUAL alone)
      mpi_fail("${T_NAME}, -n ${ranks}: stdout differs from tcsim alone:\n${out}\nalone:\n${alone}")
    endif()
    foreach(f ${T_FILES})
      execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${WORK_DIR}/${id}/n0/${f}" "${dir}/${f}"
                      RESULT_VARIABLE differ)
      if(NOT differ EQUAL 0)
        mpi_fail("${T_NAME}, -n ${ranks}: ${f} differs from tcsim alone's (${dir})")
      endif()
    endforeach()
    string(REPLACE ";" ", " files "${T_FILES}")
    message(STATUS "${T_NAME}: -n ${ranks}: the same output as tcsim alone (and files: ${files})")
  endforeach()
endfunction()
