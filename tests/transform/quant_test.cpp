// Annex E: step sizes, derived vs expounded signalling, M_b, dead-zone quantization and
// reconstruction, and the subband L2 norms (checked against impulse responses of the reference
// inverse DWT).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gj2k/error.h"
#include "transform/dwt_ref.h"
#include "transform/quant.h"
#include "xform_test_util.h"

namespace gj2k::transform {
namespace {

TEST(XformQuant, GainsRangesAndOrder) {
  EXPECT_EQ(nominal_range(8, Band::kLL), 8);
  EXPECT_EQ(nominal_range(8, Band::kHL), 9);
  EXPECT_EQ(nominal_range(8, Band::kLH), 9);
  EXPECT_EQ(nominal_range(8, Band::kHH), 10);
  // QCD order: LL, then HL, LH, HH of level 2, then of level 1.
  EXPECT_EQ(qcd_index(2, 2, Band::kLL), 0);
  EXPECT_EQ(qcd_index(2, 2, Band::kHL), 1);
  EXPECT_EQ(qcd_index(2, 2, Band::kHH), 3);
  EXPECT_EQ(qcd_index(2, 1, Band::kHL), 4);
  EXPECT_EQ(qcd_index(2, 1, Band::kHH), 6);
  EXPECT_EQ(qcd_index(0, 0, Band::kLL), 0);
}

TEST(XformQuant, StepSizeByHand) {
  EXPECT_EQ(step_size(8, {8, 0}), 1.0);
  EXPECT_EQ(step_size(8, {5, 1024}), 12.0);  // 2^3 * 1.5
  EXPECT_EQ(step_size(9, {12, 2047}), (1.0 + 2047 / 2048.0) / 8);
  EXPECT_EQ(magnitude_bits(2, {9, 0}), 10);  // E-2: G + eps - 1
  EXPECT_EQ(magnitude_bits(1, {8, 100}), 8);
}

TEST(XformQuant, EncodeStepRoundTrip) {
  const uint64_t seed = xtest::base_seed() + 30;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 2000; ++i) {
    const int rb = std::uniform_int_distribution<int>(1, 20)(rng);
    const double step = std::exp2(std::uniform_real_distribution<double>(-8, 8)(rng));
    const QuantStep s = encode_step(step, rb);
    if (rb - std::floor(std::log2(step)) > 31 || rb - std::floor(std::log2(step)) < 0) continue;
    ASSERT_LE(s.exponent, 31);
    ASSERT_LE(s.mantissa, 2047);
    const double got = step_size(rb, s);
    // Nearest 11-bit mantissa: relative error <= 2^-12.
    ASSERT_LE(std::abs(got - step) / step, std::exp2(-12) * (1 + 1e-12)) << step << " rb " << rb;
    // Representable steps come back exactly.
    ASSERT_EQ(encode_step(got, rb), s);
  }
  EXPECT_EQ(encode_step(1e9, 8), (QuantStep{0, 2047}));      // clamped to the largest
  EXPECT_EQ(encode_step(1e-9, 8), (QuantStep{31, 0}));       // clamped to the smallest
  EXPECT_EQ(encode_step(2.0 - 1e-9, 8), (QuantStep{7, 0}));  // mantissa rounds up to 2048
  EXPECT_THROW(encode_step(0.0, 8), Error);
  EXPECT_THROW(encode_step(std::nan(""), 8), Error);
}

TEST(XformQuant, DerivedByHand) {
  // E-5 with eps_0 = 10, mu_0 = 7, N_L = 3.
  const QuantStep ll{10, 7};
  EXPECT_EQ(derived_step(ll, 3, 3), (QuantStep{10, 7}));
  EXPECT_EQ(derived_step(ll, 3, 2), (QuantStep{9, 7}));
  EXPECT_EQ(derived_step(ll, 3, 1), (QuantStep{8, 7}));
  EXPECT_THROW(derived_step({1, 0}, 5, 1), Error);
  // signalled_step: derived uses only entry 0; expounded needs 3 N_L + 1 entries.
  EXPECT_EQ(signalled_step(QuantStyle::kScalarDerived, {ll}, 3, 1, Band::kHH), (QuantStep{8, 7}));
  std::vector<QuantStep> ex(10);
  for (int i = 0; i < 10; ++i) ex[i] = {static_cast<uint8_t>(i + 5), static_cast<uint16_t>(i)};
  EXPECT_EQ(signalled_step(QuantStyle::kScalarExpounded, ex, 3, 1, Band::kLH), ex[8]);
  EXPECT_EQ(signalled_step(QuantStyle::kNone, ex, 3, 3, Band::kLL), ex[0]);
  ex.resize(9);
  EXPECT_THROW(signalled_step(QuantStyle::kScalarExpounded, ex, 3, 1, Band::kHH), Error);
}

TEST(XformQuant, ChooseStepsReversible) {
  const auto q = choose_steps(Wavelet::k53, QuantStyle::kNone, 5, 8, 2, 1.0);
  ASSERT_EQ(q.size(), 16u);
  for (size_t i = 0; i < q.size(); ++i) {
    EXPECT_EQ(qcd_index(5, q[i].n, q[i].band), static_cast<int>(i));
    EXPECT_EQ(q[i].step.exponent, nominal_range(8, q[i].band));
    EXPECT_EQ(q[i].step.mantissa, 0);
    EXPECT_EQ(q[i].delta, 1.0);
    EXPECT_EQ(q[i].magnitude, 2 + nominal_range(8, q[i].band) - 1);
  }
  EXPECT_THROW(choose_steps(Wavelet::k53, QuantStyle::kScalarDerived, 5, 8, 2, 1.0), Error);
  EXPECT_THROW(choose_steps(Wavelet::k97, QuantStyle::kNone, 5, 8, 2, 1.0), Error);
}

TEST(XformQuant, ChooseStepsIrreversibleExpoundedAndDerived) {
  const double base = 0.75;
  const int levels = 5, prec = 12, guard = 2;
  const auto ex =
      choose_steps(Wavelet::k97, QuantStyle::kScalarExpounded, levels, prec, guard, base);
  ASSERT_EQ(ex.size(), 16u);
  for (const auto& q : ex) {
    const double ideal = base / subband_l2_norm(Wavelet::k97, q.n, q.band);
    EXPECT_LE(std::abs(q.delta - ideal) / ideal, std::exp2(-12)) << q.n;
    EXPECT_EQ(q.delta, step_size(q.range_bits, q.step));  // the step actually represented
    EXPECT_EQ(q.magnitude, guard + q.step.exponent - 1);
  }
  const auto de = choose_steps(Wavelet::k97, QuantStyle::kScalarDerived, levels, prec, guard, base);
  std::vector<QuantStep> signalled{de[0].step};
  for (const auto& q : de) {
    // What a decoder derives from the one LL value is what the encoder reports.
    const QuantStep s = signalled_step(QuantStyle::kScalarDerived, signalled, levels, q.n, q.band);
    EXPECT_EQ(s, q.step);
    EXPECT_EQ(q.delta, step_size(q.range_bits, s));
    // Derived steps stay close to the norm-weighted ideal for 9/7 (the norms are nearly
    // powers of 2): within 25 %.
    const double ideal = base / subband_l2_norm(Wavelet::k97, q.n, q.band);
    EXPECT_LE(std::abs(q.delta - ideal) / ideal, 0.25) << q.n << " " << int(q.band);
  }
  EXPECT_EQ(de[0].step, ex[0].step);
}

// The vectorized quantizer against the formula of E.1 at the edges: NaN gives 0, magnitudes
// at or past 2^31 saturate, -0 and tiny values give 0, quotients just below an integer stay
// below it.
TEST(XformQuant, QuantizeEdgeCases) {
  const float big = 3e9f, nan = std::nanf(""), inf = INFINITY;
  const float in[] = {nan,
                      -nan,
                      inf,
                      -inf,
                      big,
                      -big,
                      2147483520.0f,
                      -0.0f,
                      1e-30f,
                      -1e-30f,
                      std::nextafter(4.0f, 0.0f),
                      -std::nextafter(4.0f, 0.0f),
                      4.0f,
                      7.5f,
                      -7.5f,
                      1.0f,
                      123456.7f,
                      -98765.4f};
  const size_t n = sizeof(in) / sizeof(in[0]);
  for (const float delta : {1.0f, 0.37f, 2.0f, 1e-20f}) {
    int32_t q[n];
    quantize(in, q, n, delta);
    for (size_t i = 0; i < n; ++i) {
      const float f = std::floor(std::fabs(in[i]) / delta);  // the float quotient, floored
      const double m = std::isnan(f) ? 0.0 : f >= 2147483520.0f ? 2147483520.0 : double(f);
      const int32_t expect = static_cast<int32_t>(m) * (in[i] < 0 ? -1 : 1);
      EXPECT_EQ(q[i], expect) << "in " << in[i] << " delta " << delta;
    }
    float y[n];
    std::copy_n(in, n, y);
    const int32_t* p = quantize_in_place(y, n, delta);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(p[i], q[i]) << "in place: " << in[i];
  }
}

TEST(XformQuant, DeadZoneAndReconstruction) {
  const float in[] = {2.9f, -2.9f, 0.99f, -0.99f, 0.0f, 3.0f, -3.0f};
  int32_t q[7];
  quantize(in, q, 7, 1.0f);
  const int32_t expect[] = {2, -2, 0, 0, 0, 3, -3};
  for (int i = 0; i < 7; ++i) EXPECT_EQ(q[i], expect[i]) << i;
  float y[7];
  dequantize(q, y, 7, 2.0f, 0.5f);
  EXPECT_EQ(y[0], 5.0f);  // (2 + 0.5) * 2
  EXPECT_EQ(y[1], -5.0f);
  EXPECT_EQ(y[2], 0.0f);
  EXPECT_EQ(reconstruction_offset(0.5f, 10, 10), 0.5f);
  EXPECT_EQ(reconstruction_offset(0.5f, 10, 8), 2.0f);
  // Random: midpoint reconstruction is within delta/2 outside the dead zone, delta inside.
  const uint64_t seed = xtest::base_seed() + 31;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const size_t n = 10000;
  std::vector<float> v(n), r(n);
  std::vector<int32_t> qq(n);
  for (auto& x : v) x = std::uniform_real_distribution<float>(-1000, 1000)(rng);
  const float delta = 3.7f;
  quantize(v.data(), qq.data(), n, delta);
  dequantize(qq.data(), r.data(), n, delta, 0.5f);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(qq[i],
              static_cast<int32_t>(std::floor(std::abs(v[i]) / delta)) * (v[i] < 0 ? -1 : 1));
    ASSERT_LE(std::abs(r[i] - v[i]), (qq[i] == 0 ? 1.0f : 0.5f) * delta * (1 + 1e-5f)) << v[i];
  }
}

TEST(XformQuant, L2NormsByHandFor53) {
  // 5/3 synthesis: low (1, 2, 1)/2 -> norm^2 1.5; high (-1, -2, 6, -2, -1)/8 -> 46/64.
  EXPECT_NEAR(subband_l2_norm(Wavelet::k53, 1, Band::kLL), 1.5, 1e-12);
  EXPECT_NEAR(subband_l2_norm(Wavelet::k53, 1, Band::kHH), 46.0 / 64, 1e-12);
  EXPECT_NEAR(subband_l2_norm(Wavelet::k53, 1, Band::kHL), std::sqrt(1.5 * 46.0 / 64), 1e-12);
  EXPECT_EQ(subband_l2_norm(Wavelet::k97, 0, Band::kLL), 1.0);
  // Level 2 low: (1,2,1)/2 upsampled * (1,2,1)/2 = (1,2,3,4,3,2,1)/4 -> norm^2 = 44/16.
  EXPECT_NEAR(subband_l2_norm(Wavelet::k53, 2, Band::kLL), 44.0 / 16, 1e-12);
  // Growth is regular up to 32 levels (LL: about x2 per level).
  for (int n = 2; n <= kMaxLevels; ++n) {
    const double r = subband_l2_norm(Wavelet::k97, n, Band::kLL) /
                     subband_l2_norm(Wavelet::k97, n - 1, Band::kLL);
    EXPECT_NEAR(r, 2.0, 0.1) << n;
  }
}

// The norm of a subband's synthesis basis function measured directly: one unit coefficient
// in the middle of the subband, inverse-transformed by the reference 9/7, far from the edges.
TEST(XformQuant, L2NormsMatchImpulseResponsesOfTheInverseDwt) {
  const uint32_t size = 256;
  const Rect tc{0, 0, size, size};
  const int levels = 4;
  for (int n = 1; n <= levels; ++n)
    for (Band b : {Band::kLL, Band::kHL, Band::kLH, Band::kHH}) {
      if (b == Band::kLL && n != levels) continue;
      std::vector<float> buf(size_t{size} * size, 0.0f);
      const BandPlacement pl = band_placement(tc, levels, n, b);
      const uint32_t x = pl.x_off + pl.rect.width() / 2, y = pl.y_off + pl.rect.height() / 2;
      buf[size_t{y} * size + x] = 1.0f;
      ref::inverse97({buf.data(), size}, tc, levels);
      double s2 = 0;
      for (float v : buf) s2 += double{v} * v;
      EXPECT_NEAR(std::sqrt(s2), subband_l2_norm(Wavelet::k97, n, b), 1e-5)
          << "level " << n << " band " << int(b);
    }
}

}  // namespace
}  // namespace gj2k::transform
