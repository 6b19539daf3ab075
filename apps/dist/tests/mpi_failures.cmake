# Failures under mpirun: a bad option is reported once (rank 0) with exit code 2 and every
# rank exits (a hang would hit the 60 s timeout); an error raised inside the distributed GEMM
# (split-K longer than k) is agreed on by all ranks; --grid is checked against the job alone
# and under mpirun.
include(${CMAKE_CURRENT_LIST_DIR}/support/mpi_test.cmake)
if(NOT TCSIM_MPI OR NOT MPIEXEC)
  return()
endif()
mpi_expect_error(3 2 "tcsim gemm: error: option '--m' for 'tcsim gemm' expects an integer in 1..1048576, got '0'"
  gemm --unit v100 --in fp16 --m 0 --n 5 --k 7)
mpi_expect_error(4 2 "tcsim gemm: error: --split-k must be between 1 and k = 29, got 30 (0 or 1: off)"
  gemm --unit v100 --in fp16 --m 37 --n 53 --k 29 --split-k 30)
mpi_expect_error(3 2 "tcsim gemm: error: --grid: '2x2' has 4 processes; the job has 3 (P Q must equal it)"
  gemm --unit v100 --in fp16 --m 37 --n 53 --k 29 --grid 2x2)
mpi_expect_error(0 2 "tcsim gemm: error: --grid: '1x2' has 2 processes; the job has 1 (P Q must equal it)"
  gemm --unit v100 --in fp16 --m 37 --n 53 --k 29 --grid 1x2)
mpi_expect_error(0 2 "tcsim gemm: error: --grid: '2by2' is not a process grid; allowed: PxQ with P, Q >= 1, e.g. 2x2"
  gemm --unit v100 --in fp16 --m 37 --n 53 --k 29 --grid 2by2)
