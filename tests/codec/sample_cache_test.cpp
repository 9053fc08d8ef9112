// codec/sample_cache.h: kept buffers come back to take_samples (the smallest that holds the
// request), fresh ones say so, the limit frees the oldest, release frees all.
#include <gtest/gtest.h>

#include <vector>

#include "codec/sample_cache.h"
#include "gj2k/gj2k.h"

namespace gj2k::codec {
namespace {

TEST(SampleCache, KeptBuffersComeBackSmallestFirst) {
  release_kept_samples();
  bool fresh = false;
  Samples big = take_samples(3000, &fresh);
  EXPECT_TRUE(fresh);
  ASSERT_EQ(big.size(), 3000u);
  Samples small = take_samples(1000, &fresh);
  EXPECT_TRUE(fresh);
  const int32_t* big_data = big.data();
  const int32_t* small_data = small.data();
  keep_samples(big);
  keep_samples(small);
  EXPECT_TRUE(big.empty());
  EXPECT_TRUE(small.empty());
  // 900 fits both: the smaller comes back; 2000 fits only the larger.
  Samples a = take_samples(900, &fresh);
  EXPECT_FALSE(fresh);
  EXPECT_EQ(a.data(), small_data);
  EXPECT_EQ(a.size(), 900u);
  Samples b = take_samples(2000, &fresh);
  EXPECT_FALSE(fresh);
  EXPECT_EQ(b.data(), big_data);
  EXPECT_EQ(b.size(), 2000u);
  // None kept now: a new one.
  Samples c = take_samples(10, &fresh);
  EXPECT_TRUE(fresh);
  keep_samples(a);
  keep_samples(b);
  keep_samples(c);
  EXPECT_EQ(release_kept_samples(), 3u);
  EXPECT_EQ(release_kept_samples(), 0u);
  // A request larger than every kept buffer gets a new one.
  Samples d = take_samples(100);
  keep_samples(d);
  Samples e = take_samples(200, &fresh);
  EXPECT_TRUE(fresh);
  EXPECT_EQ(release_kept_samples(), 1u);
  // Nor one more than twice as large as the request: a small plane would keep it.
  Samples f = take_samples(1000);
  keep_samples(f);
  Samples g = take_samples(400, &fresh);
  EXPECT_TRUE(fresh);
  Samples h = take_samples(500, &fresh);
  EXPECT_FALSE(fresh);
  // Nothing asked, nothing taken.
  keep_samples(h);
  Samples none = take_samples(0, &fresh);
  EXPECT_FALSE(fresh);
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(release_kept_samples(), 1u);
}

TEST(SampleCache, TheLimitFreesTheOldestFirst) {
#if defined(GJ2K_POISON_SAMPLES)
  GTEST_SKIP() << "sanitizer build: its buffers are filled when made, a gigabyte here";
#endif
  release_kept_samples();
  const size_t limit = kept_samples_limit();
  ASSERT_GT(limit, size_t{64} << 20);            // a machine with at least 1 GiB
  const size_t q = limit / sizeof(int32_t) / 4;  // four of these fit, five do not
  std::vector<Samples> s(4);
  std::vector<const int32_t*> at(4);
  for (size_t k = 0; k < 4; ++k) {
    s[k] = take_samples(q);
    at[k] = s[k].data();
  }
  for (Samples& x : s) keep_samples(x);
  Samples fifth;
  fifth.reserve(q - 1);
  const int32_t* fifth_at = fifth.data();
  keep_samples(fifth);  // frees the first kept, and only it
  bool fresh = true;
  Samples small = take_samples(q - 1, &fresh);  // the smallest that holds it
  EXPECT_FALSE(fresh);
  EXPECT_EQ(small.data(), fifth_at);
  for (size_t k = 1; k < 4; ++k) {
    Samples x = take_samples(q, &fresh);
    EXPECT_FALSE(fresh);
    EXPECT_EQ(x.data(), at[k]) << k;
  }
  Samples none = take_samples(q, &fresh);
  EXPECT_TRUE(fresh);
  // One above the limit is not kept.
  Samples huge;
  huge.reserve(limit / sizeof(int32_t) + 1);
  keep_samples(huge);
  EXPECT_TRUE(huge.empty());
  EXPECT_EQ(release_kept_samples(), 0u);
}

// gj2k::release_gpu_resources frees the kept buffers too.
TEST(SampleCache, ReleaseGpuResourcesFreesThem) {
  release_kept_samples();
  Samples s = take_samples(5000);
  keep_samples(s);
  EXPECT_GE(gj2k::release_gpu_resources(), 1u);
  EXPECT_EQ(release_kept_samples(), 0u);
}

}  // namespace
}  // namespace gj2k::codec
