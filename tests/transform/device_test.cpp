// transform/device.h: device resolution without a GPU, and the size floor of --device auto.
#include <gtest/gtest.h>

#include "gj2k/error.h"
#include "transform/device.h"

namespace gj2k::transform {
namespace {

// --device auto (device.h): the CPU below the floor, else the GPU when one is present (kAuto,
// which resolve_device turns into kGpu or kCpu); explicit choices pass through.
TEST(XformDevice, AutoChoice) {
  EXPECT_EQ(auto_choice(Device::kAuto, 0), Device::kCpu);
  EXPECT_EQ(auto_choice(Device::kAuto, kGpuAutoMinSamples - 1), Device::kCpu);
  EXPECT_EQ(auto_choice(Device::kAuto, kGpuAutoMinSamples), Device::kAuto);
  EXPECT_EQ(auto_choice(Device::kAuto, 1ull << 40), Device::kAuto);
  EXPECT_EQ(auto_choice(Device::kGpu, 1), Device::kGpu);
  EXPECT_EQ(auto_choice(Device::kCpu, 1ull << 40), Device::kCpu);
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
