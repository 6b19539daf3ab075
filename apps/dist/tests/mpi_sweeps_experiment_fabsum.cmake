# mary2021-fabsum under mpirun against tcsim alone: each GEMM (plain TC32, fp32, each block size
# and combine) is an item; the CSV, MD, PNG and JSON must be byte for byte those of one process.
# Its own test: the quick mode runs 16 GEMMs with n = 65536 (about 40 s alone on a loaded machine).
include(${CMAKE_CURRENT_LIST_DIR}/support/mpi_sweeps.cmake)
if(NOT TCSIM_MPI OR NOT MPIEXEC)
  return()
endif()
set(ENV{TCSIM_PLOT} gnuplot)  # faster than matplotlib; the plot's bytes are compared all the same
set(id mary2021-fabsum)
mpi_sweep_same(NAME "experiment ${id}" RANKS 2 TIMEOUT 100 FILES out/${id}.csv out/${id}.md out/${id}.png
  ARGS experiment ${id} --quick --out out --json --quiet)
