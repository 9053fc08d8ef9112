// StagingRing (transform/cuda/staging_ring.h): uploads and downloads of odd sizes through
// rings of a few tiny chunks (so every transfer wraps the ring several times) and of 1 MB
// chunks, on two streams sharing one ring, with 1 and 4 host threads; the source of an upload
// overwritten as soon as upload() returns must not reach the device; a download writes nothing
// past its end; download_rows fills the rows of a wider image and nothing between them; the ring
// pins on demand and grows; upload_with fills the chunks in place.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <random>
#include <utility>
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
  constexpr uint8_t kSentinel = 0xC3;
  gc::Stream s1, s2;
  // Tiny chunks (every transfer wraps the ring), and 1 MB chunks (the host copies of a chunk
  // split over the threads).
  const std::pair<size_t, int> rings[] = {{4096, 2}, {4096, 3}, {size_t{1} << 20, 2}};
  for (const auto& [chunk, chunks] : rings) {
    const size_t sizes[] = {0,     1, 3, chunk - 1, chunk, chunk + 1, 5 * chunk + chunk / 2 + 3,
                            100003};
    for (int threads : {1, 4}) {
      gc::StagingRing ring(chunk, chunks);
      uint32_t k = 0;
      for (size_t na : sizes) {
        const size_t nb = sizes[(k + 3) % std::size(sizes)];
        SCOPED_TRACE(testing::Message() << "seed " << seed << " chunk " << chunk << " x " << chunks
                                        << " threads " << threads << " sizes " << na << ", " << nb);
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
        // Downloads in the other order, through chunks the other stream used last.
        std::vector<uint8_t> gb(nb + 1, kSentinel), ga(na + 1, kSentinel);
        ring.download(gb.data(), db.get(), nb, s2.get(), threads);
        ring.download(ga.data(), da.get(), na, s1.get(), threads);
        EXPECT_EQ(ga.back(), kSentinel) << "download wrote past its end";
        EXPECT_EQ(gb.back(), kSentinel) << "download wrote past its end";
        ga.pop_back();
        gb.pop_back();
        ASSERT_EQ(ga, a);
        ASSERT_EQ(gb, b);
        EXPECT_LE(ring.pinned_bytes(), chunk * static_cast<size_t>(chunks));
      }
    }
  }
}

// download_rows into a wider host image: rows of odd length, chunks and pieces (1 MB chunks on
// 4 threads: 128 KB pieces) that end inside rows, the bytes between the rows untouched; with
// 1 and 4 threads, and one row per chunk or fewer.
TEST(GpuStagingRing, DownloadRowsIntoAWiderImage) {
  GJ2K_REQUIRE_GPU();
  constexpr uint8_t kSentinel = 0x5A;
  gc::Stream s;
  const std::pair<size_t, int> rings[] = {{4096, 2}, {size_t{1} << 20, 3}};
  for (const auto& [chunk, chunks] : rings) {
    for (const size_t row : {size_t{1}, size_t{777}, size_t{5000}, size_t{300001}}) {
      for (int threads : {1, 4}) {
        const size_t rows = std::max<size_t>(3, (size_t{3} << 20) / row / 2 + 1);
        const size_t pitch = row + 13;
        SCOPED_TRACE(testing::Message() << "chunk " << chunk << " x " << chunks << " row " << row
                                        << " rows " << rows << " threads " << threads);
        const std::vector<uint8_t> a = random_bytes(row * rows, static_cast<uint32_t>(row));
        gc::DeviceBuffer d(a.size());
        gc::StagingRing ring(chunk, chunks);
        ring.upload(d.get(), a.data(), a.size(), s.get(), threads);
        std::vector<uint8_t> img(pitch * rows, kSentinel);
        ring.download_rows(img.data(), pitch, d.get(), row, rows, s.get(), threads);
        size_t wrong = 0, touched = 0;
        for (size_t y = 0; y < rows; ++y) {
          wrong += !std::equal(a.begin() + static_cast<std::ptrdiff_t>(y * row),
                               a.begin() + static_cast<std::ptrdiff_t>((y + 1) * row),
                               img.begin() + static_cast<std::ptrdiff_t>(y * pitch));
          for (size_t x = row; x < pitch; ++x) touched += img[y * pitch + x] != kSentinel;
        }
        EXPECT_EQ(wrong, 0u) << "rows differ";
        EXPECT_EQ(touched, 0u) << "bytes between the rows written";
      }
    }
  }
}

// Pinned on demand: a small transfer pins little, a larger one grows the chunks (up to the
// most per chunk) while data that went up before stays intact.
TEST(GpuStagingRing, GrowsWithTransfers) {
  GJ2K_REQUIRE_GPU();
  gc::StagingRing ring;
  EXPECT_EQ(ring.pinned_bytes(), 0u);
  gc::Stream s;
  const std::vector<uint8_t> small = random_bytes(1000, 5), big = random_bytes(20u << 20, 6);
  gc::DeviceBuffer ds(small.size()), db(big.size());
  ring.upload(ds.get(), small.data(), small.size(), s.get(), 4);
  EXPECT_EQ(ring.pinned_bytes(), size_t{4} * (64u << 10)) << "4 chunks of the 64 KB grain";
  ring.upload(db.get(), big.data(), big.size(), s.get(), 4);
  EXPECT_EQ(ring.pinned_bytes(), size_t{32} << 20) << "4 chunks of 8 MB (5 MB to a power of two)";
  std::vector<uint8_t> back_small(small.size()), back_big(big.size());
  ring.download(back_small.data(), ds.get(), small.size(), s.get(), 4);
  ring.download(back_big.data(), db.get(), big.size(), s.get(), 4);
  EXPECT_EQ(back_small, small);
  EXPECT_TRUE(back_big == big) << "20 MB round trip differs";
}

// The codec's ring (4 x 8 MB) with a transfer that wraps it: 50 MB up and down.
TEST(GpuStagingRing, DefaultRingWrapsLargeTransfer) {
  GJ2K_REQUIRE_GPU();
  const size_t n = (size_t{50} << 20) + 12345;
  const std::vector<uint8_t> a = random_bytes(n, 77);
  gc::StagingRing ring;
  gc::Stream s;
  gc::DeviceBuffer d(n);
  ring.upload(d.get(), a.data(), n, s.get(), 4);
  EXPECT_EQ(ring.pinned_bytes(),
            gc::StagingRing::kDefaultChunkBytes * gc::StagingRing::kDefaultChunks);
  std::vector<uint8_t> back(n);
  ring.download(back.data(), d.get(), n, s.get(), 4);
  EXPECT_TRUE(back == a) << "50 MB round trip through the default ring differs";
}

// upload_with: a producer writes each chunk in place (pieces of 64 KB multiples, offsets in
// order, covering the transfer once); a producer that says stop ends the upload there.
TEST(GpuStagingRing, UploadWithFillsTheChunksInPlace) {
  GJ2K_REQUIRE_GPU();
  const size_t n = (size_t{3} << 20) + 4097;
  const std::vector<uint8_t> a = random_bytes(n, 91);
  gc::StagingRing ring(size_t{256} << 10, 3);
  gc::Stream s;
  gc::DeviceBuffer d(n);
  size_t next = 0;
  EXPECT_TRUE(ring.upload_with(d.get(), n, s.get(), [&](size_t at, void* chunk, size_t len) {
    EXPECT_EQ(at, next);
    EXPECT_EQ(at % (64u << 10), 0u);
    std::copy(a.begin() + at, a.begin() + at + len, static_cast<uint8_t*>(chunk));
    next = at + len;
    return true;
  }));
  EXPECT_EQ(next, n);
  std::vector<uint8_t> back(n);
  ring.download(back.data(), d.get(), n, s.get(), 1);
  EXPECT_TRUE(back == a) << "upload_with's bytes differ on the device";
  int calls = 0;
  EXPECT_FALSE(
      ring.upload_with(d.get(), n, s.get(), [&](size_t, void*, size_t) { return ++calls < 2; }));
  EXPECT_EQ(calls, 2) << "the upload goes on after its producer said stop";
}

#else
TEST(GpuStagingRing, SkippedWithoutCuda) {
  GTEST_SKIP() << transform::gpu_info().reason;
}
#endif

}  // namespace
}  // namespace gj2k::test
