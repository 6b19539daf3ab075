# tcsim lu under mpirun, the failure paths: a bad option, an option that the LU's own checks
# refuse (inside dist::lu, on every rank), --grid against the job (under mpirun and alone),
# breakdowns (dp, ll): each reported once with the exit code
# of tcsim alone, every rank exits (60 s timeout). Then tcsim bench lu under mpirun reports
# the bytes each rank received, and it and tcsim lu each rank's seconds per phase.
include(${CMAKE_CURRENT_LIST_DIR}/support/mpi_lu_test.cmake)
if(NOT TCSIM_MPI OR NOT MPIEXEC)
  return()
endif()
mpi_expect_error(3 2 "tcsim lu: error: option '--n' for 'tcsim lu' expects an integer in 1..32768, got '0'"
  lu --unit v100 --n 0)
mpi_expect_error(2 2 "tcsim lu: error: --s must be between 1 and --r = 8, got 9"
  lu --unit v100 --n 37 --alg dp --r 8 --s 9 --quiet)
mpi_expect_error(3 2 "tcsim lu: error: --grid: '2x2' has 4 processes; the job has 3 (P Q must equal it)"
  lu --unit v100 --n 37 --grid 2x2)
mpi_expect_error(0 2 "tcsim lu: error: --grid: '2x1' has 2 processes; the job has 1 (P Q must equal it)"
  lu --unit v100 --n 37 --grid 2x1)
# dp on [1 300 300; 300 4 4; 300 4 4] (docs/lu.md) meets the zero pivot; ll (r = 1) the
# overflow of the fp32 buffer's conversion.
file(WRITE "${WORK_DIR}/g3.mtx" "%%MatrixMarket matrix array real general\n3 3\n1\n300\n300\n300\n4\n4\n300\n4\n4\n")
mpi_expect_error(2 1 "tcsim lu: LU breakdown at step 3 (block 1): pivot U[2][2] = 0 is zero (no pivoting: try --pivot)"
  lu --unit h100 --matrix "${WORK_DIR}/g3.mtx" --scale off --alg dp --quiet)
mpi_expect_error(3 1 "tcsim lu: LU breakdown at step 2 (block 2): converting the fp32 buffer to fp16 gives A[1][1] = -inf (from -89996)"
  lu --unit h100 --matrix "${WORK_DIR}/g3.mtx" --scale off --alg ll --r 1 --quiet)

# Each rank's seconds per phase (docs/scale.md "Where the time goes"): the exact keys, one
# object per rank; the times themselves are not checked.
set(num "[0-9.e+-]+")
set(rank_phases "{\"cpu_seconds\":${num},\"mpi_fraction\":${num},\"mpi_seconds\":${num},\"seconds\":{\"agreement\":${num},\"convert\":${num},\"diagonal_broadcast\":${num},\"gather_factors\":${num},\"gathers\":${num},\"lu_broadcast\":${num},\"other\":${num},\"panel\":${num},\"panel_broadcast\":${num},\"pivot_search\":${num},\"scatter\":${num},\"solve_u\":${num},\"update\":${num}},\"total_seconds\":${num}}")
mpi_run(4 out err rc bench lu --unit v100 --n 64 --r 8 --threads 1 --quiet --json)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\"bytes_received_per_rank\":\\[[0-9.e+]+,[0-9.e+]+,[0-9.e+]+,[0-9.e+]+\\]"
   OR NOT out MATCHES "\"grid\":\"2x2\""
   OR NOT out MATCHES "\"phases_per_rank\":\\[${rank_phases},${rank_phases},${rank_phases},${rank_phases}\\]")
  mpi_fail("bench lu under mpirun -n 4: exit ${rc}, stdout ${out}, stderr ${err}")
endif()
message(STATUS "bench lu -n 4: ${out}")
mpi_run(2 out err rc lu --unit v100 --n 64 --r 8 --pivot --grid 1x2 --threads 1 --quiet --json)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\"phases_per_rank\":\\[${rank_phases},${rank_phases}\\]")
  mpi_fail("lu under mpirun -n 2: no phases_per_rank of 2 ranks: exit ${rc}, stdout ${out}, stderr ${err}")
endif()
message(STATUS "lu -n 2: phases_per_rank present")
