# The experiments split into items after the first ones (docs/scale.md, "What is distributed: the
# sweeps and campaigns") under mpirun against tcsim alone: the same text or JSON (timings aside)
# and the same CSV, MD and PNG byte for byte. fasi2021-suite: one item per unit (its findings
# as texts), on 3 ranks; mary2024: one item per size.
include(${CMAKE_CURRENT_LIST_DIR}/support/mpi_sweeps.cmake)
if(NOT TCSIM_MPI OR NOT MPIEXEC)
  return()
endif()
set(ENV{TCSIM_PLOT} gnuplot)  # faster than matplotlib; the plot's bytes are compared all the same
set(id fasi2021-suite)
mpi_sweep_same(NAME "experiment ${id}" RANKS 3 FILES out/${id}.csv out/${id}.md out/${id}.png
  ARGS experiment ${id} --quick --threads 1 --out out --json --quiet)
foreach(id mary2024-fig5.1 mary2024-fig5.2)
  mpi_sweep_same(NAME "experiment ${id}" RANKS 2 FILES out/${id}.csv out/${id}.md out/${id}.png
    ARGS experiment ${id} --quick --threads 1 --out out --json --quiet)
endforeach()
