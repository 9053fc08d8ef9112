// The fast Tier-1 coder against the spec-literal one (t1_ref.h): same bytes, same flags, same
// distortions, same decoded values (also after truncation).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "entropy/t1.h"
#include "entropy/t1_ref.h"
#include "t1_test_blocks.h"

namespace gj2k::entropy {
namespace {

std::vector<int32_t> laplacian_block(std::mt19937& rng, size_t n, uint32_t nbp) {
  std::vector<int32_t> q(n);
  std::geometric_distribution<int> shift(0.4);
  for (auto& v : q) {
    const uint32_t limit = (uint32_t{1} << nbp) - 1;
    const uint32_t m = static_cast<uint32_t>(rng()) & (limit >> std::min<int>(shift(rng), nbp));
    v = (rng() & 1) ? -static_cast<int32_t>(m) : static_cast<int32_t>(m);
  }
  return q;
}

TEST(T1Reference, FastEncoderMatchesReferenceBytes) {
  uint32_t seed = 20000;
  for (int style = 0; style < 64; ++style) {
    for (int band = 0; band < 4; ++band) {
      std::mt19937 rng(++seed);
      const uint32_t w = 1 + rng() % 40, h = 1 + rng() % 40;
      const uint32_t nbp = 1 + rng() % 14;
      const auto q = laplacian_block(rng, size_t{w} * h, nbp);
      const std::string what = "seed " + std::to_string(seed) + " style " + std::to_string(style) +
                               " band " + std::to_string(band);
      const auto fast =
          encode_block(q.data(), w, w, h, static_cast<Band>(band), static_cast<uint8_t>(style), 16);
      const auto ref = encode_block_ref(q.data(), w, w, h, static_cast<Band>(band),
                                        static_cast<uint8_t>(style), 16);
      ASSERT_EQ(fast.missing_msbs, ref.missing_msbs) << what;
      ASSERT_EQ(fast.data, ref.data) << what;
      ASSERT_EQ(fast.passes.size(), ref.passes.size()) << what;
      for (size_t i = 0; i < fast.passes.size(); ++i) {
        ASSERT_EQ(fast.passes[i].terminated, ref.passes[i].terminated) << what << " pass " << i;
        if (fast.passes[i].terminated) {
          ASSERT_EQ(fast.passes[i].end, ref.passes[i].end) << what << " pass " << i;
        } else {
          ASSERT_LE(fast.passes[i].end, ref.passes[i].end) << what << " pass " << i;
        }
        ASSERT_NEAR(fast.passes[i].distortion, ref.passes[i].distortion,
                    1e-6 * (1.0 + ref.passes[i].distortion))
            << what << " pass " << i;
      }
    }
  }
}

TEST(T1Reference, FastDecoderMatchesReferenceOnTruncatedAndCorruptData) {
  uint32_t seed = 30000;
  for (int trial = 0; trial < 300; ++trial) {
    std::mt19937 rng(++seed);
    const auto d = test::damaged_block(rng, trial, 33, 12, laplacian_block);
    if (!d) continue;
    const size_t n = size_t{d->w} * d->h;
    std::vector<int32_t> a(n), b(n);
    decode_block(d->segs.data(), d->segs.size(), d->nb, d->band, d->style, a.data(), d->w, d->w,
                 d->h);
    decode_block_ref(d->segs.data(), d->segs.size(), d->nb, d->band, d->style, b.data(), d->w, d->w,
                     d->h);
    ASSERT_EQ(a, b) << "seed " << seed << " style " << int{d->style} << " passes " << d->last + 1;
  }
}

}  // namespace
}  // namespace gj2k::entropy
