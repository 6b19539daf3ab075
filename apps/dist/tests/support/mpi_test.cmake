# Helpers of the MPI tests (apps/dist/tests/*.cmake, ctest label mpi). Input: TCSIM (the
# binary), TCSIM_MPI (ON/OFF), MPIEXEC (mpirun), WORK_DIR (scratch).
# The tests skip (ctest SKIP_REGULAR_EXPRESSION "SKIPPED:") when tcsim is built without MPI.
if(NOT TCSIM_MPI OR NOT MPIEXEC)
  message("SKIPPED: tcsim is built without MPI (TCSIM_MPI=${TCSIM_MPI}); install openmpi-bin and "
          "libopenmpi-dev (scripts/setup.sh) and reconfigure")
  return()
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
# Every MPI byte on shared memory and the loopback interface, and root allowed (CI runs as
# root): set here, never taken from the user's environment.
set(ENV{OMPI_ALLOW_RUN_AS_ROOT} 1)
set(ENV{OMPI_ALLOW_RUN_AS_ROOT_CONFIRM} 1)
set(ENV{OMPI_MCA_btl} self,vader)
set(ENV{OMPI_MCA_btl_tcp_if_include} lo)
set(ENV{OMPI_MCA_oob_tcp_if_include} lo)
set(ENV{OMPI_MCA_rmaps_base_oversubscribe} 1)
# A job whose ranks exit non-zero (the tests' error cases) ends at once: mpirun otherwise waits
# its SIGTERM-to-SIGKILL second, whether or not a rank is left, 2.3 s a run instead of 0.3 s.
# Every rank has passed MPI_Finalize, after rank 0's message, when the first one exits.
set(ENV{OMPI_MCA_odls_base_sigkill_timeout} 0)

function(mpi_fail what)
  message(FATAL_ERROR "FAILED: ${what}")
endfunction()

# mpi_strip_launcher_warnings(<err_var>): drops the warnings of mpirun's own event library from
# a captured stderr. It may warn while ranks exit at once (open-mpi/ompi issues 2004 and 5520:
# "[warn] Epoll MOD(1) on fd 27 failed. ... Bad file descriptor"; seen once in session 43's
# clean-clone run, every rank exiting with a usage error): not tcsim's output.
function(mpi_strip_launcher_warnings err_var)
  string(REGEX REPLACE "\\[warn\\] Epoll [^\n]*\n" "" err "${${err_var}}")
  set(${err_var} "${err}" PARENT_SCOPE)
endfunction()

# mpi_run(<ranks> <out_var> <err_var> <rc_var> ARGS...): mpirun -q -n <ranks> tcsim ARGS
# (ranks 0: tcsim alone), 60 s at most (a hang fails the test).
function(mpi_run ranks out_var err_var rc_var)
  if(ranks EQUAL 0)
    set(cmd "${TCSIM}" ${ARGN})
  else()
    # --bind-to none: a rank bound to one core would give TBB one worker (--threads 2 cases).
    set(cmd "${MPIEXEC}" -q --oversubscribe --bind-to none -n ${ranks} "${TCSIM}" ${ARGN})
  endif()
  execute_process(COMMAND ${cmd} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 60)
  mpi_strip_launcher_warnings(err)
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${err_var} "${err}" PARENT_SCOPE)
  set(${rc_var} "${rc}" PARENT_SCOPE)
endfunction()

# mpi_expect_error(<ranks> <code> <expected> ARGS...): tcsim ARGS under mpirun -n <ranks> (0:
# alone) exits with <code> and prints <expected> on stderr exactly once (rank 0 alone reports);
# for usage errors (code 2) stdout stays empty.
function(mpi_expect_error ranks code expected)
  mpi_run(${ranks} out err rc ${ARGN})
  if(NOT rc EQUAL code)
    mpi_fail("-n ${ranks} ${ARGN}: exit code ${rc}, expected ${code} (stderr: ${err})")
  endif()
  if(NOT err STREQUAL "${expected}\n")
    mpi_fail("-n ${ranks} ${ARGN}: stderr is\n${err}\nexpected once:\n${expected}")
  endif()
  if(code EQUAL 2 AND NOT out STREQUAL "")
    mpi_fail("-n ${ranks} ${ARGN}: unexpected stdout: ${out}")
  endif()
  message(STATUS "-n ${ranks}: reported once, exit ${code}: ${expected}")
endfunction()

# mpi_write_mtx(<path> <rows> <cols> <salt> <num_step> <num_mod> <ex_step> <ex_mod>): a Matrix
# Market array (column-major) of varied magnitudes: entry e is
# ((e num_step + salt) mod num_mod - num_mod / 2) e-((e ex_step + salt) mod ex_mod).
function(mpi_write_mtx path rows cols salt num_step num_mod ex_step ex_mod)
  set(text "%%MatrixMarket matrix array real general\n${rows} ${cols}\n")
  math(EXPR last "${rows} * ${cols} - 1")
  math(EXPR half "${num_mod} / 2")
  foreach(e RANGE ${last})
    math(EXPR num "(${e} * ${num_step} + ${salt}) % ${num_mod} - ${half}")
    math(EXPR ex "(${e} * ${ex_step} + ${salt}) % ${ex_mod}")
    string(APPEND text "${num}e-${ex}\n")
  endforeach()
  file(WRITE "${path}" "${text}")
endfunction()

# mpi_parse_run(<ranks>:<grid>): sets ranks, grid and grid_args (--grid <grid>, none for "auto").
macro(mpi_parse_run run)
  string(REPLACE ":" ";" parts "${run}")
  list(GET parts 0 ranks)
  list(GET parts 1 grid)
  set(grid_args)
  if(NOT grid STREQUAL "auto")
    set(grid_args --grid ${grid})
  endif()
endmacro()

# mpi_same_as_alone(NAME <name> RUNS <ranks>:<grid> ... ARGS <tcsim gemm args>): tcsim gemm
# alone, then under mpirun for each run (grid "auto": no --grid); the --write-d files must be
# identical and the --json output the same but for "seconds".
function(mpi_same_as_alone)
  cmake_parse_arguments(T "" "NAME" "RUNS;ARGS" ${ARGN})
  set(dir "${WORK_DIR}/${T_NAME}")
  string(MAKE_C_IDENTIFIER "${dir}" dir)
  set(dir "${WORK_DIR}/${dir}")
  file(MAKE_DIRECTORY "${dir}")
  mpi_run(0 alone err rc gemm ${T_ARGS} --json --write-d "${dir}/alone.hex")
  if(NOT rc EQUAL 0)
    mpi_fail("${T_NAME}: tcsim alone exited ${rc}: ${err}")
  endif()
  string(REGEX REPLACE "\"seconds\":[^,}]*" "" alone "${alone}")
  file(READ "${dir}/alone.hex" alone_d)
  foreach(run ${T_RUNS})
    mpi_parse_run("${run}")
    mpi_run(${ranks} out err rc gemm ${T_ARGS} ${grid_args} --json --write-d "${dir}/n${ranks}-${grid}.hex")
    if(NOT rc EQUAL 0)
      mpi_fail("${T_NAME}, -n ${ranks} --grid ${grid}: exited ${rc}: ${err}")
    endif()
    string(REGEX REPLACE "\"seconds\":[^,}]*" "" out "${out}")
    string(REGEX REPLACE "\"mpi\":{[^}]*}," "" out "${out}")  # under mpirun only
    string(REGEX REPLACE "\"memory\":{[^}]*}," "" out "${out}")  # under mpirun only
    if(NOT out STREQUAL alone)
      mpi_fail("${T_NAME}, -n ${ranks} --grid ${grid}: the JSON differs from tcsim alone:\n${out}\nalone:\n${alone}")
    endif()
    file(READ "${dir}/n${ranks}-${grid}.hex" d)
    if(NOT d STREQUAL alone_d)
      mpi_fail("${T_NAME}, -n ${ranks} --grid ${grid}: D differs from tcsim alone (${dir})")
    endif()
    if(NOT err STREQUAL "")
      mpi_fail("${T_NAME}, -n ${ranks} --grid ${grid}: unexpected stderr: ${err}")
    endif()
    message(STATUS "${T_NAME}: -n ${ranks} --grid ${grid}: D and JSON equal tcsim alone")
  endforeach()
endfunction()
