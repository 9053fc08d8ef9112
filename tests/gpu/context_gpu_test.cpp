// A gj2k_context with device GPU owns the GPU resources its calls make (decoder slots, encoder
// transformers and Tier-1 buffers: codec/context.h) and frees them when destroyed: the
// process's device memory (cuda_memory.h accounting) is back to where it was, while the
// process-wide pools of the C++ API are untouched. Its encodes and decodes equal a CPU
// context's. Skips without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/capi_round_trip.h"
#include "gj2k.h"
#include "gpu/gpu_test_util.h"
#if defined(GJ2K_HAVE_CUDA)
#include "transform/cuda/cuda_memory.h"
#endif

namespace {

#if defined(GJ2K_HAVE_CUDA)
gj2k_context* make_context(gj2k_device device) {
  gj2k_context_params p;
  gj2k_context_params_init(&p);
  p.threads = 4;
  p.device = device;
  return gj2k_context_create_ex(&p);
}

#endif

TEST(GpuContext, OwnsItsGpuResourcesAndFreesThemOnDestroy) {
  GJ2K_REQUIRE_GPU();
#if defined(GJ2K_HAVE_CUDA)
  namespace cu = gj2k::transform::cuda;
  const uint32_t w = 517, h = 389;
  std::vector<uint8_t> pixels(size_t{w} * h * 3);
  for (size_t i = 0; i < pixels.size(); ++i)
    pixels[i] = static_cast<uint8_t>((i * 7 + (i / (3 * w)) * 13 + (i % 3) * 91) & 0xFF);
  gj2k_context* cpu = make_context(GJ2K_DEVICE_CPU);
  ASSERT_NE(cpu, nullptr) << gj2k_last_error();
  for (bool irreversible : {false, true}) {
    SCOPED_TRACE(irreversible ? "9/7" : "5/3");
    const gj2k::test::CapiRoundTrip want =
        gj2k::test::capi_round_trip(cpu, pixels, w, h, irreversible);
    const size_t before = cu::device_memory_use().current;
    gj2k_context* gpu = make_context(GJ2K_DEVICE_GPU);
    ASSERT_NE(gpu, nullptr) << gj2k_last_error();
    const gj2k::test::CapiRoundTrip got =
        gj2k::test::capi_round_trip(gpu, pixels, w, h, irreversible);
    EXPECT_TRUE(got.stream == want.stream) << "the GPU context's codestream differs";
    EXPECT_TRUE(got.decoded == want.decoded) << "the GPU context's samples differ";
    if (!irreversible) {
      EXPECT_TRUE(got.decoded == pixels);
    }
    // Its pools hold device memory between calls (reused), and give it all back at destroy.
    EXPECT_GT(cu::device_memory_use().current, before) << "the context kept no GPU buffers";
    gj2k_context_destroy(gpu);
    EXPECT_EQ(cu::device_memory_use().current, before) << "device memory outlived the context";
  }
  gj2k_context_destroy(cpu);
#endif
}

}  // namespace
