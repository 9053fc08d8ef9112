// Encoder::encode(layout, InputBuffer): cases shared by the CPU test (tests/codec) and the GPU
// test (tests/gpu). Each case packs a seeded image into a caller's buffer by InputBuffer's
// formula (written here from the header's contract, sample by sample) and expects the bytes of
// encode() of the image itself.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "gj2k/encoder.h"
#include "gj2k/image.h"
#include "tests/codec/encode_test_util.h"

namespace gj2k::test {

struct InputCase {
  const char* name;
  uint32_t w, h, nc, precision;
  bool is_signed;
  uint32_t x0, y0;
  std::vector<std::pair<uint32_t, uint32_t>> sub;
  InputBuffer layout;  // data and size are filled by pack_input
  EncodeParams params;
};

// `image` written into a buffer as `layout` says (sample (x, y) of component k at
// k * plane_stride + y * row_stride + x * bytes planar, y * row_stride + (x * nc + k) * bytes
// interleaved; strides of 0 packed); bytes that hold no sample are 0xEE.
inline std::vector<uint8_t> pack_input(const Image& image, InputBuffer& layout) {
  const size_t bytes = static_cast<size_t>(layout.type);
  const size_t nc = image.components.size();
  uint32_t w = 0, h = 0;
  for (const Component& c : image.components) {
    w = std::max(w, c.width);
    h = std::max(h, c.height);
  }
  const size_t pixel = layout.interleaved ? bytes * nc : bytes;
  const size_t row = layout.row_stride ? layout.row_stride : w * pixel;
  const size_t plane = layout.interleaved ? 0 : layout.plane_stride ? layout.plane_stride : row * h;
  const size_t size =
      layout.interleaved ? row * (h - 1) + w * pixel : plane * (nc - 1) + row * (h - 1) + w * pixel;
  std::vector<uint8_t> out(size, 0xEE);
  for (size_t k = 0; k < nc; ++k) {
    const Component& c = image.components[k];
    for (uint32_t y = 0; y < c.height; ++y)
      for (uint32_t x = 0; x < c.width; ++x) {
        const size_t at =
            layout.interleaved ? y * row + (x * nc + k) * bytes : k * plane + y * row + x * bytes;
        const uint32_t v = static_cast<uint32_t>(c.at(x, y));
        for (size_t b = 0; b < bytes; ++b) {
          const size_t shift = 8 * (layout.big_endian ? bytes - 1 - b : b);
          out[at + b] = static_cast<uint8_t>(v >> shift);
        }
      }
  }
  layout.size = out.size();
  return out;
}

// The image's geometry without its samples.
inline Image layout_of(const Image& image) {
  Image layout = image;
  for (Component& c : layout.components) Samples().swap(c.samples);
  return layout;
}

inline InputBuffer buffer(SampleType type, bool interleaved, bool big_endian = false,
                          size_t row_stride = 0, size_t plane_stride = 0) {
  InputBuffer b;
  b.type = type;
  b.interleaved = interleaved;
  b.big_endian = big_endian;
  b.row_stride = row_stride;
  b.plane_stride = plane_stride;
  return b;
}

inline std::vector<InputCase> input_cases() {
  using enum SampleType;
  std::vector<InputCase> v;
  EncodeParams p;  // 5/3
  EncodeParams q;
  q.irreversible = true;
  q.rates = {12};
  EncodeParams i = q;  // 9/7, every pass
  i.rates.clear();
  EncodeParams tiles = q;
  tiles.tile_width = 32;
  tiles.tile_height = 20;
  EncodeParams t53 = p;
  t53.tile_width = 24;
  t53.tile_height = 16;
  EncodeParams psnr = i;
  psnr.psnr = {38};
  EncodeParams origin = p;
  origin.set_image_origin = true;
  origin.image_x0 = 7;
  origin.image_y0 = 11;
  EncodeParams nomct = i;
  nomct.mct = 0;
  const std::vector<std::pair<uint32_t, uint32_t>> none, chroma{{1, 1}, {2, 2}, {2, 2}};
  // clang-format off
  //  name                                         w   h nc prec signed x0 y0 sub     layout                                     params
  v.push_back({"rgb8 interleaved, 5/3 rct",           67, 45, 3, 8, false, 0, 0, none,   buffer(k8, true),                          p});
  v.push_back({"rgb8 interleaved, padded rows, 9/7",  67, 45, 3, 8, false, 0, 0, none,   buffer(k8, true, false, 67 * 3 + 5),       q});
  v.push_back({"rgb8 planar, 9/7",                    52, 31, 3, 8, false, 0, 0, none,   buffer(k8, false),                         i});
  v.push_back({"grey12 in 16-bit big-endian",         33, 71, 1, 12, false, 0, 0, none,  buffer(k16, false, true),                  p});
  v.push_back({"signed 10-bit x4, padded planes",     40, 29, 4, 10, true, 5, 3, none,   buffer(k16, false, false, 90, 90 * 29 + 7), p});
  v.push_back({"signed 8-bit interleaved, 9/7",       41, 27, 3, 8, true, 0, 0, none,    buffer(k8, true),                          q});
  v.push_back({"rgb8 subsampled chroma, planar",      65, 47, 3, 8, false, 1, 2, chroma, buffer(k8, false),                         p});
  v.push_back({"rgba16 interleaved, 9/7",             51, 38, 4, 16, false, 0, 0, none,  buffer(k16, true),                         i});
  v.push_back({"rgb16 interleaved big-endian",        37, 23, 3, 16, false, 0, 0, none,  buffer(k16, true, true),                   p});
  v.push_back({"rgb 8-bit in 16-bit interleaved",     45, 30, 3, 8, false, 0, 0, none,   buffer(k16, true),                         q});
  v.push_back({"rgb8 in 32-bit planar",               39, 26, 3, 8, false, 0, 0, none,   buffer(k32, false),                        p});
  v.push_back({"rgb8 interleaved, tiles, 9/7",        67, 45, 3, 8, false, 0, 0, none,   buffer(k8, true),                          tiles});
  v.push_back({"rgb8 interleaved, tiles, origin",     61, 43, 3, 8, false, 3, 5, none,   buffer(k8, true),                          t53});
  v.push_back({"rgb8 interleaved, --psnr",            67, 45, 3, 8, false, 0, 0, none,   buffer(k8, true),                          psnr});
  v.push_back({"rgb8 interleaved, --image-origin",    48, 33, 3, 8, false, 0, 0, none,   buffer(k8, true),                          origin});
  v.push_back({"rgb8 interleaved, no mct, 9/7",       52, 31, 3, 8, false, 0, 0, none,   buffer(k8, true),                          nomct});
  // clang-format on
  return v;
}

// Every case, on `device`: encode(layout, buffer) equals encode(image) on the CPU.
inline void expect_input_cases_match(EncodeParams::Device device) {
  uint32_t seed = 11;
  for (InputCase c : input_cases()) {
    SCOPED_TRACE(c.name);
    const Image image =
        random_image(c.w, c.h, c.nc, c.precision, c.is_signed, seed++, c.x0, c.y0, c.sub);
    EncodeParams cpu = c.params;
    cpu.device = EncodeParams::Device::kCpu;
    const std::vector<uint8_t> expected = Encoder().encode(image, cpu);
    const std::vector<uint8_t> bytes = pack_input(image, c.layout);
    c.layout.data = bytes.data();
    EncodeParams p = c.params;
    p.device = device;
    EncodeStats stats;
    const std::vector<uint8_t> got =
        Encoder().encode(layout_of(image), c.layout, p, FileFormat::kJ2k, &stats);
    EXPECT_EQ(got, expected);
    EXPECT_EQ(stats.gpu, device == EncodeParams::Device::kGpu);
  }
}

}  // namespace gj2k::test
