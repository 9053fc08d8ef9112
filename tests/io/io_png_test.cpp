// PNG through libpng: round trips of every layout gj2k writes, palettes and sBIT read from
// files written by libpng directly, and refusals.
#include <gtest/gtest.h>
#include <png.h>

#include <csetjmp>
#include <random>
#include <vector>

#include "gj2k/gj2k.h"
#include "io/image_io.h"

namespace gj2k {
namespace {

Image random_image(uint32_t w, uint32_t h, uint32_t nc, uint32_t precision, uint32_t seed) {
  Image image = make_image(w, h, nc, precision);
  std::mt19937 rng(seed);
  for (Component& c : image.components)
    for (int32_t& v : c.samples) v = static_cast<int32_t>(rng() & ((1u << precision) - 1));
  return image;
}

TEST(IoPng, RoundTripsEveryLayoutAndDepth) {
  for (uint32_t nc : {1u, 2u, 3u, 4u})
    for (uint32_t precision : {1u, 2u, 4u, 5u, 8u, 12u, 16u}) {
      SCOPED_TRACE("components " + std::to_string(nc) + ", precision " + std::to_string(precision));
      Image image = random_image(37, 23, nc, precision, nc * 100 + precision);
      image.color_space = nc <= 2 ? ColorSpace::kGrey : ColorSpace::kSRGB;
      if (nc == 2 || nc == 4) image.components.back().is_alpha = true;
      const auto bytes = io::encode_png(image);
      ASSERT_EQ(png_sig_cmp(bytes.data(), 0, 8), 0);
      const Image back = io::read_png(bytes);
      EXPECT_FALSE(compare(image, back)) << *compare(image, back);
      EXPECT_EQ(back.color_space, image.color_space);
      EXPECT_EQ(back.components.back().is_alpha, nc == 2 || nc == 4);
    }
}

TEST(IoPng, KeepsTheIccProfile) {
  Image image = random_image(8, 8, 3, 8, 1);
  image.color_space = ColorSpace::kICC;
  // A minimal well-formed ICC header (ICC.1 7.2) with an empty tag table: libpng checks both.
  std::vector<uint8_t>& icc = image.icc_profile;
  icc.assign(600, 0);
  icc[2] = 600 >> 8;  // profile size
  icc[3] = 600 & 0xFF;
  for (size_t i = 132; i < icc.size(); ++i) icc[i] = static_cast<uint8_t>(i * 13);
  icc[8] = 2;  // version 2.0
  auto tag = [&](size_t at, const char* four) { std::copy(four, four + 4, icc.begin() + at); };
  tag(12, "mntr");
  tag(16, "RGB ");
  tag(20, "XYZ ");
  tag(36, "acsp");
  const uint8_t d50[12] = {0, 0, 0xF6, 0xD6, 0, 1, 0, 0, 0, 0, 0xD3, 0x2D};  // PCS illuminant
  std::copy(d50, d50 + 12, icc.begin() + 68);
  const Image back = io::read_png(io::encode_png(image));
  EXPECT_EQ(back.color_space, ColorSpace::kICC);
  EXPECT_EQ(back.icc_profile, image.icc_profile);
}

// A PNG written by libpng itself (not by gj2k's writer): a 4-bit palette with tRNS, or a
// 16-bit RGB with sBIT 10, interlaced.
struct PngOut {
  std::vector<uint8_t> bytes;
};
void put(png_structp png, png_bytep p, png_size_t n) {
  auto* out = static_cast<PngOut*>(png_get_io_ptr(png));
  out->bytes.insert(out->bytes.end(), p, p + n);
}
void noflush(png_structp) {}

std::vector<uint8_t> libpng_file(int type, int depth, int interlace, uint32_t w, uint32_t h,
                                 const std::vector<uint8_t>& rows_data, size_t row_bytes,
                                 bool palette_with_trns, int sbit) {
  PngOut out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return {};
  }
  png_set_write_fn(png, &out, put, noflush);
  png_set_IHDR(png, info, w, h, depth, type, interlace, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  if (type == PNG_COLOR_TYPE_PALETTE) {
    png_color colors[16];
    for (int i = 0; i < 16; ++i)
      colors[i] = {static_cast<png_byte>(i * 16), static_cast<png_byte>(255 - i * 16),
                   static_cast<png_byte>(i * 5)};
    png_set_PLTE(png, info, colors, 16);
    if (palette_with_trns) {
      png_byte alpha[16];
      for (int i = 0; i < 16; ++i) alpha[i] = static_cast<png_byte>(i * 17);
      png_set_tRNS(png, info, alpha, 16, nullptr);
    }
  }
  if (sbit) {
    png_color_8 s{};
    s.red = s.green = s.blue = s.gray = static_cast<png_byte>(sbit);
    png_set_sBIT(png, info, &s);
  }
  std::vector<png_bytep> rows(h);
  for (uint32_t y = 0; y < h; ++y)
    rows[y] = const_cast<png_bytep>(rows_data.data()) + y * row_bytes;
  png_write_info(png, info);
  png_write_image(png, rows.data());
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return out.bytes;
}

TEST(IoPng, ExpandsPalettesWithTransparency) {
  const uint32_t w = 9, h = 5;
  const size_t row_bytes = (w * 4 + 7) / 8;
  std::vector<uint8_t> rows(row_bytes * h, 0);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x)
      rows[y * row_bytes + x / 2] |= static_cast<uint8_t>(((x + y) % 16) << (x % 2 ? 0 : 4));
  for (bool trns : {false, true}) {
    const auto file =
        libpng_file(PNG_COLOR_TYPE_PALETTE, 4, PNG_INTERLACE_NONE, w, h, rows, row_bytes, trns, 0);
    ASSERT_FALSE(file.empty());
    const Image image = io::read_png(file);
    ASSERT_EQ(image.components.size(), trns ? 4u : 3u);
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) {
        const int i = static_cast<int>((x + y) % 16);
        EXPECT_EQ(image.components[0].at(x, y), i * 16);
        EXPECT_EQ(image.components[1].at(x, y), 255 - i * 16);
        EXPECT_EQ(image.components[2].at(x, y), i * 5);
        if (trns) {
          EXPECT_EQ(image.components[3].at(x, y), i * 17);
        }
      }
    EXPECT_EQ(image.components.back().is_alpha, trns);
  }
}

TEST(IoPng, ReadsInterlaced16BitWithSbit) {
  const uint32_t w = 11, h = 7;
  const size_t row_bytes = w * 6;
  std::vector<uint8_t> rows(row_bytes * h);
  for (size_t i = 0; i < rows.size(); i += 2) {  // 10-bit values scaled up by 6 bits
    const uint32_t v = static_cast<uint32_t>((i * 37) % 1024) << 6;
    rows[i] = static_cast<uint8_t>(v >> 8);
    rows[i + 1] = static_cast<uint8_t>(v);
  }
  const auto file =
      libpng_file(PNG_COLOR_TYPE_RGB, 16, PNG_INTERLACE_ADAM7, w, h, rows, row_bytes, false, 10);
  const Image image = io::read_png(file);
  ASSERT_EQ(image.components.size(), 3u);
  EXPECT_EQ(image.components[0].precision, 10u);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x)
      for (uint32_t c = 0; c < 3; ++c) {
        const size_t i = y * row_bytes + (x * 3 + c) * 2;
        EXPECT_EQ(image.components[c].at(x, y), static_cast<int32_t>((i * 37) % 1024));
      }
}

TEST(IoPng, RefusesWhatPngCannotHold) {
  EXPECT_THROW(io::encode_png(make_image(4, 4, 5, 8)), Error);
  EXPECT_THROW(io::encode_png(make_image(4, 4, 1, 8, /*is_signed=*/true)), Error);
  Image mixed = make_image(4, 4, 3, 8);
  mixed.components[1].precision = 12;
  EXPECT_THROW(io::encode_png(mixed), Error);
}

TEST(IoPng, DamagedFilesFailWithTheirName) {
  const auto good = io::encode_png(random_image(64, 64, 3, 8, 3));
  try {
    io::read_png(std::span(good).first(good.size() / 2), "half.png");
    FAIL() << "a truncated PNG was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("half.png"), std::string::npos) << e.what();
  }
  auto bad = good;
  bad[40] ^= 0xFF;  // inside IDAT: CRC or zlib error
  EXPECT_THROW(io::read_png(bad), Error);
  EXPECT_THROW(io::read_png(std::vector<uint8_t>{1, 2, 3}), Error);
}

}  // namespace
}  // namespace gj2k
