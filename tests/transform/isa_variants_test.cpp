// The host kernels' instruction-set variants (core/isa.h), checkasm style: the fast CPU DWT and
// the decoder's inverse colour transforms and DC shifts, run as the baseline build and as the
// x86-64-v3 build, must give the same samples, bit for bit (9/7 and ICT floats included), on
// odd sizes and origins, every fill, NaN and out-of-range values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/isa.h"
#include "transform/dwt.h"
#include "transform/dwt_cpu.h"
#include "transform/dwt_ref.h"
#include "transform/mct.h"
#include "transform/pack.h"
#include "xform_test_util.h"

namespace gj2k::transform {
namespace {

using xtest::Fill;
using xtest::Guarded;

// Runs f() under each variant, restoring the one in use before.
template <class F>
void for_each_isa(F&& f) {
  const core::Isa saved = core::host_isa();
  for (core::Isa isa : {core::Isa::kBase, core::Isa::kV3}) {
    if (!core::set_host_isa(isa)) continue;
    SCOPED_TRACE(isa == core::Isa::kV3 ? "isa v3" : "isa base");
    f(isa);
  }
  core::set_host_isa(saved);
}

class XformIsa : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!core::isa_supported(core::Isa::kV3))
      GTEST_SKIP() << "this build or CPU has no x86-64-v3 variant (GJ2K_HAVE_ISA_V3 "
                   << GJ2K_HAVE_ISA_V3 << ")";
  }
};

struct Case {
  Rect tc;
  int levels;
};

std::vector<Case> cases(std::mt19937_64& rng) {
  std::vector<Case> out;
  const uint32_t sizes[][2] = {{1, 1},  {2, 3},   {5, 2},    {33, 31},  {63, 65},
                               {65, 1}, {1, 129}, {257, 67}, {300, 211}};
  for (const auto& s : sizes)
    for (int k = 0; k < 3; ++k) {
      const uint32_t ox = k == 0 ? 0 : std::uniform_int_distribution<uint32_t>(0, 999)(rng);
      const uint32_t oy = k == 0 ? 1 : std::uniform_int_distribution<uint32_t>(0, 999)(rng);
      out.push_back(
          {{ox, oy, ox + s[0], oy + s[1]}, std::uniform_int_distribution<int>(1, 6)(rng)});
    }
  return out;
}

TEST_F(XformIsa, DwtVariantsMatchTheReference) {
  const uint64_t seed = xtest::base_seed() + 90;
  SCOPED_TRACE("seed " + std::to_string(seed));
  const DwtOps& ops = dwt_ops(DwtVariant::kCpu);
  for_each_isa([&](core::Isa) {
    std::mt19937_64 rng(seed);
    for (const Case& c : cases(rng)) {
      SCOPED_TRACE(xtest::rect_str(c.tc) + " levels " + std::to_string(c.levels));
      Guarded<int32_t> a(c.tc.width(), c.tc.height(), 0x7EADBEEF);
      xtest::fill_region<int32_t>(a, Fill::kRandom, -(1 << 17), (1 << 17) - 1, rng);
      Guarded<int32_t> b = a;
      ref::forward53(a.plane(), c.tc, c.levels);
      ops.forward53(b.plane(), c.tc, c.levels);
      ASSERT_TRUE(b.guards_intact());
      ASSERT_EQ(a.region(), b.region());
      ref::inverse53(a.plane(), c.tc, c.levels);
      ops.inverse53(b.plane(), c.tc, c.levels);
      ASSERT_TRUE(b.guards_intact());
      ASSERT_EQ(a.region(), b.region());

      Guarded<float> f(c.tc.width(), c.tc.height(), -1234.5f);
      xtest::fill_region<float>(f, Fill::kRandom, -32768.f, 32767.f, rng);
      Guarded<float> g = f;
      ref::forward97(f.plane(), c.tc, c.levels);
      ops.forward97(g.plane(), c.tc, c.levels);
      ASSERT_TRUE(g.guards_intact());
      ASSERT_EQ(f.region(), g.region());
      ref::inverse97(f.plane(), c.tc, c.levels);
      ops.inverse97(g.plane(), c.tc, c.levels);
      ASSERT_TRUE(g.guards_intact());
      ASSERT_EQ(f.region(), g.region());
    }
  });
}

// Values for the inverse colour stages: ordinary, extreme, and (floats) NaN and infinities.
std::vector<float> float_values(std::mt19937_64& rng, size_t n) {
  std::vector<float> v(n);
  const float special[] = {std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(),
                           3e9f,
                           -3e9f,
                           0.5f,
                           1.5f,
                           -0.5f,
                           2.5f};
  for (size_t i = 0; i < n; ++i)
    v[i] = i % 17 == 3 ? special[(i / 17) % std::size(special)]
                       : std::uniform_real_distribution<float>(-700.f, 700.f)(rng);
  return v;
}
std::vector<int32_t> int_values(std::mt19937_64& rng, size_t n) {
  std::vector<int32_t> v(n);
  for (size_t i = 0; i < n; ++i) {
    const int32_t m = (i >= 900 && i < 910) || i % 97 == 5 ? INT32_MAX / 2 : 3000;
    v[i] = std::uniform_int_distribution<int32_t>(-m, m)(rng);
  }
  return v;
}

TEST_F(XformIsa, InverseColourAndDcShiftVariantsAgree) {
  const uint64_t seed = xtest::base_seed() + 91;
  SCOPED_TRACE("seed " + std::to_string(seed));
  const size_t n = 3001;  // odd: every variant's tail
  const int32_t off[3] = {128, 2048, -5}, lo[3] = {0, 0, -200}, hi[3] = {255, 4095, 200};
  std::vector<std::vector<int32_t>> results[2];
  for_each_isa([&](core::Isa isa) {
    std::mt19937_64 rng(seed);
    std::vector<std::vector<int32_t>>& out = results[isa == core::Isa::kV3];
    const std::vector<float> f0 = float_values(rng, n), f1 = float_values(rng, n),
                             f2 = float_values(rng, n);
    std::vector<int32_t> c0(n), c1(n), c2(n);
    ict_inverse_dc_shift(f0.data(), f1.data(), f2.data(), c0.data(), c1.data(), c2.data(), n, off,
                         lo, hi);
    out.insert(out.end(), {c0, c1, c2});
    float_to_int_dc_shift(f0.data(), c0.data(), n, off[1], lo[1], hi[1]);
    out.push_back(c0);
    std::vector<int32_t> r0 = int_values(rng, n), r1 = int_values(rng, n), r2 = int_values(rng, n);
    rct_inverse_dc_shift(r0.data(), r1.data(), r2.data(), n, off, lo, hi);
    out.insert(out.end(), {r0, r1, r2});
    std::vector<int32_t> d = int_values(rng, n);
    dc_shift_inverse_clamp(d.data(), n, off[2], lo[2], hi[2]);
    out.push_back(d);
  });
  ASSERT_EQ(results[0].size(), 8u);
  ASSERT_EQ(results[1].size(), 8u);
  const char* names[] = {"ict c0", "ict c1", "ict c2", "float_to_int",
                         "rct c0", "rct c1", "rct c2", "dc_shift_inverse_clamp"};
  for (size_t k = 0; k < 8; ++k) EXPECT_EQ(results[0][k], results[1][k]) << names[k];
}

// pack_row_u8 under each variant against pack_sample's rule, sample by sample: every component
// count (1 and 3 take the kernels, others the generic loop), lengths around the vector widths,
// values outside 8 bits and negative ones (the low byte is stored; the OR shows them).
TEST_F(XformIsa, PackRowU8VariantsMatchPackSample) {
  std::mt19937_64 rng(20261125);
  for (size_t n : {1u, 2u, 3u, 4u})
    for (size_t count : {0u, 1u, 2u, 7u, 15u, 16u, 17u, 31u, 32u, 33u, 63u, 65u, 257u, 2561u}) {
      std::vector<std::vector<int32_t>> comps(n, std::vector<int32_t>(count));
      for (auto& c : comps)
        for (int32_t& v : c) {
          const uint64_t r = rng();
          v = (r & 7) == 0   ? static_cast<int32_t>(r >> 32)           // any 32-bit value
              : (r & 7) == 1 ? -static_cast<int32_t>((r >> 8) & 1023)  // negative
                             : static_cast<int32_t>((r >> 8) & 255);
        }
      std::vector<const int32_t*> src;
      for (const auto& c : comps) src.push_back(c.data());
      std::vector<uint8_t> want(n * count + 1, 0xA5);
      uint32_t want_or = 0;
      for (size_t x = 0; x < count; ++x)
        for (size_t k = 0; k < n; ++k) {
          pack_sample(&want[n * x + k], comps[k][x], 1, false);
          want_or |= static_cast<uint32_t>(comps[k][x]);
        }
      for_each_isa([&](core::Isa) {
        SCOPED_TRACE("n " + std::to_string(n) + ", count " + std::to_string(count));
        std::vector<uint8_t> got(n * count + 1, 0xA5);  // the byte after must stay
        EXPECT_EQ(pack_row_u8(src.data(), n, count, got.data()), want_or);
        EXPECT_EQ(got, want);
      });
    }
}

}  // namespace
}  // namespace gj2k::transform
