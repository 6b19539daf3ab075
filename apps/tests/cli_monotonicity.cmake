# tcsim monotonicity: V100's non-monotonic case is found (fasi2021 3.1.4), a unit that
# normalizes after every step (A100 fp64) is reported monotonic after the budget, narrow
# inputs are searched exhaustively, and bad options are named.
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)

tcsim_check(NAME "monotonicity finds V100's counterexample"
  ARGS monotonicity --unit v100 --in fp16 --out fp32 --budget 5000 --json
  STDOUT "\"monotonic\":false" "\"search\":\"structured\"" "\"c\":\"0x3f7fffff\"" "\"counterexamples_found\":[1-9]"
         "\"cases_tried\":5000")
tcsim_check(NAME "monotonicity text names the counterexample"
  ARGS monotonicity --unit v100 --in fp16 --out fp32 --budget 2000
  STDOUT "NOT monotonic after 2000 pairs" "counterexample \\(structured search\\)" "x: a = \\[")
tcsim_check(NAME "monotonicity reports a per-step normalized unit monotonic"
  ARGS monotonicity --unit a100 --in fp64 --out fp64 --budget 20000 --json
  STDOUT "\"monotonic\":true" "\"counterexamples\":\\[\\]" "\"cases_tried\":20000")
tcsim_check(NAME "monotonicity searches fp4 inputs exhaustively"
  ARGS monotonicity --unit b200 --in e2m1 --out fp32 --budget 120000 --json
  STDOUT "\"name\":\"exhaustive\",\"pairs\":[1-9][0-9]*" "every nonnegative a, b of e2m1 with k = 2")
tcsim_check(NAME "monotonicity with a zero budget"
  ARGS monotonicity --unit v100 --in fp16 --out fp32 --budget 0
  EXIT 2
  STDERR "'--budget' for 'tcsim monotonicity' expects an integer in 1..")
tcsim_check(NAME "monotonicity on a pair the unit does not serve"
  ARGS monotonicity --unit v100 --in e4m3 --out fp32
  EXIT 2
  STDERR "e4m3")
