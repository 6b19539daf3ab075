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

# tcsim_add_tests(<folder> DEPS <targets...>)
# Every <folder>/tests/*.cpp goes into one Catch2 executable tcsim_<folder>_tests;
# each TEST_CASE becomes one ctest test (prefix "<folder>: ").
function(tcsim_add_tests folder)
  if(NOT TCSIM_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tests/*.cpp)
  if(NOT sources)
    return()
  endif()
  add_executable(tcsim_${folder}_tests ${sources} ${PROJECT_SOURCE_DIR}/tests/catch_main.cpp)
  target_include_directories(tcsim_${folder}_tests PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(tcsim_${folder}_tests PRIVATE ${ARG_DEPS} Catch2::Catch2)
  target_compile_definitions(tcsim_${folder}_tests PRIVATE
    TCSIM_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  catch_discover_tests(tcsim_${folder}_tests TEST_PREFIX "${folder}: "
    PROPERTIES ENVIRONMENT "TCSIM_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
endfunction()
