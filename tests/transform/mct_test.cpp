// Annex G: DC level shift, RCT (exact), ICT (float, stated tolerances), fused entry points,
// and the lossless DC shift + RCT + 5/3 pipeline.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "gj2k/error.h"
#include "transform/dwt.h"
#include "transform/mct.h"
#include "xform_test_util.h"

namespace gj2k::transform {
namespace {

TEST(XformMct, DcOffset) {
  EXPECT_EQ(dc_offset(8, false), 128);
  EXPECT_EQ(dc_offset(1, false), 1);
  EXPECT_EQ(dc_offset(16, false), 32768);
  EXPECT_EQ(dc_offset(31, false), 1 << 30);
  EXPECT_EQ(dc_offset(12, true), 0);
  EXPECT_THROW(dc_offset(0, false), Error);
  EXPECT_THROW(dc_offset(32, false), Error);
  std::vector<int32_t> v{0, 255, 128};
  dc_shift_forward(v.data(), v.size(), 128);
  EXPECT_EQ(v, (std::vector<int32_t>{-128, 127, 0}));
  dc_shift_inverse(v.data(), v.size(), 128);
  EXPECT_EQ(v, (std::vector<int32_t>{0, 255, 128}));
}

TEST(XformMct, RctByHand) {
  // (R, G, B) = (10, 20, 30): Y0 = floor(80 / 4) = 20, Y1 = 30 - 20, Y2 = 10 - 20.
  // (0, 0, -1): Y0 = floor(-1 / 4) = -1 (floor, not truncation).
  int32_t r[] = {10, 0}, g[] = {20, 0}, b[] = {30, -1};
  rct_forward(r, g, b, 2);
  EXPECT_EQ(r[0], 20);
  EXPECT_EQ(g[0], 10);
  EXPECT_EQ(b[0], -10);
  EXPECT_EQ(r[1], -1);
  EXPECT_EQ(g[1], -1);
  EXPECT_EQ(b[1], 0);
}

TEST(XformMct, RctExhaustiveSmallAndRandomLarge) {
  // Every triple of 5-bit signed values, then random values up to |2^28| and the extremes.
  std::vector<int32_t> a, b, c;
  for (int32_t i = -16; i < 16; ++i)
    for (int32_t j = -16; j < 16; ++j)
      for (int32_t k = -16; k < 16; ++k) a.push_back(i), b.push_back(j), c.push_back(k);
  const uint64_t seed = xtest::base_seed() + 10;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const int32_t m = (1 << 28) - 1;
  for (int i = 0; i < 20000; ++i) {
    a.push_back(std::uniform_int_distribution<int32_t>(-m, m)(rng));
    b.push_back(std::uniform_int_distribution<int32_t>(-m, m)(rng));
    c.push_back(std::uniform_int_distribution<int32_t>(-m, m)(rng));
  }
  for (int32_t x : {-m, m, 0})
    for (int32_t y : {-m, m, 0})
      for (int32_t z : {-m, m, 0}) a.push_back(x), b.push_back(y), c.push_back(z);
  auto a2 = a, b2 = b, c2 = c;
  rct_forward(a2.data(), b2.data(), c2.data(), a.size());
  for (size_t i = 0; i < a.size(); ++i) {  // G-1, computed here in 64 bits with floor division
    const int64_t s = int64_t{a[i]} + 2 * int64_t{b[i]} + c[i];
    const int64_t y0 = s >= 0 ? s / 4 : -((-s + 3) / 4);
    ASSERT_EQ(a2[i], y0) << i;
    ASSERT_EQ(b2[i], c[i] - b[i]) << i;
    ASSERT_EQ(c2[i], a[i] - b[i]) << i;
  }
  rct_inverse(a2.data(), b2.data(), c2.data(), a.size());
  EXPECT_EQ(a2, a);
  EXPECT_EQ(b2, b);
  EXPECT_EQ(c2, c);
}

// ICT against the G.3 matrix in double precision, and its round trip. The G.3 inverse matrix
// is the forward one's inverse only to about 5 digits, so the stated round-trip bound is
// relative: |x' - x| <= 1e-4 * max(|R|, |G|, |B|) + 1e-4.
TEST(XformMct, IctMatrixAndRoundTrip) {
  const uint64_t seed = xtest::base_seed() + 11;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const size_t n = 5000;
  std::vector<float> r(n), g(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    r[i] = std::uniform_real_distribution<float>(-32768, 32767)(rng);
    g[i] = std::uniform_real_distribution<float>(-32768, 32767)(rng);
    b[i] = std::uniform_real_distribution<float>(-32768, 32767)(rng);
  }
  auto y = r, cb = g, cr = b;
  ict_forward(y.data(), cb.data(), cr.data(), n);
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    const double R = r[i], G = g[i], B = b[i];
    const double mag = std::max({std::abs(R), std::abs(G), std::abs(B)});
    ASSERT_NEAR(y[i], 0.299 * R + 0.587 * G + 0.114 * B, 1e-6 * mag + 1e-6) << i;
    ASSERT_NEAR(cb[i], -0.16875 * R - 0.33126 * G + 0.5 * B, 1e-6 * mag + 1e-6) << i;
    ASSERT_NEAR(cr[i], 0.5 * R - 0.41869 * G - 0.08131 * B, 1e-6 * mag + 1e-6) << i;
  }
  ict_inverse(y.data(), cb.data(), cr.data(), n);
  for (size_t i = 0; i < n; ++i) {
    const double mag = std::max({std::abs(r[i]), std::abs(g[i]), std::abs(b[i])});
    const double e =
        std::max({std::abs(y[i] - r[i]), std::abs(cb[i] - g[i]), std::abs(cr[i] - b[i])});
    worst = std::max(worst, e / (mag + 1));
    ASSERT_LE(e, 1e-4 * mag + 1e-4) << i;
  }
  std::printf("[ info ] ICT round trip: max relative error %.3g\n", worst);
}

TEST(XformMct, FusedEqualsComposition) {
  const uint64_t seed = xtest::base_seed() + 12;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const size_t n = 4097;
  const int32_t off[3] = {2048, 2048, 2048}, lo[3] = {0, 0, 0}, hi[3] = {4095, 4095, 4095};
  std::vector<int32_t> in[3];
  for (auto& v : in) {
    v.resize(n);
    for (auto& s : v) s = std::uniform_int_distribution<int32_t>(0, 4095)(rng);
  }
  // RCT forward.
  auto f0 = in[0], f1 = in[1], f2 = in[2];
  dc_shift_rct_forward(f0.data(), f1.data(), f2.data(), n, off);
  auto u0 = in[0], u1 = in[1], u2 = in[2];
  for (auto* v : {&u0, &u1, &u2}) dc_shift_forward(v->data(), n, 2048);
  rct_forward(u0.data(), u1.data(), u2.data(), n);
  EXPECT_EQ(f0, u0);
  EXPECT_EQ(f1, u1);
  EXPECT_EQ(f2, u2);
  // The out-of-place forms (the encoder's, from the image's samples) equal the in-place ones.
  std::vector<int32_t> p0(n), p1(n), p2(n);
  dc_shift_rct_forward(in[0].data(), in[1].data(), in[2].data(), p0.data(), p1.data(), p2.data(), n,
                       off);
  EXPECT_EQ(p0, f0);
  EXPECT_EQ(p1, f1);
  EXPECT_EQ(p2, f2);
  auto shifted = in[1];
  dc_shift_forward(shifted.data(), n, 2048);
  dc_shift_forward(in[1].data(), p1.data(), n, 2048);
  EXPECT_EQ(p1, shifted);
  // RCT inverse back to the input (values stay in range: the clamp changes nothing).
  rct_inverse_dc_shift(f0.data(), f1.data(), f2.data(), n, off, lo, hi);
  EXPECT_EQ(f0, in[0]);
  EXPECT_EQ(f1, in[1]);
  EXPECT_EQ(f2, in[2]);
  // ICT forward: fused vs dc_shift_to_float + ict_forward, same float operations.
  std::vector<float> a0(n), a1(n), a2(n), b0(n), b1(n), b2(n);
  dc_shift_ict_forward(in[0].data(), in[1].data(), in[2].data(), a0.data(), a1.data(), a2.data(), n,
                       off);
  dc_shift_to_float(in[0].data(), b0.data(), n, 2048);
  dc_shift_to_float(in[1].data(), b1.data(), n, 2048);
  dc_shift_to_float(in[2].data(), b2.data(), n, 2048);
  ict_forward(b0.data(), b1.data(), b2.data(), n);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_FLOAT_EQ(a0[i], b0[i]) << i;
    ASSERT_FLOAT_EQ(a1[i], b1[i]) << i;
    ASSERT_FLOAT_EQ(a2[i], b2[i]) << i;
  }
  // ICT inverse to integers: round trip of 12-bit data is within 1 (the G.3 matrices are
  // inverse only to ~1e-5; 4095 * 1e-4 < 0.5 plus rounding).
  std::vector<int32_t> o0(n), o1(n), o2(n);
  ict_inverse_dc_shift(a0.data(), a1.data(), a2.data(), o0.data(), o1.data(), o2.data(), n, off, lo,
                       hi);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_LE(std::abs(o0[i] - in[0][i]), 1) << i;
    ASSERT_LE(std::abs(o1[i] - in[1][i]), 1) << i;
    ASSERT_LE(std::abs(o2[i] - in[2][i]), 1) << i;
  }
}

TEST(XformMct, RoundingAndClamping) {
  const float in[] = {-0.5f,  0.5f,  1.5f, 2.5f,
                      254.6f, 300.f, -7.f, std::numeric_limits<float>::quiet_NaN()};
  int32_t out[8];
  float_to_int_dc_shift(in, out, 8, 0, 0, 255);
  const int32_t expect[] = {0, 0, 2, 2, 255, 255, 0, 0};  // ties to even; clamp; NaN -> lo
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], expect[i]) << i;
  int32_t v[] = {-200, 0, 200};
  dc_shift_inverse_clamp(v, 3, 128, 0, 255);
  EXPECT_EQ(v[0], 0);
  EXPECT_EQ(v[1], 128);
  EXPECT_EQ(v[2], 255);
}

// dc_shift_inverse_clamp equals its rule, clamp(x + offset, lo, hi) in 64 bits, for ranges
// whose shifted bounds fit in 32 bits (the 32-bit loop) and ranges whose do not (the 64-bit
// one), on random values, the int32 extremes and odd lengths.
TEST(XformMct, DcShiftInverseClampMatchesItsRule) {
  std::mt19937_64 rng(xtest::base_seed() + 31);
  struct Range {
    int32_t offset, lo, hi;
  };
  const Range ranges[] = {
      {128, 0, 255},                            // 8-bit unsigned
      {0, -32768, 32767},                       // 16-bit signed
      {1 << 30, 0, INT32_MAX},                  // 31-bit unsigned
      {INT32_MAX, INT32_MIN, INT32_MAX},        // lo - offset below INT32_MIN: 64-bit loop
      {INT32_MIN, INT32_MIN, INT32_MAX},        // hi - offset above INT32_MAX: 64-bit loop
      {-5, -200, 200},
  };
  for (const Range& r : ranges)
    for (size_t n : {1u, 7u, 8u, 9u, 33u, 1001u}) {
      std::vector<int32_t> x(n);
      for (int32_t& v : x) v = static_cast<int32_t>(rng());
      x[0] = INT32_MIN;
      if (n > 1) x[n - 1] = INT32_MAX;
      std::vector<int32_t> want(n);
      for (size_t i = 0; i < n; ++i)
        want[i] = static_cast<int32_t>(
            std::clamp<int64_t>(int64_t{x[i]} + r.offset, int64_t{r.lo}, int64_t{r.hi}));
      dc_shift_inverse_clamp(x.data(), n, r.offset, r.lo, r.hi);
      EXPECT_EQ(x, want) << "offset " << r.offset << " [" << r.lo << ", " << r.hi << "] n " << n;
    }
}

// The vectorised rounding equals std::nearbyint (ties to even) + clamp on random values,
// exact half-integers and the extremes of 16- and 31-bit ranges, on odd lengths (loop tails).
TEST(XformMct, RoundingMatchesNearbyint) {
  const uint64_t seed = xtest::base_seed() + 29;
  std::mt19937_64 rng(seed);
  struct Range {
    int32_t offset, lo, hi;
  };
  const Range ranges[] = {
      {128, 0, 255},
      {0, -32768, 32767},
      {1 << 15, 0, 65535},
      {0, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()},
      {1 << 30, 0, std::numeric_limits<int32_t>::max()}};
  for (const Range& r : ranges)
    for (size_t n : {1u, 7u, 63u, 1001u}) {
      std::vector<float> in(n);
      std::uniform_real_distribution<double> wide(-3.0e9, 3.0e9), narrow(-70000.0, 70000.0);
      for (size_t i = 0; i < n; ++i) {
        switch (rng() % 4) {
          case 0:
            in[i] = static_cast<float>(wide(rng));
            break;
          case 1:
            in[i] = static_cast<float>(narrow(rng));
            break;
          case 2:
            in[i] = static_cast<float>(std::floor(narrow(rng))) + 0.5f;
            break;  // a tie
          default:
            in[i] = static_cast<float>(narrow(rng) / 1000.0);
            break;
        }
      }
      std::vector<int32_t> got(n), g0(n), g1(n), g2(n);
      float_to_int_dc_shift(in.data(), got.data(), n, r.offset, r.lo, r.hi);
      const int32_t off3[3] = {r.offset, r.offset, r.offset}, lo3[3] = {r.lo, r.lo, r.lo},
                    hi3[3] = {r.hi, r.hi, r.hi};
      const std::vector<float> zero(n, 0.0f);  // Cb = Cr = 0: every output is round(Y)
      ict_inverse_dc_shift(in.data(), zero.data(), zero.data(), g0.data(), g1.data(), g2.data(), n,
                           off3, lo3, hi3);
      for (size_t i = 0; i < n; ++i) {
        double t = double{in[i]} + r.offset;
        t = std::min<double>(std::max<double>(t, r.lo), r.hi);
        const auto expect = static_cast<int32_t>(std::nearbyint(t));
        ASSERT_EQ(got[i], expect) << "seed " << seed << " value " << in[i] << " i " << i;
        ASSERT_EQ(g0[i], expect) << "seed " << seed << " value " << in[i];
        ASSERT_EQ(g2[i], expect) << "seed " << seed << " value " << in[i];
      }
    }
}

// Inverse RCT with clamping against a 64-bit spelling of G.2, for coefficients of every size:
// small runs (the 32-bit loop), runs with one coefficient beyond 2^28 (the 64-bit loop) and
// a run of extremes, with the clamps cutting both ways.
TEST(XformMct, RctInverseClampsAsIn64Bits) {
  const uint64_t seed = xtest::base_seed() + 17;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const size_t n = 5000;
  const int32_t off[3] = {2048, -7, 1 << 30}, lo[3] = {0, -100, -(1 << 30)},
                hi[3] = {4095, 100, (1 << 30) - 1};
  std::vector<int32_t> c[3];
  for (auto& v : c) {
    v.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const bool huge = (i >= 1500 && i < 1510) || i >= 4000;
      const int32_t m = huge ? INT32_MAX / 2 : 5000;
      v[i] = std::uniform_int_distribution<int32_t>(-m, m)(rng);
    }
  }
  std::vector<int32_t> want[3] = {c[0], c[1], c[2]};
  for (size_t i = 0; i < n; ++i) {
    const int64_t y = c[0][i], u = c[1][i], v = c[2][i];
    const int64_t g = y - ((u + v) >> 2);
    const int64_t out[3] = {v + g + off[0], g + off[1], u + g + off[2]};
    for (int k = 0; k < 3; ++k)
      want[k][i] = static_cast<int32_t>(std::clamp<int64_t>(out[k], lo[k], hi[k]));
  }
  rct_inverse_dc_shift(c[0].data(), c[1].data(), c[2].data(), n, off, lo, hi);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(c[k], want[k]) << "component " << k;
}

// Lossless path: DC shift + RCT + 5-level 5/3 (every CPU variant) and back, bit-exact.
TEST(XformMct, LosslessPipelineRoundTrip) {
  const uint64_t seed = xtest::base_seed() + 13;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const Rect tc{7, 3, 7 + 67, 3 + 45};
  const size_t n = size_t{tc.width()} * tc.height();
  const int32_t off[3] = {128, 128, 128}, lo[3] = {0, 0, 0}, hi[3] = {255, 255, 255};
  for (DwtVariant var : {DwtVariant::kReference, DwtVariant::kCpu}) {
    std::vector<int32_t> in[3], c[3];
    for (int k = 0; k < 3; ++k) {
      in[k].resize(n);
      for (auto& s : in[k]) s = std::uniform_int_distribution<int32_t>(0, 255)(rng);
      c[k] = in[k];
    }
    dc_shift_rct_forward(c[0].data(), c[1].data(), c[2].data(), n, off);
    for (auto& v : c) dwt_ops(var).forward53({v.data(), tc.width()}, tc, 5);
    for (auto& v : c) dwt_ops(var).inverse53({v.data(), tc.width()}, tc, 5);
    rct_inverse_dc_shift(c[0].data(), c[1].data(), c[2].data(), n, off, lo, hi);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(c[k], in[k]) << dwt_ops(var).name << " comp " << k;
  }
}

}  // namespace
}  // namespace gj2k::transform
