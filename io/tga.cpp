// TGA (Truevision) input (io/image_io.h).
#include <string>

#include "io/image_io.h"
#include "io/io_util.h"

namespace gj2k::io {

using detail::at_byte;
using detail::fail;

namespace {

// The 18-byte TGA header, checked.
struct TgaHeader {
  uint8_t id_length = 0, map_type = 0, type = 0;
  uint32_t map_first = 0, map_length = 0, map_bits = 0;
  uint32_t width = 0, height = 0, bits = 0, alpha_bits = 0;
  bool top_down = false, right_to_left = false, rle = false;
  uint32_t kind = 0;  // 1 colour-mapped, 2 true colour, 3 grey
};

TgaHeader read_header(std::span<const uint8_t> data, const std::string& name) {
  if (data.size() < 18) fail(ErrorCode::kTruncated, name, "the 18-byte TGA header ends early");
  TgaHeader h;
  h.id_length = data[0];
  h.map_type = data[1];
  h.type = data[2];
  h.map_first = data[3] | (data[4] << 8);
  h.map_length = data[5] | (data[6] << 8);
  h.map_bits = data[7];
  h.width = data[12] | (data[13] << 8);
  h.height = data[14] | (data[15] << 8);
  h.bits = data[16];
  const uint32_t descriptor = data[17];
  h.alpha_bits = descriptor & 0x0F;
  h.top_down = descriptor & 0x20;
  h.right_to_left = descriptor & 0x10;
  h.rle = h.type >= 9;
  h.kind = h.rle ? h.type - 8 : h.type;
  if (h.kind < 1 || h.kind > 3 || h.map_type > 1)
    fail(ErrorCode::kUnsupported, name, "TGA image type " + std::to_string(h.type));
  if (h.width == 0 || h.height == 0) fail(ErrorCode::kFormat, name, "empty TGA image");
  if ((h.kind == 1 && (h.bits != 8 || h.map_type != 1)) || (h.kind == 3 && h.bits != 8) ||
      (h.kind == 2 && h.bits != 15 && h.bits != 16 && h.bits != 24 && h.bits != 32))
    fail(ErrorCode::kUnsupported, name,
         "TGA type " + std::to_string(h.type) + " with " + std::to_string(h.bits) +
             " bits per pixel");
  return h;
}

// Colour map from `at` on: entries of 15/16, 24 or 32 bits, stored BGR(A), as 0xAARRGGBB.
// Advances `at` past it.
std::vector<uint32_t> read_colour_map(std::span<const uint8_t> data, const TgaHeader& h, size_t& at,
                                      const std::string& name) {
  std::vector<uint32_t> map;
  const uint32_t map_entry = (h.map_bits + 7) / 8;
  if (h.map_type != 1) return map;
  if (map_entry < 2 || map_entry > 4)
    fail(ErrorCode::kUnsupported, name, std::to_string(h.map_bits) + "-bit TGA colour map");
  if (data.size() < at + size_t{h.map_length} * map_entry)
    fail(ErrorCode::kTruncated, name, "the colour map ends early");
  for (uint32_t k = 0; k < h.map_length; ++k, at += map_entry) {
    const uint8_t* p = &data[at];
    if (map_entry == 2) {
      const uint32_t v = p[0] | (p[1] << 8);
      auto x5 = [](uint32_t c) { return (c << 3) | (c >> 2); };
      map.push_back(0xFF000000u | (x5((v >> 10) & 31) << 16) | (x5((v >> 5) & 31) << 8) |
                    x5(v & 31));
    } else {
      map.push_back((map_entry == 4 ? uint32_t{p[3]} << 24 : 0xFF000000u) | (uint32_t{p[2]} << 16) |
                    (uint32_t{p[1]} << 8) | p[0]);
    }
  }
  return map;
}

// Pixels as stored from `at` on (bpp bytes per pixel each), RLE expanded.
std::vector<uint8_t> read_raw_pixels(std::span<const uint8_t> data, const TgaHeader& h, size_t at,
                                     uint32_t bpp, const std::string& name) {
  const uint64_t total = detail::mul_sat(h.width, h.height, bpp);
  std::vector<uint8_t> raw;
  if (!h.rle) {
    if (total > data.size() - std::min(at, data.size()))
      fail(ErrorCode::kTruncated, name, "pixel data ends early " + at_byte(data.size()));
    raw.assign(data.begin() + at, data.begin() + at + total);
    return raw;
  }
  if (total > detail::mul_sat(data.size(), 128 * 4))
    fail(ErrorCode::kFormat, name, "image larger than its RLE data can describe");
  raw.reserve(total);
  while (raw.size() < total) {
    if (at >= data.size()) fail(ErrorCode::kTruncated, name, "RLE data ends " + at_byte(at));
    const uint8_t head = data[at++];
    const uint32_t count = (head & 0x7F) + 1;
    const size_t bytes = (head & 0x80) ? bpp : size_t{count} * bpp;
    if (data.size() - at < bytes)
      fail(ErrorCode::kTruncated, name, "RLE packet ends early " + at_byte(at));
    if (head & 0x80)
      for (uint32_t k = 0; k < count; ++k) raw.insert(raw.end(), &data[at], &data[at] + bpp);
    else
      raw.insert(raw.end(), &data[at], &data[at] + bytes);
    at += bytes;
  }
  raw.resize(total);
  return raw;
}

// The colour of one stored colour-mapped or true-colour pixel as 0xAARRGGBB (15/16-bit
// pixels: 5 bits per channel, unscaled).
uint32_t pixel_argb(const uint8_t* p, const TgaHeader& h, const std::vector<uint32_t>& map,
                    const std::string& name) {
  if (h.kind == 1) {
    if (p[0] < h.map_first || p[0] - h.map_first >= map.size())
      fail(ErrorCode::kFormat, name,
           "colour index " + std::to_string(p[0]) + " outside the colour map");
    return map[p[0] - h.map_first];
  }
  if (h.bits <= 16) {
    const uint32_t v = p[0] | (p[1] << 8);
    return ((v >> 15) << 24) | (((v >> 10) & 31) << 16) | (((v >> 5) & 31) << 8) | (v & 31);
  }
  return (h.bits == 32 ? uint32_t{p[3]} << 24 : 0) | (uint32_t{p[2]} << 16) |
         (uint32_t{p[1]} << 8) | p[0];
}

}  // namespace

Image read_tga(std::span<const uint8_t> data, const std::string& name) {
  const TgaHeader h = read_header(data, name);
  size_t at = 18 + size_t{h.id_length};
  const std::vector<uint32_t> map = read_colour_map(data, h, at, name);
  const uint32_t map_entry = (h.map_bits + 7) / 8;
  const uint32_t bpp = (h.bits + 7) / 8;
  const std::vector<uint8_t> raw = read_raw_pixels(data, h, at, bpp, name);

  const bool with_alpha = (h.kind == 2 && h.bits == 32 && h.alpha_bits > 0) ||
                          (h.kind == 2 && h.bits == 16 && h.alpha_bits == 1) ||
                          (h.kind == 1 && map_entry == 4 && h.alpha_bits > 0);
  const uint32_t nc = h.kind == 3 ? 1 : with_alpha ? 4 : 3;
  const uint32_t precision = h.kind == 2 && h.bits <= 16 ? 5 : 8;
  const uint32_t width = h.width, height = h.height;
  Image image = make_image(width, height, nc, precision);
  image.color_space = nc == 1 ? ColorSpace::kGrey : ColorSpace::kSRGB;
  if (with_alpha) {
    image.components[3].is_alpha = true;
    if (h.bits == 16) image.components[3].precision = 1;
  }
  for (uint32_t y = 0; y < height; ++y)
    for (uint32_t x = 0; x < width; ++x) {
      const uint32_t sx = h.right_to_left ? width - 1 - x : x;
      const uint32_t sy = h.top_down ? y : height - 1 - y;
      const uint8_t* p = &raw[(size_t{sy} * width + sx) * bpp];
      const size_t i = size_t{y} * width + x;
      if (h.kind == 3) {
        image.components[0].samples[i] = p[0];
        continue;
      }
      const uint32_t argb = pixel_argb(p, h, map, name);
      image.components[0].samples[i] = static_cast<int32_t>((argb >> 16) & 0xFF);
      image.components[1].samples[i] = static_cast<int32_t>((argb >> 8) & 0xFF);
      image.components[2].samples[i] = static_cast<int32_t>(argb & 0xFF);
      if (with_alpha) image.components[3].samples[i] = static_cast<int32_t>(argb >> 24);
    }
  return image;
}

}  // namespace gj2k::io
