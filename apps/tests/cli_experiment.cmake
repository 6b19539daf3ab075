# tcsim experiment: the list, one quick experiment end to end (CSV, plot, report, checks in
# JSON), and clear errors. The plot needs python3-matplotlib or gnuplot (scripts/setup.sh
# --with-plots, which the README's commands run); without either the command must say so.
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)
tcsim_scratch_dir(dir)

tcsim_check(NAME "experiment --list names the experiments by the papers' keys"
  ARGS experiment --list
  STDOUT "blanchard2020-fig3.1" "blanchard2020-fig3.2" "mary2021-multiword" "mary2021-fabsum" "blanchard2020-fig4.2" "lopez2022-fig2a" "lopez2022-fig3a" "lopez2022-fig4a" "lopez2022-fig5" "units-gemm-accuracy" "fasi2021-suite" "mary2024-fig5.1" "mary2024-fig5.2")

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
  # A figure of panels (mary2024 Fig. 5.1: four subplots, unbounded-range twins dotted):
  # the panel column of the CSV, and the same through gnuplot's multiplot when it is here.
  tcsim_check(NAME "experiment mary2024-fig5.1 --quick: panels, checks, JSON"
    ARGS experiment mary2024-fig5.1 --quick --out ${dir} --json
    STDOUT "\"id\":\"mary2024-fig5.1\"" "\"all_hold\":true" "\"claim\":\"narrow and unbounded range give overlapping")
  file(READ "${dir}/mary2024-fig5.1.csv" csv)
  if(NOT csv MATCHES "^panel,series,kind,n,[^\n]*\n\"e5m2 in, fp16 accumulation, subnormals off\",\"p = 1\",measured,16,0[.]0[0-9]"
     OR NOT csv MATCHES "\"p = 1, unbounded range\",twin,16,")
    tcsim_fail("mary2024-fig5.1.csv does not hold the panels and twins as expected:\n${csv}")
  endif()
  if(gnuplot_exe)
    set(ENV{TCSIM_PLOT} gnuplot)
    file(REMOVE "${dir}/mary2024-fig5.1.png")
    tcsim_check(NAME "experiment mary2024-fig5.1 --quick drawn by gnuplot (multiplot)"
      ARGS experiment mary2024-fig5.1 --quick --out ${dir}
      STDOUT "mary2024-fig5.1.png \\(gnuplot\\)")
    unset(ENV{TCSIM_PLOT})
    file(READ "${dir}/mary2024-fig5.1.png" png HEX LIMIT 8)
    if(NOT png STREQUAL "89504e470d0a1a0a")
      tcsim_fail("gnuplot's mary2024-fig5.1.png is not a PNG file (${png})")
    endif()
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
