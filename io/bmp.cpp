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

// The fields of the file header and the BITMAPINFOHEADER (or OS/2 BITMAPCOREHEADER).
struct BmpHeader {
  uint32_t pixel_offset = 0, header_size = 0;
  uint32_t w = 0, ht = 0;
  bool top_down = false;
  uint32_t bits = 0, compression = kRgb, colors = 0;
  bool rle() const { return compression == kRle8 || compression == kRle4; }
};

BmpHeader read_header(std::span<const uint8_t> data, const std::string& name) {
  if (data.size() < 26 || data[0] != 'B' || data[1] != 'M')
    fail(ErrorCode::kFormat, name, "not a BMP file (no 'BM' signature)");
  BmpHeader b;
  b.pixel_offset = le32(&data[10]);
  b.header_size = le32(&data[14]);
  if (b.header_size != 12 && (b.header_size < 40 || b.header_size > 124))
    fail(ErrorCode::kUnsupported, name,
         "BMP header of " + std::to_string(b.header_size) + " bytes");
  if (data.size() < 14 + size_t{b.header_size})
    fail(ErrorCode::kTruncated, name, "the BMP header ends early");
  const uint8_t* h = &data[14];
  int64_t width, height;
  if (b.header_size == 12) {  // OS/2 BITMAPCOREHEADER
    width = le16(h + 4);
    height = le16(h + 6);
    b.bits = le16(h + 10);
  } else {
    width = static_cast<int32_t>(le32(h + 4));
    height = static_cast<int32_t>(le32(h + 8));
    b.bits = le16(h + 14);
    b.compression = le32(h + 16);
    b.colors = le32(h + 32);
  }
  b.top_down = height < 0;
  if (b.top_down) height = -height;
  if (width <= 0 || height <= 0 || width > (1 << 24) || height > (1 << 24))
    fail(ErrorCode::kFormat, name,
         "image size " + std::to_string(width) + "x" + std::to_string(height));
  b.w = static_cast<uint32_t>(width);
  b.ht = static_cast<uint32_t>(height);
  return b;
}

// Channel masks for 16 and 32 bits (red, green, blue, alpha): from the header (V2+ or
// BITFIELDS after a 40-byte header), else 5-5-5 and 8-8-8. Also refuses bit depths and
// compressions gj2k does not read.
struct Masks {
  Mask red, green, blue, alpha;
};
Masks read_masks(std::span<const uint8_t> data, const BmpHeader& b, const std::string& name) {
  Masks m;
  if (b.bits == 16 || b.bits == 32) {
    if (b.compression == kBitfields || b.compression == kAlphaBitfields) {
      const size_t at = 14 + 40;
      if (data.size() < at + 12) fail(ErrorCode::kTruncated, name, "BITFIELDS masks missing");
      m.red = Mask(le32(&data[at]));
      m.green = Mask(le32(&data[at + 4]));
      m.blue = Mask(le32(&data[at + 8]));
      if ((b.header_size >= 56 || b.compression == kAlphaBitfields) && data.size() >= at + 16)
        m.alpha = Mask(le32(&data[at + 12]));
    } else if (b.compression == kRgb) {
      m.red = Mask(b.bits == 16 ? 0x7C00 : 0xFF0000);
      m.green = Mask(b.bits == 16 ? 0x03E0 : 0x00FF00);
      m.blue = Mask(b.bits == 16 ? 0x001F : 0x0000FF);
    }
    if (!m.red.bits || !m.green.bits || !m.blue.bits || m.red.bits > 16 || m.green.bits > 16 ||
        m.blue.bits > 16 || m.alpha.bits > 16)
      fail(ErrorCode::kUnsupported, name, "BMP colour masks without a usable channel");
  } else if (b.bits != 1 && b.bits != 4 && b.bits != 8 && b.bits != 24) {
    fail(ErrorCode::kUnsupported, name, std::to_string(b.bits) + " bits per pixel");
  }
  if (b.rle() &&
      !((b.compression == kRle8 && b.bits == 8) || (b.compression == kRle4 && b.bits == 4)))
    fail(ErrorCode::kFormat, name, "RLE compression with " + std::to_string(b.bits) + " bits");
  if (!b.rle() && b.compression != kRgb && b.compression != kBitfields &&
      b.compression != kAlphaBitfields)
    fail(ErrorCode::kUnsupported, name, "BMP compression " + std::to_string(b.compression));
  return m;
}

// The palette (BGR0 quads, or BGR triples for OS/2) as 0x00RRGGBB; empty above 8 bits.
std::vector<uint32_t> read_palette(std::span<const uint8_t> data, const BmpHeader& b,
                                   const std::string& name) {
  std::vector<uint32_t> palette;
  if (b.bits > 8) return palette;
  const size_t entry = b.header_size == 12 ? 3 : 4;
  size_t n = b.colors ? b.colors : size_t{1} << b.bits;
  n = std::min<size_t>(n, 256);
  const size_t at = 14 + size_t{b.header_size};
  if (data.size() < at + n * entry) fail(ErrorCode::kTruncated, name, "the palette ends early");
  for (size_t k = 0; k < n; ++k) {
    const uint8_t* p = &data[at + k * entry];
    palette.push_back((uint32_t{p[2]} << 16) | (uint32_t{p[1]} << 8) | p[0]);
  }
  return palette;
}

// One row of uncompressed pixels, one uint32 per pixel.
void unpack_row(const uint8_t* row, uint32_t bits, uint32_t w, uint32_t* dst) {
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
        dst[x] = (uint32_t{row[3 * x + 2]} << 16) | (uint32_t{row[3 * x + 1]} << 8) | row[3 * x];
        break;
      default:
        dst[x] = le32(row + 4 * x);
    }
  }
}

// Pixel values, one uint32 per pixel, row 0 at the top; sized only once the data can describe
// them (RLE: at most 64 Ki pixels per byte, which end-of-line, delta and end-of-bitmap codes
// exceed only for nearly empty pictures, and 2^28 pixels in all).
std::vector<uint32_t> read_pixels(std::span<const uint8_t> data, const BmpHeader& b,
                                  const std::string& name) {
  const uint32_t w = b.w, ht = b.ht;
  const uint64_t stride = ((uint64_t{w} * b.bits + 31) / 32) * 4;
  const size_t available = data.size() - b.pixel_offset;
  if (!b.rle() && detail::mul_sat(stride, ht) > available)
    fail(ErrorCode::kTruncated, name,
         "pixel data of " + std::to_string(available) + " bytes " + at_byte(b.pixel_offset) +
             ", the header describes " + std::to_string(stride * ht));
  if (b.rle() && (uint64_t{w} * ht > detail::mul_sat(available, 65536) ||
                  uint64_t{w} * ht > (uint64_t{1} << 28)))
    fail(ErrorCode::kUnsupported, name,
         "RLE picture of " + std::to_string(w) + "x" + std::to_string(ht) + " from " +
             std::to_string(available) +
             " data bytes (gj2k reads at most 64 Ki pixels per byte, 2^28 in all)");
  std::vector<uint32_t> px(size_t{w} * ht);
  if (b.rle()) {
    const auto idx = expand_rle(data, b.pixel_offset, w, ht, b.compression == kRle4, name);
    for (uint32_t y = 0; y < ht; ++y)
      for (uint32_t x = 0; x < w; ++x)
        px[size_t{b.top_down ? y : ht - 1 - y} * w + x] = idx[size_t{y} * w + x];
  } else {
    for (uint32_t y = 0; y < ht; ++y)
      unpack_row(&data[b.pixel_offset + (b.top_down ? y : ht - 1 - y) * stride], b.bits, w,
                 &px[size_t{y} * w]);
  }
  return px;
}

// 8-bit grey (every entry grey) or RGB from palette indices.
Image palette_image(const std::vector<uint32_t>& px, const std::vector<uint32_t>& palette,
                    uint32_t w, uint32_t ht, const std::string& name) {
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

// RGB (and alpha where its mask has bits) from 16-, 24- or 32-bit pixels, each channel at the
// precision of its mask.
Image masked_image(const std::vector<uint32_t>& px, const Masks& m, uint32_t bits, uint32_t w,
                   uint32_t ht) {
  const Mask masks[4] = {bits == 24 ? Mask(0xFF0000) : m.red, bits == 24 ? Mask(0x00FF00) : m.green,
                         bits == 24 ? Mask(0x0000FF) : m.blue, bits == 24 ? Mask() : m.alpha};
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

}  // namespace

Image read_bmp(std::span<const uint8_t> data, const std::string& name) {
  const BmpHeader b = read_header(data, name);
  const Masks masks = read_masks(data, b, name);
  const std::vector<uint32_t> palette = read_palette(data, b, name);
  if (b.pixel_offset >= data.size()) fail(ErrorCode::kTruncated, name, "no pixel data");
  const std::vector<uint32_t> px = read_pixels(data, b, name);
  if (b.bits <= 8) return palette_image(px, palette, b.w, b.ht, name);
  return masked_image(px, masks, b.bits, b.w, b.ht);
}

}  // namespace gj2k::io
