// The CUDA backend's forward stage when tiles run serially: it enqueues the next tile ahead in
// the loop's pipeline (forward_pipeline(), codec/encoder_gpu.h). Results must not depend on
// it: tiles in order, out of order, repeated, two loops (two images) interleaved, tiles whose
// tile-components are empty (the CPU stage) between GPU ones, and whole serial multi-tile
// encodes byte-identical to the CPU's.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "codec/encode_test_util.h"
#include "codec/encoder_internal.h"
#include "gj2k/encoder.h"
#include "gpu/gpu_test_util.h"

namespace gj2k {
namespace {

struct Prepared {
  Image image;
  codec::EncodeSetup setup;
};

Prepared prepare(Image im, const EncodeParams& p) {
  validate(p, im);
  codec::EncodeSetup setup = codec::make_setup(p, im);
  return {std::move(im), std::move(setup)};
}

void expect_same_as_cpu(const Prepared& k, uint32_t t, const std::string& what,
                        codec::ForwardPipeline* ahead = nullptr) {
  const codec::TileCoefficients cpu = codec::cpu_backend().forward(k.image, k.setup, t, nullptr);
  const codec::TileCoefficients gpu = codec::cuda_backend().forward(k.image, k.setup, t, ahead);
  EXPECT_EQ(cpu.rects, gpu.rects) << what << ", tile " << t;
  EXPECT_TRUE(cpu.data == gpu.data) << what << ", tile " << t;
}

TEST(GpuEncodeAhead, TileOrderDoesNotMatter) {
  GJ2K_REQUIRE_GPU();
  const uint32_t seed = 3301;
  SCOPED_TRACE("seed " + std::to_string(seed));
  EncodeParams p;
  p.levels = 3;
  p.tile_width = 40;
  p.tile_height = 30;
  p.tile_x0 = 2;
  p.tile_y0 = 1;
  const Prepared a = prepare(test::random_image(101, 77, 3, 8, false, seed, 5, 3), p);
  const Prepared b = prepare(test::random_image(101, 77, 3, 8, false, seed + 1, 5, 3), p);
  const uint32_t n = codec::num_tiles(a.setup.main.siz);
  ASSERT_GE(n, 9u);
  const auto ahead = codec::cuda_backend().forward_pipeline();
  for (uint32_t t = 0; t < n; ++t) expect_same_as_cpu(a, t, "in order", ahead.get());
  for (uint32_t t : {5u, 2u, 3u, 3u, 4u, 8u, 0u, 1u, 2u})
    expect_same_as_cpu(a, t, "out of order", ahead.get());
  const auto ahead_a = codec::cuda_backend().forward_pipeline();
  const auto ahead_b = codec::cuda_backend().forward_pipeline();
  for (uint32_t t = 0; t < n; ++t) {  // interleaved: two loops, each with its look-ahead
    expect_same_as_cpu(a, t, "image a interleaved", ahead_a.get());
    expect_same_as_cpu(b, t, "image b interleaved", ahead_b.get());
  }
}

TEST(GpuEncodeAhead, SerialEncodesIdenticalToCpu) {
  GJ2K_REQUIRE_GPU();
  struct Case {
    const char* name;
    Image image;
    EncodeParams params;
  };
  std::vector<Case> cases;
  {
    EncodeParams p;
    p.levels = 4;
    p.tile_width = 100;
    p.tile_height = 90;
    p.tile_x0 = 5;
    p.tile_y0 = 3;
    p.threads = 8;  // 12 tiles < 2 x 8 threads: the serial tile loop
    cases.push_back({"rgb8 12 tiles", test::random_image(333, 251, 3, 8, false, 3401, 13, 7), p});
    p.threads = 2;  // 12 tiles >= 4: the parallel loop, for comparison
    cases.push_back({"rgb8 12 tiles, parallel", cases.back().image, p});
  }
  {
    EncodeParams p;
    p.levels = 2;
    p.tile_width = 4;
    p.tile_height = 4;
    p.threads = 16;  // 12 tiles < 32: serial; component 2 (8x8 subsampled) is empty in most
    cases.push_back({"tiny tiles with empty tile-components",
                     test::random_image(16, 12, 3, 10, false, 3402, 0, 0, {{1, 1}, {1, 1}, {8, 8}}),
                     p});
  }
  {
    EncodeParams p;
    p.levels = 5;
    p.tile_width = 256;
    p.tile_height = 128;
    p.threads = 4;  // 3 tiles
    cases.push_back(
        {"grey16 signed 3 tiles", test::random_image(300, 300, 1, 16, true, 3403, 44, 0), p});
  }
  for (const Case& k : cases) {
    SCOPED_TRACE(k.name);
    EncodeParams p = k.params;
    p.device = EncodeParams::Device::kCpu;
    const std::vector<uint8_t> cpu = Encoder().encode(k.image, p);
    p.device = EncodeParams::Device::kGpu;
    const std::vector<uint8_t> gpu = Encoder().encode(k.image, p);
    const std::vector<uint8_t> again = Encoder().encode(k.image, p);  // tiles ahead left behind?
    EXPECT_TRUE(cpu == gpu) << "GPU stream differs (" << gpu.size() << " vs " << cpu.size()
                            << " bytes)";
    EXPECT_TRUE(cpu == again) << "second GPU encode differs";
  }
}

}  // namespace
}  // namespace gj2k
