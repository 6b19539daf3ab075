# Sizes whose memory need is beyond the machine are refused up front with exit 2 (audit cases
# cli-lu-n-max, cli-gemm-huge-k-only; apps/src/memory_need.hpp). TCSIM_MEMORY_LIMIT stands in for MemAvailable.
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)

set(ENV{TCSIM_MEMORY_LIMIT} 1000000)
tcsim_check(NAME "lu --n 512 under a 1 MB limit is refused before it allocates"
  ARGS lu --unit h100 --n 512 EXIT 2
  STDERR_IS "tcsim lu: error: --n 512 needs about 11.5 MB of memory; 1.0 MB available\n")
set(ENV{TCSIM_MEMORY_LIMIT} 100000000)
tcsim_check(NAME "lu --n 64 under a 100 MB limit runs"
  ARGS lu --unit h100 --n 64 --quiet
  STDOUT "normwise")
set(ENV{TCSIM_MEMORY_LIMIT} 1000000)
tcsim_check(NAME "gemm --k 4096 under a 1 MB limit is refused before it allocates (audit cli-gemm-huge-k-only)"
  ARGS gemm --unit h100 --in fp16 --m 4 --n 4 --k 4096 EXIT 2
  STDERR_IS "tcsim gemm: error: --m 4 --n 4 --k 4096 needs about 2.9 MB of memory; 1.0 MB available\n")
set(ENV{TCSIM_MEMORY_LIMIT} 50000000000)
tcsim_check(NAME "experiment --full (n up to 45000) under a 50 GB limit is refused before it computes"
  ARGS experiment blanchard2020-fig4.2 --full --out ${CMAKE_CURRENT_BINARY_DIR}/memory-need-full EXIT 2
  STDERR_IS "tcsim experiment: error: --full (n up to 45000) needs about 89.1 GB of memory; 50.0 GB available\n")
unset(ENV{TCSIM_MEMORY_LIMIT})
