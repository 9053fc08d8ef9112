// TGA (Truevision) input (io/image_io.h).
#include <string>

#include "io/image_io.h"
#include "io/io_util.h"

namespace gj2k::io {

using detail::at_byte;
using detail::fail;

Image read_tga(std::span<const uint8_t> data, const std::string& name) {
  if (data.size() < 18) fail(ErrorCode::kTruncated, name, "the 18-byte TGA header ends early");
  const uint8_t id_length = data[0], map_type = data[1], type = data[2];
  const uint32_t map_first = data[3] | (data[4] << 8), map_length = data[5] | (data[6] << 8);
  const uint32_t map_bits = data[7];
  const uint32_t width = data[12] | (data[13] << 8), height = data[14] | (data[15] << 8);
  const uint32_t bits = data[16], descriptor = data[17];
  const uint32_t alpha_bits = descriptor & 0x0F;
  const bool top_down = descriptor & 0x20, right_to_left = descriptor & 0x10;
  const bool rle = type >= 9;
  const uint32_t kind = rle ? type - 8 : type;  // 1 colour-mapped, 2 true colour, 3 grey
  if (kind < 1 || kind > 3 || map_type > 1)
    fail(ErrorCode::kUnsupported, name, "TGA image type " + std::to_string(type));
  if (width == 0 || height == 0) fail(ErrorCode::kFormat, name, "empty TGA image");
  if ((kind == 1 && (bits != 8 || map_type != 1)) || (kind == 3 && bits != 8) ||
      (kind == 2 && bits != 15 && bits != 16 && bits != 24 && bits != 32))
    fail(ErrorCode::kUnsupported, name,
         "TGA type " + std::to_string(type) + " with " + std::to_string(bits) + " bits per pixel");

  size_t at = 18 + size_t{id_length};
  // Colour map: entries of 15/16, 24 or 32 bits, stored BGR(A).
  std::vector<uint32_t> map;  // 0xAARRGGBB
  const uint32_t map_entry = (map_bits + 7) / 8;
  if (map_type == 1) {
    if (map_entry < 2 || map_entry > 4)
      fail(ErrorCode::kUnsupported, name, std::to_string(map_bits) + "-bit TGA colour map");
    if (data.size() < at + size_t{map_length} * map_entry)
      fail(ErrorCode::kTruncated, name, "the colour map ends early");
    for (uint32_t k = 0; k < map_length; ++k, at += map_entry) {
      const uint8_t* p = &data[at];
      if (map_entry == 2) {
        const uint32_t v = p[0] | (p[1] << 8);
        auto x5 = [](uint32_t c) { return (c << 3) | (c >> 2); };
        map.push_back(0xFF000000u | (x5((v >> 10) & 31) << 16) | (x5((v >> 5) & 31) << 8) |
                      x5(v & 31));
      } else {
        map.push_back((map_entry == 4 ? uint32_t{p[3]} << 24 : 0xFF000000u) |
                      (uint32_t{p[2]} << 16) | (uint32_t{p[1]} << 8) | p[0]);
      }
    }
  }

  // Pixels as stored (bytes per pixel each), RLE expanded.
  const uint32_t bpp = (bits + 7) / 8;
  const uint64_t total = detail::mul_sat(width, height, bpp);
  std::vector<uint8_t> raw;
  if (!rle) {
    if (total > data.size() - std::min(at, data.size()))
      fail(ErrorCode::kTruncated, name, "pixel data ends early " + at_byte(data.size()));
    raw.assign(data.begin() + at, data.begin() + at + total);
  } else {
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
  }

  const bool with_alpha = (kind == 2 && bits == 32 && alpha_bits > 0) ||
                          (kind == 2 && bits == 16 && alpha_bits == 1) ||
                          (kind == 1 && map_entry == 4 && alpha_bits > 0);
  const uint32_t nc = kind == 3 ? 1 : with_alpha ? 4 : 3;
  const uint32_t precision = kind == 2 && bits <= 16 ? 5 : 8;
  Image image = make_image(width, height, nc, precision);
  image.color_space = nc == 1 ? ColorSpace::kGrey : ColorSpace::kSRGB;
  if (with_alpha) {
    image.components[3].is_alpha = true;
    if (bits == 16) image.components[3].precision = 1;
  }
  for (uint32_t y = 0; y < height; ++y)
    for (uint32_t x = 0; x < width; ++x) {
      const uint32_t sx = right_to_left ? width - 1 - x : x;
      const uint32_t sy = top_down ? y : height - 1 - y;
      const uint8_t* p = &raw[(size_t{sy} * width + sx) * bpp];
      const size_t i = size_t{y} * width + x;
      uint32_t argb = 0;
      if (kind == 3) {
        image.components[0].samples[i] = p[0];
        continue;
      }
      if (kind == 1) {
        if (p[0] < map_first || p[0] - map_first >= map.size())
          fail(ErrorCode::kFormat, name,
               "colour index " + std::to_string(p[0]) + " outside the colour map");
        argb = map[p[0] - map_first];
      } else if (bits <= 16) {
        const uint32_t v = p[0] | (p[1] << 8);
        argb = ((v >> 15) << 24) | (((v >> 10) & 31) << 16) | (((v >> 5) & 31) << 8) | (v & 31);
      } else {
        argb = (bits == 32 ? uint32_t{p[3]} << 24 : 0) | (uint32_t{p[2]} << 16) |
               (uint32_t{p[1]} << 8) | p[0];
      }
      image.components[0].samples[i] = static_cast<int32_t>((argb >> 16) & 0xFF);
      image.components[1].samples[i] = static_cast<int32_t>((argb >> 8) & 0xFF);
      image.components[2].samples[i] = static_cast<int32_t>(argb & 0xFF);
      if (with_alpha) image.components[3].samples[i] = static_cast<int32_t>(argb >> 24);
    }
  return image;
}

}  // namespace gj2k::io
