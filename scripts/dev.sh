#!/usr/bin/env bash
# gj2k developer entry point: set up a fresh Debian 12 machine, build, test, run.
#
#   scripts/dev.sh setup     install missing Debian packages (as root or through sudo)
#   scripts/dev.sh build     configure and build (Release) into build/
#   scripts/dev.sh test      setup + build + run every test with ctest
#   scripts/dev.sh asan      setup + ASan/UBSan build into build-asan/ + run every test
#   scripts/dev.sh demo      setup + build + the main job: lossless encode of a generated image
#
# Environment: GJ2K_SHARED (default ../shared beside the checkout), BUILD_DIR, JOBS.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=${JOBS:-$(nproc)}

packages=(build-essential cmake ninja-build pkg-config git
          libtiff-dev zlib1g-dev liblcms2-dev libopenjp2-7-dev libopenjp2-tools
          libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev
          libpng-dev libjpeg62-turbo-dev pybind11-dev python3-dev python3-numpy python3-pytest)

setup() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then return 0; fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
      echo "gj2k setup: missing packages: ${missing[*]} (run as root or install sudo)" >&2
      exit 1
    fi
  fi
  echo "gj2k setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

configure_build() {  # $1 build dir, rest: extra cmake args
  local dir=$1; shift
  local gen=()
  command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$dir" "${gen[@]}" "$@"
  fi
  cmake --build "$dir" -j "$jobs"
}

run_tests() {  # $1 build dir
  export GJ2K_SHARED=${GJ2K_SHARED:-$root/../shared}
  ctest --test-dir "$1" --output-on-failure -j "$jobs" --timeout 900
}

cmd=${1:-test}
case "$cmd" in
  setup) setup ;;
  build) setup; configure_build "${BUILD_DIR:-build}" ;;
  test) setup; configure_build "${BUILD_DIR:-build}"; run_tests "${BUILD_DIR:-build}" ;;
  asan)
    setup
    configure_build "${BUILD_DIR:-build-asan}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DGJ2K_SANITIZE=ON -DGJ2K_BENCH=OFF
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 run_tests "${BUILD_DIR:-build-asan}"
    ;;
  demo) setup; configure_build "${BUILD_DIR:-build}"; "$root/scripts/demo.sh" "${BUILD_DIR:-build}" ;;
  *) echo "usage: scripts/dev.sh setup|build|test|asan|demo" >&2; exit 2 ;;
esac
