#!/usr/bin/env bash
# gj2k GPU check: on a machine with an NVIDIA GPU and CUDA, build the GPU tests and benchmark
# (if needed), run every GPU test (ctest label gpu), the GPU DWT benchmark and the whole-encoder
# benchmark (CPU against GPU transform stage), and print a short summary table last.
#
#   scripts/gpu-check.sh              configure + build into build-gpu/ (CUDA on), then run
#   GJ2K_GPU_BIN=dir scripts/...      run prebuilt test_gpu, bench_gpu_dwt and bench_gpu_codec
#                                     from dir instead
#
# Environment: BUILD_DIR (default build-gpu), JOBS, GJ2K_BENCH_SIZES (e.g. 2048,8192,16384),
# GJ2K_BENCH_CODEC_SIZE (e.g. 10240x6400), GJ2K_BENCH_ITERS,
# GJ2K_GPU_TEST_FILTER (a --gtest_filter), LOG_DIR (where logs go; default $BUILD_DIR or /tmp).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
jobs=${JOBS:-$(nproc)}
bin=${GJ2K_GPU_BIN:-}

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu-check: no NVIDIA GPU visible (nvidia-smi failed); nothing to check" >&2
  exit 2
fi
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv

if [ -z "$bin" ]; then
  build=${BUILD_DIR:-$root/build-gpu}
  gen=()
  command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
  if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DGJ2K_CUDA=ON || exit 1
  fi
  cmake --build "$build" -j "$jobs" --target test_gpu bench_gpu_dwt bench_gpu_codec || exit 1
  bin=$build/bin
fi
log=${LOG_DIR:-${BUILD_DIR:-/tmp}}
mkdir -p "$log"

echo "== GPU tests ($bin/test_gpu)"
filter=${GJ2K_GPU_TEST_FILTER:-*}
t0=$(date +%s)
"$bin/test_gpu" --gtest_filter="$filter" 2>&1 | tee "$log/gpu-tests.log" |
  grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) +\]|Failure|error|info" | head -200
test_rc=${PIPESTATUS[0]}
t1=$(date +%s)

echo "== GPU DWT benchmark ($bin/bench_gpu_dwt)"
"$bin/bench_gpu_dwt" 2>&1 | tee "$log/gpu-bench.log" | grep -vE "^(gpu_dwt/|-----|Benchmark)"
bench_rc=${PIPESTATUS[0]}

echo "== Encoder benchmark ($bin/bench_gpu_codec)"
codec_rc=0
if [ -x "$bin/bench_gpu_codec" ]; then
  "$bin/bench_gpu_codec" 2>&1 | tee "$log/gpu-codec.log"
  codec_rc=${PIPESTATUS[0]}
fi

echo
echo "================ gj2k GPU check summary ================"
passed=$(grep -c "^\[       OK \]" "$log/gpu-tests.log")
failed=$(grep -c "^\[  FAILED  \] [A-Za-z]" "$log/gpu-tests.log")
skipped=$(grep -c "^\[  SKIPPED \] [A-Za-z]" "$log/gpu-tests.log")
printf "tests: %s passed, %s failed, %s skipped (exit %s, %ss)\n" "$passed" "$failed" \
  "$skipped" "$test_rc" "$((t1 - t0))"
grep "^\[  FAILED  \] [A-Za-z]" "$log/gpu-tests.log" | sort -u | head -20
printf "benchmark exit %s (full tables in %s)\n" "$bench_rc" "$log/gpu-bench.log"
sed -n '/^Transform stage, /,$p' "$log/gpu-bench.log"
printf "encoder benchmark exit %s\n" "$codec_rc"
[ -f "$log/gpu-codec.log" ] && sed -n '/^Codec encode, /,$p' "$log/gpu-codec.log"
[ "$test_rc" -eq 0 ] && [ "$bench_rc" -eq 0 ] && [ "$codec_rc" -eq 0 ]
