// Decoding into a caller's buffer on the GPU (Decoder::decode_into with DecodeDevice::kGpu: the
// tiles' samples packed on the device, transform/cuda/pack_cuda.h, and only the packed bytes
// downloaded) against the CPU's decode_into: identical bytes for 5/3 and 9/7 streams, every
// sample type and layout, tiles, reduce, region, component selection, signed and 16-bit
// components. The pack kernel against transform::pack_rect, its CPU reference, and the colour
// kernels fused with packing (rct_inverse_pack, ict_inverse_pack) against the colour kernels
// followed by the pack kernel, with guard bytes around.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "gj2k/decoder.h"
#include "gj2k/encoder.h"
#include "gpu/gpu_test_util.h"
#include "transform/pack.h"

#if defined(GJ2K_HAVE_CUDA)
#include "transform/cuda/cuda_memory.h"
#include "transform/cuda/mct_cuda.h"
#include "transform/cuda/pack_cuda.h"
#endif

namespace {

using gj2k::DecodeDevice;
using gj2k::DecodeParams;
using gj2k::Image;
using gj2k::OutputBuffer;
using gj2k::SampleType;

// A seeded image of `nc` components of `precision` bits with smooth structure and noise.
Image make_image(uint32_t w, uint32_t h, uint32_t nc, uint32_t precision, bool is_signed,
                 uint32_t seed, std::vector<std::pair<uint32_t, uint32_t>> sub = {}) {
  Image im;
  im.x1 = w;
  im.y1 = h;
  for (uint32_t c = 0; c < nc; ++c) {
    gj2k::Component comp;
    comp.precision = precision;
    comp.is_signed = is_signed;
    if (c < sub.size()) std::tie(comp.dx, comp.dy) = sub[c];
    im.components.push_back(comp);
  }
  gj2k::allocate_components(im);
  std::mt19937 rng(seed);
  for (gj2k::Component& comp : im.components) {
    const int64_t lo = comp.min_value(), hi = comp.max_value();
    for (uint32_t y = 0; y < comp.height; ++y)
      for (uint32_t x = 0; x < comp.width; ++x) {
        const int64_t v = lo + (int64_t{x} * 37 + int64_t{y} * 11) % (hi - lo + 1) +
                          static_cast<int64_t>(rng() % 7);
        comp.at(x, y) = static_cast<int32_t>(std::min(v, hi));
      }
  }
  return im;
}

// decode_into on `device` into a buffer of the given format (padding 3 bytes per row).
std::vector<uint8_t> decode_into(const std::vector<uint8_t>& stream, DecodeParams p,
                                 DecodeDevice device, SampleType type, bool interleaved,
                                 bool big_endian) {
  p.device = device;
  gj2k::Decoder dec(stream);
  const std::optional<Image> shape = dec.direct_output(p);
  EXPECT_TRUE(shape.has_value());
  if (!shape) return {};
  OutputBuffer out;
  out.type = type;
  out.interleaved = interleaved;
  out.big_endian = big_endian;
  uint32_t width = 0;
  for (const gj2k::Component& c : shape->components) width = std::max(width, c.width);
  const size_t pixel = static_cast<size_t>(type) * (interleaved ? shape->components.size() : 1);
  out.row_stride = width * pixel + 3;
  const size_t size = gj2k::output_bytes(*shape, out);
  std::vector<uint8_t> bytes(size + 16, 0xCD);
  out.data = bytes.data() + 8;
  out.size = size;
  dec.decode_into(p, out);
  return bytes;
}

TEST(DecodeIntoGpu, EqualsCpuDecodeInto) {
  GJ2K_REQUIRE_GPU();
  struct Stream {
    std::string name;
    std::vector<uint8_t> bytes;
    bool same_size = true;
    uint32_t precision = 8;
  };
  std::vector<Stream> streams;
  gj2k::EncodeParams ep;
  ep.device = gj2k::EncodeParams::Device::kCpu;
  ep.tile_width = 96;
  ep.tile_height = 80;
  ep.levels = 3;
  streams.push_back(
      {"rgb 8-bit tiles", gj2k::Encoder().encode(make_image(250, 170, 3, 8, false, 1), ep)});
  ep.tile_width = ep.tile_height = 0;
  streams.push_back({"grey 16-bit signed",
                     gj2k::Encoder().encode(make_image(131, 77, 1, 16, true, 2), ep), true, 16});
  streams.push_back({"12-bit 4 components",
                     gj2k::Encoder().encode(make_image(99, 64, 4, 12, false, 3), ep), true, 12});
  gj2k::EncodeParams lossy = ep;
  lossy.irreversible = true;
  lossy.rates = {8};
  streams.push_back(
      {"rgb 8-bit 9/7", gj2k::Encoder().encode(make_image(203, 117, 3, 8, false, 5), lossy)});
  streams.push_back(
      {"subsampled chroma",
       gj2k::Encoder().encode(make_image(120, 90, 3, 8, false, 4, {{1, 1}, {2, 2}, {2, 2}}), ep),
       false});
  for (const Stream& s : streams) {
    std::vector<DecodeParams> params(4);
    params[1].reduce = 1;
    params[2].region = gj2k::Region{7, 5, 91, 61};
    params[3].components = {0};
    for (size_t i = 0; i < params.size(); ++i)
      for (SampleType type : {SampleType::k8, SampleType::k16, SampleType::k32})
        for (bool interleaved : {false, true}) {
          if (static_cast<uint32_t>(type) * 8 < s.precision) continue;
          if (interleaved && !s.same_size && params[i].components.empty()) continue;
          const bool be = type != SampleType::k8 && interleaved;
          SCOPED_TRACE(s.name + ", params " + std::to_string(i) + ", type " +
                       std::to_string(static_cast<int>(type)) +
                       (interleaved ? " interleaved" : " planar"));
          const auto cpu =
              decode_into(s.bytes, params[i], DecodeDevice::kCpu, type, interleaved, be);
          const auto gpu =
              decode_into(s.bytes, params[i], DecodeDevice::kGpu, type, interleaved, be);
          ASSERT_EQ(cpu, gpu);
        }
  }
}

// A large interleaved output: 32-bit samples of a 1733 x 1699 RGB image (35.3 MB, five chunks
// of the staging ring's download, copied out in pieces by the pool's threads; rows padded, so
// that the pieces end inside rows), lossless and 9/7, equal to the CPU's bytes.
TEST(DecodeIntoGpu, LargeInterleavedOutput) {
  GJ2K_REQUIRE_GPU();
  const Image im = make_image(1733, 1699, 3, 8, false, 6);
  gj2k::EncodeParams ep;
  ep.device = gj2k::EncodeParams::Device::kCpu;
  gj2k::EncodeParams lossy = ep;
  lossy.irreversible = true;
  lossy.rates = {20};
  for (const auto& [name, stream] : {std::pair{"5/3", gj2k::Encoder().encode(im, ep)},
                                     std::pair{"9/7", gj2k::Encoder().encode(im, lossy)}}) {
    SCOPED_TRACE(name);
    const auto cpu =
        decode_into(stream, DecodeParams{}, DecodeDevice::kCpu, SampleType::k32, true, false);
    const auto gpu =
        decode_into(stream, DecodeParams{}, DecodeDevice::kGpu, SampleType::k32, true, false);
    ASSERT_GT(cpu.size(), size_t{32} << 20);
    EXPECT_TRUE(cpu == gpu) << "decode_into's bytes differ";
  }
}

#if defined(GJ2K_HAVE_CUDA)
// The pack kernel against transform::pack_rect: every width and byte order, odd sizes,
// interleaved strides, extremes of int32, guard bytes around the destination.
TEST(DecodeIntoGpu, PackKernelMatchesCpuReference) {
  GJ2K_REQUIRE_GPU();
  namespace cu = gj2k::transform::cuda;
  const uint32_t seed = 20261124;
  std::mt19937 rng(seed);
  for (uint32_t bytes : {1u, 2u, 4u})
    for (bool be : {false, true})
      for (uint32_t w : {1u, 63u, 65u, 300u})
        for (uint32_t h : {1u, 3u, 70u}) {
          SCOPED_TRACE("seed " + std::to_string(seed) + " bytes " + std::to_string(bytes) +
                       (be ? " BE " : " LE ") + std::to_string(w) + "x" + std::to_string(h));
          const size_t pitch = w + 5, pixel = bytes * 2, row = w * pixel + 3;
          std::vector<int32_t> src(pitch * h);
          for (size_t i = 0; i < src.size(); ++i)
            src[i] = i % 5 == 0 ? INT32_MIN : i % 5 == 1 ? -1 : static_cast<int32_t>(rng());
          const size_t size = row * h + 16;
          std::vector<uint8_t> want(size, 0xCD), got(size);
          const gj2k::transform::PackRect r{w, h, pitch, row, pixel};
          gj2k::transform::pack_rect(src.data(), want.data() + 8, r, {bytes, be}, 1);
          cu::DeviceBuffer d_src(src.size() * 4), d_dst(size);
          GJ2K_CUDA_CHECK(
              cudaMemcpy(d_src.get(), src.data(), src.size() * 4, cudaMemcpyHostToDevice));
          GJ2K_CUDA_CHECK(cudaMemset(d_dst.get(), 0xCD, size));
          cu::pack_rect(d_src.as<int32_t>(), d_dst.as<uint8_t>() + 8, r, {bytes, be}, nullptr);
          GJ2K_CUDA_CHECK(cudaMemcpy(got.data(), d_dst.get(), size, cudaMemcpyDeviceToHost));
          ASSERT_EQ(got, want);
        }
}

// rct_inverse_pack / ict_inverse_pack against rct_inverse_dc_shift / ict_inverse_dc_shift
// followed by pack_rect of each component: the same bytes, every width and byte order, odd
// sizes and pitches, the components in another order inside a pixel with a gap byte, values
// beyond the clamp bounds, guard bytes around.
TEST(DecodeIntoGpu, ColourPackMatchesColourThenPack) {
  GJ2K_REQUIRE_GPU();
  namespace cu = gj2k::transform::cuda;
  const uint32_t seed = 20261129;
  std::mt19937 rng(seed);
  for (bool ict : {false, true})
    for (uint32_t bytes : {1u, 2u, 4u})
      for (bool be : {false, true})
        for (uint32_t w : {1u, 67u, 300u})
          for (uint32_t h : {1u, 5u, 70u}) {
            SCOPED_TRACE("seed " + std::to_string(seed) + (ict ? " ICT" : " RCT") + " bytes " +
                         std::to_string(bytes) + (be ? " BE " : " LE ") + std::to_string(w) + "x" +
                         std::to_string(h));
            const size_t pitch = w + 3, n = pitch * h;
            std::vector<int32_t> planes(3 * n);  // 9/7: the floats' bits
            for (size_t i = 0; i < planes.size(); ++i) {
              const int32_t v = static_cast<int32_t>(rng() % 1201) - 600;
              if (!ict) {
                planes[i] = v;
              } else {
                const float f = static_cast<float>(v) + static_cast<float>(rng() % 64) / 64.0f;
                std::memcpy(&planes[i], &f, 4);
              }
            }
            cu::Int3 off{{128, 2048, -5}}, lo{{0, 0, -100}}, hi{{255, 4095, 100}};
            if (bytes == 1) off.v[1] = 0, lo.v[1] = -128, hi.v[1] = 127;
            const size_t pixel = 3 * bytes + 1, row = w * pixel + 5;
            const cu::Int3 at{{int32_t(2 * bytes), 0, int32_t(bytes)}};
            const gj2k::transform::PackRect r{w, h, pitch, row, pixel};
            const size_t size = row * h + 16;
            cu::DeviceBuffer d_src(planes.size() * 4), d_int(planes.size() * 4), d_want(size),
                d_got(size);
            GJ2K_CUDA_CHECK(
                cudaMemcpy(d_src.get(), planes.data(), planes.size() * 4, cudaMemcpyHostToDevice));
            GJ2K_CUDA_CHECK(cudaMemset(d_want.get(), 0xCD, size));
            GJ2K_CUDA_CHECK(cudaMemset(d_got.get(), 0xCD, size));
            int32_t* s0 = d_src.as<int32_t>();
            int32_t* c0 = d_int.as<int32_t>();
            if (ict) {
              const float* f0 = d_src.as<float>();
              cu::ict_inverse_dc_shift(f0, f0 + n, f0 + 2 * n, c0, c0 + n, c0 + 2 * n, n, off, lo,
                                       hi, nullptr);
              cu::ict_inverse_pack(f0, f0 + n, f0 + 2 * n, d_got.as<uint8_t>() + 8, r, {bytes, be},
                                   at, off, lo, hi, nullptr);
            } else {
              GJ2K_CUDA_CHECK(cudaMemcpy(c0, s0, planes.size() * 4, cudaMemcpyDeviceToDevice));
              cu::rct_inverse_dc_shift(c0, c0 + n, c0 + 2 * n, n, off, lo, hi, nullptr);
              cu::rct_inverse_pack(s0, s0 + n, s0 + 2 * n, d_got.as<uint8_t>() + 8, r, {bytes, be},
                                   at, off, lo, hi, nullptr);
            }
            for (size_t c = 0; c < 3; ++c)
              cu::pack_rect(c0 + c * n, d_want.as<uint8_t>() + 8 + at.v[c], r, {bytes, be},
                            nullptr);
            std::vector<uint8_t> want(size), got(size);
            GJ2K_CUDA_CHECK(cudaMemcpy(want.data(), d_want.get(), size, cudaMemcpyDeviceToHost));
            GJ2K_CUDA_CHECK(cudaMemcpy(got.data(), d_got.get(), size, cudaMemcpyDeviceToHost));
            ASSERT_EQ(got, want);
          }
}
#endif

}  // namespace
