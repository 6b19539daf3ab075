# tcsim explore: a small sweep writes its CSV, plot and summary with a Pareto front, and bad
# sweeps are named.
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)
tcsim_scratch_dir(dir)

find_program(gnuplot_exe gnuplot)
execute_process(COMMAND python3 -c "import matplotlib" RESULT_VARIABLE py3_rc OUTPUT_QUIET ERROR_QUIET)
execute_process(COMMAND /usr/bin/python3 -c "import matplotlib" RESULT_VARIABLE usr_py3_rc OUTPUT_QUIET ERROR_QUIET)
if(gnuplot_exe OR py3_rc EQUAL 0 OR usr_py3_rc EQUAL 0)
  tcsim_check(NAME "explore sweeps F and the alignment rounding of V100"
    ARGS explore --base v100 --vary fraction_bits=21..24 --vary alignment_rounding=rz,rne
         --workload gemm:k=256,m=4,n=4 --monotonicity-budget 300 --out-dir ${dir} --json
    STDOUT "\"base\":\"v100\"" "\"fraction_bits\":\"21\"" "\"alignment_rounding\":\"rne\"" "\"componentwise_error\":[0-9]"
           "\"monotonic\":(true|false)" "\"adder_bits\":[0-9]" "\"shifter_bits\":[0-9]" "\"pareto\":true")
  foreach(ext csv png md)
    if(NOT EXISTS "${dir}/explore.${ext}")
      tcsim_fail("explore did not write explore.${ext}")
    endif()
  endforeach()
  # V100 as it is (F = 23, rz) is non-monotonic; the structured search reaches it within
  # 2000 pairs.
  tcsim_check(NAME "explore reports V100's own design non-monotonic"
    ARGS explore --base v100 --vary fraction_bits=23 --workload gemm:k=64,m=2,n=2 --monotonicity-budget 2000
         --out-dir ${dir} --json
    STDOUT "\"fraction_bits\":\"23\",\"monotonic\":false")
endif()

tcsim_check(NAME "explore with an unknown parameter" ARGS explore --base v100 --vary width=3 EXIT 2
  STDERR "--vary: 'width' is not a parameter; allowed: fraction_bits, carry_bits")
tcsim_check(NAME "explore with a bad range" ARGS explore --base v100 --vary fraction_bits=30..20 EXIT 2
  STDERR "--vary fraction_bits: '30..20' is not a range a..b of integers")
tcsim_check(NAME "explore with a bad workload" ARGS explore --base v100 --workload lu:n=4 EXIT 2
  STDERR "--workload: 'lu:n=4': allowed gemm")
tcsim_check(NAME "explore without a base" ARGS explore --vary fraction_bits=23 EXIT 2
  STDERR "give exactly one of --base and --unit-config")
