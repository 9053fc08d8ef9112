// Output buffers (codec/output_buffer.h) and the public output_bytes / copy_to.
#include "codec/output_buffer.h"

#include <algorithm>
#include <limits>
#include <string>

#include "core/thread_pool.h"
#include "gj2k/error.h"

namespace gj2k {
namespace codec {
namespace {

[[noreturn]] void invalid(const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, "output buffer: " + what);
}

}  // namespace

BufferLayout strided_layout(uint32_t width, uint32_t height, size_t ncomp, size_t bytes,
                            bool interleaved, size_t row_stride, size_t plane_stride,
                            const char* what) {
  auto bad = [what](const std::string& why) {
    throw Error(ErrorCode::kInvalidArgument, std::string(what) + ": " + why);
  };
  BufferLayout g;
  if (ncomp == 0 || width == 0 || height == 0) return g;
  const size_t max = std::numeric_limits<size_t>::max();
  if (size_t{width} > max / bytes / ncomp) bad("its size overflows size_t");
  g.pixel = interleaved ? bytes * ncomp : bytes;
  const size_t packed_row = size_t{width} * g.pixel;
  g.row = row_stride ? row_stride : packed_row;
  if (g.row < packed_row)
    bad("row_stride " + std::to_string(row_stride) + " is below the " + std::to_string(packed_row) +
        " bytes of a row");
  if (g.row > max / height) bad("its size overflows size_t");
  const size_t plane_bytes = g.row * (height - 1) + packed_row;
  if (interleaved) {
    g.comp_step = bytes;
    g.needed = plane_bytes;
    return g;
  }
  g.comp_step = plane_stride ? plane_stride : g.row * height;
  if (g.comp_step < plane_bytes)
    bad("plane_stride " + std::to_string(plane_stride) + " is below the " +
        std::to_string(plane_bytes) + " bytes of a plane");
  if (g.comp_step > (max - plane_bytes) / ncomp) bad("its size overflows size_t");
  g.needed = g.comp_step * (ncomp - 1) + plane_bytes;
  return g;
}

BufferLayout caller_layout(const Image& image, SampleType type, bool interleaved, bool big_endian,
                           size_t row_stride, size_t plane_stride, const char* what) {
  auto bad = [what](const std::string& why) {
    throw Error(ErrorCode::kInvalidArgument, std::string(what) + ": " + why);
  };
  BufferLayout g;
  if (type != SampleType::k8 && type != SampleType::k16 && type != SampleType::k32)
    bad("sample type " + std::to_string(static_cast<int>(type)) + " is not 8, 16 or 32-bit");
  const uint32_t bytes = static_cast<uint32_t>(type);
  g.format = {bytes, big_endian};
  const size_t ncomp = image.components.size();
  uint32_t width = 0, height = 0;
  for (size_t k = 0; k < ncomp; ++k) {
    const Component& c = image.components[k];
    width = std::max(width, c.width);
    height = std::max(height, c.height);
    if (interleaved &&
        (c.width != image.components[0].width || c.height != image.components[0].height))
      bad("interleaved samples need components of one size; this image has subsampled "
          "components (use a planar buffer, or for a decode upsample)");
    if (c.precision > 8 * bytes)
      bad("component " + std::to_string(k) + " has " + std::to_string(c.precision) +
          " bits; it does not fit " + std::to_string(8 * bytes) + "-bit samples");
  }
  const BufferLayout s =
      strided_layout(width, height, ncomp, bytes, interleaved, row_stride, plane_stride, what);
  g.pixel = s.pixel;
  g.row = s.row;
  g.comp_step = s.comp_step;
  g.needed = s.needed;
  return g;
}

BufferLayout buffer_layout(const Image& image, const OutputBuffer& b) {
  return caller_layout(image, b.type, b.interleaved, b.big_endian, b.row_stride, b.plane_stride,
                       "output buffer");
}

BufferLayout checked_layout(const Image& image, const OutputBuffer& out) {
  const BufferLayout g = buffer_layout(image, out);
  if (!out.data && g.needed) invalid("data is NULL");
  if (out.size < g.needed)
    throw Error(ErrorCode::kBufferTooSmall, "output buffer of " + std::to_string(out.size) +
                                                " bytes; the decoded image needs " +
                                                std::to_string(g.needed));
  return g;
}

}  // namespace codec

size_t output_bytes(const Image& image, const OutputBuffer& layout) {
  return codec::buffer_layout(image, layout).needed;
}

void copy_to(const Image& image, const OutputBuffer& out) {
  const codec::BufferLayout g = codec::checked_layout(image, out);
  for (size_t k = 0; k < image.components.size(); ++k) {
    const Component& c = image.components[k];
    if (c.samples.size() != size_t{c.width} * c.height)
      throw Error(ErrorCode::kInvalidArgument, "copy_to: component " + std::to_string(k) + " has " +
                                                   std::to_string(c.samples.size()) +
                                                   " samples for " + std::to_string(c.width) + "x" +
                                                   std::to_string(c.height));
  }
  uint8_t* dst = static_cast<uint8_t*>(out.data);
  if (out.interleaved && !image.components.empty()) {  // whole pixels in one pass (one size)
    const Component& c0 = image.components[0];
    const transform::PackRect r{c0.width, c0.height, c0.width, g.row, g.pixel};
    std::vector<const int32_t*> src;
    for (const Component& c : image.components) src.push_back(c.samples.data());
    transform::pack_pixels(src.data(), src.size(), dst, r, g.format, core::max_threads());
    return;
  }
  for (size_t k = 0; k < image.components.size(); ++k) {
    const Component& c = image.components[k];
    const transform::PackRect r{c.width, c.height, c.width, g.row, g.pixel};
    transform::pack_rect(c.samples.data(), dst + k * g.comp_step, r, g.format, core::max_threads());
  }
}

}  // namespace gj2k
