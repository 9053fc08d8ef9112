// cpu::inverse53_window / inverse97_window (dwt_cpu.h): inside the wanted window, bit for bit
// what the whole inverse transform gives, on random coefficients, odd and even origins, sizes
// from 1 to a few hundred, 0 to 6 levels, and windows anywhere (edges, corners, one sample,
// the whole tile-component, partly outside it).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "transform/dwt_cpu.h"
#include "xform_test_util.h"

namespace gj2k::transform {
namespace {

template <class T, class Full, class Window>
void check(const char* name, Full full, Window window, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 300; ++trial) {
    const uint32_t x0 = rng() % 9, y0 = rng() % 9;
    const uint32_t w = trial % 10 == 0 ? 1 + rng() % 6 : 1 + rng() % 300;
    const uint32_t h = trial % 10 == 1 ? 1 + rng() % 6 : 1 + rng() % 200;
    const Rect tc{x0, y0, x0 + w, y0 + h};
    const int levels = static_cast<int>(rng() % 7);
    // The window: anywhere, sometimes one sample, sometimes beyond the tile-component.
    auto pick = [&](uint32_t lo, uint32_t n, uint32_t& a, uint32_t& b) {
      a = lo + static_cast<uint32_t>(rng() % n);
      b = std::min(lo + n + 3, a + 1 + static_cast<uint32_t>(rng() % (trial % 3 == 0 ? 2 : n)));
      if (trial % 7 == 0) a = a > lo + 2 ? a - 3 : 0;  // may start before the area
    };
    Rect want;
    pick(x0, w, want.x0, want.x1);
    pick(y0, h, want.y0, want.y1);
    const size_t stride = w + rng() % 5;
    const std::vector<T> base = xtest::random_coefficients<T>(stride, h, rng);
    std::vector<T> a = base, b = base;
    full(Plane<T>{a.data(), stride}, tc, levels);
    window(Plane<T>{b.data(), stride}, tc, levels, want);
    for (uint32_t y = std::max(want.y0, y0); y < std::min(want.y1, y0 + h); ++y)
      for (uint32_t x = std::max(want.x0, x0); x < std::min(want.x1, x0 + w); ++x) {
        const size_t i = size_t{y - y0} * stride + (x - x0);
        ASSERT_EQ(0, std::memcmp(&a[i], &b[i], sizeof(T)))
            << name << " seed " << seed << " trial " << trial << " tc " << x0 << "," << y0 << " "
            << w << "x" << h << " levels " << levels << " window " << want.x0 << "," << want.y0
            << "-" << want.x1 << "," << want.y1 << " at " << x << "," << y << ": " << a[i] << " vs "
            << b[i];
      }
  }
}

TEST(XformDwtWindow, Inverse53MatchesWholeInside) {
  check<int32_t>("5/3", cpu::inverse53, cpu::inverse53_window, xtest::base_seed() + 41);
}

TEST(XformDwtWindow, Inverse97MatchesWholeInside) {
  check<float>("9/7", cpu::inverse97, cpu::inverse97_window, xtest::base_seed() + 43);
}

}  // namespace
}  // namespace gj2k::transform
