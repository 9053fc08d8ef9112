// GPU packing of final samples into a caller's sample format (transform/pack.h: pack_sample,
// the rule shared with the CPU's transform::pack_rect, which is its reference): a rectangle of
// int32 device samples into a strided device buffer of 8/16/32-bit samples, so that only the
// packed bytes cross the bus. Work is enqueued on `stream`.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "transform/pack.h"

namespace gj2k::transform::cuda {

// Sample (x, y) of d_src (pitch r.src_pitch samples) to d_dst + y * r.dst_row + x * r.dst_pixel,
// for x < r.width, y < r.height. Source and destination must not overlap.
void pack_rect(const int32_t* d_src, uint8_t* d_dst, const PackRect& r, PackFormat f,
               cudaStream_t stream);

}  // namespace gj2k::transform::cuda
