// Precinct and code-block partitions of a tile-component (ISO/IEC 15444-1 B.6, B.7).
// All partitions are anchored at the origin of the grid they live on, so the first and last
// precinct or code-block of a row may be cut by the resolution or subband rectangle, or be
// empty. Rectangles follow transform/geometry.h: half-open, absolute coordinates.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "codec/markers/codestream.h"
#include "transform/geometry.h"

namespace gj2k::codec {

using transform::Band;
using transform::Rect;

// Precinct size exponents of one resolution (A.6.1 SPcod/SPcoc precinct size); 15 is the
// default "maximum" precinct when no precinct sizes are signalled.
struct PrecinctExponents {
  int ppx = 15, ppy = 15;
};

// One subband of a resolution and its code-block partition.
struct BandLayout {
  Band band = Band::kLL;
  int level = 0;         // decomposition level n of the subband (0 when levels = 0)
  Rect rect;             // on the subband's grid
  int xcb = 6, ycb = 6;  // effective code-block exponents, clipped by the precinct (B.7)
  // The code-block grid cells that meet `rect`: columns [cb_x0, cb_x0 + blocks_x), rows
  // [cb_y0, cb_y0 + blocks_y), in units of 2^xcb x 2^ycb (zero when rect is empty).
  uint32_t cb_x0 = 0, cb_y0 = 0, blocks_x = 0, blocks_y = 0;

  // The rectangle of code-block (column i, row j) of the band, 0-based from (cb_x0, cb_y0):
  // its grid cell intersected with rect.
  Rect code_block(uint32_t i, uint32_t j) const;
};

// One subband's part of one precinct.
struct PrecinctBand {
  Rect rect;  // the precinct's area on the subband grid, intersected with the band (may be
              // empty)
  // Code-blocks of the band in this precinct, in band grid indices (as BandLayout::code_block
  // takes them): columns [cb_i0, cb_i0 + blocks_x), rows [cb_j0, cb_j0 + blocks_y); raster
  // order inside the precinct is the order of the packet header.
  uint32_t cb_i0 = 0, cb_j0 = 0, blocks_x = 0, blocks_y = 0;
  uint32_t block_count() const { return blocks_x * blocks_y; }
};

struct Precinct {
  Rect rect;                        // on the resolution grid, clipped to the resolution
  std::vector<PrecinctBand> bands;  // parallel to ResolutionLayout::bands
};

struct ResolutionLayout {
  int r = 0;
  Rect rect;  // on the resolution grid (B-14)
  int ppx = 15, ppy = 15;
  // Precinct partition: columns from px0 = floor(x0 / 2^ppx), count precincts_x (B-16; zero
  // when the resolution is empty), likewise rows.
  uint32_t px0 = 0, py0 = 0, precincts_x = 0, precincts_y = 0;
  std::vector<BandLayout> bands;  // LL at r = 0; HL, LH, HH otherwise

  uint32_t precinct_count() const { return precincts_x * precincts_y; }
  // Precinct k in raster order (k = i + j * precincts_x), with its code-blocks per band.
  Precinct precinct(uint32_t k) const;
};

struct TileComponentLayout {
  Rect rect;  // the tile-component on its component grid
  int levels = 0;
  std::vector<ResolutionLayout> resolutions;  // r = 0 .. levels
};

// Builds the layout of tile-component `tc` with `levels` decomposition levels (0..32),
// code-block exponents xcb, ycb (A.6.1: each 2..10, xcb + ycb <= 12) and precinct exponents per
// resolution (`precincts` empty: 15 everywhere; shorter than levels + 1: the last entry
// repeats). PPx, PPy must be 0..15 and at least 1 for r > 0. Throws Error(kInvalidArgument).
TileComponentLayout make_layout(const Rect& tc, int levels, int xcb, int ycb,
                                std::span<const PrecinctExponents> precincts = {});

// The structure of tile t, built once from the headers and used by the encoder and the
// decoder alike: the tile on the reference grid (B-7) and the layout of every tile-component
// (B-12) under the coding style in force for it (COD/COC of the main header, then of
// `tile_header`, which may be null). Throws Error(kInvalidArgument) as make_layout.
struct TileLayout {
  uint32_t index = 0;
  Rect rect;
  std::vector<TileComponentLayout> components;  // Csiz entries
};
TileLayout make_tile_layout(const MainHeader& main, const TileHeader* tile_header, uint32_t t);

}  // namespace gj2k::codec
