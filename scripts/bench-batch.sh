#!/usr/bin/env bash
# Batch benchmark (issues 14 and 15, "Batch"): 64 different 2560x1600 RGB photographs, decoded
# and encoded in one `gj2k` call (--device gpu and --device cpu) against a shell loop of Grok
# (grk_decompress / grk_compress -H <cores>) and of OpenJPEG (-threads <cores>), plus Grok's
# and OpenJPEG's own folder modes, all side by side in one run on all cores. Wall clock per
# row, images/s, and the speed relative to the Grok loop ("x grk loop": Grok loop seconds /
# row seconds).
#
#   scripts/bench-batch.sh PHOTODIR
#
# PHOTODIR: the JPEGs made by scripts/photo-set.sh (any *.jpg of one size work). Steps:
#   1. `gj2k convert` the JPEGs to PPM (the encode inputs and the lossless reference);
#   2. `gj2k encode --device cpu` the lossless set and the 9/7 set (--irreversible --rate 20);
#   3. decode rows on both sets, encode rows (lossless and 9/7), each timed REPS times (the
#      table shows the fastest); outputs are written to files as in real use.
# Checks: every row must leave one output per input (else "fail"); gj2k's lossless decodes
# (gpu, cpu) must equal the PPM inputs (`gj2k compare`); gj2k's lossless encodes must decode
# (gj2k, CPU) to the inputs; 9/7 rows of gj2k show the lowest PSNR over the set; gj2k's
# encodes are compared byte for byte with the sets of step 2 (GPU and CPU must agree). A row whose
# program fails (e.g. --device gpu without a GPU) shows "n/a" and the run goes on.
# Needs only: the gj2k binary, grk_compress/grk_decompress, opj_compress/opj_decompress on
# PATH, and coreutils/awk. Disk: about 3 GB of /tmp for 64 photos.
# Environment: GJ2K (gj2k binary, default `gj2k` on PATH), REPS (default 1), LIMIT (use only
# the first N photos, for a quick try), KEEP (keep the work folder), THREADS (default nproc),
# PARTS ("decode encode" by default; "decode" or "encode" runs half the tables).
set -euo pipefail
photos=${1:?usage: scripts/bench-batch.sh PHOTODIR}
gj2k=${GJ2K:-gj2k}
reps=${REPS:-1}
limit=${LIMIT:-0}
cores=${THREADS:-$(nproc)}
parts=${PARTS:-decode encode}
for tool in "$gj2k" grk_compress grk_decompress opj_compress opj_decompress; do
  command -v "$tool" >/dev/null || { echo "bench-batch.sh: $tool not found" >&2; exit 1; }
done

work=$(mktemp -d /tmp/bench-batch.XXXXXX)
if [[ -n ${KEEP:-} ]]; then
  echo "bench-batch.sh: work folder $work is kept" >&2
else
  trap 'rm -rf "$work"' EXIT
fi
log=$work/log  # stderr of every timed command, for the "n/a" rows

# ---- inputs ---------------------------------------------------------------------------------

mkdir -p "$work/jpg" "$work/ppm" "$work/ll" "$work/i97"
mapfile -t jpgs < <(find "$photos" -maxdepth 1 -name '*.jpg' | sort)
((limit > 0 && limit < ${#jpgs[@]})) && jpgs=("${jpgs[@]:0:limit}")
n=${#jpgs[@]}
((n > 0)) || { echo "bench-batch.sh: no .jpg in $photos" >&2; exit 1; }
cp "${jpgs[@]}" "$work/jpg/"
echo "bench-batch.sh: $n photos; converting and encoding the sets (gj2k, CPU) ..." >&2
"$gj2k" convert --img-dir "$work/jpg" --out-for ppm -o "$work/ppm" >/dev/null
"$gj2k" encode --img-dir "$work/ppm" --out-for j2k -o "$work/ll" --device cpu --quiet
"$gj2k" encode --img-dir "$work/ppm" --out-for j2k -o "$work/i97" --device cpu --quiet \
  --irreversible --rate 20
ppms=("$work"/ppm/*.ppm)
geometry=$(head -c 32 "${ppms[0]}" | tr '\n' ' ' | awk '{print $2 "x" $3}')

# ---- rows -----------------------------------------------------------------------------------
# A row is a function IN OUT that reads the set IN and writes its outputs into the empty
# folder OUT; a "prepare" function IN OUT runs before each repetition, outside the timing.

q() { "$@" >/dev/null 2>>"$log"; }
dec_gj2k_gpu() { q "$gj2k" decode --img-dir "$1" --out-for ppm -o "$2" --device gpu --quiet; }
dec_gj2k_cpu() { q "$gj2k" decode --img-dir "$1" --out-for ppm -o "$2" --device cpu --quiet; }
dec_gj2k_auto() { q "$gj2k" decode --img-dir "$1" --out-for ppm -o "$2" --device auto --quiet; }
dec_grk_loop() {
  local f
  for f in "$1"/*.j2k; do
    q grk_decompress -i "$f" -o "$2/$(basename "$f" .j2k).ppm" -H "$cores" || return 1
  done
}
dec_grk_dir() { q grk_decompress -y "$1" -a "$2" -O ppm -H "$cores"; }
dec_opj_loop() {
  local f
  for f in "$1"/*.j2k; do
    q opj_decompress -i "$f" -o "$2/$(basename "$f" .j2k).ppm" -threads "$cores" || return 1
  done
}
copy_set() { cp "$1"/* "$2/"; }  # opj -ImgDir writes next to its inputs
dec_opj_dir() { q opj_decompress -ImgDir "$2" -OutFor ppm -threads "$cores"; }

enc_opts=()  # gj2k encode options: empty for lossless, the 9/7 ones set per table below
ref_opts=()  # the same for grk_compress and opj_compress
enc_gj2k_gpu() {
  q "$gj2k" encode --img-dir "$1" --out-for j2k -o "$2" --device gpu --quiet "${enc_opts[@]}"
}
enc_gj2k_cpu() {
  q "$gj2k" encode --img-dir "$1" --out-for j2k -o "$2" --device cpu --quiet "${enc_opts[@]}"
}
enc_grk_loop() {
  local f
  for f in "$1"/*.ppm; do
    q grk_compress -i "$f" -o "$2/$(basename "$f" .ppm).j2k" -H "$cores" "${ref_opts[@]}" ||
      return 1
  done
}
enc_grk_dir() { q grk_compress -y "$1" -a "$2" -O j2k -H "$cores" "${ref_opts[@]}"; }
enc_opj_loop() {
  local f
  for f in "$1"/*.ppm; do
    q opj_compress -i "$f" -o "$2/$(basename "$f" .ppm).j2k" -threads "$cores" "${ref_opts[@]}" ||
      return 1
  done
}
enc_opj_dir() { q opj_compress -ImgDir "$2" -OutFor j2k -threads "$cores" "${ref_opts[@]}"; }

# ---- checks (run on a row's outputs after its last repetition) -------------------------------

# Lossless decode: how many outputs equal their PPM input.
check_identical() {
  local f same=0
  for f in "$work"/ppm/*.ppm; do
    "$gj2k" compare "$f" "$1/$(basename "$f")" >/dev/null 2>&1 && same=$((same + 1))
  done
  echo "$same/$n identical"
}
# Lowest PSNR (dB) of the outputs against their PPM inputs.
min_psnr() {
  local f
  for f in "$work"/ppm/*.ppm; do
    "$gj2k" compare --metrics "$f" "$1/$(basename "$f")" 2>/dev/null || echo "PSNR 0 dB"
  done | awk '{for (i = 1; i < NF; i++) if ($i == "PSNR") p = $(i + 1) == "inf" ? 999 : $(i + 1) + 0
              if (NR == 1 || p < m) m = p}
              END {printf "min PSNR %.2f dB\n", m}'
}
# Encode: how many outputs have the bytes of the CPU-made set $1 (issue 15: identical bytes).
same_bytes() {
  local f same=0
  for f in "$1"/*.j2k; do cmp -s "$f" "$2/$(basename "$f")" && same=$((same + 1)); done
  echo "$same/$n bytes = CPU set"
}
# Encode: decode the outputs with gj2k (CPU); lossless: compare with the inputs, 9/7: PSNR.
check_encode() {  # OUT CPU_SET CHECK
  rm -rf "$work/chk" && mkdir "$work/chk"
  q "$gj2k" decode --img-dir "$1" --out-for ppm -o "$work/chk" --device cpu --quiet || {
    echo "decode failed"
    return
  }
  echo "$($3 "$work/chk"), $(same_bytes "$2" "$1")"
}
check_lossless_encode() { check_encode "$1" "$work/ll" check_identical; }
check_psnr_encode() { check_encode "$1" "$work/i97" min_psnr; }

# ---- timing and the table --------------------------------------------------------------------

now() { date +%s.%N; }
ref_seconds=""

# row LABEL IN EXT FN [PREPARE] [CHECK]: times FN IN OUT REPS times; prints one table line.
row() {
  local label=$1 in=$2 ext=$3 fn=$4 prep=${5:-} check=${6:-} out=$work/out best="" t0 t1 s
  local r failed=""
  : >"$log"
  for ((r = 0; r < reps; r++)); do
    rm -rf "$out" && mkdir "$out"
    [[ -n $prep ]] && $prep "$in" "$out"
    local before
    before=$(find "$out" -name "*.$ext" | wc -l)
    cat "$in"/* >/dev/null  # inputs in the page cache for every row alike
    t0=$(now)
    if ! $fn "$in" "$out"; then failed="n/a"; break; fi
    t1=$(now)
    if (($(find "$out" -name "*.$ext" | wc -l) - before != n)); then failed="fail"; break; fi
    s=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')
    if [[ -z $best ]] || awk -v s="$s" -v b="$best" 'BEGIN {exit !(s < b)}'; then best=$s; fi
  done
  if [[ -n $failed ]]; then
    printf '%-34s %9s   %s\n' "$label" "$failed" "$(tail -n 1 "$log" | sed "s|$work/||g")"
    [[ $label == *"--device gpu"* ]] && summary+=("$table: $failed")
    return
  fi
  [[ $fn == *grk_loop ]] && ref_seconds=$best
  local mb="" note=""
  [[ $ext == j2k ]] && mb=$(find "$out" -name '*.j2k' -printf '%s\n' |
    awk '{s += $1} END {printf "%.1f", s / 1e6}')
  [[ -n $check ]] && note=$($check "$out")
  [[ $label == *"--device gpu"* && -n $ref_seconds ]] &&
    summary+=("$table: $(awk -v r="$ref_seconds" -v s="$best" 'BEGIN {printf "%.2fx", r / s}')")
  awk -v l="$label" -v s="$best" -v n="$n" -v ref="$ref_seconds" -v mb="$mb" -v note="$note" \
    'BEGIN {x = ref != "" ? sprintf("%.2fx", ref / s) : "-"
            printf "%-34s %9.3f %9.2f %10s %9s   %s\n", l, s, n / s, x, mb, note}'
}

summary=()  # "TABLE: RATIO" of the gj2k --device gpu rows against the Grok loop
table=""
header() {
  table=$1
  echo
  echo "== $1"
  printf '%-34s %9s %9s %10s %9s   %s\n' row seconds images/s "x grk loop" "MB out" check
}

# The reference row (the Grok loop) runs first so that every other row can be related to it.
decode_table() {  # TITLE SET CHECK
  ref_seconds=""
  header "$1"
  row "grk_decompress loop (-H $cores)" "$2" ppm dec_grk_loop
  row "gj2k decode --device gpu (1 call)" "$2" ppm dec_gj2k_gpu "" "$3"
  row "gj2k decode --device cpu (1 call)" "$2" ppm dec_gj2k_cpu "" "$3"
  row "gj2k decode --device auto (1 call)" "$2" ppm dec_gj2k_auto "" "$3"
  row "grk_decompress -y DIR (1 call)" "$2" ppm dec_grk_dir
  row "opj_decompress loop (-threads $cores)" "$2" ppm dec_opj_loop
  row "opj_decompress -ImgDir (1 call)" "$2" ppm dec_opj_dir copy_set
}
encode_table() {  # TITLE CHECK
  ref_seconds=""
  header "$1"
  row "grk_compress loop (-H $cores)" "$work/ppm" j2k enc_grk_loop
  row "gj2k encode --device gpu (1 call)" "$work/ppm" j2k enc_gj2k_gpu "" "$2"
  row "gj2k encode --device cpu (1 call)" "$work/ppm" j2k enc_gj2k_cpu "" "$2"
  row "grk_compress -y DIR (1 call)" "$work/ppm" j2k enc_grk_dir
  row "opj_compress loop (-threads $cores)" "$work/ppm" j2k enc_opj_loop
  row "opj_compress -ImgDir (1 call)" "$work/ppm" j2k enc_opj_dir copy_set
}

cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sed -n 1p || true)
version() {
  { "$@" -h 2>&1 || true; } |
    awk '/compiled against/ && !v {v = $NF; sub(/\.$/, "", v)} END {print v}'
}
grk=$(version grk_compress)
opj=$(version opj_compress)
echo "Batch benchmark: $n photos ${geometry} RGB 8-bit from $photos, $(date -u '+%F %H:%M UTC')"
echo "host: $cores threads, ${cpu:-unknown CPU}; GPU: ${gpu:-none}"
echo "gj2k: $("$gj2k" --version 2>&1) ($gj2k); Grok ${grk:-?}; OpenJPEG ${opj:-?}"
mb() { du -sm "$1" | cut -f1; }
echo "sets: lossless $(mb "$work/ll") MB, 9/7 rate 20 $(mb "$work/i97") MB (gj2k encode, CPU);" \
  "PPM $(mb "$work/ppm") MB; best of REPS=$reps; wall clock"
if [[ " $parts " == *" decode "* ]]; then
  decode_table "decode, lossless (5/3) set -> PPM" "$work/ll" check_identical
  decode_table "decode, 9/7 rate-20 set -> PPM" "$work/i97" min_psnr
fi
if [[ " $parts " == *" encode "* ]]; then
  enc_opts=()
  ref_opts=()
  encode_table "encode PPM -> j2k, lossless (5/3)" check_lossless_encode
  enc_opts=(--irreversible --rate 20)
  ref_opts=(-I -r 20)
  encode_table "encode PPM -> j2k, 9/7 rate 20 (Grok, OpenJPEG: -I -r 20)" check_psnr_encode
fi
echo
echo "gj2k --device gpu against the Grok loop (images/s ratio; the issues ask for at least 5x):"
printf '  %s\n' "${summary[@]}"
