# mpirun -n 1..4 tcsim lu equals tcsim alone bit for bit for the left-looking algorithms
# (ll, ll-fp32-panel, ref-ll: L's rows and U's columns gathered for each step's GEMM of depth
# k0) with r = 3 to 8 (a multiple of the unit's block FMA depth or not), with and without
# pivoting, 1 and 2 threads per rank: the factors, --json output equal tcsim alone's.
include(${CMAKE_CURRENT_LIST_DIR}/support/mpi_lu_test.cmake)
if(NOT TCSIM_MPI OR NOT MPIEXEC)
  return()
endif()
mpi_lu_same_as_alone(NAME "ll, pivoting" RUNS 2:2x1 4:2x2 3:1x3
  ARGS --unit v100 --n 37 --r 5 --alg ll --matrix uniform --pivot --threads 1)
mpi_lu_same_as_alone(NAME "ll (h100, 2 threads)" RUNS 4:1x4
  ARGS --unit h100 --n 64 --r 8 --alg ll --matrix hpl-ai --threads 2)
mpi_lu_same_as_alone(NAME "ll-fp32-panel" RUNS 3:auto 4:2x2
  ARGS --unit v100 --n 37 --r 8 --alg ll-fp32-panel --matrix hpl-ai --threads 1)
mpi_lu_same_as_alone(NAME "ll-fp32-panel, pivoting" RUNS 2:1x2
  ARGS --unit a100 --n 37 --r 4 --alg ll-fp32-panel --matrix normal --pivot --threads 1)
mpi_lu_same_as_alone(NAME "ref-ll fp32" RUNS 4:1x4
  ARGS --unit v100 --n 37 --r 4 --alg ref-ll --storage fp32 --matrix normal --threads 1)
mpi_lu_same_as_alone(NAME "ref-ll fp16, pivoting" RUNS 3:3x1
  ARGS --unit v100 --n 37 --r 3 --alg ref-ll --storage fp16 --matrix uniform --pivot --threads 1)
# Deeper chains (k0 up to 48, several block FMAs per update).
mpi_lu_same_as_alone(NAME "ll, n = 64" RUNS 3:auto
  ARGS --unit v100 --n 64 --r 16 --alg ll --matrix normal --threads 1)
