# Breakdowns under mpirun: detected on the ranks that own the entries, reported once with
# the message, JSON and exit code of tcsim alone, and no rank hangs (60 s per run). n = 13,
# r = 2 (7 blocks) on grids 2x1, 1x3, 2x2:
# - singular.mtx: rows 3 and 4 agree in columns 0..4, so without pivoting ref-rl meets
#   U[4][4] = 0 exactly (stop: exit 1 "pivot ... is zero"; continue: zero pivot, Inf and NaN
#   events, exit 0), and rl through the unit a NaN in the update of step 6;
# - growth.mtx (--scale off): A[0][0] = 1, 300 in the rest of row and column 0: fp16 storage
#   (or dp's fp32 buffer converted to fp16) overflows in step 1 (stop: exit 1; continue: the
#   first Inf and NaN events).
# Algorithms: rl, ref-rl, ll, ll-fp32-panel, ref-ll, dp.
include(${CMAKE_CURRENT_LIST_DIR}/support/mpi_lu_test.cmake)
if(NOT TCSIM_MPI OR NOT MPIEXEC)
  return()
endif()
function(write_matrix path kind)
  set(n 13)
  set(text "%%MatrixMarket matrix array real general\n${n} ${n}\n")
  math(EXPR last "${n} - 1")
  foreach(j RANGE ${last})  # column-major
    foreach(i RANGE ${last})
      set(ii ${i})
      if(kind STREQUAL "singular" AND i EQUAL 4 AND j LESS 5)
        set(ii 3)  # row 4 = row 3 in the leading 5 columns
      endif()
      math(EXPR v "(${ii} * 7 + ${j} * 3) % 11 - 5")
      if(ii EQUAL j)
        math(EXPR v "${v} + 20")
      endif()
      if(kind STREQUAL "growth" AND (i EQUAL 0 OR j EQUAL 0))
        set(v 300)
        if(i EQUAL 0 AND j EQUAL 0)
          set(v 1)
        endif()
      endif()
      string(APPEND text "${v}\n")
    endforeach()
  endforeach()
  file(WRITE "${path}" "${text}")
endfunction()
write_matrix("${WORK_DIR}/singular.mtx" singular)
write_matrix("${WORK_DIR}/growth.mtx" growth)
set(singular --matrix "${WORK_DIR}/singular.mtx" --scale off --r 2 --threads 1)
set(growth --matrix "${WORK_DIR}/growth.mtx" --scale off --r 2 --threads 1)

mpi_lu_same_as_alone(NAME "zero pivot, stop (rl tc32)" RUNS 4:2x2 RC 1
  ARGS --unit v100 ${singular})
mpi_lu_same_as_alone(NAME "zero pivot, stop, text (ref-rl fp32)" RUNS 3:1x3 TEXT RC 1
  ARGS --unit v100 --alg ref-rl --storage fp32 ${singular})
mpi_lu_same_as_alone(NAME "zero pivot, continue (rl tc32)" RUNS 3:1x3 4:2x2
  ARGS --unit v100 ${singular} --on-breakdown continue)
mpi_lu_same_as_alone(NAME "zero pivot, continue, text (ref-rl fp16)" RUNS 2:1x2 TEXT
  ARGS --unit v100 --alg ref-rl --storage fp16 ${singular} --on-breakdown continue)
mpi_lu_same_as_alone(NAME "overflow, stop (rl tc16)" RUNS 2:2x1 RC 1
  ARGS --unit h100 --variant tc16 ${growth})
mpi_lu_same_as_alone(NAME "overflow, continue (rl tc16)" RUNS 3:3x1
  ARGS --unit h100 --variant tc16 ${growth} --on-breakdown continue)
mpi_lu_same_as_alone(NAME "overflow, continue, pivoting (rl fp16)" RUNS 2:1x2
  ARGS --unit h100 --variant fp16 ${growth} --pivot --on-breakdown continue)
mpi_lu_same_as_alone(NAME "zero pivot, continue (ll)" RUNS 4:2x2
  ARGS --unit h100 --alg ll ${singular} --on-breakdown continue)
mpi_lu_same_as_alone(NAME "overflow, stop (ll-fp32-panel)" RUNS 3:1x3 RC 1
  ARGS --unit h100 --alg ll-fp32-panel ${growth})
mpi_lu_same_as_alone(NAME "overflow, continue (ref-ll fp16)" RUNS 2:2x1
  ARGS --unit h100 --alg ref-ll --storage fp16 ${growth} --on-breakdown continue)
mpi_lu_same_as_alone(NAME "overflow, continue (dp rl-fp32)" RUNS 4:2x2
  ARGS --unit h100 --alg dp --s 1 --panel rl-fp32 ${growth} --on-breakdown continue)
mpi_lu_same_as_alone(NAME "pivoting through the zero pivot (rl tc32)" RUNS 4:2x2
  ARGS --unit v100 ${singular} --pivot)
