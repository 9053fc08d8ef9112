// BMP, TGA and PNG files written by OpenJPEG's opj_decompress (an independent writer) read
// back to the pixels they hold; BMP variants and TGA RLE built byte by byte; JPEG through
// libjpeg-turbo.
#include <gtest/gtest.h>
#include <jpeglib.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "codec/synthetic.h"
#include "common/shared_data.h"
#include "gj2k/gj2k.h"
#include "io/image_io.h"

namespace gj2k {
namespace {

namespace fs = std::filesystem;

bool have_opj() {
  return std::system(
             "command -v opj_compress >/dev/null 2>&1 && "
             "command -v opj_decompress >/dev/null 2>&1") == 0;
}

// source -> .pgm/.ppm -> opj_compress (lossless) -> opj_decompress -> `ext`.
Image through_opj(const Image& source, const std::string& ext) {
  const fs::path dir = test::scratch_dir();
  const fs::path in = dir / (source.components.size() == 1 ? "opj_src.pgm" : "opj_src.ppm");
  io::write_image(source, in);
  const fs::path j2k = dir / "opj_src.j2k", out = dir / ("opj_out" + ext);
  const std::string cmd = "opj_compress -i '" + in.string() + "' -o '" + j2k.string() +
                          "' >/dev/null 2>&1 && opj_decompress -i '" + j2k.string() + "' -o '" +
                          out.string() + "' >/dev/null 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return io::read_image(out);
}

TEST(IoOpjFiles, BmpTgaPngFromOpjDecompress) {
  if (!have_opj()) GTEST_SKIP() << "opj_compress/opj_decompress not installed";
  const Image rgb = codec::synthetic_image(67, 41, 3, 8, 5);
  const Image grey = codec::synthetic_image(67, 41, 1, 8, 6);
  const Image grey16 = codec::synthetic_image(65, 45, 1, 16, 7);
  for (const char* ext : {".bmp", ".tga", ".png"}) {
    SCOPED_TRACE(ext);
    EXPECT_FALSE(compare(rgb, through_opj(rgb, ext))) << *compare(rgb, through_opj(rgb, ext));
    const Image g = through_opj(grey, ext);
    // opj writes grey BMP as an 8-bit grey palette and grey TGA as RGB: samples must agree.
    for (const Component& c : g.components)
      EXPECT_EQ(c.samples, grey.components[0].samples) << g.components.size();
  }
  const Image g16 = through_opj(grey16, ".png");
  EXPECT_FALSE(compare(grey16, g16)) << *compare(grey16, g16);
}

uint32_t le(std::vector<uint8_t>& v, size_t at, uint32_t value, int bytes) {
  for (int k = 0; k < bytes; ++k) v[at + k] = static_cast<uint8_t>(value >> (8 * k));
  return value;
}

// A BMP of 3x2 pixels: header, optional palette or masks, then rows bottom-up.
std::vector<uint8_t> bmp(uint32_t bits, uint32_t compression, const std::vector<uint32_t>& extra,
                         const std::vector<uint8_t>& pixels, int32_t height = 2) {
  std::vector<uint8_t> f(54 + extra.size() * 4);
  f[0] = 'B';
  f[1] = 'M';
  le(f, 10, static_cast<uint32_t>(f.size()), 4);
  le(f, 14, 40, 4);
  le(f, 18, 3, 4);
  le(f, 22, static_cast<uint32_t>(height), 4);
  le(f, 26, 1, 2);
  le(f, 28, bits, 2);
  le(f, 30, compression, 4);
  if (bits <= 8) le(f, 46, static_cast<uint32_t>(extra.size()), 4);
  for (size_t k = 0; k < extra.size(); ++k) le(f, 54 + 4 * k, extra[k], 4);
  f.insert(f.end(), pixels.begin(), pixels.end());
  return f;
}

TEST(IoBmp, PalettesMasksRleAndTopDown) {
  // 8-bit palette, colour: rows padded to 4 bytes, bottom row first.
  const std::vector<uint32_t> palette = {0x000000, 0xFF0000, 0x00FF00, 0x0000FF};
  Image img = io::read_bmp(bmp(8, 0, palette, {1, 2, 3, 0, 3, 2, 1, 0}));
  ASSERT_EQ(img.components.size(), 3u);
  EXPECT_EQ(img.components[2].at(0, 0), 0xFF);  // top row = second stored row: index 3 = blue
  EXPECT_EQ(img.components[0].at(0, 1), 0xFF);  // bottom-left: index 1, red
  EXPECT_EQ(img.components[1].at(0, 1), 0);
  EXPECT_EQ(img.components[2].at(0, 1), 0);
  EXPECT_EQ(img.components[1].at(1, 1), 0xFF);  // index 2, green
  // The same, top-down (negative height): the first stored row is the top row.
  Image top = io::read_bmp(bmp(8, 0, palette, {1, 2, 3, 0, 3, 2, 1, 0}, -2));
  EXPECT_EQ(top.components[2].at(0, 0), 0);
  EXPECT_EQ(top.components[2].at(0, 1), 0xFF);
  // Grey palette -> one component.
  Image g = io::read_bmp(bmp(8, 0, {0x000000, 0x404040, 0x808080}, {0, 1, 2, 0, 2, 1, 0, 0}));
  ASSERT_EQ(g.components.size(), 1u);
  EXPECT_EQ(g.components[0].at(1, 0), 0x40);
  EXPECT_EQ(g.components[0].at(2, 1), 0x80);
  // RLE8: a run of 3 x index 2, end of line, an absolute run 1,0,1 (padded), end of bitmap.
  Image rle =
      io::read_bmp(bmp(8, 1, {0x000000, 0x111111, 0x222222}, {3, 2, 0, 0, 0, 3, 1, 0, 1, 0, 0, 1}));
  EXPECT_EQ(rle.components[0].at(0, 1), 0x22);  // first stored row is the bottom one
  EXPECT_EQ(rle.components[0].at(2, 1), 0x22);
  EXPECT_EQ(rle.components[0].at(0, 0), 0x11);
  EXPECT_EQ(rle.components[0].at(1, 0), 0x00);
  // 16-bit 5-6-5 BITFIELDS: components of 5, 6 and 5 bits.
  std::vector<uint8_t> px16(16, 0);
  px16[0] = 0xFF;  // 0xFFFF at (0, bottom): all ones
  px16[1] = 0xFF;
  Image m = io::read_bmp(bmp(16, 3, {0xF800, 0x07E0, 0x001F}, px16));
  ASSERT_EQ(m.components.size(), 3u);
  EXPECT_EQ(m.components[1].precision, 6u);
  EXPECT_EQ(m.components[0].at(0, 1), 31);
  EXPECT_EQ(m.components[1].at(0, 1), 63);
  // 32-bit with an alpha mask: four components, the last alpha.
  std::vector<uint8_t> px32(24, 0);
  px32[3] = 0x80;
  px32[2] = 0x10;
  Image a = io::read_bmp(bmp(32, 6, {0xFF0000, 0xFF00, 0xFF, 0xFF000000}, px32));
  ASSERT_EQ(a.components.size(), 4u);
  EXPECT_TRUE(a.components[3].is_alpha);
  EXPECT_EQ(a.components[3].at(0, 1), 0x80);
  EXPECT_EQ(a.components[0].at(0, 1), 0x10);
  // Damage: truncated pixels, an index past the palette.
  EXPECT_THROW(io::read_bmp(bmp(24, 0, {}, {1, 2, 3})), Error);
  EXPECT_THROW(io::read_bmp(bmp(8, 0, palette, {9, 0, 0, 0, 0, 0, 0, 0})), Error);
}

TEST(IoTga, RleTrueColourWithAlphaAndGrey) {
  // 2x2 RLE true colour 32-bit, top-left origin, 8 alpha bits: one run of 3, one raw pixel.
  std::vector<uint8_t> f(18, 0);
  f[2] = 10;
  f[12] = 2;
  f[14] = 2;
  f[16] = 32;
  f[17] = 0x28;
  const uint8_t body[] = {0x82, 1, 2, 3, 4, 0x00, 5, 6, 7, 8};
  f.insert(f.end(), body, body + sizeof body);
  Image t = io::read_tga(f);
  ASSERT_EQ(t.components.size(), 4u);
  EXPECT_EQ(t.components[0].at(0, 0), 3);  // BGRA stored
  EXPECT_EQ(t.components[2].at(1, 0), 1);
  EXPECT_EQ(t.components[3].at(0, 1), 4);
  EXPECT_EQ(t.components[0].at(1, 1), 7);
  EXPECT_EQ(t.components[3].at(1, 1), 8);
  // Uncompressed grey, bottom-left origin.
  std::vector<uint8_t> g(18, 0);
  g[2] = 3;
  g[12] = 2;
  g[14] = 2;
  g[16] = 8;
  const uint8_t rows[] = {10, 20, 30, 40};
  g.insert(g.end(), rows, rows + 4);
  Image grey = io::read_tga(g);
  ASSERT_EQ(grey.components.size(), 1u);
  EXPECT_EQ(grey.components[0].at(0, 0), 30);
  EXPECT_EQ(grey.components[0].at(1, 1), 20);
  g.resize(g.size() - 1);
  EXPECT_THROW(io::read_tga(g), Error);
}

std::vector<uint8_t> jpeg_of(const Image& image, int quality) {
  jpeg_compress_struct c;
  jpeg_error_mgr err;
  c.err = jpeg_std_error(&err);
  jpeg_create_compress(&c);
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&c, &buffer, &size);
  const int nc = static_cast<int>(image.components.size());
  c.image_width = image.width();
  c.image_height = image.height();
  c.input_components = nc;
  c.in_color_space = nc == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, quality, TRUE);
  jpeg_start_compress(&c, TRUE);
  std::vector<uint8_t> row(image.width() * nc);
  while (c.next_scanline < c.image_height) {
    for (uint32_t x = 0; x < image.width(); ++x)
      for (int k = 0; k < nc; ++k)
        row[x * nc + k] = static_cast<uint8_t>(image.components[k].at(x, c.next_scanline));
    JSAMPROW r = row.data();
    jpeg_write_scanlines(&c, &r, 1);
  }
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  std::vector<uint8_t> out(buffer, buffer + size);
  std::free(buffer);
  return out;
}

TEST(IoJpeg, ReadsGreyAndColourCloseToTheSource) {
  for (uint32_t nc : {1u, 3u}) {
    const Image src = codec::synthetic_image(80, 56, nc, 8, 9);
    const auto file = jpeg_of(src, 95);
    const Image img = io::read_jpeg(file);
    ASSERT_EQ(img.components.size(), nc);
    ASSERT_EQ(img.width(), 80u);
    EXPECT_EQ(img.color_space, nc == 1 ? ColorSpace::kGrey : ColorSpace::kSRGB);
    double sse = 0;
    for (uint32_t k = 0; k < nc; ++k)
      for (size_t i = 0; i < src.components[k].samples.size(); ++i) {
        const double d = src.components[k].samples[i] - img.components[k].samples[i];
        sse += d * d;
      }
    const double psnr = 10 * std::log10(255.0 * 255 * nc * 80 * 56 / sse);
    EXPECT_GT(psnr, 30) << nc;
    // libjpeg pads a truncated scan (a warning); a stream cut inside its headers is an error.
    const std::vector<uint8_t> cut(file.begin(), file.begin() + 100);
    EXPECT_THROW(io::read_jpeg(cut, "cut.jpg"), Error);
    EXPECT_THROW(io::read_jpeg(std::vector<uint8_t>{0xFF, 0xD9, 0}), Error);
    // Every truncation and random byte changes: an image or gj2k::Error, nothing else.
    auto attempt = [](std::span<const uint8_t> bytes) {
      try {
        io::read_jpeg(bytes);
      } catch (const Error&) {
      }
    };
    for (size_t n = 0; n < file.size(); n += 1 + n / 8) attempt(std::span(file).first(n));
    uint32_t state = 5;
    for (int round = 0; round < 200; ++round) {
      auto bad = file;
      state = state * 1664525u + 1013904223u;
      bad[state % bad.size()] = static_cast<uint8_t>(state >> 24);
      attempt(bad);
    }
  }
}

}  // namespace
}  // namespace gj2k
