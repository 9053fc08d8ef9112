// StagingRing (transform/cuda/staging_ring.h): uploads and downloads of odd sizes through
// rings of a few tiny chunks (so every transfer wraps the ring several times), on two streams
// sharing one ring, with 1 and 4 host threads; the source of an upload overwritten as soon as
// upload() returns must not reach the device; a download writes nothing past its end.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "gpu_test_util.h"

#if defined(GJ2K_HAVE_CUDA)
#include "transform/cuda/staging_ring.h"
#endif

namespace gj2k::test {
namespace {

#if defined(GJ2K_HAVE_CUDA)
namespace gc = transform::cuda;

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

TEST(GpuStagingRing, RoundTripsOddSizesOnTwoStreams) {
  GJ2K_REQUIRE_GPU();
  const uint32_t seed = 20261123;
  constexpr size_t kChunk = 4096;
  constexpr uint8_t kSentinel = 0xC3;
  const size_t sizes[] = {0,     1, 3, kChunk - 1, kChunk, kChunk + 1, 5 * kChunk + kChunk / 2 + 3,
                          100003};
  gc::Stream s1, s2;
  for (int chunks : {2, 3}) {
    for (int threads : {1, 4}) {
      gc::StagingRing ring(kChunk, chunks);
      uint32_t k = 0;
      for (size_t na : sizes) {
        const size_t nb = sizes[(k + 3) % std::size(sizes)];
        SCOPED_TRACE(testing::Message() << "seed " << seed << " chunks " << chunks << " threads "
                                        << threads << " sizes " << na << ", " << nb);
        const std::vector<uint8_t> a = random_bytes(na, seed + 2 * k);
        const std::vector<uint8_t> b = random_bytes(nb, seed + 2 * k + 1);
        ++k;
        gc::DeviceBuffer da(na + 1), db(nb + 1);
        // The sources are overwritten once upload() has returned: the device must hold the
        // bytes as they were.
        std::vector<uint8_t> sa = a, sb = b;
        ring.upload(da.get(), sa.data(), na, s1.get(), threads);
        std::fill(sa.begin(), sa.end(), uint8_t{0});
        ring.upload(db.get(), sb.data(), nb, s2.get(), threads);
        std::fill(sb.begin(), sb.end(), uint8_t{0});
        // Downloads in the other order and on the other stream's ring chunks.
        std::vector<uint8_t> gb(nb + 1, kSentinel), ga(na + 1, kSentinel);
        ring.download(gb.data(), db.get(), nb, s2.get(), threads);
        ring.download(ga.data(), da.get(), na, s1.get(), threads);
        EXPECT_EQ(ga.back(), kSentinel) << "download wrote past its end";
        EXPECT_EQ(gb.back(), kSentinel) << "download wrote past its end";
        ga.pop_back();
        gb.pop_back();
        ASSERT_EQ(ga, a);
        ASSERT_EQ(gb, b);
      }
    }
  }
}

// The codec's ring (4 x 8 MB) with a transfer that wraps it: 50 MB up and down.
TEST(GpuStagingRing, DefaultRingWrapsLargeTransfer) {
  GJ2K_REQUIRE_GPU();
  const size_t n = (size_t{50} << 20) + 12345;
  const std::vector<uint8_t> a = random_bytes(n, 77);
  gc::StagingRing ring;
  EXPECT_EQ(ring.pinned_bytes(),
            gc::StagingRing::kDefaultChunkBytes * gc::StagingRing::kDefaultChunks);
  gc::Stream s;
  gc::DeviceBuffer d(n);
  ring.upload(d.get(), a.data(), n, s.get(), 4);
  std::vector<uint8_t> back(n);
  ring.download(back.data(), d.get(), n, s.get(), 4);
  EXPECT_TRUE(back == a) << "50 MB round trip through the default ring differs";
}

#else
TEST(GpuStagingRing, SkippedWithoutCuda) {
  GTEST_SKIP() << transform::gpu_info().reason;
}
#endif

}  // namespace
}  // namespace gj2k::test
