// A gj2k_context with device GPU owns the GPU resources its calls make (decoder slots, encoder
// transformers and Tier-1 buffers: codec/context.h) and frees them when destroyed: the
// process's device memory (cuda_memory.h accounting) is back to where it was, while the
// process-wide pools of the C++ API are untouched. Its encodes and decodes equal a CPU
// context's. Skips without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

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

struct RoundTrip {
  std::vector<uint8_t> stream, decoded;
};

// Encodes an RGB picture through ctx (lossless or 9/7) and decodes the stream into 8-bit
// interleaved samples through ctx.
RoundTrip round_trip(gj2k_context* ctx, const std::vector<uint8_t>& pixels, uint32_t w, uint32_t h,
                     bool irreversible) {
  RoundTrip r;
  gj2k_image_desc d{};
  d.struct_size = sizeof(d);
  d.width = w;
  d.height = h;
  d.num_components = 3;
  d.precision = 8;
  d.color_space = GJ2K_CS_SRGB;
  gj2k_buffer in{
      const_cast<uint8_t*>(pixels.data()), pixels.size(), GJ2K_SAMPLE_8, GJ2K_INTERLEAVED, 0, 0};
  gj2k_encode_params ep;
  gj2k_encode_params_init(&ep);
  ep.irreversible = irreversible;
  uint8_t* out = nullptr;
  size_t size = 0;
  if (gj2k_encode_to_memory(ctx, &d, &in, &ep, &out, &size) != GJ2K_OK) {
    ADD_FAILURE() << gj2k_context_error(ctx);
    return r;
  }
  r.stream.assign(out, out + size);
  gj2k_free(out);
  gj2k_decoder* dec = gj2k_decoder_create_memory(ctx, r.stream.data(), r.stream.size());
  if (!dec) {
    ADD_FAILURE() << gj2k_last_error();
    return r;
  }
  r.decoded.resize(pixels.size());
  gj2k_buffer buf{r.decoded.data(), r.decoded.size(), GJ2K_SAMPLE_8, GJ2K_INTERLEAVED, 0, 0};
  if (gj2k_decode_into(dec, nullptr, &buf) != GJ2K_OK) {
    ADD_FAILURE() << gj2k_context_error(ctx);
    r.decoded.clear();
  }
  gj2k_decoder_destroy(dec);
  return r;
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
    const RoundTrip want = round_trip(cpu, pixels, w, h, irreversible);
    const size_t before = cu::device_memory_use().current;
    gj2k_context* gpu = make_context(GJ2K_DEVICE_GPU);
    ASSERT_NE(gpu, nullptr) << gj2k_last_error();
    const RoundTrip got = round_trip(gpu, pixels, w, h, irreversible);
    EXPECT_TRUE(got.stream == want.stream) << "the GPU context's codestream differs";
    EXPECT_TRUE(got.decoded == want.decoded) << "the GPU context's samples differ";
    if (!irreversible) EXPECT_TRUE(got.decoded == pixels);
    // Its pools hold device memory between calls (reused), and give it all back at destroy.
    EXPECT_GT(cu::device_memory_use().current, before) << "the context kept no GPU buffers";
    gj2k_context_destroy(gpu);
    EXPECT_EQ(cu::device_memory_use().current, before) << "device memory outlived the context";
  }
  gj2k_context_destroy(cpu);
#endif
}

}  // namespace
