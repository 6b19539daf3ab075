# KM25's multiword experiments under mpirun against tcsim alone: each (line, size) point
# is an item (heaviest first) that draws its matrices at its own place in MATLAB's rng(1) stream
# whatever order its rank runs it in, so the errors, and with them the CSV, MD, PNG and JSON,
# must be byte for byte those of one process.
include(${CMAKE_CURRENT_LIST_DIR}/support/mpi_sweeps.cmake)
if(NOT TCSIM_MPI OR NOT MPIEXEC)
  return()
endif()
set(ENV{TCSIM_PLOT} gnuplot)  # faster than matplotlib; the plot's bytes are compared all the same
set(ids km25-multiword km25-cdna-multiword)
set(rank_counts 2 3)
foreach(id ranks IN ZIP_LISTS ids rank_counts)
  mpi_sweep_same(NAME "experiment ${id}" RANKS ${ranks} FILES out/${id}.csv out/${id}.md out/${id}.png
    ARGS experiment ${id} --quick --threads 1 --out out --json --quiet)
endforeach()
