// The row loops of transform/pack.h for 8-bit samples: each value's low 8 bits stored, one
// component or several interleaved, with the OR of the values read returned so that a caller
// can check a range in the same pass (io/pnm.cpp). Header-only, so that pack_v3.cpp compiles
// them for x86-64-v3 (core/isa.h) too, where the compiler turns the stride-3 stores into
// byte shuffles; the baseline build stays scalar.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gj2k::transform::kernels {

// dst[x] = low byte of a[x] for x < count. Returns the OR of a[0, count) as uint32_t.
inline uint32_t narrow_u8(const int32_t* __restrict a, size_t count, uint8_t* __restrict dst) {
  uint32_t seen = 0;
  for (size_t x = 0; x < count; ++x) {
    seen |= static_cast<uint32_t>(a[x]);
    dst[x] = static_cast<uint8_t>(a[x]);
  }
  return seen;
}

// dst[3x + k] = low byte of (a, b, c)[k][x] for x < count. Returns the OR of all 3 * count
// values as uint32_t.
inline uint32_t interleave3_u8(const int32_t* __restrict a, const int32_t* __restrict b,
                               const int32_t* __restrict c, size_t count, uint8_t* __restrict dst) {
  uint32_t seen = 0;
  for (size_t x = 0; x < count; ++x) {
    seen |= static_cast<uint32_t>(a[x]) | static_cast<uint32_t>(b[x]) | static_cast<uint32_t>(c[x]);
    dst[3 * x] = static_cast<uint8_t>(a[x]);
    dst[3 * x + 1] = static_cast<uint8_t>(b[x]);
    dst[3 * x + 2] = static_cast<uint8_t>(c[x]);
  }
  return seen;
}

}  // namespace gj2k::transform::kernels
