#!/usr/bin/env bash
# Installs what tcsim needs on Debian 12 (bookworm) with apt-get; does nothing when all of
# it is present (checked with dpkg -s, no network, well under a second).
#
#   bash scripts/setup.sh               # build and test dependencies
#   bash scripts/setup.sh --with-plots  # also python3-matplotlib and gnuplot-nox
#   bash scripts/setup.sh --with-torch  # also python3-torch (Debian's PyTorch 1.13, about
#                                       # 130 MB to download): the Python package's torch tests
#   bash scripts/setup.sh --dry-run     # print what would be installed, change nothing
#
# Environment: TCSIM_WITH_PLOTS=1 is --with-plots, TCSIM_WITH_TORCH=1 --with-torch; TCSIM_SETUP_ASSUME_MISSING="pkg ..."
# treats those packages as absent (to exercise the install path; combine with --dry-run).
# Runs apt-get as root, through sudo when not root. Non-interactive; exits non-zero when a
# required package cannot be installed. The plot and torch packages are optional: nothing in
# the build needs them, the tests that use them skip with a message when they are absent,
# and failing to install them is only a warning.
set -euo pipefail

required=(
  build-essential g++ cmake ninja-build   # compiler, CMake >= 3.20, Ninja
  libmpfr-dev libgmp-dev                  # reference: exact dot products
  libboost-dev                            # Boost.Multiprecision cpp_int
  libeigen3-dev libtbb-dev                # matrices, parallel batches
  libhwy-dev                              # Google Highway: SIMD block kernels
  nlohmann-json3-dev                      # unit JSON, --json output
  catch2                                  # Catch2 v2 test framework
  pybind11-dev python3-dev python3-numpy  # the Python package (apps/python)
  python3-pytest python3-hypothesis       # its tests
  openmpi-bin libopenmpi-dev              # MPI: tcsim under mpirun (tcsim::dist, docs/scale.md)
  clang-14 libclang-rt-14-dev libomp-14-dev  # sanitizer + libFuzzer build (scripts/test.sh)
)
plots=(python3-matplotlib gnuplot-nox)
torch=(python3-torch)

with_plots=${TCSIM_WITH_PLOTS:-0}
with_torch=${TCSIM_WITH_TORCH:-0}
dry_run=0
for arg in "$@"; do
  case "$arg" in
    --with-plots) with_plots=1 ;;
    --with-torch) with_torch=1 ;;
    --dry-run) dry_run=1 ;;
    -h|--help) awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown argument '$arg' (allowed: --with-plots, --with-torch, --dry-run, --help)" >&2; exit 2 ;;
  esac
done

if [[ ! -r /etc/debian_version ]] || ! command -v dpkg >/dev/null || ! command -v apt-get >/dev/null; then
  echo "setup.sh: this script supports Debian 12 (apt-get, dpkg); install by hand:" >&2
  echo "  ${required[*]}" >&2
  exit 1
fi

# Installed means dpkg's status "install ok installed" (not removed, not half-configured).
is_installed() {
  local pkg=$1
  case " ${TCSIM_SETUP_ASSUME_MISSING:-} " in *" $pkg "*) return 1 ;; esac
  dpkg -s "$pkg" 2>/dev/null | grep -q '^Status: install ok installed$'
}

missing_of() {
  local pkg
  for pkg in "$@"; do is_installed "$pkg" || printf '%s\n' "$pkg"; done
}

mapfile -t missing_required < <(missing_of "${required[@]}")
missing_plots=()
if [[ $with_plots == 1 ]]; then
  mapfile -t missing_plots < <(missing_of "${plots[@]}")
fi
missing_torch=()
if [[ $with_torch == 1 ]]; then
  mapfile -t missing_torch < <(missing_of "${torch[@]}")
fi

if ((${#missing_required[@]} == 0 && ${#missing_plots[@]} == 0 && ${#missing_torch[@]} == 0)); then
  echo "setup.sh: all dependencies are installed"
  exit 0
fi

all_missing=("${missing_required[@]}" "${missing_plots[@]}" "${missing_torch[@]}")
echo "setup.sh: missing: ${all_missing[*]}"
if [[ $dry_run == 1 ]]; then
  echo "setup.sh: --dry-run: would run apt-get update, then" \
       "apt-get install -y --no-install-recommends ${all_missing[*]}"
  exit 0
fi

as_root=()
if [[ $(id -u) != 0 ]]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
  else
    echo "setup.sh: not root and no password-less sudo; as root run:" >&2
    echo "  apt-get update && apt-get install -y ${all_missing[*]}" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
apt=("${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -y
     -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold
     -o DPkg::Lock::Timeout=300)

"${apt[@]}" update </dev/null
if ((${#missing_required[@]})); then
  "${apt[@]}" install --no-install-recommends "${missing_required[@]}" </dev/null
fi
if ((${#missing_plots[@]})); then
  "${apt[@]}" install --no-install-recommends "${missing_plots[@]}" </dev/null ||
    echo "setup.sh: warning: could not install the optional plot packages: ${missing_plots[*]}" >&2
fi
if ((${#missing_torch[@]})); then
  "${apt[@]}" install --no-install-recommends "${missing_torch[@]}" </dev/null ||
    echo "setup.sh: warning: could not install ${missing_torch[*]}; the torch tests will skip" >&2
fi

still_missing=$(missing_of "${required[@]}" | tr '\n' ' ')
if [[ -n $still_missing && -z ${TCSIM_SETUP_ASSUME_MISSING:-} ]]; then
  echo "setup.sh: still missing after apt-get install: $still_missing" >&2
  exit 1
fi
echo "setup.sh: done"
