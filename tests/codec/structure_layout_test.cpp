// Precinct and code-block partitions (15444-1 B.6, B.7): hand-worked odd-origin cases and
// partition properties on random tile-components.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "codec/structure.h"
#include "gj2k/error.h"

namespace gj2k::codec {
namespace {

Rect R(uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1) {
  return Rect{x0, y0, x1, y1};
}

TEST(StructureLayout, HandWorkedOddOrigin) {
  // tc = [3,14) x [1,6), 1 level, 4x4 code-blocks, precincts 4x4 at r = 0 and 8x4 at r = 1.
  const PrecinctExponents pp[] = {{2, 2}, {3, 2}};
  const TileComponentLayout t = make_layout(R(3, 1, 14, 6), 1, 2, 2, pp);
  ASSERT_EQ(t.resolutions.size(), 2u);

  // r = 0: ceil(tc / 2) = [2,7) x [1,3); precinct columns 0..1, one row.
  const ResolutionLayout& r0 = t.resolutions[0];
  EXPECT_EQ(r0.rect, R(2, 1, 7, 3));
  EXPECT_EQ(r0.precincts_x, 2u);
  EXPECT_EQ(r0.precincts_y, 1u);
  ASSERT_EQ(r0.bands.size(), 1u);
  const BandLayout& ll = r0.bands[0];
  EXPECT_EQ(ll.rect, R(2, 1, 7, 3));
  EXPECT_EQ(ll.xcb, 2);
  EXPECT_EQ(ll.blocks_x, 2u);
  EXPECT_EQ(ll.blocks_y, 1u);
  EXPECT_EQ(ll.code_block(0, 0), R(2, 1, 4, 3));
  EXPECT_EQ(ll.code_block(1, 0), R(4, 1, 7, 3));
  const Precinct p00 = r0.precinct(0), p01 = r0.precinct(1);
  EXPECT_EQ(p00.rect, R(2, 1, 4, 3));
  EXPECT_EQ(p01.rect, R(4, 1, 7, 3));
  EXPECT_EQ(p01.bands[0].cb_i0, 1u);
  EXPECT_EQ(p01.bands[0].block_count(), 1u);

  // r = 1: tc itself; 8x4 precincts: columns 0..1, rows 0..1. Code-blocks 4 x 2 in the bands
  // (ycb clipped to PPy - 1 = 1).
  const ResolutionLayout& r1 = t.resolutions[1];
  EXPECT_EQ(r1.rect, R(3, 1, 14, 6));
  EXPECT_EQ(r1.precincts_x, 2u);
  EXPECT_EQ(r1.precincts_y, 2u);
  ASSERT_EQ(r1.bands.size(), 3u);
  const BandLayout &hl = r1.bands[0], &lh = r1.bands[1], &hh = r1.bands[2];
  EXPECT_EQ(hl.band, Band::kHL);
  EXPECT_EQ(hl.rect, R(1, 1, 7, 3));  // x: ceil((3-1)/2)..ceil((14-1)/2); y: ceil(1/2)..3
  EXPECT_EQ(lh.rect, R(2, 0, 7, 3));
  EXPECT_EQ(hh.rect, R(1, 0, 7, 3));
  EXPECT_EQ(hl.xcb, 2);
  EXPECT_EQ(hl.ycb, 1);
  EXPECT_EQ(hl.blocks_x, 2u);
  EXPECT_EQ(hl.blocks_y, 2u);
  EXPECT_EQ(hl.code_block(0, 0), R(1, 1, 4, 2));
  EXPECT_EQ(hl.code_block(1, 1), R(4, 2, 7, 3));

  const Precinct q0 = r1.precinct(0);
  EXPECT_EQ(q0.rect, R(3, 1, 8, 4));
  EXPECT_EQ(q0.bands[0].rect, R(1, 1, 4, 2));  // HL cell (0,0) of 4x2, clipped
  EXPECT_EQ(q0.bands[0].block_count(), 1u);
  EXPECT_EQ(q0.bands[1].rect, R(2, 0, 4, 2));  // LH
  EXPECT_EQ(q0.bands[1].blocks_y, 1u);
  const Precinct q3 = r1.precinct(3);
  EXPECT_EQ(q3.rect, R(8, 4, 14, 6));
  EXPECT_EQ(q3.bands[0].rect, R(4, 2, 7, 3));
  EXPECT_EQ(q3.bands[0].cb_i0, 1u);
  EXPECT_EQ(q3.bands[0].cb_j0, 1u);
  EXPECT_EQ(q3.bands[1].rect, R(4, 2, 7, 3));
  EXPECT_EQ(q3.bands[1].cb_j0, 1u);
}

TEST(StructureLayout, EmptyResolutionsAndBands) {
  // A 1-sample tile-component at (5,7) with 2 levels: r = 0 is ceil(5/4)..ceil(6/4) = empty,
  // so it has no precincts; at r = 2 only HH holds the sample.
  const TileComponentLayout t = make_layout(R(5, 7, 6, 8), 2, 6, 6);
  EXPECT_EQ(t.resolutions[0].precinct_count(), 0u);
  EXPECT_EQ(t.resolutions[0].bands[0].blocks_x, 0u);
  const ResolutionLayout& r2 = t.resolutions[2];
  ASSERT_EQ(r2.precinct_count(), 1u);
  const Precinct p = r2.precinct(0);
  EXPECT_EQ(p.bands[0].block_count(), 0u);  // HL: no rows
  EXPECT_EQ(p.bands[1].block_count(), 0u);  // LH: no columns
  EXPECT_EQ(p.bands[2].block_count(), 1u);  // HH
  EXPECT_EQ(r2.bands[2].rect, R(2, 3, 3, 4));
  EXPECT_EQ(r2.bands[2].code_block(p.bands[2].cb_i0, p.bands[2].cb_j0), R(2, 3, 3, 4));

  // 0 levels: one resolution, the LL band is the tile-component.
  const TileComponentLayout z = make_layout(R(1, 2, 2, 3), 0, 2, 2);
  ASSERT_EQ(z.resolutions.size(), 1u);
  EXPECT_EQ(z.resolutions[0].precinct_count(), 1u);
  EXPECT_EQ(z.resolutions[0].bands[0].rect, R(1, 2, 2, 3));
  EXPECT_EQ(z.resolutions[0].precinct(0).bands[0].block_count(), 1u);

  EXPECT_THROW(make_layout(R(0, 0, 8, 8), 1, 6, 7, {}), Error);  // xcb + ycb > 12
  const PrecinctExponents bad[] = {{0, 0}, {0, 3}};              // PP 0 above r = 0
  EXPECT_THROW(make_layout(R(0, 0, 8, 8), 1, 2, 2, bad), Error);
}

// Every code-block lies in its band, in exactly one precinct, inside that precinct's band
// area; code-blocks tile each band; precinct-band areas tile each band.
TEST(StructureLayout, RandomPartitionsTileTheBands) {
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const uint32_t x0 = rng() % 3 == 0 ? rng() % 8 : rng() % 100000;
    const uint32_t y0 = rng() % 3 == 0 ? rng() % 8 : rng() % 100000;
    const Rect tc = R(x0, y0, x0 + 1 + rng() % 90, y0 + 1 + rng() % 90);
    const int levels = static_cast<int>(rng() % 6);
    const int xcb = 2 + static_cast<int>(rng() % 5), ycb = 2 + static_cast<int>(rng() % 5);
    std::vector<PrecinctExponents> pp(levels + 1);
    for (int r = 0; r <= levels; ++r) {
      if (rng() % 4 == 0) continue;  // 15: the maximum
      pp[r].ppx = (r > 0 ? 1 : 0) + static_cast<int>(rng() % 6);
      pp[r].ppy = (r > 0 ? 1 : 0) + static_cast<int>(rng() % 6);
    }
    const TileComponentLayout t = make_layout(tc, levels, xcb, ycb, pp);
    for (const ResolutionLayout& res : t.resolutions) {
      SCOPED_TRACE("r " + std::to_string(res.r));
      uint64_t prec_area = 0;
      for (uint32_t k = 0; k < res.precinct_count(); ++k) {
        prec_area += uint64_t{res.precinct(k).rect.width()} * res.precinct(k).rect.height();
      }
      EXPECT_EQ(prec_area, uint64_t{res.rect.width()} * res.rect.height());
      for (size_t b = 0; b < res.bands.size(); ++b) {
        const BandLayout& band = res.bands[b];
        EXPECT_LE(band.xcb, xcb);
        EXPECT_LE(band.xcb, res.r > 0 ? res.ppx - 1 : res.ppx);
        std::vector<int> owner(size_t{band.blocks_x} * band.blocks_y, 0);
        uint64_t band_area = 0, block_area = 0;
        for (uint32_t k = 0; k < res.precinct_count(); ++k) {
          const PrecinctBand pb = res.precinct(k).bands[b];
          band_area += uint64_t{pb.rect.width()} * pb.rect.height();
          for (uint32_t j = 0; j < pb.blocks_y; ++j) {
            for (uint32_t i = 0; i < pb.blocks_x; ++i) {
              const uint32_t bi = pb.cb_i0 + i, bj = pb.cb_j0 + j;
              ASSERT_LT(bi, band.blocks_x);
              ASSERT_LT(bj, band.blocks_y);
              ++owner[bi + size_t{bj} * band.blocks_x];
              const Rect cb = band.code_block(bi, bj);
              ASSERT_FALSE(cb.empty());
              EXPECT_GE(cb.x0, pb.rect.x0);
              EXPECT_LE(cb.x1, pb.rect.x1);
              EXPECT_GE(cb.y0, pb.rect.y0);
              EXPECT_LE(cb.y1, pb.rect.y1);
              EXPECT_LE(cb.width(), 1u << band.xcb);
              EXPECT_LE(cb.height(), 1u << band.ycb);
              block_area += uint64_t{cb.width()} * cb.height();
            }
          }
        }
        const uint64_t area = uint64_t{band.rect.width()} * band.rect.height();
        if (res.precinct_count() > 0) {
          EXPECT_EQ(band_area, area);
          EXPECT_EQ(block_area, area);
          for (int o : owner) EXPECT_EQ(o, 1);
        } else {
          EXPECT_EQ(area, 0u);
        }
      }
    }
  }
}

// make_tile_layout: every tile-component under the coding style in force for it (main COD, a
// main COC, a tile COD and a tile COC), with subsampling and odd origins, equals make_layout
// called with that component's rectangle (B-12) and parameters.
TEST(StructureLayout, TileLayoutFollowsCodingStyles) {
  MainHeader main;
  main.siz.xosiz = 3;
  main.siz.yosiz = 5;
  main.siz.xsiz = 203;
  main.siz.ysiz = 151;
  main.siz.xtsiz = 64;
  main.siz.ytsiz = 48;
  main.siz.xtosiz = 1;
  main.siz.ytosiz = 2;
  for (uint8_t d : {1, 2, 1, 3}) {
    SizComponent sc;
    sc.dx = d;
    sc.dy = d == 3 ? 1 : d;
    main.siz.components.push_back(sc);
  }
  main.cod.component.levels = 3;
  ComponentCoding coc1;  // component 1: 2 levels, 16x32 blocks, user precincts
  coc1.levels = 2;
  coc1.xcb = 4;
  coc1.ycb = 5;
  coc1.precincts = {{4, 4}, {5, 5}, {6, 5}};
  main.coc[1] = coc1;
  TileHeader th;
  CodingStyle tile_cod = main.cod;
  tile_cod.component.levels = 1;
  tile_cod.component.xcb = 3;
  th.cod = tile_cod;
  ComponentCoding tile_coc3;
  tile_coc3.levels = 0;
  th.coc[3] = tile_coc3;
  for (uint32_t t : {0u, 4u, 7u}) {
    for (const TileHeader* h :
         {static_cast<const TileHeader*>(nullptr), static_cast<const TileHeader*>(&th)}) {
      SCOPED_TRACE("tile " + std::to_string(t) + (h ? " with tile header" : ""));
      const TileLayout got = make_tile_layout(main, h, t);
      EXPECT_EQ(got.index, t);
      EXPECT_EQ(got.rect, tile_rect(main.siz, t));
      ASSERT_EQ(got.components.size(), 4u);
      for (uint16_t c = 0; c < 4; ++c) {
        const ComponentCoding& cc = effective_coding(main, h, c);
        std::vector<PrecinctExponents> pex;
        for (const PrecinctSize& p : cc.precincts) pex.push_back({p.ppx, p.ppy});
        const TileComponentLayout want =
            make_layout(tile_component_rect(main.siz, t, c), cc.levels, cc.xcb, cc.ycb, pex);
        const TileComponentLayout& g = got.components[c];
        EXPECT_EQ(g.rect, want.rect) << "component " << c;
        EXPECT_EQ(g.levels, cc.levels) << "component " << c;
        ASSERT_EQ(g.resolutions.size(), want.resolutions.size()) << "component " << c;
        for (size_t r = 0; r < g.resolutions.size(); ++r) {
          EXPECT_EQ(g.resolutions[r].rect, want.resolutions[r].rect);
          EXPECT_EQ(g.resolutions[r].ppx, want.resolutions[r].ppx);
          EXPECT_EQ(g.resolutions[r].precinct_count(), want.resolutions[r].precinct_count());
          for (size_t b = 0; b < g.resolutions[r].bands.size(); ++b)
            EXPECT_EQ(g.resolutions[r].bands[b].xcb, want.resolutions[r].bands[b].xcb);
        }
      }
      // The styles really differ per component (the test would be vacuous otherwise); a tile
      // COD overrides the main COC (A.6), a tile COC overrides both.
      EXPECT_EQ(got.components[0].levels, h ? 1 : 3);
      EXPECT_EQ(got.components[1].levels, h ? 1 : 2);
      EXPECT_EQ(got.components[3].levels, h ? 0 : 3);
    }
  }
}

}  // namespace
}  // namespace gj2k::codec
