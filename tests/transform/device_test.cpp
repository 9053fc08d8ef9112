// transform/device.h: device resolution without a GPU, and the size floor of --device auto.
#include <gtest/gtest.h>

#include "gj2k/error.h"
#include "transform/device.h"

namespace gj2k::transform {
namespace {

// The cost model of --device auto (device.h): a floor, then the cold GPU's fixed cost against
// the CPU threads' transform time, lifted once the GPU path has run in the process.
TEST(XformDevice, AutoChoice) {
  ASSERT_FALSE(gpu_started()) << "this test must run before anything starts the GPU path";
  EXPECT_EQ(auto_choice(Device::kAuto, 0, 16), Device::kCpu);
  EXPECT_EQ(auto_choice(Device::kAuto, kGpuAutoMinSamples - 1, 1), Device::kCpu);
  // Cold: the GPU pays from kGpuColdSamplesPerThread samples per thread.
  EXPECT_EQ(auto_choice(Device::kAuto, kGpuColdSamplesPerThread * 16 - 16, 16), Device::kCpu);
  EXPECT_EQ(auto_choice(Device::kAuto, kGpuColdSamplesPerThread * 16, 16), Device::kAuto);
  EXPECT_EQ(auto_choice(Device::kAuto, kGpuColdSamplesPerThread, 1), Device::kAuto);
  EXPECT_EQ(auto_choice(Device::kAuto, kGpuColdSamplesPerThread, 0), Device::kAuto);  // 0 = 1
  // Explicit choices are never changed.
  EXPECT_EQ(auto_choice(Device::kGpu, 1, 16), Device::kGpu);
  EXPECT_EQ(auto_choice(Device::kCpu, kGpuColdSamplesPerThread * 64, 1), Device::kCpu);
  // Warm (the GPU path has run here): from the floor up, whatever the threads.
  note_gpu_started();
  EXPECT_TRUE(gpu_started());
  EXPECT_EQ(auto_choice(Device::kAuto, kGpuAutoMinSamples, 64), Device::kAuto);
  EXPECT_EQ(auto_choice(Device::kAuto, kGpuAutoMinSamples - 1, 1), Device::kCpu);
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
