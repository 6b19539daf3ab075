#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions called through phase()
# The main job on a fresh Debian 12 machine: installs the dependencies (scripts/setup.sh),
# builds the tcsim CLI (scripts/build.sh, Release, build/) and runs
#   build/apps/tcsim report          examples and a probe-style report of the V100 adder
# followed by a few `tcsim dot` examples (the fasi2021 vectors that reveal truncation) and a
# quick experiment (tcsim experiment lopez2022-fig3a --quick: build/experiments/*.png, .md).
#
#   bash scripts/run.sh
#
# Environment: TCSIM_BUILD_DIR (default build), TCSIM_JOBS (default nproc).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build_dir=${TCSIM_BUILD_DIR:-$root/build}
tcsim=$build_dir/apps/tcsim

timings=()
phase() {  # phase <name> <command...>: runs the command, records its wall time
  local name=$1 start rc=0
  shift
  echo
  echo "==== [run] $name ===="
  start=$(date +%s)
  "$@" || rc=$?
  timings+=("$(printf '%-28s %5ds  %s' "$name" $(($(date +%s) - start)) "$([[ $rc == 0 ]] && echo ok || echo "FAILED ($rc)")")")
  return $rc
}

summary() {
  echo
  echo "==== [run] timings ===="
  printf '%s\n' "${timings[@]}"
}
trap summary EXIT

phase "setup" bash scripts/setup.sh --with-plots
TCSIM_TARGETS=tcsim phase "build (Release, tcsim)" bash scripts/build.sh

status=0
phase "tcsim report" "$tcsim" report || status=1

dot_examples() {
  local rc=0 x=0x1p-24
  local examples=(
    # 1 + four products 2^-24: V100 truncates each aligned product (F = 23) -> 1.
    "--unit v100 --in fp16 --out fp32 --a 1,1,1,1 --b $x,$x,$x,$x --c 1"
    # The same on A100 (one more fraction bit in the adder).
    "--unit a100 --in fp16 --out fp32 --a 1,1,1,1 --b $x,$x,$x,$x --c 1"
    # Binary16 output is rounded to nearest even.
    "--unit v100 --in fp16 --out fp16 --a 1,1,1,1 --b 0x1p-11,0,0,0 --c 1"
    # The same element as JSON.
    "--unit v100 --in fp16 --out fp32 --a 1,1,1,1 --b $x,$x,$x,$x --c 1 --json"
  )
  local args
  for args in "${examples[@]}"; do
    echo "\$ tcsim dot $args"
    # shellcheck disable=SC2086  # the example strings are split into arguments on purpose
    "$tcsim" dot $args || { rc=$?; echo "(exit code $rc)"; }
    echo
  done
  return "$rc"
}
phase "tcsim dot examples" dot_examples || status=1

# A quick experiment of the seed papers (lopez2022 Figure 3a: LU algorithms on simulated V100
# tensor cores): its checks, and the plot and report it writes.
experiment() {
  "$tcsim" experiment lopez2022-fig3a --quick --out "$build_dir/experiments" || return $?
  echo "plot: $build_dir/experiments/lopez2022-fig3a.png, report: $build_dir/experiments/lopez2022-fig3a.md"
}
phase "tcsim experiment (quick)" experiment || status=1

exit $status
