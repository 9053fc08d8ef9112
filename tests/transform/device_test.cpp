// transform/device.h: device resolution without a GPU, and the cost models of --device auto.
#include <gtest/gtest.h>

#include <string>

#include "gj2k/error.h"
#include "transform/device.h"

namespace gj2k::transform {
namespace {

// --device auto for encoding (device.h): the break-even follows the cost model (CPU time per
// sample over the threads against the GPU's per sample plus start-up and one launch per tile,
// or per round of tiles side by side); below it the CPU, from it the GPU (kAuto, which
// resolve_device turns into kGpu or kCpu); explicit choices pass through.
TEST(XformDevice, AutoChoiceEncode) {
  const EncodeCosts& k = kEncodeCosts;
  for (int threads : {1, 2, 16}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    const double cpu = k.cpu_ns_per_sample_thread / threads;
    ASSERT_GT(cpu, k.gpu_ns_per_sample);
    EXPECT_NEAR(double(encode_break_even(threads, false)),
                (k.gpu_start_ms + k.gpu_tile_ms) * 1e6 / (cpu - k.gpu_ns_per_sample), 1.0);
    EXPECT_NEAR(double(encode_break_even(threads, true)),
                k.gpu_tile_ms * 1e6 / (cpu - k.gpu_ns_per_sample), 1.0);
    const unsigned long long even = encode_break_even(threads, gpu_opened());
    EXPECT_EQ(auto_choice_encode(Device::kAuto, even - 1, threads), Device::kCpu);
    EXPECT_EQ(auto_choice_encode(Device::kAuto, even, threads), Device::kAuto);
    EXPECT_EQ(auto_choice_encode(Device::kGpu, 1, threads), Device::kGpu);
    EXPECT_EQ(auto_choice_encode(Device::kCpu, 1ull << 40, threads), Device::kCpu);
  }
  // A serial tile loop pays each tile's launch; tiles side by side (two per thread or more)
  // one per round of `threads` tiles.
  const double per = k.cpu_ns_per_sample_thread / 4 - k.gpu_ns_per_sample;
  EXPECT_NEAR(double(encode_break_even(4, true, 7)), 7 * k.gpu_tile_ms * 1e6 / per, 1.0);
  EXPECT_NEAR(double(encode_break_even(4, true, 9)), 3 * k.gpu_tile_ms * 1e6 / per, 1.0);
  // More threads make the CPU faster: the break-even grows; with as many as make the CPU as
  // fast per sample as the GPU, never the GPU.
  EXPECT_LT(encode_break_even(2, false), encode_break_even(16, false));
  const int never = static_cast<int>(k.cpu_ns_per_sample_thread / k.gpu_ns_per_sample) + 1;
  EXPECT_EQ(encode_break_even(never, false), ~0ull);
}

// --device auto for decoding (device.h): the break-even sample count follows the cost model
// (CPU time per sample over the threads against the GPU's per-sample time plus start-up);
// below it the CPU, from it the GPU; no start-up to pay (a CUDA context already open) means
// the GPU from the first sample whenever it is faster per sample.
TEST(XformDevice, AutoChoiceDecode) {
  const DecodeCosts& k = kDecodeCosts;
  for (int threads : {1, 2, 16, 64}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    const double cpu = k.cpu_ns_per_sample_thread / threads;
    const unsigned long long cold = decode_break_even(threads, false);
    ASSERT_GT(cpu, k.gpu_ns_per_sample);  // the figures make the GPU faster per sample here
    const double cold_expected = k.gpu_start_ms * 1e6 / (cpu - k.gpu_ns_per_sample);
    EXPECT_NEAR(double(cold), cold_expected, 1.0);
    EXPECT_EQ(decode_break_even(threads, true), 0u);
    if (!gpu_opened()) {
      EXPECT_EQ(auto_choice_decode(Device::kAuto, cold - 1, threads), Device::kCpu);
      EXPECT_EQ(auto_choice_decode(Device::kAuto, cold, threads), Device::kAuto);
    }
    EXPECT_EQ(auto_choice_decode(Device::kCpu, 1ull << 40, threads), Device::kCpu);
    EXPECT_EQ(auto_choice_decode(Device::kGpu, 1, threads), Device::kGpu);
  }
  // Each tile after the first adds its fixed cost: the break-even grows with the tiles, and
  // streams of many tiles stay on the CPU.
  EXPECT_NEAR(double(decode_break_even(16, true, 5)),
              4 * k.gpu_tile_ms * 1e6 / (k.cpu_ns_per_sample_thread / 16 - k.gpu_ns_per_sample),
              1.0);
  EXPECT_LT(decode_break_even(16, false, 1), decode_break_even(16, false, 15));
  EXPECT_EQ(auto_choice_decode(Device::kAuto, 10240ull * 6400 * 3, 16, 250), Device::kCpu);
  // More threads make the CPU faster: the break-even grows.
  EXPECT_LT(decode_break_even(2, false), decode_break_even(16, false));
  // With as many threads as make the CPU as fast per sample as the GPU, never the GPU.
  const int even = static_cast<int>(k.cpu_ns_per_sample_thread / k.gpu_ns_per_sample) + 1;
  EXPECT_EQ(decode_break_even(even, false), ~0ull);
}

// The query is made once: callers see one and the same answer (the warm-up of
// codec/gpu_warm_up.h, tested in tests/codec/gpu_warm_up_test.cpp, shares it too).
TEST(XformDevice, QueryIsMadeOnce) {
  const GpuInfo first = gpu_info();
  const GpuInfo again = gpu_info();
  EXPECT_EQ(first.available, again.available);
  EXPECT_EQ(first.reason, again.reason);
  EXPECT_EQ(first.name, again.name);
  EXPECT_EQ(open_gpu(), first.available);
}

TEST(XformDevice, ResolveWithoutGpu) {
  const GpuInfo info = gpu_info();
  if (info.available) GTEST_SKIP() << "a GPU is present (" << info.name << ")";
  EXPECT_FALSE(info.reason.empty());
  EXPECT_EQ(resolve_device(Device::kAuto), Device::kCpu);
  EXPECT_EQ(resolve_device(Device::kCpu), Device::kCpu);
  try {
    resolve_device(Device::kGpu);
    ADD_FAILURE() << "kGpu resolved without a GPU";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kDevice);
    EXPECT_NE(std::string(e.what()).find(info.reason), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gj2k::transform
