# ctest "install: find_package consumer" (registered by the top-level CMakeLists.txt):
#   cmake -DBUILD_DIR=<tcsim build> -DSOURCE_DIR=<tcsim source> -DWORK_DIR=<scratch>
#         [-DGENERATOR=Ninja] [-DCXX_COMPILER=g++] [-DCONFIG=Release] -P ConsumerTest.cmake
# 1. installs the build into WORK_DIR/prefix (cmake --install),
# 2. checks the installed tree holds the package files, the libraries, the headers and tcsim,
# 3. configures tests/consumer against that prefix only, builds it and runs its tests.
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "ConsumerTest.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT CONFIG)
  set(CONFIG Release)
endif()

set(prefix "${WORK_DIR}/prefix")
set(consumer_build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

function(run_step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer test: ${name} failed (${rc})\n${out}\n${err}")
  endif()
  message(STATUS "consumer test: ${name}: ok")
  set(step_output "${out}${err}" PARENT_SCOPE)
endfunction()

run_step("install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}" --config "${CONFIG}")

# The installed tree: package files, FindMPFR, the exported targets, headers, libraries, CLI.
file(GLOB_RECURSE config_file "${prefix}/*/tcsimConfig.cmake")
if(NOT config_file)
  message(FATAL_ERROR "consumer test: no tcsimConfig.cmake under ${prefix}")
endif()
list(GET config_file 0 config_file)
get_filename_component(package_dir "${config_file}" DIRECTORY)
foreach(f tcsimConfigVersion.cmake tcsimTargets.cmake FindMPFR.cmake)
  if(NOT EXISTS "${package_dir}/${f}")
    message(FATAL_ERROR "consumer test: ${package_dir}/${f} was not installed")
  endif()
endforeach()
foreach(f include/tcsim/sim/format.hpp include/tcsim/models/unit.hpp bin/tcsim)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "consumer test: ${prefix}/${f} was not installed")
  endif()
endforeach()
foreach(lib sim reference models validation)
  file(GLOB_RECURSE found "${prefix}/*libtcsim_${lib}.*")
  if(NOT found)
    message(FATAL_ERROR "consumer test: libtcsim_${lib} was not installed under ${prefix}")
  endif()
endforeach()

# Configure the consumer against the prefix alone: no package registry, no system tcsim.
set(configure_args -S "${SOURCE_DIR}/tests/consumer" -B "${consumer_build}"
    "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_BUILD_TYPE=${CONFIG}"
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
if(GENERATOR)
  list(APPEND configure_args -G "${GENERATOR}")
endif()
if(CXX_COMPILER)
  list(APPEND configure_args "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
endif()
run_step("configure" ${CMAKE_COMMAND} ${configure_args})
string(FIND "${step_output}" "tcsim_DIR: ${package_dir}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "consumer test: find_package(tcsim) did not use ${package_dir}\n${step_output}")
endif()

run_step("build" ${CMAKE_COMMAND} --build "${consumer_build}" --config "${CONFIG}")
get_filename_component(ctest_dir "${CMAKE_COMMAND}" DIRECTORY)
find_program(CTEST_EXE ctest HINTS "${ctest_dir}" NO_DEFAULT_PATH)
if(NOT CTEST_EXE)
  find_program(CTEST_EXE ctest)
endif()
run_step("run" "${CTEST_EXE}" --test-dir "${consumer_build}" -C "${CONFIG}" --output-on-failure)
message(STATUS "consumer test: ${step_output}")
