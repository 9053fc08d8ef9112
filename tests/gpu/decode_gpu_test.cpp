// The decoder's GPU tile tail (codec/tile_backend.h) against the CPU path: cuda_backend()
// against cpu_backend() on random coefficients, and whole decodes
// (DecodeDevice::kGpu against kCpu) of conformance streams and of OpenJPEG-made streams with
// tiles and odd origins.
// Results must be identical, 5/3 and 9/7: the default GPU DWT does the CPU's float operations
// in the CPU's order (transform/cuda/dwt_lift.cuh), and so do dequantization and the ICT.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "codec/synthetic.h"
#include "codec/tile_backend.h"
#include "common/random_planes.h"
#include "common/shared_data.h"
#include "gj2k/decoder.h"
#include "gj2k/encoder.h"
#include "gj2k/gj2k.h"
#include "gpu/gpu_test_util.h"
#if defined(GJ2K_HAVE_CUDA)
#include "transform/cuda/cuda_memory.h"
#endif

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

// `src` encoded on the CPU with the default parameters.
std::vector<uint8_t> cpu_encoded(const Image& src) {
  gj2k::EncodeParams ep;
  ep.device = gj2k::EncodeParams::Device::kCpu;
  return gj2k::Encoder().encode(src, ep);
}

// `bytes` decoded with `p` on the CPU and on the GPU: the samples are identical and the
// errors and warnings the same.
void expect_devices_agree(const std::vector<uint8_t>& bytes, DecodeParams p) {
  std::optional<Image> got[2];
  std::string error[2];
  std::vector<std::string> warnings[2];
  for (int d = 0; d < 2; ++d) {
    p.device = d ? DecodeDevice::kGpu : DecodeDevice::kCpu;
    p.on_warning = [&, d](const std::string& w) { warnings[d].push_back(w); };
    try {
      got[d] = gj2k::decode_memory(bytes, p);
    } catch (const gj2k::Error& e) {
      error[d] = e.what();
    }
  }
  ASSERT_EQ(error[1], error[0]);
  if (got[0]) {
    EXPECT_EQ(peak_difference(*got[0], *got[1]), 0);
  }
  EXPECT_EQ(warnings[1], warnings[0]);
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
      int64_t peak = 0;
      for (size_t i = 0; i < n; ++i)
        peak = std::max<int64_t>(peak, std::llabs(int64_t{got[c].samples[i]} - want[c].samples[i]));
      EXPECT_EQ(peak, 0) << "component " << c;
    }
  }
}

struct Stream {
  const char* name;
  uint32_t reduce;
};

std::vector<uint8_t> read_file(const std::filesystem::path& path) {
  std::vector<uint8_t> bytes(std::filesystem::file_size(path));
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return {};
  const size_t got = std::fread(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  bytes.resize(got);
  return bytes;
}

// Decodes on both devices: both throw (the same code and message), or the images are identical.
void expect_same_decode(const std::vector<uint8_t>& bytes, DecodeParams p, bool reversible) {
  p.device = DecodeDevice::kCpu;
  std::optional<Image> cpu;
  std::string cpu_error, gpu_error;
  try {
    cpu = gj2k::decode_memory(bytes, p);
  } catch (const gj2k::Error& e) {
    cpu_error = e.what();
  }
  p.device = DecodeDevice::kGpu;
  std::optional<Image> gpu;
  try {
    gpu = gj2k::decode_memory(bytes, p);
  } catch (const gj2k::Error& e) {
    gpu_error = e.what();
  }
  ASSERT_EQ(gpu_error, cpu_error);
  if (!cpu) return;
  const int64_t peak = peak_difference(*cpu, *gpu);
  ASSERT_GE(peak, 0) << "shapes differ";
  EXPECT_EQ(peak, 0) << (reversible ? "5/3" : "9/7");
}

// Every conformance stream (15444-4 input: j2k, j2c and JP2): GPU decode against CPU decode,
// and a few at reduced resolution, identical.
TEST(DecodeGpu, ConformanceStreamsMatchCpu) {
  GJ2K_REQUIRE_GPU();
  GJ2K_REQUIRE_SHARED("conformance/input/p0_01.j2k");
  std::vector<std::filesystem::path> paths;
  for (const auto& e :
       std::filesystem::directory_iterator(gj2k::test::shared_dir() / "conformance/input")) {
    const std::string ext = e.path().extension().string();
    if (ext == ".j2k" || ext == ".j2c" || ext == ".jp2") paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());
  const Stream reduced[] = {{"p0_08", 1}, {"p1_04", 1}, {"p0_03", 2}};
  int checked = 0;
  for (const auto& path : paths) {
    SCOPED_TRACE(path.filename().string());
    const std::vector<uint8_t> bytes = read_file(path);
    bool reversible = false;
    try {
      reversible = gj2k::Decoder(path).read_header().reversible;
    } catch (const gj2k::Error&) {
    }
    DecodeParams p;
    expect_same_decode(bytes, p, reversible);
    for (const Stream& s : reduced)
      if (path.stem() == s.name) {
        SCOPED_TRACE("reduce " + std::to_string(s.reduce));
        p.reduce = s.reduce;
        expect_same_decode(bytes, p, reversible);
      }
    ++checked;
  }
  EXPECT_GT(checked, 40);
}

// release_gpu_resources frees the pooled tile slots a GPU decode left (at least one), the next
// GPU decode makes them again and decodes the same samples; nothing is left to free after a
// second release but what that decode pooled.
TEST(DecodeGpu, ReleaseGpuResourcesAndDecodeAgain) {
  GJ2K_REQUIRE_GPU();
  const Image src = gj2k::codec::synthetic_image(301, 199);
  const std::vector<uint8_t> bytes = cpu_encoded(src);
  const Image first = decode_on(bytes, DecodeDevice::kGpu, 0);
  EXPECT_GE(gj2k::release_gpu_resources(), 1u);
  EXPECT_EQ(gj2k::release_gpu_resources(), 0u);
  const Image again = decode_on(bytes, DecodeDevice::kGpu, 0);
  EXPECT_EQ(peak_difference(src, first), 0);
  EXPECT_EQ(peak_difference(first, again), 0);
  EXPECT_GE(gj2k::release_gpu_resources(), 1u);
}

// Decodes one after another reuse the pooled slot: each decoder's warm-up adds slots only
// where the pool has too few free, so the pool holds one slot after six one-tile decodes
// (before, each warm-up added its own: six slots of device and pinned memory).
TEST(DecodeGpu, RepeatedDecodesReuseTheirSlot) {
  GJ2K_REQUIRE_GPU();
  const Image src = gj2k::codec::synthetic_image(257, 131);
  const std::vector<uint8_t> bytes = cpu_encoded(src);
  gj2k::release_gpu_resources();
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(peak_difference(src, decode_on(bytes, DecodeDevice::kGpu, 0)), 0);
  EXPECT_EQ(gj2k::release_gpu_resources(), 1u);
}

// A tile for which the device has no memory (here GJ2K_GPU_MEMORY_LIMIT's limit, set below
// what the pool's empty slot needs) decodes on the CPU with the same samples and a warning,
// instead of failing the decode.
TEST(DecodeGpu, OutOfDeviceMemoryDecodesOnTheCpu) {
  GJ2K_REQUIRE_GPU();
#if defined(GJ2K_HAVE_CUDA)
  namespace cu = gj2k::transform::cuda;
  const Image src = gj2k::codec::synthetic_image(301, 199);
  const std::vector<uint8_t> bytes = cpu_encoded(src);
  gj2k::release_gpu_resources();
  cu::set_device_memory_limit(cu::device_memory_use().current + 4096);
  std::vector<std::string> warnings;
  DecodeParams p;
  p.device = DecodeDevice::kGpu;
  p.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  const Image got = gj2k::decode_memory(bytes, p);
  cu::set_device_memory_limit(0);
  EXPECT_EQ(peak_difference(src, got), 0);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("out of memory, decoded on the CPU"), std::string::npos)
      << warnings[0];
  gj2k::release_gpu_resources();
#endif
}

// Damaged streams of every code-block style (gj2k's encoder, 5/3 and 9/7, several layers):
// truncated and with corrupted code-block data, decoded with and without allow_partial. The
// GPU decode checks each block as the CPU's Tier-1 does, so both throw the same errors or
// decode the same samples.
TEST(DecodeGpu, DamagedStreamsMatchCpu) {
  GJ2K_REQUIRE_GPU();
  const Image src = gj2k::codec::synthetic_image(203, 157);
  const uint8_t styles[] = {0, 1, 2, 4, 8, 16, 32, 1 | 4 | 32, 2 | 8 | 16};
  uint32_t seed = 5150;
  for (const uint8_t style : styles)
    for (const bool irreversible : {false, true}) {
      ++seed;
      gj2k::EncodeParams ep;
      ep.irreversible = irreversible;
      ep.cblk_style = style;
      ep.levels = 4;
      ep.rates = {40, 10, 1};
      ep.device = gj2k::EncodeParams::Device::kCpu;
      const std::vector<uint8_t> good = gj2k::Encoder().encode(src, ep);
      std::mt19937 rng(seed);
      for (int k = 0; k < 4; ++k) {
        std::vector<uint8_t> bad = good;
        if (k < 2) {
          bad.resize(bad.size() * (k == 0 ? 60 : 90) / 100);
        } else {
          for (int i = 0; i < 40; ++i)
            bad[bad.size() / 4 + rng() % (bad.size() * 3 / 4)] ^= 1 << (rng() % 8);
        }
        SCOPED_TRACE("style " + std::to_string(style) + (irreversible ? " 9/7" : " 5/3") +
                     " damage " + std::to_string(k) + " seed " + std::to_string(seed));
        DecodeParams p;
        expect_same_decode(bad, p, !irreversible);
        p.allow_partial = true;
        expect_same_decode(bad, p, !irreversible);
      }
    }
}

// Large tiles once the GPU is started decode in two parts (codec/decoder_tile.cpp,
// decode_tile_gpu_in_parts: Tier-1 of the resolutions Tier-2 has finished launched while it
// reads the rest; 9,216 code-blocks of 16 x 16 here, over the 8,192 that take parts): the same
// samples as the CPU, and the same errors and warnings, for resolution-first and component-first
// orders, several layers, precincts, SOP and EPH, and truncated and damaged streams.
TEST(DecodeGpu, LargeTilesInPartsMatchCpu) {
  GJ2K_REQUIRE_GPU();
  // The GPU started (the first decode of a process overlaps its start-up instead of parts).
  const Image small = gj2k::codec::synthetic_image(64, 48);
  ASSERT_EQ(peak_difference(small, decode_on(cpu_encoded(small), DecodeDevice::kGpu, 0)), 0);
  const Image src = gj2k::codec::synthetic_image(1024, 768);
  struct Case {
    const char* name;
    gj2k::ProgressionOrder order;
    bool irreversible;
    std::vector<double> rates;
    bool precincts_sop_eph;
  };
  const Case cases[] = {
      {"lossless LRCP", gj2k::ProgressionOrder::kLRCP, false, {}, false},
      {"9/7 RLCP three layers", gj2k::ProgressionOrder::kRLCP, true, {40, 12, 4}, false},
      {"9/7 LRCP three layers", gj2k::ProgressionOrder::kLRCP, true, {40, 12, 4}, false},
      {"lossless CPRL precincts SOP EPH", gj2k::ProgressionOrder::kCPRL, false, {}, true},
      {"9/7 RPCL precincts SOP EPH", gj2k::ProgressionOrder::kRPCL, true, {20}, true},
  };
  uint32_t seed = 7070;
  for (const Case& c : cases) {
    gj2k::EncodeParams ep;
    ep.device = gj2k::EncodeParams::Device::kCpu;
    ep.cblk_width = ep.cblk_height = 16;
    ep.order = c.order;
    ep.irreversible = c.irreversible;
    ep.rates = c.rates;
    if (c.precincts_sop_eph) {
      ep.precincts = {{128, 128}, {64, 64}};
      ep.sop = ep.eph = true;
    }
    const std::vector<uint8_t> good = gj2k::Encoder().encode(src, ep);
    std::mt19937 rng(++seed);
    for (int k = 0; k < 4; ++k) {
      std::vector<uint8_t> bytes = good;
      if (k == 1) bytes.resize(bytes.size() * 7 / 10);
      if (k >= 2)
        for (int i = 0; i < 30; ++i)
          bytes[bytes.size() / 8 + rng() % (bytes.size() * 7 / 8)] ^= 1 << (rng() % 8);
      SCOPED_TRACE(std::string(c.name) + " damage " + std::to_string(k) + " seed " +
                   std::to_string(seed));
      for (const bool partial : {false, true}) {
        if (k == 0 && partial) continue;
        DecodeParams p;
        p.allow_partial = partial;
        expect_devices_agree(bytes, p);
      }
    }
  }
}

// The costliest blocks decoded on the host beside a thread-per-block Tier-1 launch
// (entropy::cuda::HostShare), forced to none, one, some and all of them per launch, in one
// launch (a small tile) and in two parts (a large one): samples, errors and warnings equal to
// the CPU decode's, lossless and 9/7, whole, truncated and damaged; the host decoded blocks
// exactly where forced to.
TEST(DecodeGpu, HostShareOfTier1MatchesCpu) {
#if defined(GJ2K_HAVE_CUDA)
  GJ2K_REQUIRE_GPU();
  using gj2k::test::ScopedEnv;
  const ScopedEnv threads("GJ2K_GPU_T1_MAPPING", "threads");
  const Image small = gj2k::codec::synthetic_image(64, 48);  // the GPU started (parts on)
  ASSERT_EQ(peak_difference(small, decode_on(cpu_encoded(small), DecodeDevice::kGpu, 0)), 0);
  uint32_t seed = 9090;
  for (const bool irreversible : {false, true})
    for (const uint32_t size : {300u, 1024u}) {
      const Image src = gj2k::codec::synthetic_image(size, size * 3 / 4);
      gj2k::EncodeParams ep;
      ep.device = gj2k::EncodeParams::Device::kCpu;
      ep.cblk_width = ep.cblk_height = 16;
      ep.irreversible = irreversible;
      if (irreversible) ep.rates = {40, 12, 4};
      const std::vector<uint8_t> good = gj2k::Encoder().encode(src, ep);
      std::mt19937 rng(++seed);
      for (int k = 0; k < 3; ++k) {
        std::vector<uint8_t> bytes = good;
        if (k == 1) bytes.resize(bytes.size() * 6 / 10);
        if (k == 2)
          for (int i = 0; i < 20; ++i)
            bytes[bytes.size() / 8 + rng() % (bytes.size() * 7 / 8)] ^= 1 << (rng() % 8);
        for (const char* forced : {"off", "1", "37", "1000000"}) {
          SCOPED_TRACE(std::string(irreversible ? "9/7 " : "5/3 ") + std::to_string(size) +
                       " damage " + std::to_string(k) + " host " + forced);
          const ScopedEnv share("GJ2K_GPU_T1_HOST", forced);
          DecodeParams p;
          p.allow_partial = k > 0;
          const uint64_t before = gj2k::codec::gpu_decode_host_blocks();
          expect_devices_agree(bytes, p);
          const uint64_t host = gj2k::codec::gpu_decode_host_blocks() - before;
          const std::string f = forced;
          if (f == "off") {
            EXPECT_EQ(host, 0u);
          } else {
            // At least the forced count (each part of a tile in parts takes it); "1000000":
            // every block of every launch.
            EXPECT_GE(host, f == "1" ? 1u : f == "37" ? 37u : 38u);
          }
        }
      }
    }
#endif
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
    EXPECT_EQ(peak, 0);
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
    EXPECT_EQ(peak, 0);
  }
}
#endif

}  // namespace
