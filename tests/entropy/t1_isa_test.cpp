// The Tier-1 coders' instruction-set variants (core/isa.h), checkasm style: the x86-64-v3
// build of the block coders against the baseline build of the same source, on random blocks
// of every style and orientation, odd sizes and depths, truncated and corrupt data. Identical
// bytes, pass records (distortions bit for bit) and decoded values.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/isa.h"
#include "entropy/t1.h"
#include "t1_test_blocks.h"

namespace gj2k::entropy {
namespace {

// Runs f() with the kernels set to `isa`, then restores the variant in use before.
template <class F>
auto with_isa(core::Isa isa, F&& f) {
  const core::Isa saved = core::host_isa();
  EXPECT_TRUE(core::set_host_isa(isa));
  auto result = f();
  core::set_host_isa(saved);
  return result;
}

class T1Isa : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!core::isa_supported(core::Isa::kV3))
      GTEST_SKIP() << "this build or CPU has no x86-64-v3 variant (GJ2K_HAVE_ISA_V3 "
                   << GJ2K_HAVE_ISA_V3 << ")";
  }
};

TEST_F(T1Isa, EncoderVariantsWriteTheSameBlocks) {
  uint32_t seed = 70000;
  int coded = 0;
  for (int style = 0; style < 64; ++style) {
    for (int band = 0; band < 4; ++band) {
      std::mt19937 rng(++seed);
      const uint32_t w = 1 + rng() % 70, h = 1 + rng() % 70;
      if (uint64_t{w} * h > kMaxBlockArea) continue;
      const uint32_t nbp = 1 + rng() % 20;
      const auto q = test::make_block(rng, size_t{w} * h, nbp, false);
      const std::string what = "seed " + std::to_string(seed) + " style " + std::to_string(style) +
                               " band " + std::to_string(band) + " " + std::to_string(w) + "x" +
                               std::to_string(h);
      auto enc = [&] {
        return encode_block(q.data(), w, w, h, static_cast<Band>(band), static_cast<uint8_t>(style),
                            24);
      };
      const EncodedBlock base = with_isa(core::Isa::kBase, enc);
      const EncodedBlock v3 = with_isa(core::Isa::kV3, enc);
      ASSERT_EQ(base.missing_msbs, v3.missing_msbs) << what;
      ASSERT_EQ(base.data, v3.data) << what;
      ASSERT_EQ(base.passes.size(), v3.passes.size()) << what;
      for (size_t i = 0; i < base.passes.size(); ++i) {
        ASSERT_EQ(base.passes[i].end, v3.passes[i].end) << what << " pass " << i;
        ASSERT_EQ(base.passes[i].terminated, v3.passes[i].terminated) << what << " pass " << i;
        ASSERT_EQ(std::memcmp(&base.passes[i].distortion, &v3.passes[i].distortion, sizeof(double)),
                  0)
            << what << " pass " << i << ": " << base.passes[i].distortion << " vs "
            << v3.passes[i].distortion;
      }
      coded += !base.passes.empty();
    }
  }
  EXPECT_GT(coded, 200);  // the random blocks had something to code
}

TEST_F(T1Isa, DecoderVariantsDecodeTheSameValues) {
  uint32_t seed = 80000;
  int decoded = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::mt19937 rng(++seed);
    const auto d = test::damaged_block(
        rng, trial, 64, 16,
        [](std::mt19937& r, size_t n, uint32_t nbp) { return test::make_block(r, n, nbp, false); });
    if (!d) continue;
    auto dec = [&] {
      std::vector<int32_t> out(size_t{d->w} * d->h, 0x5A5A5A5A);
      decode_block(d->segs.data(), d->segs.size(), d->nb, d->band, d->style, out.data(), d->w, d->w,
                   d->h);
      return out;
    };
    const std::vector<int32_t> base = with_isa(core::Isa::kBase, dec);
    const std::vector<int32_t> v3 = with_isa(core::Isa::kV3, dec);
    ASSERT_EQ(base, v3) << "seed " << seed << " style " << int{d->style} << " passes "
                        << d->last + 1;
    ++decoded;
  }
  EXPECT_GT(decoded, 300);
}

TEST(T1IsaSelection, BaseIsAlwaysAvailableAndSelectable) {
  EXPECT_TRUE(core::isa_supported(core::Isa::kBase));
  const core::Isa saved = core::host_isa();
  EXPECT_TRUE(core::set_host_isa(core::Isa::kBase));
  EXPECT_EQ(core::host_isa(), core::Isa::kBase);
  core::set_host_isa(saved);
  EXPECT_EQ(core::host_isa(), saved);
}

}  // namespace
}  // namespace gj2k::entropy
