# The bytes counted by the distributed GEMM (tcsim gemm --json under mpirun: "mpi") against the
# model of docs/scale.md, by hand. Per rank of grid row p, column q (m_p rows, n_q columns of D),
# received: the flag "C given" (4 bytes) twice, A's row panel 8 m_p k (but rank 0), B's column
# panel 8 k n_q (but rank 0), for the exact errors its rows/P checked rows of A (8 k each) and
# D (8 n each) and the whole B (8 k n) (but rank 0); rank 0 receives the D blocks and bits
# (16 m_p n_q from each other rank) and the maxima (16 bytes from each).
include(${CMAKE_CURRENT_LIST_DIR}/support/mpi_test.cmake)
if(NOT TCSIM_MPI OR NOT MPIEXEC)
  return()
endif()
function(expect_traffic ranks expected)
  mpi_run(${ranks} out err rc gemm ${ARGN} --json)
  if(NOT rc EQUAL 0)
    mpi_fail("-n ${ranks} ${ARGN}: exit code ${rc} (stderr: ${err})")
  endif()
  string(REGEX MATCH "\"mpi\":{[^}]*}" mpi "${out}")
  if(NOT mpi STREQUAL "${expected}")
    mpi_fail("-n ${ranks} ${ARGN}: counted\n${mpi}\nexpected\n${expected}")
  endif()
  message(STATUS "-n ${ranks}: ${mpi}")
endfunction()
# m 40, n 30, k 20 on 2x1, every row checked. Rank 1: 4 + 8*20*20 + 8*20*30 (B, all columns)
# + 4 + 8*20*20 + 8*20*30 (its 20 checked rows of A and D) + 8*20*30 (B) = 20808 received;
# sent 16*20*30 (D and bits) + 16 = 9616. Rank 0 sent what rank 1 received.
expect_traffic(2 "\"mpi\":{\"bytes_received_per_rank\":[9616,20808],\"bytes_sent_per_rank\":[20808,9616],\"grid\":\"2x1\",\"ranks\":2}"
  --unit v100 --in fp16 --m 40 --n 30 --k 20 --check-rows all)
# m 37, n 53, k 29 on 2x2 (rows 19 and 18, columns 27 and 26; the 37 checked rows 10, 9, 9, 9).
# Rank 3 (p 1, q 1): 4 + 8*18*29 + 8*29*26 + 4 + 8*9*29 + 8*9*53 + 8*29*53 = 28416.
# Rank 1 (p 0, q 1): 4 + 8*19*29 + 8*29*26 + 4 + 8*9*(29 + 53) + 8*29*53 = 28648; rank 2 the same
# (8*18*29 + 8*29*27 = 8*19*29 + 8*29*26). Rank 0: 16*(19*26 + 18*27 + 18*26) + 3*16 = 23216.
# Sent as if from each root: rank 0 the flag to 3 ranks twice, A's rows 18*29 down column 0 and
# 19*29 along row 0, B's columns 29*26 along row 0 and 29*27 down column 0, the 27 error rows of
# A and D, B to 3 ranks: 24 + 8*(18*29 + 19*29 + 29*26 + 29*27 + 27*(29 + 53) + 3*29*53) = 75504;
# rank 1 its B panel down column 1 and its D, bits and maxima: 8*29*26 + 16*19*26 + 16 = 13952;
# rank 2 its A panel along row 1: 8*18*29 + 16*18*27 + 16 = 11968; rank 3 16*18*26 + 16 = 7504.
expect_traffic(4 "\"mpi\":{\"bytes_received_per_rank\":[23216,28648,28648,28416],\"bytes_sent_per_rank\":[75504,13952,11968,7504],\"grid\":\"2x2\",\"ranks\":4}"
  --unit v100 --in fp16 --m 37 --n 53 --k 29 --grid 2x2 --check-rows all)
# tcsim bench gemm under mpirun: the distributed GEMM timed against one rank, its D equal to
# the one-rank D, its bytes those of the model (n 64 on 2x1, no error check: rank 1 receives
# the flag, its 32 rows of A, all of B and its block of C, 4 + 8*32*64 + 8*64*64 + 8*32*64, and
# sends D and bits, 16*32*64).
mpi_run(2 out err rc bench gemm --unit v100 --in fp16 --n 64 --threads 1 --json --quiet)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\"mpi\":{\"bytes_received_per_rank\":\\[32768,65540\\],\"bytes_sent_per_rank\":\\[65540,32768\\],\"d_equal\":true,[^}]*\"grid\":\"2x1\",\"ranks\":2,")
  mpi_fail("bench gemm -n 2: exit code ${rc}, no \"mpi\" object with D equal and the model's bytes:\n${out}\n${err}")
endif()
message(STATUS "bench gemm -n 2: D equal, bytes as the model")
