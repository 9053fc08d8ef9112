// The decoder's GPU tile tail (codec/tile_backend.h) against the CPU path: cuda_backend()
// against cpu_backend() on random coefficients, and whole decodes
// (DecodeDevice::kGpu against kCpu) of conformance streams and of OpenJPEG-made streams with
// tiles and odd origins.
// 5/3 (reversible) results must be identical; 9/7 decoded samples within 1 (float rounding of
// the DWT, dwt_cuda.h, can move a sample across a rounding boundary).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "codec/tile_backend.h"
#include "common/random_planes.h"
#include "common/shared_data.h"
#include "gj2k/decoder.h"
#include "gj2k/encoder.h"
#include "gpu/gpu_test_util.h"

#ifdef GJ2K_HAVE_OPENJPEG
#include "codec/decode_opj.h"
#endif

namespace {

using gj2k::DecodeDevice;
using gj2k::DecodeParams;
using gj2k::Image;
using gj2k::test::peak_difference;
using gj2k::transform::Rect;

Image decode_on(const std::vector<uint8_t>& bytes, DecodeDevice device, uint32_t reduce) {
  DecodeParams p;
  p.device = device;
  p.reduce = reduce;
  return gj2k::decode_memory(bytes, p);
}

// The CUDA backend's inverse tail (inverse DWT, MCT, DC shift, clamp on the device) against
// the CPU backend's (itself tested against the literal composition of the stages in
// tests/codec/tile_backend_cpu_test.cpp) on the random planes of tests/common/random_planes.h,
// half of the wanted 5/3 outputs given a buffer of the right size to reuse.
TEST(DecodeGpu, CudaBackendMatchesCpuBackend) {
  GJ2K_REQUIRE_GPU();
  const uint32_t seed = 20261122;
  std::mt19937 rng(seed);
  for (const auto& k : gj2k::test::plane_cases()) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " " + k.trace());
    std::vector<gj2k::codec::CoefficientPlane> planes = gj2k::test::random_planes(k, rng);
    std::vector<gj2k::codec::CoefficientPlane> cpu_planes = planes;
    const size_t nc = planes.size(), n = size_t{k.rect.width()} * k.rect.height();
    std::vector<gj2k::codec::TileComponentSamples> got(nc), want;
    for (size_t c = 0; c < nc; ++c)
      if (planes[c].wanted && k.iteration % 2 == 0) got[c].samples.resize(n);
    gj2k::codec::cuda_backend().inverse(planes, k.mct, 4, got);
    gj2k::codec::cpu_backend().inverse(cpu_planes, k.mct, 4, want);
    ASSERT_EQ(got.size(), nc);
    for (size_t c = 0; c < nc; ++c) {
      const auto& p = cpu_planes[c];
      if (!p.wanted) {
        EXPECT_TRUE(got[c].samples.empty()) << "component " << c << " was not asked for";
        continue;
      }
      ASSERT_EQ(got[c].rect, k.rect) << "component " << c;
      ASSERT_EQ(got[c].samples.size(), n) << "component " << c;
      const bool exact = k.kernels == 0 || (p.reversible && (!k.mct || c >= 3));
      int64_t peak = 0;
      for (size_t i = 0; i < n; ++i)
        peak = std::max<int64_t>(peak, std::llabs(int64_t{got[c].samples[i]} - want[c].samples[i]));
      EXPECT_LE(peak, exact ? 0 : 1) << "component " << c;
    }
  }
}

struct Stream {
  const char* name;
  uint32_t reduce;
};

// Conformance streams (15444-4): GPU decode against CPU decode. Reversible (main COD 5/3)
// streams exactly, irreversible within 1.
TEST(DecodeGpu, ConformanceStreamsMatchCpu) {
  GJ2K_REQUIRE_GPU();
  GJ2K_REQUIRE_SHARED("conformance/input/p0_01.j2k");
  const Stream streams[] = {{"p0_01", 0}, {"p0_08", 1}, {"p0_10", 0}, {"p0_14", 0},
                            {"p1_07", 0}, {"p0_04", 0}, {"p1_02", 0}, {"p0_02", 0},
                            {"p0_03", 0}, {"p0_06", 0}, {"p0_09", 0}, {"p0_13", 0},
                            {"p0_16", 0}, {"p1_01", 0}, {"p1_04", 1}, {"p1_06", 0}};
  int checked = 0;
  for (const Stream& s : streams) {
    const auto path =
        gj2k::test::shared_dir() / "conformance/input" / (std::string(s.name) + ".j2k");
    if (!std::filesystem::exists(path)) continue;  // the device copy holds a subset
    SCOPED_TRACE(std::string(s.name) + " reduce " + std::to_string(s.reduce));
    gj2k::Decoder header_reader(path);
    const bool reversible = header_reader.read_header().reversible;
    std::vector<uint8_t> bytes(std::filesystem::file_size(path));
    {
      FILE* f = std::fopen(path.c_str(), "rb");
      ASSERT_NE(f, nullptr);
      ASSERT_EQ(std::fread(bytes.data(), 1, bytes.size(), f), bytes.size());
      std::fclose(f);
    }
    const Image cpu = decode_on(bytes, DecodeDevice::kCpu, s.reduce);
    const Image gpu = decode_on(bytes, DecodeDevice::kGpu, s.reduce);
    const int64_t peak = peak_difference(cpu, gpu);
    ASSERT_GE(peak, 0) << "shapes differ";
    EXPECT_LE(peak, reversible ? 0 : 1) << (reversible ? "5/3" : "9/7");
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

// Streams from gj2k's own encoder (on the CPU) with tiles, odd image and tile origins and
// subsampled components: 5/3 exact (and lossless), 9/7 within 1.
TEST(DecodeGpu, OwnEncoderTiledStreamsMatchCpu) {
  struct Case {
    uint32_t w, h, x0, y0, tw, th, tx0, ty0;
    int levels;
    bool irreversible;
    uint32_t reduce;
  };
  const Case cases[] = {
      {333, 251, 13, 7, 100, 90, 5, 3, 5, false, 0}, {333, 251, 13, 7, 100, 90, 5, 3, 5, true, 0},
      {520, 130, 1, 1, 0, 0, 0, 0, 7, false, 2},     {520, 130, 1, 1, 0, 0, 0, 0, 7, true, 1},
      {67, 301, 3, 9, 33, 64, 0, 8, 3, false, 1},
  };
  uint32_t seed = 9100;
  for (const Case& k : cases) {
    ++seed;
    SCOPED_TRACE("seed " + std::to_string(seed) + " " + std::to_string(k.w) + "x" +
                 std::to_string(k.h) + (k.irreversible ? " 9/7" : " 5/3") + " levels " +
                 std::to_string(k.levels) + " reduce " + std::to_string(k.reduce));
    std::mt19937 rng(seed);
    Image src;
    src.x0 = k.x0;
    src.y0 = k.y0;
    src.x1 = k.x0 + k.w;
    src.y1 = k.y0 + k.h;
    src.components.resize(3);
    for (size_t c = 0; c < 3; ++c) {
      auto& comp = src.components[c];
      comp.dx = comp.dy = c == 2 ? 2 : 1;  // one subsampled component: no MCT
      comp.width = (src.x1 + comp.dx - 1) / comp.dx - (src.x0 + comp.dx - 1) / comp.dx;
      comp.height = (src.y1 + comp.dy - 1) / comp.dy - (src.y0 + comp.dy - 1) / comp.dy;
      comp.precision = 10;
      comp.samples.resize(size_t{comp.width} * comp.height);
      std::uniform_int_distribution<int32_t> d(0, 1023);
      for (auto& v : comp.samples) v = d(rng);
    }
    gj2k::EncodeParams ep;
    ep.irreversible = k.irreversible;
    ep.levels = k.levels;
    ep.tile_width = k.tw;
    ep.tile_height = k.th;
    ep.tile_x0 = k.tx0;
    ep.tile_y0 = k.ty0;
    ep.device = gj2k::EncodeParams::Device::kCpu;
    const std::vector<uint8_t> bytes = gj2k::Encoder().encode(src, ep);
    const Image cpu = decode_on(bytes, DecodeDevice::kCpu, k.reduce);
    if (!k.irreversible && k.reduce == 0) {
      ASSERT_EQ(peak_difference(src, cpu), 0);
    }
    if (!gj2k::transform::gpu_info().available) continue;
    const Image gpu = decode_on(bytes, DecodeDevice::kGpu, k.reduce);
    const int64_t peak = peak_difference(cpu, gpu);
    ASSERT_GE(peak, 0) << "shapes differ";
    EXPECT_LE(peak, k.irreversible ? 1 : 0);
  }
  GJ2K_REQUIRE_GPU();
}

#ifdef GJ2K_HAVE_OPENJPEG
Image random_image(uint32_t w, uint32_t h, uint32_t ncomp, uint32_t precision, uint32_t x0,
                   uint32_t y0, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> d(0, (1 << precision) - 1);
  Image im;
  im.x0 = x0;
  im.y0 = y0;
  im.x1 = x0 + w;
  im.y1 = y0 + h;
  im.components.resize(ncomp);
  for (auto& c : im.components) {
    c.width = w;
    c.height = h;
    c.precision = precision;
    c.samples.resize(size_t{w} * h);
    // Smooth ramps plus noise, so that the coefficients span many bit-planes.
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x)
        c.samples[size_t{y} * w + x] = std::clamp<int32_t>(
            int32_t((x * 3 + y * 5) % (1 << precision)) / 2 + d(rng) / 2, 0, (1 << precision) - 1);
  }
  return im;
}

// OpenJPEG-made streams with tiles, odd image and tile origins, several levels: 5/3 exact,
// 9/7 within 1, at full and reduced resolution.
TEST(DecodeGpu, TiledOddOriginStreamsMatchCpu) {
  struct Case {
    uint32_t w, h, ncomp, precision, x0, y0, tw, th, tx0, ty0, levels;
    bool irreversible;
    uint32_t reduce;
  };
  const Case cases[] = {
      {301, 203, 3, 8, 7, 5, 128, 96, 3, 2, 4, false, 0},
      {301, 203, 3, 8, 7, 5, 128, 96, 3, 2, 4, true, 0},
      {257, 129, 1, 12, 33, 17, 64, 64, 1, 0, 5, false, 1},
      {257, 129, 1, 12, 33, 17, 64, 64, 1, 0, 5, true, 2},
      {640, 480, 3, 8, 0, 0, 0, 0, 0, 0, 6, false, 0},
      {640, 480, 3, 8, 0, 0, 0, 0, 0, 0, 6, true, 0},
      {95, 333, 2, 16, 3, 11, 50, 70, 2, 5, 3, false, 0},
  };
  auto trace = [](const Case& k, uint32_t seed) {
    return "seed " + std::to_string(seed) + " " + std::to_string(k.w) + "x" + std::to_string(k.h) +
           (k.irreversible ? " 9/7" : " 5/3") + " levels " + std::to_string(k.levels) + " reduce " +
           std::to_string(k.reduce);
  };
  // Streams and CPU decodes first (checked lossless where they should be), so that this half
  // runs on machines without a GPU too.
  std::vector<std::vector<uint8_t>> streams;
  std::vector<Image> cpu;
  uint32_t seed = 7001;
  for (const Case& k : cases) {
    ++seed;
    SCOPED_TRACE(trace(k, seed));
    const Image src = random_image(k.w, k.h, k.ncomp, k.precision, k.x0, k.y0, seed);
    streams.push_back(gj2k::test::opj::encode(src, [&](opj_cparameters_t& p) {
      p.numresolution = static_cast<int>(k.levels) + 1;
      p.irreversible = k.irreversible ? 1 : 0;
      p.tcp_mct = k.ncomp >= 3 ? 1 : 0;
      if (k.tw) {
        p.tile_size_on = OPJ_TRUE;
        p.cp_tdx = static_cast<int>(k.tw);
        p.cp_tdy = static_cast<int>(k.th);
        p.cp_tx0 = static_cast<int>(k.tx0);
        p.cp_ty0 = static_cast<int>(k.ty0);
      }
    }));
    cpu.push_back(decode_on(streams.back(), DecodeDevice::kCpu, k.reduce));
    if (!k.irreversible && k.reduce == 0) {
      ASSERT_EQ(peak_difference(src, cpu.back()), 0);
    }
  }
  GJ2K_REQUIRE_GPU();
  seed = 7001;
  for (size_t i = 0; i < std::size(cases); ++i) {
    const Case& k = cases[i];
    ++seed;
    SCOPED_TRACE(trace(k, seed));
    const Image gpu = decode_on(streams[i], DecodeDevice::kGpu, k.reduce);
    const int64_t peak = peak_difference(cpu[i], gpu);
    ASSERT_GE(peak, 0) << "shapes differ";
    EXPECT_LE(peak, k.irreversible ? 1 : 0);
  }
}
#endif

}  // namespace
