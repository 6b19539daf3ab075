# tcsim_add_library(<folder> DEPS <targets...>)
# One library per top-level folder: sources are <folder>/src/*.cpp, public headers
# <folder>/include/tcsim/<folder>/*.hpp. Exported as tcsim::<folder>.
function(tcsim_add_library folder)
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp)
  if(NOT sources)  # a folder whose code is still to come
    file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/empty_${folder}.cpp "// no sources yet\n")
    set(sources ${CMAKE_CURRENT_BINARY_DIR}/empty_${folder}.cpp)
  endif()
  add_library(tcsim_${folder} ${sources})
  add_library(tcsim::${folder} ALIAS tcsim_${folder})
  set_target_properties(tcsim_${folder} PROPERTIES EXPORT_NAME ${folder} OUTPUT_NAME tcsim_${folder}
                        POSITION_INDEPENDENT_CODE ON)
  target_compile_features(tcsim_${folder} PUBLIC cxx_std_20)
  target_compile_options(tcsim_${folder} PRIVATE -Wall -Wextra)
  target_include_directories(tcsim_${folder} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(tcsim_${folder} PUBLIC ${ARG_DEPS})
  install(TARGETS tcsim_${folder} EXPORT tcsimTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endfunction()

# tcsim_add_tests(<folder> DEPS <targets...> [PCH <headers...>])
# Every <folder>/tests/*.cpp goes into one Catch2 executable tcsim_<folder>_tests (PCH: more
# headers to precompile, as <path> on the include path);
# each TEST_CASE becomes one ctest test (prefix "<folder>: ").
function(tcsim_add_tests folder)
  if(NOT TCSIM_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "DEPS;PCH" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tests/*.cpp)
  if(NOT sources)
    return()
  endif()
  add_executable(tcsim_${folder}_tests ${sources})
  target_include_directories(tcsim_${folder}_tests PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(tcsim_${folder}_tests PRIVATE ${ARG_DEPS} tcsim_catch_main)
  target_compile_definitions(tcsim_${folder}_tests PRIVATE
    TCSIM_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  # Headers most test sources include, parsed once per test executable instead of once per
  # source (Catch's header alone took 0.8 s of each; docs/testing.md, session 44).
  target_precompile_headers(tcsim_${folder}_tests PRIVATE
    <catch2/catch.hpp> <algorithm> <cmath> <cstdint> <cstdio> <string> <vector> ${ARG_PCH})
  if(TCSIM_SANITIZE)
    # The test sources at -O0 in the sanitizer build (still instrumented; the libraries they
    # test keep -O1): clang 14 takes less than half the CPU on them (test_unit_json.cpp 14.1 s
    # against 6.4 s), and their own work is small beside the libraries' (docs/testing.md).
    target_compile_options(tcsim_${folder}_tests PRIVATE -O0)
  endif()
  # Tests tagged [release-only] run in the Release pass only: the sanitizer pass leaves out the
  # slow ones whose lines the tests it keeps also run (docs/testing.md, session 44).
  set(spec)
  if(TCSIM_SANITIZE)
    set(spec TEST_SPEC "~[.]~[release-only]")  # hidden tests ([.]) stay out, as without a spec
  endif()
  catch_discover_tests(tcsim_${folder}_tests TEST_PREFIX "${folder}: " ${spec}
    PROPERTIES ENVIRONMENT "TCSIM_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
  # The longest tests first under ctest -j (tests/ctest_costs.cmake), after the discovered ones.
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${PROJECT_SOURCE_DIR}/tests/ctest_costs.cmake)
endfunction()

# tcsim_add_fuzzer(<name> SOURCES <files...> DEPS <targets...> [INCLUDES <dirs...>] [SEEDS <dirs...>]
#                  [MAX_LEN <bytes>])
# A libFuzzer target (TCSIM_FUZZ builds only, clang): <folder>/fuzz/<name>.cpp plus SOURCES.
# ctest tests:
#   "fuzz: <name>"              a short run of TCSIM_FUZZ_SECONDS from the committed seed
#                               corpus <folder>/fuzz/corpus/<name> and the SEEDS folders (made
#                               at configure time, e.g. from ../shared/data); new inputs go to
#                               the build tree, never to the source tree;
#   "fuzz: <name> regressions"  every input kept in <folder>/fuzz/regressions/<name>, run once
#                               (each was a crash, hang or sanitizer report, since fixed).
function(tcsim_add_fuzzer name)
  if(NOT TCSIM_FUZZ)
    return()
  endif()
  cmake_parse_arguments(ARG "" "MAX_LEN" "SOURCES;DEPS;INCLUDES;SEEDS" ${ARGN})
  if(NOT ARG_MAX_LEN)
    set(ARG_MAX_LEN 4096)
  endif()
  add_executable(${name} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/${name}.cpp ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS})
  target_include_directories(${name} PRIVATE ${ARG_INCLUDES})
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  set(work ${PROJECT_BINARY_DIR}/fuzz-corpus/${name})
  file(MAKE_DIRECTORY ${work})
  set(corpus ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/${name})
  add_test(NAME "fuzz: ${name}"
           COMMAND ${name} -max_total_time=${TCSIM_FUZZ_SECONDS} -max_len=${ARG_MAX_LEN} -timeout=20 -rss_limit_mb=3072
                   -print_final_stats=1 ${work} ${corpus} ${ARG_SEEDS})
  set_tests_properties("fuzz: ${name}" PROPERTIES TIMEOUT 900 LABELS fuzz COST ${TCSIM_FUZZ_SECONDS})
  file(GLOB regressions CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/regressions/${name}/*)
  if(regressions)
    add_test(NAME "fuzz: ${name} regressions" COMMAND ${name} -timeout=20 ${regressions})
    set_tests_properties("fuzz: ${name} regressions" PROPERTIES TIMEOUT 300 LABELS fuzz)
  endif()
endfunction()

# tcsim_cpu_has_flags(<out-var> <flag>...): TRUE when this x86-64 machine's /proc/cpuinfo lists
# every flag (the build machine runs the tests, so a baseline raised to these is safe there).
function(tcsim_cpu_has_flags out)
  set(${out} FALSE PARENT_SCOPE)
  if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$" OR NOT EXISTS /proc/cpuinfo)
    return()
  endif()
  file(STRINGS /proc/cpuinfo flags_lines REGEX "^flags[ \t]*:" LIMIT_COUNT 1)
  if(NOT flags_lines)
    return()
  endif()
  string(REGEX REPLACE "^flags[ \t]*:" "" flags " ${flags_lines} ")
  foreach(flag ${ARGN})
    if(NOT flags MATCHES " ${flag} ")
      return()
    endif()
  endforeach()
  set(${out} TRUE PARENT_SCOPE)
endfunction()
