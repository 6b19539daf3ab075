# mpirun tcsim gemm equals tcsim alone bit for bit with C, A and B from files (rank 0's blocks
# scattered), with row/column scaling (each rank scales whole rows of A and columns of B),
# multiword products and the fp32 variant (no tensor core).
include(${CMAKE_CURRENT_LIST_DIR}/support/mpi_test.cmake)
if(NOT TCSIM_MPI OR NOT MPIEXEC)
  return()
endif()
# Matrix Market arrays (column-major) of odd sizes with varied magnitudes.
mpi_write_mtx("${WORK_DIR}/a.mtx" 37 29 1 37 101 7 9)
mpi_write_mtx("${WORK_DIR}/b.mtx" 29 53 2 37 101 7 9)
mpi_write_mtx("${WORK_DIR}/c.mtx" 37 53 3 37 101 7 9)
set(files --a ${WORK_DIR}/a.mtx --b ${WORK_DIR}/b.mtx --c ${WORK_DIR}/c.mtx)
mpi_same_as_alone(NAME "files A, B, C (h100 bf16, scaling on)" RUNS 4:2x2 2:1x2
  ARGS --unit h100 --in bf16 ${files} --scaling on --threads 1)
mpi_same_as_alone(NAME "files, multiword 2 (v100 fp16)" RUNS 3:1x3
  ARGS --unit v100 --in fp16 ${files} --words 2 --threads 1)
mpi_same_as_alone(NAME "fp32 variant" RUNS 4:4x1
  ARGS --unit a100 --in fp16 --variant fp32 --m 37 --n 53 --k 29 --threads 1)
