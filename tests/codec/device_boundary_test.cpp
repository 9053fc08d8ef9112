// The API boundary's device conversion (codec/device.h): every public choice of DecodeParams
// and EncodeParams maps to the transform::Device of the same meaning.
#include <gtest/gtest.h>

#include "codec/device.h"

namespace gj2k::codec {
namespace {

TEST(DeviceBoundary, DecodeDeviceMapsToTheSameChoice) {
  EXPECT_EQ(to_transform(DecodeDevice::kAuto), transform::Device::kAuto);
  EXPECT_EQ(to_transform(DecodeDevice::kCpu), transform::Device::kCpu);
  EXPECT_EQ(to_transform(DecodeDevice::kGpu), transform::Device::kGpu);
}

TEST(DeviceBoundary, EncodeDeviceMapsToTheSameChoice) {
  EXPECT_EQ(to_transform(EncodeParams::Device::kAuto), transform::Device::kAuto);
  EXPECT_EQ(to_transform(EncodeParams::Device::kCpu), transform::Device::kCpu);
  EXPECT_EQ(to_transform(EncodeParams::Device::kGpu), transform::Device::kGpu);
}

}  // namespace
}  // namespace gj2k::codec
