# Progress on stderr (issue 22, apps/src/progress.hpp): off a terminal, plain lines
# "tcsim <cmd>: <phase>: P% ... after S s", only after TCSIM_PROGRESS_AFTER seconds (default 2)
# and at most every TCSIM_PROGRESS_INTERVAL seconds (default 5); the knobs set to 0 make a
# short test run print them. Nothing with --quiet, nothing by default for short runs (every
# other CLI test checks exact outputs of short runs).
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)

tcsim_scratch_dir(dir)

# Runs tcsim with the progress knobs at 0; checks exit 0 and stderr against `re` (or empty).
function(progress_check name re)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env TCSIM_PROGRESS_AFTER=0 TCSIM_PROGRESS_INTERVAL=0 "${TCSIM}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    tcsim_fail("${name}: exit ${rc}\n${err}")
  elseif(re STREQUAL "" AND NOT err STREQUAL "")
    tcsim_fail("${name}: stderr should be empty, got:\n${err}")
  elseif(NOT re STREQUAL "" AND NOT err MATCHES "${re}")
    tcsim_fail("${name}: stderr does not match '${re}':\n${err}")
  else()
    message(STATUS "ok: ${name}")
  endif()
endfunction()

set(gemm gemm --unit h100 --in fp16 --m 256 --n 64 --k 64)
progress_check("gemm: simulation and MPFR check"
  "tcsim gemm: simulating the GEMM: 25% \\(1/4\\) after [0-9.]+ s\n.*tcsim gemm: simulating the GEMM: 100% \\(4/4\\) after [0-9.]+ s\n.*tcsim gemm: exact errors \\(MPFR\\): [0-9]+% \\([0-9]+/256\\) after [0-9.]+ s\n"
  ${gemm})
progress_check("gemm --json: progress on stderr, JSON alone on stdout" "tcsim gemm: exact errors \\(MPFR\\)" ${gemm} --json)
progress_check("gemm --quiet" "" ${gemm} --quiet)
progress_check("lu" "tcsim lu: simulated LU: [0-9]+% after [0-9.]+ s\n.*tcsim lu: substitutions and backward errors"
  lu --unit v100 --n 128 --r 32)
progress_check("lu --quiet" "" lu --unit v100 --n 128 --r 32 --quiet)
progress_check("explore" "tcsim explore: designs: 50% \\(1/2\\) after"
  explore --base v100 --vary fraction_bits=20..21 --monotonicity-budget 0 --out-dir ${dir}/explore)
progress_check("monotonicity" "tcsim monotonicity: pairs x <= y: [0-9]+% \\(4096/20000\\)"
  monotonicity --unit v100 --in fp16 --out fp32 --budget 20000)
progress_check("bench verify" "tcsim bench verify: cases: [0-9]+% \\([0-9]+/2000\\)" bench verify --cases 2000)
progress_check("bench verify --quiet" "" bench verify --cases 2000 --quiet)

# tcsim fit (the catalogue's 2-case fp16 dump): the search's share of its limit, the check through
# validate-dump's path and the how-sure check per format pair; nothing with --quiet.
set(bad ${CMAKE_CURRENT_LIST_DIR}/bad_inputs)
set(fit fit --in fp16 --out fp32 --a ${bad}/a.txt --b ${bad}/b.txt --c ${bad}/c.txt --d ${bad}/d.txt)
# The how-sure check takes about 30 s under the sanitizers: there its line is left to the Release pass.
set(how_sure ".*tcsim fit: how sure: the fitting rows on fresh cases, per format pair: 100% \\(1/1\\) after [0-9.]+ s\n$")
set(light)
if(DEFINED ENV{TCSIM_TEST_SCALE} AND "$ENV{TCSIM_TEST_SCALE}" LESS 1)
  set(how_sure "")
  set(light --no-certainty)
endif()
progress_check("fit"
  "tcsim fit: search \\(share of its 90 s limit\\): [0-9]+% after [0-9.]+ s\n.*tcsim fit: checking the row through validate-dump's path: 100% \\(1/1\\) after ${how_sure}"
  ${fit} ${light})
progress_check("fit --budget" "^tcsim fit: search \\(share of its budget of 1000 case evaluations\\): " ${fit} --budget 1000 --no-certainty)
progress_check("fit --quiet" "" ${fit} --quiet --no-certainty)
progress_check("bench fit --json: rows on stderr" "^tcsim bench fit: rows \\(fit, check, how sure, loop\\): 0% \\(0/1\\) after "
  bench fit --cases 200 --only "v100 fp16 -> fp16" --no-certainty --json)
progress_check("bench fit --quiet" "" bench fit --cases 200 --only "v100 fp16 -> fp16" --no-certainty --quiet)

# Default knobs: a short run prints nothing on stderr.
tcsim_check(NAME "gemm short: no progress" ARGS ${gemm} STDERR "^$")
