#!/usr/bin/env bash
# Every test on a fresh Debian 12 machine:
#   1. setup      install missing dependencies (scripts/setup.sh)
#   2. build      Release build in build/ (scripts/build.sh; both builds here are unity builds,
#                 TCSIM_UNITY_BUILD: about a fifth less compile time)
#   3. ctest      all tests in build/ (Catch2 suites, CLI tests, find_package consumer)
#   4. asan build RelWithDebInfo + AddressSanitizer/UBSan in build-asan/ (-O1 -g1: line
#                 tables for the reports, and about half the compile time of -O2 -g). With
#                 clang++-14 (and its libFuzzer runtime) the build uses clang and also builds
#                 the libFuzzer targets (TCSIM_FUZZ, <folder>/fuzz/, docs/reliability.md);
#                 without it, gcc and no fuzzing (said so in the log)
#   5. asan ctest the tests again under the sanitizers (not the Catch tests tagged [release-only]:
#                 slow fit tests whose lines the kept ones also run), random-test sizes scaled by
#                 TCSIM_TEST_SCALE=0.02 (tests/test_support.hpp), halting on the first error;
#                 with clang also a short run of every fuzz target (TCSIM_FUZZ_SECONDS each,
#                 default 10) and the saved regression inputs
# Prints the time of each phase; exits non-zero when any phase fails (later phases still
# run when they can, so one run reports everything).
#
#   bash scripts/test.sh [--no-sanitize]
#
# Environment: TCSIM_BUILD_DIR (build), TCSIM_ASAN_BUILD_DIR (build-asan), TCSIM_JOBS
# (compile jobs, default nproc), TCSIM_TEST_JOBS (ctest -j, default 2), TCSIM_ASAN_SCALE
# (default 0.02), TCSIM_SANITIZE=0 (same as --no-sanitize), TCSIM_FUZZ_SECONDS (default 10),
# TCSIM_ASAN_CXX (compiler of the sanitizer build; default clang++-14 when it links libFuzzer,
# else g++).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build_dir=${TCSIM_BUILD_DIR:-$root/build}
asan_dir=${TCSIM_ASAN_BUILD_DIR:-$root/build-asan}
test_jobs=${TCSIM_TEST_JOBS:-2}
sanitize=${TCSIM_SANITIZE:-1}
for arg in "$@"; do
  case "$arg" in
    --no-sanitize) sanitize=0 ;;
    -h|--help) awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "test.sh: unknown argument '$arg' (allowed: --no-sanitize, --help)" >&2; exit 2 ;;
  esac
done

t0=$(date +%s)
timings=()
failed=()
running=  # the phase in progress: summary() names it when the script is stopped mid-phase
phase() {  # phase <name> <command...>: runs the command, records wall time and status
  local name=$1 start rc=0
  shift
  echo
  echo "==== [test] $name ($(date -u +%H:%M:%S) UTC) ===="
  start=$(date +%s)
  running=$name
  "$@" || rc=$?
  running=
  local secs=$(($(date +%s) - start))
  timings+=("$(printf '%-22s %4dm%02ds  %s' "$name" $((secs / 60)) $((secs % 60)) "$([[ $rc == 0 ]] && echo ok || echo "FAILED (exit $rc)")")")
  ((rc == 0)) || failed+=("$name")
  echo "==== [test] $name: $([[ $rc == 0 ]] && echo ok || echo FAILED) in ${secs}s ===="
  return $rc
}

summary() {
  local secs=$(($(date +%s) - t0))
  echo
  echo "==== [test] timings ===="
  printf '%s\n' "${timings[@]}"
  printf '%-22s %4dm%02ds\n' "total" $((secs / 60)) $((secs % 60))
  if [[ -n $running ]]; then
    echo "==== [test] INTERRUPTED during phase '$running' (not all phases ran)${failed[*]:+; FAILED: ${failed[*]}}"
  elif ((${#failed[@]})); then
    echo "==== [test] FAILED: ${failed[*]}"
  else
    echo "==== [test] all phases passed"
  fi
}
trap summary EXIT

ctest_args=(--output-on-failure --no-tests=error -j "$test_jobs" --timeout 1500)

phase "setup" bash scripts/setup.sh --with-plots --with-torch || exit 1

if phase "build" env TCSIM_BUILD_DIR="$build_dir" bash scripts/build.sh -DTCSIM_BUILD_TESTS=ON -DTCSIM_UNITY_BUILD=ON; then
  phase "ctest" ctest --test-dir "$build_dir" "${ctest_args[@]}" || true
fi

# The sanitizer build's compiler: clang++-14 when it can link a libFuzzer target (then the
# same build fuzzes), else g++ without fuzzing.
asan_cxx=${TCSIM_ASAN_CXX:-}
if [[ -z $asan_cxx ]]; then
  asan_cxx=g++
  if command -v clang++-14 >/dev/null; then
    probe_dir=$(mktemp -d)
    echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' >"$probe_dir/f.cpp"
    if clang++-14 -fsanitize=fuzzer,address,undefined "$probe_dir/f.cpp" -o "$probe_dir/f" 2>/dev/null &&
       "$probe_dir/f" -runs=1 >/dev/null 2>&1; then
      asan_cxx=clang++-14
    fi
    rm -rf "$probe_dir"
  fi
fi
fuzz_args=()
if [[ $asan_cxx == clang* ]]; then
  fuzz_args=(-DTCSIM_FUZZ=ON "-DTCSIM_FUZZ_SECONDS=${TCSIM_FUZZ_SECONDS:-10}")
else
  echo "test.sh: no clang++-14 with libFuzzer: the sanitizer pass uses $asan_cxx and runs no fuzz targets"
fi
# A build directory configured with another compiler cannot switch: start it afresh.
if [[ -f $asan_dir/CMakeCache.txt ]] &&
   ! grep -q "^CMAKE_CXX_COMPILER:[A-Z]*=.*$asan_cxx\$" "$asan_dir/CMakeCache.txt"; then
  rm -rf "$asan_dir"
fi

if [[ $sanitize == 1 ]]; then
  if phase "asan build" env TCSIM_BUILD_DIR="$asan_dir" TCSIM_BUILD_TYPE=RelWithDebInfo CXX="$asan_cxx" \
       bash scripts/build.sh -DTCSIM_BUILD_TESTS=ON -DTCSIM_SANITIZE=ON -DTCSIM_BUILD_CUDA=OFF -DTCSIM_UNITY_BUILD=ON \
         "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" "${fuzz_args[@]}"; then
    phase "asan ctest" env TCSIM_TEST_SCALE="${TCSIM_ASAN_SCALE:-0.02}" \
      ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:check_initialization_order=1:strict_init_order=1 \
      UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      ctest --test-dir "$asan_dir" "${ctest_args[@]}" || true
  fi
else
  echo "test.sh: sanitizer pass skipped (--no-sanitize)"
fi

((${#failed[@]} == 0))
