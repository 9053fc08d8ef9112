// The fast Tier-1 coder's stripe-column state and per-orientation code against the spec-literal
// one (t1_ref.h) where the quick suites do not reach: deep bit-planes (distortion factors and
// reconstruction constants near 2^30), the largest and the thinnest blocks (full and partial
// stripes, one-column and one-stripe blocks), dense significance (every column coded in every
// pass) and every style. Bytes, terminated flags and decoded values must be identical.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "entropy/t1.h"
#include "entropy/t1_ref.h"
#include "t1_test_blocks.h"

namespace gj2k::entropy {
namespace {

using test::describe;
using test::make_block;

// Magnitudes below 2^nbp; `dense`: most samples large (significant early), else Laplacian-like.
void compare(const std::vector<int32_t>& q, uint32_t w, uint32_t h, Band band, uint8_t style,
             uint32_t mb, const std::string& what) {
  const auto fast = encode_block(q.data(), w, w, h, band, style, mb);
  const auto ref = encode_block_ref(q.data(), w, w, h, band, style, mb);
  ASSERT_EQ(fast.missing_msbs, ref.missing_msbs) << what;
  ASSERT_EQ(fast.data, ref.data) << what;
  ASSERT_EQ(fast.passes.size(), ref.passes.size()) << what;
  for (size_t i = 0; i < fast.passes.size(); ++i) {
    ASSERT_EQ(fast.passes[i].terminated, ref.passes[i].terminated) << what << " pass " << i;
    ASSERT_NEAR(fast.passes[i].distortion, ref.passes[i].distortion,
                1e-6 * (1.0 + ref.passes[i].distortion))
        << what << " pass " << i;
  }
  if (fast.passes.empty()) return;
  // Decode after every segment end and at the last pass: fast and reference agree, and the
  // full decode is exact.
  const uint32_t nb = mb - fast.missing_msbs;
  std::vector<Segment> segs;
  uint32_t start = 0, first = 0;
  for (uint32_t i = 0; i < fast.passes.size(); ++i) {
    const bool last = i + 1 == fast.passes.size();
    if (!fast.passes[i].terminated && !last && i % 5 != 4) continue;
    std::vector<Segment> s = segs;
    s.push_back({fast.data.data() + start, fast.passes[i].end - start, i - first + 1});
    std::vector<int32_t> a(q.size()), b(q.size());
    decode_block(s.data(), s.size(), nb, band, style, a.data(), w, w, h);
    decode_block_ref(s.data(), s.size(), nb, band, style, b.data(), w, w, h);
    ASSERT_EQ(a, b) << what << " through pass " << i;
    if (last) {
      for (size_t k = 0; k < q.size(); ++k) ASSERT_EQ(a[k], 2 * q[k]) << what << " sample " << k;
    }
    if (fast.passes[i].terminated) {
      segs.push_back(s.back());
      start = fast.passes[i].end;
      first = i + 1;
    }
  }
}

TEST(T1Fast, DeepBitPlanesMatchReference) {
  uint32_t seed = 41000;
  for (uint32_t nbp = 20; nbp <= 30; ++nbp) {
    for (int band = 0; band < 4; ++band) {
      std::mt19937 rng(++seed);
      const uint32_t w = 1 + rng() % 24, h = 1 + rng() % 24;
      const uint8_t style = static_cast<uint8_t>(rng() % 64);
      const auto q = make_block(rng, size_t{w} * h, nbp, rng() % 2);
      compare(q, w, h, static_cast<Band>(band), style, std::max(nbp, 30u),
              describe(seed, w, h, band, style, nbp));
      if (HasFatalFailure()) return;
    }
  }
}

TEST(T1Fast, LargeAndThinBlocksMatchReference) {
  const std::pair<uint32_t, uint32_t> sizes[] = {{64, 64},  {1024, 4}, {4, 1024}, {1, 1024},
                                                 {1024, 1}, {128, 32}, {32, 128}, {61, 67},
                                                 {1024, 3}, {2, 1021}};
  uint32_t seed = 42000;
  for (const auto& [w, h] : sizes) {
    for (int rep = 0; rep < 2; ++rep) {
      std::mt19937 rng(++seed);
      const uint32_t nbp = 4 + rng() % 9;
      const uint8_t style = static_cast<uint8_t>(rng() % 64);
      const int band = static_cast<int>(rng() % 4);
      const auto q = make_block(rng, size_t{w} * h, nbp, rep == 1);
      compare(q, w, h, static_cast<Band>(band), style, nbp, describe(seed, w, h, band, style, nbp));
      if (HasFatalFailure()) return;
    }
  }
}

TEST(T1Fast, EveryStyleDenseBlocksMatchReference) {
  uint32_t seed = 43000;
  for (int style = 0; style < 64; ++style) {
    std::mt19937 rng(++seed);
    const int band = static_cast<int>(rng() % 4);
    const uint32_t w = 8 + rng() % 25, h = 8 + rng() % 25;
    const uint32_t nbp = 6 + rng() % 6;
    const auto q = make_block(rng, size_t{w} * h, nbp, true);
    compare(q, w, h, static_cast<Band>(band), static_cast<uint8_t>(style), nbp,
            describe(seed, w, h, band, style, nbp));
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace gj2k::entropy
