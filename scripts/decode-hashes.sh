#!/usr/bin/env bash
# Decoder output fingerprints: decodes every Part 1 conformance stream, and the encoder's output
# for a matrix of options, at full resolution and with -r 1 / -l 1, and prints one line per case,
# "sha256  file  options". A refactor that must not change the decoder's samples is checked by
# diffing this output before and after:
#   scripts/decode-hashes.sh build/bin/gj2k > before.txt   (then after the change: diff)
# Environment: GJ2K_SHARED (default ../shared beside the checkout); GJ2K_HASH_DEVICE (default
# cpu): the --device to decode on (the GPU path must print the same lines).
set -euo pipefail
# One glob order everywhere: a multi-component output's files are hashed in name order.
export LC_ALL=C
gj2k=${1:?usage: scripts/decode-hashes.sh path/to/gj2k}
shared=${GJ2K_SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/shared}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
streams=()
for f in "$shared"/conformance/input/*; do
  case "$f" in *.j2k|*.j2c|*.jp2) streams+=("$f") ;; esac
done
# Our own streams: lossy, layered, ROI-free variants the decoder's tail must reproduce exactly.
i=0
for enc in "--irreversible --rate 20" "--rate 10,2 --layers 2" "--irreversible --modes bypass,vsc --rate 8" \
           "--irreversible --tile 100x90 --tile-origin 3,5 --image-origin 7,11 --rate 12"; do
  for img in Bretagne1.ppm flower-rgb-planar-16.tif flower-minisblack-12.tif; do
    out="$work/enc$i.j2k"; i=$((i + 1))
    # shellcheck disable=SC2086
    "$gj2k" encode -i "$shared/images/$img" -o "$out" $enc --device cpu --quiet >/dev/null
    streams+=("$out")
  done
done
for f in "${streams[@]}"; do
  for opt in "" "-r 1" "-l 1"; do
    rm -f "$work"/out*
    # shellcheck disable=SC2086
    if "$gj2k" decode -i "$f" -o "$work/out.pgx" $opt --device "${GJ2K_HASH_DEVICE:-cpu}" --quiet >/dev/null 2>"$work/err"; then
      printf "%s  %s  %s\n" "$(cat "$work"/out*.pgx | sha256sum | cut -c1-16)" "$(basename "$f")" "${opt:-(full)}"
    else
      printf "%-16s  %s  %s  (%s)\n" "refused" "$(basename "$f")" "${opt:-(full)}" "$(head -c 80 "$work/err")"
    fi
  done
done
