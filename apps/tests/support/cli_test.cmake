# Helpers for the CLI tests: apps/tests/<name>.cmake scripts that run the built tcsim.
#
# apps/CMakeLists.txt registers every apps/tests/*.cmake (not this folder) as the ctest
# "apps: <name>", run as  cmake -DTCSIM=<tcsim executable> -DSOURCE_DIR=<source> -P <script>.
# A test script includes this file and calls tcsim_check once per invocation:
#
#   include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)
#
#   tcsim_check(NAME "dot v100 fp16->fp32"          # shown in failures
#     ARGS dot --unit v100 --in fp16 --out fp32 --a 1,1,1,1 --c 1 --json
#     EXIT 0                                      # expected exit code (default 0)
#     STDOUT "\"d\": *\"0x3f800000\""             # regexes stdout must match (all of them)
#     STDERR "^$"                                 # regexes stderr must match
#     STDERR_IS "tcsim dot: error: ...\n"         # the exact stderr (also STDOUT_IS), no regex;
#                                                 # not empty (an empty stream: STDERR "^$")
#     OUTPUT "3f800000"                           # regexes stdout+stderr must match
#     NOT_OUTPUT "error"                          # regexes stdout+stderr must NOT match
#     STDIN_FILE <file>                           # optional: file fed to stdin
#     WORKING_DIRECTORY <dir>                     # optional
#     OUTPUT_VARIABLE out)                        # optional: stdout for further checks,
#                                                 # e.g. string(JSON v GET "${out}" d)
#
#   tcsim_scratch_dir(dir)      # empty scratch folder for this script (unit JSON, dumps, ...)
#   tcsim_fail("message")       # record a failure of your own check
#
# Regexes are CMake regexes: `.` also matches newlines, ^ and $ anchor the whole text, and
# a literal bracket, dot, plus or parenthesis needs escaping ("\\(" inside a quoted argument).
# A failed check prints the command line, the exit code, stdout and stderr, and lets the
# script go on; the script (hence the ctest) fails at its end if any check failed.
# Every ARGS element is passed to tcsim as one argument, unchanged (no shell).
include_guard(GLOBAL)

if(NOT DEFINED TCSIM)
  message(FATAL_ERROR "run this test with -DTCSIM=<path of the tcsim executable>")
endif()

function(tcsim_fail text)
  message(SEND_ERROR "${text}")
endfunction()

function(tcsim_scratch_dir out_var)
  get_filename_component(script_name "${CMAKE_SCRIPT_MODE_FILE}" NAME_WE)
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/cli-scratch/${script_name}")
  file(REMOVE_RECURSE "${dir}")
  file(MAKE_DIRECTORY "${dir}")
  set(${out_var} "${dir}" PARENT_SCOPE)
endfunction()

function(tcsim_check)
  cmake_parse_arguments(PARSE_ARGV 0 CHK ""
                        "NAME;EXIT;STDIN_FILE;WORKING_DIRECTORY;OUTPUT_VARIABLE;STDOUT_IS;STDERR_IS"
                        "ARGS;STDOUT;STDERR;OUTPUT;NOT_OUTPUT")
  if(CHK_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tcsim_check: unknown arguments: ${CHK_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT DEFINED CHK_EXIT)
    set(CHK_EXIT 0)
  endif()
  if(NOT CHK_NAME)
    string(JOIN " " CHK_NAME ${CHK_ARGS})
  endif()

  set(extra)
  if(CHK_STDIN_FILE)
    list(APPEND extra INPUT_FILE "${CHK_STDIN_FILE}")
  endif()
  if(CHK_WORKING_DIRECTORY)
    list(APPEND extra WORKING_DIRECTORY "${CHK_WORKING_DIRECTORY}")
  endif()
  execute_process(COMMAND "${TCSIM}" ${CHK_ARGS}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err ${extra})
  if(CHK_OUTPUT_VARIABLE)
    set(${CHK_OUTPUT_VARIABLE} "${out}" PARENT_SCOPE)
  endif()

  set(problems)
  if(NOT "${rc}" STREQUAL "${CHK_EXIT}")
    list(APPEND problems "exit code ${rc}, expected ${CHK_EXIT}")
  endif()
  # Exact texts are compared as given (a message with brackets or dots needs no escaping).
  # The expected texts go into the failure report, not into `problems` (a list: they may hold ';').
  set(expected "")
  if(DEFINED CHK_STDOUT_IS AND NOT "${out}" STREQUAL "${CHK_STDOUT_IS}")
    list(APPEND problems "stdout is not the STDOUT_IS text")
    string(APPEND expected "--- expected stdout ---\n${CHK_STDOUT_IS}")
  endif()
  if(DEFINED CHK_STDERR_IS AND NOT "${err}" STREQUAL "${CHK_STDERR_IS}")
    list(APPEND problems "stderr is not the STDERR_IS text")
    string(APPEND expected "--- expected stderr ---\n${CHK_STDERR_IS}")
  endif()
  foreach(re IN LISTS CHK_STDOUT)
    if(NOT "${out}" MATCHES "${re}")
      list(APPEND problems "stdout does not match '${re}'")
    endif()
  endforeach()
  foreach(re IN LISTS CHK_STDERR)
    if(NOT "${err}" MATCHES "${re}")
      list(APPEND problems "stderr does not match '${re}'")
    endif()
  endforeach()
  foreach(re IN LISTS CHK_OUTPUT)
    if(NOT "${out}${err}" MATCHES "${re}")
      list(APPEND problems "output does not match '${re}'")
    endif()
  endforeach()
  foreach(re IN LISTS CHK_NOT_OUTPUT)
    if("${out}${err}" MATCHES "${re}")
      list(APPEND problems "output matches '${re}' but should not")
    endif()
  endforeach()

  string(JOIN " " cmdline "${TCSIM}" ${CHK_ARGS})
  if(problems)
    string(JOIN "\n  - " why ${problems})
    # Plain message() keeps the output as it is (SEND_ERROR would re-wrap the lines).
    message("FAILED: ${CHK_NAME}\n  - ${why}\ncommand: ${cmdline}\n"
            "--- stdout ---\n${out}--- stderr ---\n${err}${expected}--------------")
    message(SEND_ERROR "FAILED: ${CHK_NAME}")
  else()
    message(STATUS "ok: ${CHK_NAME}")
  endif()
endfunction()
