# tcsim monotonicity and tcsim bench verify under mpirun -n 1..4 against tcsim alone: the same
# counts, counterexamples and mismatch lists (timings aside), including a campaign with an
# injected wrong bit on another rank than 0 and runs that start or end inside a group.
include(${CMAKE_CURRENT_LIST_DIR}/support/mpi_sweeps.cmake)
if(NOT TCSIM_MPI OR NOT MPIEXEC)
  return()
endif()
# V100 fp16 -> fp32 is not monotonic: the counterexamples come from the shares of several ranks.
mpi_sweep_same(NAME "monotonicity v100 json" RANKS 1 2 3 4 EXPECT "\"counterexamples_found\":[1-9]"
  ARGS monotonicity --unit v100 --in fp16 --out fp32 --budget 60000 --seed 7 --json --quiet)
# fp8 inputs: the exhaustive search runs too (text output).
mpi_sweep_same(NAME "monotonicity h100 e4m3 text" RANKS 2 3
  ARGS monotonicity --unit h100 --in e4m3 --out fp32 --budget 60000 --quiet)
mpi_sweep_same(NAME "verify json" RANKS 1 2 3 4
  ARGS bench verify --cases 4000 --first 37 --threads 1 --seed 5 --json --quiet)
mpi_sweep_same(NAME "verify text, 2 threads per rank" RANKS 2
  ARGS bench verify --cases 3000 --threads 2 --quiet)
# Case 1234 is in group 19: rank 1 of 2, rank 1 of 3; the report names it as alone.
mpi_sweep_same(NAME "verify injected" RANKS 2 3 CODE 1 EXPECT "MISMATCH [^\n]*\"case\":1234,[^\n]*\nmismatches: 1\n"
  ARGS bench verify --cases 2000 --threads 1 --inject kernel@1234 --quiet)
