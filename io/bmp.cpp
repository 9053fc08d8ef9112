// BMP input (io/image_io.h), covering what opj_compress reads: palette, 16/24/32-bit, RLE.
#include <algorithm>
#include <bit>
#include <string>

#include "io/image_io.h"
#include "io/io_util.h"

namespace gj2k::io {

using detail::at_byte;
using detail::fail;

namespace {

uint32_t le16(const uint8_t* p) {
  return p[0] | (uint32_t{p[1]} << 8);
}
uint32_t le32(const uint8_t* p) {
  return p[0] | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}

constexpr uint32_t kRgb = 0, kRle8 = 1, kRle4 = 2, kBitfields = 3, kAlphaBitfields = 6;

struct Mask {
  uint32_t mask = 0, shift = 0, bits = 0;
  explicit Mask(uint32_t m = 0) : mask(m) {
    if (m) {
      shift = static_cast<uint32_t>(std::countr_zero(m));
      bits = static_cast<uint32_t>(std::popcount(m));
    }
  }
  uint32_t get(uint32_t v) const { return (v & mask) >> shift; }
};

// Expands RLE8/RLE4 data (the BMP run-length schemes) to one palette index per byte, rows
// bottom-up as stored. Pixels the stream skips stay index 0.
std::vector<uint8_t> expand_rle(std::span<const uint8_t> in, size_t offset, uint32_t width,
                                uint32_t height, bool four, const std::string& name) {
  std::vector<uint8_t> out(size_t{width} * height, 0);
  uint32_t x = 0, y = 0;
  size_t i = offset;
  auto need = [&](size_t n) {
    if (in.size() - i < n) fail(ErrorCode::kTruncated, name, "RLE data ends " + at_byte(i));
  };
  auto put = [&](uint8_t v) {
    if (x < width && y < height) out[size_t{y} * width + x] = v;
    ++x;
  };
  while (y < height) {
    need(2);
    const uint8_t count = in[i], value = in[i + 1];
    i += 2;
    if (count > 0) {
      for (uint32_t k = 0; k < count; ++k) put(four ? (k % 2 ? value & 0x0F : value >> 4) : value);
    } else if (value == 0) {  // end of line
      x = 0;
      ++y;
    } else if (value == 1) {  // end of bitmap
      break;
    } else if (value == 2) {  // delta
      need(2);
      x += in[i];
      y += in[i + 1];
      i += 2;
    } else {  // absolute run of `value` pixels, padded to 16 bits
      const size_t bytes = four ? (value + 1) / 2 : value;
      need(bytes);
      for (uint32_t k = 0; k < value; ++k)
        put(four ? (k % 2 ? in[i + k / 2] & 0x0F : in[i + k / 2] >> 4) : in[i + k]);
      i += bytes + (bytes & 1);
    }
  }
  return out;
}

}  // namespace

Image read_bmp(std::span<const uint8_t> data, const std::string& name) {
  if (data.size() < 26 || data[0] != 'B' || data[1] != 'M')
    fail(ErrorCode::kFormat, name, "not a BMP file (no 'BM' signature)");
  const uint32_t pixel_offset = le32(&data[10]);
  const uint32_t header_size = le32(&data[14]);
  if (header_size != 12 && (header_size < 40 || header_size > 124))
    fail(ErrorCode::kUnsupported, name, "BMP header of " + std::to_string(header_size) + " bytes");
  if (data.size() < 14 + size_t{header_size})
    fail(ErrorCode::kTruncated, name, "the BMP header ends early");
  const uint8_t* h = &data[14];
  int64_t width, height;
  uint32_t bits, compression = kRgb, colors = 0;
  if (header_size == 12) {  // OS/2 BITMAPCOREHEADER
    width = le16(h + 4);
    height = le16(h + 6);
    bits = le16(h + 10);
  } else {
    width = static_cast<int32_t>(le32(h + 4));
    height = static_cast<int32_t>(le32(h + 8));
    bits = le16(h + 14);
    compression = le32(h + 16);
    colors = le32(h + 32);
  }
  const bool top_down = height < 0;
  if (top_down) height = -height;
  if (width <= 0 || height <= 0 || width > (1 << 24) || height > (1 << 24))
    fail(ErrorCode::kFormat, name,
         "image size " + std::to_string(width) + "x" + std::to_string(height));
  const uint32_t w = static_cast<uint32_t>(width), ht = static_cast<uint32_t>(height);

  // Channel masks for 16 and 32 bits: from the header (V2+ or BITFIELDS after a 40-byte
  // header), else 5-5-5 and 8-8-8.
  Mask red, green, blue, alpha;
  if (bits == 16 || bits == 32) {
    if (compression == kBitfields || compression == kAlphaBitfields) {
      const size_t at = 14 + 40;
      if (data.size() < at + 12) fail(ErrorCode::kTruncated, name, "BITFIELDS masks missing");
      red = Mask(le32(&data[at]));
      green = Mask(le32(&data[at + 4]));
      blue = Mask(le32(&data[at + 8]));
      if ((header_size >= 56 || compression == kAlphaBitfields) && data.size() >= at + 16)
        alpha = Mask(le32(&data[at + 12]));
    } else if (compression == kRgb) {
      red = Mask(bits == 16 ? 0x7C00 : 0xFF0000);
      green = Mask(bits == 16 ? 0x03E0 : 0x00FF00);
      blue = Mask(bits == 16 ? 0x001F : 0x0000FF);
    }
    if (!red.bits || !green.bits || !blue.bits || red.bits > 16 || green.bits > 16 ||
        blue.bits > 16 || alpha.bits > 16)
      fail(ErrorCode::kUnsupported, name, "BMP colour masks without a usable channel");
  } else if (bits != 1 && bits != 4 && bits != 8 && bits != 24) {
    fail(ErrorCode::kUnsupported, name, std::to_string(bits) + " bits per pixel");
  }
  const bool rle = compression == kRle8 || compression == kRle4;
  if (rle && !((compression == kRle8 && bits == 8) || (compression == kRle4 && bits == 4)))
    fail(ErrorCode::kFormat, name, "RLE compression with " + std::to_string(bits) + " bits");
  if (!rle && compression != kRgb && compression != kBitfields && compression != kAlphaBitfields)
    fail(ErrorCode::kUnsupported, name, "BMP compression " + std::to_string(compression));

  // Palette (BGR0 quads, or BGR triples for OS/2).
  std::vector<uint32_t> palette;  // 0x00RRGGBB
  if (bits <= 8) {
    const size_t entry = header_size == 12 ? 3 : 4;
    size_t n = colors ? colors : size_t{1} << bits;
    n = std::min<size_t>(n, 256);
    const size_t at = 14 + size_t{header_size};
    if (data.size() < at + n * entry) fail(ErrorCode::kTruncated, name, "the palette ends early");
    for (size_t k = 0; k < n; ++k) {
      const uint8_t* p = &data[at + k * entry];
      palette.push_back((uint32_t{p[2]} << 16) | (uint32_t{p[1]} << 8) | p[0]);
    }
  }
  if (pixel_offset >= data.size()) fail(ErrorCode::kTruncated, name, "no pixel data");

  // Pixel values, one uint32 per pixel, row 0 at the top; sized only once the data can
  // describe them (RLE: at most 64 Ki pixels per byte, which end-of-line, delta and
  // end-of-bitmap codes exceed only for nearly empty pictures, and 2^28 pixels in all).
  const uint64_t stride = ((uint64_t{w} * bits + 31) / 32) * 4;
  const size_t available = data.size() - pixel_offset;
  if (!rle && detail::mul_sat(stride, ht) > available)
    fail(ErrorCode::kTruncated, name,
         "pixel data of " + std::to_string(available) + " bytes " + at_byte(pixel_offset) +
             ", the header describes " + std::to_string(stride * ht));
  if (rle && (uint64_t{w} * ht > detail::mul_sat(available, 65536) ||
              uint64_t{w} * ht > (uint64_t{1} << 28)))
    fail(ErrorCode::kUnsupported, name,
         "RLE picture of " + std::to_string(w) + "x" + std::to_string(ht) + " from " +
             std::to_string(available) +
             " data bytes (gj2k reads at most 64 Ki pixels per byte, 2^28 in all)");
  std::vector<uint32_t> px(size_t{w} * ht);
  if (rle) {
    const auto idx = expand_rle(data, pixel_offset, w, ht, compression == kRle4, name);
    for (uint32_t y = 0; y < ht; ++y)
      for (uint32_t x = 0; x < w; ++x)
        px[size_t{top_down ? y : ht - 1 - y} * w + x] = idx[size_t{y} * w + x];
  } else {
    for (uint32_t y = 0; y < ht; ++y) {
      const uint8_t* row = &data[pixel_offset + (top_down ? y : ht - 1 - y) * stride];
      uint32_t* dst = &px[size_t{y} * w];
      for (uint32_t x = 0; x < w; ++x) {
        switch (bits) {
          case 1:
            dst[x] = (row[x / 8] >> (7 - x % 8)) & 1;
            break;
          case 4:
            dst[x] = x % 2 ? row[x / 2] & 0x0F : row[x / 2] >> 4;
            break;
          case 8:
            dst[x] = row[x];
            break;
          case 16:
            dst[x] = le16(row + 2 * x);
            break;
          case 24:
            dst[x] =
                (uint32_t{row[3 * x + 2]} << 16) | (uint32_t{row[3 * x + 1]} << 8) | row[3 * x];
            break;
          default:
            dst[x] = le32(row + 4 * x);
        }
      }
    }
  }

  if (bits <= 8) {
    for (uint32_t v : px)
      if (v >= palette.size())
        fail(ErrorCode::kFormat, name,
             "palette index " + std::to_string(v) + " past the " + std::to_string(palette.size()) +
                 " palette entries");
    const bool grey = std::all_of(palette.begin(), palette.end(), [](uint32_t c) {
      return (c >> 16) == (c & 0xFF) && ((c >> 8) & 0xFF) == (c & 0xFF);
    });
    Image image = make_image(w, ht, grey ? 1 : 3, 8);
    image.color_space = grey ? ColorSpace::kGrey : ColorSpace::kSRGB;
    for (size_t i = 0; i < px.size(); ++i) {
      const uint32_t c = palette[px[i]];
      if (grey) {
        image.components[0].samples[i] = static_cast<int32_t>(c & 0xFF);
      } else {
        image.components[0].samples[i] = static_cast<int32_t>(c >> 16);
        image.components[1].samples[i] = static_cast<int32_t>((c >> 8) & 0xFF);
        image.components[2].samples[i] = static_cast<int32_t>(c & 0xFF);
      }
    }
    return image;
  }
  const Mask masks[4] = {bits == 24 ? Mask(0xFF0000) : red, bits == 24 ? Mask(0x00FF00) : green,
                         bits == 24 ? Mask(0x0000FF) : blue, bits == 24 ? Mask() : alpha};
  const uint32_t nc = masks[3].bits ? 4 : 3;
  Image image = make_image(w, ht, nc, 8);
  image.color_space = ColorSpace::kSRGB;
  for (uint32_t c = 0; c < nc; ++c) {
    Component& comp = image.components[c];
    comp.precision = masks[c].bits;
    comp.is_alpha = c == 3;
    for (size_t i = 0; i < px.size(); ++i)
      comp.samples[i] = static_cast<int32_t>(masks[c].get(px[i]));
  }
  return image;
}

}  // namespace gj2k::io
