"""gj2k from Python: encode a NumPy array, read the header, decode it (whole, reduced, a region).

Usage: python3 example.py OUTPUT.jp2
"""
import sys

import numpy as np

import gj2k

path = sys.argv[1] if len(sys.argv) > 1 else "example.jp2"
y, x = np.mgrid[0:240, 0:320]
rgb = np.stack([x % 256, y % 256, (x + y) % 256], axis=-1).astype(np.uint8)

gj2k.encode(rgb, path, lossless=True, levels=4)            # a file, format by extension
lossy = gj2k.encode(rgb, None, lossless=False, rate=25)    # bytes, 25:1
info = gj2k.info(path)
print(f"gj2k {gj2k.__version__}: {path} {info['width']}x{info['height']}, "
      f"{len(info['components'])} components, {info['levels']} levels, {info['color_space']}")

back = gj2k.decode(path)
assert back.dtype == np.uint8 and np.array_equal(back, rgb), "lossless round trip differs"
half = gj2k.decode(lossy, reduce=1)
crop = gj2k.decode(path, region=(100, 50, 200, 150))
print(f"lossless round trip identical; lossy {len(lossy)} bytes, preview {half.shape}, "
      f"crop {crop.shape}")
try:
    gj2k.decode(b"not JPEG 2000")
except gj2k.Error as e:
    print(f"bad input: {e.code}: {e}")
