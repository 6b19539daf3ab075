# `tcsim --help` / `-h` lists every command on stdout; no command at all prints the usage
# to stderr and fails.
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)

tcsim_check(NAME "tcsim --help lists every command"
  ARGS --help
  EXIT 0
  STDOUT "^usage: tcsim <command>" "\n  dot " "\n  units " "\n  validate-dump " "\n  probe " "\n  report " "\n  bench "
  STDERR "^$")

tcsim_check(NAME "tcsim -h is --help"
  ARGS -h
  EXIT 0
  STDOUT "^usage: tcsim <command>")

tcsim_check(NAME "no command prints the usage to stderr"
  EXIT 2
  STDERR "^usage: tcsim <command>"
  STDOUT "^$")
