// The reference DWT (dwt_ref.cpp) against independent definitions: the 5/3 and 9/7 filter
// banks (convolution with the analysis/synthesis filters on a symmetrically extended signal),
// perfect reconstruction, the 9/7 scaling, the length-1 rules, and guard bands.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gj2k/error.h"
#include "transform/dwt_ref.h"
#include "xform_test_util.h"

namespace gj2k::transform {
namespace {

// Whole-sample symmetric reflection of index i into [0, n), n >= 2, by repeated mirroring
// (independent of the reference's modular PSE formula).
int64_t reflect(int64_t i, int64_t n) {
  while (i < 0 || i >= n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * (n - 1) - i;
  }
  return i;
}

// Filter-bank analysis of x (absolute start i0): the output at absolute i is the low filter
// centred on i for even i, the high filter centred on i for odd i (symmetric taps t[0..]).
std::vector<double> fb_analysis(const std::vector<double>& x, int64_t i0,
                                const std::vector<double>& lo, const std::vector<double>& hi) {
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<double> y(x.size());
  for (int64_t j = 0; j < n; ++j) {
    const auto& t = ((i0 + j) & 1) ? hi : lo;
    double s = t[0] * x[j];
    for (size_t k = 1; k < t.size(); ++k) {
      const int64_t kk = static_cast<int64_t>(k);
      s += t[k] * (x[reflect(j - kk, n)] + x[reflect(j + kk, n)]);
    }
    y[j] = s;
  }
  return y;
}

// Filter-bank synthesis: x(i) = sum_j y(j) g_{parity(j)}(i - j) over the extended y.
std::vector<double> fb_synthesis(const std::vector<double>& y, int64_t i0,
                                 const std::vector<double>& g_lo, const std::vector<double>& g_hi) {
  const int64_t n = static_cast<int64_t>(y.size());
  const int64_t reach = static_cast<int64_t>(std::max(g_lo.size(), g_hi.size()));
  std::vector<double> x(y.size(), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i - reach; j <= i + reach; ++j) {
      const auto& g = ((i0 + j) & 1) ? g_hi : g_lo;
      const int64_t d = std::abs(i - j);
      if (d < static_cast<int64_t>(g.size())) x[i] += g[d] * y[reflect(j, n)];
    }
  return x;
}

// 5/3 filters (15444-1 F.3.8.1 / F.4.8.1, their filter-bank form): analysis low
// (-1, 2, 6, 2, -1)/8, high (-1, 2, -1)/2; synthesis low (1, 2, 1)/2, high (-1, -2, 6, -2, -1)/8.
const std::vector<double> k53Lo{6 / 8.0, 2 / 8.0, -1 / 8.0}, k53Hi{1.0, -0.5};
const std::vector<double> k53SynLo{1.0, 0.5}, k53SynHi{6 / 8.0, -2 / 8.0, -1 / 8.0};

// 9/7 analysis filters as published for JPEG 2000 (e.g. Taubman & Marcellin, Table 10.4;
// Unser & Blu 2003), normalised to low-pass DC gain 1 and high-pass Nyquist gain 2. Synthesis
// filters follow by g0(n) = (-1)^n h1(n), g1(n) = (-1)^n h0(n).
const std::vector<double> k97Lo{0.602949018236358, 0.266864118442875, -0.078223266528991,
                                -0.016864118442875, 0.026748757410810};
const std::vector<double> k97Hi{1.115087052457001, -0.591271763114252, -0.057543526228500,
                                0.091271763114250};
const std::vector<double> k97SynLo{1.115087052457001, 0.591271763114252, -0.057543526228500,
                                   -0.091271763114250};
const std::vector<double> k97SynHi{0.602949018236358, -0.266864118442875, -0.078223266528991,
                                   0.016864118442875, 0.026748757410810};

TEST(XformDwtRef, FiveThreeMatchesFilterBankExactlyOnMultiplesOf8) {
  // With X a multiple of 8 every floor in the lifting is exact, so the integer lifting equals
  // the real-valued filter bank sample for sample, forward and inverse.
  const uint64_t seed = xtest::base_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 400; ++iter) {
    const uint32_t n = std::uniform_int_distribution<uint32_t>(2, 70)(rng);
    const uint32_t i0 = std::uniform_int_distribution<uint32_t>(0, 9)(rng);
    std::vector<int32_t> x(n);
    std::vector<double> xd(n);
    for (uint32_t j = 0; j < n; ++j) {
      x[j] = 8 * std::uniform_int_distribution<int32_t>(-4096, 4095)(rng);
      xd[j] = x[j];
    }
    SCOPED_TRACE("n " + std::to_string(n) + " i0 " + std::to_string(i0));
    const std::vector<double> yd = fb_analysis(xd, i0, k53Lo, k53Hi);
    std::vector<int32_t> y = x;
    ref::sd_1d_53(y.data(), i0, i0 + n);
    for (uint32_t j = 0; j < n; ++j) ASSERT_EQ(y[j], yd[j]) << "forward sample " << j;
    const std::vector<double> back = fb_synthesis(yd, i0, k53SynLo, k53SynHi);
    ref::sr_1d_53(y.data(), i0, i0 + n);
    for (uint32_t j = 0; j < n; ++j) {
      ASSERT_EQ(back[j], xd[j]) << "filter-bank synthesis sample " << j;
      ASSERT_EQ(y[j], x[j]) << "inverse sample " << j;
    }
  }
}

TEST(XformDwtRef, FiveThreeIsTheRoundedFilterBank) {
  // On arbitrary integers the lifting differs from the filter bank only by its roundings:
  // high-pass by floor((a+b)/2) (error in [0, 1/2]), low-pass by at most 1.
  const uint64_t seed = xtest::base_seed() + 1;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 400; ++iter) {
    const uint32_t n = std::uniform_int_distribution<uint32_t>(2, 70)(rng);
    const uint32_t i0 = std::uniform_int_distribution<uint32_t>(0, 9)(rng);
    std::vector<int32_t> x(n);
    std::vector<double> xd(n);
    for (uint32_t j = 0; j < n; ++j)
      xd[j] = x[j] = std::uniform_int_distribution<int32_t>(-999, 999)(rng);
    const std::vector<double> yd = fb_analysis(xd, i0, k53Lo, k53Hi);
    std::vector<int32_t> y = x;
    ref::sd_1d_53(y.data(), i0, i0 + n);
    for (uint32_t j = 0; j < n; ++j) {
      const double d = y[j] - yd[j];
      if ((i0 + j) & 1) {
        ASSERT_GE(d, 0.0) << j;
        ASSERT_LE(d, 0.5) << j;
      } else {
        ASSERT_LE(std::abs(d), 1.0) << j;
      }
    }
    ref::sr_1d_53(y.data(), i0, i0 + n);
    ASSERT_EQ(y, x) << "n " << n << " i0 " << i0;
  }
}

TEST(XformDwtRef, NineSevenMatchesFilterBank) {
  // Checks the Table F.4 constants and the K scaling direction: a wrong K direction scales
  // the low band by K^2 and fails by far more than float rounding.
  const uint64_t seed = xtest::base_seed() + 2;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 300; ++iter) {
    const uint32_t n = std::uniform_int_distribution<uint32_t>(2, 70)(rng);
    const uint32_t i0 = std::uniform_int_distribution<uint32_t>(0, 9)(rng);
    std::vector<float> x(n);
    std::vector<double> xd(n);
    for (uint32_t j = 0; j < n; ++j)
      xd[j] = x[j] = std::uniform_real_distribution<float>(-128, 128)(rng);
    SCOPED_TRACE("n " + std::to_string(n) + " i0 " + std::to_string(i0));
    const std::vector<double> yd = fb_analysis(xd, i0, k97Lo, k97Hi);
    std::vector<float> y = x;
    ref::sd_1d_97(y.data(), i0, i0 + n);
    for (uint32_t j = 0; j < n; ++j) ASSERT_NEAR(y[j], yd[j], 2e-4) << "forward sample " << j;
    const std::vector<double> back = fb_synthesis(yd, i0, k97SynLo, k97SynHi);
    ref::sr_1d_97(y.data(), i0, i0 + n);
    for (uint32_t j = 0; j < n; ++j) {
      ASSERT_NEAR(back[j], xd[j], 1e-9 * 128 * 8) << "filter-bank synthesis sample " << j;
      ASSERT_NEAR(y[j], x[j], 2e-4) << "inverse sample " << j;
    }
  }
}

TEST(XformDwtRef, NineSevenGains) {
  // Low-pass DC gain 1, high-pass Nyquist gain 2 (see dwt.h).
  std::vector<float> dc(32, 10.0f), nyq(32);
  for (size_t j = 0; j < nyq.size(); ++j) nyq[j] = (j & 1) ? -10.0f : 10.0f;
  ref::sd_1d_97(dc.data(), 0, 32);
  ref::sd_1d_97(nyq.data(), 0, 32);
  for (size_t j = 0; j < 32; ++j) {
    EXPECT_NEAR(dc[j], (j & 1) ? 0.0f : 10.0f, 1e-4) << j;
    EXPECT_NEAR(nyq[j], (j & 1) ? -20.0f : 0.0f, 1e-4) << j;
  }
}

TEST(XformDwtRef, LengthOneRule) {
  // F.3.7 / F.4.7: a single sample at an even coordinate is unchanged, at an odd one doubled
  // forward and halved inverse.
  int32_t a = 7;
  ref::sd_1d_53(&a, 4, 5);
  EXPECT_EQ(a, 7);
  ref::sd_1d_53(&a, 5, 6);
  EXPECT_EQ(a, 14);
  ref::sr_1d_53(&a, 5, 6);
  EXPECT_EQ(a, 7);
  float f = 1.5f;
  ref::sd_1d_97(&f, 3, 4);
  EXPECT_EQ(f, 3.0f);
  ref::sr_1d_97(&f, 3, 4);
  EXPECT_EQ(f, 1.5f);
  ref::sd_1d_97(&f, 2, 3);
  EXPECT_EQ(f, 1.5f);
  // 2-D: a 1x1 tile-component at an odd (x, y) is doubled twice (VER_SD then HOR_SD) into HH.
  int32_t s = -3;
  ref::forward53({&s, 1}, {1, 1, 2, 2}, 1);
  EXPECT_EQ(s, -12);
  ref::inverse53({&s, 1}, {1, 1, 2, 2}, 1);
  EXPECT_EQ(s, -3);
}

TEST(XformDwtRef, ConstantImageGoesToLL) {
  // 5/3 has DC gain 1 exactly: every level leaves LL = c and zeros elsewhere.
  const Rect tc{3, 6, 3 + 37, 6 + 21};
  const int levels = 3;
  xtest::Guarded<int32_t> g(tc.width(), tc.height(), 0x5A5A5A5A);
  for (uint32_t y = 0; y < g.h; ++y)
    for (uint32_t x = 0; x < g.w; ++x) g.at(x, y) = 100;
  ref::forward53(g.plane(), tc, levels);
  const Rect ll = subband_rect(tc, levels, Band::kLL);
  const Plane<int32_t> llp = subband_plane(g.plane(), tc, levels, levels, Band::kLL);
  for (uint32_t y = 0; y < g.h; ++y)
    for (uint32_t x = 0; x < g.w; ++x) {
      const bool in_ll = x < ll.width() && y < ll.height();
      ASSERT_EQ(g.at(x, y), in_ll ? 100 : 0) << x << "," << y;
    }
  EXPECT_EQ(llp.data[0], 100);
  EXPECT_TRUE(g.guards_intact());
}

TEST(XformDwtRef, OneRowEqualsOneDimensional) {
  // A 1-row tile-component at an even y only runs HOR_SD: the result is the 1-D transform,
  // deinterleaved (low first).
  std::mt19937_64 rng(xtest::base_seed() + 3);
  for (uint32_t x0 : {0u, 1u, 6u, 9u}) {
    const uint32_t n = 65;
    std::vector<int32_t> row(n), one(n);
    for (auto& v : row) v = std::uniform_int_distribution<int32_t>(-500, 500)(rng);
    one = row;
    ref::forward53({row.data(), n}, {x0, 2, x0 + n, 3}, 1);
    ref::sd_1d_53(one.data(), x0, x0 + n);
    std::vector<int32_t> expect;
    for (uint32_t j = 0; j < n; ++j)
      if (((x0 + j) & 1) == 0) expect.push_back(one[j]);
    for (uint32_t j = 0; j < n; ++j)
      if ((x0 + j) & 1) expect.push_back(one[j]);
    EXPECT_EQ(row, expect) << "x0 " << x0;
  }
}

// Perfect reconstruction of the 5/3 reference and the 9/7 round-trip bound on odd sizes, odd
// origins and 0..9 levels, with guard bands.
TEST(XformDwtRef, RoundTrips) {
  const uint64_t seed = xtest::base_seed() + 4;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const uint32_t sizes[] = {1, 2, 3, 5, 17, 63, 65};
  double worst97 = 0;
  for (uint32_t w : sizes)
    for (uint32_t h : sizes) {
      const uint32_t x0 = std::uniform_int_distribution<uint32_t>(0, 300)(rng);
      const uint32_t y0 = std::uniform_int_distribution<uint32_t>(0, 300)(rng);
      const int levels = std::uniform_int_distribution<int>(0, 9)(rng);
      const Rect tc{x0, y0, x0 + w, y0 + h};
      SCOPED_TRACE(xtest::rect_str(tc) + " levels " + std::to_string(levels));
      xtest::Guarded<int32_t> g(w, h, -77777);
      xtest::fill_region<int32_t>(g, xtest::Fill::kRandom, -32768, 32767, rng);
      const auto before = g.region();
      ref::forward53(g.plane(), tc, levels);
      ASSERT_TRUE(g.guards_intact());
      ref::inverse53(g.plane(), tc, levels);
      ASSERT_TRUE(g.guards_intact());
      ASSERT_EQ(g.region(), before);

      xtest::Guarded<float> f(w, h, -77777.f);
      xtest::fill_region<float>(f, xtest::Fill::kRandom, -128.f, 127.f, rng);
      const auto fbefore = f.region();
      ref::forward97(f.plane(), tc, levels);
      ASSERT_TRUE(f.guards_intact());
      ref::inverse97(f.plane(), tc, levels);
      ASSERT_TRUE(f.guards_intact());
      const auto fafter = f.region();
      for (size_t i = 0; i < fafter.size(); ++i)
        worst97 = std::max(worst97, double(std::abs(fafter[i] - fbefore[i])));
    }
  // 9/7 float32 round trip on 8-bit-range data: stated bound 1e-3 (measured ~1e-4).
  EXPECT_LE(worst97, 1e-3);
  std::printf("[ info ] reference 9/7 round trip, 8-bit range, max abs error %.3g\n", worst97);
}

TEST(XformDwtRef, RejectsBadArguments) {
  int32_t v = 0;
  EXPECT_THROW(ref::forward53({&v, 1}, {0, 0, 1, 1}, -1), Error);
  EXPECT_THROW(ref::forward53({&v, 1}, {0, 0, 1, 1}, 33), Error);
  EXPECT_THROW(ref::forward53({&v, 1}, {0, 0, 2, 1}, 1), Error);  // stride < width
  EXPECT_THROW(ref::inverse53({nullptr, 1}, {0, 0, 1, 1}, 1), Error);
  EXPECT_NO_THROW(ref::forward53({nullptr, 0}, {5, 5, 5, 9}, 3));  // empty: no-op
}

}  // namespace
}  // namespace gj2k::transform
