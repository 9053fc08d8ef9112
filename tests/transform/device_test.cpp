// transform/device.h: device resolution without a GPU, and the cost models of --device auto.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <thread>

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

// --device auto for decoding (device.h): the costs follow the model (CPU time per sample and
// per codestream byte over the threads plus its cost per decode, the GPU's per sample and byte
// plus its cost per decode, which grows with the bytes per sample, and each tile after the
// first); cold, the break-even for a given compression is where the CPU's time exceeds the
// GPU's by the start-up: below it the CPU, from it the GPU (kAuto); with CUDA up (no start-up
// to pay) the GPU wherever it is faster; explicit choices pass through.
TEST(XformDevice, AutoChoiceDecode) {
  const DecodeCosts& k = kDecodeCosts;
  forget_decode_missed();
  for (int threads : {1, 2, 16, 64})
    for (double r : {0.0, 0.05, 0.34}) {
      SCOPED_TRACE("threads " + std::to_string(threads) + ", bytes per sample " +
                   std::to_string(r));
      // ns per sample, and ms per decode
      const double cpu = (k.cpu_ns_per_sample_thread + r * k.cpu_ns_per_byte_thread) / threads;
      const double gpu = k.gpu_ns_per_sample + r * k.gpu_ns_per_byte;
      const double gpu_fixed = k.gpu_decode_ms + r * k.gpu_chain_ms_per_byte_sample;
      const unsigned long long bytes = static_cast<unsigned long long>(r * 1e6);
      EXPECT_NEAR(decode_cpu_ms(1000000, bytes, threads), k.cpu_decode_ms + cpu, 1e-6);
      EXPECT_NEAR(decode_gpu_ms(1000000, bytes), gpu_fixed + gpu, 1e-6);
      if (cpu <= gpu) {
        EXPECT_EQ(decode_break_even(threads, false, 1, r), ~0ull);
        continue;
      }
      const unsigned long long cold = decode_break_even(threads, false, 1, r);
      EXPECT_NEAR(double(cold), (k.gpu_start_ms + gpu_fixed - k.cpu_decode_ms) * 1e6 / (cpu - gpu),
                  1.0);
      EXPECT_NEAR(double(decode_break_even(threads, true, 1, r)),
                  std::max(0.0, gpu_fixed - k.cpu_decode_ms) * 1e6 / (cpu - gpu), 1.0);
      if (!gpu_opened() && r == 0) {
        EXPECT_EQ(auto_choice_decode(Device::kAuto, cold - 1, 0, threads), Device::kCpu);
        EXPECT_EQ(auto_choice_decode(Device::kAuto, cold, 0, threads), Device::kAuto);
      }
      EXPECT_EQ(auto_choice_decode(Device::kCpu, 1ull << 40, 1ull << 38, threads), Device::kCpu);
      EXPECT_EQ(auto_choice_decode(Device::kGpu, 1, 0, threads), Device::kGpu);
    }
  // The measured cases the bytes decide (docs/PERFORMANCE.md, twenty-seventh and twenty-eighth
  // runs): the 10240 x 6400 RGB mosaic on 16 threads, cold, goes to the GPU lossless (66.4 MB)
  // and stays on the CPU at 9/7 rate 20 (9.8 MB); in 250 tiles, on the CPU either way. With
  // CUDA up, a 640 x 400 RGB photo goes to the GPU at 9/7 rate 20 (38 KB: 2.4 ms there against
  // 3.2 on 16 threads) and stays on the CPU lossless (324 KB: 6.8 against 6.3 ms).
  const unsigned long long mosaic = 10240ull * 6400 * 3, small = 640ull * 400 * 3;
  if (!gpu_opened()) {
    EXPECT_EQ(auto_choice_decode(Device::kAuto, mosaic, 66372049, 16), Device::kAuto);
    EXPECT_EQ(auto_choice_decode(Device::kAuto, mosaic, 9830344, 16), Device::kCpu);
  }
  EXPECT_EQ(auto_choice_decode(Device::kAuto, mosaic, 66372049, 16, 250), Device::kCpu);
  EXPECT_LT(decode_gpu_ms(small, 38375), decode_cpu_ms(small, 38375, 16));
  EXPECT_GT(decode_gpu_ms(small, 323690), decode_cpu_ms(small, 323690, 16));
  EXPECT_NEAR(double(decode_break_even(16, true, 5)),
              (4 * k.gpu_tile_ms + k.gpu_decode_ms - k.cpu_decode_ms) * 1e6 /
                  (k.cpu_ns_per_sample_thread / 16 - k.gpu_ns_per_sample),
              1.0);
  EXPECT_LT(decode_break_even(16, false, 1), decode_break_even(16, false, 15));
  // More threads make the CPU faster, more bytes per sample slower: the break-even grows with
  // the threads and falls with the bytes.
  EXPECT_LT(decode_break_even(2, false), decode_break_even(16, false));
  EXPECT_LT(decode_break_even(16, false, 1, 0.34), decode_break_even(16, false, 1, 0.05));
  // With as many threads as make the CPU as fast per sample as the GPU, never the GPU.
  const int even = static_cast<int>(k.cpu_ns_per_sample_thread / k.gpu_ns_per_sample) + 1;
  EXPECT_EQ(decode_break_even(even, false), ~0ull);
  // Nothing to decode, or no finite figures: the CPU, nothing recorded.
  EXPECT_EQ(auto_choice_decode(Device::kAuto, 0, 0, 1, 1, true), Device::kCpu);
  EXPECT_EQ(auto_choice_by_costs(std::nan(""), 1.0, 0, true), Device::kCpu);
  EXPECT_EQ(auto_choice_by_costs(HUGE_VAL, 1.0, 0, true), Device::kCpu);
  EXPECT_EQ(decode_missed_ms(), 0.0);  // probes record nothing
}

// The ski-rental rule: decodes that the GPU would win only with CUDA up stay on the CPU until
// what they would have saved, recorded decode by decode, adds up to the start-up; probes read
// the sum but add nothing; decodes the GPU would not win at all add nothing either.
TEST(XformDevice, AutoChoiceDecodeStartsCudaOnceTheMissedSavingsPayForIt) {
  if (gpu_opened()) GTEST_SKIP() << "CUDA is up in this process: no start-up to weigh";
  const DecodeCosts& k = kDecodeCosts;
  forget_decode_missed();
  const unsigned long long samples = 10240ull * 6400 * 3, bytes = 9830344;  // the 9/7 mosaic
  const double saving = decode_cpu_ms(samples, bytes, 16) - decode_gpu_ms(samples, bytes);
  ASSERT_GT(saving, 0.0);
  ASSERT_LT(saving, k.gpu_start_ms);
  const int cpu_decodes = static_cast<int>(std::ceil(k.gpu_start_ms / saving)) - 1;
  for (int i = 0; i < 3; ++i)  // probes
    EXPECT_EQ(auto_choice_decode(Device::kAuto, samples, bytes, 16), Device::kCpu);
  for (int i = 0; i < cpu_decodes; ++i) {
    SCOPED_TRACE("decode " + std::to_string(i));
    EXPECT_EQ(auto_choice_decode(Device::kAuto, samples, bytes, 16, 1, true), Device::kCpu);
  }
  EXPECT_NEAR(decode_missed_ms(), cpu_decodes * saving, 0.01 * cpu_decodes);
  // A decode the GPU would not win even with CUDA up (a small lossless image, 64 threads):
  // nothing recorded.
  EXPECT_EQ(auto_choice_decode(Device::kAuto, 1000, 340, 64, 1, true), Device::kCpu);
  EXPECT_NEAR(decode_missed_ms(), cpu_decodes * saving, 0.01 * cpu_decodes);
  EXPECT_EQ(auto_choice_decode(Device::kAuto, samples, bytes, 16), Device::kAuto);  // a probe
  EXPECT_EQ(auto_choice_decode(Device::kAuto, samples, bytes, 16, 1, true), Device::kAuto);
  // That choice holds for the decodes after it (CUDA is being opened): one the GPU wins only
  // with CUDA up goes there too, with nothing missed before; one it does not win stays.
  forget_decode_missed();
  EXPECT_EQ(auto_choice_decode(Device::kAuto, samples, bytes, 16), Device::kCpu);
  {
    const DecodeLookahead ahead(static_cast<unsigned long long>(cpu_decodes));
    EXPECT_EQ(auto_choice_decode(Device::kAuto, samples, bytes, 16, 1, true), Device::kAuto);
  }
  EXPECT_EQ(auto_choice_decode(Device::kAuto, samples, bytes, 16), Device::kAuto);
  EXPECT_EQ(auto_choice_decode(Device::kAuto, 1000, 340, 64), Device::kCpu);
  forget_decode_missed();
  EXPECT_EQ(auto_choice_decode(Device::kAuto, samples, bytes, 16), Device::kCpu);
  // A batch's images still to come (DecodeLookahead) count at once, on this thread only, and
  // the outer lookahead holds again once an inner one ends.
  {
    const DecodeLookahead ahead(static_cast<unsigned long long>(cpu_decodes));
    EXPECT_EQ(auto_choice_decode(Device::kAuto, samples, bytes, 16), Device::kAuto);
    {
      const DecodeLookahead none(0);
      EXPECT_EQ(auto_choice_decode(Device::kAuto, samples, bytes, 16), Device::kCpu);
    }
    EXPECT_EQ(auto_choice_decode(Device::kAuto, samples, bytes, 16), Device::kAuto);
    Device other = Device::kGpu;
    std::thread([&] { other = auto_choice_decode(Device::kAuto, samples, bytes, 16); }).join();
    EXPECT_EQ(other, Device::kCpu);
  }
  EXPECT_EQ(auto_choice_decode(Device::kAuto, samples, bytes, 16), Device::kCpu);
  EXPECT_EQ(decode_missed_ms(), 0.0);
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
