// Annex B geometry: hand-worked examples, the conformance streams' known geometry
// (../shared/conformance/TOLERANCES.md), and structural properties on random rectangles.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "transform/geometry.h"
#include "xform_test_util.h"

namespace gj2k::transform {
namespace {

using xtest::rect_str;

TEST(XformGeometry, CeilDivPow2) {
  EXPECT_EQ(ceil_div_pow2(0, 0), 0u);
  EXPECT_EQ(ceil_div_pow2(7, 0), 7u);
  EXPECT_EQ(ceil_div_pow2(7, 1), 4u);
  EXPECT_EQ(ceil_div_pow2(8, 3), 1u);
  EXPECT_EQ(ceil_div_pow2(9, 3), 2u);
  EXPECT_EQ(ceil_div_pow2(0xFFFFFFFFu, 31), 2u);
  EXPECT_EQ(ceil_div_pow2(0xFFFFFFFFu, 32), 1u);
  EXPECT_EQ(ceil_div_pow2(0, 32), 0u);
}

// B-12: tc = ceil(tile / (dx, dy)).
TEST(XformGeometry, TileComponentRect) {
  // p0_02: 127x126 image, dx = 2 -> 64x126 component.
  Rect tc = tile_component_rect({0, 0, 127, 126}, 2, 1);
  EXPECT_EQ(tc.width(), 64u);
  EXPECT_EQ(tc.height(), 126u);
  // p1_01: image origin (5, 128), component 61x99 at dx = 2: x0 = ceil(5/2) = 3, so the image
  // ends at x1 with ceil(x1/2) = 64 (x1 = 127 or 128), y1 = 128 + 99.
  for (uint32_t x1 : {127u, 128u}) {
    tc = tile_component_rect({5, 128, x1, 227}, 2, 1);
    EXPECT_EQ(tc, (Rect{3, 128, 64, 227})) << rect_str(tc);
    EXPECT_EQ(tc.width(), 61u);
    EXPECT_EQ(tc.height(), 99u);
  }
  // p0_06: 513x129 with subsampling 1x1, 2x1, 1x2, 2x2 -> 513x129, 257x129, 513x65, 257x65.
  const Rect img{0, 0, 513, 129};
  EXPECT_EQ(tile_component_rect(img, 1, 1), (Rect{0, 0, 513, 129}));
  EXPECT_EQ(tile_component_rect(img, 2, 1), (Rect{0, 0, 257, 129}));
  EXPECT_EQ(tile_component_rect(img, 1, 2), (Rect{0, 0, 513, 65}));
  EXPECT_EQ(tile_component_rect(img, 2, 2), (Rect{0, 0, 257, 65}));
  // p1_07: origin (4, 0), comp 0 dx = 4, 2x12 -> image x1 in (8, 12].
  EXPECT_EQ(tile_component_rect({4, 0, 12, 12}, 4, 1).width(), 2u);
  // Odd tile origin with subsampling: tile [3, 10) at dx = 3 -> [1, 4).
  EXPECT_EQ(tile_component_rect({3, 5, 10, 6}, 3, 2), (Rect{1, 3, 4, 3}));
  EXPECT_TRUE(tile_component_rect({3, 5, 10, 6}, 3, 2).empty());
}

// Resolution sizes for decoding at a reduced resolution (class 0 of TOLERANCES.md): reducing
// by d keeps resolution levels - d, whose rectangle is ceil(tc / 2^d).
TEST(XformGeometry, ReducedResolutionsOfConformanceStreams) {
  struct Case {
    const char* stream;
    Rect tc;
    int levels, reduce;
    uint32_t w, h;
  };
  const Case cases[] = {
      {"p0_04", {0, 0, 640, 480}, 6, 3, 80, 60},  {"p0_05", {0, 0, 1024, 1024}, 6, 3, 128, 128},
      {"p0_06", {0, 0, 513, 129}, 5, 3, 65, 17},  {"p0_08", {0, 0, 513, 3072}, 7, 1, 257, 1536},
      {"p0_08", {0, 0, 513, 3072}, 7, 5, 17, 96}, {"p0_09", {0, 0, 17, 37}, 5, 2, 5, 10},
      {"p0_14", {0, 0, 49, 49}, 5, 2, 13, 13},    {"p1_02", {0, 0, 640, 480}, 5, 3, 80, 60},
  };
  for (const Case& c : cases) {
    const Rect r = resolution_rect(c.tc, c.levels, c.levels - c.reduce);
    EXPECT_EQ(r.width(), c.w) << c.stream;
    EXPECT_EQ(r.height(), c.h) << c.stream;
  }
}

// p0_12: 3 levels on a 3x5 tile-component; every resolution by hand: ceil(3/2^k), ceil(5/2^k).
TEST(XformGeometry, TinyTileAllResolutions) {
  const Rect tc{0, 0, 3, 5};
  const uint32_t w[] = {1, 1, 2, 3}, h[] = {1, 2, 3, 5};
  for (int r = 0; r <= 3; ++r) {
    const Rect rr = resolution_rect(tc, 3, r);
    EXPECT_EQ(rr.width(), w[r]) << "r=" << r;
    EXPECT_EQ(rr.height(), h[r]) << "r=" << r;
  }
  // Level 1 of a 3-wide signal starting at 0: low samples at 0, 2; high at 1.
  EXPECT_EQ(subband_rect(tc, 1, Band::kHL), (Rect{0, 0, 1, 3}));
  EXPECT_EQ(subband_rect(tc, 1, Band::kLH), (Rect{0, 0, 2, 2}));
  EXPECT_EQ(subband_rect(tc, 1, Band::kHH), (Rect{0, 0, 1, 2}));
}

// Odd origins by hand (B-15): tc x in [1, 8): samples 1..7, low (even) 2, 4, 6 -> LL x in
// [1, 4); high (odd) 1, 3, 5, 7 -> HL x in [0, 4). Level 2 splits [1, 4): low 2 -> [1, 2);
// high 1, 3 -> [0, 2).
TEST(XformGeometry, OddOriginByHand) {
  const Rect tc{1, 3, 8, 4};                                      // 7 x 1, y0 = 3 odd
  EXPECT_EQ(subband_rect(tc, 1, Band::kLL), (Rect{1, 2, 4, 2}));  // y: low samples none
  EXPECT_TRUE(subband_rect(tc, 1, Band::kLL).empty());
  EXPECT_EQ(subband_rect(tc, 1, Band::kHL), (Rect{0, 2, 4, 2}));
  EXPECT_EQ(subband_rect(tc, 1, Band::kLH), (Rect{1, 1, 4, 2}));  // y: high sample 3 -> [1, 2)
  EXPECT_EQ(subband_rect(tc, 1, Band::kHH), (Rect{0, 1, 4, 2}));
  EXPECT_EQ(subband_rect(tc, 2, Band::kLL).x0, 1u);
  EXPECT_EQ(subband_rect(tc, 2, Band::kLL).x1, 2u);
  EXPECT_EQ(subband_rect(tc, 2, Band::kHL).x0, 0u);
  EXPECT_EQ(subband_rect(tc, 2, Band::kHL).x1, 2u);
}

// A single sample at an odd coordinate is all high-pass: its LL is empty (F.3.7).
TEST(XformGeometry, EmptySubbands) {
  const Rect one_odd{3, 5, 4, 6};
  EXPECT_TRUE(subband_rect(one_odd, 1, Band::kLL).empty());
  EXPECT_TRUE(subband_rect(one_odd, 1, Band::kHL).empty());  // y is odd: all in LH/HH rows
  EXPECT_TRUE(subband_rect(one_odd, 1, Band::kLH).empty());  // x is odd: all in HL/HH columns
  EXPECT_EQ(subband_rect(one_odd, 1, Band::kHH).width(), 1u);
  EXPECT_EQ(subband_rect(one_odd, 1, Band::kHH).height(), 1u);
  const Rect one_even{2, 4, 3, 5};
  EXPECT_EQ(subband_rect(one_even, 1, Band::kLL).width(), 1u);
  EXPECT_EQ(subband_rect(one_even, 1, Band::kLL).height(), 1u);
  for (Band b : {Band::kHL, Band::kLH, Band::kHH})
    EXPECT_TRUE(subband_rect(one_even, 1, b).empty());
  // An even single sample stays in LL at every level, up to 32.
  for (int n = 1; n <= kMaxLevels; ++n) {
    EXPECT_EQ(subband_rect({0, 0, 1, 1}, n, Band::kLL), (Rect{0, 0, 1, 1})) << n;
    EXPECT_TRUE(subband_rect({0, 0, 1, 1}, n, Band::kHH).empty()) << n;
  }
}

TEST(XformGeometry, ThirtyTwoLevelsOfTheWholeGrid) {
  const Rect tc{0, 0, 0xFFFFFFFFu, 0xFFFFFFFFu};
  EXPECT_EQ(resolution_rect(tc, 32, 0), (Rect{0, 0, 1, 1}));
  EXPECT_EQ(subband_rect(tc, 32, Band::kHL), (Rect{0, 0, 1, 1}));
  EXPECT_EQ(subband_rect(tc, 32, Band::kHH), (Rect{0, 0, 1, 1}));
  EXPECT_EQ(subband_rect(tc, 1, Band::kHL), (Rect{0, 0, 0x7FFFFFFFu, 0x80000000u}));
}

// Properties on random rectangles: each level's LL splits into next LL + HL (x) and LL + LH
// (y); resolution r equals the LL of level levels - r; and the Mallat placement tiles the
// buffer exactly once.
TEST(XformGeometry, RandomRectanglesPartitionTheBuffer) {
  const uint64_t seed = xtest::base_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 300; ++iter) {
    const uint32_t x0 = std::uniform_int_distribution<uint32_t>(0, 1000)(rng);
    const uint32_t y0 = std::uniform_int_distribution<uint32_t>(0, 1000)(rng);
    const uint32_t w = std::uniform_int_distribution<uint32_t>(1, 70)(rng);
    const uint32_t h = std::uniform_int_distribution<uint32_t>(1, 70)(rng);
    const int levels = std::uniform_int_distribution<int>(0, 9)(rng);
    const Rect tc{x0, y0, x0 + w, y0 + h};
    SCOPED_TRACE(rect_str(tc) + " levels " + std::to_string(levels));
    for (int n = 1; n <= levels; ++n) {
      const Rect prev = subband_rect(tc, n - 1, Band::kLL);
      const Rect ll = subband_rect(tc, n, Band::kLL);
      EXPECT_EQ(prev.width(), ll.width() + subband_rect(tc, n, Band::kHL).width());
      EXPECT_EQ(prev.height(), ll.height() + subband_rect(tc, n, Band::kLH).height());
      EXPECT_EQ(subband_rect(tc, n, Band::kHH).width(), subband_rect(tc, n, Band::kHL).width());
      EXPECT_EQ(subband_rect(tc, n, Band::kHH).height(), subband_rect(tc, n, Band::kLH).height());
    }
    for (int r = 0; r <= levels; ++r)
      EXPECT_EQ(resolution_rect(tc, levels, r), subband_rect(tc, levels - r, Band::kLL));
    std::vector<int> cover(size_t{w} * h, 0);
    auto mark = [&](int n, Band b) {
      const BandPlacement p = band_placement(tc, levels, n, b);
      for (uint32_t y = 0; y < p.rect.height(); ++y)
        for (uint32_t x = 0; x < p.rect.width(); ++x) {
          ASSERT_LT(p.x_off + x, w);
          ASSERT_LT(p.y_off + y, h);
          ++cover[size_t{p.y_off + y} * w + p.x_off + x];
        }
    };
    mark(levels, Band::kLL);
    for (int n = 1; n <= levels; ++n)
      for (Band b : {Band::kHL, Band::kLH, Band::kHH}) mark(n, b);
    for (size_t i = 0; i < cover.size(); ++i) ASSERT_EQ(cover[i], 1) << "sample " << i;
  }
}

}  // namespace
}  // namespace gj2k::transform
