#!/usr/bin/env bash
# Makes the batch benchmark's photo set (scripts/bench-batch.sh): 64 different 2560x1600 RGB
# crops of real photographs from Debian's wallpaper packages, each saved as a quality-88 JPEG
# (about 30 MB in all), plus OUTDIR/MANIFEST.txt naming every output's package, source file,
# view and SHA-256.
#
#   scripts/photo-set.sh OUTDIR
#
# A developer script, not part of CI. Needs apt access to the Debian bookworm archive
# (`apt-get download`, no root needed), dpkg-deb, and the Debian package python3-pil for
# /usr/bin/python3 (`apt-get install -y python3-pil`) for cropping and scaling.
#
# The photographs were picked by eye (drawings, renders, gradients and logos left out; one
# black-and-white photograph, Plasma's Grey, is kept as RGB). The packages hold 50 distinct
# photographs usable here; the 64 outputs take more than one view of the largest ones. Views
# of a W x H source:
#   centre       2560x1600 centre crop at native resolution
#   tl bl br     native-resolution corner crops (top-left, ...); the pairs used overlap by at
#                most 8% of a crop
#   left right   native-resolution crops at the left / right edge, vertically centred
#   top bottom   crops at the top / bottom edge, horizontally centred
#   cover        the whole picture scaled (Lanczos) to cover 2560x1600, then centre crop
# A source smaller than 2560x1600 in either dimension is first scaled up (Lanczos) to cover
# 2560x1600 (14 sources, by 1.25x to 2x); the manifest says which. Same packages and
# python3-pil version, same bytes (the manifest's SHA-256 column checks that).
# Environment: QUALITY (JPEG quality, default 88), KEEP_DEBS (keep the download dir).
set -euo pipefail
out=${1:?usage: scripts/photo-set.sh OUTDIR}
quality=${QUALITY:-88}
py=/usr/bin/python3
$py -c 'import PIL' 2>/dev/null || {
  echo "photo-set.sh: needs python3-pil for /usr/bin/python3 (apt-get install -y python3-pil)" >&2
  exit 1
}

# package|path inside the package|views (comma-separated)
list=$(cat <<'EOF'
lomiri-wallpapers-16.04|usr/share/backgrounds/Bridge_by_Sander_Klootwijk.jpg|centre,cover
lomiri-wallpapers-16.04|usr/share/backgrounds/Dragonfly_by_Bolly.jpg|tl,br,cover
lomiri-wallpapers-16.04|usr/share/backgrounds/Picture_0B_by_freespace.jpg|centre
lomiri-wallpapers-16.04|usr/share/backgrounds/Picture_1A_by_freespace.jpg|centre
lomiri-wallpapers-16.04|usr/share/backgrounds/Wine_by_Jakkub_Mede.jpg|top,bottom
lomiri-wallpapers-16.04|usr/share/backgrounds/aitzgorri_by_Aitzol_Berasategi.jpg|centre
lomiri-wallpapers-16.04|usr/share/backgrounds/analogpattern_by_Peter_Nerlich.jpg|centre
lomiri-wallpapers-16.04|usr/share/backgrounds/free_by_Peter_Nerlich.jpg|centre
lomiri-wallpapers-16.04|usr/share/backgrounds/friends_by_Aitzol_Berasategi.jpg|top,bottom
lomiri-wallpapers-16.04|usr/share/backgrounds/greentock_by_Peter_Nerlich.jpg|centre
lomiri-wallpapers-16.04|usr/share/backgrounds/life_by_Aitzol_Berasategi.jpg|centre
lomiri-wallpapers-16.04|usr/share/backgrounds/picosdeeuropa_by_Aitzol_Berasategi.jpg|centre,cover
lomiri-wallpapers-16.04|usr/share/backgrounds/seeding_by_Clements_Engelhardt.jpg|left,right,cover
lomiri-wallpapers-16.04|usr/share/backgrounds/sunset_by_Aitzol_Berasategi.jpg|tl,br,cover
lomiri-wallpapers-20.04|usr/share/backgrounds/Kleiber_by_Lukas_Baubkus.jpg|tl,bl,cover
digikam-data|usr/share/digikam/about/images/body-background.jpg|tl,br,cover
lxqt-themes|usr/share/lxqt/wallpapers/Butterfly-Kenneth-Wimer.jpg|centre
lxqt-themes|usr/share/lxqt/wallpapers/Valendas.png|centre
lxqt-themes|usr/share/lxqt/wallpapers/after-the-rain.jpg|centre
lxqt-themes|usr/share/lxqt/wallpapers/appleflower.png|centre
lxqt-themes|usr/share/lxqt/wallpapers/beam.png|centre
lxqt-themes|usr/share/lxqt/wallpapers/butterfly.png|centre
lxqt-themes|usr/share/lxqt/wallpapers/cloud.png|centre
lxqt-themes|usr/share/lxqt/wallpapers/drop.png|centre
lxqt-themes|usr/share/lxqt/wallpapers/flowers.png|centre
lxqt-themes|usr/share/lxqt/wallpapers/fog.jpg|centre
lxqt-themes|usr/share/lxqt/wallpapers/this-is-not-windows.jpg|centre
mate-backgrounds|usr/share/backgrounds/mate/nature/Aqua.jpg|centre
mate-backgrounds|usr/share/backgrounds/mate/nature/Blinds.jpg|centre
mate-backgrounds|usr/share/backgrounds/mate/nature/Dune.jpg|centre
mate-backgrounds|usr/share/backgrounds/mate/nature/FreshFlower.jpg|centre
mate-backgrounds|usr/share/backgrounds/mate/nature/Garden.jpg|centre
mate-backgrounds|usr/share/backgrounds/mate/nature/GreenMeadow.jpg|centre
mate-backgrounds|usr/share/backgrounds/mate/nature/LadyBird.jpg|centre
mate-backgrounds|usr/share/backgrounds/mate/nature/RainDrops.jpg|centre
mate-backgrounds|usr/share/backgrounds/mate/nature/Storm.jpg|centre
mate-backgrounds|usr/share/backgrounds/mate/nature/TwoWings.jpg|centre
mate-backgrounds|usr/share/backgrounds/mate/nature/Wood.jpg|centre
mate-backgrounds|usr/share/backgrounds/mate/nature/YellowFlower.jpg|centre
plasma-workspace-wallpapers|usr/share/wallpapers/BytheWater/contents/images/2560x1600.jpg|centre
plasma-workspace-wallpapers|usr/share/wallpapers/ColdRipple/contents/images/2560x1600.jpg|centre
plasma-workspace-wallpapers|usr/share/wallpapers/ColorfulCups/contents/images/2560x1600.jpg|centre
plasma-workspace-wallpapers|usr/share/wallpapers/DarkestHour/contents/images/2560x1600.jpg|centre
plasma-workspace-wallpapers|usr/share/wallpapers/EveningGlow/contents/images/2560x1600.jpg|centre
plasma-workspace-wallpapers|usr/share/wallpapers/FallenLeaf/contents/images/2560x1600.jpg|centre
plasma-workspace-wallpapers|usr/share/wallpapers/Grey/contents/images/2560x1600.jpg|centre
plasma-workspace-wallpapers|usr/share/wallpapers/Kite/contents/images/2560x1600.jpg|centre
plasma-workspace-wallpapers|usr/share/wallpapers/OneStandsOut/contents/images/2560x1600.jpg|centre
plasma-workspace-wallpapers|usr/share/wallpapers/Path/contents/images/2560x1600.jpg|centre
plasma-workspace-wallpapers|usr/share/wallpapers/summer_1am/contents/images/2560x1600.jpg|centre
EOF
)

work=$(mktemp -d /tmp/photo-set.XXXXXX)
chmod 755 "$work"  # apt-get download as root hands the fetch to the _apt user
if [[ -n ${KEEP_DEBS:-} ]]; then
  echo "photo-set.sh: downloads kept in $work" >&2
else
  trap 'rm -rf "$work"' EXIT
fi
mapfile -t packages < <(cut -d'|' -f1 <<<"$list" | sort -u)
echo "photo-set.sh: apt-get download ${packages[*]}" >&2
(cd "$work" && apt-get download "${packages[@]}" >/dev/null)
for deb in "$work"/*.deb; do
  pkg=$(dpkg-deb -f "$deb" Package)
  ver=$(dpkg-deb -f "$deb" Version)
  echo "$pkg $ver" >>"$work/versions"
  mkdir -p "$work/root/$pkg"
  dpkg-deb -x "$deb" "$work/root/$pkg"
done

mkdir -p "$out"
rm -f "$out"/*.jpg "$out/MANIFEST.txt"
printf '%s\n' "$list" >"$work/list"
$py - "$work" "$out" "$quality" <<'PYEOF'
import hashlib, os, sys
from PIL import Image

work, out, quality = sys.argv[1], sys.argv[2], int(sys.argv[3])
W, H = 2560, 1600
versions = dict(l.split() for l in open(os.path.join(work, "versions")))

def cover(im, w, h):
    """Scales `im` (Lanczos) so that it covers w x h, keeping its aspect ratio."""
    s = max(w / im.width, h / im.height)
    size = (max(w, round(im.width * s)), max(h, round(im.height * s)))
    return im.resize(size, Image.LANCZOS)

def view(im, name):
    """The 2560x1600 view `name` of `im` (see the views in the header)."""
    if name == "cover":
        im = cover(im, W, H)
        name = "centre"
    x_mid, y_mid = (im.width - W) // 2, (im.height - H) // 2
    x_end, y_end = im.width - W, im.height - H
    x, y = {
        "centre": (x_mid, y_mid), "tl": (0, 0), "tr": (x_end, 0), "bl": (0, y_end),
        "br": (x_end, y_end), "left": (0, y_mid), "right": (x_end, y_mid),
        "top": (x_mid, 0), "bottom": (x_mid, y_end),
    }[name]
    return im.crop((x, y, x + W, y + H))

rows, sources, upscaled, n = [], 0, 0, 0
for line in open(os.path.join(work, "list")):
    pkg, path, views = line.strip().split("|")
    src = Image.open(os.path.join(work, "root", pkg, path))
    if src.mode != "RGB":
        src = src.convert("RGB")
    sources += 1
    note = ""
    if src.width < W or src.height < H:
        note = "upscaled %.2fx" % max(W / src.width, H / src.height)
        upscaled += 1
        size0 = "%dx%d" % src.size
        src = cover(src, W, H)
    else:
        size0 = "%dx%d" % src.size
    stem = os.path.splitext(os.path.basename(path))[0]
    if stem == "2560x1600":  # Plasma names its files by size; the folder names the picture
        stem = path.split("/")[-4]
    for v in views.split(","):
        n += 1
        name = "%02d_%s_%s.jpg" % (n, stem, v)
        dst = os.path.join(out, name)
        view(src, v).save(dst, "JPEG", quality=quality, optimize=True)
        digest = hashlib.sha256(open(dst, "rb").read()).hexdigest()
        rows.append((name, pkg, versions[pkg], "/" + path, size0, v, note, digest))

if n != 64:
    sys.exit("photo-set.sh: %d outputs, expected 64" % n)
total = sum(os.path.getsize(os.path.join(out, r[0])) for r in rows)
with open(os.path.join(out, "MANIFEST.txt"), "w") as f:
    f.write("# 64 RGB 2560x1600 JPEG (quality %d) crops of %d photographs from Debian bookworm\n"
            % (quality, sources))
    f.write("# packages, made by scripts/photo-set.sh; %d bytes in all. %d sources smaller than\n"
            % (total, upscaled))
    f.write("# 2560x1600 were scaled up (Lanczos) to cover it first. Views: centre = native\n")
    f.write("# centre crop; tl/tr/bl/br, left/right, top/bottom = native crops at those edges;\n")
    f.write("# cover = the whole picture scaled to cover 2560x1600, centre crop.\n")
    f.write("# output | package | version | source file | source size | view | note | sha256\n")
    for r in rows:
        f.write(" | ".join(r) + "\n")
print("photo-set.sh: %d files, %d bytes, in %s" % (n, total, out), file=sys.stderr)
PYEOF
