// The PNG, BMP and TGA readers on damaged input (JPEG: io_bmp_tga_jpeg_test.cpp): every truncation
// and random byte changes either read or throw gj2k::Error -- no crash, no other exception, no huge
// allocation.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "codec/synthetic.h"
#include "gj2k/gj2k.h"
#include "io/image_io.h"

namespace gj2k {
namespace {

using Reader = std::function<Image(std::span<const uint8_t>)>;

void survives(const std::vector<uint8_t>& good, const Reader& read, const char* what) {
  SCOPED_TRACE(what);
  ASSERT_NO_THROW(read(good));
  auto attempt = [&](std::span<const uint8_t> bytes) {
    try {
      read(bytes);
    } catch (const Error&) {
    }
  };
  for (size_t n = 0; n < good.size(); n += 1 + n / 16) attempt(std::span(good).first(n));
  std::mt19937 rng(11);
  for (int round = 0; round < 300; ++round) {
    auto bad = good;
    for (int k = 0; k < 1 + round % 4; ++k) bad[rng() % bad.size()] = static_cast<uint8_t>(rng());
    attempt(bad);
  }
}

std::vector<uint8_t> tga_rle(const Image& image) {
  std::vector<uint8_t> f(18, 0);
  f[2] = 10;
  f[12] = static_cast<uint8_t>(image.width());
  f[14] = static_cast<uint8_t>(image.height());
  f[16] = 24;
  for (uint32_t y = 0; y < image.height(); ++y)
    for (uint32_t x = 0; x < image.width(); ++x) {
      f.push_back(0x00);  // a raw packet of one pixel, BGR
      for (int c = 2; c >= 0; --c) f.push_back(static_cast<uint8_t>(image.components[c].at(x, y)));
    }
  return f;
}

std::vector<uint8_t> bmp24(const Image& image) {
  const uint32_t w = image.width(), h = image.height(), stride = (w * 3 + 3) & ~3u;
  std::vector<uint8_t> f(54 + stride * h, 0);
  auto le = [&](size_t at, uint32_t v, int n) {
    for (int k = 0; k < n; ++k) f[at + k] = static_cast<uint8_t>(v >> (8 * k));
  };
  f[0] = 'B';
  f[1] = 'M';
  le(10, 54, 4);
  le(14, 40, 4);
  le(18, w, 4);
  le(22, h, 4);
  le(26, 1, 2);
  le(28, 24, 2);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c)
        f[54 + (h - 1 - y) * stride + x * 3 + c] =
            static_cast<uint8_t>(image.components[2 - c].at(x, y));
  return f;
}

TEST(IoReaderRobust, DamagedFilesReadOrThrowError) {
  const Image rgb = codec::synthetic_image(21, 13, 3, 8, 1);
  Image rgba = codec::synthetic_image(21, 13, 3, 16, 2);
  rgba.components.push_back(rgba.components[0]);
  rgba.components.back().is_alpha = true;
  survives(
      io::encode_png(rgb), [](auto b) { return io::read_png(b); }, "png 8-bit");
  survives(
      io::encode_png(rgba), [](auto b) { return io::read_png(b); }, "png 16-bit RGBA");
  survives(
      bmp24(rgb), [](auto b) { return io::read_bmp(b); }, "bmp");
  survives(
      tga_rle(rgb), [](auto b) { return io::read_tga(b); }, "tga rle");
}

}  // namespace
}  // namespace gj2k
