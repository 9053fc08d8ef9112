// Narrowing int32 samples to the width the GPU encoder uploads them at (codec/encoder_tile_gpu.cpp
// stages a tile's samples into pinned chunks that a DMA then reads), their range checked in
// the same pass.
//
// Contract of narrow_row<T> (T: uint8_t, int8_t, uint16_t, int16_t or int32_t):
// - dst[x] = src[x] for x < n, for every value in [lo, hi] (which the caller picks inside T's
//   range: the component's, 15444-1 A.5.1); a value outside leaves its dst unspecified.
// - Returns whether every src[x] lies in [lo, hi].
// - dst and src may have any alignment. On x86-64 the stores bypass the caches (the chunk is
//   read next by the device, not by this core, and a store that first reads its line costs a
//   fifth of the traffic more), and are fenced before the call returns.
// narrow_row_ref is the plain loop, kept as the reference of the tests.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gj2k::transform {

template <class T>
bool narrow_row(const int32_t* src, size_t n, T* dst, int64_t lo, int64_t hi);

template <class T>
bool narrow_row_ref(const int32_t* src, size_t n, T* dst, int64_t lo, int64_t hi) {
  bool in_range = true;
  for (size_t x = 0; x < n; ++x) {
    in_range = in_range && src[x] >= lo && src[x] <= hi;
    dst[x] = static_cast<T>(src[x]);
  }
  return in_range;
}

}  // namespace gj2k::transform
