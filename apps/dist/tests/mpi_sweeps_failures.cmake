# Failures of the sweeps and campaigns under mpirun: a bad option, an output folder that is a
# file (checked on rank 0 alone), an invalid value met inside a work item on some rank, and an
# injection that hit no result on any rank are each reported once by rank 0 with exit code 2,
# and every rank exits (a hang would hit the 60 s timeout).
include(${CMAKE_CURRENT_LIST_DIR}/support/mpi_test.cmake)
if(NOT TCSIM_MPI OR NOT MPIEXEC)
  return()
endif()
file(WRITE "${WORK_DIR}/a-file" "")
mpi_expect_error(3 2 "tcsim explore: error: --vary: 'foo' is not a parameter; allowed: fraction_bits, carry_bits, fma_size, alignment_rounding, final_rounding, normalization, sticky_bit, product_groups, input_fraction_bits, after_add.sum_fraction_bits, after_add.c_fraction_bits, after_add.renormalize_fraction_bits"
  explore --base v100 --vary foo=1)
mpi_expect_error(2 2 "tcsim explore: error: --out-dir: ${WORK_DIR}/a-file: is a file, not a folder"
  explore --base v100 --vary fraction_bits=20,21 --out-dir "${WORK_DIR}/a-file")
# Design 3 (value 'x') is rank 1's item of 2 and rank 0's of 3.
mpi_expect_error(2 2 "tcsim explore: error: --vary fraction_bits: 'x' is not an integer"
  explore --base v100 --vary fraction_bits=20,21,22,x --workload gemm:k=16,m=2,n=2 --monotonicity-budget 0
  --out-dir "${WORK_DIR}/explore")
mpi_expect_error(3 2 "tcsim explore: error: --vary fraction_bits: 'x' is not an integer"
  explore --base v100 --vary fraction_bits=20,21,22,x --workload gemm:k=16,m=2,n=2 --monotonicity-budget 0
  --out-dir "${WORK_DIR}/explore")
mpi_expect_error(3 2 "tcsim monotonicity: error: option '--budget' for 'tcsim monotonicity' expects an integer in 1..1099511627776, got '0'"
  monotonicity --unit v100 --in fp16 --out fp32 --budget 0)
mpi_expect_error(4 2 "tcsim bench: error: option '--cases' for 'tcsim bench' expects an integer in 1..1000000000000, got '0'"
  bench verify --cases 0)
# Case 832 (group 13: rank 1 of 2 and of 3) is a wide-format case: rank 1 alone could tell.
mpi_expect_error(2 2 "tcsim bench: error: --inject: case 832 has no planar result to flip (the planar check runs on inputs of at most 16 bits only); nothing was injected"
  bench verify --cases 1000 --threads 1 --inject planar@832)
mpi_expect_error(3 2 "tcsim bench: error: --inject: case 832 has no planar result to flip (the planar check runs on inputs of at most 16 bits only); nothing was injected"
  bench verify --cases 1000 --threads 1 --inject planar@832)
mpi_expect_error(3 2 "tcsim experiment: error: --out: ${WORK_DIR}/a-file: is a file, not a folder"
  experiment blanchard2020-fig4.2 --quick --out "${WORK_DIR}/a-file")
mpi_expect_error(2 2 "tcsim experiment: error: experiment 'nosuch' is not known; allowed: blanchard2020-fig3.1, blanchard2020-fig3.2, mary2021-multiword, mary2021-fabsum, mary2024-fig5.1, mary2024-fig5.2, km25-multiword, km25-cdna-multiword, blanchard2020-fig4.2, lopez2022-fig2a, lopez2022-fig3a, lopez2022-fig4a, lopez2022-fig5, units-gemm-accuracy, fasi2021-suite"
  experiment nosuch)
