#include "transform/geometry.h"

namespace gj2k::transform {

Rect tile_component_rect(const Rect& tile, uint32_t dx, uint32_t dy) {
  auto c = [](uint32_t a, uint32_t d) { return static_cast<uint32_t>((uint64_t{a} + d - 1) / d); };
  return {c(tile.x0, dx), c(tile.y0, dy), c(tile.x1, dx), c(tile.y1, dy)};
}

Rect resolution_rect(const Rect& tc, int levels, int r) {
  const int s = levels - r;
  return {ceil_div_pow2(tc.x0, s), ceil_div_pow2(tc.y0, s), ceil_div_pow2(tc.x1, s),
          ceil_div_pow2(tc.y1, s)};
}

Rect subband_rect(const Rect& tc, int n, Band band) {
  if (n == 0) return tc;
  const uint32_t xo = static_cast<uint32_t>(band) & 1u;
  const uint32_t yo = static_cast<uint32_t>(band) >> 1;
  // (tc - 2^(n-1) * o) / 2^n, ceil; computed in 64 bits so the shift-off never underflows:
  // ceil((a - h) / 2^n) with h = 2^(n-1)*o equals floor((a - h + 2^n - 1) / 2^n), and
  // a - h + 2^n - 1 >= 0 for a >= 0 since h < 2^n.
  auto f = [n](uint32_t a, uint32_t o) -> uint32_t {
    if (n >= 33) return 0;  // unreachable for n <= 32 in practice
    const int64_t h = o ? (int64_t{1} << (n - 1)) : 0;
    const int64_t d = int64_t{1} << n;
    return static_cast<uint32_t>((int64_t{a} - h + d - 1) / d);
  };
  return {f(tc.x0, xo), f(tc.y0, yo), f(tc.x1, xo), f(tc.y1, yo)};
}

BandPlacement band_placement(const Rect& tc, int levels, int n, Band band) {
  BandPlacement p;
  p.rect = subband_rect(tc, n, band);
  if (n == 0 || band == Band::kLL) return p;  // LL sits at the origin of the buffer
  // Level n splits resolution (levels - n + 1), whose low half has the size of level n's LL.
  const Rect ll = subband_rect(tc, n, Band::kLL);
  const uint32_t xo = static_cast<uint32_t>(band) & 1u;
  const uint32_t yo = static_cast<uint32_t>(band) >> 1;
  p.x_off = xo ? ll.width() : 0;
  p.y_off = yo ? ll.height() : 0;
  return p;
}

}  // namespace gj2k::transform
