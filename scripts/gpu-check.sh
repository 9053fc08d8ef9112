#!/usr/bin/env bash
# gj2k GPU check: on a machine with an NVIDIA GPU and CUDA, build the GPU tests and benchmark
# (if needed), run every GPU test (ctest label gpu), the encode/decode hash matrices on both
# devices (the GPU's lines must equal the CPU's), the GPU DWT benchmark, the Tier-1 decoding
# benchmark (bench_gpu_t1: GPU kernel against the CPU on all cores) and the whole-encoder
# benchmark (CPU against GPU transform stage), and print a short summary table last.
#
#   scripts/gpu-check.sh              configure + build into build-gpu/ (CUDA on), then run
#   GJ2K_GPU_BIN=dir scripts/...      run prebuilt test_gpu, bench_gpu_dwt, bench_gpu_t1,
#                                     bench_gpu_codec and gj2k from dir instead
# Last, whole `gj2k encode/decode` processes with --device cpu, gpu and auto on two images
# (GJ2K_WHOLE_SIZES, default "10240x6400 4096x3072"), next to opj_compress/opj_decompress
# and Grok's grk_compress/grk_decompress when on PATH, all on every core.
#
# Environment: BUILD_DIR (default build-gpu), JOBS, GJ2K_BENCH_SIZES (e.g. 2048,8192,16384),
# GJ2K_BENCH_CODEC_SIZE (e.g. 10240x6400), GJ2K_BENCH_ITERS (bench_gpu_codec's, default 7: the
# median of 6 timed runs), GJ2K_BENCH_T1_ONE_THREAD (1: bench_gpu_t1's one-thread CPU rows too),
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
  cmake --build "$build" -j "$jobs" --target test_gpu bench_gpu_dwt bench_gpu_t1 bench_gpu_codec \
    gj2k_cli || exit 1
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

# The option matrices of scripts/encode-hashes.sh and decode-hashes.sh on both devices: the
# GPU path must print the CPU path's lines (bytes and samples identical, errors alike).
hash_rc=0
if [ -x "$bin/gj2k" ] && [ -d "${GJ2K_SHARED:-$root/../shared}/images" ]; then
  for kind in encode decode; do
    echo "== $kind-hashes: --device gpu against --device cpu"
    GJ2K_HASH_DEVICE=cpu bash "$here/$kind-hashes.sh" "$bin/gj2k" >"$log/$kind-hashes-cpu.txt"
    GJ2K_HASH_DEVICE=gpu bash "$here/$kind-hashes.sh" "$bin/gj2k" >"$log/$kind-hashes-gpu.txt"
    if diff "$log/$kind-hashes-cpu.txt" "$log/$kind-hashes-gpu.txt" >"$log/$kind-hashes.diff"; then
      echo "   $(wc -l <"$log/$kind-hashes-cpu.txt") cases, identical"
    else
      hash_rc=1
      echo "   DIFFERENT ($(grep -c '^<' "$log/$kind-hashes.diff") cases):"
      head -20 "$log/$kind-hashes.diff"
    fi
  done
fi

echo "== GPU DWT benchmark ($bin/bench_gpu_dwt)"
"$bin/bench_gpu_dwt" 2>&1 | tee "$log/gpu-bench.log" | grep -vE "^(gpu_dwt/|-----|Benchmark)"
bench_rc=${PIPESTATUS[0]}

echo "== Tier-1 decoding benchmark ($bin/bench_gpu_t1)"
t1_rc=0
if [ -x "$bin/bench_gpu_t1" ]; then
  GJ2K_BENCH_T1_ONE_THREAD=${GJ2K_BENCH_T1_ONE_THREAD:-0} "$bin/bench_gpu_t1" 2>&1 |
    tee "$log/gpu-t1.log"
  t1_rc=${PIPESTATUS[0]}
fi

echo "== Encoder benchmark ($bin/bench_gpu_codec)"
streams=$(mktemp -d)  # its photo-mosaic codestreams, for the whole processes below
codec_rc=0
if [ -x "$bin/bench_gpu_codec" ]; then
  GJ2K_BENCH_ITERS=${GJ2K_BENCH_ITERS:-7} GJ2K_BENCH_WRITE_DIR=$streams "$bin/bench_gpu_codec" 2>&1 |
    tee "$log/gpu-codec.log"
  codec_rc=${PIPESTATUS[0]}
fi

# Whole processes, same run: gj2k with --device cpu, gpu and auto next to OpenJPEG's
# tools (when opj_compress/opj_decompress are on PATH), the median of GJ2K_WHOLE_REPS (3)
# interleaved rounds.
whole_log="$log/whole-process.log"
: >"$whole_log"
gj2k_bin=""
[ -x "$bin/gj2k" ] && gj2k_bin="$bin/gj2k"
if [ -n "$gj2k_bin" ]; then
  echo "== Whole processes ($gj2k_bin, OpenJPEG tools if present)"
  work=$(mktemp -d)
  threads=$(nproc)
  reps=${GJ2K_WHOLE_REPS:-3}
  secs() {  # wall time of a command in ms, or "fail"
    local t0
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1 || { echo fail; return; }
    echo $((($(date +%s%N) - t0) / 1000000))
  }
  median() {  # median of the ms values given, as seconds ("fail" if any failed)
    case " $* " in *" fail "*) echo fail; return ;; esac
    local m
    m=$(printf "%s\n" "$@" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
    printf "%d.%02d" $((m / 1000)) $((m % 1000 / 10))
  }
  have_opj=0 have_grk=0
  command -v opj_compress >/dev/null 2>&1 && command -v opj_decompress >/dev/null 2>&1 && have_opj=1
  command -v grk_compress >/dev/null 2>&1 && command -v grk_decompress >/dev/null 2>&1 && have_grk=1
  row() {  # label, gj2k args (before --device), opj command, grok command; the median of
    # $reps rounds, each running cpu, gpu, auto, OpenJPEG and Grok once, in an order rotated
    # from round to round (so drift, and what the previous process left to the kernel, hits all
    # alike)
    local label=$1 args=$2 opj=$3 grk=$4 c=() g=() a=() o=() k=() o_med="-" k_med="-"
    local order=(c g a o k) round=0 i v
    for _ in $(seq "$reps"); do
      for i in 0 1 2 3 4; do
        v=${order[$(((i + round) % 5))]}
        case $v in
          c) c+=("$(secs "$gj2k_bin" $args --device cpu)") ;;
          g) g+=("$(secs "$gj2k_bin" $args --device gpu)") ;;
          a) a+=("$(secs "$gj2k_bin" $args)") ;;
          o) [ "$have_opj" = 1 ] && o+=("$(secs $opj)") ;;
          k) [ "$have_grk" = 1 ] && k+=("$(secs $grk)") ;;
        esac
      done
      round=$((round + 1))
    done
    [ ${#o[@]} -gt 0 ] && o_med=$(median "${o[@]}")
    [ ${#k[@]} -gt 0 ] && k_med=$(median "${k[@]}")
    printf "%-36s %9s %9s %9s %9s %9s\n" "$label" "$(median "${c[@]}")" "$(median "${g[@]}")" \
      "$(median "${a[@]}")" "$o_med" "$k_med" | tee -a "$whole_log"
  }
  for size in ${GJ2K_WHOLE_SIZES:-10240x6400 4096x3072}; do
    # The photo mosaic of bench_gpu_codec where it wrote one of this size, else the synthetic
    # scene.
    what=synthetic
    if [ -f "$streams/bench53.j2k" ] && [ "$size" = "${GJ2K_BENCH_CODEC_SIZE:-10240x6400}" ]; then
      what="photo mosaic"
      cp "$streams/bench53.j2k" "$work/l.j2k"
      cp "$streams/bench97.j2k" "$work/i.j2k"
      "$gj2k_bin" decode -i "$work/l.j2k" -o "$work/in.ppm" --quiet --device cpu
    else
      "$gj2k_bin" encode --synthetic "$size" --save-input "$work/in.ppm" -o "$work/l.j2k" \
        --quiet --device cpu
      "$gj2k_bin" encode -i "$work/in.ppm" -o "$work/i.j2k" --irreversible --rate 20 --quiet \
        --device cpu
    fi
    printf "%-36s %9s %9s %9s %9s %9s\n" "$size $what, s (median of $reps)" "gj2k cpu" \
      "gj2k gpu" "gj2k auto" "OpenJPEG" "Grok" | tee -a "$whole_log"
    row "encode lossless" "encode -i $work/in.ppm -o $work/o.j2k --quiet" \
      "opj_compress -i $work/in.ppm -o $work/o2.j2k -threads $threads" \
      "grk_compress -i $work/in.ppm -o $work/o3.j2k -H $threads"
    row "encode 9/7 rate 20" "encode -i $work/in.ppm -o $work/o.j2k --quiet --irreversible --rate 20" \
      "opj_compress -i $work/in.ppm -o $work/o2.j2k -I -r 20 -threads $threads" \
      "grk_compress -i $work/in.ppm -o $work/o3.j2k -I -r 20 -H $threads"
    row "decode lossless" "decode -i $work/l.j2k -o $work/o.ppm" \
      "opj_decompress -i $work/l.j2k -o $work/o2.ppm -threads $threads" \
      "grk_decompress -i $work/l.j2k -o $work/o3.ppm -H $threads"
    row "decode 9/7" "decode -i $work/i.j2k -o $work/o.ppm" \
      "opj_decompress -i $work/i.j2k -o $work/o2.ppm -threads $threads" \
      "grk_decompress -i $work/i.j2k -o $work/o3.ppm -H $threads"
    # What auto chose (the encoder says where it coded), and a lossless GPU decode
    # against the input.
    "$gj2k_bin" encode -i "$work/in.ppm" -o "$work/o.j2k" | sed 's/^.*, coded/auto: coded/' |
      tee -a "$whole_log"
    "$gj2k_bin" decode -i "$work/l.j2k" -o "$work/back.ppm" --device gpu &&
      "$gj2k_bin" compare "$work/in.ppm" "$work/back.ppm" | tee -a "$whole_log"
  done
  rm -rf "$work"
fi
rm -rf "$streams"

echo
echo "================ gj2k GPU check summary ================"
passed=$(grep -c "^\[       OK \]" "$log/gpu-tests.log")
failed=$(grep -c "^\[  FAILED  \] [A-Za-z]" "$log/gpu-tests.log")
skipped=$(grep -c "^\[  SKIPPED \] [A-Za-z]" "$log/gpu-tests.log")
printf "tests: %s passed, %s failed, %s skipped (exit %s, %ss)\n" "$passed" "$failed" \
  "$skipped" "$test_rc" "$((t1 - t0))"
grep "^\[  FAILED  \] [A-Za-z]" "$log/gpu-tests.log" | sort -u | head -20
printf "hash matrices (GPU against CPU): exit %s\n" "$hash_rc"
for kind in encode decode; do
  [ -f "$log/$kind-hashes.diff" ] && printf "  %s: %s cases, %s differ\n" "$kind" \
    "$(wc -l <"$log/$kind-hashes-cpu.txt")" "$(grep -c '^<' "$log/$kind-hashes.diff")"
done
printf "benchmark exit %s (full tables in %s)\n" "$bench_rc" "$log/gpu-bench.log"
sed -n '/^Transform stage, /,$p' "$log/gpu-bench.log"
printf "Tier-1 benchmark exit %s\n" "$t1_rc"
[ -f "$log/gpu-t1.log" ] && grep -E "^(==|  cpu t1_dec|  gpu arranged  fixed    128 threads x  4)|alone" \
  "$log/gpu-t1.log"
printf "encoder benchmark exit %s\n" "$codec_rc"
[ -f "$log/gpu-codec.log" ] && grep -E "GPU codestream|peak \|gpu" "$log/gpu-codec.log"
[ -f "$log/gpu-codec.log" ] && sed -n '/^Codec \(decode\|encode\), /,$p' "$log/gpu-codec.log"
[ -s "$whole_log" ] && cat "$whole_log"
[ "$test_rc" -eq 0 ] && [ "$hash_rc" -eq 0 ] && [ "$bench_rc" -eq 0 ] && [ "$t1_rc" -eq 0 ] &&
  [ "$codec_rc" -eq 0 ]
