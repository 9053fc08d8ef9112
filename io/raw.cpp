// Raw planar samples with caller-given geometry (io/image_io.h).
#include <string>

#include "io/image_io.h"
#include "io/io_util.h"

namespace gj2k::io {

using detail::fail;
using detail::mul_sat;
using detail::sign_extend;

Image read_raw(std::span<const uint8_t> data, const RawGeometry& g, const std::string& name) {
  if (g.width == 0 || g.height == 0 || g.num_components == 0)
    fail(ErrorCode::kInvalidArgument, name,
         "raw geometry has a zero width, height or component count");
  if (g.precision < 1 || g.precision > kMaxFilePrecision)
    fail(ErrorCode::kInvalidArgument, name,
         "raw precision " + std::to_string(g.precision) + " outside 1..16");
  const uint64_t bytes = g.precision <= 8 ? 1 : 2;
  const uint64_t plane = mul_sat(g.width, g.height, bytes);
  const uint64_t need = mul_sat(plane, g.num_components);
  if (need > data.size())
    fail(ErrorCode::kTruncated, name,
         std::to_string(g.num_components) + " planes of " + std::to_string(g.width) + "x" +
             std::to_string(g.height) + " need " + std::to_string(need) + " bytes, the data has " +
             std::to_string(data.size()));
  if (need < data.size())
    fail(ErrorCode::kFormat, name,
         "data holds " + std::to_string(data.size()) + " bytes, the geometry describes " +
             std::to_string(need));
  Image image = make_image(g.width, g.height, g.num_components, g.precision, g.is_signed);
  for (uint32_t c = 0; c < g.num_components; ++c) {
    Component& comp = image.components[c];
    const int64_t lo = comp.min_value(), hi = comp.max_value();
    const uint8_t* p = data.data() + c * plane;
    for (size_t i = 0; i < comp.samples.size(); ++i) {
      uint32_t raw = p[i * bytes];
      if (bytes == 2)
        raw = g.big_endian ? (raw << 8) | p[2 * i + 1] : raw | (uint32_t{p[2 * i + 1]} << 8);
      const int32_t v = g.is_signed ? sign_extend(raw, 8 * bytes) : static_cast<int32_t>(raw);
      if (v < lo || v > hi)
        fail(ErrorCode::kFormat, name,
             "component " + std::to_string(c) + ": sample " + std::to_string(v) + " at byte " +
                 std::to_string(c * plane + i * bytes) + " outside its precision " +
                 std::to_string(g.precision));
      comp.samples[i] = v;
    }
  }
  return image;
}

Image read_raw(const std::filesystem::path& path, const RawGeometry& geometry) {
  const FileBytes bytes = read_file<FileBytes>(path);
  return read_raw(bytes, geometry, path.string());
}

std::vector<uint8_t> encode_raw(const Image& image, bool big_endian, const std::string& name) {
  std::vector<uint8_t> out;
  size_t total = 0;
  for (const Component& comp : image.components)
    total += comp.samples.size() * (comp.precision > 8 ? 2 : 1);
  out.reserve(total);
  for (size_t c = 0; c < image.components.size(); ++c) {
    const Component& comp = image.components[c];
    const std::string which = "component " + std::to_string(c) + ": ";
    if (comp.precision < 1 || comp.precision > kMaxFilePrecision)
      fail(ErrorCode::kUnsupported, name,
           which + "precision " + std::to_string(comp.precision) + " does not fit raw (1..16)");
    const int64_t lo = comp.min_value(), hi = comp.max_value();
    const bool two = comp.precision > 8;
    for (int32_t v : comp.samples) {
      if (v < lo || v > hi)
        fail(ErrorCode::kInvalidArgument, name,
             which + "sample " + std::to_string(v) + " outside its precision");
      const uint32_t u = static_cast<uint32_t>(v);
      if (!two) {
        out.push_back(static_cast<uint8_t>(u));
      } else if (big_endian) {
        out.push_back(static_cast<uint8_t>(u >> 8));
        out.push_back(static_cast<uint8_t>(u));
      } else {
        out.push_back(static_cast<uint8_t>(u));
        out.push_back(static_cast<uint8_t>(u >> 8));
      }
    }
  }
  return out;
}

void write_raw(const Image& image, const std::filesystem::path& path, bool big_endian) {
  write_file(path, encode_raw(image, big_endian, path.string()));
}

}  // namespace gj2k::io
