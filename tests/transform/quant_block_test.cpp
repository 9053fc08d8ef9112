// transform::reconstruct_block (quant.h) against a spec-literal per-coefficient computation:
// H.1 max-shift ROI undo, then 5/3 integers (F.3) or 9/7 E-6 reconstruction
// y = (|q| + r) Delta_b sign(q), r = 1/2, on random Tier-1 output of odd block sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "transform/quant.h"

namespace {

using gj2k::transform::BlockReconstruction;

// What a decoder makes of one Tier-1 value v (half units: 2|q|, plus 1 when undecoded planes
// remain), for a block with `planes` bit-planes of which `passes` passes were decoded.
// The ROI threshold 2^s and the shift are in integer units (H.1).
double literal(int32_t v, const BlockReconstruction& q) {
  const int64_t sign = v < 0 ? -1 : 1;
  int64_t half = v < 0 ? -int64_t{v} : v;
  if (q.roi_shift > 0 && half / 2 >= (int64_t{1} << q.roi_shift)) {
    // Background coefficients are below 2^s; ROI ones are shifted down by s, the midpoint bit
    // of an incomplete coefficient included (its half-unit value shifts as one number).
    half >>= q.roi_shift;
  }
  if (q.reversible) return static_cast<double>(sign * (half >> 1));
  if (half == 0) return 0;
  // Whether the coefficient's last bit-plane was decoded: all passes, or the passes reach the
  // last plane and the magnitude carries no midpoint and its lowest integer bit is clear
  // (a coefficient still missing p >= 1 planes has bit p set by the midpoint).
  const bool into_last = q.passes + 2 >= q.all_passes;
  const bool complete = q.passes >= q.all_passes || (into_last && half % 4 == 0);
  const double mag = complete ? (half + 1) / 2.0 : half / 2.0;
  return sign * mag * q.delta;
}

TEST(QuantBlock, ReconstructBlockMatchesLiteral) {
  std::mt19937 rng(20261124);
  const uint32_t sizes[][2] = {{1, 1}, {3, 7}, {17, 5}, {64, 64}, {33, 2}};
  int cases = 0;
  for (const auto& sz : sizes)
    for (int reversible = 0; reversible < 2; ++reversible)
      for (int roi : {0, 3, 7})
        for (uint32_t passes : {1u, 10u, 19u, 20u, 21u, 22u}) {
          ++cases;
          const uint32_t w = sz[0], h = sz[1], stride = w + 3;
          BlockReconstruction q;
          q.reversible = reversible != 0;
          q.roi_shift = roi;
          q.delta = 0.37f;
          q.passes = passes;
          q.all_passes = 22;  // 8 bit-planes
          std::uniform_int_distribution<int32_t> d(-(1 << 12), 1 << 12);
          std::vector<int32_t> v(size_t{stride} * h, 12345);
          for (uint32_t y = 0; y < h; ++y)
            for (uint32_t x = 0; x < w; ++x) v[y * stride + x] = (x + y) % 5 == 0 ? 0 : d(rng);
          const std::vector<int32_t> in = v;
          std::vector<float> f(size_t{stride} * h, -7.0f);
          gj2k::transform::reconstruct_block(v.data(), stride, w, h, q, f.data(), stride);
          for (uint32_t y = 0; y < h; ++y) {
            for (uint32_t x = 0; x < w; ++x) {
              const size_t i = size_t{y} * stride + x;
              const double want = literal(in[i], q);
              if (q.reversible)
                ASSERT_EQ(v[i], static_cast<int32_t>(want)) << "at " << x << "," << y;
              else
                ASSERT_FLOAT_EQ(f[i], static_cast<float>(want)) << "at " << x << "," << y;
            }
            for (uint32_t x = w; x < stride; ++x) {  // outside the block: untouched
              ASSERT_EQ(v[size_t{y} * stride + x], 12345);
              ASSERT_EQ(f[size_t{y} * stride + x], -7.0f);
            }
          }
        }
  EXPECT_EQ(cases, 180);
}

}  // namespace
