#!/usr/bin/env bash
# Checks the sanitizer pass's choice of fit tests (docs/testing.md, session 44). The fit tests
# tagged [release-only] are left out of the sanitizer build because the fit tests it keeps run
# every line of the fit's sources that they run. This script measures that again:
#   1. builds build-cov (Release; gcc --coverage on validation/src/fit*.cpp, apps/src/cmd_fit.cpp
#      and apps/src/bench_fit.cpp only: -DTCSIM_FIT_COVERAGE=ON),
#   2. runs each Catch test named "fit: ..." alone, and apps/tests/cli_fit.cmake, at
#      TCSIM_TEST_SCALE=0.02 (the sanitizer pass's scale), and keeps the lines each ran (gcov),
#   3. prints the lines that only [release-only] tests run, and exits 1 when there are any.
# Not part of scripts/test.sh (about 5 minutes on 2 cores with a warm ccache, 15 without).
#
#   bash scripts/sanitizer_subset.sh
#
# Environment: TCSIM_COV_BUILD_DIR (build-cov).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TCSIM_COV_BUILD_DIR:-$root/build-cov}
out=$build/fit-lines
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTCSIM_BUILD_TESTS=ON \
  -DTCSIM_FIT_COVERAGE=ON -DTCSIM_BUILD_CUDA=OFF -DTCSIM_BUILD_PYTHON=OFF >/dev/null
cmake --build "$build" --target tcsim_validation_tests tcsim
rm -rf "$out"
mkdir -p "$out"
export TCSIM_TEST_SCALE=0.02 TCSIM_SOURCE_DIR=$root

# lines <name> <command...>: runs the command on fresh counters; <name>.lines gets "file:line"
# of every fit source line it ran.
lines() {
  local name=$1
  shift
  find "$build" -name '*.gcda' -delete
  "$@" >"$out/$name.log" 2>&1 || { echo "sanitizer_subset.sh: $name failed (log: $out/$name.log)" >&2; exit 2; }
  (cd "$build" && find . -name '*.gcda' -print0 | while IFS= read -r -d '' g; do
     gcov -t -o "$(dirname "$g")" "$g" 2>/dev/null | awk '
       /^ *-: *0:Source:/ { f = $0; sub(/.*Source:/, "", f); n = split(f, p, "/"); file = p[n] }
       file ~ /^(fit|cmd_fit|bench_fit)/ && $1 ~ /^[0-9]+\*?:$/ { l = $2; sub(/:.*/, "", l); print file ":" l }'
   done) | sort -u >"$out/$name.lines"
}

tests=$build/validation/tcsim_validation_tests
# group <kept|release> <Catch test spec>: lines of each test the spec lists, one run each.
group() {
  local kind=$1 i=0 t spec
  while IFS= read -r t; do
    i=$((i + 1))
    spec=${t//,/\\,}
    spec=${spec//[/\\[}
    lines "$kind$i" "$tests" "$spec"
    printf '%-8s %s lines: %s\n' "$kind" "$(wc -l <"$out/$kind$i.lines")" "$t"
  done < <("$tests" --list-test-names-only "$2" | grep .)
}

group kept "~[release-only]fit: *"
lines cli cmake -DTCSIM="$build/apps/tcsim" -DSOURCE_DIR="$root" -P "$root/apps/tests/cli_fit.cmake"
echo "kept     $(wc -l <"$out/cli.lines") lines: apps: cli_fit"
group release "[release-only]"

cat "$out"/kept*.lines "$out"/cli.lines | sort -u >"$out/kept.all"
cat "$out"/release*.lines | sort -u >"$out/release.all"
only=$(comm -13 "$out/kept.all" "$out/release.all")
echo "fit source lines run by the kept tests: $(wc -l <"$out/kept.all"); by the [release-only] tests: $(wc -l <"$out/release.all")"
if [[ -n $only ]]; then
  echo "lines only [release-only] tests run (the sanitizer pass would not run them):"
  echo "$only"
  exit 1
fi
echo "every line the [release-only] tests run is run by a test the sanitizer pass keeps"
