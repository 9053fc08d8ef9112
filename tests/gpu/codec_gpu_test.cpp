// The encoder's GPU transform stage (the CUDA backend's forward, codec/tile_backend.h) against the
// CPU stage: lossless and 9/7 codestreams byte-identical (the default GPU DWT computes the 9/7 as
// the CPU does, transform/cuda/dwt_lift.cuh), OpenJPEG decoding GPU-encoded lossy streams. Skips
// without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "codec/encode_test_util.h"
#include "codec/encoder_gpu.h"
#include "codec/encoder_internal.h"
#include "codec/markers/codestream.h"
#include "codec/synthetic.h"
#include "gj2k/encoder.h"
#include "gpu/gpu_test_util.h"
#include "transform/device.h"
#if defined(GJ2K_HAVE_CUDA)
#include "transform/cuda/cuda_memory.h"
#endif

namespace gj2k {
namespace {

using Device = EncodeParams::Device;
using test::ScopedEnv;

std::vector<uint8_t> encode_on(const Image& image, EncodeParams p, Device d) {
  p.device = d;
  return Encoder().encode(image, p);
}

struct LosslessCase {
  std::string name;
  std::function<Image()> image;
  EncodeParams params;
};

// Appends component 0 of `other` to `im` (same geometry).
Image with_component_of(Image im, const Image& other) {
  im.components.push_back(other.components[0]);
  return im;
}

std::vector<LosslessCase> lossless_cases() {
  std::vector<LosslessCase> v;
  EncodeParams p;
  v.push_back(
      {"rgb8 synthetic 203x151", [] { return codec::synthetic_image(203, 151, 3, 8, 7); }, p});
  for (int levels = 0; levels <= 6; ++levels) {
    EncodeParams q;
    q.levels = levels;
    v.push_back({"rgb8 origin (3,7) 67x45 levels " + std::to_string(levels),
                 [] { return test::random_image(67, 45, 3, 8, false, 11, 3, 7); }, q});
  }
  {
    EncodeParams q;
    q.tile_width = 64;
    q.tile_height = 48;
    q.tile_x0 = 1;
    q.tile_y0 = 2;
    q.levels = 4;
    v.push_back({"rgb8 tiles 64x48 at (1,2), image origin (5,9)",
                 [] { return test::random_image(150, 101, 3, 8, false, 12, 5, 9); }, q});
  }
  {
    EncodeParams q;
    q.tile_width = q.tile_height = 16;
    q.threads = 4;
    q.levels = 3;
    v.push_back({"rgb8 many 16x16 tiles (parallel tile loop)",
                 [] { return test::random_image(100, 90, 3, 8, false, 13, 1, 1); }, q});
  }
  {
    EncodeParams q;
    q.levels = 3;
    v.push_back({"grey12 synthetic", [] { return codec::synthetic_image(129, 77, 1, 12, 3); }, q});
  }
  v.push_back({"rgb16 synthetic", [] { return codec::synthetic_image(96, 70, 3, 16, 4); }, p});
  v.push_back({"grey16 signed", [] { return test::random_image(61, 83, 1, 16, true, 14); }, p});
  {
    EncodeParams q;
    q.mct = 0;
    v.push_back({"rgb8 no MCT", [] { return test::random_image(64, 64, 3, 8, false, 15); }, q});
  }
  v.push_back(
      {"3 components subsampled (2,1),(1,2) at origin (1,1)",
       [] {
         return test::random_image(77, 51, 3, 10, false, 16, 1, 1, {{1, 1}, {2, 1}, {1, 2}});
       },
       p});
  v.push_back({"mixed signedness (int32 upload)",
               [] {
                 return with_component_of(test::random_image(40, 33, 1, 8, false, 17),
                                          test::random_image(40, 33, 1, 12, true, 18));
               },
               p});
  v.push_back({"1x1 grey", [] { return test::random_image(1, 1, 1, 8, false, 19); }, p});
  v.push_back(
      {"3x2 rgb at odd origin", [] { return test::random_image(3, 2, 3, 8, false, 20, 7, 5); }, p});
  return v;
}

TEST(GpuCodec, LosslessStreamsIdenticalToCpu) {
  GJ2K_REQUIRE_GPU();
  for (const LosslessCase& k : lossless_cases()) {
    SCOPED_TRACE(k.name);
    const Image im = k.image();
    const std::vector<uint8_t> cpu = encode_on(im, k.params, Device::kCpu);
    const std::vector<uint8_t> gpu = encode_on(im, k.params, Device::kGpu);
    EXPECT_EQ(cpu.size(), gpu.size());
    EXPECT_TRUE(cpu == gpu) << "GPU codestream differs from the CPU one";
    // auto (the CPU for images this small, transform::auto_choice_encode) gives the same bytes.
    EXPECT_TRUE(encode_on(im, k.params, Device::kAuto) == cpu);
  }
}

// 9/7: the transform stage directly. The GPU's DC shift + ICT, DWT (the default variant) and
// quantization do the CPU's float operations in the CPU's order, so every index is the same.
TEST(GpuCodec, IrreversibleIndicesIdentical) {
  GJ2K_REQUIRE_GPU();
  struct Case {
    Image image;
    int levels;
  };
  const Case cases[] = {{codec::synthetic_image(257, 193, 3, 8, 21), 5},
                        {test::random_image(130, 67, 1, 12, false, 22, 3, 1), 6},
                        {codec::synthetic_image(64, 64, 3, 16, 23), 0}};
  for (const Case& k : cases) {
    EncodeParams p;
    p.irreversible = true;
    p.levels = k.levels;
    validate(p, k.image);
    const codec::EncodeSetup setup = codec::make_setup(p, k.image);
    const codec::TileCoefficients cpu = codec::cpu_backend().forward(k.image, setup, 0, nullptr);
    const codec::TileCoefficients gpu = codec::cuda_backend().forward(k.image, setup, 0, nullptr);
    ASSERT_EQ(cpu.data.size(), gpu.data.size());
    size_t total = 0, differ = 0;
    int64_t worst = 0;
    for (size_t c = 0; c < cpu.data.size(); ++c) {
      EXPECT_EQ(cpu.rects[c], gpu.rects[c]);
      ASSERT_EQ(cpu.data[c].size(), gpu.data[c].size());
      for (size_t i = 0; i < cpu.data[c].size(); ++i) {
        const int64_t d = std::llabs(int64_t{cpu.data[c][i]} - gpu.data[c][i]);
        worst = std::max(worst, d);
        differ += d != 0;
      }
      total += cpu.data[c].size();
    }
    std::printf(
        "[ info ] 9/7 indices, %zu components, %d levels: %zu of %zu differ, max |diff| %lld\n",
        cpu.data.size(), k.levels, differ, total, static_cast<long long>(worst));
    EXPECT_EQ(differ, 0u);
  }
}

// Whole 9/7 codestreams: rates, layers, tiles, odd origins, 12-bit grey.
TEST(GpuCodec, IrreversibleStreamsIdenticalToCpu) {
  GJ2K_REQUIRE_GPU();
  struct Case {
    const char* name;
    Image image;
    EncodeParams params;
  };
  std::vector<Case> cases;
  EncodeParams p;
  p.irreversible = true;
  cases.push_back({"257x193 rgb", codec::synthetic_image(257, 193, 3, 8, 31), p});
  p.rates = {40, 20, 10};
  cases.push_back({"rates 40 20 10", codec::synthetic_image(300, 211, 3, 8, 32), p});
  p.rates.clear();
  p.tile_width = 96;
  p.tile_height = 80;
  cases.push_back({"tiles at odd origin", test::random_image(201, 157, 3, 8, false, 33, 5, 3), p});
  p = EncodeParams{};
  p.irreversible = true;
  p.levels = 7;
  cases.push_back({"12-bit grey", test::random_image(333, 97, 1, 12, false, 34, 1, 2), p});
  for (const Case& k : cases) {
    SCOPED_TRACE(k.name);
    const std::vector<uint8_t> cpu = encode_on(k.image, k.params, Device::kCpu);
    const std::vector<uint8_t> gpu = encode_on(k.image, k.params, Device::kGpu);
    EXPECT_EQ(cpu.size(), gpu.size());
    EXPECT_TRUE(cpu == gpu) << "GPU codestream differs from the CPU one";
  }
}

TEST(GpuCodec, TransformStageLosslessIdentical) {
  GJ2K_REQUIRE_GPU();
  const Image im = test::random_image(211, 97, 3, 16, true, 24, 9, 4);
  EncodeParams p;
  p.levels = 6;
  p.tile_width = 100;
  p.tile_height = 60;
  validate(p, im);
  const codec::EncodeSetup setup = codec::make_setup(p, im);
  for (uint32_t t = 0; t < codec::num_tiles(setup.main.siz); ++t) {
    const codec::TileCoefficients cpu = codec::cpu_backend().forward(im, setup, t, nullptr);
    const codec::TileCoefficients gpu = codec::cuda_backend().forward(im, setup, t, nullptr);
    EXPECT_EQ(cpu.rects, gpu.rects) << "tile " << t;
    EXPECT_TRUE(cpu.data == gpu.data) << "tile " << t;
  }
}

#ifdef GJ2K_HAVE_OPENJPEG
double psnr(const Component& a, const Component& b) {
  double se = 0;
  for (size_t i = 0; i < a.samples.size(); ++i) {
    const double d = double(a.samples[i]) - b.samples[i];
    se += d * d;
  }
  const double peak = double((int64_t{1} << a.precision) - 1);
  const double mse = se / double(a.samples.size());
  return mse == 0 ? 200.0 : 10 * std::log10(peak * peak / mse);
}

// The encoder's option matrix on both devices (Tier-1 on the GPU included): every code-block
// style and its combinations, code-block sizes down to 4x4 and up to 1024x4, precincts,
// layers with rate targets, tiles, 5/3 and 9/7. The GPU's codestream must be the CPU's.
TEST(GpuCodec, OptionMatrixIdenticalToCpu) {
  GJ2K_REQUIRE_GPU();
  const Image rgb = codec::synthetic_image(157, 121, 3, 8, 41);
  const Image grey = test::random_image(93, 211, 1, 12, false, 42, 3, 1);
  struct Case {
    std::string name;
    EncodeParams p;
  };
  std::vector<Case> cases;
  for (uint8_t style : {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x05, 0x11, 0x2A, 0x3F}) {
    for (bool irreversible : {false, true}) {
      EncodeParams p;
      p.cblk_style = style;
      p.irreversible = irreversible;
      if (irreversible) p.rates = {30, 10};
      cases.push_back({"style " + std::to_string(style) + (irreversible ? " 9/7" : " 5/3"), p});
    }
  }
  for (auto [cw, ch] :
       {std::pair<uint32_t, uint32_t>{4, 4}, {16, 64}, {1024, 4}, {4, 1024}, {32, 32}}) {
    EncodeParams p;
    p.cblk_width = cw;
    p.cblk_height = ch;
    p.levels = 3;
    cases.push_back({"cblk " + std::to_string(cw) + "x" + std::to_string(ch), p});
  }
  {
    EncodeParams p;
    p.precincts = {{32, 32}, {16, 16}};
    p.layers = 3;
    p.rates = {40, 20, 5};
    p.irreversible = true;
    cases.push_back({"precincts, 3 layers, 9/7", p});
  }
  {
    EncodeParams p;
    p.tile_width = 64;
    p.tile_height = 50;
    p.cblk_style = 0x3F;
    p.levels = 2;
    cases.push_back({"tiles, every style bit", p});
  }
  for (const Case& k : cases) {
    for (const Image* im : {&rgb, &grey}) {
      SCOPED_TRACE(k.name + (im == &rgb ? ", rgb8" : ", grey12"));
      EncodeParams p = k.p;
      validate(p, *im);
      const std::vector<uint8_t> cpu = encode_on(*im, p, Device::kCpu);
      const std::vector<uint8_t> gpu = encode_on(*im, p, Device::kGpu);
      EXPECT_EQ(cpu.size(), gpu.size());
      EXPECT_TRUE(cpu == gpu) << "GPU codestream differs from the CPU one";
    }
  }
}

#if defined(GJ2K_HAVE_CUDA)  // the budget divisor exists with CUDA only
// Blocks beyond the GPU Tier-1's byte budget are coded again on the CPU (code_tile_gpu): with
// the budgets cut to an eighth, many blocks take that path, and the codestream is still the
// CPU's. (Blocks the kernel refuses, values beyond Mb or -2^31, take the same path to the CPU's
// error: tests/gpu/t1_enc_gpu_test.cpp checks those statuses.)
TEST(GpuCodec, Tier1FallbacksMatchCpu) {
  GJ2K_REQUIRE_GPU();
  const Image im = codec::synthetic_image(211, 143, 3, 8, 61);
  codec::set_t1_budget_divisor(8);
  for (bool irreversible : {false, true}) {
    SCOPED_TRACE(irreversible ? "9/7" : "5/3");
    EncodeParams p;
    p.irreversible = irreversible;
    p.cblk_style = irreversible ? 0x3F : 0x00;
    EXPECT_TRUE(encode_on(im, p, Device::kCpu) == encode_on(im, p, Device::kGpu));
  }
  codec::set_t1_budget_divisor(1);
}
#endif

// A sample outside its precision's range: the GPU encoder finds it while staging the samples
// (validate() leaves it to that pass) and reports the CPU's error, the first bad sample of the
// image in raster order, whichever tile meets it first; tiles whose subsampled component is
// empty (the CPU stage on the GPU path) are checked too.
TEST(GpuCodec, OutOfRangeSamplesGiveTheCpuError) {
  GJ2K_REQUIRE_GPU();
  struct Case {
    std::string name;
    EncodeParams params;
    uint32_t comp, x, y;
    int32_t value;
    uint32_t dy = 1;  // component 1's vertical subsampling
  };
  std::vector<Case> cases;
  cases.push_back({"one tile, 8-bit", {}, 1, 40, 30, 256});
  {
    EncodeParams q;
    q.tile_width = 32;
    q.tile_height = 24;
    q.levels = 2;
    cases.push_back({"tiles, late tile", q, 2, 90, 70, -1});
    q.threads = 4;
    cases.push_back({"tiles in parallel, two bad samples", q, 0, 5, 3, 300});
  }
  {
    EncodeParams q;
    // Component 1 at dy = 8 is empty in the tiles of image rows 4..7, which the CPU stage
    // encodes on the GPU path; the bad sample is in one of them.
    q.tile_width = q.tile_height = 4;
    q.levels = 0;
    cases.push_back({"tiles with empty tile-components", q, 0, 3, 5, 999, 8});
  }
  for (bool irreversible : {false, true})
    for (const Case& c : cases) {
      SCOPED_TRACE(c.name + (irreversible ? ", 9/7" : ", 5/3"));
      std::vector<std::pair<uint32_t, uint32_t>> sub;
      if (c.dy != 1) sub = {{1, 1}, {1, c.dy}, {1, 1}};
      Image im = test::random_image(101, 77, 3, 8, false, 77, 0, 0, sub);
      Component& bad = im.components[c.comp];
      bad.samples[size_t{c.y} * bad.width + c.x] = c.value;
      if (c.name.find("two bad") != std::string::npos)
        im.components[2].samples[size_t{76} * im.components[2].width + 100] = 512;
      EncodeParams p = c.params;
      p.irreversible = irreversible;
      std::string cpu_error, gpu_error;
      try {
        encode_on(im, p, Device::kCpu);
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
        cpu_error = e.what();
      }
      try {
        encode_on(im, p, Device::kGpu);
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
        gpu_error = e.what();
      }
      EXPECT_NE(cpu_error.find("outside the range"), std::string::npos) << cpu_error;
      EXPECT_EQ(cpu_error, gpu_error);
    }
}

#if defined(GJ2K_HAVE_CUDA)  // the memory limit and the tile counter exist with CUDA only

// Images larger than the GPU's memory, with the device memory limited (cuda_memory.h) below
// what the image needs as one tile: encoded in tiles, every tile still runs on the GPU, one
// after another within the limit; as one tile, the tile goes to the CPU. Both give the CPU's
// codestream. What one tile needs at least is measured with a thread per block (the Tier-1
// mapping with the least memory); the encodes under the limit take the default mapping, whose
// symbol memory adapts to the limit and which falls back to a thread per block.
TEST(GpuCodec, TilesEncodeWithinADeviceMemoryLimit) {
  GJ2K_REQUIRE_GPU();
  namespace cu = transform::cuda;
  const Image im = codec::synthetic_image(1000, 700, 3, 8, 5);
  for (bool irreversible : {false, true}) {
    SCOPED_TRACE(irreversible ? "9/7 rate 20" : "5/3");
    EncodeParams whole;
    whole.irreversible = irreversible;
    if (irreversible) whole.rates = {20};
    whole.threads = 2;
    EncodeParams tiled = whole;
    tiled.tile_width = tiled.tile_height = 256;
    codec::release_gpu_pools();
    const size_t base = cu::device_memory_use().current;
    cu::reset_device_memory_peak();
    const std::vector<uint8_t> whole_cpu = encode_on(im, whole, Device::kCpu);
    {
      const ScopedEnv threads("GJ2K_GPU_T1_ENC_MAPPING", "threads");
      EXPECT_TRUE(encode_on(im, whole, Device::kGpu) == whole_cpu);
    }
    const size_t whole_need = cu::device_memory_use().peak - base;
    codec::release_gpu_pools();
    const size_t limit = base + whole_need / 2;
    cu::set_device_memory_limit(limit);
    cu::reset_device_memory_peak();
    const uint32_t cpu_tiles = codec::gpu_path_cpu_tiles();
    const std::vector<uint8_t> tiled_gpu = encode_on(im, tiled, Device::kGpu);
    EXPECT_EQ(codec::gpu_path_cpu_tiles(), cpu_tiles) << "a tile went to the CPU";
    EXPECT_LE(cu::device_memory_use().peak, limit);
    EXPECT_TRUE(tiled_gpu == encode_on(im, tiled, Device::kCpu));
    codec::release_gpu_pools();
    EXPECT_TRUE(encode_on(im, whole, Device::kGpu) == whole_cpu);
    EXPECT_EQ(codec::gpu_path_cpu_tiles(), cpu_tiles + 1) << "the one tile did not fit";
    cu::set_device_memory_limit(0);
    codec::release_gpu_pools();
  }
}

// The plane mapping's symbols in chunks of 64 KB (set_t1_symbol_budget): many launches per
// tile, the same codestream as the CPU's, lossless and 9/7 with every style bit.
TEST(GpuCodec, Tier1SymbolChunksMatchCpu) {
  GJ2K_REQUIRE_GPU();
  const Image im = codec::synthetic_image(517, 301, 3, 8, 62);
  struct Budget {
    Budget() { codec::set_t1_symbol_budget(size_t{64} << 10); }
    ~Budget() { codec::set_t1_symbol_budget(0); }
  } budget;
  for (bool irreversible : {false, true}) {
    SCOPED_TRACE(irreversible ? "9/7" : "5/3");
    EncodeParams p;
    p.irreversible = irreversible;
    if (irreversible) p.rates = {30, 10};
    p.cblk_style = irreversible ? 0x3F : 0x08;
    EXPECT_TRUE(encode_on(im, p, Device::kCpu) == encode_on(im, p, Device::kGpu));
  }
}
#endif

// OpenJPEG reads GPU-written lossless streams back bit-exactly.
TEST(GpuCodec, OpenJpegDecodesLosslessGpuStreamsExactly) {
  GJ2K_REQUIRE_GPU();
  const Image images[] = {codec::synthetic_image(300, 200, 3, 8, 51),
                          test::random_image(77, 91, 1, 16, false, 52)};
  for (const Image& im : images) {
    EncodeParams p;
    p.cblk_style = 0x01;  // bypass too
    const std::vector<uint8_t> bytes = encode_on(im, p, Device::kGpu);
    std::string error;
    const std::optional<Image> dec = test::opj_decode(bytes, error);
    ASSERT_TRUE(dec.has_value()) << "OpenJPEG: " << error;
    EXPECT_EQ(test::peak_difference(im, *dec), 0);
  }
}

TEST(GpuCodec, OpenJpegDecodesLossyGpuStreams) {
  GJ2K_REQUIRE_GPU();
  struct Case {
    std::string name;
    Image image;
    std::vector<double> rates;
    double min_psnr;
  };
  const Case cases[] = {
      {"rgb8 full quality", codec::synthetic_image(256, 192, 3, 8, 31), {}, 50},
      {"rgb8 rate 20", codec::synthetic_image(256, 192, 3, 8, 32), {20}, 30},
      {"grey12 full quality", codec::synthetic_image(150, 99, 1, 12, 33), {}, 55}};
  for (const Case& k : cases) {
    SCOPED_TRACE(k.name);
    EncodeParams p;
    p.irreversible = true;
    p.rates = k.rates;
    const std::vector<uint8_t> bytes = encode_on(k.image, p, Device::kGpu);
    std::string error;
    const std::optional<Image> dec = test::opj_decode(bytes, error);
    ASSERT_TRUE(dec.has_value()) << "OpenJPEG: " << error;
    ASSERT_EQ(dec->components.size(), k.image.components.size());
    for (size_t c = 0; c < k.image.components.size(); ++c) {
      ASSERT_EQ(dec->components[c].samples.size(), k.image.components[c].samples.size());
      const double db = psnr(k.image.components[c], dec->components[c]);
      std::printf("[ info ] %s component %zu: %.2f dB (%zu bytes)\n", k.name.c_str(), c, db,
                  bytes.size());
      EXPECT_GE(db, k.min_psnr) << "component " << c;
    }
  }
}
#endif

}  // namespace
}  // namespace gj2k
