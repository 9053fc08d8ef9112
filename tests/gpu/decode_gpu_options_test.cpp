// GPU decode (DecodeDevice::kGpu, codec/gpu_warm_up.h) against CPU decode under the partial
// decoding options: reduce, region, component subsets (with and without the MCT components),
// skip_mct, max_layers, one tile, serial and parallel tile loops, MCT on and off, 4 components
// (the 4th outside the MCT). Streams from gj2k's own encoder on the CPU, tiled with odd image
// and tile origins. 5/3 and 9/7 identical.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gj2k/decoder.h"
#include "gj2k/encoder.h"
#include "gpu/gpu_test_util.h"
#include "transform/device.h"

namespace {

using gj2k::DecodeDevice;
using gj2k::DecodeParams;
using gj2k::Image;
using gj2k::test::peak_difference;

// Smooth ramps plus noise (so that many bit-planes and several layers carry data).
Image test_image(uint32_t w, uint32_t h, uint32_t ncomp, uint32_t x0, uint32_t y0, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> d(0, 63);
  Image im;
  im.x0 = x0;
  im.y0 = y0;
  im.x1 = x0 + w;
  im.y1 = y0 + h;
  im.components.resize(ncomp);
  for (uint32_t c = 0; c < ncomp; ++c) {
    auto& comp = im.components[c];
    comp.width = w;
    comp.height = h;
    comp.precision = 8;
    comp.samples.resize(size_t{w} * h);
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x)
        comp.samples[size_t{y} * w + x] =
            std::clamp<int32_t>(int32_t((x * (c + 1) + y * 2) % 192) + d(rng), 0, 255);
  }
  return im;
}

struct StreamCase {
  const char* name;
  uint32_t ncomp;
  bool irreversible;
  int mct;
};

struct OptionCase {
  const char* name;
  DecodeParams params;
};

std::vector<OptionCase> option_cases(uint32_t ncomp) {
  std::vector<OptionCase> v;
  auto add = [&](const char* name, auto&& set) {
    DecodeParams p;
    set(p);
    v.push_back({name, p});
  };
  add("default, all threads", [](DecodeParams&) {});
  add("serial tiles", [](DecodeParams& p) { p.threads = 1; });
  add("parallel tiles", [](DecodeParams& p) { p.threads = 4; });
  add("reduce 1", [](DecodeParams& p) { p.reduce = 1; });
  add("reduce 2, 3 threads", [](DecodeParams& p) {
    p.reduce = 2;
    p.threads = 3;
  });
  add("region", [](DecodeParams& p) { p.region = gj2k::Region{61, 47, 300, 211}; });
  add("region + reduce", [](DecodeParams& p) {
    p.region = gj2k::Region{130, 20, 400, 390};
    p.reduce = 1;
  });
  add("components 2,0", [](DecodeParams& p) { p.components = {2, 0}; });
  add("component 1", [](DecodeParams& p) { p.components = {1}; });
  add("skip_mct", [](DecodeParams& p) { p.skip_mct = true; });
  add("max_layers 1", [](DecodeParams& p) { p.max_layers = 1; });
  add("tile 5", [](DecodeParams& p) { p.tile = 5; });
  if (ncomp > 3) add("component 3", [](DecodeParams& p) { p.components = {3}; });
  if (ncomp > 3) add("components 3,1", [](DecodeParams& p) { p.components = {3, 1}; });
  return v;
}

TEST(DecodeGpuOptions, PartialDecodesMatchCpu) {
  const StreamCase streams[] = {
      {"RGB 5/3 MCT", 3, false, 1},    {"RGB 9/7 MCT", 3, true, 1},
      {"RGB 5/3 no MCT", 3, false, 0}, {"RGB 9/7 no MCT", 3, true, 0},
      {"RGBA 5/3 MCT", 4, false, 1},   {"RGBA 9/7 MCT", 4, true, 1},
  };
  // Streams and CPU decodes first, so that this half runs on machines without a GPU too.
  struct Run {
    std::string trace;
    const std::vector<uint8_t>* bytes;
    DecodeParams params;
    Image cpu;
    bool irreversible;
  };
  std::vector<std::vector<uint8_t>> bytes;
  bytes.reserve(std::size(streams));
  std::vector<Run> runs;
  uint32_t seed = 4400;
  for (const StreamCase& s : streams) {
    ++seed;
    const Image src = test_image(517, 389, s.ncomp, 5, 3, seed);
    gj2k::EncodeParams ep;
    ep.irreversible = s.irreversible;
    ep.mct = s.mct;
    ep.levels = 4;
    ep.tile_width = 128;
    ep.tile_height = 96;
    ep.tile_x0 = 1;
    ep.tile_y0 = 2;
    ep.rates = {40, 10, 1};
    ep.device = gj2k::EncodeParams::Device::kCpu;
    bytes.push_back(gj2k::Encoder().encode(src, ep));
    for (const OptionCase& oc : option_cases(s.ncomp)) {
      Run r{"seed " + std::to_string(seed) + " stream " + s.name + ", " + oc.name,
            &bytes.back(),
            oc.params,
            {},
            s.irreversible};
      SCOPED_TRACE(r.trace);
      r.params.device = DecodeDevice::kCpu;
      r.cpu = gj2k::decode_memory(*r.bytes, r.params);
      ASSERT_FALSE(r.cpu.components.empty());
      if (!s.irreversible && oc.params.reduce == 0 && !oc.params.region && !oc.params.tile &&
          oc.params.components.empty() && !oc.params.skip_mct && !oc.params.max_layers) {
        ASSERT_EQ(peak_difference(src, r.cpu), 0) << "not lossless";
      }
      runs.push_back(std::move(r));
    }
  }
  GJ2K_REQUIRE_GPU();
  for (Run& r : runs) {
    SCOPED_TRACE(r.trace);
    r.params.device = DecodeDevice::kGpu;
    const Image gpu = gj2k::decode_memory(*r.bytes, r.params);
    const int64_t peak = peak_difference(r.cpu, gpu);
    ASSERT_GE(peak, 0) << "shapes differ";
    EXPECT_EQ(peak, 0);
  }
}

// One tile of a larger image, decoded by several decoders at once from different threads:
// the shared slot pool must keep their buffers apart.
TEST(DecodeGpuOptions, ConcurrentDecodersMatchCpu) {
  GJ2K_REQUIRE_GPU();
  const uint32_t seed = 4500;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::vector<std::vector<uint8_t>> streams;
  std::vector<Image> cpu;
  for (uint32_t k = 0; k < 4; ++k) {
    const Image src = test_image(300 + 37 * k, 200 + 11 * k, 3, k, 2 * k, seed + k);
    gj2k::EncodeParams ep;
    ep.irreversible = k % 2 == 1;
    ep.levels = 3 + static_cast<int>(k);
    ep.device = gj2k::EncodeParams::Device::kCpu;
    streams.push_back(gj2k::Encoder().encode(src, ep));
    DecodeParams p;
    p.device = DecodeDevice::kCpu;
    cpu.push_back(gj2k::decode_memory(streams.back(), p));
  }
  std::vector<Image> gpu(streams.size());
  std::vector<std::string> errors(streams.size());
  std::vector<std::thread> workers;
  for (size_t k = 0; k < streams.size(); ++k)
    workers.emplace_back([&, k] {
      try {
        DecodeParams p;
        p.device = DecodeDevice::kGpu;
        p.threads = 2;
        for (int rep = 0; rep < 3; ++rep) gpu[k] = gj2k::decode_memory(streams[k], p);
      } catch (const std::exception& e) {
        errors[k] = e.what();
      }
    });
  for (auto& w : workers) w.join();
  for (size_t k = 0; k < streams.size(); ++k) {
    SCOPED_TRACE("stream " + std::to_string(k));
    ASSERT_EQ(errors[k], "");
    const int64_t peak = peak_difference(cpu[k], gpu[k]);
    ASSERT_GE(peak, 0) << "shapes differ";
    EXPECT_EQ(peak, 0);
  }
}

// Without a GPU: --device gpu fails with the reason (Error kDevice), auto decodes on the CPU,
// for one tile and for the parallel tile loop (the device is decided per tile, gpu_warm_up.h).
TEST(DecodeGpuOptions, NoGpuAutoIsCpuAndGpuThrows) {
  const gj2k::transform::GpuInfo info = gj2k::transform::gpu_info();
  if (info.available) GTEST_SKIP() << "a GPU is present: this checks the CPU fallback";
  const Image src = test_image(150, 100, 3, 1, 2, 4600);
  for (uint32_t tile : {0u, 32u}) {
    SCOPED_TRACE("tile size " + std::to_string(tile));
    gj2k::EncodeParams ep;
    ep.tile_width = ep.tile_height = tile;
    ep.device = gj2k::EncodeParams::Device::kCpu;
    const std::vector<uint8_t> bytes = gj2k::Encoder().encode(src, ep);
    DecodeParams p;
    p.threads = 2;
    p.device = DecodeDevice::kAuto;
    const Image automatic = gj2k::decode_memory(bytes, p);
    EXPECT_EQ(peak_difference(src, automatic), 0);
    p.device = DecodeDevice::kGpu;
    try {
      gj2k::decode_memory(bytes, p);
      ADD_FAILURE() << "--device gpu decoded without a GPU";
    } catch (const gj2k::Error& e) {
      EXPECT_EQ(e.code(), gj2k::ErrorCode::kDevice);
      EXPECT_NE(std::string(e.what()).find(info.reason), std::string::npos) << e.what();
    }
  }
}

}  // namespace
