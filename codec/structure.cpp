// Precinct and code-block partitions (15444-1 B.6, B.7).
#include "codec/structure.h"

#include <algorithm>
#include <string>

#include "gj2k/error.h"

namespace gj2k::codec {
namespace {

// The cells of a grid of 2^e-sized cells anchored at 0 that meet [a0, a1): first index and
// count (count 0 when the interval is empty).
void grid_cells(uint32_t a0, uint32_t a1, int e, uint32_t& first, uint32_t& count) {
  if (a1 <= a0) {
    first = count = 0;
    return;
  }
  first = a0 >> e;
  count = transform::ceil_div_pow2(a1, e) - first;
}

// Cell `index` of a 2^e grid along one axis, clipped to [a0, a1).
void cell_span(uint64_t index, int e, uint32_t a0, uint32_t a1, uint32_t& lo, uint32_t& hi) {
  const uint64_t start = index << e;
  const uint64_t end = start + (uint64_t{1} << e);
  lo = static_cast<uint32_t>(std::clamp<uint64_t>(start, a0, a1));
  hi = static_cast<uint32_t>(std::clamp<uint64_t>(end, a0, a1));
}

}  // namespace

Rect BandLayout::code_block(uint32_t i, uint32_t j) const {
  Rect r;
  cell_span(uint64_t{cb_x0} + i, xcb, rect.x0, rect.x1, r.x0, r.x1);
  cell_span(uint64_t{cb_y0} + j, ycb, rect.y0, rect.y1, r.y0, r.y1);
  return r;
}

Precinct ResolutionLayout::precinct(uint32_t k) const {
  if (k >= precinct_count()) {
    throw Error(ErrorCode::kInternal, "precinct " + std::to_string(k) + " of " +
                                          std::to_string(precinct_count()) + " at resolution " +
                                          std::to_string(r));
  }
  const uint64_t pi = uint64_t{px0} + k % precincts_x;
  const uint64_t pj = uint64_t{py0} + k / precincts_x;
  Precinct p;
  cell_span(pi, ppx, rect.x0, rect.x1, p.rect.x0, p.rect.x1);
  cell_span(pj, ppy, rect.y0, rect.y1, p.rect.y0, p.rect.y1);
  // B.6: the precinct of resolution r > 0 covers a 2^(PPx-1) x 2^(PPy-1) area of each of its
  // subbands, at the same partition index.
  const int bx = r > 0 ? ppx - 1 : ppx;
  const int by = r > 0 ? ppy - 1 : ppy;
  p.bands.resize(bands.size());
  for (size_t b = 0; b < bands.size(); ++b) {
    const BandLayout& band = bands[b];
    PrecinctBand& pb = p.bands[b];
    cell_span(pi, bx, band.rect.x0, band.rect.x1, pb.rect.x0, pb.rect.x1);
    cell_span(pj, by, band.rect.y0, band.rect.y1, pb.rect.y0, pb.rect.y1);
    if (pb.rect.empty()) continue;
    uint32_t first = 0;
    grid_cells(pb.rect.x0, pb.rect.x1, band.xcb, first, pb.blocks_x);
    pb.cb_i0 = first - band.cb_x0;
    grid_cells(pb.rect.y0, pb.rect.y1, band.ycb, first, pb.blocks_y);
    pb.cb_j0 = first - band.cb_y0;
  }
  return p;
}

TileComponentLayout make_layout(const Rect& tc, int levels, int xcb, int ycb,
                                std::span<const PrecinctExponents> precincts) {
  if (levels < 0 || levels > transform::kMaxLevels) {
    throw Error(ErrorCode::kInvalidArgument,
                "layout: " + std::to_string(levels) + " decomposition levels (0..32)");
  }
  if (xcb < 2 || xcb > 10 || ycb < 2 || ycb > 10 || xcb + ycb > 12) {
    throw Error(ErrorCode::kInvalidArgument, "layout: code-block exponents " + std::to_string(xcb) +
                                                 ", " + std::to_string(ycb) +
                                                 " (each 2..10, sum at most 12; A.6.1)");
  }
  TileComponentLayout out;
  out.rect = tc;
  out.levels = levels;
  out.resolutions.resize(static_cast<size_t>(levels) + 1);
  for (int r = 0; r <= levels; ++r) {
    ResolutionLayout& res = out.resolutions[r];
    const PrecinctExponents pp = precincts.empty()
                                     ? PrecinctExponents{}
                                     : precincts[std::min<size_t>(r, precincts.size() - 1)];
    const int min_pp = r > 0 ? 1 : 0;
    if (pp.ppx < min_pp || pp.ppx > 15 || pp.ppy < min_pp || pp.ppy > 15) {
      throw Error(ErrorCode::kInvalidArgument,
                  "layout: precinct exponents " + std::to_string(pp.ppx) + ", " +
                      std::to_string(pp.ppy) + " at resolution " + std::to_string(r) +
                      " (0..15, at least 1 above resolution 0; A.6.1)");
    }
    res.r = r;
    res.rect = transform::resolution_rect(tc, levels, r);
    res.ppx = pp.ppx;
    res.ppy = pp.ppy;
    if (!res.rect.empty()) {
      grid_cells(res.rect.x0, res.rect.x1, pp.ppx, res.px0, res.precincts_x);
      grid_cells(res.rect.y0, res.rect.y1, pp.ppy, res.py0, res.precincts_y);
    }
    // B.7: code-blocks never cross precincts of the subband.
    const int bxcb = std::min(xcb, r > 0 ? pp.ppx - 1 : pp.ppx);
    const int bycb = std::min(ycb, r > 0 ? pp.ppy - 1 : pp.ppy);
    const int n = transform::level_of_resolution(levels, r);
    const Band kinds_hi[] = {Band::kHL, Band::kLH, Band::kHH};
    const std::span<const Band> kinds =
        r == 0 ? std::span<const Band>() : std::span<const Band>(kinds_hi);
    const size_t count = r == 0 ? 1 : 3;
    res.bands.resize(count);
    for (size_t b = 0; b < count; ++b) {
      BandLayout& band = res.bands[b];
      band.band = r == 0 ? Band::kLL : kinds[b];
      band.level = n;
      band.rect = transform::subband_rect(tc, n, band.band);
      band.xcb = bxcb;
      band.ycb = bycb;
      if (!band.rect.empty()) {
        grid_cells(band.rect.x0, band.rect.x1, bxcb, band.cb_x0, band.blocks_x);
        grid_cells(band.rect.y0, band.rect.y1, bycb, band.cb_y0, band.blocks_y);
      }
    }
  }
  return out;
}

TileLayout make_tile_layout(const MainHeader& main, const TileHeader* tile_header, uint32_t t) {
  TileLayout out;
  out.index = t;
  out.rect = tile_rect(main.siz, t);
  const uint16_t nc = static_cast<uint16_t>(main.siz.components.size());
  out.components.reserve(nc);
  for (uint16_t c = 0; c < nc; ++c) {
    const ComponentCoding& cc = effective_coding(main, tile_header, c);
    std::vector<PrecinctExponents> pex;
    for (const PrecinctSize& p : cc.precincts) pex.push_back({p.ppx, p.ppy});
    out.components.push_back(
        make_layout(tile_component_rect(main.siz, t, c), cc.levels, cc.xcb, cc.ycb, pex));
  }
  return out;
}

}  // namespace gj2k::codec
