// checkasm-style comparison of every CPU DWT variant against the reference (dwt_ref.cpp):
// seeded random and adversarial fills, odd sizes and origins, 0..12 levels, guard bands.
// Integer (5/3) paths must be identical; 9/7 paths within the stated tolerances:
//   lifting (kCpu) vs reference: |d| <= 1e-6 * peak, and bit-identical (same float operations);
//   convolution vs reference:    |d| <= 2e-6 * peak * (levels + 1) (measured ~1e-7 per level).
// (peak = the largest |sample| of the input.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "core/thread_pool.h"
#include "gj2k/error.h"
#include "transform/dwt.h"
#include "transform/dwt_cpu.h"
#include "transform/dwt_ref.h"
#include "xform_test_util.h"

namespace gj2k::transform {
namespace {

using xtest::Fill;
using xtest::Guarded;

struct Shape {
  uint32_t w, h;
};

// All shapes under test: the odd-size grid plus thin large ones (1-D or nearly, to stay fast)
// and a few big enough for the OpenMP paths (>= 2^15 samples per level).
std::vector<Shape> shapes() {
  std::vector<Shape> out;
  for (uint32_t w : {1u, 2u, 3u, 5u, 63u, 65u})
    for (uint32_t h : {1u, 2u, 3u, 5u, 63u, 65u}) out.push_back({w, h});
  for (Shape s : {Shape{4097, 1}, Shape{1, 4097}, Shape{1023, 3}, Shape{3, 1023}, Shape{4097, 5},
                  Shape{4097, 9}, Shape{1023, 33}, Shape{257, 129}})
    out.push_back(s);
  return out;
}

struct Case {
  Rect tc;
  int levels;
};

std::vector<Case> cases(std::mt19937_64& rng) {
  std::vector<Case> out;
  int i = 0;
  for (Shape s : shapes()) {
    // Origins: even/even, odd/odd, even/odd, odd/even, then random.
    const uint32_t ox[] = {0, 1, 2, 3, std::uniform_int_distribution<uint32_t>(0, 5000)(rng)};
    const uint32_t oy[] = {0, 1, 3, 2, std::uniform_int_distribution<uint32_t>(0, 5000)(rng)};
    for (int k = 0; k < 5; ++k) {
      const int levels = (i++ % 7 == 0) ? std::uniform_int_distribution<int>(9, 12)(rng)
                                        : std::uniform_int_distribution<int>(0, 8)(rng);
      out.push_back({{ox[k], oy[k], ox[k] + s.w, oy[k] + s.h}, levels});
    }
  }
  return out;
}

std::string describe(const Case& c, Fill f, const char* variant) {
  return std::string(variant) + " " + xtest::rect_str(c.tc) + " levels " +
         std::to_string(c.levels) + " fill " + xtest::fill_name(f);
}

TEST(XformDwtVariants, FiveThreeIdenticalToReference) {
  const uint64_t seed = xtest::base_seed() + 20;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const int32_t lo = -(1 << 17), hi = (1 << 17) - 1;  // 18-bit signed: 16-bit + RCT + margin
  const auto all = cases(rng);
  for (DwtVariant var : {DwtVariant::kCpu, DwtVariant::kCpuConvolve}) {
    const DwtOps& ops = dwt_ops(var);
    for (const Case& c : all)
      for (Fill f : xtest::kAllFills) {
        if (f != Fill::kRandom && (c.tc.x0 + c.tc.y0) % 3 != 0) continue;  // keep it fast
        SCOPED_TRACE(describe(c, f, ops.name));
        Guarded<int32_t> a(c.tc.width(), c.tc.height(), 0x7EADBEEF);
        xtest::fill_region<int32_t>(a, f, lo, hi, rng);
        Guarded<int32_t> b = a;
        const auto input = a.region();
        ref::forward53(a.plane(), c.tc, c.levels);
        ops.forward53(b.plane(), c.tc, c.levels);
        ASSERT_TRUE(b.guards_intact());
        ASSERT_EQ(a.region(), b.region());
        // Inverse of the transform (perfect reconstruction) ...
        ops.inverse53(b.plane(), c.tc, c.levels);
        ASSERT_TRUE(b.guards_intact());
        ASSERT_EQ(b.region(), input);
        // ... and inverse of arbitrary coefficients, identical to the reference's.
        Guarded<int32_t> r(c.tc.width(), c.tc.height(), 0x7EADBEEF);
        xtest::fill_region<int32_t>(r, Fill::kRandom, lo / 8, hi / 8, rng);
        Guarded<int32_t> q = r;
        ref::inverse53(r.plane(), c.tc, c.levels);
        ops.inverse53(q.plane(), c.tc, c.levels);
        ASSERT_TRUE(q.guards_intact());
        ASSERT_EQ(r.region(), q.region());
      }
  }
}

// Every vertical strip width (cpu::kStripWidths) that the thread count picks, full strips and
// the narrower last one, odd origins: 5/3 and 9/7 identical to the reference, both directions.
TEST(XformDwtVariants, EveryStripWidthIdenticalToReference) {
  const uint64_t seed = xtest::base_seed() + 23;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  struct WidthCase {
    Rect tc;
    int threads;
    size_t width;  // the strip width level 1 takes
  };
  const WidthCase all[] = {
      {{3, 1, 3 + 1023, 1 + 40}, 1, 128},  // one thread: the widest
      {{1, 2, 1 + 191, 2 + 175}, 3, 64},   // 128: 2 strips on 3 threads; 64: 3, as 32: 6
      {{0, 3, 2560, 3 + 16}, 16, 32},      // 20 strips of 128 or 40 of 64 on 16 threads
      {{5, 0, 5 + 2559, 33}, 5, 128},      // 20 strips of 128, 4 a thread, as 80 of 32: 16
      {{2, 7, 2 + 300, 7 + 2100}, 1, 64},  // 2,100 rows of 128: over kStripScratchBytes
  };
  for (const WidthCase& c : all) {
    core::ThreadScope scope(c.threads);
    SCOPED_TRACE(xtest::rect_str(c.tc) + " on " + std::to_string(c.threads) + " threads");
    ASSERT_EQ(cpu::vertical_strip_width(c.tc.width(), c.tc.height()), c.width);
    const DwtOps& ops = dwt_ops(DwtVariant::kCpu);
    Guarded<int32_t> a(c.tc.width(), c.tc.height(), 0x7EADBEEF);
    xtest::fill_region<int32_t>(a, Fill::kRandom, -(1 << 17), (1 << 17) - 1, rng);
    Guarded<int32_t> b = a;
    ref::forward53(a.plane(), c.tc, 3);
    ops.forward53(b.plane(), c.tc, 3);
    ASSERT_EQ(a.region(), b.region());
    ref::inverse53(a.plane(), c.tc, 3);
    ops.inverse53(b.plane(), c.tc, 3);
    ASSERT_TRUE(b.guards_intact());
    ASSERT_EQ(a.region(), b.region());
    Guarded<float> f(c.tc.width(), c.tc.height(), 0x7EADBEEF);
    xtest::fill_region<float>(f, Fill::kRandom, -4096.0f, 4096.0f, rng);
    Guarded<float> g = f;
    ref::forward97(f.plane(), c.tc, 3);
    ops.forward97(g.plane(), c.tc, 3);
    ASSERT_EQ(f.region(), g.region());
    ref::inverse97(f.plane(), c.tc, 3);
    ops.inverse97(g.plane(), c.tc, 3);
    ASSERT_TRUE(g.guards_intact());
    ASSERT_EQ(f.region(), g.region());
  }
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, double(std::abs(a[i] - b[i])));
  return m;
}

TEST(XformDwtVariants, NineSevenWithinToleranceOfReference) {
  const uint64_t seed = xtest::base_seed() + 21;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const float lo = -32768.f, hi = 32767.f;
  const double peak = 32768.0;
  const auto all = cases(rng);
  for (DwtVariant var : {DwtVariant::kCpu, DwtVariant::kCpuConvolve}) {
    const DwtOps& ops = dwt_ops(var);
    double worst_fwd = 0, worst_inv = 0, worst_rt = 0;  // relative to peak, per (levels + 1)
    for (const Case& c : all)
      for (Fill f : xtest::kAllFills) {
        if (f != Fill::kRandom && (c.tc.x0 + c.tc.y0) % 3 != 0) continue;
        SCOPED_TRACE(describe(c, f, ops.name));
        const double tol = var == DwtVariant::kCpu ? 1e-6 * peak : 2e-6 * peak * (c.levels + 1);
        Guarded<float> a(c.tc.width(), c.tc.height(), -1234.5f);
        xtest::fill_region<float>(a, f, lo, hi, rng);
        Guarded<float> b = a;
        const auto input = a.region();
        ref::forward97(a.plane(), c.tc, c.levels);
        ops.forward97(b.plane(), c.tc, c.levels);
        ASSERT_TRUE(b.guards_intact());
        const double df = max_abs_diff(a.region(), b.region());
        ASSERT_LE(df, tol);
        ops.inverse97(b.plane(), c.tc, c.levels);
        ASSERT_TRUE(b.guards_intact());
        const double dr = max_abs_diff(b.region(), input);
        // Round trip: stated bound 4e-6 * peak * (levels + 1) (float32 lifting, both ways).
        ASSERT_LE(dr, 4e-6 * peak * (c.levels + 1));
        Guarded<float> r(c.tc.width(), c.tc.height(), -1234.5f);
        xtest::fill_region<float>(r, Fill::kRandom, lo, hi, rng);
        Guarded<float> q = r;
        ref::inverse97(r.plane(), c.tc, c.levels);
        ops.inverse97(q.plane(), c.tc, c.levels);
        ASSERT_TRUE(q.guards_intact());
        const double di = max_abs_diff(r.region(), q.region());
        ASSERT_LE(di, tol);
        worst_fwd = std::max(worst_fwd, df / peak / (c.levels + 1));
        worst_inv = std::max(worst_inv, di / peak / (c.levels + 1));
        worst_rt = std::max(worst_rt, dr / peak / (c.levels + 1));
      }
    std::printf(
        "[ info ] %s 9/7 vs reference, max |d| / peak / (levels+1): forward %.3g, "
        "inverse %.3g; round trip %.3g\n",
        ops.name, worst_fwd, worst_inv, worst_rt);
  }
}

// The lifting variant performs the reference's float operations per sample in the same order
// (the fused passes only move where intermediates live), so its 9/7 is bit-identical: the
// decoder's 9/7 samples must not depend on the DWT variant's memory schedule.
TEST(XformDwtVariants, NineSevenLiftingIdenticalToReference) {
  const uint64_t seed = xtest::base_seed() + 22;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const DwtOps& ops = dwt_ops(DwtVariant::kCpu);
  for (const Case& c : cases(rng)) {
    SCOPED_TRACE(describe(c, Fill::kRandom, ops.name));
    Guarded<float> a(c.tc.width(), c.tc.height(), -1234.5f);
    xtest::fill_region<float>(a, Fill::kRandom, -32768.f, 32767.f, rng);
    Guarded<float> b = a;
    ref::forward97(a.plane(), c.tc, c.levels);
    ops.forward97(b.plane(), c.tc, c.levels);
    ASSERT_TRUE(b.guards_intact());
    ASSERT_EQ(a.region(), b.region());
    ref::inverse97(a.plane(), c.tc, c.levels);
    ops.inverse97(b.plane(), c.tc, c.levels);
    ASSERT_TRUE(b.guards_intact());
    ASSERT_EQ(a.region(), b.region());
  }
}

// The convolution taps derived from the lifting match the published 9/7 filters (an
// independent check of Table F.4 and of the derivation).
TEST(XformDwtVariants, DerivedFilterTaps) {
  const Dwt97Filters& f = dwt97_filters();
  const double lo[] = {0.602949018236358, 0.266864118442875, -0.078223266528991, -0.016864118442875,
                       0.026748757410810};
  const double hi[] = {1.115087052457001, -0.591271763114252, -0.057543526228500,
                       0.091271763114250};
  for (int k = 0; k < 5; ++k) EXPECT_NEAR(f.lo[k], lo[k], 1e-9) << k;
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(f.hi[k], hi[k], 1e-9) << k;
  // Synthesis = analysis modulated: g0(n) = (-1)^n h1(n), g1(n) = (-1)^n h0(n).
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(f.syn_lo[k], (k & 1 ? -1 : 1) * hi[k], 1e-9) << k;
  for (int k = 0; k < 5; ++k) EXPECT_NEAR(f.syn_hi[k], (k & 1 ? -1 : 1) * lo[k], 1e-9) << k;
}

TEST(XformDwtVariants, ZeroLevelsAndEmptyAreNoOps) {
  for (DwtVariant var : {DwtVariant::kReference, DwtVariant::kCpu, DwtVariant::kCpuConvolve}) {
    const DwtOps& ops = dwt_ops(var);
    Guarded<int32_t> a(9, 4, 99);
    std::mt19937_64 rng(1);
    xtest::fill_region<int32_t>(a, Fill::kRandom, -100, 100, rng);
    const auto before = a.region();
    ops.forward53(a.plane(), {1, 1, 10, 5}, 0);
    EXPECT_EQ(a.region(), before) << ops.name;
    ops.forward53({nullptr, 0}, {4, 4, 4, 10}, 5);
    ops.inverse97({nullptr, 0}, {4, 4, 10, 4}, 5);
    EXPECT_THROW(ops.forward97({nullptr, 0}, {0, 0, 2, 2}, 1), Error) << ops.name;
  }
}

}  // namespace
}  // namespace gj2k::transform
