#!/usr/bin/env bash
# Configures and builds tcsim with Ninja (Release by default) into build/.
#
#   bash scripts/build.sh [extra cmake arguments, e.g. -DTCSIM_BUILD_TESTS=OFF]
#
# Environment:
#   TCSIM_BUILD_DIR    build directory (default: <repo>/build)
#   TCSIM_BUILD_TYPE   CMAKE_BUILD_TYPE (default: Release)
#   TCSIM_JOBS         parallel compile jobs (default: nproc)
#   TCSIM_TARGETS      space-separated targets to build (default: all)
# Re-running is incremental. A build directory configured earlier with another generator
# keeps its generator.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${TCSIM_BUILD_DIR:-$root/build}
build_type=${TCSIM_BUILD_TYPE:-Release}
jobs=${TCSIM_JOBS:-$(nproc)}

generator=()
if [[ ! -f $build_dir/CMakeCache.txt ]] && command -v ninja >/dev/null; then
  generator=(-G Ninja)
fi

cmake -S "$root" -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE="$build_type" "$@"

targets=()
for t in ${TCSIM_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build_dir" --parallel "$jobs" "${targets[@]}"
