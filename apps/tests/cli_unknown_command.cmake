# An unknown subcommand is an error that lists the allowed commands.
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)

tcsim_check(NAME "unknown command lists the allowed ones"
  ARGS frobnicate --unit v100
  EXIT 2
  STDERR "^tcsim: unknown command 'frobnicate'; allowed: dot, units, validate-dump, fit, probe, report, gemm, lu, experiment, monotonicity, explore, bench\n$"
  STDOUT "^$")

tcsim_check(NAME "commands are case-sensitive"
  ARGS DOT
  EXIT 2
  STDERR "unknown command 'DOT'")
