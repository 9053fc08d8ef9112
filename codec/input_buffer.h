// Caller-owned input buffers (gj2k::InputBuffer, include/gj2k/encoder.h): the encoder's view of
// a caller's samples. The encode stages read them row by row where they read an Image's
// samples (the CPU forward stage converts runs of a row to int32; GPU staging copies 8- and
// 16-bit interleaved rows as they lie), so the buffer is never copied whole into int32 planes.
// Not public.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "codec/output_buffer.h"
#include "gj2k/encoder.h"
#include "gj2k/image.h"

namespace gj2k::codec {

struct InputSource {
  const uint8_t* data = nullptr;
  BufferLayout layout;  // sample (x, y) of component c at c * comp_step + y * row + x * pixel
  uint32_t bytes = 1;   // per sample: 1, 2 or 4
  bool big_endian = false;
  bool interleaved = false;
  std::vector<uint8_t> is_signed;  // per component

  // Sample (x, y) of component c, counted from the component's first sample (Component::at).
  const uint8_t* at(size_t c, uint32_t x, uint32_t y) const {
    return data + c * layout.comp_step + size_t{y} * layout.row + size_t{x} * layout.pixel;
  }
  // Whether the bytes of a row are the samples as the host reads them at `bytes` each
  // (1-byte samples, or wider ones in the host's byte order).
  bool host_order() const {
    return bytes == 1 || big_endian == (std::endian::native == std::endian::big);
  }
};

// Checks `in` for an image of `layout` (an Image without samples, whose layout
// validate(params, layout, samples, /*buffers=*/false) has checked) and returns the source. Throws
// Error(kInvalidArgument), "input buffer: ...", for a layout with samples, a bad buffer layout
// (caller_layout), null data, or a sample outside its component's range (every sample is checked
// where a component's precision is below the sample type's width; the message names the first, in
// raster order), and Error(kBufferTooSmall) when in.size is below what the layout needs.
InputSource checked_input(const Image& layout, const InputBuffer& in);

// Samples [x, x + n) of row y of component c as int32 into dst.
void read_samples(const InputSource& src, size_t c, uint32_t x, uint32_t y, size_t n, int32_t* dst);

// `layout` with its samples read from the buffer (for the stages that need an Image: a
// --psnr target measures the reconstruction against it).
Image to_image(const Image& layout, const InputSource& src);

}  // namespace gj2k::codec
