#!/usr/bin/env bash
# The README's main job: encode a generated photo-like scene losslessly with gj2k, decode it with
# OpenJPEG's opj_decompress, check the round trip is bit-exact, print a one-line summary.
#   scripts/demo.sh BUILD_DIR [WxH]      (default 2048x1536, RGB 8-bit)
# Exits non-zero when anything fails or the decoded image differs from the input.
set -euo pipefail
build=${1:?usage: scripts/demo.sh BUILD_DIR [WxH]}
size=${2:-2048x1536}
gj2k="$build/bin/gj2k"
[ -x "$gj2k" ] || { echo "demo: $gj2k not found (build first)" >&2; exit 1; }
command -v opj_decompress >/dev/null 2>&1 ||
  { echo "demo: opj_decompress not found (scripts/dev.sh setup installs libopenjp2-tools)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Encode; gj2k prints "OUT: <image> -> N bytes (...), ratio R:1, B bpp, T s, M Mpixel/s".
line=$("$gj2k" encode --synthetic "$size" --save-input "$tmp/input.ppm" -o "$tmp/demo.j2k")
opj_decompress -i "$tmp/demo.j2k" -o "$tmp/decoded.ppm" >"$tmp/opj.log" 2>&1 ||
  { echo "demo: opj_decompress failed:" >&2; cat "$tmp/opj.log" >&2; exit 1; }
if ! check=$("$gj2k" compare "$tmp/input.ppm" "$tmp/decoded.ppm"); then
  echo "demo: MISMATCH after OpenJPEG decode: $check" >&2
  exit 1
fi
raw=$(stat -c %s "$tmp/input.ppm")
j2k=$(stat -c %s "$tmp/demo.j2k")
ratio=$(echo "$line" | sed -n 's/.*ratio \([0-9.]*\):1.*/\1/p')
secs=$(echo "$line" | sed -n 's/.*bpp, \([0-9.]*\) s.*/\1/p')
mpix=$(echo "$line" | sed -n 's/.* \([0-9.]*\) Mpixel\/s.*/\1/p')
echo "gj2k demo: ${size} RGB 8-bit scene, lossless ${raw} -> ${j2k} bytes (ratio ${ratio}:1)," \
     "encode ${secs} s (${mpix} Mpixel/s), OpenJPEG decode bit-exact: OK"
