#!/usr/bin/env bash
# gj2k encode vs opj_compress, same settings, same thread count, in one run: file size, PSNR
# (both decoded by opj_decompress) and wall time of the encode (file read included for both).
#
#   scripts/compare-opj.sh BUILD_DIR [THREADS] [SIZES]
#
# Images: the shared photos Bretagne1 and Cevennes2 (640x480, rates 0.25/0.5/1/2 bpp and
# lossless), a 2560x1600 "photo" and a 10240x6400 image made by mirror-tiling the shared photos
# (lossless and 9/7 at 1 bpp). SIZES="small" skips the 10240x6400 image.
# Environment: GJ2K_SHARED (default ../shared), OPJ_COMPRESS, OPJ_DECOMPRESS (default from PATH).
set -euo pipefail
build=${1:?usage: scripts/compare-opj.sh BUILD_DIR [THREADS] [SIZES]}
threads=${2:-$(nproc)}
sizes=${3:-all}
here=$(cd "$(dirname "$0")/.." && pwd)
shared=${GJ2K_SHARED:-$here/../shared}
gj2k="$build/bin/gj2k"
opjc=${OPJ_COMPRESS:-opj_compress}
opjd=${OPJ_DECOMPRESS:-opj_decompress}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Mirror-tiles a binary P6 image to WxH (pure Python, no dependencies).
tile() {  # src dst W H
  python3 - "$@" <<'EOF'
import sys
src, dst, W, H = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
data = open(src, 'rb').read()
fields, pos = [], 0
while len(fields) < 4:
    while data[pos:pos+1].isspace(): pos += 1
    if data[pos:pos+1] == b'#':
        pos = data.index(b'\n', pos) + 1; continue
    end = pos
    while not data[end:end+1].isspace(): end += 1
    fields.append(data[pos:end]); pos = end
pos += 1
w, h = int(fields[1]), int(fields[2])
px = data[pos:pos + w * h * 3]
rows = []
for y in range(h):
    r = px[y * w * 3:(y + 1) * w * 3]
    m = b''.join(r[i:i + 3] for i in range(len(r) - 3, -1, -3))
    line = (r + m) * (W // (2 * w) + 1)
    rows.append(line[:W * 3])
with open(dst, 'wb') as f:
    f.write(b'P6\n%d %d\n255\n' % (W, H))
    for y in range(H):
        k = y % (2 * h)
        f.write(rows[k] if k < h else rows[2 * h - 1 - k])
EOF
}

# Runs a command, prints "wall user+sys" seconds.
timed() {
  local TIMEFORMAT='%R %U %S' out
  out=$({ time "$@" >/dev/null 2>&1; } 2>&1)
  echo "$out" | awk '{ printf "%.3f %.3f", $1, $2 + $3 }'
}
psnr() {  # original decoded.j2k -> PSNR dB (or "exact")
  "$opjd" -i "$2" -o "$tmp/dec.ppm" >/dev/null 2>&1
  local line
  line=$("$gj2k" compare --metrics "$1" "$tmp/dec.ppm")
  case "$line" in identical*) echo "exact" ;; *) echo "$line" | sed -n 's/.*PSNR \([0-9.]*\) dB.*/\1/p' ;; esac
}

printf '%-22s %-12s %9s %9s %7s %7s %7s %7s %7s %7s %7s\n' image mode gj2k_B opj_B size% \
  gj2k_dB opj_dB gj2k_s opj_s gj2k_cpu opj_cpu
run() {  # image label gj2k-args opj-args
  local img=$1 label=$2 g o ga oa gp op
  g=$(timed "$gj2k" encode --quiet --threads "$threads" -i "$img" -o "$tmp/g.j2k" $3)
  o=$(timed "$opjc" -threads "$threads" -i "$img" -o "$tmp/o.j2k" $4)
  ga=$(stat -c %s "$tmp/g.j2k")
  oa=$(stat -c %s "$tmp/o.j2k")
  gp=$(psnr "$img" "$tmp/g.j2k")
  op=$(psnr "$img" "$tmp/o.j2k")
  printf '%-22s %-12s %9d %9d %+6.2f%% %7s %7s %7.2f %7.2f %7.2f %7.2f\n' "$(basename "$img")" \
    "$label" "$ga" "$oa" "$(awk "BEGIN { print ($ga - $oa) * 100 / $oa }")" "$gp" "$op" \
    ${g% *} ${o% *} ${g#* } ${o#* }
}

for photo in Bretagne1 Cevennes2; do
  img="$shared/images/$photo.ppm"
  run "$img" lossless "" ""
  for bpp in 0.25 0.5 1 2; do
    ratio=$(awk "BEGIN { print 24 / $bpp }")
    run "$img" "9/7 ${bpp}bpp" "--irreversible --rate $ratio" "-I -r $ratio"
  done
done
tile "$shared/images/Bretagne1.ppm" "$tmp/photo_2560x1600.ppm" 2560 1600
run "$tmp/photo_2560x1600.ppm" lossless "" ""
run "$tmp/photo_2560x1600.ppm" "9/7 1bpp" "--irreversible --rate 24" "-I -r 24"
if [ "$sizes" != small ]; then
  tile "$shared/images/Cevennes2.ppm" "$tmp/big_10240x6400.ppm" 10240 6400
  run "$tmp/big_10240x6400.ppm" lossless "" ""
  run "$tmp/big_10240x6400.ppm" "9/7 1bpp" "--irreversible --rate 24" "-I -r 24"
fi
echo "threads: $threads; _s = wall seconds, _cpu = user+sys CPU seconds, one run each (file read included)"
