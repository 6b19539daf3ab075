# Memory per rank (docs/scale.md "Memory per rank"): `tcsim lu --json` and `tcsim gemm --json`
# under mpirun report the model's bytes per rank (checked here against the model computed by
# hand) and each rank's measured peak; a run whose ranks do not fit their node's memory
# (TCSIM_MEMORY_LIMIT stands in for MemAvailable) is refused up front on every rank, reported
# once by rank 0 with the sizes per rank, exit 2; with enough memory the same run goes through.
include(${CMAKE_CURRENT_LIST_DIR}/support/mpi_test.cmake)
if(NOT TCSIM_MPI OR NOT MPIEXEC)
  return()
endif()

# n = 64, r = 8 on 2x1: each rank holds 32 rows (4 blocks of 8) of 64 columns.
#   rank 1: 16 (32 x 64) + 40 (32 x 8 + 8 x 64 + 32 x 64) = 32768 + 112640 = 145408
#   rank 0: the same + 44 x 64^2 = 180224 (what one process holds): 325632
mpi_run(2 out err rc lu --unit v100 --n 64 --r 8 --threads 1 --quiet --json)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\"memory\":{\"bytes_per_rank\":\\[325632,145408\\],\"peak_bytes_per_rank\":\\[[1-9][0-9]+,[1-9][0-9]+\\]}")
  mpi_fail("lu -n 2: exit ${rc}, no memory object with the model's bytes per rank:\n${out}\n${err}")
endif()
string(REGEX MATCH "\"memory\":{[^}]*}" memory "${out}")
message(STATUS "lu -n 2: ${memory}")
# gemm 40 x 30 x 20 on 2x1 (all 40 rows checked): each rank 20 rows of D, all 30 columns.
#   40 (20 x 20 + 20 x 30 + 20 x 30) + 400 x 20 = 72000; the check: 8 x 20 x 30 (B) +
#   8 x 20 (20 + 2 x 30) (its rows) = 17600; rank 0 also 40 (40 x 20 + 20 x 30 + 40 x 30) = 104000.
mpi_run(2 out err rc gemm --unit v100 --in fp16 --m 40 --n 30 --k 20 --threads 1 --json)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\"memory\":{\"bytes_per_rank\":\\[193600,89600\\],\"peak_bytes_per_rank\":\\[[1-9][0-9]+,[1-9][0-9]+\\]}")
  mpi_fail("gemm -n 2: exit ${rc}, no memory object with the model's bytes per rank:\n${out}\n${err}")
endif()
mpi_run(0 out err rc gemm --unit v100 --in fp16 --m 40 --n 30 --k 20 --threads 1 --json)
if(NOT rc EQUAL 0 OR out MATCHES "\"memory\"")
  mpi_fail("gemm alone: exit ${rc}, a memory object (under mpirun only):\n${out}")
endif()

function(expect_refusal ranks expected)
  mpi_run(${ranks} out err rc ${ARGN})
  if(NOT rc EQUAL 2 OR NOT err STREQUAL "${expected}\n" OR NOT out STREQUAL "")
    mpi_fail("-n ${ranks} ${ARGN}: exit ${rc}, stderr\n${err}\nexpected once (exit 2):\n${expected}")
  endif()
  message(STATUS "-n ${ranks}: refused once: ${expected}")
endfunction()
# n = 512, r = 64 on 2x1: rank 1 16 (256 x 512) + 40 (256 x 64 + 64 x 512 + 256 x 512) =
# 9306112 bytes, rank 0 that + 44 x 512^2 = 20840448. Rank 0 alone fits 25 MB; the node's two
# ranks together (30.1 MB) do not.
set(ENV{TCSIM_MEMORY_LIMIT} 25000000)
expect_refusal(2 "tcsim lu: error: --n 512 needs about 20.8 MB of memory on rank 0 and up to 9.3 MB on each other rank (grid 2x1); rank 0's node (2 ranks) needs 30.1 MB; 25.0 MB available"
  lu --unit v100 --n 512 --r 64 --threads 1)
# A 64 x 64 file read by rank 0, r = 8 (325632 and 145408 bytes as above): 0.47 MB for the node.
set(mtx "%%MatrixMarket matrix array real general\n64 64\n")
foreach(j RANGE 63)
  foreach(i RANGE 63)
    if(i EQUAL j)
      string(APPEND mtx "64\n")
    else()
      string(APPEND mtx "1\n")
    endif()
  endforeach()
endforeach()
file(WRITE "${WORK_DIR}/m64.mtx" "${mtx}")
set(ENV{TCSIM_MEMORY_LIMIT} 400000)
expect_refusal(2 "tcsim lu: error: --matrix ${WORK_DIR}/m64.mtx needs about 0.3 MB of memory on rank 0 and up to 0.1 MB on each other rank (grid 2x1); rank 0's node (2 ranks) needs 0.5 MB; 0.4 MB available"
  lu --unit v100 --matrix "${WORK_DIR}/m64.mtx" --r 8 --threads 1 --scale off)
# gemm 4 x 4 x 4096 on 3x1 (rows 2, 1, 1; all 4 checked): rank 1 40 (4096 + 4 x 4096 + 4) +
# 400 x 4096 + 8 x 4096 x 4 + 8 (4096 + 8) = 2621664; rank 0 40 (2 x 4096 + 4 x 4096 + 8) +
# 400 x 4096 + 8 x 4096 x 4 + 8 x 2 (4096 + 8) + 40 (2 x 4 x 4096 + 16) = 4129856.
set(ENV{TCSIM_MEMORY_LIMIT} 1000000)
expect_refusal(3 "tcsim gemm: error: --m 4 --n 4 --k 4096 needs about 4.1 MB of memory on rank 0 and up to 2.6 MB on each other rank (grid 3x1); rank 0's node (3 ranks) needs 9.4 MB; 1.0 MB available"
  gemm --unit h100 --in fp16 --m 4 --n 4 --k 4096 --threads 1)
# An experiment's points: 2 sizes x 4 variants over 2 ranks; each rank holds an n = 1024
# point (44 n^2 bytes).
set(ENV{TCSIM_MEMORY_LIMIT} 50000000)
expect_refusal(2 "tcsim experiment: error: --sizes 512,1024 needs about 46.1 MB of memory on rank 0 and up to 46.1 MB on each other rank; rank 0's node (2 ranks) needs 92.3 MB; 50.0 MB available"
  experiment blanchard2020-fig4.2 --sizes 512,1024 --threads 1 --out "${WORK_DIR}/out" --quiet)
set(ENV{TCSIM_MEMORY_LIMIT} 40000000)
mpi_run(2 out err rc lu --unit v100 --n 512 --r 64 --threads 1 --matrix hpl-ai --quiet)
if(NOT rc EQUAL 0 OR NOT out MATCHES "normwise")
  mpi_fail("lu --n 512 -n 2 under a 40 MB limit: exit ${rc}: ${err}")
endif()
unset(ENV{TCSIM_MEMORY_LIMIT})
