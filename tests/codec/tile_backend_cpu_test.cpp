// The CPU backend's inverse tail (codec/tile_backend.h) against the spec-literal composition of
// its stages: inverse DWT (dwt_ops(kCpu) of transform/dwt.h, F.3.1 / F.4, itself tested against
// the Annex F reference in tests/transform), inverse RCT / ICT with DC shift and clipping
// (transform/mct.h, G.1.2 / G.2 / G.3), on random planes of odd sizes and origins; and its
// windowed path (region decoding) against the full one.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "codec/tile_backend.h"
#include "common/random_planes.h"
#include "gj2k/error.h"
#include "transform/dwt.h"
#include "transform/mct.h"

namespace {

using gj2k::codec::CoefficientPlane;
using gj2k::codec::TileComponentSamples;
namespace tr = gj2k::transform;

// The tail composed stage by stage from the reference functions.
std::vector<std::vector<int32_t>> literal_tail(std::vector<CoefficientPlane> planes, bool mct) {
  const auto& ref = tr::dwt_ops(tr::DwtVariant::kCpu);
  const size_t nc = planes.size();
  std::vector<std::vector<int32_t>> want(nc);
  for (auto& p : planes) {
    if (!p.decode) continue;
    if (p.reversible)
      ref.inverse53({p.ints.data(), p.rect.width()}, p.rect, p.levels);
    else
      ref.inverse97({p.floats(), p.rect.width()}, p.rect, p.levels);
  }
  const size_t n = size_t{planes[0].rect.width()} * planes[0].rect.height();
  if (mct) {
    int32_t off[3], lo[3], hi[3];
    for (size_t c = 0; c < 3; ++c)
      off[c] = planes[c].offset, lo[c] = planes[c].lo, hi[c] = planes[c].hi;
    if (planes[0].reversible && planes[1].reversible && planes[2].reversible) {
      tr::rct_inverse_dc_shift(planes[0].ints.data(), planes[1].ints.data(), planes[2].ints.data(),
                               n, off, lo, hi);
      for (size_t c = 0; c < 3; ++c) want[c].assign(planes[c].ints.begin(), planes[c].ints.end());
    } else {
      std::vector<float> f[3];
      for (size_t c = 0; c < 3; ++c) {
        if (planes[c].reversible)
          f[c].assign(planes[c].ints.begin(), planes[c].ints.begin() + n);
        else
          f[c].assign(planes[c].floats(), planes[c].floats() + n);
        want[c].resize(n);
      }
      tr::ict_inverse_dc_shift(f[0].data(), f[1].data(), f[2].data(), want[0].data(),
                               want[1].data(), want[2].data(), n, off, lo, hi);
    }
  }
  for (size_t c = mct ? 3 : 0; c < nc; ++c) {
    auto& p = planes[c];
    if (!p.decode) continue;
    if (p.reversible) {
      tr::dc_shift_inverse_clamp(p.ints.data(), n, p.offset, p.lo, p.hi);
      want[c].assign(p.ints.begin(), p.ints.end());
    } else {
      want[c].resize(n);
      tr::float_to_int_dc_shift(p.floats(), want[c].data(), n, p.offset, p.lo, p.hi);
    }
  }
  return want;
}

TEST(TileBackendCpu, InverseMatchesLiteralComposition) {
  const uint32_t seed = 20261124;
  std::mt19937 rng(seed);
  for (const auto& k : gj2k::test::plane_cases()) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " " + k.trace());
    std::vector<CoefficientPlane> planes = gj2k::test::random_planes(k, rng);
    const auto want = literal_tail(planes, k.mct);
    std::vector<TileComponentSamples> got;
    gj2k::codec::cpu_backend().inverse(planes, k.mct, 2, got);
    ASSERT_EQ(got.size(), planes.size());
    for (size_t c = 0; c < got.size(); ++c) {
      const auto& p = planes[c];
      if (!p.wanted) {
        EXPECT_TRUE(got[c].samples.empty()) << "component " << c << " was not asked for";
        continue;
      }
      ASSERT_EQ(got[c].rect, k.rect) << "component " << c;
      ASSERT_EQ(got[c].samples.size(), want[c].size()) << "component " << c;
      for (size_t i = 0; i < want[c].size(); ++i)
        ASSERT_EQ(got[c].samples[i], want[c][i]) << "component " << c << " sample " << i;
    }
  }
}

// A window: the samples inside it equal the full tail's; the planes' other samples are left
// unspecified.
TEST(TileBackendCpu, WindowMatchesFullInverse) {
  std::mt19937 rng(7);
  int cases = 0;
  for (const auto& k : gj2k::test::plane_cases()) {
    if (k.rect.width() < 8 || k.rect.height() < 8 || k.iteration % 3 != 0) continue;
    ++cases;
    SCOPED_TRACE(k.trace());
    std::vector<CoefficientPlane> full = gj2k::test::random_planes(k, rng);
    std::vector<CoefficientPlane> windowed = full;
    const gj2k::transform::Rect w{k.rect.width() / 4, 2, k.rect.width() / 2 + 1,
                                  k.rect.height() - 3};
    for (auto& p : windowed) p.window = w;
    std::vector<TileComponentSamples> a, b;
    gj2k::codec::cpu_backend().inverse(full, k.mct, 2, a);
    gj2k::codec::cpu_backend().inverse(windowed, k.mct, 2, b);
    for (size_t c = 0; c < a.size(); ++c) {
      if (!full[c].wanted) continue;
      const size_t pitch = k.rect.width();
      for (uint32_t y = w.y0; y < w.y1; ++y)
        for (uint32_t x = w.x0; x < w.x1; ++x)
          ASSERT_EQ(b[c].samples[y * pitch + x], a[c].samples[y * pitch + x])
              << "component " << c << " at " << x << "," << y;
    }
  }
  EXPECT_GT(cases, 20);
}

TEST(TileBackendCpu, RefusesInconsistentPlanes) {
  std::mt19937 rng(1);
  gj2k::test::PlaneCase k{{1, 1, 20, 20}, 2, 0, true, 1};
  std::vector<CoefficientPlane> planes = gj2k::test::random_planes(k, rng);
  planes[1].rect = {1, 1, 20, 19};
  std::vector<TileComponentSamples> out;
  EXPECT_THROW(gj2k::codec::cpu_backend().inverse(planes, true, 1, out), gj2k::Error);
  planes = gj2k::test::random_planes(k, rng);
  planes[2].ints.resize(3);
  EXPECT_THROW(gj2k::codec::cpu_backend().inverse(planes, true, 1, out), gj2k::Error);
}

}  // namespace
