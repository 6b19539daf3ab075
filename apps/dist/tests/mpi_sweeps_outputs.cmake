# tcsim explore under mpirun -n 2, 3, 4 against tcsim alone: the same text and JSON and the same
# explore.csv, explore.md and explore.png byte for byte (designs spread over the ranks,
# invalid designs are refused up front, before any rank works).
include(${CMAKE_CURRENT_LIST_DIR}/support/mpi_sweeps.cmake)
if(NOT TCSIM_MPI OR NOT MPIEXEC)
  return()
endif()
set(files out/explore.csv out/explore.md out/explore.png)
mpi_sweep_same(NAME "explore json" RANKS 2 4 FILES ${files}
  ARGS explore --base v100 --vary fraction_bits=20..22 --vary fma_size=2,4,8 --workload gemm:k=64,m=4,n=4
       --monotonicity-budget 300 --threads 1 --out-dir out --json --quiet)
mpi_sweep_same(NAME "explore text" RANKS 3 FILES ${files}
  ARGS explore --base v100 --vary carry_bits=0..2 --vary alignment_rounding=rz,rne --workload gemm:k=32,m=2,n=3,dist=uniform-11
       --monotonicity-budget 0 --threads 1 --out-dir out --quiet)
