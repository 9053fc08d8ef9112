// gather_ranges (transform/cuda/gather_cuda.h) against gather_ranges_ref: ranges of 0 to
// several thousand bytes at every alignment of source and destination (the kernel's 16-byte
// path and its byte path), packed back to back as the GPU Tier-1 encoder compacts its output,
// and more ranges than one launch has thread blocks; bytes outside the ranges stay untouched.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "gpu_test_util.h"

#if defined(GJ2K_HAVE_CUDA)
#include "transform/cuda/cuda_check.h"
#include "transform/cuda/cuda_memory.h"
#include "transform/cuda/gather_cuda.h"
#endif

namespace gj2k::test {
namespace {

#if defined(GJ2K_HAVE_CUDA)
namespace gc = transform::cuda;

void check_gather(uint32_t count, uint32_t max_len, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<gc::GatherRange> ranges(count);
  uint64_t src_at = 0, dst_at = 3;  // destinations packed back to back from an odd start
  for (gc::GatherRange& r : ranges) {
    r.length = rng() % (max_len + 1);
    src_at += rng() % 32;  // any alignment of the source
    r.src_offset = src_at;
    r.dst_offset = dst_at;
    src_at += r.length;
    dst_at += r.length + (rng() % 4 == 0 ? rng() % 20 : 0);  // some gaps, left untouched
  }
  std::vector<uint8_t> src(src_at + 1);
  for (uint8_t& b : src) b = static_cast<uint8_t>(rng());
  constexpr uint8_t kSentinel = 0x5A;
  std::vector<uint8_t> want(dst_at + 7, kSentinel);
  gc::gather_ranges_ref(src.data(), ranges.data(), count, want.data());

  gc::DeviceBuffer d_src(src.size()), d_dst(want.size()), d_ranges(count * sizeof(ranges[0]) + 1);
  GJ2K_CUDA_CHECK(cudaMemcpy(d_src.get(), src.data(), src.size(), cudaMemcpyHostToDevice));
  GJ2K_CUDA_CHECK(cudaMemset(d_dst.get(), kSentinel, want.size()));
  GJ2K_CUDA_CHECK(
      cudaMemcpy(d_ranges.get(), ranges.data(), count * sizeof(ranges[0]), cudaMemcpyHostToDevice));
  gc::gather_ranges(d_src.as<uint8_t>(), d_ranges.as<gc::GatherRange>(), count, d_dst.as<uint8_t>(),
                    nullptr);
  std::vector<uint8_t> got(want.size());
  GJ2K_CUDA_CHECK(cudaMemcpy(got.data(), d_dst.get(), got.size(), cudaMemcpyDeviceToHost));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], want[i]) << "byte " << i << " (seed " << seed << ", " << count << " ranges)";
}

TEST(GpuGather, MatchesReference) {
  GJ2K_REQUIRE_GPU();
  check_gather(1, 0, 1);
  check_gather(1, 1, 2);
  check_gather(37, 40, 3);      // short ranges: the byte path and the heads
  check_gather(500, 5000, 4);   // long ranges: the 16-byte path
  check_gather(300000, 24, 5);  // more ranges than the launch has blocks
}
#else
TEST(GpuGather, SkippedWithoutCuda) {
  GTEST_SKIP() << transform::gpu_info().reason;
}
#endif

}  // namespace
}  // namespace gj2k::test
