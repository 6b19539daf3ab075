# mpirun -n 1..4 tcsim lu equals tcsim alone bit for bit for dp with each PanelFactor (the
# serial schemes replayed pass by pass), with and without pivoting, and for iterative
# refinement on distributed factors (the refinement itself runs on rank 0): the factors,
# --json and text output equal tcsim alone's.
include(${CMAKE_CURRENT_LIST_DIR}/support/mpi_lu_test.cmake)
if(NOT TCSIM_MPI OR NOT MPIEXEC)
  return()
endif()
mpi_lu_same_as_alone(NAME "LU-IR on rl tc32 factors" RUNS 3:auto 4:2x2
  ARGS --unit v100 --n 64 --r 8 --matrix q1dq2 --cond 1e3 --pivot --refine lu-ir --threads 1)
mpi_lu_same_as_alone(NAME "GMRES-IR in fp32 on ref-rl fp16 factors, text" RUNS 2:1x2 TEXT
  ARGS --unit v100 --n 37 --r 4 --alg ref-rl --storage fp16 --matrix tunable --cond 1e4 --refine gmres-ir
       --working fp32 --threads 1)
mpi_lu_same_as_alone(NAME "dp rl-fp32, pivoting, text" RUNS 2:1x2 TEXT
  ARGS --unit v100 --n 37 --r 8 --s 2 --alg dp --panel rl-fp32 --matrix uniform --pivot --threads 1)
mpi_lu_same_as_alone(NAME "dp ll-fp32-panel (default)" RUNS 4:2x2 3:3x1
  ARGS --unit v100 --n 37 --r 8 --s 3 --alg dp --matrix hpl-ai --threads 1)
mpi_lu_same_as_alone(NAME "dp rl-fp16, pivoting" RUNS 4:2x2
  ARGS --unit h100 --n 37 --r 8 --s 3 --alg dp --panel rl-fp16 --matrix uniform --pivot --threads 1)
mpi_lu_same_as_alone(NAME "dp ll, pivoting" RUNS 3:1x3
  ARGS --unit v100 --n 37 --r 8 --s 3 --alg dp --panel ll --matrix normal --pivot --threads 1)
# Deeper chains (k0 up to 48, several block FMAs per update): fails if an update's k order changes.
mpi_lu_same_as_alone(NAME "dp ll-fp32-panel, n = 64" RUNS 2:auto 4:2x2
  ARGS --unit v100 --n 64 --r 16 --s 4 --alg dp --matrix normal --threads 1)
