// transform/device.h: device resolution without a GPU, and the size floor of --device auto.
#include <gtest/gtest.h>

#include "gj2k/error.h"
#include "transform/device.h"

namespace gj2k::transform {
namespace {

TEST(XformDevice, AutoBySizeFloor) {
  EXPECT_EQ(auto_by_size(Device::kAuto, 0), Device::kCpu);
  EXPECT_EQ(auto_by_size(Device::kAuto, kGpuAutoMinSamples - 1), Device::kCpu);
  EXPECT_EQ(auto_by_size(Device::kAuto, kGpuAutoMinSamples), Device::kAuto);
  // Explicit choices are never changed, however small the image.
  EXPECT_EQ(auto_by_size(Device::kGpu, 1), Device::kGpu);
  EXPECT_EQ(auto_by_size(Device::kCpu, kGpuAutoMinSamples * 4), Device::kCpu);
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
