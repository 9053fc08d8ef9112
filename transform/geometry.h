// Tile-component, resolution and subband geometry (ISO/IEC 15444-1 Annex B.5, B.15).
// Rectangles are half-open [x0, x1) x [y0, y1) on the grid of the thing they bound: a
// tile-component rectangle is on its component's grid; a resolution rectangle on that
// resolution's grid; a subband rectangle on the subband's own grid. Coordinates are absolute
// (the image origin is not subtracted): lifting parity and code-block anchoring depend on them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/band.h"

namespace gj2k::transform {

struct Rect {
  uint32_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  uint32_t width() const { return x1 > x0 ? x1 - x0 : 0; }
  uint32_t height() const { return y1 > y0 ? y1 - y0 : 0; }
  bool empty() const { return width() == 0 || height() == 0; }
  size_t area() const { return size_t{width()} * height(); }
  bool operator==(const Rect&) const = default;
};

// Subband orientations (B.15), shared with entropy/: core/band.h.
using core::Band;

// The most decomposition levels SIZ/COD allow (A.6.1: 0..32).
inline constexpr int kMaxLevels = 32;

// ceil(a / 2^n) for n in 0..32, as used throughout Annex B.
inline uint32_t ceil_div_pow2(uint32_t a, int n) {
  if (n >= 32) return a > 0 ? 1 : 0;
  return static_cast<uint32_t>((uint64_t{a} + (uint64_t{1} << n) - 1) >> n);
}

// The tile-component of a tile (a rectangle on the reference grid) for a component with
// subsampling (dx, dy) >= 1: tc = ceil(tile / (dx, dy)) (B-12).
Rect tile_component_rect(const Rect& tile, uint32_t dx, uint32_t dy);

// Resolution level r (0 = lowest, `levels` = full) of a tile-component `tc` decomposed
// `levels` times: tr = ceil(tc / 2^(levels - r)) (B-14).
Rect resolution_rect(const Rect& tc, int levels, int r);

// Subband `band` at decomposition level n (1..levels; the LL band of the last level is
// subband_rect(tc, levels, kLL)); n = 0 with kLL gives tc itself (B-15):
//   tb = ceil((tc - 2^(n-1) * (xo_b, yo_b)) / 2^n).
Rect subband_rect(const Rect& tc, int n, Band band);

// The subband of resolution r: r = 0 holds LL at level `levels`; r >= 1 holds HL, LH, HH at
// level n = levels - r + 1 (B.5).
inline int level_of_resolution(int levels, int r) {
  return r == 0 ? levels : levels - r + 1;
}

// Where a subband lies in the Mallat arrangement that the multi-level DWT leaves in a
// tile-component buffer: the (x, y) offset of its first sample from the buffer's first sample.
// At each level the low-pass half comes first: level n's LL occupies the top-left
// width(res r) x height(res r) samples, with res r = levels - n, and its HL/LH/HH follow to the
// right, below, and diagonally.
struct BandPlacement {
  Rect rect;           // the subband's rectangle on its own grid (subband_rect)
  uint32_t x_off = 0;  // column of its first sample in the buffer
  uint32_t y_off = 0;  // row of its first sample in the buffer
};
BandPlacement band_placement(const Rect& tc, int levels, int n, Band band);

}  // namespace gj2k::transform
