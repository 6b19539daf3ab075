# tcsim experiment under mpirun against tcsim alone: the same text and JSON and the same CSV,
# MD and PNG byte for byte, for the LU sweep (points spread over the ranks) and a GEMM figure
# (sizes spread). Both have checks that fail at the quick sizes: exit 1 on every rank.
include(${CMAKE_CURRENT_LIST_DIR}/support/mpi_sweeps.cmake)
if(NOT TCSIM_MPI OR NOT MPIEXEC)
  return()
endif()
set(id blanchard2020-fig4.2)
mpi_sweep_same(NAME "experiment ${id}" RANKS 3 CODE 1 FILES out/${id}.csv out/${id}.md out/${id}.png
  ARGS experiment ${id} --quick --threads 1 --out out --quiet)
set(id blanchard2020-fig3.1)
mpi_sweep_same(NAME "experiment ${id}" RANKS 2 CODE 1 FILES out/${id}.csv out/${id}.md out/${id}.png
  ARGS experiment ${id} --quick --threads 1 --out out --json --quiet)
