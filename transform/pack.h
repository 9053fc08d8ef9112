// Packing final samples into a caller's buffer (gj2k::Decoder::decode_into, gj2k::copy_to): the
// one rule for every path, written once for the CPU (transform::pack_rect) and the GPU
// (transform/cuda/pack_cuda.h). Host-device, plain C++17 (nvcc includes it).
//
// The rule: a sample v (an int32 already clipped to its component's range, 15444-1 G.1.2) is
// stored as its low 8 * bytes bits, two's complement: uint8_t / int8_t, uint16_t / int16_t or
// int32_t as the component is unsigned or signed. The caller checks beforehand that the
// component's precision fits the width (gj2k::output_bytes refuses otherwise), so no value is
// changed: the store is exact. Multi-byte samples go little-endian (the byte order of every
// host gj2k builds for, transform/pack.cpp checks it) or big-endian (PNM, raw, PGX "ML").
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/hd.h"

namespace gj2k::transform {

struct PackFormat {
  uint32_t bytes = 1;  // per sample: 1, 2 or 4
  bool big_endian = false;
};

GJ2K_HD_INLINE void pack_sample(uint8_t* p, int32_t v, uint32_t bytes, bool big_endian) {
  const uint32_t u = static_cast<uint32_t>(v);
  for (uint32_t i = 0; i < bytes; ++i) {
    const uint32_t shift = 8 * (big_endian ? bytes - 1 - i : i);
    p[i] = static_cast<uint8_t>(u >> shift);
  }
}

// One rectangle of samples into a strided destination: sample (x, y) of src (pitch src_pitch
// samples) goes to dst + y * dst_row + x * dst_pixel by pack_sample.
struct PackRect {
  uint32_t width = 0, height = 0;
  size_t src_pitch = 0;  // samples
  size_t dst_row = 0;    // bytes between destination rows
  size_t dst_pixel = 0;  // bytes between destination samples of a row (>= format.bytes)
};

// The CPU reference and host path: rows split over `threads` threads of the current pool
// (core/thread_pool.h; 1: serial).
void pack_rect(const int32_t* src, uint8_t* dst, const PackRect& r, PackFormat f, int threads);

// pack_rect of n rectangles of one size at once into interleaved pixels: sample (x, y) of
// src[k] goes to dst + y * dst_row + x * dst_pixel + k * format.bytes. The same bytes as n
// pack_rect calls, written in one pass over the destination.
void pack_pixels(const int32_t* const* src, size_t n, uint8_t* dst, const PackRect& r, PackFormat f,
                 int threads);

// One row of n >= 1 components as 8-bit pixels: dst[n * x + k] = the low byte of src[k][x]
// (pack_sample with one byte) for x < count. Returns the OR of the values read, as uint32_t,
// so that a caller can check their range in the same pass (io/pnm.cpp). One and three
// components run the loops of pack_kernels.h (their x86-64-v3 build where core::host_isa()
// says so).
uint32_t pack_row_u8(const int32_t* const* src, size_t n, size_t count, uint8_t* dst);

}  // namespace gj2k::transform
