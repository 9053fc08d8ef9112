// Caller-owned input buffers (codec/input_buffer.h) and the public input_bytes.
#include "codec/input_buffer.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>

#include "core/thread_pool.h"
#include "gj2k/error.h"

namespace gj2k {
namespace codec {
namespace {

[[noreturn]] void invalid(const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, "input buffer: " + what);
}

// One sample of type T at p, in the buffer's byte order, as int32 (T: the sample's width and
// signedness).
template <class T>
int32_t load(const uint8_t* p, bool swap) {
  T t;
  std::memcpy(&t, p, sizeof(T));
  if (swap) {
    if constexpr (sizeof(T) == 2) {
      t = static_cast<T>(__builtin_bswap16(static_cast<uint16_t>(t)));
    } else if constexpr (sizeof(T) == 4) {
      t = static_cast<T>(__builtin_bswap32(static_cast<uint32_t>(t)));
    }
  }
  return static_cast<int32_t>(t);
}

template <class T>
void read_run(const uint8_t* p, size_t pixel, bool swap, size_t n, int32_t* dst) {
  if (swap) {
    for (size_t i = 0; i < n; ++i) dst[i] = load<T>(p + i * pixel, true);
  } else if (pixel == sizeof(T)) {  // packed: the compiler vectorises the widening
    for (size_t i = 0; i < n; ++i) dst[i] = load<T>(p + i * sizeof(T), false);
  } else {
    for (size_t i = 0; i < n; ++i) dst[i] = load<T>(p + i * pixel, false);
  }
}

// Whether every sample of component c may lie outside its range: a precision below the
// sample type's width (a 32-bit sample of a 16-bit component, an 8-bit sample of a 6-bit one).
bool needs_range_check(const Component& comp, uint32_t bytes) {
  return comp.precision < 8 * bytes;
}

}  // namespace

void read_samples(const InputSource& src, size_t c, uint32_t x, uint32_t y, size_t n,
                  int32_t* dst) {
  const uint8_t* p = src.at(c, x, y);
  const size_t pixel = src.layout.pixel;
  const bool sgn = src.is_signed[c] != 0;
  const bool swap = !src.host_order();
  switch (src.bytes) {
    case 1:
      return sgn ? read_run<int8_t>(p, pixel, false, n, dst)
                 : read_run<uint8_t>(p, pixel, false, n, dst);
    case 2:
      return sgn ? read_run<int16_t>(p, pixel, swap, n, dst)
                 : read_run<uint16_t>(p, pixel, swap, n, dst);
    default:
      return read_run<int32_t>(p, pixel, swap, n, dst);
  }
}

InputSource checked_input(const Image& layout, const InputBuffer& in) {
  for (size_t c = 0; c < layout.components.size(); ++c)
    if (!layout.components[c].samples.empty())
      invalid("the layout image's component " + std::to_string(c) +
              " has samples; give its geometry only (its samples are the buffer's)");
  InputSource src;
  src.layout = caller_layout(layout, in.type, in.interleaved, in.big_endian, in.row_stride,
                             in.plane_stride, "input buffer");
  if (!in.data && src.layout.needed) invalid("data is NULL");
  if (in.size < src.layout.needed)
    throw Error(ErrorCode::kBufferTooSmall, "input buffer of " + std::to_string(in.size) +
                                                " bytes; the image needs " +
                                                std::to_string(src.layout.needed));
  src.data = static_cast<const uint8_t*>(in.data);
  src.bytes = static_cast<uint32_t>(in.type);
  src.big_endian = in.big_endian;
  src.interleaved = in.interleaved;
  for (const Component& comp : layout.components) src.is_signed.push_back(comp.is_signed);

  // The ranges: rows in parallel, a run at a time through a piece on the stack; the first bad
  // sample in raster order is found again serially for the message.
  for (size_t c = 0; c < layout.components.size(); ++c) {
    const Component& comp = layout.components[c];
    if (!needs_range_check(comp, src.bytes)) continue;
    const int64_t lo = comp.min_value(), hi = comp.max_value();
    constexpr size_t kPiece = 1024;
    auto row_ok = [&](uint32_t y) {
      int32_t v[kPiece];
      for (size_t x = 0; x < comp.width; x += kPiece) {
        const size_t n = std::min<size_t>(kPiece, comp.width - x);
        read_samples(src, c, static_cast<uint32_t>(x), y, n, v);
        for (size_t i = 0; i < n; ++i)
          if (v[i] < lo || v[i] > hi) return false;
      }
      return true;
    };
    std::atomic<bool> outside{false};
    core::parallel_blocks(
        comp.height,
        [&](size_t first, size_t last) {
          for (size_t y = first; y < last && !outside.load(std::memory_order_relaxed); ++y)
            if (!row_ok(static_cast<uint32_t>(y))) outside = true;
        },
        size_t{comp.width} * comp.height >= (size_t{1} << 20) ? 0 : 1);
    if (!outside.load()) continue;
    for (uint32_t y = 0; y < comp.height; ++y) {
      if (row_ok(y)) continue;
      for (uint32_t x = 0; x < comp.width; ++x) {
        int32_t v;
        read_samples(src, c, x, y, 1, &v);
        if (v < lo || v > hi)
          invalid("component " + std::to_string(c) + ": sample " + std::to_string(v) + " at (" +
                  std::to_string(x) + "," + std::to_string(y) +
                  ") outside the range of its precision");
      }
    }
  }
  return src;
}

Image to_image(const Image& layout, const InputSource& src) {
  Image image = layout;
  for (size_t c = 0; c < image.components.size(); ++c) {
    Component& comp = image.components[c];
    comp.samples.resize(size_t{comp.width} * comp.height);  // not zeroed: every row is read
    core::parallel_for_static(0, comp.height, [&](size_t y) {
      read_samples(src, c, 0, static_cast<uint32_t>(y), comp.width,
                   comp.samples.data() + y * comp.width);
    });
  }
  return image;
}

}  // namespace codec

size_t input_bytes(const Image& image, const InputBuffer& layout) {
  return codec::caller_layout(image, layout.type, layout.interleaved, layout.big_endian,
                              layout.row_stride, layout.plane_stride, "input buffer")
      .needed;
}

}  // namespace gj2k
