# ctest "validation: hip harness compile check": compile-checks mfma_dump.hip. With hipcc
# (HIPCC set): the real device code for gfx908, gfx90a and gfx942. Without it: the host C++
# compiler against hip_shim.hpp (a labelled stand-in for the HIP runtime and the MFMA
# builtins: it checks the syntax and the host code, not the device code generation). Skips,
# saying why, when neither can (the shim needs a compiler with _Float16: GCC >= 12 on x86-64).
# Variables: HIPCC, CXX, SOURCE_DIR, WORK_DIR.
if(HIPCC AND EXISTS "${HIPCC}")
  execute_process(COMMAND "${HIPCC}" -std=c++17 --offload-arch=gfx908 --offload-arch=gfx90a --offload-arch=gfx942
                          -c "${SOURCE_DIR}/mfma_dump.hip" -o "${WORK_DIR}/mfma_dump.o"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "hipcc failed on mfma_dump.hip:\n${out}")
  endif()
  message(STATUS "mfma_dump.hip compiles with ${HIPCC} for gfx908, gfx90a, gfx942")
  return()
endif()
file(WRITE "${WORK_DIR}/float16_probe.cpp" "_Float16 h = 1;\nint main() { return static_cast<int>(h) - 1; }\n")
execute_process(COMMAND "${CXX}" -std=c++17 -fsyntax-only "${WORK_DIR}/float16_probe.cpp"
                RESULT_VARIABLE probe OUTPUT_QUIET ERROR_QUIET)
if(NOT probe EQUAL 0)
  message(STATUS "SKIP: no hipcc, and ${CXX} has no _Float16 for the hip_shim.hpp syntax check")
  return()
endif()
execute_process(COMMAND "${CXX}" -std=c++17 -fsyntax-only -Wall -Wextra -Wno-psabi -Werror -x c++
                        -DTCSIM_USE_HIP_SHIM -I "${SOURCE_DIR}" "${SOURCE_DIR}/mfma_dump.hip"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mfma_dump.hip does not compile against hip_shim.hpp with ${CXX}:\n${out}")
endif()
message(STATUS "mfma_dump.hip compiles against hip_shim.hpp with ${CXX} (syntax check only: no hipcc here)")
