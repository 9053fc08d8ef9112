// codec::GpuWarmUp (codec/gpu_warm_up.h): the background device query and the answers of
// use(), with or without a GPU, and that a warm-up without prepare() (the CLI's encode) ends.
#include <gtest/gtest.h>

#include "codec/gpu_warm_up.h"
#include "gj2k/error.h"
#include "transform/device.h"

namespace gj2k::codec {
namespace {

TEST(GpuWarmUp, AgreesWithTheDeviceQuery) {
  bool answer = false;
  {
    GpuWarmUp warm(false);  // never prepared: the destructor ends the thread
    answer = warm.use();
    EXPECT_EQ(warm.use(), answer);  // asked again: the same answer
  }
  const transform::GpuInfo info = transform::gpu_info();
  EXPECT_EQ(answer, info.available);
}

TEST(GpuWarmUp, RequiredWithoutGpuSaysWhy) {
  const transform::GpuInfo info = transform::gpu_info();
  if (info.available) GTEST_SKIP() << "a GPU is present (" << info.name << ")";
  GpuWarmUp warm(true);
  warm.prepare(1000, 3, 2);
  try {
    warm.use();
    ADD_FAILURE() << "use() without a GPU did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kDevice);
    EXPECT_FALSE(std::string(e.what()).empty());
  }
}

}  // namespace
}  // namespace gj2k::codec
