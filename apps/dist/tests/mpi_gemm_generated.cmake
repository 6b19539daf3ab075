# mpirun -n 1..4 tcsim gemm equals tcsim alone bit for bit (D, errors, bounds: --json) on odd
# sizes (37 x 53 x 29: no grid divides them), for the unit's variants, split-K and FABsum, on
# grids 1xP, Px1, 2x2 and the automatic one, with 1 and 2 threads per rank.
include(${CMAKE_CURRENT_LIST_DIR}/support/mpi_test.cmake)
if(NOT TCSIM_MPI OR NOT MPIEXEC)
  return()
endif()
set(size --m 37 --n 53 --k 29)
mpi_same_as_alone(NAME "tc32 (v100 fp16 -> fp32)" RUNS 2:1x2 3:3x1 4:2x2
  ARGS --unit v100 --in fp16 --out fp32 ${size} --dist uniform-11 --seed 5 --threads 1)
mpi_same_as_alone(NAME "tc16 (h100 fp16, 2 threads)" RUNS 2:2x1 4:auto
  ARGS --unit h100 --in fp16 --variant tc16 ${size} --threads 2)
mpi_same_as_alone(NAME "unit (a100 fp64 -> fp64)" RUNS 1:1x1 3:auto
  ARGS --unit a100 --in fp64 --out fp64 --variant unit ${size} --dist normal --threads 1)
mpi_same_as_alone(NAME "split-K 3 (a100 tf32)" RUNS 4:1x4
  ARGS --unit a100 --in tf32 ${size} --split-k 3 --threads 1)
mpi_same_as_alone(NAME "FABsum 8 in fp64 (v100 fp16)" RUNS 2:auto
  ARGS --unit v100 --in fp16 ${size} --fabsum 8 --fabsum-combine fp64 --threads 1)
