# tcsim bench verify (docs/reliability.md section 2): the CI run of the differential campaign
# (10^6 cases; TCSIM_TEST_SCALE scales it, as the sanitizer pass does), the same JSON for 1 and
# 2 threads, and mismatches that are found, reported with their inputs and rerun alone.
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)

set(scale 1)
if(DEFINED ENV{TCSIM_TEST_SCALE})
  set(scale "$ENV{TCSIM_TEST_SCALE}")
endif()
set(cases 1000000)
if(NOT scale STREQUAL "1")
  # CMake has integer arithmetic only: scale in thousandths.
  if(scale MATCHES "^0?\\.([0-9]+)$")
    string(SUBSTRING "${CMAKE_MATCH_1}000" 0 3 milli)
    math(EXPR cases "1000000 * ${milli} / 1000")
  endif()
endif()
if(cases LESS 10000)
  set(cases 10000)
endif()

tcsim_check(NAME "bench verify: ${cases} cases, 0 mismatches"
  ARGS bench verify --cases ${cases} --threads 2 --seed 20261123 --json
  STDOUT "\"mismatches\":0" "\"cases\":${cases}[,}]" "\"error\":0" "\"mpfr\":${cases}[,}]"
  OUTPUT_VARIABLE campaign)
message(STATUS "campaign: ${campaign}")

# The same cases on 1 and 2 threads: the same JSON but for the time and the thread count.
foreach(t 1 2)
  tcsim_check(NAME "bench verify on ${t} threads"
    ARGS bench verify --cases 20000 --threads ${t} --seed 7 --json
    STDOUT "\"mismatches\":0"
    OUTPUT_VARIABLE json_${t})
  string(REGEX REPLACE "\"(seconds|cases_per_second|threads)\":[0-9.e+-]+" "" json_${t} "${json_${t}}")
endforeach()
if(NOT json_1 STREQUAL json_2)
  tcsim_fail("bench verify: 1 and 2 threads differ:\n${json_1}\n${json_2}")
endif()

# A wrong bit is caught and reported with what reproduces it.
tcsim_check(NAME "bench verify catches a flipped kernel bit"
  ARGS bench verify --cases 200 --seed 7 --inject kernel@5 --json
  EXIT 1
  STDOUT "\"mismatches\":1[,}]" "\"check\":\"kernel\"" "\"case\":5[,}]" "\"seed\":7[,}]" "\"a\":.\"0x" "\"want\":\"0x"
         "\"rerun\":\"tcsim bench verify --seed 7 --first 5 --cases 1 --json\"")
tcsim_check(NAME "bench verify catches a flipped MPFR-check bit, and the case reruns alone"
  ARGS bench verify --seed 7 --first 130 --cases 1 --inject mpfr@130 --json
  EXIT 1
  STDOUT "\"cases\":1[,}]" "\"mismatches\":1[,}]" "\"check\":\"mpfr\"" "\"case\":130[,}]" "\"rounding\":\"r")
tcsim_check(NAME "bench verify text output lists the mismatch"
  ARGS bench verify --cases 100 --seed 7 --inject planar@3 --threads 1
  EXIT 1
  STDOUT "MISMATCH .*\"check\":\"planar\"" "mismatches: 1\n$")

tcsim_check(NAME "bench verify with a bad --inject"
  ARGS bench verify --cases 10 --inject kernel
  EXIT 2
  STDERR_IS "tcsim bench: error: --inject must be <check>@<case> with check kernel, planar or mpfr and a case index, got 'kernel'\n")
tcsim_check(NAME "bench dot does not take --cases"
  ARGS bench dot --unit h100 --cases 10
  EXIT 2
  STDERR_IS "tcsim bench: error: --cases applies to 'tcsim bench verify' only\n")
