# tcsim experiment --sizes and --full (the LU experiments at the papers' sizes) under mpirun:
# small --sizes give the same text, JSON, CSV, MD and PNG as tcsim alone (the points spread over
# the ranks); --full is refused up front when the ranks' points do not fit their node
# (TCSIM_MEMORY_LIMIT stands in for MemAvailable), once, exit 2 on every rank.
include(${CMAKE_CURRENT_LIST_DIR}/support/mpi_sweeps.cmake)
if(NOT TCSIM_MPI OR NOT MPIEXEC)
  return()
endif()
set(id blanchard2020-fig4.2)
mpi_sweep_same(NAME "experiment ${id} --sizes" RANKS 2 CODE 1 FILES out/${id}.csv out/${id}.md out/${id}.png
  EXPECT "\\(--sizes 48,80, T s\\)"
  ARGS experiment ${id} --sizes 48,80 --threads 1 --out out --quiet)
set(id lopez2022-fig4a)
mpi_sweep_same(NAME "experiment ${id} --sizes" RANKS 3 CODE 1 FILES out/${id}.csv out/${id}.md out/${id}.png
  EXPECT "\"sizes\":\\[64,96\\]"
  ARGS experiment ${id} --sizes 64,96 --threads 1 --out out --json --quiet)

# --full: 11 sizes x 4 variants over 2 ranks, each rank holds an n = 45000 point: 44 n^2 bytes.
set(ENV{TCSIM_MEMORY_LIMIT} 100000000000)
mpi_run(2 out err rc experiment ${id} --full --threads 1 --out "${WORK_DIR}/full" --quiet)
set(expected "tcsim experiment: error: --full (n up to 50000) needs about 110.0 GB of memory on rank 0 and up to 110.0 GB on each other rank; rank 0's node (2 ranks) needs 220.0 GB; 100.0 GB available\n")
if(NOT rc EQUAL 2 OR NOT err STREQUAL expected OR NOT out STREQUAL "")
  mpi_fail("${id} --full -n 2: exit ${rc}, stderr\n${err}\nexpected once (exit 2):\n${expected}")
endif()
mpi_run(2 out err rc experiment blanchard2020-fig4.2 --full --threads 1 --out "${WORK_DIR}/full" --quiet)
set(expected "tcsim experiment: error: --full (n up to 45000) needs about 89.1 GB of memory on rank 0 and up to 89.1 GB on each other rank; rank 0's node (2 ranks) needs 178.2 GB; 100.0 GB available\n")
if(NOT rc EQUAL 2 OR NOT err STREQUAL expected OR NOT out STREQUAL "")
  mpi_fail("blanchard2020-fig4.2 --full -n 2: exit ${rc}, stderr\n${err}\nexpected once (exit 2):\n${expected}")
endif()
message(STATUS "--full refused once under mpirun -n 2: ${err}")
unset(ENV{TCSIM_MEMORY_LIMIT})
