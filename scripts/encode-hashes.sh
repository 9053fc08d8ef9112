#!/usr/bin/env bash
# Encoder output fingerprints: encodes the shared test images with a matrix of options and
# prints one line per case, "sha256  image  options". A refactor that must not change the
# encoder's bytes is checked by diffing this output before and after:
#   scripts/encode-hashes.sh build/bin/gj2k > before.txt   (then after the change: diff)
# Environment: GJ2K_SHARED (default ../shared beside the checkout); GJ2K_HASH_DEVICE (default
# cpu): the --device to encode on (the GPU path must print the same lines).
set -euo pipefail
# One glob order everywhere: a multi-component output's files are hashed in name order.
export LC_ALL=C
gj2k=${1:?usage: scripts/encode-hashes.sh path/to/gj2k}
shared=${GJ2K_SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/shared}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
images=(Bretagne1.ppm basn6a08.tif flower-minisblack-12.tif flower-rgb-planar-16.tif
        flower-minisblack-01.tif byte.tif)
cases=(
  ""
  "--irreversible"
  "--irreversible --rate 40,10,1"
  "--rate 20,5 --layers 2"
  "--psnr 30,40 --irreversible"
  "--bpp 0.5,2"
  "--levels 0"
  "--levels 2 --cblk 16x32 --precincts 64x64,32x32"
  "--modes bypass,reset,termall,vsc,pterm,segsym"
  "--modes bypass --irreversible --rate 10"
  "--order RPCL --tile 64x48 --tile-origin 3,5 --image-origin 7,11"
  "--order CPRL --tile-parts R --sop --eph --tlm --plt"
  "--order PCRL --precincts 32x32 --tile 128x128 --tile-parts C"
  "--mct 0 --guard-bits 1 --irreversible --rate 8"
  "--tile 100x100 --irreversible --psnr 35"
)
for img in "${images[@]}"; do
  [ -f "$shared/images/$img" ] || { echo "missing $shared/images/$img" >&2; exit 2; }
  for c in "${cases[@]}"; do
    out="$work/o.j2k"
    # shellcheck disable=SC2086
    if "$gj2k" encode -i "$shared/images/$img" -o "$out" $c --device "${GJ2K_HASH_DEVICE:-cpu}" --threads 2 \
         >/dev/null 2>"$work/err"; then
      printf "%s  %s  %s\n" "$(sha256sum <"$out" | cut -c1-16)" "$img" "${c:-(defaults)}"
    else
      printf "%-16s  %s  %s  (%s)\n" "refused" "$img" "${c:-(defaults)}" "$(head -c 80 "$work/err")"
    fi
  done
done
