// The CPU packing of final samples (transform/pack.h): pack_sample's rule, with the common
// formats specialised so that the compiler sees fixed widths.
#include "transform/pack.h"

#include <bit>

#include "core/isa.h"
#include "core/thread_pool.h"
#include "transform/pack_kernels.h"
#if GJ2K_HAVE_ISA_V3
#include "transform/pack_v3.h"
#endif

namespace gj2k::transform {
namespace {

static_assert(std::endian::native == std::endian::little,
              "pack.h: little-endian output assumes a little-endian host");

// pack_row_u8 for one component.
uint32_t narrow_row_u8(const int32_t* src, size_t count, uint8_t* dst) {
#if GJ2K_HAVE_ISA_V3
  if (core::use_isa_v3()) return v3::narrow_u8(src, count, dst);
#endif
  return kernels::narrow_u8(src, count, dst);
}

template <uint32_t kBytes, bool kBigEndian>
void pack_rows(const int32_t* src, uint8_t* dst, const PackRect& r, int threads) {
  const auto height = static_cast<int64_t>(r.height);
  core::parallel_for_static(
      0, r.height,
      [&](size_t y) {
        const int32_t* s = src + static_cast<size_t>(y) * r.src_pitch;
        uint8_t* d = dst + static_cast<size_t>(y) * r.dst_row;
        if constexpr (kBytes == 1) {
          if (r.dst_pixel == 1) {
            narrow_row_u8(s, r.width, d);
            return;
          }
        }
        for (uint32_t x = 0; x < r.width; ++x, d += r.dst_pixel)
          pack_sample(d, s[x], kBytes, kBigEndian);
      },
      threads > 1 && height > 1 ? threads : 1);
}

// Pixels of n components; kN > 0: n known at compile time.
template <uint32_t kBytes, bool kBigEndian, size_t kN>
void pack_pixel_rows(const int32_t* const* src, size_t n, uint8_t* dst, const PackRect& r,
                     int threads) {
  if constexpr (kN > 0) n = kN;
  const auto height = static_cast<int64_t>(r.height);
  core::parallel_for_static(
      0, r.height,
      [&](size_t y) {
        const size_t row = static_cast<size_t>(y) * r.src_pitch;
        uint8_t* d = dst + static_cast<size_t>(y) * r.dst_row;
        if constexpr (kBytes == 1 && kN == 3) {
          if (r.dst_pixel == 3) {
            const int32_t* rows[3] = {src[0] + row, src[1] + row, src[2] + row};
            pack_row_u8(rows, 3, r.width, d);
            return;
          }
        }
        for (uint32_t x = 0; x < r.width; ++x, d += r.dst_pixel)
          for (size_t k = 0; k < n; ++k)
            pack_sample(d + k * kBytes, src[k][row + x], kBytes, kBigEndian);
      },
      threads > 1 && height > 1 ? threads : 1);
}

}  // namespace

uint32_t pack_row_u8(const int32_t* const* src, size_t n, size_t count, uint8_t* dst) {
  if (n == 1) return narrow_row_u8(src[0], count, dst);
  if (n == 3) {
#if GJ2K_HAVE_ISA_V3
    if (core::use_isa_v3()) return v3::interleave3_u8(src[0], src[1], src[2], count, dst);
#endif
    return kernels::interleave3_u8(src[0], src[1], src[2], count, dst);
  }
  uint32_t seen = 0;
  for (size_t x = 0; x < count; ++x)
    for (size_t k = 0; k < n; ++k) {
      seen |= static_cast<uint32_t>(src[k][x]);
      dst[n * x + k] = static_cast<uint8_t>(src[k][x]);
    }
  return seen;
}

void pack_pixels(const int32_t* const* src, size_t n, uint8_t* dst, const PackRect& r, PackFormat f,
                 int threads) {
  if (r.width == 0 || r.height == 0 || n == 0) return;
  if (threads < 1) threads = 1;
  if (f.bytes == 1 && n == 3) return pack_pixel_rows<1, false, 3>(src, n, dst, r, threads);
  if (f.bytes == 2 && f.big_endian && n == 3)
    return pack_pixel_rows<2, true, 3>(src, n, dst, r, threads);
  switch (f.bytes) {
    case 1:
      return pack_pixel_rows<1, false, 0>(src, n, dst, r, threads);
    case 2:
      return f.big_endian ? pack_pixel_rows<2, true, 0>(src, n, dst, r, threads)
                          : pack_pixel_rows<2, false, 0>(src, n, dst, r, threads);
    default:
      return f.big_endian ? pack_pixel_rows<4, true, 0>(src, n, dst, r, threads)
                          : pack_pixel_rows<4, false, 0>(src, n, dst, r, threads);
  }
}

void pack_rect(const int32_t* src, uint8_t* dst, const PackRect& r, PackFormat f, int threads) {
  if (r.width == 0 || r.height == 0) return;
  if (threads < 1) threads = 1;
  switch (f.bytes) {
    case 1:
      return pack_rows<1, false>(src, dst, r, threads);
    case 2:
      return f.big_endian ? pack_rows<2, true>(src, dst, r, threads)
                          : pack_rows<2, false>(src, dst, r, threads);
    default:
      return f.big_endian ? pack_rows<4, true>(src, dst, r, threads)
                          : pack_rows<4, false>(src, dst, r, threads);
  }
}

}  // namespace gj2k::transform
