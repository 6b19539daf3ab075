# tcsim report: example dot products (fasi2021 vectors, bit patterns), the fasi2021 suite and
# the probe of the V100 adder.
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)

tcsim_check(NAME "report: examples, suite and probe"
  ARGS report
  EXIT 0
  STDOUT "3.1.4/no-guard-digit" "d = 0x34000000 \\(0x1p-23\\)" "V100 expectations 40/40 PASS"
         "probe of V100 adder fp16->fp32" "fraction bits F +23" "final rounding +rz"
         "probe of V100 adder fp16->fp16" "final rounding +rne"
  STDERR "^$")

tcsim_check(NAME "report --json"
  ARGS report --json
  EXIT 0
  STDOUT "\"examples\": " "\"fasi2021\": " "\"probe\": "
  OUTPUT_VARIABLE out)
string(JSON f GET "${out}" probe 0 fraction_bits)
if(NOT f EQUAL 23)
  tcsim_fail("probe[0].fraction_bits is '${f}', expected 23")
endif()
