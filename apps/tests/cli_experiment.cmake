# tcsim experiment: the list, one quick experiment end to end (CSV, plot, report, checks in
# JSON), and clear errors. The plot needs python3-matplotlib or gnuplot (scripts/setup.sh
# --with-plots, which the README's commands run); without either the command must say so.
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)
tcsim_scratch_dir(dir)

tcsim_check(NAME "experiment --list names the experiments by the papers' keys"
  ARGS experiment --list
  STDOUT "blanchard2020-fig3.1" "blanchard2020-fig3.2" "mary2021-multiword" "mary2021-fabsum" "blanchard2020-fig4.2" "lopez2022-fig2a" "lopez2022-fig3a" "lopez2022-fig4a" "lopez2022-fig5" "units-gemm-accuracy" "fasi2021-suite")

find_program(gnuplot_exe gnuplot)
execute_process(COMMAND python3 -c "import matplotlib" RESULT_VARIABLE py3_rc OUTPUT_QUIET ERROR_QUIET)
execute_process(COMMAND /usr/bin/python3 -c "import matplotlib" RESULT_VARIABLE usr_py3_rc OUTPUT_QUIET ERROR_QUIET)
if(gnuplot_exe OR py3_rc EQUAL 0 OR usr_py3_rc EQUAL 0)
  tcsim_check(NAME "experiment lopez2022-fig2a --quick: files, checks, JSON"
    ARGS experiment lopez2022-fig2a --quick --out ${dir} --json
    STDOUT "\"id\":\"lopez2022-fig2a\"" "\"all_hold\":true" "\"claim\":\"storing the matrix in fp16 costs"
           "\"holds\":true" "\"plot_tool\":\"(matplotlib|gnuplot)\"")
  foreach(ext csv png md)
    if(NOT EXISTS "${dir}/lopez2022-fig2a.${ext}")
      tcsim_fail("experiment did not write lopez2022-fig2a.${ext}")
    endif()
  endforeach()
  file(READ "${dir}/lopez2022-fig2a.md" md)
  if(NOT md MATCHES "## What the paper found.*## What the simulation found.*## Checks.*\\| yes \\|")
    tcsim_fail("lopez2022-fig2a.md lacks its sections or checks:\n${md}")
  endif()
  file(READ "${dir}/lopez2022-fig2a.csv" csv)
  if(NOT csv MATCHES "^series,kind,n,componentwise backward error\n\"Alg. 3.1 \\(u = u16\\)\",measured,256,[0-9]")
    tcsim_fail("lopez2022-fig2a.csv does not start as expected:\n${csv}")
  endif()
  file(READ "${dir}/lopez2022-fig2a.png" png HEX LIMIT 8)
  if(NOT png STREQUAL "89504e470d0a1a0a")
    tcsim_fail("lopez2022-fig2a.png is not a PNG file (${png})")
  endif()
else()
  tcsim_check(NAME "experiment without a plotting tool says what to install"
    ARGS experiment lopez2022-fig2a --quick --out ${dir}
    EXIT 2
    STDERR "plots need python3-matplotlib or gnuplot")
endif()

tcsim_check(NAME "experiment with an unknown id lists the known ones"
  ARGS experiment lopez2022-fig9
  EXIT 2
  STDERR "experiment 'lopez2022-fig9' is not known; allowed: blanchard2020-fig3.1, .*mary2021-fabsum, .*lopez2022-fig5")
tcsim_check(NAME "experiment without an id"
  ARGS experiment
  EXIT 2
  STDERR "name one experiment \\(or --list\\)")
tcsim_check(NAME "experiment --list with an id"
  ARGS experiment --list lopez2022-fig2a
  EXIT 2
  STDERR "--list takes no experiment id")
