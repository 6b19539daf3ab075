# ctest "validation: cuda harness compile check": nvcc compiles mma_dump.cu for sm_80, sm_89,
# sm_90 and, with CUDA 12.8 or newer, sm_120a (the RTX Blackwell ops); skips without nvcc.
# Variables: NVCC, SOURCE, WORK_DIR.
if(NOT NVCC OR NOT EXISTS "${NVCC}")
  message(STATUS "SKIP: no nvcc found (CUDA toolkit); validation/cuda/mma_dump.cu not compile-checked")
  return()
endif()
execute_process(COMMAND "${NVCC}" --version OUTPUT_VARIABLE version)
set(arches -gencode arch=compute_80,code=sm_80 -gencode arch=compute_89,code=sm_89 -gencode arch=compute_90,code=sm_90)
# (Two steps: CMAKE_MATCH_<n> of a MATCHES are not yet set for the rest of the same if().)
string(REGEX MATCH "release ([0-9]+)\\.([0-9]+)" release "${version}")
set(major "${CMAKE_MATCH_1}")
set(minor "${CMAKE_MATCH_2}")
if(release AND (major GREATER 12 OR (major EQUAL 12 AND minor GREATER_EQUAL 8)))
  list(APPEND arches -gencode arch=compute_120a,code=sm_120a)
endif()
execute_process(COMMAND "${NVCC}" -std=c++17 -Werror all-warnings ${arches} -c "${SOURCE}" -o "${WORK_DIR}/mma_dump_check.o"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nvcc failed on mma_dump.cu (${arches}):\n${out}")
endif()
message(STATUS "mma_dump.cu compiles with ${NVCC} (${arches})")
