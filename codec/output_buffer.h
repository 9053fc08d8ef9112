// Caller-owned output buffers (gj2k::OutputBuffer, include/gj2k/decoder.h): where each output
// component's samples lie, checked once for copy_to, Decoder::decode_into and the C API; the
// layout rules are shared with input buffers (codec/input_buffer.h).
// Not public.
#pragma once

#include <cstddef>

#include "gj2k/decoder.h"
#include "gj2k/image.h"
#include "transform/pack.h"

namespace gj2k::codec {

// Sample (x, y) of output component k at data + k * comp_step + y * row + x * pixel.
struct BufferLayout {
  transform::PackFormat format;
  size_t pixel = 1, row = 0, comp_step = 0;
  size_t needed = 0;  // bytes the buffer must hold
};

// The strides of a caller's buffer of `ncomp` components of width x height samples of `bytes`
// bytes (interleaved, or planar planes `plane_stride` apart; a stride of 0: packed): sample
// (x, y) of component k at k * comp_step + y * row + x * pixel, `needed` bytes in all. Throws
// Error(kInvalidArgument), "<what>: ...", for strides below the packed ones and sizes that
// overflow size_t. Shared by decode outputs and the C API's encode inputs.
BufferLayout strided_layout(uint32_t width, uint32_t height, size_t ncomp, size_t bytes,
                            bool interleaved, size_t row_stride, size_t plane_stride,
                            const char* what);

// The layout of a caller's buffer of `type` samples for the components of `image` (samples not
// read): interleaved ones need components of one size, and every component's precision must
// fit the type. Throws Error(kInvalidArgument), "<what>: ...", for those and what
// strided_layout refuses. Shared by OutputBuffer and InputBuffer (codec/input_buffer.h).
BufferLayout caller_layout(const Image& image, SampleType type, bool interleaved, bool big_endian,
                           size_t row_stride, size_t plane_stride, const char* what);

// The layout of `out` for the components of `image` (samples not read). Throws
// Error(kInvalidArgument) as output_bytes documents.
BufferLayout buffer_layout(const Image& image, const OutputBuffer& out);

// buffer_layout, and refuses null data (kInvalidArgument) or a size below it (kBufferTooSmall).
BufferLayout checked_layout(const Image& image, const OutputBuffer& out);

}  // namespace gj2k::codec
