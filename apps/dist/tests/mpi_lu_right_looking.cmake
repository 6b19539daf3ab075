# mpirun -n 1..4 tcsim lu equals tcsim alone bit for bit (the factors and permutation of
# --write-lu, the --json output with the backward errors) for the distributed algorithms: rl
# in every variant and storage and ref-rl in every storage, with and without pivoting, on
# grids 1xP, Px1, 2x2 and the automatic one, n = 37, 64, 100 with small r (P not dividing the
# blocks: n = 37, r = 4 has 10 blocks; n = 100, r = 8 has 13).
include(${CMAKE_CURRENT_LIST_DIR}/support/mpi_lu_test.cmake)
if(NOT TCSIM_MPI OR NOT MPIEXEC)
  return()
endif()
mpi_lu_same_as_alone(NAME "rl tc32, pivoting (v100)" RUNS 1:1x1 2:1x2 3:3x1 4:2x2
  ARGS --unit v100 --n 37 --r 4 --matrix uniform --seed 3 --pivot --threads 1)
mpi_lu_same_as_alone(NAME "rl tc32, no pivoting, text (v100)" RUNS 2:2x1 3:1x3 TEXT
  ARGS --unit v100 --n 64 --r 8 --matrix q1dq2 --cond 1e2 --threads 1)
mpi_lu_same_as_alone(NAME "rl tc16 fp16 storage, pivoting (h100, 2 threads)" RUNS 4:auto 3:3x1
  ARGS --unit h100 --n 100 --r 8 --matrix normal --variant tc16 --pivot --threads 2)
mpi_lu_same_as_alone(NAME "rl tc32 fp16 storage (v100)" RUNS 4:4x1 2:auto
  ARGS --unit v100 --n 37 --r 4 --matrix hpl-ai --storage fp16 --variant tc32 --threads 1)
mpi_lu_same_as_alone(NAME "rl fp16 variant, pivoting (a100)" RUNS 3:auto 4:1x4
  ARGS --unit a100 --n 37 --r 5 --matrix uniform --variant fp16 --pivot --threads 1)
mpi_lu_same_as_alone(NAME "rl fp32 variant (a100 tf32)" RUNS 2:1x2 4:2x2
  ARGS --unit a100 --in tf32 --n 64 --r 16 --matrix tunable --cond 1e3 --variant fp32 --threads 1)
mpi_lu_same_as_alone(NAME "ref-rl fp64, pivoting" RUNS 3:3x1 4:2x2
  ARGS --unit v100 --n 37 --r 4 --alg ref-rl --matrix normal --pivot --threads 1)
mpi_lu_same_as_alone(NAME "ref-rl fp16" RUNS 2:2x1 3:1x3
  ARGS --unit v100 --n 37 --r 3 --alg ref-rl --storage fp16 --matrix hpl-ai --threads 1)
