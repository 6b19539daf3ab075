#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions called through phase()
# The main job on a fresh Debian 12 machine: installs the dependencies (scripts/setup.sh),
# builds the tcsim CLI and the Python package (scripts/build.sh, Release, build/) and runs
#   build/apps/tcsim report          examples and a probe-style report of the V100 adder
# followed by a few `tcsim dot` examples (the fasi2021 vectors that reveal truncation) and a
# quick experiment (tcsim experiment lopez2022-fig3a --quick: build/experiments/*.png, .md),
# then the same dot from Python (PYTHONPATH=build/apps/python; docs/python.md).
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
TCSIM_TARGETS="tcsim tcsim_python_package" phase "build (tcsim, Python)" bash scripts/build.sh -DTCSIM_UNITY_BUILD=ON

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

# The Python package, when CMake found python3 with numpy and pybind11: the first dot
# example from numpy, with the interpreter the module was built for.
python_example() {
  local py
  py=$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$build_dir/CMakeCache.txt")
  if [[ -z $py || ! -d $build_dir/apps/python/tcsim ]]; then
    echo "Python package not built (needs pybind11-dev, python3-dev, python3-numpy)"
    return 0
  fi
  echo "\$ PYTHONPATH=$build_dir/apps/python $py -c '...tcsim.dot(\"v100\", ...)'"
  PYTHONPATH="$build_dir/apps/python" "$py" -c '
import numpy as np, tcsim
r = tcsim.dot("v100", np.ones(4), np.full(4, 2.0**-24), 1.0, in_format="fp16", out_format="fp32")
print(f"tcsim.dot on v100: d = {r.values} (bits {int(r.bits):#010x}): the four products were truncated away")'
}
phase "python example" python_example || status=1

exit $status
